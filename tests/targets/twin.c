/*
 * twin - test target built twice, as twin_a and twin_b: two different
 * non-PIE executables with the very same layout, both mapped at
 * 0x400000, whose one work function (twin_a_burn, twin_b_burn) has the
 * same address in both.  A profile of both must name each address
 * after its own program's function (issue 14: locations per image).
 *
 *   twin_X idle    print the address of twin_X_burn, then wait
 *   twin_X MS      print it, then burn MS ms of CPU time in it and exit
 *
 * Exits by itself after 120 s.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target.h"

#define CAT3(a, b, c) a##b##c
#define NAME(t) CAT3(twin_, t, _burn)
#define BURN NAME(TWIN)

volatile uint64_t sink;

NOIPA void BURN(double secs)
{
	double end = now() + secs;
	uint64_t x = 1;

	while (now() < end)
		SPIN(x, 10000);
	sink = x;
}

int main(int argc, char **argv)
{
	alarm(120);
	printf("%#lx\n", (unsigned long)(uintptr_t)&BURN);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "idle")) {
		BURN(atof(argv[1]) / 1000);
		KEEP_FRAME();
		return 0;
	}
	pause();
	return 0;
}
