/*
 * truncator - a target that truncates a library it runs (issue 12, 4).
 *
 *   truncator GOFILE LIB
 *
 * Prints "ready", waits (at most 20 s) until GOFILE exists, dlopen()s
 * LIB (a copy of libcbspin.so the test made, which this process may
 * write) and calls its cbspin_run(): about 1 s of CPU in the library,
 * then, with the library's frame still on the stack, the callback
 * cut_and_spin() truncates LIB to 0 bytes, prints "truncated", burns
 * about 3 s of CPU in after_cut() (a function of its own), prints "done"
 * and leaves with _exit(0).  It never returns into the library: its
 * pages are gone with the file's end, and running them would raise
 * SIGBUS in this process.  Exit 2 when LIB cannot be loaded or cut.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "../../targets/target.h"

typedef void (*run_fn)(double, void (*)(void));

static const char *lib;
volatile uint64_t sink;

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

NOIPA void after_cut(double secs)
{
	double rounds = secs * SPINS_PER_SEC / 50000, wall_end = now() + 30;
	uint64_t x = sink;

	for (; rounds > 0 && now() < wall_end; rounds--)
		SPIN(x, 50000u);
	sink = x;
	KEEP_FRAME();
}

NOIPA void cut_and_spin(void)
{
	if (truncate(lib, 0)) {
		perror("truncate");
		_exit(2);
	}
	printf("truncated\n");
	fflush(stdout);
	after_cut(3.0);
	printf("done\n");
	fflush(stdout);
	_exit(0);
}

int main(int argc, char **argv)
{
	void *h;
	run_fn run;
	int i;

	if (argc != 3) {
		fprintf(stderr, "usage: truncator GOFILE LIB\n");
		return 2;
	}
	lib = argv[2];
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < 2000 && access(argv[1], F_OK); i++)
		nap(10);
	h = dlopen(lib, RTLD_NOW);
	run = h ? (run_fn)dlsym(h, "cbspin_run") : NULL;
	if (!run) {
		fprintf(stderr, "truncator: %s\n", dlerror());
		return 2;
	}
	run(1.0, cut_and_spin);
	return 2; /* not reached */
}
