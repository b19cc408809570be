/*
 * loadseg.h - which PT_LOAD segment a mapping maps, and the load bias.
 *
 * A file-backed mapping in /proc/PID/maps says where it starts, its file
 * offset and its permissions, not which ELF segment it comes from.  The
 * unwinder (which .eh_frame_hdr address to use) and the symbolizer (which
 * link-time address a PC has) both need that segment: the load bias, the
 * runtime address minus the link-time address, is
 *
 *	bias = start - offset + p_offset - p_vaddr
 *
 * for the segment the mapping maps (valid for ET_EXEC, where it is 0, PIE
 * executables and shared libraries alike).  loadseg_exec() says which
 * segment that is; loadseg.c explains why the offset alone does not.
 *
 * Contract: pure functions of the headers given (in the file's byte
 * order, ELFCLASS64: x86-64 only); no I/O, never prints.  Only the
 * mapping's granularity, the x86-64 page of 4 KiB, is assumed.
 */
#ifndef PTPROF_LOADSEG_H
#define PTPROF_LOADSEG_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The granularity of mappings on x86-64 (file offsets and addresses). */
#define LOADSEG_PAGE 4096u

/*
 * Of the n program headers ph, the PT_LOAD segment that an executable
 * mapping of file offset `offset` (page-aligned, as /proc/PID/maps shows
 * it) maps; NULL if no segment has file bytes in that page.
 *
 * Executable mappings only: those are the ones PCs lie in, and the only
 * ones the permissions tell apart.  Two read-only mappings can map one
 * page for two segments (GNU ld's .rodata and the RELRO head of the
 * writable segment, made read-only by mprotect(), share a page), and
 * nothing in the mapping says which.
 */
const Elf64_Phdr *loadseg_exec(const Elf64_Phdr *ph, size_t n, uint64_t offset);

/* The load bias of a mapping at start of file offset offset that maps
 * segment seg (see above). */
uint64_t loadseg_bias(const Elf64_Phdr *seg, uint64_t start, uint64_t offset);

#endif /* PTPROF_LOADSEG_H */
