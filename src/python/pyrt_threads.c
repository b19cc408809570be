/*
 * pyrt_threads.c - CPython's thread states and each one's chain of
 * frames (pyrt.h), read from a target's memory through pyrt_int.h; a
 * chain that loops is found (Brent) and cut.
 */
#include "config.h"

#include "python/pyrt.h"
#include "python/pyrt_int.h"
#include "util/errbuf.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

	if (pyrt_rd64(rt, interp + l->is_threads_head, &t) < 0) {
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
		if (!pyrt_ptr_ok(t) || pyrt_rd(rt, t, ts, rt->ts_size) < 0) {
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
		if (pyrt_get64(ts + l->ts_interp) != interp ||
		    pyrt_get64(ts + l->ts_prev) != prev) {
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
			out[*count].native_id = pyrt_get64(ts +
							   l->ts_native_id);
		}
		++*count;
		prev = t;
		t = pyrt_get64(ts + l->ts_next);
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

	if (pyrt_rd64(rt, rt->runtime + l->rt_interp_head, &interp) < 0) {
		errbuf_set(err, errlen, "_PyRuntime is not readable");
		return -1;
	}
	for (; interp; n++, interp = next) {
		if (n >= PYRT_MAX_INTERPS || brent_seen(&b, interp)) {
			errbuf_set(err, errlen, "the interpreter list loops");
			errno = ELOOP;
			return -1;
		}
		if (!pyrt_ptr_ok(interp) ||
		    pyrt_rd64(rt, interp + l->is_next, &next) < 0) {
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
	if (!pyrt_ptr_ok(tstate))
		return PYRT_BADPTR;
	if (!l->ts_cframe) /* 3.13: the thread state holds it */
		return pyrt_rd64(rt, tstate + l->ts_frame, f) < 0 ?
			       PYRT_UNREADABLE :
			       PYRT_END;
	if (pyrt_rd64(rt, tstate + l->ts_cframe, &cframe) < 0)
		return PYRT_UNREADABLE;
	if (!cframe)
		return PYRT_END;
	if (!pyrt_ptr_ok(cframe))
		return PYRT_BADPTR;
	return pyrt_rd64(rt, cframe + l->ts_frame, f) < 0 ? PYRT_UNREADABLE :
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
	for (steps = 0; f; steps++, f = pyrt_get64(p + l->fr_previous)) {
		if (!pyrt_ptr_ok(f)) {
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
		if (pyrt_rd(rt, f + rt->fr_lo, fr, rt->fr_size) < 0) {
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
		code = pyrt_get64(p + l->fr_code);
		instr = pyrt_get64(p + l->fr_instr);
		lasti = (int64_t)(instr - code - l->co_code) / 2;
		if (!pyrt_ptr_ok(code) || lasti < -1 ||
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
