/*
 * test_pymerge.c - the merge of native and Python frames (pymerge.h), on
 * the shapes issue 16 names: a plain chain, time.sleep above its Python
 * caller, a C extension between Python frames, and the disagreements
 * that keep the native stack.
 */
#include "config.h"

#include <string.h>

#include "python/pymerge.h"
#include "unit.h"

/* The eval loop of these stacks: [EVAL, EVAL + 0x1000). */
#define EVAL 0xe000u

/* Native PCs (return addresses but the leaf's). */
enum {
	CLOCK_NANOSLEEP = 0x1010,
	PYSLEEP = 0x1110,
	TIME_SLEEP = 0x1210,
	EXT_FUNC = 0x2010, /* a C extension's function */
	CFUNC_CALL = 0x2110,
	EVAL_IN = EVAL + 0x10,	/* a C call of the eval loop */
	EVAL_OUT = EVAL + 0x20, /* another one (another return address) */
	EVAL_CODE = 0x3010,
	RUN_MOD = 0x3110,
	PY_RUNMAIN = 0x3210,
	MAIN = 0x3310,
};

static bool in_eval(void *arg, uint64_t pc, size_t i)
{
	(void)arg;
	(void)i;
	return pc >= EVAL && pc < EVAL + 0x1000;
}

/* A predicate that changes its mind: the answers of a script, in turn. */
struct script {
	const bool *answers;
	size_t next;
};

static bool fickle(void *arg, uint64_t pc, size_t i)
{
	struct script *s = arg;

	(void)pc;
	(void)i;
	return s->answers[s->next++];
}

/* A ref list written as a string: "n3" native 3, "p0" Python 0. */
static const char *refs_str(const struct pymerge_ref *r, size_t n)
{
	static char buf[512];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < sizeof(buf) - 16; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%c%u",
					i ? " " : "", r[i].py ? 'p' : 'n',
					r[i].idx);
	return buf;
}

static enum pymerge_status merge(const uint64_t *pcs, size_t npcs,
				 const bool *entry, size_t npy, bool cut,
				 size_t max, const char **got)
{
	struct pymerge_ref out[64];
	struct pymerge_in in = { .pcs = pcs,
				 .npcs = npcs,
				 .native_cut = cut,
				 .entry = (const uint8_t *)entry,
				 .entry_stride = 1,
				 .npy = npy,
				 .in_eval = in_eval };
	size_t n = 99;
	enum pymerge_status s = pymerge_stack(&in, out, max, &n);

	*got = refs_str(out, n);
	return s;
}

#define EXPECT(status, want, ...)                                              \
	do {                                                                   \
		const char *got_;                                              \
		enum pymerge_status s_ = merge(__VA_ARGS__, &got_);            \
		CHECKF(s_ == (status), "status %s, not %s",                    \
		       pymerge_status_name(s_), pymerge_status_name(status));  \
		CHECKF(!strcmp(got_, (want)), "got \"%s\", want \"%s\"", got_, \
		       (want));                                                \
	} while (0)

/* main -> run -> level1 -> hot_a: one C eval call runs all four. */
static void test_plain_chain(void)
{
	const uint64_t pcs[] = { EVAL_IN, EVAL_CODE, RUN_MOD, PY_RUNMAIN,
				 MAIN };
	/* hot_a, level1, run, <module> (the one Py_RunMain entered) */
	const bool entry[] = { false, false, false, true };

	EXPECT(PYMERGE_OK, "p0 p1 p2 p3 n1 n2 n3 n4", pcs, 5, entry, 4, false,
	       64);
	/* max: the innermost frames kept */
	EXPECT(PYMERGE_OK, "p0 p1 p2", pcs, 5, entry, 4, false, 3);
	EXPECT(PYMERGE_OK, "p0 p1 p2 p3 n1", pcs, 5, entry, 4, false, 5);
	EXPECT(PYMERGE_OK, "", pcs, 5, entry, 4, false, 0);
}

/* time.sleep: clock_nanosleep and the C function above the caller. */
static void test_sleep(void)
{
	const uint64_t pcs[] = { CLOCK_NANOSLEEP, PYSLEEP,    TIME_SLEEP,
				 EVAL_IN,	  PY_RUNMAIN, MAIN };
	const bool entry[] = { false, true }; /* sleeper, <module> */

	EXPECT(PYMERGE_OK, "n0 n1 n2 p0 p1 n4 n5", pcs, 6, entry, 2, false, 64);
}

