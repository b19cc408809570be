/*
 * pyrt.c - CPython's runtime state and a thread's Python frames, read
 * from a target's memory.
 *
 * The 3.11 layouts, from 3.11.2's headers (offsetof() with
 * Py_BUILD_CORE on Include/internal/pycore_runtime.h, pycore_interp.h,
 * pycore_frame.h, cpython/pystate.h, cpython/code.h, x86-64):
 *
 *	_PyRuntimeState	interpreters.head 40, interpreters.main 48
 *	PyInterpreterState	next 0, threads.head 16
 *	PyThreadState	prev 0, next 8, interp 16, cframe 56,
 *			native_thread_id 160
 *	_PyCFrame	current_frame 8
 *	_PyInterpreterFrame	f_code 32, previous 48, prev_instr 56,
 *			is_entry 68, owner 69 (one read: 32..70)
 *	PyCodeObject	ob_size 16 (code units), co_firstlineno 72,
 *			co_filename 112, co_name 120, co_qualname 128,
 *			co_linetable 136, _co_firsttraceable 168,
 *			co_code_adaptive 184 (the bytecode)
 *	PyBytesObject	ob_size 16, ob_sval 32
 *	PyASCIIObject	length 16, state 32 (interned:2 kind:3 compact:1
 *			ascii:1 ready:1), its characters at 48 when
 *			compact and ascii
 *	PyCompactUnicodeObject	utf8_length 48, utf8 56, its characters
 *			at 72 (kind 1, 2 or 4 bytes each)
 *
 * The instruction of a frame is prev_instr - co_code_adaptive, in
 * 2-byte code units (_PyInterpreterFrame_LASTI); PyCode_Addr2Line()
 * takes it in bytes.  The location table (Objects/locations.md): entries
 * whose first byte has bit 7 set, bits 3-6 a code, bits 0-2 the number
 * of code units covered minus one; code 15 no location, 14 long form
 * (signed varint line delta, then end line, column, end column
 * varints), 13 no columns (signed varint line delta), 10-12 one line
 * (line delta code - 10, two column bytes), 0-9 short form (same line,
 * one column byte).  Varints are 6-bit groups, low first, bit 6 saying
 * another follows; a signed varint keeps its sign in bit 0.
 */
#include "config.h"

#include "pyrt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The offsets of one version (only 3.11's so far). */
struct pyrt_layout {
	uint32_t rt_interp_head, rt_interp_main;
	uint32_t is_next, is_threads_head;
	uint32_t ts_prev, ts_next, ts_interp, ts_cframe, ts_native_id;
	uint32_t ts_size; /* bytes read of a thread state */
	uint32_t cf_current_frame;
	uint32_t fr_code, fr_previous, fr_prev_instr, fr_is_entry, fr_owner;
	uint32_t co_size, co_firstlineno, co_filename, co_name, co_qualname;
	uint32_t co_linetable, co_firsttraceable, co_code, co_read;
	uint32_t bytes_size, bytes_data;
	uint32_t str_length, str_state, str_ascii_data, str_utf8_length,
		str_utf8, str_data;
};

static const struct pyrt_layout layout_311 = {
	.rt_interp_head = 40,
	.rt_interp_main = 48,
	.is_next = 0,
	.is_threads_head = 16,
	.ts_prev = 0,
	.ts_next = 8,
	.ts_interp = 16,
	.ts_cframe = 56,
	.ts_native_id = 160,
	.ts_size = 168,
	.cf_current_frame = 8,
	.fr_code = 32,
	.fr_previous = 48,
	.fr_prev_instr = 56,
	.fr_is_entry = 68,
	.fr_owner = 69,
	.co_size = 16,
	.co_firstlineno = 72,
	.co_filename = 112,
	.co_name = 120,
	.co_qualname = 128,
	.co_linetable = 136,
	.co_firsttraceable = 168,
	.co_code = 184,
	.co_read = 176,
	.bytes_size = 16,
	.bytes_data = 32,
	.str_length = 16,
	.str_state = 32,
	.str_ascii_data = 48,
	.str_utf8_length = 48,
	.str_utf8 = 56,
	.str_data = 72,
};

