/*
 * test_vmread - a stretch of a process's memory, all or fail (vmread.h):
 * read whole from our own process, a stretch running into an unmapped
 * page refused with EFAULT (no partial success), an unmapped address
 * refused, a process that is gone refused with ESRCH.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/vmread.h"
#include "unit.h"

static void check_whole(void)
{
	static const char src[] = "all of it, or nothing";
	char buf[sizeof(src)] = { 0 };

	CHECK(vmread_all(getpid(), (uintptr_t)src, buf, sizeof(buf)) == 0);
	CHECK(!memcmp(buf, src, sizeof(src)));
	CHECK(vmread_all(getpid(), (uintptr_t)src, buf, 0) == 0);
}

/* Two pages, the second unmapped: a read across the end is short. */
static void check_short(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char buf[64];

	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	CHECK(munmap(m + pg, (size_t)pg) == 0);
	memset(m, 'x', (size_t)pg);
	errno = 0;
	CHECK(vmread_all(getpid(), (uintptr_t)(m + pg - 16), buf,
			 sizeof(buf)) == -1 &&
	      errno == EFAULT);
	errno = 0;
	CHECK(vmread_all(getpid(), (uintptr_t)(m + pg), buf, sizeof(buf)) ==
		      -1 &&
	      errno == EFAULT);
	CHECK(vmread_all(getpid(), (uintptr_t)(m + pg - 16), buf, 16) == 0);
	munmap(m, (size_t)pg);
}

static void check_gone(void)
{
	pid_t pid = fork();
	char buf[8];

	CHECK(pid >= 0);
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return;
	waitpid(pid, NULL, 0);
	errno = 0;
	CHECK(vmread_all(pid, (uintptr_t)buf, buf, sizeof(buf)) == -1 &&
	      errno == ESRCH);
}

int main(void)
{
	check_whole();
	check_short();
	check_gone();
	return unit_result("test_vmread");
}
