/*
 * vmread.c - a stretch of a target's memory, all or fail (see vmread.h).
 */
#include "config.h"

#include <errno.h>
#include <sys/uio.h>

#include "proc/vmread.h"

int vmread_all(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (got == (ssize_t)len)
		return 0;
	if (got >= 0)
		errno = EFAULT; /* short: the rest is not mapped */
	return -1;
}
