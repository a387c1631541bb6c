/* SPDX-License-Identifier: Apache-2.0 */
/* rdma_cm commands of a connection: LISTEN, CONNECT, ACCEPT, REJECT, DISCONNECT, INIT_QP_ATTR, NOTIFY. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucma_cmd.h"

int emu_ucma_cmd_listen(struct ucmd *c)
{
	IN(struct rdma_ucm_listen, cmd);
	int err;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (id->state == S_IDLE) {
		struct sockaddr_in any;
		memset(&any, 0, sizeof(any));
		any.sin_family = AF_INET;
		err = emu_ucma_bind(id, (struct sockaddr *)&any);
		if (err)
			return err;
	}
	if (id->state != S_ADDR_BOUND)
		return EINVAL;
	err = cm_dir_listen(id->dir_slot);
	if (err)
		return err;
	id->backlog = (int)cmd.backlog > 0 && cmd.backlog < MAX_BACKLOG ? (int)cmd.backlog : MAX_BACKLOG;
	id->state = S_LISTEN;
	return 0;
}

int emu_ucma_cmd_connect(struct ucmd *c)
{
	IN(struct rdma_ucm_connect, cmd);
	int err;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (!cmd.conn_param.valid)
		return EINVAL;
	if (id->state != S_ROUTE_RESOLVED)
		return EINVAL;
	uint32_t max = (emu_ucma_is_ud(id) ? PD_SIDR_REQ : PD_REQ) - CMA_HDR;
	if (cmd.conn_param.private_data_len > max)
		return EINVAL;
	id->qpn = cmd.conn_param.qp_num & 0xffffff;
	id->srq = cmd.conn_param.srq;
	id->resp_res = cmd.conn_param.responder_resources;
	id->init_depth = cmd.conn_param.initiator_depth;
	id->flow_control = cmd.conn_param.flow_control;
	id->retry = cmd.conn_param.retry_count > 7 ? 7 : cmd.conn_param.retry_count;
	id->rnr_retry = cmd.conn_param.rnr_retry_count > 7 ? 7 : cmd.conn_param.rnr_retry_count;
	id->psn = (uint32_t)(emu_ucma_now_ns() * 2246822519u) & 0xffffff;
	id->state = S_REQ_SENT;
	emu_ucma_set_timer(id, T_REQ, emu_ucma_cm_timeout_ns());

	struct cm_dir_hit hit;
	char b[80];
	if (emu_log_enabled)
		emu_log("rdma_cm: t=%llu id %u connects to %s (ps 0x%x)", (unsigned long long)(emu_ucma_now_ns() / 1000),
			id->handle, emu_ucma_addr_str(&id->dst, b, sizeof(b)), id->ps);
	if (cm_dir_find_listener(id->ps, (struct sockaddr *)&id->dst, &hit) != 0) {
		/* the destination's CM has no listener for the service ID */
		id->timer = T_NONE;
		id->state = S_DONE;
		if (emu_ucma_is_ud(id)) {
			emu_ucma_queue_event(id, EV_UNREACHABLE, SIDR_UNSUPPORTED);
		} else {
			struct ucma_event *e = emu_ucma_queue_event(id, EV_REJECTED, REJ_INVALID_SERVICE_ID);
			if (e)
				e->resp.param.conn.private_data_len = PD_REJ;
		}
		return 0;
	}
	id->peer_pid = hit.pid;
	id->peer_id = hit.id;
	id->peer_cookie = hit.cookie;
	emu_ucma_send_msg(id, emu_ucma_is_ud(id) ? CM_SIDR_REQ : CM_REQ, 0, cmd.conn_param.private_data,
		 cmd.conn_param.private_data_len);
	return 0;
}

int emu_ucma_cmd_accept(struct ucmd *c)
{
	IN(struct rdma_ucm_accept, cmd);
	int err;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (!cmd.conn_param.valid) {
		/* cma_rep_recv(): the active side confirms the REP with an RTU */
		if (id->state != S_REP_RCVD)
			return EINVAL;
		emu_ucma_send_msg(id, CM_RTU, 0, NULL, 0);
		id->state = S_ESTABLISHED;
		return 0;
	}
	if (id->state != S_REQ_RCVD || id->listener)
		return EINVAL;
	if (emu_ucma_is_ud(id)) {
		if (cmd.conn_param.private_data_len > PD_SIDR_REP)
			return EINVAL;
		id->qpn = cmd.conn_param.qp_num & 0xffffff;
		id->uid = cmd.uid;
		emu_ucma_send_msg(id, CM_SIDR_REP, SIDR_SUCCESS, cmd.conn_param.private_data, cmd.conn_param.private_data_len);
		id->state = S_DONE;
		return 0;
	}
	if (cmd.conn_param.private_data_len > PD_REP)
		return EINVAL;
	id->qpn = cmd.conn_param.qp_num & 0xffffff;
	id->srq = cmd.conn_param.srq;
	id->resp_res = cmd.conn_param.responder_resources;
	id->init_depth = cmd.conn_param.initiator_depth;
	id->flow_control = cmd.conn_param.flow_control;
	id->rnr_retry = cmd.conn_param.rnr_retry_count > 7 ? 7 : cmd.conn_param.rnr_retry_count;
	id->uid = cmd.uid;
	id->state = S_REP_SENT;
	emu_ucma_set_timer(id, T_REP, emu_ucma_cm_timeout_ns());
	emu_ucma_send_msg(id, CM_REP, 0, cmd.conn_param.private_data, cmd.conn_param.private_data_len);
	return 0;
}

