/*
 * modcache.h - read-only images of what a target has mapped, for unwinding.
 *
 * libunwind reads a module's .eh_frame_hdr and .eh_frame through the
 * access_mem accessor, word by word.  Served by ptrace that is one
 * PTRACE_PEEKDATA each; served from here it is a memcpy.  A module is the
 * file behind a mapping, found as mapfile.h says with the root of a live
 * thread of the target (a target in another mount namespace is read from
 * its own files, a chrooted one by its host paths, a deleted or replaced
 * file through /proc/PID/map_files), opened once and mmapped read-only.
 * The vDSO has no file: its image is copied once from the target's
 * memory.
 *
 * Contract: not thread-safe; never prints.  A module that cannot be
 * opened is remembered as such (NULL image) and never retried until
 * modcache_flush().  Images stay valid until modcache_flush()/free().
 */
#ifndef PTPROF_MODCACHE_H
#define PTPROF_MODCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "maps.h"

struct module {
	char *key;		/* path, or "[vdso]" */
	const uint8_t *image;	/* the whole file; NULL if unavailable */
	size_t size;
	int mmapped;		/* image is an mmap (else malloc'd copy) */
	struct module *next_;
};

struct modcache;

struct modcache *modcache_new(pid_t pid);
void modcache_free(struct modcache *c);

/* Forget every image (exec: a new set of files, a new vDSO). */
void modcache_flush(struct modcache *c);

/*
 * The module behind mapping e (a file opened through the root of thread
 * tid, or of another live thread if tid has exited, or the vDSO read
 * through tid), or NULL when e has none or it cannot be read.  tid: a
 * thread of the target, better than the leader, which may be a zombie.
 */
const struct module *modcache_get(struct modcache *c, const struct map_entry *e,
				  pid_t tid);

/*
 * Copy len bytes at target address addr, inside mapping e, from the
 * module image.  0, or -1 when they lie outside the image.
 */
int modcache_read(const struct module *mod, const struct map_entry *e,
		uint64_t addr, void *buf, size_t len);

#endif /* PTPROF_MODCACHE_H */
