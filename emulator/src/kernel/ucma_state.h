/* SPDX-License-Identifier: Apache-2.0 */
/* The rdma_cm "kernel"'s shared state (layer 1 of LAYERS): ids, channel files and their event queues, multicast
 * memberships, the ucma lock that guards all of it, and the id facts every part needs (path record, address
 * vector, CM messages and timers). ucma.c (the device file) and the ucma_cmd_*.c handlers and the CM thread
 * (ucma_cm.c) build on it. Everything here runs under emu_ucma_lock. */
#ifndef MLX5EMU_UCMA_STATE_H
#define MLX5EMU_UCMA_STATE_H

#include <pthread.h>
#include <stdint.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_cm.h>

#include "ucma.h"

/* enum rdma_cm_event_type (librdmacm rdma_cma.h, kernel include/rdma/rdma_cm.h) */
enum {
	EV_ADDR_RESOLVED = 0, EV_ADDR_ERROR, EV_ROUTE_RESOLVED, EV_ROUTE_ERROR, EV_CONNECT_REQUEST,
	EV_CONNECT_RESPONSE, EV_CONNECT_ERROR, EV_UNREACHABLE, EV_REJECTED, EV_ESTABLISHED, EV_DISCONNECTED,
	EV_DEVICE_REMOVAL, EV_MULTICAST_JOIN, EV_MULTICAST_ERROR, EV_ADDR_CHANGE, EV_TIMEWAIT_EXIT
};

/* Private data areas of IB CM messages (include/rdma/ib_cm.h IB_CM_*_PRIVATE_DATA_SIZE); rdma_cm puts its
 * 36-byte cma_hdr first for IP port spaces (cma.c cma_user_data_offset), so users get the rest. */
#define PD_REQ      92
#define PD_REP      196
#define PD_REJ      148
#define PD_SIDR_REQ 216
#define PD_SIDR_REP 136
#define CMA_HDR     36

/* Reject reasons (ib_cm.h enum ib_cm_rej_reason) and SIDR statuses (enum ib_cm_sidr_status) */
#define REJ_TIMEOUT             1
#define REJ_INVALID_SERVICE_ID  8
#define REJ_CONSUMER_DEFINED    28
#define REJ_VENDOR_OPTION_NOT_SUPPORTED 35
#define SIDR_SUCCESS     0
#define SIDR_UNSUPPORTED 1
#define SIDR_REJECT      2

#define RDMA_UDP_QKEY 0x01234567u /* cma.c */
#define IBV_EVENT_COMM_EST 4      /* enum ib_event_type */
#define MAX_BACKLOG 1024          /* ucma.c max_backlog */

/* IB_QP_* attribute mask bits and IB_ACCESS_* (ib_verbs.h; same values as ibv_qp_attr_mask) */
#define QPA_STATE 1u
#define QPA_ACCESS_FLAGS 8u
#define QPA_PKEY_INDEX 16u
#define QPA_PORT 32u
#define QPA_QKEY 64u
#define QPA_AV 128u
#define QPA_PATH_MTU 256u
#define QPA_TIMEOUT 512u
#define QPA_RETRY_CNT 1024u
#define QPA_RNR_RETRY 2048u
#define QPA_RQ_PSN 4096u
#define QPA_MAX_QP_RD_ATOMIC 8192u
#define QPA_MIN_RNR_TIMER 32768u
#define QPA_SQ_PSN 65536u
#define QPA_MAX_DEST_RD_ATOMIC 131072u
#define QPA_DEST_QPN 1048576u
#define ACC_REMOTE_WRITE 2u
#define ACC_REMOTE_READ 4u
#define ACC_REMOTE_ATOMIC 8u

/* Path facts of the emulated subnet: the SM answers packet life time 18 (OpenSM's default subnet timeout);
 * RoCE uses cma.c's CMA_IBOE_PACKET_LIFETIME 16 and the IP hop limit 64. Rate: 100 Gb/s (IB_RATE_100_GBPS). */
#define IB_PKT_LIFETIME   18
#define ROCE_PKT_LIFETIME 16
#define PATH_RATE         16

enum id_state {
	S_IDLE, S_ADDR_QUERY, S_ADDR_RESOLVED, S_ROUTE_QUERY, S_ROUTE_RESOLVED, S_ADDR_BOUND, S_LISTEN,
	S_REQ_SENT,      /* active: REQ (or SIDR REQ) sent */
	S_REP_RCVD,      /* active: REP received, CONNECT_RESPONSE queued; the library answers with ACCEPT (RTU) */
	S_REQ_RCVD,      /* passive: REQ received */
	S_REP_SENT,      /* passive: accepted, waiting for RTU */
	S_ESTABLISHED, S_DREQ_SENT, S_DREQ_RCVD, S_TIMEWAIT, S_DONE
};

/* The kernel's internal ENOTSUPP (include/linux/errno.h), which ucma passes to user space as is (errno 524). */
#define KERNEL_ENOTSUPP 524

/* T_ADDR_DONE / T_ROUTE_DONE: resolution completes on the CM thread, as the kernel reports it from a workqueue
 * (addr.c process_one_req, the SA query's MAD completion), never inside the command itself. */