/* Bytecode longer than this (in code units) is not a real code object. */
#define PYRT_MAX_CODEUNITS (1u << 26)

struct pyrt {
	const struct pyrt_layout *l;
	unsigned version; /* 0xMMmm */
	uint64_t runtime;
	pyrt_read_fn read;
	void *arg;
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* A pointer worth following: not NULL, 8-aligned, in user space. */
static int ptr_ok(uint64_t p)
{
	return p && !(p & 7) && p < (1ull << 47);
}

static int rd(struct pyrt *rt, uint64_t addr, void *buf, size_t len)
{
	if (addr + len < addr || rt->read(rt->arg, addr, buf, len) != 0) {
		errno = EFAULT;
		return -1;
	}
	return 0;
}

static int rd64(struct pyrt *rt, uint64_t addr, uint64_t *v)
{
	uint8_t b[8];

	if (rd(rt, addr, b, 8) < 0)
		return -1;
	*v = get64(b);
	return 0;
}

struct pyrt *pyrt_open(uint32_t version, uint64_t runtime, pyrt_read_fn read,
		       void *arg, char *err, size_t errlen)
{
	unsigned major = version >> 24, minor = (version >> 16) & 0xff;
	struct pyrt tmp = { &layout_311, version >> 16, runtime, read, arg };
	struct pyrt *rt;
	uint64_t head, mainp;

	if (major != 3 || minor != 11) {
		seterr(err, errlen,
		       "CPython %u.%u.%u is not supported (only 3.11)", major,
		       minor, (version >> 8) & 0xff);
		errno = ENOTSUP;
		return NULL;
	}
	if (!ptr_ok(runtime) || !read) {
		seterr(err, errlen,
		       "_PyRuntime at %#llx is not a valid address",
		       (unsigned long long)runtime);
		errno = EINVAL;
		return NULL;
	}
	if (rd64(&tmp, runtime + tmp.l->rt_interp_head, &head) < 0 ||
	    rd64(&tmp, runtime + tmp.l->rt_interp_main, &mainp) < 0) {
		seterr(err, errlen, "_PyRuntime at %#llx is not readable",
		       (unsigned long long)runtime);
		return NULL;
	}
	/* Before Py_Initialize() and after Py_Finalize() both are NULL. */
	if (!ptr_ok(head) || !ptr_ok(mainp)) {
		seterr(err, errlen,
		       "_PyRuntime at %#llx has no valid interpreter list "
		       "(head %#llx, main %#llx)",
		       (unsigned long long)runtime, (unsigned long long)head,
		       (unsigned long long)mainp);
		errno = EINVAL;
		return NULL;
	}
	rt = malloc(sizeof(*rt));
	if (!rt) {
		seterr(err, errlen, "out of memory");
		return NULL;
	}
	*rt = tmp;
	return rt;
}

void pyrt_close(struct pyrt *rt)
{
	free(rt);
}

unsigned pyrt_version(const struct pyrt *rt)
{
	return rt ? rt->version : 0;
}

/*
 * Brent's cycle finding over addresses already read: a checkpoint that
 * moves to the current element at every power of two of steps.  A walk
 * that loops meets its checkpoint within twice (tail + loop length)
 * steps; each step is O(1) and reads nothing again.
 */
struct brent {
	uint64_t mark;
	uint64_t steps, power;
};

static int brent_seen(struct brent *b, uint64_t addr)
{
	if (b->power && addr == b->mark)
		return 1;
	if (++b->steps >= b->power) {
		b->mark = addr;
		b->power = b->power ? b->power * 2 : 1;
		b->steps = 0;
	}
	return 0;
}

/* One interpreter's thread states; *count goes on past max. */
static int walk_threads(struct pyrt *rt, uint64_t interp, int main_interp,
			struct pyrt_thread *out, size_t max, size_t *count,
			char *err, size_t errlen)
{
	const struct pyrt_layout *l = rt->l;
	uint8_t ts[256];
	uint64_t t, prev = 0;

	if (rd64(rt, interp + l->is_threads_head, &t) < 0) {
		seterr(err, errlen, "interpreter %#llx is not readable",
		       (unsigned long long)interp);
		return -1;
	}
	while (t) {
		if (*count >= PYRT_MAX_THREADS) {
			seterr(err, errlen,
			       "more than %u thread states: a loop",
			       PYRT_MAX_THREADS);
			errno = ELOOP;
			return -1;
		}
		if (!ptr_ok(t) || rd(rt, t, ts, l->ts_size) < 0) {
			seterr(err, errlen,
			       "thread state %#llx is not readable",
			       (unsigned long long)t);
			errno = EFAULT;
			return -1;
		}
		/*
		 * Each thread state points back to its interpreter and to
		 * the one before it: a list that loops, or memory that is
		 * not thread states, fails here (a loop needs some prev to
		 * point forward).
		 */
		if (get64(ts + l->ts_interp) != interp ||
		    get64(ts + l->ts_prev) != prev) {
			seterr(err, errlen,
			       "thread state %#llx does not point back to "
			       "its interpreter and list",
			       (unsigned long long)t);
			errno = EINVAL;
			return -1;
		}
		if (*count < max) {
			out[*count].tstate = t;
			out[*count].interp = interp;
			out[*count].native_id = get64(ts + l->ts_native_id);
			out[*count].main_interp = main_interp;
		}
		++*count;
		prev = t;
		t = get64(ts + l->ts_next);
	}
	return 0;
}

int pyrt_threads(struct pyrt *rt, struct pyrt_thread *out, size_t max,
		 char *err, size_t errlen)
{
	const struct pyrt_layout *l = rt->l;
	struct brent b = { 0 };
	uint64_t interp, mainp;
	size_t count = 0;
	unsigned n = 0;

	if (rd64(rt, rt->runtime + l->rt_interp_head, &interp) < 0 ||
	    rd64(rt, rt->runtime + l->rt_interp_main, &mainp) < 0) {
		seterr(err, errlen, "_PyRuntime is not readable");
		return -1;
	}
	for (; interp; n++) {
		if (n >= PYRT_MAX_INTERPS || brent_seen(&b, interp)) {
			seterr(err, errlen, "the interpreter list loops");
			errno = ELOOP;
			return -1;
		}
		if (!ptr_ok(interp)) {
			seterr(err, errlen, "interpreter %#llx is not valid",
			       (unsigned long long)interp);
			errno = EINVAL;
			return -1;
		}
		if (walk_threads(rt, interp, interp == mainp, out, max, &count,
				 err, errlen) < 0)
			return -1;
		if (rd64(rt, interp + l->is_next, &interp) < 0) {
			seterr(err, errlen, "an interpreter is not readable");
			return -1;
		}
	}
	return (int)count;
}

int pyrt_check(struct pyrt *rt, const pid_t *tids, size_t n, char *err,
	       size_t errlen)
{
	struct pyrt_thread *ts;
	size_t i, j, bound = 0;
	int count;

	ts = calloc(PYRT_MAX_THREADS, sizeof(*ts));
	if (!ts) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	count = pyrt_threads(rt, ts, PYRT_MAX_THREADS, err, errlen);
	for (i = 0; count > 0 && i < (size_t)count; i++) {
		if (!ts[i].native_id)
			continue; /* made, not yet started (3.11 preallocates) */
		for (j = 0; j < n && (uint64_t)tids[j] != ts[i].native_id; j++)
			;
		if (j == n) {
			seterr(err, errlen,
			       "thread state %#llx names thread %llu, which "
			       "is not one of the process's",
			       (unsigned long long)ts[i].tstate,
			       (unsigned long long)ts[i].native_id);
			free(ts);
			errno = EINVAL;
			return -1;
		}
		bound++;
	}
	free(ts);
	if (count < 0)
		return -1;
	if (!bound) {
		seterr(err, errlen, "no thread state is bound to a thread");
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int pyrt_frames(struct pyrt *rt, uint64_t tstate, struct pyrt_frame *out,
		int max, int *status)
{
	const struct pyrt_layout *l = rt->l;
	uint8_t fr[40]; /* fr_code .. fr_owner */
	struct brent b = { 0 };
	uint64_t cframe, f, code, instr;
	int64_t lasti;
	int n = 0;

	if (max > PYRT_MAX_FRAMES)
		max = PYRT_MAX_FRAMES;
	*status = PYRT_UNREADABLE;
	if (!ptr_ok(tstate) || rd64(rt, tstate + l->ts_cframe, &cframe) < 0)
		return 0;
	if (!cframe) {
		*status = PYRT_END;
		return 0;
	}
	if (!ptr_ok(cframe)) {
		*status = PYRT_BADPTR;
		return 0;
	}
	if (rd64(rt, cframe + l->cf_current_frame, &f) < 0)
		return 0;
	for (; f; n++) {
		if (!ptr_ok(f)) {
			*status = PYRT_BADPTR;
			return n;
		}
		if (brent_seen(&b, f)) {
			*status = PYRT_LOOP;
			return n;
		}
		if (n >= max) {
			*status = PYRT_TRUNCATED;
			return n;
		}
		if (rd(rt, f + l->fr_code, fr, l->fr_owner + 1 - l->fr_code) <
		    0) {
			*status = PYRT_UNREADABLE;
			return n;
		}
		code = get64(fr + l->fr_code - l->fr_code);
		instr = get64(fr + l->fr_prev_instr - l->fr_code);
		lasti = (int64_t)(instr - code - l->co_code) / 2;
		if (!ptr_ok(code) || lasti < -1 ||
		    lasti >= PYRT_MAX_CODEUNITS) {
			*status = PYRT_BADPTR;
			return n;
		}
		out[n].frame = f;
		out[n].code = code;
		out[n].lasti = (int32_t)lasti;
		out[n].is_entry = fr[l->fr_is_entry - l->fr_code] != 0;
		out[n].owner = fr[l->fr_owner - l->fr_code];
		f = get64(fr + l->fr_previous - l->fr_code);
	}
	*status = PYRT_END;
	return n;
}

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
	uint8_t hdr[64], raw[PYRT_MAX_NAME * 4];
	size_t i, len = 0, n, kind, cap = PYRT_MAX_NAME;
	uint32_t state;
	int64_t length;
	char *s;

	s = malloc(PYRT_MAX_NAME + 1);
	if (!s)
		return NULL;
	if (!ptr_ok(addr) || rd(rt, addr, hdr, l->str_ascii_data) < 0)
		goto unknown;
	length = (int64_t)get64(hdr + l->str_length);
	state = get32(hdr + l->str_state);
	kind = (state >> 2) & 7;
	/* compact (bit 5) and ready (bit 7); kind 1, 2 or 4 */
	if (length < 0 || !(state & 0x20) || !(state & 0x80) ||
	    (kind != 1 && kind != 2 && kind != 4))
		goto unknown;
	n = length > (int64_t)cap ? cap : (size_t)length;
	if (state & 0x40) { /* ASCII: the characters follow the header */
		if (rd(rt, addr + l->str_ascii_data, s, n) < 0)
			goto unknown;
		for (i = 0; i < n; i++)
			if ((uint8_t)s[i] >= 0x80)
				s[i] = '?';
		len = n;
	} else {
		if (rd(rt, addr + l->str_data, raw, n * kind) < 0)
			goto unknown;
		for (i = 0; i < n; i++) {
			uint32_t c = kind == 1 ? raw[i] :
				     kind == 2 ? (uint32_t)raw[2 * i] |
							 raw[2 * i + 1] << 8 :
						 get32(raw + 4 * i);
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

	if (!ptr_ok(bytes) || rd64(rt, bytes + l->bytes_size, &v) < 0) {
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
	return rd(rt, bytes + l->bytes_data, out->linetable, (size_t)size);
}

int pyrt_code(struct pyrt *rt, uint64_t code, struct pycode *out)
{
	const struct pyrt_layout *l = rt->l;
	uint8_t co[256];
	int64_t size;
	int first;

	memset(out, 0, sizeof(*out));
	if (!ptr_ok(code) || rd(rt, code, co, l->co_read) < 0) {
		errno = EFAULT;
		return -1;
	}
	size = (int64_t)get64(co + l->co_size);
	first = (int)get32(co + l->co_firstlineno);
	if (size < 0 || size > PYRT_MAX_CODEUNITS || first < 0) {
		errno = EINVAL;
		return -1;
	}
	out->ncodeunits = (uint32_t)size;
	out->firstlineno = first;
	out->firsttraceable = get32(co + l->co_firsttraceable);
	if (read_linetable(rt, get64(co + l->co_linetable), out) < 0)
		goto fail;
	out->name = read_str(rt, get64(co + l->co_name));
	out->qualname = read_str(rt, get64(co + l->co_qualname));
	out->filename = read_str(rt, get64(co + l->co_filename));
	if (!out->name || !out->qualname || !out->filename) {
		errno = ENOMEM;
		goto fail;
	}
	return 0;
fail:;
	int e = errno;
	pycode_free(out);
	errno = e;
	return -1;
}

/* A varint at *p (below end); 0 past the end or past 32 bits. */
static uint32_t scan_varint(const uint8_t **p, const uint8_t *end)
{
	uint32_t v = 0, shift = 0;
	uint8_t b;

	do {
		if (*p >= end || shift > 30)
			return v;
		b = *(*p)++;
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

static int32_t scan_svarint(const uint8_t **p, const uint8_t *end)
{
	uint32_t u = scan_varint(p, end);

	return (u & 1) ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
}

/* The line delta of the entry at p (its first byte), as get_line_delta. */
static int32_t line_delta(const uint8_t *p, const uint8_t *end)
{
	unsigned code = (*p >> 3) & 15;

	p++;
	switch (code) {
	case 15: /* no location */
		return 0;
	case 14: /* long form */
	case 13: /* no columns */
		return scan_svarint(&p, end);
	case 10:
	case 11:
	case 12: /* one line form */
		return (int32_t)code - 10;
	default: /* short form: the same line */
		return 0;
	}
}

int pyrt_line_table(const uint8_t *table, size_t len, int firstlineno,
		    int64_t addrq)
{
	const uint8_t *p = table, *end = table + len;
	int64_t start, stop = 0, line = firstlineno;
	unsigned code;

	if (addrq < 0)
		return -1;
	/*
	 * Each entry covers ((b & 7) + 1) code units (2 bytes each) from
	 * where the one before ended; the line moves by each entry's delta,
	 * whether or not the entry has a location.  The walk ends with the
	 * table: at most len entries.
	 */
	while (p < end) {
		if (!(*p & 128))
			return -1; /* not the start of an entry: corrupt */
		code = (*p >> 3) & 15;
		start = stop;
		stop += ((*p & 7) + 1) * 2;
		line += line_delta(p, end);
		if (line < 0 || line > INT32_MAX)
			return -1;
		for (p++; p < end && !(*p & 128); p++)
			;
		if (addrq >= start && addrq < stop)
			return code == 15 ? -1 : (int)line;
	}
	return -1;
}

int pyrt_line(const struct pycode *c, int32_t lasti)
{
	if (!c || !c->linetable || lasti < 0 ||
	    (uint32_t)lasti < c->firsttraceable ||
	    (uint32_t)lasti >= c->ncodeunits)
		return -1;
	return pyrt_line_table(c->linetable, c->linetable_len, c->firstlineno,
			       (int64_t)lasti * 2);
}