/* A C extension calls back into Python: two C eval calls, two runs. */
static void test_extension_between(void)
{
	const uint64_t pcs[] = { EVAL_IN,  EXT_FUNC,   CFUNC_CALL,
				 EVAL_OUT, PY_RUNMAIN, MAIN };
	/* callback (entered by the extension), hot, <module> */
	const bool entry[] = { true, false, true };

	EXPECT(PYMERGE_OK, "p0 n1 n2 p1 p2 n4 n5", pcs, 6, entry, 3, false, 64);
	/* the leaf in the extension, its caller's run below it */
	EXPECT(PYMERGE_OK, "n0 n1 p0 p1 p2 n3 n4", pcs + 1, 5,
	       (const bool[]){ false, false, true }, 3, false, 64);
}

/* What never merges: the native stack, as it is, and the reason. */
static void test_disagreements(void)
{
	const uint64_t two[] = { EVAL_IN, EXT_FUNC, EVAL_OUT, MAIN };
	const uint64_t one[] = { EVAL_IN, PY_RUNMAIN, MAIN };
	const uint64_t none[] = { CLOCK_NANOSLEEP, MAIN };

	/* two eval calls, one run: a C eval call entered, its frame not
	 * linked yet */
	EXPECT(PYMERGE_MISMATCH, "n0 n1 n2 n3", two, 4,
	       (const bool[]){ false, true }, 2, false, 64);
	/* one eval call, two runs: more frames than C calls */
	EXPECT(PYMERGE_MISMATCH, "n0 n1 n2", one, 3,
	       (const bool[]){ true, true }, 2, false, 64);
	/* the outermost frame is no entry frame: a chain read mid-call */
	EXPECT(PYMERGE_NO_ENTRY, "n0 n1 n2", one, 3,
	       (const bool[]){ true, false }, 2, false, 64);
	/* an eval call but no Python frame read */
	EXPECT(PYMERGE_MISMATCH, "n0 n1 n2", one, 3, NULL, 0, false, 64);
	/* max applies to the native stack kept too */
	EXPECT(PYMERGE_MISMATCH, "n0 n1", two, 4, (const bool[]){ false, true },
	       2, false, 2);
	/* Python frames and no eval call: the native stack */
	EXPECT(PYMERGE_MISMATCH, "n0 n1", none, 2, (const bool[]){ true }, 1,
	       false, 64);
	/* a native thread: nothing to merge, and that is fine */
	EXPECT(PYMERGE_OK, "n0 n1", none, 2, NULL, 0, false, 64);
	EXPECT(PYMERGE_OK, "", none, 0, NULL, 0, false, 64);
}

/* A native stack cut at the unwinder's depth limit lost its outer eval
 * calls: the inner runs merge, the outer ones go with them; more eval
 * calls than runs is still a mismatch. */
static void test_native_cut(void)
{
	const uint64_t cut[] = { EVAL_IN, EXT_FUNC, CFUNC_CALL };
	const bool entry[] = { true, false, true };

	EXPECT(PYMERGE_OK, "p0 n1 n2", cut, 3, entry, 3, true, 64);
	EXPECT(PYMERGE_MISMATCH, "n0 n1 n2", cut, 3, entry, 3, false, 64);
	EXPECT(PYMERGE_OK, "n0 n1", cut + 1, 2, entry, 3, true, 64);
	EXPECT(PYMERGE_MISMATCH, "n0 n1",
	       (const uint64_t[]){ EVAL_IN, EVAL_OUT }, 2,
	       (const bool[]){ true }, 1, true, 64);
}

/* A predicate that answers otherwise the second time it is asked never
 * makes the merge read past the Python frames, nor drop some: the
 * native stack then. */
static void test_fickle(void)
{
	const uint64_t pcs[] = { EVAL_IN, EXT_FUNC };
	const bool entry[] = { true };
	/* counted as one eval call, walked as two */
	const bool more[] = { true, false, true, true };
	/* counted as one, walked as none */
	const bool fewer[] = { true, false, false, false };
	struct script sc = { more, 0 };
	struct pymerge_in in = { .pcs = pcs,
				 .npcs = 2,
				 .entry = (const uint8_t *)entry,
				 .entry_stride = 1,
				 .npy = 1,
				 .in_eval = fickle,
				 .in_eval_arg = &sc };
	struct pymerge_ref out[8];
	size_t n;

	CHECK(pymerge_stack(&in, out, 8, &n) == PYMERGE_MISMATCH);
	CHECK(n == 2 && !out[0].py && !out[1].py && out[1].idx == 1);
	sc = (struct script){ fewer, 0 };
	CHECK(pymerge_stack(&in, out, 8, &n) == PYMERGE_MISMATCH);
	CHECK(n == 2 && !out[0].py && !out[1].py);
}

/* The flags read where they lie, in frames as pyrt.h's (entry_stride):
 * the same merge as from a bool array. */
