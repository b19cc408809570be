/*
 * flame.c - SVG flame graphs (see flame.h).  Not written yet: this
 * placeholder only keeps the build whole while it is.
 */
#include "config.h"

#include <errno.h>

#include "flame.h"

int flame_write_svg(FILE *out, const struct flame_stack *stacks, size_t n,
		    const struct flame_options *opt)
{
	(void)out;
	(void)stacks;
	(void)n;
	(void)opt;
	errno = ENOSYS;
	return -1;
}
