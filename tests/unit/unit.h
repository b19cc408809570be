/*
 * unit.h - minimal assertions for ptprof's C unit tests.
 *
 * CHECK() reports the failing expression with its line and counts it;
 * a test's main() returns unit_result(), 0 only if every check passed,
 * which automake's harness reads as PASS.
 */
#ifndef PTPROF_UNIT_H
#define PTPROF_UNIT_H

#include <stdio.h>

static int unit_failures;
static int unit_checks;

#define CHECK(cond)                                                          \
	do {                                                                 \
		unit_checks++;                                               \
		if (!(cond)) {                                               \
			unit_failures++;                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n",         \
				__FILE__, __LINE__, #cond);                  \
		}                                                            \
	} while (0)

static inline int unit_result(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}

#endif /* PTPROF_UNIT_H */
