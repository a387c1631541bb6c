#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rsockets over rdma_cm (rstream, riostream: stream sockets, RDMA writes into registered iomaps) and cmtime (many
# connections set up and torn down at once through one channel; its server never exits by itself). IB and RoCE.
source "$(dirname "$0")/rdmacm.bash"
for link in ib eth; do
	cm_pair $link "^custom +4k +100 " rstream -S 4096 -C 100 -- rstream -s 127.0.0.1 -S 4096 -C 100
	cm_pair $link "^custom +64k +20 " riostream -S 65536 -C 20 -- riostream -s 127.0.0.1 -S 65536 -C 20
	SERVER_STAYS=1 cm_pair $link "^disconnect +:" cmtime -c 20 -- cmtime -s 127.0.0.1 -c 20
done
exit $fail
