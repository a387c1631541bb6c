#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Unmodified mckey: rdma_cm UD multicast. The receiver joins 239.1.2.3 (MULTICAST_JOIN, then librdmacm attaches its
# QP with ATTACH_MCAST) and waits for every message; the sender joins, sends unsignaled UD messages to QPN 0xffffff
# through the group's address vector and exits at once. IPv4 groups on IB and RoCE, IPv6 groups on IB (Linux's
# rdma_cm joins no IPv6 group with RoCE v2, its default GID type: cma_iboe_join_multicast, t_rdmacm_eth checks it).
source "$(dirname "$0")/rdmacm.bash"
READY_RE="ATTACH_MCAST .* -> ok"
for link in ib eth; do
	cm_pair $link "^return status 0" stdbuf -oL mckey -m 239.1.2.3 -b 127.0.0.1 -C 10 \
		-- mckey -m 239.1.2.3 -b 127.0.0.1 -C 10 -s
done
cm_pair ib "^return status 0" stdbuf -oL mckey -m ff0e::1:2 -b ::1 -C 5 -S 500 \
	-- mckey -m ff0e::1:2 -b ::1 -C 5 -S 500 -s
exit $fail
