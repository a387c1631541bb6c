/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eng_fault_spec.c - the MLX5EMU_FAULTS parser and the per-packet decision (syntax in eng_fault.h). No engine
 * state here, so the libFuzzer target fuzz/fault_spec.c links this file alone.
 *
 * Numbers are parsed by hand rather than with strtod/strtoul: those follow the program's locale (a decimal comma)
 * and accept spaces, signs and hex floats, and a spec must mean the same thing in every process of a fabric.
 */
#include <stdio.h>
#include <string.h>

#include "engine/eng_fault.h"

static int fail(char *err, size_t errlen, const char *field, size_t flen, const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "MLX5EMU_FAULTS: field \"%.*s\": %s", (int)(flen > 64 ? 64 : flen), field, why);
	return -1;
}

/* [digits][.digits][e[+-]digits], at least one digit, no more than 18 significant digits. */
static int parse_decimal(const char *s, size_t n, double *out)
{
	size_t i = 0;
	uint64_t mant = 0;
	int digits = 0, frac = 0, any = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, any = 1)
		if (digits < 18 && (mant || s[i] != '0')) {
			mant = mant * 10 + (uint64_t)(s[i] - '0');
			digits++;
		} else if (digits >= 18) {
			frac--; /* dropped integer digit: scale up */
		}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, any = 1)
			if (digits < 18) {
				mant = mant * 10 + (uint64_t)(s[i] - '0');
				if (mant)
					digits++;
				frac++;
			}
	}
	if (!any)
		return -1;
	int ex = 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		int neg = 0, exd = 0;
		i++;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			neg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, exd++)
			if (ex < 1000)
				ex = ex * 10 + (s[i] - '0');
		if (!exd)
			return -1;
		if (neg)
			ex = -ex;
	}
	if (i != n)
		return -1;
	int p10 = ex - frac;
	double v = (double)mant;
	if (p10 > 400 || p10 < -400)
		v = p10 > 0 ? (mant ? 1e300 : 0.0) : 0.0;
	else
		for (; p10 > 0; p10--)
			v *= 10.0;
	for (; p10 < 0; p10++)
		v /= 10.0;
	*out = v;
	return 0;
}

static int parse_prob(const char *s, size_t n, double *out)
{
	double v;
	if (parse_decimal(s, n, &v) != 0 || !(v >= 0.0 && v <= 1.0))
		return -1;
	*out = v;
	return 0;
}

