/* SPDX-License-Identifier: Apache-2.0 */
/* rdma_cm commands on ids themselves: CREATE_ID, DESTROY_ID, MIGRATE_ID. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucma_cmd.h"

int emu_ucma_cmd_create_id(struct ucmd *c)
{
	IN(struct rdma_ucm_create_id, cmd);
	struct rdma_ucm_create_id_resp resp;
	uint8_t qp_type;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	switch (cmd.ps) { /* ucma_get_qp_type */
	case RDMA_PS_TCP: qp_type = 2; break;
	case RDMA_PS_UDP: case RDMA_PS_IPOIB: qp_type = 4; break;
	case RDMA_PS_IB: qp_type = cmd.qp_type; break;
	default: return EINVAL;
	}
	struct ucma_id *id = emu_ucma_id_alloc(c->f, cmd.ps, qp_type);
	if (!id)
		return ENOMEM;
	id->uid = cmd.uid;
	resp.id = id->handle;
	if (respond(cmd.response, &resp, sizeof(resp))) {
		emu_ucma_id_free(id);
		return EFAULT;
	}
	return 0;
}

int emu_ucma_cmd_destroy_id(struct ucmd *c)
{
	IN(struct rdma_ucm_destroy_id, cmd);
	struct rdma_ucm_destroy_id_resp resp;
	int err;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	struct ucma_id *id = emu_ucma_id_get(c->f, cmd.id, &err);
	if (!id)
		return err;
	resp.events_reported = emu_ucma_id_destroy(id);
	return respond(cmd.response, &resp, sizeof(resp));
}

/* ucma_migrate_id: written to the new channel; cmd.fd names the channel the id lives on now */
int emu_ucma_cmd_migrate_id(struct ucmd *c)
{
	IN(struct rdma_ucm_migrate_id, cmd);
	struct rdma_ucm_migrate_resp resp;
	int err;

	if (c->out_len < sizeof(resp))
		return ENOSPC;
	struct ucma_file *of = NULL, *nf = c->f;
	for (struct ucma_file *f = emu_ucma_files; f; f = f->next)
		if (f->fd == (int)cmd.fd && !f->closed)
			of = f;
	if (!of)
		return fcntl((int)cmd.fd, F_GETFD) >= 0 ? EINVAL : EBADF; /* not a ucma file / no file */
	struct ucma_id *id = emu_ucma_id_get(of, cmd.id, &err);
	if (!id)
		return err;
	resp.events_reported = id->events_reported;
	if (nf != of) {
		/* move the id and its queued events */
		struct ucma_event **pp = &of->head, *prev = NULL;
		while (*pp) {
			struct ucma_event *e = *pp;
			if (e->id == id) {
				*pp = e->next;
				if (of->tail == e)
					of->tail = prev;
				e->next = NULL;
				if (nf->tail)
					nf->tail->next = e;
				else
					nf->head = e;
				nf->tail = e;
				continue;
			}
			prev = e;
			pp = &e->next;
		}
		id->file = nf;
		for (uint32_t h = 0; h < emu_ucma_ids_cap; h++) /* passive ids not yet reported follow their listener */
			if (emu_ucma_ids[h] && emu_ucma_ids[h]->listener == id)
				emu_ucma_ids[h]->file = nf;
		emu_ucma_file_signal(of);
		emu_ucma_file_signal(nf);
	}
	return respond(cmd.response, &resp, sizeof(resp));
}