int emu_ucma_cmd_reject(struct ucmd *c)
{
	IN(struct rdma_ucm_reject, cmd);
	int err;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (!cmd.reason)
		cmd.reason = REJ_CONSUMER_DEFINED;
	if (cmd.reason != REJ_CONSUMER_DEFINED && cmd.reason != REJ_VENDOR_OPTION_NOT_SUPPORTED)
		return EINVAL;
	if (cmd.private_data_len > PD_REJ)
		return EINVAL;
	if (id->state != S_REQ_RCVD && id->state != S_REP_RCVD)
		return EINVAL;
	if (emu_ucma_is_ud(id))
		emu_ucma_send_msg(id, CM_SIDR_REP, SIDR_REJECT, cmd.private_data, cmd.private_data_len);
	else
		emu_ucma_send_msg(id, CM_REJ, cmd.reason, cmd.private_data, cmd.private_data_len);
	id->state = S_DONE;
	return 0;
}

int emu_ucma_cmd_disconnect(struct ucmd *c)
{
	IN(struct rdma_ucm_disconnect, cmd);
	int err;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	/* rdma_disconnect: ids that never had a CM id are EINVAL; otherwise a DREQ if established, else a DREP
	 * if the peer asked, else nothing (still 0) */
	if (!id->peer_pid && id->state != S_DREQ_RCVD && id->state != S_TIMEWAIT && id->state != S_DONE)
		return EINVAL;
	if (id->state == S_ESTABLISHED) {
		emu_ucma_send_msg(id, CM_DREQ, 0, NULL, 0);
		id->state = S_DREQ_SENT;
		emu_ucma_set_timer(id, T_DREQ, emu_ucma_cm_timeout_ns());
	} else if (id->state == S_DREQ_RCVD) {
		emu_ucma_send_msg(id, CM_DREP, 0, NULL, 0);
		emu_ucma_enter_timewait(id);
	}
	return 0;
}

int emu_ucma_cmd_init_qp_attr(struct ucmd *c)
{
	IN(struct rdma_ucm_init_qp_attr, cmd);
	struct ib_uverbs_qp_attr r;
	int err;

	if (c->out_len < sizeof(r))
		return ENOSPC;
	if (cmd.qp_state > 6)
		return EINVAL;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (id->dev < 0)
		return EINVAL;
	memset(&r, 0, sizeof(r));
	r.qp_state = cmd.qp_state;
	r.port_num = 1;
	r.pkey_index = 0;
	int connected = id->state == S_REQ_RCVD || id->state == S_REP_SENT || id->state == S_REP_RCVD ||
			id->state == S_ESTABLISHED;
	if (emu_ucma_is_ud(id)) {
		/* cma_ib_init_qp_attr for UD, whatever the state asked */
		r.qkey = id->qkey;
		r.qp_attr_mask = QPA_STATE | QPA_PKEY_INDEX | QPA_PORT | QPA_QKEY;
	} else if (cmd.qp_state == 1 /* INIT */) {
		r.qp_attr_mask = QPA_STATE | QPA_PKEY_INDEX | QPA_PORT | QPA_ACCESS_FLAGS;
		if (connected) /* cm_init_qp_init_attr */
			r.qp_access_flags = ACC_REMOTE_WRITE | (id->resp_res ? ACC_REMOTE_READ | ACC_REMOTE_ATOMIC : 0);
	} else if (cmd.qp_state == 2 /* RTR */ && connected) {
		r.qp_attr_mask = QPA_STATE | QPA_AV | QPA_PATH_MTU | QPA_DEST_QPN | QPA_RQ_PSN |
				 QPA_MAX_DEST_RD_ATOMIC | QPA_MIN_RNR_TIMER;
		emu_ucma_ah_to_user(id, &r.ah_attr);
		r.path_mtu = emu_ucma_path_mtu(id);
		r.dest_qp_num = id->peer_qpn;
		r.rq_psn = id->peer_psn;
		r.max_dest_rd_atomic = id->resp_res;
		r.min_rnr_timer = 0;
	} else if (cmd.qp_state == 3 /* RTS */ && connected) {
		r.qp_attr_mask = QPA_STATE | QPA_SQ_PSN | QPA_TIMEOUT | QPA_RETRY_CNT | QPA_RNR_RETRY |
				 QPA_MAX_QP_RD_ATOMIC;
		r.sq_psn = id->psn;
		r.timeout = emu_ucma_ack_timeout(id);
		r.retry_cnt = id->retry;
		r.rnr_retry = id->rnr_retry;
		r.max_rd_atomic = id->init_depth;
	} else {
		return EINVAL;
	}
	return respond(cmd.response, &r, sizeof(r));
}

int emu_ucma_cmd_notify(struct ucmd *c)
{
	IN(struct rdma_ucm_notify, cmd);
	int err;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	if (!id->peer_pid && id->state != S_ESTABLISHED)
		return EINVAL;
	if (cmd.event != IBV_EVENT_COMM_EST)
		return EINVAL;
	/* ib_cm_notify -> cm_establish: REP_SENT becomes ESTABLISHED (a receive completed before the RTU) */
	if (id->state == S_ESTABLISHED)
		return EISCONN;
	if (id->state != S_REP_SENT)
		return EINVAL;
	id->state = S_ESTABLISHED;
	id->timer = T_NONE;
	emu_ucma_queue_event(id, EV_ESTABLISHED, 0);
	return 0;
}
