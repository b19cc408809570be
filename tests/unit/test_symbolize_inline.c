/*
 * test_symbolize_inline - symbolizer_lookup_inline() on this very
 * process: inl_outer() (noinline) has inl_mid() inlined into it, and
 * inl_mid() has inl_inner(), both always_inline, so two inlined frames
 * hold the call of probe() in inl_inner(); probe() records its return
 * address, whose PC-1 is in that call.  The lines each call is on are
 * recorded on the call's own line (__LINE__).  The unit is built -O2
 * (tests/unit.mk); always_inline inlines at any -O.
 * Exit 0 when every check passes, 1 otherwise (each failure is printed).
 *
 * Covers: symbolize_dwarf (inlined frames: names, order, lines, the cut
 * at max, the cache, an address in no inlined code).
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/procfs.h"
#include "symbols/symbolize.h"
#include "unit.h"

static volatile unsigned line_probe, line_inner, line_mid, line_direct;
static uintptr_t ret_inlined, ret_direct;

__attribute__((noinline, noclone)) static void probe(uintptr_t *to)
{
	*to = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static inline __attribute__((always_inline)) void inl_inner(int x)
{
	if (x)
		line_probe = __LINE__, probe(&ret_inlined);
}

static inline __attribute__((always_inline)) void inl_mid(int x)
{
	if (x > 0)
		line_inner = __LINE__, inl_inner(x);
}

__attribute__((noinline, noclone)) static void inl_outer(int x)
{
	line_mid = __LINE__, inl_mid(x);
	line_direct = __LINE__, probe(&ret_direct);
}

static void (*volatile outer_ptr)(int) = inl_outer;

static const char *base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path ? path : "(null)";
}

static bool is_here(const char *file)
{
	return file && !strcmp(base_name(file), "test_symbolize_inline.c");
}

static void test_chain(struct symbolizer *s)
{
	struct symbol_frame fr[SYMBOLIZE_MAX_INLINE], again[2];
	struct symbol_info si;
	const char *of = NULL;
	unsigned ol = 0;
	size_t n;

	CHECK(symbolizer_lookup(s, ret_inlined - 1, &si) == 0);
	CHECKF(si.func && !strcmp(si.func, "inl_outer"), "outer is %s",
	       si.func ? si.func : "(null)");
	n = symbolizer_lookup_inline(s, ret_inlined - 1, fr,
				     SYMBOLIZE_MAX_INLINE, &of, &ol);
	CHECKF(n == 2, "%zu inlined frames", n);
	if (n != 2)
		return;
	CHECKF(fr[0].func && !strcmp(fr[0].func, "inl_inner"), "[0] %s",
	       fr[0].func ? fr[0].func : "(null)");
	CHECKF(fr[0].line == line_probe, "[0] line %u, not %u", fr[0].line,
	       line_probe);
	CHECK(is_here(fr[0].file));
	CHECKF(fr[1].func && !strcmp(fr[1].func, "inl_mid"), "[1] %s",
	       fr[1].func ? fr[1].func : "(null)");
	CHECKF(fr[1].line == line_inner, "[1] line %u, not %u", fr[1].line,
	       line_inner);
	CHECK(is_here(fr[1].file));
	CHECKF(ol == line_mid, "outer line %u, not %u", ol, line_mid);
	CHECK(is_here(of));

	/* max 1: the innermost kept; the answer is the cached one */
	of = NULL;
	ol = 0;
	n = symbolizer_lookup_inline(s, ret_inlined - 1, again, 1, &of, &ol);
	CHECK(n == 1);
	CHECK(again[0].func == fr[0].func && again[0].line == fr[0].line);
	CHECK(ol == line_mid);

	/* a call of outer's own: no inlined frames, outputs untouched */
	of = "untouched";
	ol = 7;
	n = symbolizer_lookup_inline(s, ret_direct - 1, fr,
				     SYMBOLIZE_MAX_INLINE, &of, &ol);
	CHECKF(n == 0, "%zu inlined frames at the direct call", n);
	CHECK(ol == 7 && !strcmp(of, "untouched"));

	/* no frames, no room, no symbolizer: 0 */
	CHECK(symbolizer_lookup_inline(s, ret_inlined - 1, fr, 0, NULL, NULL) ==
	      0);
	CHECK(symbolizer_lookup_inline(s, ret_inlined - 1, NULL, 4, NULL,
				       NULL) == 0);
	CHECK(symbolizer_lookup_inline(NULL, ret_inlined - 1, fr, 4, NULL,
				       NULL) == 0);
	/* an address in no mapping */
	CHECK(symbolizer_lookup_inline(s, 16, fr, 4, &of, &ol) == 0);
}

int main(void)
{
	struct symbolizer *s;
	char *maps = NULL;
	size_t len = 0;

	outer_ptr(1);
	CHECK(ret_inlined && ret_direct);
	CHECK(line_probe && line_inner && line_mid && line_direct);
	if (procfs_read_maps(getpid(), 0, &maps, &len)) {
		fprintf(stderr, "cannot read /proc/self/maps\n");
		return 1;
	}
	s = symbolizer_new(maps, len, NULL, getpid());
	CHECK(s != NULL);
	if (s)
		test_chain(s);
	symbolizer_free(s);
	free(maps);
	return unit_result("test_symbolize_inline");
}
