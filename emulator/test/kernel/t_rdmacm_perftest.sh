#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perftest with -R over InfiniBand: the QPs are created and connected through rdma_cm (rdma_create_qp,
# rdma_connect/accept), not through perftest's TCP exchange. t_rdmacm_perftest_eth.sh: the same on RoCE.
source "$(dirname "$0")/rdmacm.bash"
RACE_RETRY="RDMA_CM_EVENT_REJECTED; error: 8"
CLIENT_NICE=1
CLIENT_RESOLVE_MS=150
link=${PERFTEST_LINK:-ib}
cm_pair $link "^ 65536 +100 " ib_write_bw -R -p 18601 -s 65536 -n 100 -- ib_write_bw -R -p 18601 -s 65536 -n 100 127.0.0.1
cm_pair $link "^ 2 +100 " ib_send_lat -R -p 18602 -n 100 -- ib_send_lat -R -p 18602 -n 100 127.0.0.1
cm_pair $link "^ 65536 +100 " ib_read_bw -R -p 18603 -n 100 -- ib_read_bw -R -p 18603 -n 100 127.0.0.1
exit $fail
