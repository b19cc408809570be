/*
 * test_fsguard - which filesystems are of the blocking kind; a local file
 * of this process is not gated, an unknown device (0) is, a profile's
 * (pid 0) never; a gated open comes as a memfd copy of the very bytes,
 * and a helper's error comes back as its errno.  (A server that stops
 * answering: tests/chaos/fuse-hang.test.)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/fsguard.h"
#include "proc/mapfile.h"
#include "util/safeopen.h"
#include "unit.h"

static int open_self(const char *root, pid_t pid, const struct mapfile_ref *r)
{
	(void)root;
	(void)pid;
	return safeopen_read(AT_FDCWD, r->path, 0, r->ino, NULL);
}

int main(void)
{
	struct mapfile_ref ref = { "/proc/self/exe", 0, 0, 0, 0 };
	char a[4096], b[4096];
	struct stat st;
	ssize_t n;
	int fd, fd2;

	CHECK(fsguard_type_blocks("fuse") && fsguard_type_blocks("fuse.sshfs"));
	CHECK(fsguard_type_blocks("fuseblk") && fsguard_type_blocks("nfs4"));
	CHECK(fsguard_type_blocks("9p") && fsguard_type_blocks("cifs"));
	CHECK(!fsguard_type_blocks("ext4") && !fsguard_type_blocks("tmpfs"));
	CHECK(!fsguard_type_blocks("fusectlx") &&
	      !fsguard_type_blocks("overlay"));
	CHECK(fsguard_gated(getpid(), 0)); /* not known: gated */
	CHECK(!fsguard_gated(0, 0));	   /* a profile's: never */
	CHECK(stat("/proc/self/exe", &st) == 0);
	/* this test's own file, on the build's filesystem (ext4, overlay...) */
	CHECKF(!fsguard_gated(getpid(), (uint64_t)st.st_dev),
	       "device %llu of this test's file is gated",
	       (unsigned long long)st.st_dev);
	ref.ino = (uint64_t)st.st_ino;
	fd = fsguard_open(NULL, getpid(), &ref, open_self);
	fd2 = open("/proc/self/exe", O_RDONLY);
	CHECK(fd >= 0 && fd2 >= 0);
	n = fd >= 0 ? read(fd, a, sizeof(a)) : -1;
	CHECK(n > 0 && read(fd2, b, sizeof(b)) == n &&
	      !memcmp(a, b, (size_t)n));
	CHECK(fd < 0 || (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)));
	close(fd);
	close(fd2);
	ref.path = "/nonexistent/ptprof-fsguard";
	ref.ino = 0;
	errno = 0;
	CHECK(fsguard_open(NULL, getpid(), &ref, open_self) < 0 &&
	      errno == ENOENT);
	CHECK(fsguard_hung_get(0) == NULL);
	return unit_result("test_fsguard");
}
