/*
 * dlcloser - a target that spends its time in a library it then unloads.
 *
 *   dlcloser GOFILE LIB [LIB2]
 *
 * Prints "ready", waits (at most 20 s) until GOFILE exists, then:
 *   1. dlopen()s LIB (a path), prints "loaded" and burns CPU in it for about
 *      1.5 s, or $DLCLOSER_BURN seconds (dlburn_run, dlburn.c: leaf
 *      dlburn_spin), called from in_library;
 *   2. dlclose()s it, and checks that /proc/self/maps no longer lists
 *      LIB: prints "unloaded", or "still mapped" and exits 3;
 *   3. with LIB2, dlopen()s that and burns in it the same way (a
 *      second library, likely at the address range the first one left);
 *   4. burns CPU for 0.5 s in after_unload, a function of its own;
 *   5. prints "closed" and idles (sleeps) for 30 s, then exits 0.
 * The test profiles all of it and ends ptprof during step 5, so the last
 * maps snapshot ptprof reads no longer has LIB.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

typedef unsigned long (*run_fn)(double);

volatile uint64_t sink;

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int wait_for_file(const char *path)
{
	for (int i = 0; i < 2000; i++) {
		if (access(path, F_OK) == 0)
			return 0;
		nap(10);
	}
	return -1;
}

NOIPA unsigned long in_library(run_fn run, double secs)
{
	unsigned long r = run(secs);

	KEEP_FRAME();
	return r;
}

NOIPA void after_unload(double secs)
{
	double rounds = secs * SPINS_PER_SEC / 50000, wall_end = now() + 30;
	uint64_t x = sink;

	for (; rounds > 0 && now() < wall_end; rounds--)
		SPIN(x, 50000u);
	sink = x;
	KEEP_FRAME();
}

/* Whether /proc/self/maps has a line ending in path. */
static int mapped(const char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	size_t pl = strlen(path);
	char line[4352];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t l = strcspn(line, "\n");

		found = l >= pl && !memcmp(line + l - pl, path, pl);
	}
	fclose(f);
	return found;
}

static double burn_secs(void)
{
	const char *e = getenv("DLCLOSER_BURN");

	return e ? strtod(e, NULL) : 1.5;
}

/* dlopen lib, burn in it, dlclose it; 0, or an exit status. */
static int burn_in(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	run_fn run;

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	run = (run_fn)(uintptr_t)dlsym(h, "dlburn_run");
	if (!run) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		return 2;
	}
	printf("loaded\n");
	fflush(stdout);
	printf("%s: %lu rounds\n", lib, in_library(run, burn_secs()));
	if (dlclose(h)) {
		fprintf(stderr, "dlclose: %s\n", dlerror());
		return 2;
	}
	if (mapped(lib)) {
		printf("still mapped\n");
		return 3;
	}
	printf("unloaded\n");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 3 || argv[2][0] != '/') {
		fprintf(stderr, "usage: dlcloser GOFILE /LIB [/LIB2]\n");
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	if (wait_for_file(argv[1])) {
		fprintf(stderr, "%s never appeared\n", argv[1]);
		return 2;
	}
	if ((rc = burn_in(argv[2])) != 0)
		return rc;
	if (argc > 3 && (rc = burn_in(argv[3])) != 0)
		return rc;
	after_unload(0.5);
	printf("closed\n");
	fflush(stdout);
	for (int i = 0; i < 300; i++)
		nap(100);
	return 0;
}
