/*
 * symbolize_int.h - the symbolizer's state, shared by its files.  Private
 * to them; symbolize.h is the contract.
 *
 *   symbolize.c          life cycle and lookups (symbolize.h's API)
 *   symbolize_maps.c     the executable mappings, from maps or maps text
 *   symcache.c           one struct sym_file per path, alone or shared
 *                        through a symcache
 *   symbolize_elf.c      a file opened and its ELF symbol tables loaded
 *   symbolize_dwarf.c    source lines from DWARF (libdw)
 *   symbolize_stripped.c names where no symbol covers an address: Go's
 *                        pclntab, unwind-table entries (FDEs)
 *
 * One struct sym_file per distinct path of an executable mapping, loaded
 * on first use; one struct sym_map per executable mapping, sorted by start
 * address.  Symbol names are copied out of libelf into one pool per file,
 * so no ELF handle or file descriptor stays open between lookups.  None of
 * these functions prints, exits or sets errno on purpose.
 */
#ifndef PTPROF_SYMBOLIZE_INT_H
#define PTPROF_SYMBOLIZE_INT_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "elf/debugfile.h"
#include "proc/maps.h"
#include "symbols/fdetab.h"
#include "symbols/gopclntab.h"
#include "symbols/symbolize.h"
#include "util/hashtab.h"
#include "util/strpool.h"

struct sym {
	uint64_t start, end; /* link-time addresses, [start, end) */
	size_t name;	     /* offset into sym_file.names */
};

struct sym_file {
	const char *path;    /* as written in the maps text (in s->paths) */
	bool loadable;	     /* a real file we may open */
	uint64_t start, end; /* its first executable mapping */
	uint64_t ino;	     /* and the file's inode there */
	uint64_t dev;	     /* and its device (proc/fsguard.h) */
	char *build_id;	     /* recorded GNU build ID (hex), or NULL */
	bool refused;	     /* a file was found but not the one mapped */
	bool unverifiable;   /* neither build ID nor inode recorded */
	bool loaded;	     /* load attempted */
	GElf_Phdr *segs;     /* its PT_LOAD headers */
	size_t nsegs;
	bool is_exec; /* ET_EXEC: absolute addresses */
	struct sym *syms;
	size_t nsyms;
	char *names;
	/* DWARF, for source lines: opened at the first line lookup */
	bool dw_tried;
	Dwarf *dw;
	Elf *dw_elf;
	int dw_fd;
	struct debugfile_alt dw_alt; /* its dwz alt file, if any */
	/* unwind-table entries, for addresses no symbol covers: read at
	 * the first such address */
	bool fde_tried;
	struct fdetab *fdes;
	struct strpool *fde_names; /* "module+0xSTART" */
	/* Go's own table (gopclntab.h), read at the first lookup it serves */
	uint64_t go_off, go_size, go_text; /* its section; text's address */
	bool go_tried;
	struct gopclntab *go;
	/* inlined frames by address (symbolize_dwarf_inline()): answers
	 * in inl (found through inl_idx), their frames in inl_frames, the
	 * names and files in inl_strs */
	struct hashtab inl_idx;
	struct sym_inline *inl;
	size_t ninl, inl_cap;
	struct symbol_frame *inl_frames;
	size_t ninl_frames, inl_frames_cap;
	struct strpool *inl_strs;
	/* the functions of each CU looked into, by address (cu_idx: by
	 * the CU's offset) */
	struct hashtab cu_idx;
	struct sym_cu *cus;
	size_t ncus, cus_cap;
};

/* A function's code in the DWARF: [lo, hi) of its DIE. */
struct sym_fn {
	uint64_t lo, hi;
	Dwarf_Off die;
};

/* The functions of one CU (its DIE at off), sorted by lo. */
struct sym_cu {
	Dwarf_Off off;
	struct sym_fn *fns;
	size_t nfns, cap;
};

/* One address's inlined frames: inl_frames[first .. first + n), innermost
 * first, at most SYMBOLIZE_MAX_INLINE of them. */
struct sym_inline {
	uint64_t vaddr;
	size_t first, n;
	const char *outer_file;
	unsigned outer_line;
};

struct sym_map {
	uint64_t start, end, offset;
	struct sym_file *file; /* NULL for anonymous mappings */
	bool bias_known;
	uint64_t bias; /* runtime address - link-time address */
};

/* Files loaded once for several symbolizers (symbolize.h, symcache). */
struct symcache {
	struct strpool *keys;	 /* build ID or inode, root and path */
	struct strpool *paths;	 /* the files' paths */
	struct sym_file **files; /* files[i]'s key is keys' string i+1 */
	size_t nfiles, files_cap;
};

