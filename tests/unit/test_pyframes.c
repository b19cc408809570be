/*
 * test_pyframes.c - Python frames interned to synthetic PCs and named
 * back (pyframes.h): identity, the PC range, the bounds.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "python/pyframes.h"
#include "unit.h"

static struct pyframe frame(const char *q, const char *file, uint32_t first,
			    uint32_t line)
{
	return (struct pyframe){ q, file, first, line };
}

static uint64_t intern(struct pyframes *t, struct pyframe f)
{
	uint64_t pc = 0;

	CHECKF(pyframes_intern(t, &f, &pc) == 0, "%s %s:%u: %s", f.qualname,
	       f.filename, f.line, strerror(errno));
	return pc;
}

static bool same(const struct pyframe *a, const struct pyframe *b)
{
	return !strcmp(a->qualname, b->qualname) &&
	       !strcmp(a->filename, b->filename) &&
	       a->firstline == b->firstline && a->line == b->line;
}

/* Equal frames one PC, any difference another; the strings copied. */
static void test_identity(void)
{
	struct pyframes *t = pyframes_new(0);
	char q[] = "hot_a";
	uint64_t a, pcs[6];
	struct pyframe got;

	CHECK(t != NULL);
	a = intern(t, frame(q, "app.py", 10, 12));
	CHECK(a == PYFRAMES_BASE + PYFRAMES_STEP / 2);
	pcs[0] = intern(t, frame("hot_a", "app.py", 10, 13));	/* line */
	pcs[1] = intern(t, frame("hot_a", "lib.py", 10, 12));	/* file */
	pcs[2] = intern(t, frame("hot_a", "app.py", 20, 12));	/* def */
	pcs[3] = intern(t, frame("C.hot_a", "app.py", 10, 12)); /* name */
	/* the names' boundary is part of the identity */
	pcs[4] = intern(t, frame("ab", "c", 1, 1));
	pcs[5] = intern(t, frame("a", "bc", 1, 1));
	CHECK(pyframes_count(t) == 7);
	for (size_t i = 0; i < 6; i++) {
		CHECK(pcs[i] != a);
		CHECK(pcs[i] == PYFRAMES_BASE + (i + 1) * PYFRAMES_STEP +
					PYFRAMES_STEP / 2);
	}
	/* the same frame again, from other buffers: the same PC */
	strcpy(q, "xxxxx");
	CHECK(intern(t, frame("hot_a", "app.py", 10, 12)) == a);
	CHECK(pyframes_count(t) == 7);
	CHECK(pyframes_lookup(t, a, &got) == 0);
	CHECK(same(&got, &(struct pyframe){ "hot_a", "app.py", 10, 12 }));
	/* a caller's PC-1 names the same frame */
	CHECK(pyframes_lookup(t, a - 1, &got) == 0 && got.line == 12);
	CHECK(pyframes_lookup(t, pcs[4] - 1, &got) == 0 &&
	      !strcmp(got.qualname, "ab") && !strcmp(got.filename, "c"));
	CHECK(pyframes_lookup(t, pcs[5], &got) == 0 &&
	      !strcmp(got.qualname, "a") && !strcmp(got.filename, "bc"));
	pyframes_free(t);
}

/* The range: non-canonical, apart from the unwinder's 0x4000..., and a
 * PC no frame has is ENOENT. */
static void test_range(void)
{
	struct pyframes *t = pyframes_new(0);
	struct pyframe got;
	uint64_t pc = intern(t, frame("f", "m.py", 1, 2));

	CHECK(pyframes_is_pc(pc) && pyframes_is_pc(pc - 1));
	CHECK(pyframes_is_pc(PYFRAMES_BASE));
	CHECK(!pyframes_is_pc(PYFRAMES_BASE - 1));
	CHECK(!pyframes_is_pc(0x4000000000000000ULL));
	CHECK(!pyframes_is_pc(0x00007fffffffffffULL));
	CHECK(!pyframes_is_pc(0xffffffffff600000ULL)); /* vsyscall */
	CHECK(!pyframes_is_pc(PYFRAMES_BASE +
			      (uint64_t)PYFRAMES_MAX_LIMIT * PYFRAMES_STEP));
	errno = 0;
	CHECK(pyframes_lookup(t, pc + PYFRAMES_STEP, &got) == -1 &&
	      errno == ENOENT);
	errno = 0;
	CHECK(pyframes_lookup(t, 0x401000, &got) == -1 && errno == ENOENT);
	CHECK(pyframes_lookup(t, PYFRAMES_BASE - 1, &got) == -1);
	CHECK(pyframes_lookup(NULL, pc, &got) == -1 && errno == EINVAL);
	CHECK(pyframes_lookup(t, pc, NULL) == -1 && errno == EINVAL);
	pyframes_free(t);
}

/* At most max frames: the frames held keep their PCs, a new one is
 * ENOSPC; names too long or with control bytes are EINVAL. */
