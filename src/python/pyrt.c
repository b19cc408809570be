/*
 * pyrt.c - CPython's runtime state, read from a target's memory: the
 * layouts of each version and pyrt_open().  The threads and frames are
 * pyrt_threads.c, code objects pyrt_code.c, line tables pyrt_line.c, the
 * page cache pyrt_pages.c (pyrt_int.h lists them).
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
 */
#include "config.h"

#include "python/pyrt.h"
#include "python/pyrt_int.h"
#include "util/errbuf.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The spans read in one go, from the layout. */
static void set_spans(struct pyrt *rt)
{
	const struct pyrt_layout *l = rt->l;
	uint32_t hi;

	rt->ts_size = pyrt_max32(pyrt_max32(l->ts_prev, l->ts_next),
				 pyrt_max32(l->ts_interp, l->ts_native_id)) +
		      8;
	if (!l->ts_cframe)
		rt->ts_size = pyrt_max32(rt->ts_size, l->ts_frame + 8);
	rt->fr_lo = pyrt_min32(pyrt_min32(l->fr_code, l->fr_previous),
			       pyrt_min32(l->fr_instr, l->fr_owner));
	hi = pyrt_max32(pyrt_max32(l->fr_code, l->fr_previous) + 8,
			pyrt_max32(l->fr_instr + 8, l->fr_owner + 1));
	if (l->fr_is_entry) {
		rt->fr_lo = pyrt_min32(rt->fr_lo, l->fr_is_entry);
		hi = pyrt_max32(hi, l->fr_is_entry + 1);
	}
	rt->fr_size = hi - rt->fr_lo;
	rt->co_size =
		pyrt_max32(pyrt_max32(pyrt_max32(l->co_firstlineno,
						 l->co_filename),
				      pyrt_max32(l->co_name, l->co_qualname)),
			   pyrt_max32(l->co_linetable, l->co_firsttraceable)) +
		8;
	rt->co_size = pyrt_max32(rt->co_size, 24); /* ob_size, at 16 */
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

	if (pyrt_rd(rt, rt->runtime, d, sizeof(d)) < 0) {
		errbuf_set(err, errlen, "_PyRuntime at %#llx is not readable",
			   (unsigned long long)rt->runtime);
		return -1;
	}
	if (memcmp(d, "xdebugpy", 8) ||
	    pyrt_get64(d + 8) >> 16 != rt->version) {
		errbuf_set(err, errlen,
			   "_PyRuntime at %#llx does not start with 3.13's "
			   "_Py_DebugOffsets",
			   (unsigned long long)rt->runtime);
		errno = EINVAL;
		return -1;
	}
	if (pyrt_get64(d + 16)) {
		errbuf_set(err, errlen,
			   "free-threaded CPython 3.13 is not supported");
		errno = ENOTSUP;
		return -1;
	}
	memset(l, 0, sizeof(*l)); /* ts_cframe, fr_is_entry, str_ready: 0 */
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		v = pyrt_get64(d + tab[i].at);
		size = pyrt_get64(d + tab[i].size_at);
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
	if (!pyrt_ptr_ok(runtime) || !read) {
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
	if (pyrt_rd64(&tmp, runtime + tmp.l->rt_interp_head, &head) < 0) {
		errbuf_set(err, errlen, "_PyRuntime at %#llx is not readable",
			   (unsigned long long)runtime);
		return NULL;
	}
	/* Before Py_Initialize() and after Py_Finalize() it is NULL. */
	if (!pyrt_ptr_ok(head)) {
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