/* Unsigned decimal or 0x hex, at most max. */
static int parse_uint(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	int base = 10;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		int d;
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return -1;
		if ((uint64_t)d > max || v > (max - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

/* A time: decimal with a unit ns, us, ms or s; 0 < t <= 60 s. */
static int parse_time(const char *s, size_t n, uint64_t *ns)
{
	static const struct { const char *u; double mul; } units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
		size_t ul = strlen(units[k].u);
		if (n <= ul || memcmp(s + n - ul, units[k].u, ul) != 0)
			continue;
		if (ul == 1 && (s[n - 2] == 'n' || s[n - 2] == 'u' || s[n - 2] == 'm'))
			continue; /* "5ms" is not "5m" + "s" */
		double v;
		if (parse_decimal(s, n - ul, &v) != 0)
			return -1;
		v *= units[k].mul;
		if (!(v >= 1.0 && v <= 60e9))
			return -1;
		*ns = (uint64_t)v;
		return 0;
	}
	return -1;
}

int eng_fault_parse(const char *spec, struct eng_fault_spec *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->seed = 1;
	o->dev = -1;
	if (err && errlen)
		err[0] = 0;
	if (!spec)
		return 0;
	unsigned seen = 0;
	const char *p = spec;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t flen = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', flen);
		if (!eq)
			return fail(err, errlen, p, flen, "expected key=value");
		size_t klen = (size_t)(eq - p), vlen = flen - klen - 1;
		const char *v = eq + 1;
		static const char *const keys[] = { "drop", "dup", "reorder", "delay", "seed", "qpn", "dev", "dir" };
		int key = -1;
		for (int k = 0; k < 8; k++)
			if (strlen(keys[k]) == klen && memcmp(keys[k], p, klen) == 0)
				key = k;
		if (key < 0)
			return fail(err, errlen, p, flen, "unknown key (drop, dup, reorder, delay, seed, qpn, dev, dir)");
		if (key != 5 && (seen & (1u << key)))
			return fail(err, errlen, p, flen, "given twice");
		seen |= 1u << key;
		uint64_t u;
		switch (key) {
		case 0:
			if (parse_prob(v, vlen, &o->drop))
				return fail(err, errlen, p, flen, "not a probability 0..1");
			break;
		case 1:
			if (parse_prob(v, vlen, &o->dup))
				return fail(err, errlen, p, flen, "not a probability 0..1");
			break;
		case 2:
			if (parse_prob(v, vlen, &o->reorder))
				return fail(err, errlen, p, flen, "not a probability 0..1");
			break;
		case 3: {
			const char *colon = memchr(v, ':', vlen);
			if (!colon)
				return fail(err, errlen, p, flen, "expected delay=P:TIME, e.g. delay=0.02:200us");
			size_t pl = (size_t)(colon - v);
			if (parse_prob(v, pl, &o->delay))
				return fail(err, errlen, p, flen, "not a probability 0..1 before ':'");
			if (parse_time(colon + 1, vlen - pl - 1, &o->delay_ns))
				return fail(err, errlen, p, flen, "not a time 1ns..60s with a unit ns, us, ms or s after ':'");
			break;
		}
		case 4:
			if (parse_uint(v, vlen, UINT64_MAX, &o->seed))
				return fail(err, errlen, p, flen, "not an unsigned number");
			break;
		case 5:
			if (o->nqpn == ENG_FAULT_MAX_QPN)
				return fail(err, errlen, p, flen, "more than 8 qpn fields");
			if (parse_uint(v, vlen, 0xffffff, &u) || u == 0)
				return fail(err, errlen, p, flen, "not a QPN 1..0xffffff");
			o->qpn[o->nqpn++] = (uint32_t)u;
			break;
		case 6:
			if (vlen <= 5 || memcmp(v, "mlx5_", 5) != 0 || parse_uint(v + 5, vlen - 5, 7, &u) ||
			    (v[5] == '0' && vlen > 6))
				return fail(err, errlen, p, flen, "expected a device mlx5_0..mlx5_7");
			o->dev = (int)u;
			break;
		default:
			if (vlen == 3 && memcmp(v, "req", 3) == 0)
				o->dir = ENG_FAULT_DIR_REQ;
			else if (vlen == 4 && memcmp(v, "resp", 4) == 0)
				o->dir = ENG_FAULT_DIR_RESP;
			else
				return fail(err, errlen, p, flen, "expected req or resp");
			break;
		}
		p += flen;
		if (*p == ',') {
			p++;
			if (!*p)
				return fail(err, errlen, p - 1, 1, "trailing comma");
		}
	}
	if (o->drop + o->dup + o->reorder + o->delay > 1.0 + 1e-12)
		return fail(err, errlen, spec, strlen(spec), "drop + dup + reorder + delay exceed 1");
	o->active = o->drop > 0 || o->dup > 0 || o->reorder > 0 || o->delay > 0;
	return 0;
}

uint64_t eng_fault_draw(uint64_t seed, uint32_t qpn, uint64_t n)
{
	uint64_t z = seed ^ ((uint64_t)qpn << 40) ^ (n * 0x9e3779b97f4a7c15ull);
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int eng_fault_decide(const struct eng_fault_spec *s, uint64_t draw)
{
	if (!s->active)
		return ENG_FAULT_PASS;
	double u = (double)(draw >> 11) * (1.0 / 9007199254740992.0); /* 53 bits: [0, 1) */
	double t = s->drop;
	if (u < t)
		return ENG_FAULT_DROP;
	if (u < (t += s->dup))
		return ENG_FAULT_DUP;
	if (u < (t += s->reorder))
		return ENG_FAULT_REORDER;
	if (u < (t += s->delay))
		return ENG_FAULT_DELAY;
	return ENG_FAULT_PASS;
}
