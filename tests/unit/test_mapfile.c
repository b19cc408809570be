/*
 * test_mapfile - which file mapfile_open() picks for a maps line: ROOT/path
 * when it is the maps inode, else path itself when that is, else ROOT/path
 * anyway; a deleted path only through /proc/PID/map_files, checked on a
 * deleted file this test maps itself (when map_files is allowed: root).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/mapfile.h"
#include "unit.h"

static char dir[] = "/tmp/ptprof-test-mapfile.XXXXXX";
static char root[256], inroot[512], onhost[256];

static uint64_t ino_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

/* The first byte of the file mapfile_open() gives, or -1. */
static int pick(const char *r, pid_t pid, const struct mapfile_ref *ref)
{
	char c;
	int fd = mapfile_open(r, pid, ref);

	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = -1;
	close(fd);
	return c;
}

static void put(const char *path, char c)
{
	FILE *f = fopen(path, "w");

	CHECKF(f && fputc(c, f) == c && fclose(f) == 0, "cannot write %s",
	       path);
}

/* A deleted file mapped by this process is reached through map_files. */
static void deleted(void)
{
	char path[512], line[600];
	struct mapfile_ref ref = { line, 0, 0, 0 };
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/gone", dir);
	put(path, 'G');
	fd = open(path, O_RDONLY);
	p = fd >= 0 ? mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE, fd, 0) :
		      MAP_FAILED;
	if (fd >= 0)
		close(fd);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	ref.ino = ino_of(path);
	ref.start = (uintptr_t)p;
	ref.end = (uintptr_t)p + (uintptr_t)page;
	unlink(path);
	snprintf(line, sizeof(line), "%s (deleted)", path);
	CHECK(pick(NULL, 0, &ref) == -1); /* no live PID: no way to it */
	errno = 0;
	fd = mapfile_open(NULL, getpid(), &ref);
	if (fd < 0 && errno == EPERM)
		printf("test_mapfile: map_files not allowed (not root): "
		       "deleted files not checked\n");
	else
		CHECK(pick(NULL, getpid(), &ref) == 'G');
	if (fd >= 0)
		close(fd);
	munmap(p, (size_t)page);
}

int main(void)
{
	struct mapfile_ref ref = { onhost, 0, 0, 0 };
	char cmd[600];

	CHECK(mkdtemp(dir) != NULL);
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(onhost, sizeof(onhost), "%s/lib.so", dir);
	snprintf(inroot, sizeof(inroot), "%s%s", root, onhost);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s%s'", root, dir);
	CHECK(system(cmd) == 0);
	put(onhost, 'H');
	put(inroot, 'R');

	ref.ino = ino_of(inroot);
	CHECK(pick(root, 0, &ref) == 'R'); /* a container's file */
	ref.ino = ino_of(onhost);
	CHECK(pick(root, 0, &ref) == 'H'); /* a chroot's, by its host path */
	CHECK(pick(NULL, 0, &ref) == 'H');
	ref.ino = ino_of(onhost) + ino_of(inroot); /* neither: a copy */
	CHECK(pick(root, 0, &ref) == 'R');
	ref.ino = 0; /* not known */
	CHECK(pick(root, 0, &ref) == 'R');
	CHECK(pick(NULL, 0, &ref) == 'H');
	unlink(inroot);
	ref.ino = ino_of(onhost) + 1;
	CHECK(pick(root, 0, &ref) == -1); /* no ROOT/path: not the host's */
	/* A link the target put at the path, to a host file by an absolute
	 * path: resolved in ROOT it names nothing, and no link is followed. */
	CHECK(symlink(onhost, inroot) == 0);
	ref.ino = 0;
	CHECK(pick(root, 0, &ref) == -1);
	unlink(inroot);

	deleted();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	return unit_result("test_mapfile");
}
