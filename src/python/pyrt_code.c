/*
 * pyrt_code.c - CPython code objects (pyrt.h): their identity, their
 * names and file as UTF-8, and their location table, read from a
 * target's memory.
 */
#include "config.h"

#include "python/pyrt.h"
#include "python/pyrt_int.h"
#include "util/hash.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Appends code point c as UTF-8 at s[*len] if it fits below cap. */
static int put_utf8(char *s, size_t *len, size_t cap, uint32_t c)
{
	uint8_t b[4];
	size_t k;

	if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		c = 0xfffd; /* lone surrogates (surrogateescape) and junk */
	if (c < 0x80) {
		b[0] = c;
		k = 1;
	} else if (c < 0x800) {
		b[0] = 0xc0 | c >> 6;
		b[1] = 0x80 | (c & 63);
		k = 2;
	} else if (c < 0x10000) {
		b[0] = 0xe0 | c >> 12;
		b[1] = 0x80 | ((c >> 6) & 63);
		b[2] = 0x80 | (c & 63);
		k = 3;
	} else {
		b[0] = 0xf0 | c >> 18;
		b[1] = 0x80 | ((c >> 12) & 63);
		b[2] = 0x80 | ((c >> 6) & 63);
		b[3] = 0x80 | (c & 63);
		k = 4;
	}
	if (*len + k > cap)
		return -1;
	memcpy(s + *len, b, k);
	*len += k;
	return 0;
}

/*
 * A str object as UTF-8, cut at PYRT_MAX_NAME bytes at a character
 * boundary; "?" when it is not a compact, ready str (code object names
 * always are).  NULL only for ENOMEM.
 */
static char *read_str(struct pyrt *rt, uint64_t addr)
{
	const struct pyrt_layout *l = rt->l;
	uint8_t hdr[PYRT_STR_HDR + 8], raw[PYRT_MAX_NAME * 4];
	size_t i, len = 0, n, kind, cap = PYRT_MAX_NAME;
	uint32_t hlen = pyrt_max32(pyrt_max32(l->str_length + 8,
					      l->str_state + 4),
				   l->str_ascii_data);
	uint32_t state;
	int64_t length;
	char *s;

	s = malloc(PYRT_MAX_NAME + 1);
	if (!s)
		return NULL;
	if (!pyrt_ptr_ok(addr) || pyrt_rd(rt, addr, hdr, hlen) < 0)
		goto unknown;
	length = (int64_t)pyrt_get64(hdr + l->str_length);
	state = pyrt_get32(hdr + l->str_state);
	kind = (state >> 2) & 7;
	/* compact (bit 5), ready (3.11: bit 7); kind 1, 2 or 4 */
	if (length < 0 || !(state & 0x20) ||
	    (state & l->str_ready) != l->str_ready ||
	    (kind != 1 && kind != 2 && kind != 4))
		goto unknown;
	n = length > (int64_t)cap ? cap : (size_t)length;
	if (state & 0x40) { /* ASCII: the characters follow the header */
		if (pyrt_rd(rt, addr + l->str_ascii_data, s, n) < 0)
			goto unknown;
		for (i = 0; i < n; i++)
			if ((uint8_t)s[i] >= 0x80)
				s[i] = '?';
		len = n;
	} else {
		if (pyrt_rd(rt, addr + l->str_data, raw, n * kind) < 0)
			goto unknown;
		for (i = 0; i < n; i++) {
			uint32_t c = kind == 1 ? raw[i] :
				     kind == 2 ? (uint32_t)raw[2 * i] |
							 raw[2 * i + 1] << 8 :
						 pyrt_get32(raw + 4 * i);
			if (put_utf8(s, &len, cap, c) < 0)
				break;
		}
	}
	s[len] = '\0';
	return s;
unknown:
	strcpy(s, "?");
	return s;
}

void pycode_free(struct pycode *c)
{
	if (!c)
		return;
	free(c->name);
	free(c->qualname);
	free(c->filename);
	free(c->linetable);
	memset(c, 0, sizeof(*c));
}

