/* SPDX-License-Identifier: Apache-2.0 */
/* The rdma_cm "kernel": /dev/infiniband/rdma_cm (the ucma write ABI of rdma/rdma_user_cm.h) and the connection
 * manager behind it. ucma.c decodes commands (handlers in ucma_cmd_*.c, the CM thread in ucma_cm.c, ids and event
 * queues in ucma_id.c: see ucma_state.h), cm_wire.c carries CM messages between processes, cm_addr.c knows which
 * port owns which IP address. */
#ifndef MLX5EMU_UCMA_H
#define MLX5EMU_UCMA_H

#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "kernel.h"

#define EMU_UCMA_PATH "/dev/infiniband/rdma_cm"

/* ucma.c: the device file (interpose.c calls these) */
int emu_ucma_is_fd(int fd);                          /* fast check: is fd an open rdma_cm file */
int emu_ucma_open(int flags);                        /* the fd, or -1 with errno */
ssize_t emu_ucma_write(int fd, const void *buf, size_t len); /* ucma_write(): len or -1 with errno */
void emu_ucma_close(int fd);                         /* before the real close: destroys the file's ids */

/* cm_addr.c */
int emu_cm_loopback_addr(const struct sockaddr *sa);
int emu_cm_addr_any(const struct sockaddr *sa);
int emu_cm_addr_equal(const struct sockaddr *a, const struct sockaddr *b); /* addresses only, not ports */
uint16_t emu_cm_addr_port(const struct sockaddr *sa);
void emu_cm_addr_set_port(struct sockaddr *sa, uint16_t port);
int emu_cm_addr_device(const struct sockaddr *sa);   /* the device owning the address, or -1 */
void emu_cm_addr_gid(const struct sockaddr *sa, uint8_t gid[16]);
int emu_cm_ip_count(int dev);
const struct sockaddr *emu_cm_ip(int dev, int k);
void emu_cm_add_roce_gids(struct emu_port_info *p, int ndev);
int emu_cm_gid_index(const struct emu_port_info *p, const uint8_t gid[16], int type);

/* cm_wire.c: the fabric-wide bind/listen directory and per-process mailboxes */
#define CM_PDATA_MAX 256

enum cm_msg_type { CM_REQ = 1, CM_REP, CM_RTU, CM_REJ, CM_DREQ, CM_DREP, CM_SIDR_REQ, CM_SIDR_REP };

struct cm_msg {
	uint32_t type;
	int32_t  src_pid;
	uint32_t src_id;          /* sender's id handle ... */
	uint32_t dst_id;          /* ... and the receiver's (for REQ/SIDR_REQ: the listener's) */
	uint64_t src_cookie;      /* fabric-unique id identities, so messages for a destroyed id are dropped */
	uint64_t dst_cookie;
	uint16_t ps;
	uint8_t  qp_type;
	uint8_t  reason;          /* REJ reason, SIDR_REP status */
	struct sockaddr_in6 src_addr; /* sender's address and port (AF_INET stored as sockaddr_in) */
	struct sockaddr_in6 dst_addr;
	uint32_t qpn, psn, qkey;
	uint8_t  resp_res, init_depth, retry, rnr_retry, srq, flow_control, mtu;
	uint8_t  tclass;          /* REQ: the primary path's traffic class (IBA 12.6.5 REQ Primary Traffic Class) */
	uint16_t lid;             /* sender port's LID (IB) */
	uint16_t dev;
	uint8_t  gid[16];         /* sender's GID for this connection (IB: port GID; RoCE: its address's GID) */
	uint32_t pdata_len;
	uint8_t  pdata[CM_PDATA_MAX];
};

enum cm_dir_state { CM_DIR_FREE = 0, CM_DIR_BOUND, CM_DIR_LISTEN };

struct cm_dir_hit { int32_t pid; uint32_t id; uint64_t cookie; };

int cm_dir_ready(void);                              /* map the directory (no mailbox); 0 or errno */
int cm_mcast_attach(const uint8_t gid[16], uint32_t qpn); /* 0 or ENOMEM (table full) */
int cm_mcast_detach(const uint8_t gid[16], uint32_t qpn); /* gid NULL: every group of the QP; 0 or EINVAL */
int cm_wire_init(void);                               /* map the directory, create our mailbox; 0 or errno */
void cm_wire_fini(void);                              /* unlink our mailbox (exit) */
/* Bind (ps, address, port); port 0 picks a free ephemeral port, written back into addr. Returns the slot or
 * -errno (EADDRINUSE, EADDRNOTAVAIL when no ephemeral port is free). */
int cm_dir_bind(uint16_t ps, struct sockaddr *addr, int reuse, int afonly, uint32_t id, uint64_t cookie);
int cm_dir_listen(int slot);                          /* 0 or EADDRINUSE */
void cm_dir_release(int slot);
int cm_dir_find_listener(uint16_t ps, const struct sockaddr *dst, struct cm_dir_hit *hit); /* 0 or -1 */
int cm_dir_count_listeners(uint16_t ps, uint16_t port); /* live listeners on the fabric, -1 if no directory */
int cm_send(int32_t pid, const struct cm_msg *m);    /* 0, or -1 when the peer is gone or its mailbox full */
/* Waits up to timeout_ms for mail and takes one message; 1 = got one, 0 = none. */
int cm_recv(struct cm_msg *m, int timeout_ms);
void cm_wake_self(void);
int cm_pid_dead(int32_t pid);

#endif
