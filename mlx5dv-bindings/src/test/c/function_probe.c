/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Function probe for the mlx5j FFM bindings: takes the address of every exported function Verbs, Mlx5dv and Libc bind, so
 * that gcc records their prototypes (return and parameter types, from the installed headers) in the DWARF of this
 * object. DowncallSignatureTest reads them with readelf and compares each with the Java FunctionDescriptor.
 * Compiled with -c only: nothing is linked or run. Names are the exported symbols (ibv_query_port and ibv_reg_mr
 * without arguments are the functions, not the verbs.h macros).
 */
#include <poll.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

void *const mlx5j_bound_functions[] = {
	(void *)ibv_get_device_list,
	(void *)ibv_free_device_list,
	(void *)ibv_get_device_name,
	(void *)ibv_get_device_guid,
	(void *)ibv_open_device,
	(void *)ibv_close_device,
	(void *)ibv_query_device,
	(void *)ibv_query_port,
	(void *)ibv_query_gid,
	(void *)ibv_alloc_pd,
	(void *)ibv_dealloc_pd,
	(void *)ibv_reg_mr,
	(void *)ibv_reg_mr_iova2,
	(void *)ibv_dereg_mr,
	(void *)ibv_create_comp_channel,
	(void *)ibv_destroy_comp_channel,
	(void *)ibv_create_cq,
	(void *)ibv_destroy_cq,
	(void *)ibv_get_cq_event,
	(void *)ibv_ack_cq_events,
	(void *)ibv_create_qp,
	(void *)ibv_modify_qp,
	(void *)ibv_query_qp,
	(void *)ibv_destroy_qp,
	(void *)ibv_qp_to_qp_ex,
	(void *)ibv_create_srq,
	(void *)ibv_destroy_srq,
	(void *)ibv_modify_srq,
	(void *)ibv_query_srq,
	(void *)ibv_get_async_event,
	(void *)ibv_ack_async_event,
	(void *)ibv_create_ah,
	(void *)ibv_destroy_ah,
	(void *)ibv_attach_mcast,
	(void *)ibv_detach_mcast,
	(void *)ibv_wc_status_str,
	(void *)mlx5dv_init_obj,
	(void *)mlx5dv_create_cq,
	(void *)mlx5dv_create_wq,
	(void *)mlx5dv_is_supported,
	(void *)mlx5dv_get_clock_info,
	(void *)mlx5dv_query_device,
	(void *)mlx5dv_create_qp,
	(void *)mlx5dv_qp_ex_from_ibv_qp_ex,
	(void *)poll,
};
