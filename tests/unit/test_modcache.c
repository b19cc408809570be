/*
 * test_modcache - module images are copies of a file's headers and unwind
 * tables (issue 12, item 4): a copy of this test's own executable is
 * loaded as the module of a made-up mapping (found through this process's
 * root by its path and inode, mapfile.h), cut to 0 bytes afterwards and
 * still read; the same file extended to a sparse sixteen times its size,
 * or empty, gives no module.
 */
#include "config.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/maps.h"
#include "unit.h"
#include "unwind/modcache.h"

static char dir[] = "/tmp/test_modcache.XXXXXX";

/* A copy of /proc/self/exe at dir/name; its size into *size, or 0. */
static int copy_self(const char *name, char *path, size_t len, off_t *size)
{
	char buf[65536];
	int in = open("/proc/self/exe", O_RDONLY), out;
	ssize_t n;

	snprintf(path, len, "%s/%s", dir, name);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	*size = 0;
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		*size += write(out, buf, (size_t)n);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in >= 0 && out >= 0 ? 0 : -1;
}

/* The module of a mapping of path (as its inode is now). */
static const struct module *get(struct modcache *c, const char *path)
{
	struct map_entry e = { 0 };
	struct stat st;

	if (stat(path, &st))
		return NULL;
	e.start = 0x10000000;
	e.end = 0x10001000;
	e.ino = (uint64_t)st.st_ino;
	e.dev = (uint64_t)st.st_dev; /* its filesystem: judged by fsguard.h */
	e.read = e.exec = true;
	e.path = path;
	return modcache_get(c, &e, getpid());
}

int main(void)
{
	struct modcache *c = modcache_new(getpid());
	const struct module *m;
	char path[256];
	const uint8_t *p;
	unsigned long sum = 0;
	off_t size;

	CHECK(c && mkdtemp(dir));
	CHECK(copy_self("exe", path, sizeof(path), &size) == 0 && size > 0);
	m = get(c, path);
	CHECKF(m && m->nparts == 2, "module of %s: %zu parts", path,
	       m ? m->nparts : 0);
	if (m) {
		CHECK(modcache_bytes(m, 0, 4) &&
		      !memcmp(modcache_bytes(m, 0, 4), ELFMAG, SELFMAG));
		CHECKF(m->part[1].len < (size_t)size,
		       "tables part %zu bytes of a %lld-byte file",
		       m->part[1].len, (long long)size);
		CHECK(modcache_bytes(m, m->part[1].off, m->part[1].len));
		CHECK(!modcache_bytes(m, m->part[1].off, m->part[1].len + 1));
	}
	/* the owner cuts the file: what was copied stays readable (a
	 * mapped page past the new end would raise SIGBUS here) */
	CHECK(truncate(path, 0) == 0);
	if (m) {
		p = modcache_bytes(m, m->part[1].off, m->part[1].len);
		for (size_t i = 0; p && i < m->part[1].len; i++)
			sum += p[i];
		CHECK(p && sum > 0);
	}
	CHECK(get(c, path) == m); /* same path: the copy is kept */
	modcache_flush(c);
	CHECK(!get(c, path)); /* empty now */
	unlink(path);

	CHECK(copy_self("sparse", path, sizeof(path), &size) == 0);
	CHECK(truncate(path, size * 16) == 0);
	CHECK(!get(c, path));
	unlink(path);
	modcache_free(c);
	rmdir(dir);
	return unit_result("test_modcache");
}