static int read_linetable(struct pyrt *rt, uint64_t bytes, struct pycode *out)
{
	const struct pyrt_layout *l = rt->l;
	int64_t size;
	uint64_t v;

	if (!pyrt_ptr_ok(bytes) ||
	    pyrt_rd64(rt, bytes + l->bytes_size, &v) < 0) {
		errno = EFAULT;
		return -1;
	}
	size = (int64_t)v;
	if (size < 0 || size > PYRT_MAX_LINETABLE) {
		errno = EINVAL;
		return -1;
	}
	out->linetable = malloc(size ? (size_t)size : 1);
	if (!out->linetable)
		return -1;
	out->linetable_len = (size_t)size;
	return pyrt_rd(rt, bytes + l->bytes_data, out->linetable, (size_t)size);
}

/* pyrt_code_ident() of the header co (rt->co_size bytes). */
static uint64_t code_ident(const struct pyrt_layout *l, const uint8_t *co)
{
	uint64_t h = HASH_FNV_SEED;

	h = hash_fnv1a_word(h, pyrt_get64(co + l->co_filename));
	h = hash_fnv1a_word(h, pyrt_get64(co + l->co_name));
	h = hash_fnv1a_word(h, pyrt_get64(co + l->co_qualname));
	h = hash_fnv1a_word(h, pyrt_get64(co + l->co_linetable));
	h = hash_fnv1a_word(h, pyrt_get32(co + l->co_firstlineno));
	h = hash_fnv1a_word(h, pyrt_get64(co + 16)); /* ob_size */
	return hash_mix64(h);
}

int pyrt_code_ident(struct pyrt *rt, uint64_t code, uint64_t *ident)
{
	uint8_t co[PYRT_CO_BYTES + 8];

	if (!pyrt_ptr_ok(code) || pyrt_rd(rt, code, co, rt->co_size) < 0) {
		errno = EFAULT;
		return -1;
	}
	*ident = code_ident(rt->l, co);
	return 0;
}

int pyrt_code(struct pyrt *rt, uint64_t code, struct pycode *out)
{
	const struct pyrt_layout *l = rt->l;
	uint8_t co[PYRT_CO_BYTES + 8];
	int64_t size;
	int first;

	memset(out, 0, sizeof(*out));
	if (!pyrt_ptr_ok(code) || pyrt_rd(rt, code, co, rt->co_size) < 0) {
		errno = EFAULT;
		return -1;
	}
	size = (int64_t)pyrt_get64(co + 16); /* ob_size */
	first = (int)pyrt_get32(co + l->co_firstlineno);
	if (size < 0 || size > PYRT_MAX_CODEUNITS || first < 0) {
		errno = EINVAL;
		return -1;
	}
	out->ncodeunits = (uint32_t)size;
	out->firstlineno = first;
	out->ident = code_ident(l, co);
	out->firsttraceable = pyrt_get32(co + l->co_firsttraceable);
	if (read_linetable(rt, pyrt_get64(co + l->co_linetable), out) < 0)
		goto fail;
	out->name = read_str(rt, pyrt_get64(co + l->co_name));
	out->qualname = read_str(rt, pyrt_get64(co + l->co_qualname));
	out->filename = read_str(rt, pyrt_get64(co + l->co_filename));
	if (!out->name || !out->qualname || !out->filename) {
		errno = ENOMEM;
		goto fail;
	}
	/* A name with a '/' is no code object's (names are identifiers,
	 * "<module>", "<lambda>", ... joined by '.'): the object was being
	 * freed or reused as it was read.  Seen once in
	 * tests/chaos/python-churn.test, in a process sampled from its
	 * birth during the interpreter's start: "/usr (<frozen getpath>:1)". */
	if (strchr(out->name, '/') || strchr(out->qualname, '/')) {
		errno = EINVAL;
		goto fail;
	}
	return 0;
fail:;
	int e = errno;
	pycode_free(out);
	errno = e;
	return -1;
}
