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
 * 3.12 (3.12.1's headers): interpreters.head 40; threads.head 72;
 * native_thread_id 144; current_frame at 0 of _PyCFrame; the frame's
 * f_code 0, previous 8, prev_instr 56, owner 70 and no is_entry (a shim
 * frame owned by the C stack, owner 3, sits below each entry frame);
 * co_firstlineno 68, _co_firsttraceable 176, co_code_adaptive 192;
 * PyASCIIObject lost wstr (characters at 40, compact ones at 56) and
 * the "ready" bit.  3.13: from _Py_DebugOffsets (layout_313()); the
 * frame's instr_ptr points at the instruction being executed, not the
 * one before, and the line of it is what CPython reports.
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

#include "python/pyrt.h"
#include "util/errbuf.h"
#include "util/hash.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The offsets of one version. */
struct pyrt_layout {
	uint32_t rt_interp_head;
	uint32_t is_next, is_threads_head;
	uint32_t ts_prev, ts_next, ts_interp, ts_native_id;
	uint32_t ts_cframe; /* the _PyCFrame pointer (3.11, 3.12); 0: none */
	uint32_t ts_frame;  /* current_frame in it, or in the tstate (3.13) */
	uint32_t fr_code, fr_previous, fr_instr, fr_owner;
	uint32_t fr_is_entry; /* 3.11; 0: entries are CSTACK shims (3.12+) */
	uint32_t co_firstlineno, co_filename, co_name, co_qualname;
	uint32_t co_linetable, co_firsttraceable, co_code;
	uint32_t bytes_size, bytes_data;
	uint32_t str_length, str_state, str_ascii_data, str_data;
	uint32_t str_ready; /* the state bit "ready" (3.11), 0 from 3.12 */
};

static const struct pyrt_layout layout_311 = {
	.rt_interp_head = 40,
	.is_next = 0,
	.is_threads_head = 16,
	.ts_prev = 0,
	.ts_next = 8,
	.ts_interp = 16,
	.ts_native_id = 160,
	.ts_cframe = 56,
	.ts_frame = 8,
	.fr_code = 32,
	.fr_previous = 48,
	.fr_instr = 56,
	.fr_owner = 69,
	.fr_is_entry = 68,
	.co_firstlineno = 72,
	.co_filename = 112,
	.co_name = 120,
	.co_qualname = 128,
	.co_linetable = 136,
	.co_firsttraceable = 168,
	.co_code = 184,
	.bytes_size = 16,
	.bytes_data = 32,
	.str_length = 16,
	.str_state = 32,
	.str_ascii_data = 48,
	.str_data = 72,
	.str_ready = 0x80,
};

/* 3.12: f_code first, is_entry gone, PyASCIIObject without wstr. */
static const struct pyrt_layout layout_312 = {
	.rt_interp_head = 40,
	.is_next = 0,
	.is_threads_head = 72,
	.ts_prev = 0,
	.ts_next = 8,
	.ts_interp = 16,
	.ts_native_id = 144,
	.ts_cframe = 56,
	.ts_frame = 0,
	.fr_code = 0,
	.fr_previous = 8,
	.fr_instr = 56,
	.fr_owner = 70,
	.fr_is_entry = 0,
	.co_firstlineno = 68,
	.co_filename = 112,
	.co_name = 120,
	.co_qualname = 128,
	.co_linetable = 136,
	.co_firsttraceable = 176,
	.co_code = 192,
	.bytes_size = 16,
	.bytes_data = 32,
	.str_length = 16,
	.str_state = 32,
	.str_ascii_data = 40,
	.str_data = 56,
	.str_ready = 0,
};

/* FRAME_OWNED_BY_CSTACK: 3.12+'s shim frame at each C eval frame's start */
#define PYRT_OWNER_CSTACK 3

/* Bounds of the offsets read from _Py_DebugOffsets (and of our buffers). */
#define PYRT_TS_BYTES 4096 /* of a thread state read */
#define PYRT_FR_BYTES 256  /* of a frame */
#define PYRT_CO_BYTES 1024 /* of a code object */
#define PYRT_STR_HDR 256   /* of a str object's header */
#define PYRT_DBG_BYTES 584 /* 3.13's _Py_DebugOffsets */

/* Bytecode longer than this (in code units) is not a real code object. */
#define PYRT_MAX_CODEUNITS (1u << 26)

struct pyrt {
	struct pyrt_layout lay, *l;
	uint32_t ts_size;	 /* bytes read of a thread state */
	uint32_t fr_lo, fr_size; /* the span read of a frame */
	uint32_t co_size;	 /* bytes read of a code object */
	unsigned version;	 /* 0xMMmm */
	uint64_t runtime;
	pyrt_read_fn read;
	void *arg;
};

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

static uint32_t max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

static uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* The spans read in one go, from the layout. */
static void set_spans(struct pyrt *rt)
{
	const struct pyrt_layout *l = rt->l;
	uint32_t hi;

	rt->ts_size = max32(max32(l->ts_prev, l->ts_next),
			    max32(l->ts_interp, l->ts_native_id)) +
		      8;
	if (!l->ts_cframe)
		rt->ts_size = max32(rt->ts_size, l->ts_frame + 8);
	rt->fr_lo = min32(min32(l->fr_code, l->fr_previous),
			  min32(l->fr_instr, l->fr_owner));
	hi = max32(max32(l->fr_code, l->fr_previous) + 8,
		   max32(l->fr_instr + 8, l->fr_owner + 1));
	if (l->fr_is_entry) {
		rt->fr_lo = min32(rt->fr_lo, l->fr_is_entry);
		hi = max32(hi, l->fr_is_entry + 1);
	}
	rt->fr_size = hi - rt->fr_lo;
	rt->co_size = max32(max32(max32(l->co_firstlineno, l->co_filename),
				  max32(l->co_name, l->co_qualname)),
			    max32(l->co_linetable, l->co_firsttraceable)) +
		      8;
	rt->co_size = max32(rt->co_size, 24); /* ob_size, at 16 */
}

/*
 * 3.13: the offsets from _Py_DebugOffsets, the first member of
 * _PyRuntime (Include/internal/pycore_runtime.h), whose own layout holds
 * for 3.13.x only.  Each offset must lie inside the structure size the
 * table gives and inside what this file reads of it.  What the table
 * lacks is the same in 3.12 and 3.13 (and 3.11): a code object's
 * _co_firsttraceable 16 bytes before its bytecode, a compact str's
 * characters 16 bytes after the ASCII header (utf8_length, utf8).
 */
static int layout_313(struct pyrt *rt, char *err, size_t errlen)
{
	/*
	 * Where each offset is in _Py_DebugOffsets, where the size of its
	 * structure is, our bound for it, and the layout field it fills.
	 */
#define F(f) offsetof(struct pyrt_layout, f)
	static const struct {
		uint16_t at, size_at, bound, field;
	} tab[] = {
		{ 40, 24, 4096, F(rt_interp_head) },
		{ 64, 48, 65535, F(is_next) },
		{ 72, 48, 65535, F(is_threads_head) },
		{ 160, 152, PYRT_TS_BYTES, F(ts_prev) },
		{ 168, 152, PYRT_TS_BYTES, F(ts_next) },
		{ 176, 152, PYRT_TS_BYTES, F(ts_interp) },
		{ 184, 152, PYRT_TS_BYTES, F(ts_frame) },
		{ 200, 152, PYRT_TS_BYTES, F(ts_native_id) },
		{ 232, 224, PYRT_FR_BYTES, F(fr_previous) },
		{ 240, 224, PYRT_FR_BYTES, F(fr_code) },
		{ 248, 224, PYRT_FR_BYTES, F(fr_instr) },
		{ 264, 224, PYRT_FR_BYTES, F(fr_owner) },
		{ 280, 272, PYRT_CO_BYTES, F(co_filename) },
		{ 288, 272, PYRT_CO_BYTES, F(co_name) },
		{ 296, 272, PYRT_CO_BYTES, F(co_qualname) },
		{ 304, 272, PYRT_CO_BYTES, F(co_linetable) },
		{ 312, 272, PYRT_CO_BYTES, F(co_firstlineno) },
		{ 344, 272, PYRT_CO_BYTES, F(co_code) },
		{ 520, 512, PYRT_STR_HDR, F(bytes_size) },
		{ 528, 512, PYRT_STR_HDR, F(bytes_data) },
		{ 544, 536, PYRT_STR_HDR, F(str_state) },
		{ 552, 536, PYRT_STR_HDR, F(str_length) },
		{ 560, 536, PYRT_STR_HDR, F(str_ascii_data) },
	};
#undef F
	struct pyrt_layout *l = &rt->lay;
	uint8_t d[PYRT_DBG_BYTES];
	uint64_t v, size;
	uint32_t v32;
	size_t i;

	if (rd(rt, rt->runtime, d, sizeof(d)) < 0) {
		errbuf_set(err, errlen, "_PyRuntime at %#llx is not readable",
			   (unsigned long long)rt->runtime);
		return -1;
	}
	if (memcmp(d, "xdebugpy", 8) || get64(d + 8) >> 16 != rt->version) {
		errbuf_set(err, errlen,
			   "_PyRuntime at %#llx does not start with 3.13's "
			   "_Py_DebugOffsets",
			   (unsigned long long)rt->runtime);
		errno = EINVAL;
		return -1;
	}
	if (get64(d + 16)) {
		errbuf_set(err, errlen,
			   "free-threaded CPython 3.13 is not supported");
		errno = ENOTSUP;
		return -1;
	}
	memset(l, 0, sizeof(*l)); /* ts_cframe, fr_is_entry, str_ready: 0 */
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		v = get64(d + tab[i].at);
		size = get64(d + tab[i].size_at);
		if (v > tab[i].bound - 8u || v >= size) {
			errbuf_set(err, errlen,
				   "_Py_DebugOffsets at %#llx: the offset at "
				   "byte %u is implausible (%llu)",
				   (unsigned long long)rt->runtime, tab[i].at,
				   (unsigned long long)v);
			errno = EINVAL;
			return -1;
		}
		v32 = (uint32_t)v;
		memcpy((char *)l + tab[i].field, &v32, sizeof(v32));
	}
	if (l->co_code < 16) {
		errbuf_set(err, errlen,
			   "_Py_DebugOffsets at %#llx: co_code_adaptive at %u",
			   (unsigned long long)rt->runtime, l->co_code);
		errno = EINVAL;
		return -1;
	}
	l->co_firsttraceable = l->co_code - 16;
	l->str_data = l->str_ascii_data + 16;
	return 0;
}