static void test_stride(void)
{
	struct frame {
		uint64_t frame, code;
		int32_t lasti;
		uint8_t is_entry, owner;
	} fr[3] = { { 0x100, 0xc1, 4, 1, 0 },
		    { 0x200, 0xc2, 8, 0, 0 },
		    { 0x300, 0xc3, 2, 1, 0 } };
	const uint64_t pcs[] = { EVAL_IN,  EXT_FUNC,   CFUNC_CALL,
				 EVAL_OUT, PY_RUNMAIN, MAIN };
	struct pymerge_in in = { .pcs = pcs,
				 .npcs = 6,
				 .entry = &fr[0].is_entry,
				 .entry_stride = sizeof(fr[0]),
				 .npy = 3,
				 .in_eval = in_eval };
	struct pymerge_ref out[16];
	size_t n;

	CHECK(pymerge_stack(&in, out, 16, &n) == PYMERGE_OK);
	CHECKF(!strcmp(refs_str(out, n), "p0 n1 n2 p1 p2 n4 n5"), "got %s",
	       refs_str(out, n));
	fr[2].is_entry = 0; /* the outermost no entry frame */
	CHECK(pymerge_stack(&in, out, 16, &n) == PYMERGE_NO_ENTRY);
	CHECKF(!strcmp(refs_str(out, n), "n0 n1 n2 n3 n4 n5"), "got %s",
	       refs_str(out, n));
}

/* ---- merged refs to PCs (pymerge_pcs()) ---- */

/* py_pc: frame i's PC is 0x5000 + i, but for the frames failing says
 * fail (-1) or hidden says hide (1); calls counted. */
struct namer {
	unsigned fail, hide; /* bit i: frame i */
	unsigned calls;
};

static int namer_pc(void *arg, uint32_t i, uint64_t *pc)
{
	struct namer *nm = arg;

	nm->calls++;
	if (nm->fail & (1u << i))
		return -1;
	if (nm->hide & (1u << i))
		return 1;
	*pc = 0x5000 + i;
	return 0;
}

/* The PCs of pcs merged with frames entry (as merge()), named by nm. */
static size_t merged_pcs(const uint64_t *pcs, size_t npcs, const bool *entry,
			 size_t npy, struct namer *nm, uint64_t *out,
			 size_t *unnamed)
{
	struct pymerge_in in = { .pcs = pcs,
				 .npcs = npcs,
				 .entry = (const uint8_t *)entry,
				 .entry_stride = 1,
				 .npy = npy,
				 .in_eval = in_eval };
	struct pymerge_ref refs[64];
	size_t n;

	pymerge_stack(&in, refs, 64, &n);
	*unnamed = 0;
	return pymerge_pcs(&in, refs, n, nm ? namer_pc : NULL, nm, out,
			   unnamed);
}

static bool pcs_are(const uint64_t *got, size_t n, const uint64_t *want,
		    size_t nwant)
{
	if (n != nwant) {
		fprintf(stderr, "%zu PCs, not %zu\n", n, nwant);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i]) {
			fprintf(stderr, "PC %zu is %#llx, not %#llx\n", i,
				(unsigned long long)got[i],
				(unsigned long long)want[i]);
			return false;
		}
	return true;
}

static void test_pcs(void)
{
	const uint64_t chain[] = { EVAL_IN, EVAL_CODE, PY_RUNMAIN, MAIN };
	const bool chain_entry[] = { false, false, true };
	const uint64_t ext[] = { EVAL_IN, EXT_FUNC, EVAL_OUT, MAIN };
	const bool ext_entry[] = { true, false, true };
	struct namer nm = { 0 };
	uint64_t out[64];
	size_t n, unnamed;

	/* every frame named */
	n = merged_pcs(chain, 4, chain_entry, 3, &nm, out, &unnamed);
	CHECK(pcs_are(out, n,
		      (const uint64_t[]){ 0x5000, 0x5001, 0x5002, EVAL_CODE,
					  PY_RUNMAIN, MAIN },
		      6));
	CHECK(unnamed == 0 && nm.calls == 3);
	/* frames 1 and 2 unnamed: the eval frame stands in, once */
	nm = (struct namer){ .fail = 6 };
	n = merged_pcs(chain, 4, chain_entry, 3, &nm, out, &unnamed);
	CHECK(pcs_are(out, n,
		      (const uint64_t[]){ 0x5000, EVAL_IN, EVAL_CODE,
					  PY_RUNMAIN, MAIN },
		      5));
	CHECK(unnamed == 2);
	/* frame 0 hidden (incomplete), frame 2 unnamed */
	nm = (struct namer){ .fail = 4, .hide = 1 };
	n = merged_pcs(chain, 4, chain_entry, 3, &nm, out, &unnamed);
	CHECK(pcs_are(out, n,
		      (const uint64_t[]){ 0x5001, EVAL_IN, EVAL_CODE,
					  PY_RUNMAIN, MAIN },
		      5));
	CHECK(unnamed == 1);
	/* unnamed frames of two runs in a row: each run's own eval frame */
	nm = (struct namer){ .fail = 3 };
	n = merged_pcs(ext, 4, ext_entry, 3, &nm, out, &unnamed);
	CHECK(pcs_are(out, n,
		      (const uint64_t[]){ EVAL_IN, EXT_FUNC, EVAL_OUT, 0x5002,
					  MAIN },
		      5));
	/* nothing named: exactly the native stack again */
	n = merged_pcs(ext, 4, ext_entry, 3, NULL, out, &unnamed);
	CHECK(pcs_are(out, n, ext, 4) && unnamed == 3);
	/* a mismatch: the native stack, py_pc never asked */
	nm = (struct namer){ 0 };
	n = merged_pcs(ext, 4, chain_entry, 3, &nm, out, &unnamed);
	CHECK(pcs_are(out, n, ext, 4) && nm.calls == 0);
}

