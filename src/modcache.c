/*
 * modcache.c - cached read-only module images (see modcache.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hash.h"
#include "mapfile.h"
#include "modcache.h"

#define NBUCKETS 256
#define VDSO_MAX (64 * 1024)

struct modcache {
	pid_t pid;
	struct module *bucket[NBUCKETS];
};

struct modcache *modcache_new(pid_t pid)
{
	struct modcache *c = calloc(1, sizeof(*c));

	if (c)
		c->pid = pid;
	return c;
}

static void module_free(struct module *m)
{
	if (m->image && m->mmapped)
		munmap((void *)m->image, m->size);
	else
		free((void *)m->image);
	free(m->key);
	free(m);
}

void modcache_flush(struct modcache *c)
{
	for (size_t i = 0; i < NBUCKETS; i++) {
		while (c->bucket[i]) {
			struct module *m = c->bucket[i];

			c->bucket[i] = m->next_;
			module_free(m);
		}
	}
}

void modcache_free(struct modcache *c)
{
	if (!c)
		return;
	modcache_flush(c);
	free(c);
}

static unsigned hash_key(const char *s)
{
	return (unsigned)(hash_mix64(hash_fnv1a_str(s)) & (NBUCKETS - 1));
}

static int map_file(int fd, struct module *m)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return -1;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	m->image = p;
	m->size = (size_t)st.st_size;
	m->mmapped = 1;
	return 0;
}

/* Whether the root of thread tid of pid resolves; its path into buf. */
static bool thread_root(pid_t pid, pid_t tid, char *buf, size_t len)
{
	int dfd;

	snprintf(buf, len, "/proc/%d/task/%d/root", (int)pid, (int)tid);
	dfd = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return false;
	close(dfd);
	return true;
}

/*
 * The root of a live thread of pid into buf: tid's, else the first one
 * listed whose root resolves, else tid's anyway (which then finds
 * nothing).  Not /proc/PID/root alone: once the leader has left with
 * pthread_exit() it is a zombie whose fs_struct is gone, and
 * /proc/PID/root no longer resolves while the other threads run on.  tid
 * itself may have exited since it was captured (the leader, captured
 * inside pthread_exit(), which dlopens libgcc_s just before).
 */
static void live_root(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];
	struct dirent *de;
	bool ok = thread_root(pid, tid, buf, len);
	DIR *dir;

	if (ok)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	while (dir && !ok && (de = readdir(dir)))
		if (de->d_name[0] != '.')
			ok = thread_root(pid, (pid_t)atoi(de->d_name), buf, len);
	if (dir)
		closedir(dir);
	if (!ok)
		thread_root(pid, tid, buf, len);
}

/*
 * Open the file of mapping e as the target sees it (mapfile.h): through a
 * thread's root (mount namespaces), by its path on the host if that is
 * the mapped inode (chroots), or through the map_files link, which still
 * reaches a file deleted since it was mapped (but not once the leader is
 * a zombie: it needs the leader's mm).
 */
static void load_file(struct modcache *c, const struct map_entry *e,
		      pid_t tid, struct module *m)
{
	struct mapfile_ref ref = { e->path, e->start, e->end, e->ino };
	char root[64];
	int fd;

	live_root(c->pid, tid ? tid : c->pid, root, sizeof(root));
	fd = mapfile_open(root, c->pid, &ref);
	if (fd < 0)
		return;
	map_file(fd, m);
	close(fd);
}

static void load_vdso(const struct map_entry *e, pid_t tid, struct module *m)
{
	size_t len = e->end - e->start;
	struct iovec local, remote;
	uint8_t *buf;

	if (len > VDSO_MAX)
		return;
	buf = malloc(len);
	if (!buf)
		return;
	local = (struct iovec){ buf, len };
	remote = (struct iovec){ (void *)(uintptr_t)e->start, len };
	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != (ssize_t)len) {
		free(buf);
		return;
	}
	m->image = buf;
	m->size = len;
}

const struct module *modcache_get(struct modcache *c, const struct map_entry *e,
				  pid_t tid)
{
	bool vdso = !strcmp(e->path, "[vdso]");
	const char *key = e->path;
	struct module *m;
	unsigned h;

	if (!vdso && !maps_entry_is_file(e))
		return NULL;
	h = hash_key(key);
	for (m = c->bucket[h]; m; m = m->next_)
		if (!strcmp(m->key, key))
			return m->image ? m : NULL;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->key = strdup(key))) {
		free(m);
		return NULL;
	}
	if (vdso)
		load_vdso(e, tid, m);
	else
		load_file(c, e, tid, m);
	m->next_ = c->bucket[h];
	c->bucket[h] = m;
	return m->image ? m : NULL;
}

int modcache_read(const struct module *mod, const struct map_entry *e,
		uint64_t addr, void *buf, size_t len)
{
	uint64_t off;

	if (addr < e->start || addr + len > e->end || addr + len < addr)
		return -1;
	off = e->offset + (addr - e->start);
	if (off + len > mod->size || off + len < off)
		return -1;
	memcpy(buf, mod->image + off, len);
	return 0;
}
