/*
 * fakepy - test target: a process whose CPython symbols lie.  It exports
 * (in .dynsym, linked -rdynamic) _PyRuntime, a block of 64 KiB whose
 * every word points back into itself, Py_Version saying 3.11.2, and an
 * _PyEval_EvalFrameDefault that burns CPU, as a CPython would have them.
 * ptprof must read what it can, refuse the runtime with one warning and
 * give the native stacks (tests/python-frames.test).
 *
 *   fakepy [SECONDS]   burn SECONDS (default 30), exit 0; prints "ready"
 *                      once the runtime is filled in.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "target.h"

#define WORDS 8192

uint64_t _PyRuntime[WORDS] __attribute__((aligned(64)));
const uint32_t Py_Version = 0x030b02f0;
volatile uint64_t sink;

NOIPA void _PyEval_EvalFrameDefault(double end_time)
{
	uint64_t x = sink;

	while (now() < end_time) {
		SPIN(x, 20000u);
		sink = x;
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 30;

	/* Every word a pointer into the block: each list, each frame chain
	 * read from it leads back into it, at every offset. */
	for (size_t i = 0; i < WORDS; i++)
		_PyRuntime[i] =
			(uint64_t)(uintptr_t)&_PyRuntime[(i * 7 + 3) % WORDS];
	printf("ready\n");
	fflush(stdout);
	_PyEval_EvalFrameDefault(now() + secs);
	return 0;
}
