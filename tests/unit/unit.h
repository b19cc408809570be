/*
 * unit.h - minimal assertions for ptprof's C unit tests.
 *
 * CHECK(cond) reports the failing expression with its line and counts it;
 * CHECKF(cond, fmt, ...) does the same and adds a printf-style message,
 * whose arguments are evaluated only when cond is false.  A test's main()
 * returns unit_result(), 0 only if every check passed, which automake's
 * harness reads as PASS.  A test of several files has one main(); each
 * other file exports its checks as test_<module>_<part>(void), declared
 * in the file with main().
 */
#ifndef PTPROF_UNIT_H
#define PTPROF_UNIT_H

#include <stdarg.h>
#include <stdio.h>

/* One count a program, whichever of its files checks: a test of several
 * sources (tests/unit.mk: test_pprof_out) has one main() whose
 * unit_result() counts them all.  Weak: each file defines them, the
 * linker keeps one (static, they would be one count a file). */
extern int unit_failures, unit_checks;
__attribute__((weak)) int unit_failures;
__attribute__((weak)) int unit_checks;

#define CHECK(cond)                                                            \
	do {                                                                   \
		unit_checks++;                                                 \
		if (!(cond)) {                                                 \
			unit_failures++;                                       \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
		}                                                              \
	} while (0)

/* The format is the first of the variadic arguments: CHECKF(c, "x") works. */
#define CHECKF(cond, ...)                                                   \
	do {                                                                \
		unit_checks++;                                              \
		if (!(cond))                                                \
			unit_failf(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

static inline void unit_failf(const char *file, int line, const char *expr,
			      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static inline void unit_failf(const char *file, int line, const char *expr,
			      const char *fmt, ...)
{
	va_list ap;

	unit_failures++;
	fprintf(stderr, "%s:%d: check failed: %s: ", file, line, expr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static inline int unit_result(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}

#endif /* PTPROF_UNIT_H */
