/* SPDX-License-Identifier: Apache-2.0 */
/* rdma_cm GET_EVENT: the read side of a channel's event queue. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucma_cmd.h"

int emu_ucma_cmd_get_event(struct ucmd *c)
{
	IN(struct rdma_ucm_get_event, cmd);
	struct ucma_file *f = c->f;

	if (c->out_len < sizeof(struct rdma_ucm_event_resp))
		return ENOSPC;
	/* ucma_get_event: O_NONBLOCK (of the open file, set with fcntl) is EAGAIN, else wait for an event */
	while (!f->head) {
		if (!f->closed && (fcntl(f->fd, F_GETFL) & O_NONBLOCK))
			return EAGAIN;
		pthread_cond_wait(&f->cond, &emu_ucma_lock);
	}
	struct ucma_event *ev = f->head;
	if (emu_copy_to_user(cmd.response, &ev->resp, sizeof(ev->resp)))
		return EFAULT;
	f->head = ev->next;
	if (!f->head)
		f->tail = NULL;
	ev->id->events_reported++;
	if (ev->mc)
		ev->mc->events_reported++;
	if (ev->conn) {
		ev->conn->listener = NULL; /* the user knows it now */
		ev->id->backlog++;
	}
	free(ev);
	emu_ucma_file_signal(f);
	return 0;
}
