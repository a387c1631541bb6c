#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 1,024 RC connections between two processes over rdma_cm, IB and RoCE: unmodified ucmatose -c 1024, one message
# each way per connection. More REQs than the CM mailbox once held (128: REQs lost, UNREACHABLE after the CM
# timeout) and far more QPs than a context has BlueFlame registers (doorbells written over on a shared register:
# both processes polling for ever under load). Each pair is bounded by cm_pair's 90 s per side.
source "$(dirname "$0")/rdmacm.bash"
for link in ib eth; do
	cm_pair $link "^return status 0" ucmatose -c 1024 -C 1 -- ucmatose -s 127.0.0.1 -c 1024 -C 1
done
exit $fail
