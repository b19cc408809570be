/*
 * modcache.h - read-only images of what a target has mapped, for unwinding.
 *
 * libunwind reads a module's .eh_frame_hdr and .eh_frame through the
 * access_mem accessor, word by word.  Served by ptrace that is one
 * PTRACE_PEEKDATA each; served from here it is a memcpy.  A module is the
 * file behind a mapping, found as mapfile.h says with the root of a live
 * thread of the target (a target in another mount namespace is read from
 * its own files, a chrooted one by its host paths, a deleted or replaced
 * file through /proc/PID/map_files), opened once.  The vDSO has no file:
 * its image is copied once from the target's memory.
 *
 * Only the parts of a file the unwinder reads are kept, copied with
 * pread() into memory ptprof owns: the ELF header and program headers,
 * the PT_GNU_EH_FRAME segment (.eh_frame_hdr) and .eh_frame (found by the
 * header's eh_frame_ptr, up to the end of the file bytes of the PT_LOAD
 * segment that holds it: no section header is used).  A file that has a
 * .debug_frame section (found by its section headers: Go binaries have no
 * .eh_frame_hdr) also gets it converted, once, into an image of ours
 * (debugframe.h), module->dwf; the file bytes read for it are not kept.
 * Never an mmap() of the file: the file belongs to the target's user,
 * who can truncate it, and reading a mapped page past the new end of
 * file raises SIGBUS, which would kill ptprof (a root ptprof profiling an
 * unprivileged target, item 4 of issue 12).  A file cut while it is read
 * gives a short read, and the module is unavailable.  Reads outside the
 * parts kept fail (modcache_read()): the unwinder then reads the
 * target's own memory.  What a hostile target's files can make ptprof
 * copy is bounded: no part (nor .debug_frame, read, inflated or
 * converted) is larger than MODCACHE_MAX_PART, all the parts and
 * converted .debug_frames held at once are at most MODCACHE_MAX_TOTAL,
 * and a file with less than an eighth of its size allocated (a sparse
 * file, which no linker writes) is not read at all.
 *
 * Contract: not thread-safe; never prints.  A module that cannot be
 * opened is remembered as such (no parts) and never retried until
 * modcache_flush().  Parts stay valid until modcache_flush()/free().
 */
#ifndef PTPROF_MODCACHE_H
#define PTPROF_MODCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/maps.h"

struct debugframe;

/* The largest part of a file kept, and all of them at once: libLLVM-15's
 * .eh_frame and .eh_frame_hdr, the largest on the development VM, make
 * one part of 6 MB. */
#define MODCACHE_MAX_PART (256u << 20)
#define MODCACHE_MAX_TOTAL (1024u << 20)
/* The most a module's .debug_frame may take at each step of its
 * conversion (the section, inflated, converted): the buffers of one step
 * are not counted in MODCACHE_MAX_TOTAL while they live, so they get a
 * bound of their own.  cmd/go's (15 MB binary) is 600 KB converted. */
#define MODCACHE_MAX_DEBUG_FRAME (64u << 20)

/* One part of a module's file, copied: bytes [off, off + len). */
struct module_part {
	uint64_t off;
	size_t len;
	uint8_t *data;
};

#define MODCACHE_PARTS 3 /* headers, .eh_frame_hdr, .eh_frame */

struct module {
	char *key; /* path, or "[vdso]" */
	struct module_part part[MODCACHE_PARTS];
	size_t nparts;		/* 0 if unavailable */
	struct debugframe *dwf; /* its .debug_frame, converted; or NULL */
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
 * module's parts.  0, or -1 when they lie outside every part.
 */
int modcache_read(const struct module *mod, const struct map_entry *e,
		  uint64_t addr, void *buf, size_t len);

/* The len bytes at file offset off of the module, if one part holds them
 * all; else NULL. */
const uint8_t *modcache_bytes(const struct module *mod, uint64_t off,
			      size_t len);

#endif /* PTPROF_MODCACHE_H */
