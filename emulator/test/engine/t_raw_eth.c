/* SPDX-License-Identifier: Apache-2.0 */
/* t_raw_eth: raw packet QPs and flow steering with the default minimum inline mode (none); see raw_eth_test.h. */
#include "raw_eth_test.h"

int main(void)
{
	return raw_eth_main();
}
