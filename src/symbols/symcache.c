/*
 * symcache.c - the files a symbolizer reads: one struct sym_file per path
 * of an executable mapping, owned by the symbolizer, or shared by several
 * through a symcache (symbolize.h) when they are the same file.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <elfutils/libdw.h>

#include "elf/debugfile.h"
#include "symbols/fdetab.h"
#include "symbols/gopclntab.h"
#include "symbols/symbolize_int.h"
#include "util/grow.h"
#include "util/strpool.h"

/*
 * True when path has a ".." component.  The kernel writes maps paths
 * canonical, so only a forged maps text has one, and with a root it could
 * climb out of that root.
 */
static bool has_dotdot(const char *path)
{
	const char *p = path;

	while ((p = strstr(p, "..")) != NULL) {
		if ((p == path || p[-1] == '/') &&
		    (p[2] == '\0' || p[2] == '/'))
			return true;
		p += 2;
	}
	return false;
}

struct sym_file *symcache_file_new(const struct map_entry *e, const char *path)
{
	struct sym_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->path = path;
	f->loadable = path[0] == '/' && !has_dotdot(path);
	if (e->build_id && !(f->build_id = strdup(e->build_id))) {
		free(f);
		return NULL;
	}
	f->start = e->start;
	f->end = e->end;
	f->ino = e->ino;
	f->dev = e->dev;
	return f;
}

/*
 * The cache's file for e seen under root: the same when the root, the
 * path and the build ID (or, without one, the inode) are, which is the
 * same file (symbolize.h).  The key gives each part's length first, so
 * no path or root can pass for another's.
 */
struct sym_file *symcache_file(struct symcache *c, const char *root,
			       const struct map_entry *e)
{
	char ino[24], *key;
	const char *id = e->build_id ? e->build_id : ino;
	struct sym_file *f, **files;
	int64_t i, pi;
	size_t len;

	snprintf(ino, sizeof(ino), "%llu", (unsigned long long)e->ino);
	len = strlen(id) + strlen(root) + strlen(e->path) + 3 * 24;
	key = malloc(len);
	if (!key)
		return NULL;
	snprintf(key, len, "%zu:%s%zu:%s%zu:%s", strlen(id), id, strlen(root),
		 root, strlen(e->path), e->path);
	i = strpool_intern(c->keys, key);
	free(key);
	if (i < 1)
		return NULL;
	if ((size_t)i <= c->nfiles)
		return c->files[i - 1];
	files = grow_array(c->files, &c->files_cap, c->nfiles + 1,
			   sizeof(*files));
	pi = strpool_intern(c->paths, e->path);
	if (!files || pi < 1)
		return NULL;
	c->files = files;
	f = symcache_file_new(e, strpool_get(c->paths, (size_t)pi));
	if (f)
		c->files[c->nfiles++] = f;
	return f;
}

/*
 * The root's identity in the cache: its directory's device and inode, so
 * that processes under one root (/proc/PID/root of each) share files; the
 * root as written when it cannot be read ("" for none).
 */
void symcache_root_key(struct symbolizer *s, const char *root)
{
	struct stat st;

	if (root && stat(root, &st) == 0)
		snprintf(s->root_key, sizeof(s->root_key), "@%llu:%llu",
			 (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
	else
		snprintf(s->root_key, sizeof(s->root_key), "%s",
			 root ? root : "");
}

void symcache_file_free(struct sym_file *f)
{
	if (f->dw) {
		dwarf_end(f->dw);
		debugfile_alt_free(&f->dw_alt);
		symbolize_elf_close(f->dw_elf, f->dw_fd);
	}
	gopclntab_free(f->go);
	free(f->build_id);
	free(f->segs);
	free(f->syms);
	free(f->names);
	fdetab_free(f->fdes);
	strpool_free(f->fde_names);
	hashtab_free(&f->inl_idx);
	free(f->inl);
	free(f->inl_frames);
	strpool_free(f->inl_strs);
	free(f);
}

void symcache_free(struct symcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfiles; i++)
		symcache_file_free(c->files[i]);
	free(c->files);
	strpool_free(c->keys);
	strpool_free(c->paths);
	free(c);
}

struct symcache *symcache_new(void)
{
	struct symcache *c = calloc(1, sizeof(*c));

	if (c && (!(c->keys = strpool_new()) || !(c->paths = strpool_new()))) {
		symcache_free(c);
		c = NULL;
	}
	if (!c)
		errno = ENOMEM;
	return c;
}
