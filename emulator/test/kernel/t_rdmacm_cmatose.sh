#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Unmodified ucmatose (RC: several connections on one channel, private data, migrating ids to a new channel with
# -m, an ack timeout with -a) and udaddy (UD: SIDR exchange, address handles from the ESTABLISHED event), IB and
# RoCE.
source "$(dirname "$0")/rdmacm.bash"
for link in ib eth; do
	cm_pair $link "^return status 0" ucmatose -c 4 -C 20 -- ucmatose -s 127.0.0.1 -c 4 -C 20
	cm_pair $link "^return status 0" ucmatose -c 2 -C 10 -S 4000 -m -- ucmatose -s 127.0.0.1 -c 2 -C 10 -S 4000 -m
	cm_pair $link "^return status 0" ucmatose -c 1 -C 5 -a 14 -- ucmatose -s 127.0.0.1 -c 1 -C 5 -a 14
	cm_pair $link "^return status 0" udaddy -c 2 -C 10 -- udaddy -s 127.0.0.1 -c 2 -C 10
done
exit $fail
