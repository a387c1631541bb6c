// SPDX-License-Identifier: Apache-2.0
/** {@code mlx5j selfcheck}: the encoded bytes of a few work requests, printed without a device. */
package io.mlx5j.tool.selfcheck;
