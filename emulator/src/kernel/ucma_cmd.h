/* ---- handlers: each returns 0 or a positive errno ---- */

struct ucmd {
	struct ucma_file *f;
	const uint8_t *in;      /* the request after the header, copied */
	size_t in_len;
	size_t out_len;
};

#define IN(type, name) type name; memset(&name, 0, sizeof(name)); \
	memcpy(&name, c->in, c->in_len < sizeof(name) ? c->in_len : sizeof(name))

static int respond(uint64_t va, const void *src, size_t len)
{
	return emu_copy_to_user(va, src, len) ? EFAULT : 0;
}
