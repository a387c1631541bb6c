/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Function probe for mlx5j's librdmacm bindings (Rdmacm.java): takes the address of every function bound, so gcc records
 * their prototypes from the installed <rdma/rdma_cma.h> in the DWARF of this object; RdmacmSignatureTest compares each
 * with the Java FunctionDescriptor. Compiled with -c only.
 */
#include <rdma/rdma_cma.h>

void *const mlx5j_bound_rdmacm_functions[] = {
	(void *)rdma_create_event_channel,
	(void *)rdma_destroy_event_channel,
	(void *)rdma_create_id,
	(void *)rdma_destroy_id,
	(void *)rdma_bind_addr,
	(void *)rdma_resolve_addr,
	(void *)rdma_resolve_route,
	(void *)rdma_connect,
	(void *)rdma_establish,
	(void *)rdma_listen,
	(void *)rdma_accept,
	(void *)rdma_reject,
	(void *)rdma_disconnect,
	(void *)rdma_join_multicast,
	(void *)rdma_leave_multicast,
	(void *)rdma_get_cm_event,
	(void *)rdma_ack_cm_event,
	(void *)rdma_get_src_port,
	(void *)rdma_get_dst_port,
	(void *)rdma_event_str,
	(void *)rdma_set_option,
	(void *)rdma_migrate_id,
	(void *)rdma_init_qp_attr,
	(void *)rdma_notify,
};
