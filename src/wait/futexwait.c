/*
 * futexwait.c - which glibc object a futex wait is on (futexwait.h).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "wait/futexwait.h"

int futexwait_decode(const struct futexwait_in *in, struct wait_info *out)
{
	out->kind = WAIT_FUTEX;
	out->addr = in->uaddr;
	snprintf(out->text, sizeof(out->text), "futex at 0x%" PRIx64,
		 in->uaddr);
	return 0;
}
