/*
 * pyrt_int.h - what the files of the CPython reader share (private to
 * src/python/pyrt*.c; the interface is pyrt.h): a version's offsets, the
 * reader's state, and reading the target's memory through it.
 *
 *  - pyrt.c: the layouts of 3.11 to 3.13, pyrt_open() and its checks;
 *  - pyrt_threads.c: the thread states and each one's frame chain;
 *  - pyrt_code.c: code objects and their strings;
 *  - pyrt_line.c: a code object's location table, to a line;
 *  - pyrt_pages.c: the page cache of pyrt_pages_read().
 *
 * The readers here fail with -1 and errno EFAULT (unreadable memory),
 * as pyrt.h says; none prints or exits.
 */
#ifndef PTPROF_PYRT_INT_H
#define PTPROF_PYRT_INT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "python/pyrt.h"

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

static inline uint64_t pyrt_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t pyrt_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* A pointer worth following: not NULL, 8-aligned, in user space. */
static inline int pyrt_ptr_ok(uint64_t p)
{
	return p && !(p & 7) && p < (1ull << 47);
}

static inline int pyrt_rd(struct pyrt *rt, uint64_t addr, void *buf, size_t len)
{
	if (addr + len < addr || rt->read(rt->arg, addr, buf, len) != 0) {
		errno = EFAULT;
		return -1;
	}
	return 0;
}

static inline int pyrt_rd64(struct pyrt *rt, uint64_t addr, uint64_t *v)
{
	uint8_t b[8];

	if (pyrt_rd(rt, addr, b, 8) < 0)
		return -1;
	*v = pyrt_get64(b);
	return 0;
}

static inline uint32_t pyrt_max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

static inline uint32_t pyrt_min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

#endif /* PTPROF_PYRT_INT_H */