/* Refs that are no frame of the input are left out. */
static void test_pcs_bad_refs(void)
{
	const uint64_t pcs[] = { EVAL_IN, MAIN };
	const bool entry[] = { true };
	struct pymerge_in in = { .pcs = pcs,
				 .npcs = 2,
				 .entry = (const uint8_t *)entry,
				 .entry_stride = 1,
				 .npy = 1,
				 .in_eval = in_eval };
	const struct pymerge_ref refs[] = {
		{ 0, 0, true },	 /* fine */
		{ 1, 0, true },	 /* no Python frame 1 */
		{ 0, 2, true },	 /* no native frame 2 */
		{ 1, 0, false }, /* a native ref's eval is itself */
		{ 2, 2, false }, /* no native frame 2 */
		{ 1, 1, false }, /* fine */
	};
	struct namer nm = { 0 };
	uint64_t out[8];
	size_t n = pymerge_pcs(&in, refs, 6, namer_pc, &nm, out, NULL);

	CHECK(pcs_are(out, n, (const uint64_t[]){ 0x5000, MAIN }, 2));
	CHECK(pymerge_pcs(NULL, refs, 6, namer_pc, &nm, out, NULL) == 0);
	CHECK(pymerge_pcs(&in, NULL, 6, namer_pc, &nm, out, NULL) == 0);
	CHECK(pymerge_pcs(&in, refs, 6, namer_pc, &nm, NULL, NULL) == 0);
}

static void test_einval(void)
{
	struct pymerge_ref out[4];
	struct pymerge_in in = { .npcs = 2, .in_eval = in_eval };
	size_t n = 7;

	CHECK(pymerge_stack(&in, out, 4, &n) == PYMERGE_EINVAL && n == 0);
	in = (struct pymerge_in){ .entry_stride = 1,
				  .npy = 1,
				  .in_eval = in_eval };
	n = 7;
	CHECK(pymerge_stack(&in, out, 4, &n) == PYMERGE_EINVAL && n == 0);
	in = (struct pymerge_in){ .npcs = 0 };
	CHECK(pymerge_stack(&in, out, 4, &n) == PYMERGE_EINVAL);
	in.in_eval = in_eval;
	/* Python frames with a stride of 0 */
	in.entry = (const uint8_t[]){ 1 };
	in.entry_stride = 0;
	in.npy = 1;
	CHECK(pymerge_stack(&in, out, 4, &n) == PYMERGE_EINVAL);
	in.entry_stride = 1;
	/* valid: Python frames and no eval frame */
	CHECK(pymerge_stack(&in, out, 4, &n) == PYMERGE_MISMATCH && n == 0);
	in.npy = 0;
	CHECK(pymerge_stack(&in, NULL, 4, &n) == PYMERGE_EINVAL);
	CHECK(pymerge_stack(&in, out, 4, NULL) == PYMERGE_EINVAL);
	CHECK(pymerge_stack(NULL, out, 4, &n) == PYMERGE_EINVAL);
	CHECK(!strcmp(pymerge_status_name(PYMERGE_NO_ENTRY), "no-entry"));
	CHECK(!strcmp(pymerge_status_name((enum pymerge_status)42), "?"));
}

int main(void)
{
	test_plain_chain();
	test_sleep();
	test_extension_between();
	test_disagreements();
	test_native_cut();
	test_fickle();
	test_stride();
	test_pcs();
	test_pcs_bad_refs();
	test_einval();
	return unit_result("test_pymerge");
}
