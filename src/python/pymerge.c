/*
 * pymerge.c - a native stack and its Python frames merged into one
 * (pymerge.h says how, and what happens when they disagree).
 */
#include "config.h"

#include "python/pymerge.h"

/* Whether Python frame i is an entry frame. */
static bool pymerge_entry(const struct pymerge_in *in, size_t i)
{
	return in->entry[i * in->entry_stride] != 0;
}

/* The native stack as it is: ref i is native PC i, at most max. */
static size_t pymerge_native(const struct pymerge_in *in,
			     struct pymerge_ref *out, size_t max)
{
	size_t n = in->npcs < max ? in->npcs : max;

	for (size_t i = 0; i < n; i++)
		out[i] = (struct pymerge_ref){ (uint32_t)i, (uint32_t)i,
					       false };
	return n;
}

static bool pymerge_valid(const struct pymerge_in *in,
			  const struct pymerge_ref *out, const size_t *nout)
{
	if (!in || !out || !nout || !in->in_eval)
		return false;
	if ((!in->pcs && in->npcs) ||
	    (in->npy && (!in->entry || !in->entry_stride)))
		return false;
	/* refs carry 32-bit indices */
	return in->npcs <= UINT32_MAX && in->npy <= UINT32_MAX;
}

/* The eval-loop frames of the native stack. */
static size_t pymerge_evals(const struct pymerge_in *in)
{
	size_t n = 0;

	for (size_t i = 0; i < in->npcs; i++)
		if (in->in_eval(in->in_eval_arg, in->pcs[i], i))
			n++;
	return n;
}

/* The runs of Python frames: one per entry frame. */
static size_t pymerge_runs(const struct pymerge_in *in)
{
	size_t n = 0;

	for (size_t i = 0; i < in->npy; i++)
		if (pymerge_entry(in, i))
			n++;
	return n;
}

/*
 * The merge proper, once the counts agree: -1 if in_eval answers
 * otherwise than it did when they were counted (an eval frame with no
 * run left, or, native_cut aside, runs left over), else the refs
 * written.  The walk goes on past max, writing nothing, to see that.
 */
static long pymerge_walk(const struct pymerge_in *in, struct pymerge_ref *out,
			 size_t max)
{
	size_t n = 0, py = 0;

	for (size_t i = 0; i < in->npcs; i++) {
		bool entry = false;

		if (!in->in_eval(in->in_eval_arg, in->pcs[i], i)) {
			if (n < max)
				out[n++] = (struct pymerge_ref){ (uint32_t)i,
								 (uint32_t)i,
								 false };
			continue;
		}
		/* this C eval call's run: up to and including its entry
		 * frame */
		while (!entry) {
			if (py >= in->npy)
				return -1;
			entry = pymerge_entry(in, py);
			if (n < max)
				out[n++] = (struct pymerge_ref){ (uint32_t)py,
								 (uint32_t)i,
								 true };
			py++;
		}
	}
	if (py != in->npy && !in->native_cut)
		return -1;
	return (long)n;
}

enum pymerge_status pymerge_stack(const struct pymerge_in *in,
				  struct pymerge_ref *out, size_t max,
				  size_t *nout)
{
	size_t evals, runs;
	long n;

	if (!pymerge_valid(in, out, nout)) {
		if (nout)
			*nout = 0;
		return PYMERGE_EINVAL;
	}
	if (in->npy && !pymerge_entry(in, in->npy - 1)) {
		*nout = pymerge_native(in, out, max);
		return PYMERGE_NO_ENTRY;
	}
	evals = pymerge_evals(in);
	runs = pymerge_runs(in);
	/* A cut native stack lost its outer eval frames, not inner ones:
	 * fewer of them than runs is expected then, more never is. */
	if (evals != runs && !(in->native_cut && evals < runs)) {
		*nout = pymerge_native(in, out, max);
		return PYMERGE_MISMATCH;
	}
	n = pymerge_walk(in, out, max);
	if (n < 0) {
		*nout = pymerge_native(in, out, max);
		return PYMERGE_MISMATCH;
	}
	*nout = (size_t)n;
	return PYMERGE_OK;
}

size_t pymerge_pcs(const struct pymerge_in *in, const struct pymerge_ref *refs,
		   size_t n, int (*py_pc)(void *arg, uint32_t i, uint64_t *pc),
		   void *arg, uint64_t *out, size_t *unnamed)
{
	size_t k = 0;
	/* the eval frame whose PC stood in last, if the last PC written */
	uint32_t stood_in = UINT32_MAX;

	if (!in || !refs || !out)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct pymerge_ref *r = &refs[i];
		uint64_t pc;
		int rc;

		if (r->eval >= in->npcs ||
		    (r->py ? r->idx >= in->npy : r->idx != r->eval))
			continue;
		if (!r->py) {
			out[k++] = in->pcs[r->idx];
			stood_in = UINT32_MAX;
			continue;
		}
		rc = py_pc ? py_pc(arg, r->idx, &pc) : -1;
		if (rc == 1)
			continue;
		if (rc == 0) {
			out[k++] = pc;
			stood_in = UINT32_MAX;
			continue;
		}
		if (unnamed)
			(*unnamed)++;
		if (stood_in != r->eval)
			out[k++] = in->pcs[r->eval];
		stood_in = r->eval;
	}
	return k;
}

const char *pymerge_status_name(enum pymerge_status s)
{
	switch (s) {
	case PYMERGE_OK:
		return "ok";
	case PYMERGE_NO_ENTRY:
		return "no-entry";
	case PYMERGE_MISMATCH:
		return "mismatch";
	case PYMERGE_EINVAL:
		return "einval";
	}
	return "?";
}
