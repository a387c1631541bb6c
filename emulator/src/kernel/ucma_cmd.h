/* SPDX-License-Identifier: Apache-2.0 */
/* The rdma_cm command handlers (layer 2 of LAYERS), one file per concept: ucma_cmd_id.c (create, destroy,
 * migrate), ucma_cmd_addr.c (bind, address and route resolution, queries), ucma_cmd_conn.c (listen, connect,
 * accept, reject, disconnect, QP attributes, notify), ucma_cmd_event.c (GET_EVENT), ucma_cmd_option.c
 * (SET_OPTION), ucma_cmd_mcast.c (join, leave). ucma.c decodes the write() and calls them under emu_ucma_lock;
 * ucma_cm.c is the CM thread. */
#ifndef MLX5EMU_UCMA_CMD_H
#define MLX5EMU_UCMA_CMD_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "ucma_state.h"

/* Each handler returns 0 or a positive errno. */

struct ucmd {
	struct ucma_file *f;
	const uint8_t *in;      /* the request after the header, copied */
	size_t in_len;
	size_t out_len;
};

#define IN(type, name) type name; memset(&name, 0, sizeof(name)); \
	memcpy(&name, c->in, c->in_len < sizeof(name) ? c->in_len : sizeof(name))

static inline int respond(uint64_t va, const void *src, size_t len)
{
	return emu_copy_to_user(va, src, len) ? EFAULT : 0;
}

int emu_ucma_cmd_create_id(struct ucmd *c);
int emu_ucma_cmd_destroy_id(struct ucmd *c);
int emu_ucma_cmd_migrate_id(struct ucmd *c);
int emu_ucma_cmd_bind_ip(struct ucmd *c);
int emu_ucma_cmd_bind(struct ucmd *c);
int emu_ucma_cmd_resolve_ip(struct ucmd *c);
int emu_ucma_cmd_resolve_addr(struct ucmd *c);
int emu_ucma_cmd_resolve_route(struct ucmd *c);
int emu_ucma_cmd_query_route(struct ucmd *c);
int emu_ucma_cmd_query(struct ucmd *c);
int emu_ucma_cmd_listen(struct ucmd *c);
int emu_ucma_cmd_connect(struct ucmd *c);
int emu_ucma_cmd_accept(struct ucmd *c);
int emu_ucma_cmd_reject(struct ucmd *c);
int emu_ucma_cmd_disconnect(struct ucmd *c);
int emu_ucma_cmd_init_qp_attr(struct ucmd *c);
int emu_ucma_cmd_notify(struct ucmd *c);
int emu_ucma_cmd_get_event(struct ucmd *c);
int emu_ucma_cmd_set_option(struct ucmd *c);
int emu_ucma_cmd_join_ip(struct ucmd *c);
int emu_ucma_cmd_join(struct ucmd *c);
int emu_ucma_cmd_leave(struct ucmd *c);

/* ucma_cmd_addr.c: address helpers the other handlers share */
size_t emu_ucma_addr_size(const struct sockaddr *sa);  /* of the family, 0 for an unknown one */
const char *emu_ucma_addr_str(const struct sockaddr_in6 *a, char *buf, size_t len);
int emu_ucma_bind(struct ucma_id *id, const struct sockaddr *addr); /* rdma_bind_addr; 0 or errno */
int emu_ucma_is_mcast_addr(const struct sockaddr *sa);

/* ucma_cm.c: the CM thread (ucma.c starts it with the first channel, stops it with the last) */
extern int emu_ucma_thread_stop;
void *emu_ucma_cm_thread(void *arg);

#endif
