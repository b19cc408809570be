/*
 * debugfile.h - find the separate debug file of an ELF file.
 *
 * Distributions strip binaries and install their symbols and DWARF apart.
 * Two conventions point from the stripped file to its debug file, tried in
 * this order (gdb and elfutils do the same):
 *   1. the GNU build ID: ROOT/usr/lib/debug/.build-id/xx/yyyy.debug;
 *   2. the .gnu_debuglink section (a file name and the CRC-32 of the debug
 *      file): DIR/NAME, DIR/.debug/NAME, ROOT/usr/lib/debug/DIR/NAME, where
 *      DIR is the directory of the stripped file; a candidate whose CRC-32
 *      differs is skipped.
 * ROOT is the symbolizer's root (e.g. /proc/PID/root), or "" for none; the
 * path of the stripped file is given as the process saw it, without ROOT.
 *
 * Contract: debugfile_open() returns the debug file opened with libelf
 * (ELF_C_READ_MMAP) and its fd in *fd, to be closed by the caller with
 * elf_end() and close(); or NULL when there is none.  debugfile_build_id()
 * writes the build ID in hex.  Never prints or exits.
 */
#ifndef PTPROF_DEBUGFILE_H
#define PTPROF_DEBUGFILE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>

Elf *debugfile_open(Elf *elf, const char *path, const char *root, int *fd);

/* The GNU build ID of elf, in hex, into buf (len bytes); false if none. */
bool debugfile_build_id(Elf *elf, char *buf, size_t len);

/* Open path with libelf; NULL unless it is an ELF file. */
Elf *debugfile_open_elf(const char *path, int *fd);

/* The same for an open fd (-1 gives NULL): on success *fdp = fd, else fd
 * is closed. */
Elf *debugfile_elf_begin(int fd, int *fdp);

#endif /* PTPROF_DEBUGFILE_H */