struct symbolizer {
	struct symcache *cache; /* owns the files when set */
	char root_key[64];	/* the root's identity, for the cache */
	char *root;
	pid_t live_pid; /* whose map_files may be opened, or 0 */
	bool elf_ok;
	int64_t crc_ns; /* time left for debug link checksums (debugfile.h) */
	struct sym_map *maps;
	size_t nmaps, maps_cap;
	struct sym_file **files; /* files[i]'s path is paths' string i+1 */
	size_t nfiles, files_cap;
	struct strpool *paths; /* the distinct paths: a hash, so that
				  a profile of many paths is read in
				  linear time */
};

/* ---- symbolize_maps.c ------------------------------------------------ */

/* Add the executable mappings of maps to s, in address order.  0, or -1
 * when memory runs out. */
int symbolize_maps_add(struct symbolizer *s, const struct maps *maps);

/* Give each file of s the build ID of the brief line (maps.h) of its
 * mapping in the maps text (len bytes).  0, or -1 when memory runs out. */
int symbolize_maps_build_ids(struct symbolizer *s, const char *text,
			     size_t len);

/* Give the mappings of maps (made from the maps text, len bytes) the
 * build IDs of their brief lines, before any file is made from them.
 * 0, or -1 when memory runs out. */
int symbolize_maps_text_ids(struct maps *maps, const char *text, size_t len);

/* The mapping of s that holds addr, or NULL. */
struct sym_map *symbolize_maps_find(struct symbolizer *s, uint64_t addr);

/* ---- symcache.c ------------------------------------------------------ */

/* A new file for the mapping e, its path (which it does not copy) path;
 * NULL when memory runs out. */
struct sym_file *symcache_file_new(const struct map_entry *e, const char *path);
void symcache_file_free(struct sym_file *f);

/* The cache's file for e seen under the root whose key is root (from
 * symcache_root_key()), made on first use; NULL when memory runs out. */
struct sym_file *symcache_file(struct symcache *c, const char *root,
			       const struct map_entry *e);

/* root's key (NULL: none) into s->root_key. */
void symcache_root_key(struct symbolizer *s, const char *root);

/* ---- symbolize_elf.c ------------------------------------------------- */

/* Load f's program headers and symbols, once (f->loaded); on any failure
 * f simply has no symbols. */
void symbolize_elf_load(struct symbolizer *s, struct sym_file *f);

/* f's file opened with libelf, its fd in *fd, if it is the file that was
 * mapped (symbolize.h); NULL otherwise (f->refused or f->unverifiable set
 * when that is why).  Closed with symbolize_elf_close(). */
Elf *symbolize_elf_open(const struct symbolizer *s, struct sym_file *f,
			int *fd);
void symbolize_elf_close(Elf *elf, int fd);

/* ---- symbolize_dwarf.c ----------------------------------------------- */

/* The source file and line of the link-time address vaddr of f, from its
 * DWARF (opened at the first call).  0, or -1 (*file and *line untouched)
 * when there is none. */
int symbolize_dwarf_line(struct symbolizer *s, struct sym_file *f,
			 uint64_t vaddr, const char **file, unsigned *line);

/* symbolizer_lookup_inline() from f's DWARF, else from its Go table
 * (symbolize_stripped_go_inline()), at the link-time address vaddr
 * (symbolize.h's contract), each address once; 0 when neither says. */
size_t symbolize_dwarf_inline(struct symbolizer *s, struct sym_file *f,
			      uint64_t vaddr, struct symbol_frame *frames,
			      size_t max, const char **outer_file,
			      unsigned *outer_line);

/* ---- symbolize_stripped.c -------------------------------------------- */

/* Name addr (in m), which no symbol covers, by its unwind-table entry:
 * sets out->func, func_off and fde when one covers it. */
void symbolize_stripped_fde(struct symbolizer *s, struct sym_map *m,
			    uint64_t addr, struct symbol_info *out);

/* f's Go table, read once; NULL if it has none or it cannot be read. */
struct gopclntab *symbolize_stripped_go(struct symbolizer *s,
					struct sym_file *f);

/* The Go function at the link-time address vaddr of f into out->func
 * and func_off, when f's Go table names one. */
void symbolize_stripped_go_func(struct symbolizer *s, struct sym_file *f,
				uint64_t vaddr, struct symbol_info *out);

/* symbolizer_lookup_inline() from f's Go table, at the link-time address
 * vaddr (symbolize.h's contract); 0 when the table says nothing. */
size_t symbolize_stripped_go_inline(struct symbolizer *s, struct sym_file *f,
				    uint64_t vaddr, struct symbol_frame *frames,
				    size_t max, const char **outer_file,
				    unsigned *outer_line);

#endif /* PTPROF_SYMBOLIZE_INT_H */