struct pyrt *pyrt_open(uint32_t version, uint64_t runtime, pyrt_read_fn read,
		       void *arg, char *err, size_t errlen)
{
	unsigned major = version >> 24, minor = (version >> 16) & 0xff;
	struct pyrt tmp = { .version = version >> 16,
			    .runtime = runtime,
			    .read = read,
			    .arg = arg };
	struct pyrt *rt;
	uint64_t head;

	tmp.l = &tmp.lay;
	if (major != 3 || minor < 11 || minor > 13) {
		errbuf_set(err, errlen,
			   "CPython %u.%u.%u is not supported (3.11 to 3.13)",
			   major, minor, (version >> 8) & 0xff);
		errno = ENOTSUP;
		return NULL;
	}
	if (!ptr_ok(runtime) || !read) {
		errbuf_set(err, errlen,
			   "_PyRuntime at %#llx is not a valid address",
			   (unsigned long long)runtime);
		errno = EINVAL;
		return NULL;
	}
	if (minor == 11)
		tmp.lay = layout_311;
	else if (minor == 12)
		tmp.lay = layout_312;
	else if (layout_313(&tmp, err, errlen) < 0)
		return NULL;
	set_spans(&tmp);
	if (rd64(&tmp, runtime + tmp.l->rt_interp_head, &head) < 0) {
		errbuf_set(err, errlen, "_PyRuntime at %#llx is not readable",
			   (unsigned long long)runtime);
		return NULL;
	}
	/* Before Py_Initialize() and after Py_Finalize() it is NULL. */
	if (!ptr_ok(head)) {
		errbuf_set(err, errlen,
			   "_PyRuntime at %#llx has no valid interpreter list "
			   "(head %#llx)",
			   (unsigned long long)runtime,
			   (unsigned long long)head);
		errno = EINVAL;
		return NULL;
	}
	rt = malloc(sizeof(*rt));
	if (!rt) {
		errbuf_set(err, errlen, "out of memory");
		return NULL;
	}
	*rt = tmp;
	rt->l = &rt->lay;
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
static int walk_threads(struct pyrt *rt, uint64_t interp,
			struct pyrt_thread *out, size_t max, size_t *count,
			char *err, size_t errlen)
{
	const struct pyrt_layout *l = rt->l;
	uint8_t ts[PYRT_TS_BYTES];
	uint64_t t, prev = 0;

	if (rd64(rt, interp + l->is_threads_head, &t) < 0) {
		errbuf_set(err, errlen, "interpreter %#llx is not readable",
			   (unsigned long long)interp);
		return -1;
	}
	while (t) {
		if (*count >= PYRT_MAX_THREADS) {
			errbuf_set(err, errlen,
				   "more than %u thread states: a loop",
				   PYRT_MAX_THREADS);
			errno = ELOOP;
			return -1;
		}
		if (!ptr_ok(t) || rd(rt, t, ts, rt->ts_size) < 0) {
			errbuf_set(err, errlen,
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
			errbuf_set(err, errlen,
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
	uint64_t interp, next;
	size_t count = 0, first, i;
	unsigned n = 0;

	if (rd64(rt, rt->runtime + l->rt_interp_head, &interp) < 0) {
		errbuf_set(err, errlen, "_PyRuntime is not readable");
		return -1;
	}
	for (; interp; n++, interp = next) {
		if (n >= PYRT_MAX_INTERPS || brent_seen(&b, interp)) {
			errbuf_set(err, errlen, "the interpreter list loops");
			errno = ELOOP;
			return -1;
		}
		if (!ptr_ok(interp) ||
		    rd64(rt, interp + l->is_next, &next) < 0) {
			errbuf_set(err, errlen,
				   "interpreter %#llx is not readable",
				   (unsigned long long)interp);
			errno = EFAULT;
			return -1;
		}
		first = count;
		if (walk_threads(rt, interp, out, max, &count, err, errlen) < 0)
			return -1;
		/*
		 * New interpreters are pushed at the head: the main one,
		 * made first, is the last (_PyRuntime's interpreters.main
		 * is not in 3.13's _Py_DebugOffsets).
		 */
		for (i = first; i < count && i < max; i++)
			out[i].main_interp = next == 0;
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
		errbuf_set(err, errlen, "out of memory");
		return -1;
	}
	count = pyrt_threads(rt, ts, PYRT_MAX_THREADS, err, errlen);
	for (i = 0; count > 0 && i < (size_t)count; i++) {
		if (!ts[i].native_id)
			continue; /* made, not yet started (3.11 preallocates) */
		for (j = 0; j < n && (uint64_t)tids[j] != ts[i].native_id; j++)
			;
		if (j == n) {
			errbuf_set(err, errlen,
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
		errbuf_set(err, errlen, "no thread state is bound to a thread");
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* The first frame of tstate into *f; a PYRT_* status if there is none. */
static int first_frame(struct pyrt *rt, uint64_t tstate, uint64_t *f)
{
	const struct pyrt_layout *l = rt->l;
	uint64_t cframe;

	*f = 0;
	if (!ptr_ok(tstate))
		return PYRT_BADPTR;
	if (!l->ts_cframe) /* 3.13: the thread state holds it */
		return rd64(rt, tstate + l->ts_frame, f) < 0 ? PYRT_UNREADABLE :
							       PYRT_END;
	if (rd64(rt, tstate + l->ts_cframe, &cframe) < 0)
		return PYRT_UNREADABLE;
	if (!cframe)
		return PYRT_END;
	if (!ptr_ok(cframe))
		return PYRT_BADPTR;
	return rd64(rt, cframe + l->ts_frame, f) < 0 ? PYRT_UNREADABLE :
						       PYRT_END;
}

int pyrt_frames(struct pyrt *rt, uint64_t tstate, struct pyrt_frame *out,
		int max, int *status)
{
	const struct pyrt_layout *l = rt->l;
	uint8_t fr[PYRT_FR_BYTES + 8];
	const uint8_t *p = fr - rt->fr_lo; /* p + offset: the field */
	struct brent b = { 0 };
	uint64_t f, code, instr;
	int64_t lasti;
	int n = 0, steps, owner;

	if (max > PYRT_MAX_FRAMES)
		max = PYRT_MAX_FRAMES;
	*status = first_frame(rt, tstate, &f);
	if (*status != PYRT_END)
		return 0;
	/* a shim frame (3.12+) sits below each entry frame: 2 max + 1 */
	for (steps = 0; f; steps++, f = get64(p + l->fr_previous)) {
		if (!ptr_ok(f)) {
			*status = PYRT_BADPTR;
			return n;
		}
		if (brent_seen(&b, f)) {
			*status = PYRT_LOOP;
			return n;
		}
		if (n >= max || steps > 2 * max) {
			*status = PYRT_TRUNCATED;
			return n;
		}
		if (rd(rt, f + rt->fr_lo, fr, rt->fr_size) < 0) {
			*status = PYRT_UNREADABLE;
			return n;
		}
		owner = p[l->fr_owner];
		if (!l->fr_is_entry && owner == PYRT_OWNER_CSTACK) {
			/* the frame before it started this C eval frame */
			if (n)
				out[n - 1].is_entry = 1;
			continue;
		}
		code = get64(p + l->fr_code);
		instr = get64(p + l->fr_instr);
		lasti = (int64_t)(instr - code - l->co_code) / 2;
		if (!ptr_ok(code) || lasti < -1 ||
		    lasti >= PYRT_MAX_CODEUNITS) {
			*status = PYRT_BADPTR;
			return n;
		}
		out[n].frame = f;
		out[n].code = code;
		out[n].lasti = (int32_t)lasti;
		out[n].is_entry = l->fr_is_entry && p[l->fr_is_entry];
		out[n].owner = (uint8_t)owner;
		n++;
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
	uint8_t hdr[PYRT_STR_HDR + 8], raw[PYRT_MAX_NAME * 4];
	size_t i, len = 0, n, kind, cap = PYRT_MAX_NAME;
	uint32_t hlen = max32(max32(l->str_length + 8, l->str_state + 4),
			      l->str_ascii_data);
	uint32_t state;
	int64_t length;
	char *s;

	s = malloc(PYRT_MAX_NAME + 1);
	if (!s)
		return NULL;
	if (!ptr_ok(addr) || rd(rt, addr, hdr, hlen) < 0)
		goto unknown;
	length = (int64_t)get64(hdr + l->str_length);
	state = get32(hdr + l->str_state);
	kind = (state >> 2) & 7;
	/* compact (bit 5), ready (3.11: bit 7); kind 1, 2 or 4 */
	if (length < 0 || !(state & 0x20) ||
	    (state & l->str_ready) != l->str_ready ||
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

/* pyrt_code_ident() of the header co (rt->co_size bytes). */
static uint64_t code_ident(const struct pyrt_layout *l, const uint8_t *co)
{
	uint64_t h = HASH_FNV_SEED;

	h = hash_fnv1a_word(h, get64(co + l->co_filename));
	h = hash_fnv1a_word(h, get64(co + l->co_name));
	h = hash_fnv1a_word(h, get64(co + l->co_qualname));
	h = hash_fnv1a_word(h, get64(co + l->co_linetable));
	h = hash_fnv1a_word(h, get32(co + l->co_firstlineno));
	h = hash_fnv1a_word(h, get64(co + 16)); /* ob_size */
	return hash_mix64(h);
}

int pyrt_code_ident(struct pyrt *rt, uint64_t code, uint64_t *ident)
{
	uint8_t co[PYRT_CO_BYTES + 8];

	if (!ptr_ok(code) || rd(rt, code, co, rt->co_size) < 0) {
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
	if (!ptr_ok(code) || rd(rt, code, co, rt->co_size) < 0) {
		errno = EFAULT;
		return -1;
	}
	size = (int64_t)get64(co + 16); /* ob_size */
	first = (int)get32(co + l->co_firstlineno);
	if (size < 0 || size > PYRT_MAX_CODEUNITS || first < 0) {
		errno = EINVAL;
		return -1;
	}
	out->ncodeunits = (uint32_t)size;
	out->firstlineno = first;
	out->ident = code_ident(l, co);
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

void pyrt_pages_init(struct pyrt_pages *pc, pyrt_read_fn read, void *arg)
{
	memset(pc->addr, 0, sizeof(pc->addr));
	pc->read = read;
	pc->arg = arg;
	pc->n = pc->next = 0;
	pc->reads = 0;
}

void pyrt_pages_reset(struct pyrt_pages *pc)
{
	pc->n = pc->next = 0;
}

/* The page at page (4 KiB-aligned), read if not held; NULL if unreadable. */
static const uint8_t *page_get(struct pyrt_pages *pc, uint64_t page)
{
	unsigned i;

	for (i = 0; i < pc->n; i++)
		if (pc->addr[i] == page)
			return pc->data[i];
	i = pc->n < PYRT_PAGES ? pc->n : pc->next;
	pc->reads++;
	if (pc->read(pc->arg, page, pc->data[i], 4096) != 0) {
		if (i < pc->n)
			pc->addr[i] = 1; /* half overwritten: matches no page */
		return NULL;
	}
	if (i == pc->n)
		pc->n++;
	else
		pc->next = (i + 1) % PYRT_PAGES;
	pc->addr[i] = page;
	return pc->data[i];
}

int pyrt_pages_read(void *arg, uint64_t addr, void *buf, size_t len)
{
	struct pyrt_pages *pc = arg;
	uint8_t *out = buf;
	uint64_t page;
	size_t off, k;
	const uint8_t *p;

	if (len > 2 * 4096 || addr + len < addr)
		goto direct; /* larger than two pages: not worth holding */
	while (len) {
		page = addr & ~4095ull;
		off = (size_t)(addr - page);
		k = len < 4096 - off ? len : 4096 - off;
		p = page_get(pc, page);
		if (!p)
			goto direct;
		memcpy(out, p + off, k);
		out += k;
		addr += k;
		len -= k;
	}
	return 0;
direct:
	pc->reads++;
	return pc->read(pc->arg, addr, out, len);
}
