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
 * When neither finds one, a debuginfod server is asked by build ID
 * (debuginfod.h: only when the cli layer switched it on and
 * DEBUGINFOD_URLS is set; the rules below for local files are replaced
 * there by its own for the invoking user's cache).
 * ROOT is the symbolizer's root (e.g. /proc/PID/root), or "" for none; the
 * path of the stripped file is given as the process saw it, without ROOT.
 *
 * A root ptprof reads debug files named by files other users own (issue
 * 12, item 5), so a candidate is used only if
 *   - it is a regular file owned by root or by the owner of the stripped
 *     file, and, when its last component is a symbolic link, that link is
 *     owned by one of them too (the directories on the way are not
 *     checked: /usr/lib/debug is root's, and a stripped file's own
 *     directory is its owner's);
 *   - it is at most DEBUGFILE_MAX_SIZE bytes, of which at least an eighth
 *     are allocated (a sparse file is refused without being read);
 *   - found by build ID: it carries the same build ID, or none;
 *   - found by .gnu_debuglink: its CRC-32 matches, computed with pread()
 *     within the time left in *crc_ns (shared by every file one
 *     symbolizer looks at, DEBUGFILE_CRC_BUDGET_NS at first); once that is
 *     spent no more candidates are checksummed.
 *
 * Any file opened here (debugfile_open_elf(), debugfile_elf_begin(): the
 * mapped files too) is refused when less than an eighth of its size is
 * allocated: libelf copies a section whole, so a sparse file whose
 * .symtab claims gigabytes of holes would cost that much memory; a real
 * file costs its owner the disk space it makes ptprof read.
 *
 * Files are opened with libelf's ELF_C_READ, never ELF_C_READ_MMAP: what
 * libelf reads is copied with pread(), so a file truncated meanwhile by
 * its owner gives a read error, not a SIGBUS that kills ptprof.
 *
 * Contract: debugfile_open() returns the debug file opened with libelf
 * and its fd in *fd, to be closed by the caller with elf_end() and
 * close(); or NULL when there is none.  debugfile_build_id() writes the
 * build ID in hex.  debugfile_section() is the one section-by-name
 * lookup over libelf (.gnu_debuglink here, the symbolizer's Go tables).
 * Never prints or exits.
 */
#ifndef PTPROF_DEBUGFILE_H
#define PTPROF_DEBUGFILE_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct maps;

/* The largest debug file considered: 4 GiB (Debian's largest -dbgsym
 * file, of libLLVM, holds under 1 GiB). */
#define DEBUGFILE_MAX_SIZE (4ull << 30)

/* The time one symbolizer may spend checksumming debug link candidates:
 * 20 s, a 4 GiB file at 200 MB/s. */
#define DEBUGFILE_CRC_BUDGET_NS (20ll * 1000000000)

/* The debug file of elf (open as fd elf_fd, at path), or NULL; *crc_ns is
 * the time left for checksums, lowered by what they take. */
Elf *debugfile_open(Elf *elf, int elf_fd, const char *path, const char *root,
		    int64_t *crc_ns, int *fd);

/* The dwz "alt" file of a DWARF (debugfile_set_alt()). */
struct debugfile_alt {
	Dwarf *dw;
	Elf *elf;
	int fd;
};

/*
 * The alt file that the .gnu_debugaltlink of dw names (dwz moves the
 * strings and DIEs that files share there), found as libdw would: by its
 * build ID under ROOT/usr/lib/debug/.build-id, else by its absolute
 * name under ROOT; used only if trusted as a debug file is (above) for
 * the owner of the file open as elf_fd, and if it carries that build ID;
 * read with ELF_C_READ; given to dw with dwarf_setalt().  libdw would
 * otherwise open it itself at the first alt form: with open(O_RDONLY),
 * which waits forever on a FIFO (a root recording's .pb.gz writer hung
 * on one, deaf to SIGTERM), then mmapped (dwarf_begin()), so that a
 * truncation raises SIGBUS, and without checking its build ID or owner.
 * 0 when dw names no alt file or it is set (*alt to be freed with
 * debugfile_alt_free()); -1 when it names one that is not found or not
 * trusted: then dw must not be read (dwarf_end() it).
 */
int debugfile_set_alt(Dwarf *dw, int elf_fd, const char *root,
		      struct debugfile_alt *alt);
void debugfile_alt_free(struct debugfile_alt *alt);

/* The first section of elf named name (its header into *sh), or NULL. */
Elf_Scn *debugfile_section(Elf *elf, const char *name, GElf_Shdr *sh);

/* The GNU build ID of elf, in hex, into buf (len bytes); false if none. */
bool debugfile_build_id(Elf *elf, char *buf, size_t len);

/*
 * Read the build IDs of the files of the newest snapshot's executable
 * mappings of m not looked at yet (maps.h), from the very file mapped
 * (mapfile_open_exact(): through root, e.g. "/proc/PID/task/TID/root",
 * and pid's map_files), and give them to m (maps_set_build_id()).  A
 * file that cannot be read, or has no build ID, simply has none; nothing
 * fails.
 */
void debugfile_maps_build_ids(struct maps *m, const char *root, pid_t pid);

/* Open path with libelf (only a regular file, and that checked before it
 * is opened for reading: util/safeopen.h); NULL unless it is an ELF file. */
Elf *debugfile_open_elf(const char *path, int *fd);

/* The same for an open fd (-1 gives NULL): on success *fdp = fd, else fd
 * is closed. */
Elf *debugfile_elf_begin(int fd, int *fdp);

#endif /* PTPROF_DEBUGFILE_H */