enum timer_kind { T_NONE, T_ADDR, T_REQ, T_REP, T_DREQ, T_TIMEWAIT, T_ADDR_DONE, T_ROUTE_DONE };

struct ucma_file;

struct ucma_id {
	struct ucma_file *file;
	uint32_t handle;
	uint64_t uid;                /* 0 for a passive id until ACCEPT: its events are dropped (ucma_event_handler) */
	uint64_t cookie;
	uint16_t ps;
	uint8_t  qp_type;
	int      state;
	int      dev;                /* device of the bound/resolved address, -1 = none */
	struct sockaddr_in6 src, dst; /* AF_INET ids keep a sockaddr_in in the same storage */
	int      dir_slot;           /* cm_wire directory entry, -1 = none */
	int      route;              /* route resolved (num_paths 1) */
	int      backlog;
	uint32_t events_reported;
	uint8_t  tos, tos_set, reuse, afonly, afonly_set, ack_timeout, ack_timeout_set;
	uint8_t  route_tclass, route_tclass_set; /* the path's traffic class, fixed when the route is resolved */
	uint32_t qkey;
	/* the connection */
	int32_t  peer_pid;
	uint32_t peer_id;
	uint64_t peer_cookie;
	uint32_t qpn, psn, peer_qpn, peer_psn;
	uint8_t  srq, resp_res, init_depth, retry, rnr_retry, flow_control, peer_mtu;
	uint16_t peer_lid;
	uint8_t  peer_gid[16];
	struct ucma_id *listener;    /* passive id whose CONNECT_REQUEST is still queued */
	int      timer;
	uint64_t deadline;
};

struct ucma_mc;

struct ucma_event {
	struct ucma_event *next;
	struct ucma_mc *mc;          /* MULTICAST_JOIN/ERROR: the group membership it reports */
	struct ucma_id *id;          /* the id the event counts for (the listener for CONNECT_REQUEST) */
	struct ucma_id *conn;        /* CONNECT_REQUEST: the new passive id */
	struct rdma_ucm_event_resp resp;
};

struct ucma_file {
	struct ucma_file *next;
	int fd;                      /* the eventfd the user holds */
	int refs;                    /* 1 while open + commands in flight */
	int closed;
	int signaled;                /* the eventfd counter is non-zero (events queued) */
	pthread_cond_t cond;         /* GET_EVENT waits here */
	struct ucma_event *head, *tail;
};

/* A multicast group joined through an id (rdma_join_multicast); its handle space is separate from the ids'. */
struct ucma_mc {
	struct ucma_id *id;
	uint32_t handle;
	uint64_t uid;
	uint32_t events_reported;
	uint8_t  mgid[16];
	uint16_t mlid;
};

/* ucma_id.c: the state and the ids */
extern pthread_mutex_t emu_ucma_lock;        /* guards everything below, the CM thread's work and cm_wire.c */
extern struct ucma_file *emu_ucma_files;      /* open channels */
extern int emu_ucma_nfiles;
extern struct ucma_id **emu_ucma_ids;         /* by handle */
extern uint32_t emu_ucma_ids_cap;
extern struct ucma_mc **emu_ucma_mcs;         /* by multicast handle */
extern uint32_t emu_ucma_mcs_cap;

uint64_t emu_ucma_now_ns(void);
uint64_t emu_ucma_cm_timeout_ns(void);
uint64_t emu_ucma_resolve_ns(void);
struct ucma_id *emu_ucma_id_alloc(struct ucma_file *f, uint16_t ps, uint8_t qp_type); /* NULL when out of memory */
struct ucma_id *emu_ucma_id_get(struct ucma_file *f, uint32_t handle, int *err);     /* NULL with *err set */
void emu_ucma_file_signal(struct ucma_file *f);   /* the eventfd and GET_EVENT waiters follow the queue */
struct ucma_event *emu_ucma_queue_event(struct ucma_id *id, uint32_t event, int32_t status);
void emu_ucma_send_msg(struct ucma_id *id, uint32_t type, uint8_t reason, const void *pdata, uint32_t len);
void emu_ucma_set_timer(struct ucma_id *id, int kind, uint64_t after_ns);
void emu_ucma_enter_timewait(struct ucma_id *id);
void emu_ucma_id_free(struct ucma_id *id);
uint32_t emu_ucma_id_destroy(struct ucma_id *id); /* returns events_reported */

/* ucma_path.c: the id's port, path record and address vector */
int emu_ucma_is_ud(const struct ucma_id *id);
const struct emu_port_info *emu_ucma_id_port(const struct ucma_id *id);
int emu_ucma_eth(const struct ucma_id *id);
uint8_t emu_ucma_ack_timeout(const struct ucma_id *id);
uint8_t emu_ucma_port_mtu(const struct ucma_id *id);
uint8_t emu_ucma_path_mtu(const struct ucma_id *id);
void emu_ucma_local_gid(const struct ucma_id *id, uint8_t gid[16]);
uint8_t emu_ucma_path_tclass(const struct ucma_id *id);
void emu_ucma_fill_path(const struct ucma_id *id, struct ib_user_path_rec *p);
void emu_ucma_ah_to_user(const struct ucma_id *id, struct ib_uverbs_ah_attr *ah);

#endif