static void test_bounds(void)
{
	struct pyframes *t = pyframes_new(3);
	struct pyframe f = frame("f", "m.py", 1, 4);
	char name[PYFRAMES_NAME_MAX + 2];
	uint64_t pc, first;

	first = intern(t, frame("f", "m.py", 1, 1));
	intern(t, frame("f", "m.py", 1, 2));
	intern(t, frame("f", "m.py", 1, 3));
	errno = 0;
	CHECK(pyframes_intern(t, &f, &pc) == -1 && errno == ENOSPC);
	CHECK(pyframes_count(t) == 3);
	CHECK(intern(t, frame("f", "m.py", 1, 1)) == first);
	pyframes_free(t);

	t = pyframes_new(0);
	memset(name, 'a', sizeof(name));
	name[PYFRAMES_NAME_MAX] = '\0';
	f = frame(name, "m.py", 1, 1);
	CHECK(pyframes_intern(t, &f, &pc) == 0);
	name[PYFRAMES_NAME_MAX] = 'a';
	name[PYFRAMES_NAME_MAX + 1] = '\0';
	errno = 0;
	CHECK(pyframes_intern(t, &f, &pc) == -1 && errno == EINVAL);
	f = frame("f\nevil", "m.py", 1, 1);
	CHECK(pyframes_intern(t, &f, &pc) == -1 && errno == EINVAL);
	f = frame("f", "m\x1b.py", 1, 1);
	CHECK(pyframes_intern(t, &f, &pc) == -1 && errno == EINVAL);
	f = frame(NULL, "m.py", 1, 1);
	CHECK(pyframes_intern(t, &f, &pc) == -1 && errno == EINVAL);
	f = frame("f", NULL, 1, 1);
	CHECK(pyframes_intern(t, &f, &pc) == -1 && errno == EINVAL);
	CHECK(pyframes_intern(t, NULL, &pc) == -1 && errno == EINVAL);
	CHECK(pyframes_intern(NULL, &f, &pc) == -1 && errno == EINVAL);
	CHECK(pyframes_count(t) == 1);
	pyframes_free(t);

	errno = 0;
	CHECK(!pyframes_new((size_t)PYFRAMES_MAX_LIMIT + 1) && errno == EINVAL);
	CHECK(pyframes_count(NULL) == 0);
	pyframes_free(NULL);
}

/* Many frames: the table grows, every frame keeps its PC and name. */
static void test_many(void)
{
	enum { N = 20000 };
	struct pyframes *t = pyframes_new(0);
	char q[32], file[32];
	struct pyframe got;
	size_t bad = 0;

	for (unsigned i = 0; i < N; i++) {
		snprintf(q, sizeof(q), "f%u", i % 97);
		snprintf(file, sizeof(file), "m%u.py", i % 13);
		if (intern(t, frame(q, file, i % 7, i)) !=
		    PYFRAMES_BASE + (uint64_t)i * PYFRAMES_STEP + 8)
			bad++;
	}
	CHECK(pyframes_count(t) == N);
	for (unsigned i = 0; i < N; i++) {
		uint64_t pc = PYFRAMES_BASE + (uint64_t)i * PYFRAMES_STEP + 8;

		snprintf(q, sizeof(q), "f%u", i % 97);
		snprintf(file, sizeof(file), "m%u.py", i % 13);
		if (pyframes_lookup(t, pc - (i & 1), &got) ||
		    !same(&got, &(struct pyframe){ q, file, i % 7, i }) ||
		    intern(t, frame(q, file, i % 7, i)) != pc)
			bad++;
	}
	CHECKF(bad == 0, "%zu frames wrong", bad);
	CHECK(pyframes_count(t) == N);
	pyframes_free(t);
}

/* Kernel frames (issue 28): their module is part of the identity, a
 * lookup gives it back, a Python frame's is PYFRAMES_MODULE; a module
 * neither is EINVAL. */
static void test_kernel(void)
{
	struct pyframes *t = pyframes_new(0);
	struct pyframe got, odd = { "f", "", 0, 0, "[jit]" };
	uint64_t py = intern(t, frame("pipe_read", "", 0, 0)), k, k2;

	CHECK(pyframes_intern_kernel(t, "pipe_read", &k) == 0 && k != py);
	CHECK(pyframes_intern_kernel(t, "pipe_read", &k2) == 0 && k2 == k);
	CHECK(pyframes_lookup(t, k - 1, &got) == 0 &&
	      !strcmp(got.module, PYFRAMES_KERNEL_MODULE) &&
	      !strcmp(got.qualname, "pipe_read") && !got.filename[0]);
	CHECK(pyframes_lookup(t, py, &got) == 0 &&
	      !strcmp(got.module, PYFRAMES_MODULE));
	errno = 0;
	CHECK(pyframes_intern(t, &odd, &k2) == -1 && errno == EINVAL);
	CHECK(pyframes_intern_kernel(t, "a\nb", &k2) == -1 && errno == EINVAL);
	CHECK(pyframes_count(t) == 2);
	pyframes_free(t);
}

int main(void)
{
	test_identity();
	test_kernel();
	test_range();
	test_bounds();
	test_many();
	return unit_result("test_pyframes");
}
