/*
 * mangled - test target: C functions under C++ (Itanium ABI) symbol
 * names, so a C-only test suite can check demangling:
 *
 *   main -> _ZN2ns6Worker3runEi   (ns::Worker::run(int))
 *        -> _ZN2ns4spinIiEEvT_    (void ns::spin<int>(int))
 *
 *   mangled [SECONDS]   print "ready", burn CPU for SECONDS (default 30),
 *                       exit 0.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "target.h"

volatile uint64_t sink;

NOIPA void spin(int n) __asm__("_ZN2ns4spinIiEEvT_");
NOIPA void run(int n) __asm__("_ZN2ns6Worker3runEi");

NOIPA void spin(int n)
{
	uint64_t x = sink;

	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
	KEEP_FRAME();
}

NOIPA void run(int n)
{
	spin(n);
	KEEP_FRAME();
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 30);

	puts("ready");
	fflush(stdout);
	while (now() < end)
		run(50000);
	return 0;
}
