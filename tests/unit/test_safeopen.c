/*
 * test_safeopen - safeopen_read() opens a regular file for reading and
 * nothing else: a FIFO is refused without waiting for a writer (the test
 * would hang otherwise), a device without its open running (/dev/null's
 * open has no effect, but it is never opened for reading: the descriptor
 * would be), a symbolic link with SAFEOPEN_NOFOLLOW or anywhere under
 * SAFEOPEN_IN_ROOT, another inode than the one asked for, ".." out of the
 * root; all of it with openat2, then again with openat2 refused by a
 * seccomp filter (ENOSYS, as on a kernel before 5.6), which is the
 * component-by-component walk.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "unit.h"
#include "util/safeopen.h"

static char dir[] = "/tmp/ptprof-test-safeopen.XXXXXX";

/* The first byte read from what safeopen_read() gives, or -1 with errno
 * its. */
static int first(int dirfd, const char *path, unsigned flags, uint64_t ino)
{
	char c;
	int fd = safeopen_read(dirfd, path, flags, ino, NULL);

	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = -2;
	close(fd);
	return c;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void checks(const char *how)
{
	char path[512];
	struct stat st;
	int rootfd, fd;

	printf("test_safeopen: %s\n", how);
	snprintf(path, sizeof(path), "%s/root/tmp/file", dir);
	/* a regular file; its O_PATH fstat into st */
	fd = safeopen_read(AT_FDCWD, path, 0, 0, &st);
	CHECK(fd >= 0 && S_ISREG(st.st_mode) && st.st_size == 1);
	if (fd >= 0)
		close(fd);
	CHECK(first(AT_FDCWD, path, 0, (uint64_t)st.st_ino) == 'F');
	errno = 0;
	CHECK(first(AT_FDCWD, path, 0, (uint64_t)st.st_ino + 1) == -1 &&
	      errno == ENOENT);

	/* a FIFO: refused at once (a blocking open would hang here) */
	snprintf(path, sizeof(path), "%s/root/tmp/fifo", dir);
	errno = 0;
	CHECK(first(AT_FDCWD, path, 0, 0) == -1 && errno == EINVAL);
	/* a device */
	errno = 0;
	CHECK(first(AT_FDCWD, "/dev/null", 0, 0) == -1 && errno == EINVAL);
	/* a directory */
	errno = 0;
	CHECK(first(AT_FDCWD, dir, 0, 0) == -1 && errno == EINVAL);

	/* a symbolic link: followed, unless SAFEOPEN_NOFOLLOW */
	snprintf(path, sizeof(path), "%s/root/tmp/link", dir);
	CHECK(first(AT_FDCWD, path, 0, 0) == 'F');
	errno = 0;
	CHECK(first(AT_FDCWD, path, SAFEOPEN_NOFOLLOW, 0) == -1 &&
	      errno == ELOOP);

	/* under a root: the file, never through a link, never out by ".." */
	snprintf(path, sizeof(path), "%s/root", dir);
	rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(rootfd >= 0);
	CHECK(first(rootfd, "tmp/file", SAFEOPEN_IN_ROOT, 0) == 'F');
	CHECK(first(rootfd, "/tmp//./file", SAFEOPEN_IN_ROOT, 0) == 'F');
	errno = 0;
	CHECK(first(rootfd, "tmp/link", SAFEOPEN_IN_ROOT, 0) == -1 &&
	      errno == ELOOP);
	errno = 0;
	CHECK(first(rootfd, "dirlink/file", SAFEOPEN_IN_ROOT, 0) == -1 &&
	      (errno == ELOOP || errno == ENOTDIR));
	CHECK(first(rootfd, "../outside", SAFEOPEN_IN_ROOT, 0) == -1);
	CHECK(first(rootfd, "tmp/fifo", SAFEOPEN_IN_ROOT, 0) == -1);
	errno = 0;
	CHECK(first(rootfd, "tmp/none", SAFEOPEN_IN_ROOT, 0) == -1 &&
	      errno == ENOENT);
	CHECK(first(rootfd, "", SAFEOPEN_IN_ROOT, 0) == -1);
	close(rootfd);
}

/* openat2 fails with ENOSYS from now on, as on Linux before 5.6. */
static int no_openat2(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(void)
{
	char path[512], cmd[1024];

	if (!mkdtemp(dir))
		return 99;
	snprintf(path, sizeof(path), "%s/root/tmp", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	if (system(cmd))
		return 99;
	snprintf(path, sizeof(path), "%s/root/tmp/file", dir);
	put(path, "F");
	snprintf(path, sizeof(path), "%s/outside", dir);
	put(path, "O");
	snprintf(path, sizeof(path), "%s/root/tmp/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0);
	snprintf(path, sizeof(path), "%s/root/tmp/link", dir);
	CHECK(symlink("file", path) == 0);
	snprintf(path, sizeof(path), "%s/root/dirlink", dir);
	CHECK(symlink("tmp", path) == 0);

	checks("with openat2");
	if (no_openat2() == 0)
		checks("without openat2 (the walk)");
	else
		printf("test_safeopen: no seccomp filter: the walk untested\n");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return 99;
	return unit_result("test_safeopen");
}
