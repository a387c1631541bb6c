#!/usr/bin/env bash
# perftest with -R: the QPs are created and connected through rdma_cm (rdma_create_qp, rdma_connect/accept), not
# through perftest's TCP exchange. IB and RoCE.
source "$(dirname "$0")/rdmacm.bash"
RACE_RETRY="RDMA_CM_EVENT_REJECTED; error: 8"
CLIENT_NICE=1
for link in ib eth; do
	cm_pair $link "^ 65536 +200 " ib_write_bw -R -p 18601 -s 65536 -n 200 -- ib_write_bw -R -p 18601 -s 65536 -n 200 127.0.0.1
	cm_pair $link "^ 2 +200 " ib_send_lat -R -p 18602 -n 200 -- ib_send_lat -R -p 18602 -n 200 127.0.0.1
	cm_pair $link "^ 65536 +200 " ib_read_bw -R -p 18603 -n 200 -- ib_read_bw -R -p 18603 -n 200 127.0.0.1
done
exit $fail
