#!/usr/bin/env bash
# Unmodified mckey: rdma_cm UD multicast. The receiver joins 239.1.2.3 (MULTICAST_JOIN, then librdmacm attaches its
# QP with ATTACH_MCAST) and waits for every message; the sender joins, sends unsignaled UD messages to QPN 0xffffff
# through the group's address vector and exits at once. IPv4 and IPv6 groups, IB and RoCE.
source "$(dirname "$0")/rdmacm.bash"
READY_RE="ATTACH_MCAST .* -> ok"
for link in ib eth; do
	cm_pair $link "^return status 0" stdbuf -oL mckey -m 239.1.2.3 -b 127.0.0.1 -C 10 \
		-- mckey -m 239.1.2.3 -b 127.0.0.1 -C 10 -s
	cm_pair $link "^return status 0" stdbuf -oL mckey -m ff0e::1:2 -b ::1 -C 5 -S 500 \
		-- mckey -m ff0e::1:2 -b ::1 -C 5 -S 500 -s
done
exit $fail
