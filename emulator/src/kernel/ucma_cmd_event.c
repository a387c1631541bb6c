static int c_get_event(struct ucmd *c)
{
	IN(struct rdma_ucm_get_event, cmd);
	struct ucma_file *f = c->f;

	if (c->out_len < sizeof(struct rdma_ucm_event_resp))
		return ENOSPC;
	/* ucma_get_event: O_NONBLOCK (of the open file, set with fcntl) is EAGAIN, else wait for an event */
	while (!f->head) {
		if (!f->closed && (fcntl(f->fd, F_GETFL) & O_NONBLOCK))
			return EAGAIN;
		pthread_cond_wait(&f->cond, &g_lock);
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
	file_signal(f);
	return 0;
}
