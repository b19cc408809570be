/*
 * capture.c - take what a stopped thread must give up (see capture.h).
 */
#include "config.h"

#include "capture.h"
#include "ptctl.h"

int capture_thread(pid_t tid, struct capture *out)
{
	out->tid = tid;
	return ptctl_getregs(tid, &out->regs);
}
