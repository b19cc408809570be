/*
 * symbolize.c - maps text + ELF symbol tables -> function names.
 *
 * One struct sym_file per distinct path of an executable mapping, loaded
 * on first use; one struct sym_map per executable mapping, sorted by start
 * address.  Symbol names are copied out of libelf into one pool per file,
 * so no ELF handle or file descriptor stays open between lookups.
 */
#include "config.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/debugfile.h"
#include "elf/loadseg.h"
#include "proc/mapfile.h"
#include "proc/maps.h"
#include "symbols/fdetab.h"
#include "symbols/gopclntab.h"
#include "symbols/symbolize.h"
#include "util/grow.h"
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

/* A symbol while it is still inside libelf's data. */
struct raw_sym {
	uint64_t start, size, sec_end;
	const char *name;
	int rank;
};

/* ---- maps ----------------------------------------------------------- */

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

/* A new file for the mapping e, its path the pool's string. */
static struct sym_file *file_new(const struct map_entry *e, const char *path)
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
	return f;
}

/*
 * The cache's file for e seen under root: the same when the root, the
 * path and the build ID (or, without one, the inode) are, which is the
 * same file (symbolize.h).  The key gives each part's length first, so
 * no path or root can pass for another's.
 */
static struct sym_file *cache_get(struct symcache *c, const char *root,
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
	f = file_new(e, strpool_get(c->paths, (size_t)pi));
	if (f)
		c->files[c->nfiles++] = f;
	return f;
}

/*
 * The root's identity in the cache: its directory's device and inode, so
 * that processes under one root (/proc/PID/root of each) share files; the
 * root as written when it cannot be read ("" for none).
 */
static void cache_root_key(struct symbolizer *s, const char *root)
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

static struct sym_file *file_get(struct symbolizer *s,
				 const struct map_entry *e)
{
	const char *path = e->path;
	struct sym_file *f, **files;
	int64_t i = strpool_intern(s->paths, path);

	/* The pool numbers paths in the order first seen from 1 ("" is 0
	 * and never asked for): a new path is the next file. */
	if (i < 1)
		return NULL;
	if ((size_t)i <= s->nfiles)
		return s->files[i - 1];
	files = grow_array(s->files, &s->files_cap, s->nfiles + 1,
			   sizeof(*files));
	if (!files)
		return NULL;
	s->files = files;
	if (s->cache)
		f = cache_get(s->cache, s->root_key, e);
	else
		f = file_new(e, strpool_get(s->paths, (size_t)i));
	if (!f)
		return NULL;
	s->files[s->nfiles++] = f;
	return f;
}

/* One executable mapping more (they come in address order). */
static int add_map(struct symbolizer *s, const struct map_entry *e)
{
	struct sym_map *m;

	m = grow_array(s->maps, &s->maps_cap, s->nmaps + 1, sizeof(*m));
	if (!m)
		return -1;
	s->maps = m;
	m += s->nmaps;
	memset(m, 0, sizeof(*m));
	m->start = e->start;
	m->end = e->end;
	m->offset = e->offset;
	if (e->path[0]) {
		m->file = file_get(s, e);
		if (!m->file)
			return -1;
	}
	s->nmaps++;
	return 0;
}

/* The executable mappings of maps, gone ones included (a profile names
 * them), in address order as maps.h keeps them. */
static int add_maps(struct symbolizer *s, const struct maps *maps)
{
	for (size_t i = 0; i < maps_count(maps); i++) {
		const struct map_entry *e = maps_entry(maps, i);

		if (e->exec && add_map(s, e))
			return -1;
	}
	return 0;
}

/* ---- ELF loading ----------------------------------------------------- */

static int load_segs(Elf *elf, struct sym_file *f)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	f->segs = calloc(n ? n : 1, sizeof(*f->segs));
	if (!f->segs)
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->segs[f->nsegs++] = ph;
	}
	return 0;
}

static int leading_underscores(const char *name)
{
	int n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/*
 * Lower is better: sized, then fewer leading '_' ("getpid" over its alias
 * "__getpid"), then global > weak > local.
 */
static int sym_rank(const GElf_Sym *sym, const char *name)
{
	int bind = GELF_ST_BIND(sym->st_info);
	int b = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
	int u = leading_underscores(name);

	return (sym->st_size == 0) * 1000 + (u > 9 ? 9 : u) * 10 + b;
}

static uint64_t section_end(Elf *elf, size_t shndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return UINT64_MAX;
	scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &sh))
		return UINT64_MAX;
	return sh.sh_addr + sh.sh_size;
}

static bool want_sym(const GElf_Sym *sym, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       sym->st_shndx != SHN_UNDEF && sym->st_value != 0 && name &&
	       name[0];
}

/* Collect the function symbols of one symbol table section. */
static int collect_syms(Elf *elf, Elf_Scn *scn, struct raw_sym **out,
			size_t *nout)
{
	struct raw_sym *rs = NULL, *p;
	size_t i, n, cap = 0, cnt = 0;
	const char *name;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym sym;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return -1;
	data = elf_getdata(scn, NULL);
	if (!data)
		return -1;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!want_sym(&sym, name))
			continue;
		p = grow_array(rs, &cap, cnt + 1, sizeof(*rs));
		if (!p) {
			free(rs);
			return -1;
		}
		rs = p;
		rs[cnt].start = sym.st_value;
		rs[cnt].size = sym.st_size;
		rs[cnt].sec_end = section_end(elf, sym.st_shndx);
		rs[cnt].name = name;
		rs[cnt].rank = sym_rank(&sym, name);
		cnt++;
	}
	*out = rs;
	*nout = cnt;
	return 0;
}

static int cmp_raw(const void *a, const void *b)
{
	const struct raw_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* End of the sorted, deduplicated symbol i of n. */
static uint64_t raw_end(const struct raw_sym *rs, size_t i, size_t n)
{
	uint64_t end;

	if (rs[i].size)
		return rs[i].start + rs[i].size;
	end = rs[i].sec_end > rs[i].start ? rs[i].sec_end : UINT64_MAX;
	if (i + 1 < n && rs[i + 1].start < end)
		end = rs[i + 1].start;
	return end;
}

/* Length of name without a symbol version ("memcpy@@GLIBC_2.14"). */
static size_t name_len(const char *name)
{
	size_t n = strcspn(name, "@");

	return n ? n : strlen(name);
}

/* Keep the best symbol per address; copy names into f's pool. */
static int store_syms(struct sym_file *f, struct raw_sym *rs, size_t n)
{
	size_t i, k = 0, pool = 0, len;

	qsort(rs, n, sizeof(*rs), cmp_raw);
	for (i = 0; i < n; i++)
		if (i == 0 || rs[i].start != rs[k - 1].start)
			rs[k++] = rs[i];
	for (i = 0; i < k; i++)
		pool += name_len(rs[i].name) + 1;
	f->syms = calloc(k ? k : 1, sizeof(*f->syms));
	f->names = malloc(pool ? pool : 1);
	if (!f->syms || !f->names)
		return -1;
	for (i = 0, pool = 0; i < k; i++) {
		len = name_len(rs[i].name);
		memcpy(f->names + pool, rs[i].name, len);
		f->names[pool + len++] = '\0';
		f->syms[i].start = rs[i].start;
		f->syms[i].end = raw_end(rs, i, k);
		f->syms[i].name = pool;
		pool += len;
	}
	f->nsyms = k;
	return 0;
}

static Elf_Scn *find_section(Elf *elf, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

/*
 * Keep the functions of elf's first section of the given type.  Returns 1
 * when some were stored, 0 when there are none (try elsewhere), -1 when
 * storing them failed.
 */
static int syms_from(Elf *elf, GElf_Word type, struct sym_file *f)
{
	Elf_Scn *scn = find_section(elf, type);
	struct raw_sym *rs = NULL;
	size_t n = 0;
	int rc;

	if (!scn || collect_syms(elf, scn, &rs, &n) || n == 0) {
		free(rs);
		return 0;
	}
	rc = store_syms(f, rs, n);
	free(rs);
	return rc ? -1 : 1;
}

static void close_elf(Elf *elf, int fd)
{
	elf_end(elf);
	close(fd);
}

/* The section named name, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	const char *n;
	size_t strndx;

	if (elf_getshdrstrndx(elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		n = gelf_getshdr(scn, sh) ?
			    elf_strptr(elf, strndx, sh->sh_name) :
			    NULL;
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * Where a Go binary's .gopclntab is (".data.rel.ro.gopclntab" when
 * linked position-independent), and its text's address, which the
 * table's function entries are offsets from (gopclntab.h).  Read only
 * when a lookup needs it (go_table()).
 */
static void go_find(Elf *elf, struct sym_file *f)
{
	GElf_Shdr sh;

	if (section_named(elf, ".text", &sh))
		f->go_text = sh.sh_addr;
	if ((section_named(elf, ".gopclntab", &sh) ||
	     section_named(elf, ".data.rel.ro.gopclntab", &sh)) &&
	    sh.sh_type == SHT_PROGBITS && !(sh.sh_flags & SHF_COMPRESSED)) {
		f->go_off = sh.sh_offset;
		f->go_size = sh.sh_size;
	}
}

/*
 * A stripped file's .symtab may be installed apart, as Debian's -dbg and
 * -dbgsym packages do (debugfile.h finds it).  Its symbols have the same
 * link-time addresses as the stripped file.
 */
static int debug_syms(struct symbolizer *s, Elf *elf, int elf_fd,
		      struct sym_file *f)
{
	int fd, rc;
	Elf *dbg = debugfile_open(elf, elf_fd, f->path, s->root, &s->crc_ns,
				  &fd);

	if (!dbg)
		return 0;
	rc = syms_from(dbg, SHT_SYMTAB, f);
	close_elf(dbg, fd);
	return rc;
}

/*
 * f's file, opened with libelf as mapfile.h finds it (under the root, or
 * through the live pid's map_files), if it is the file that was mapped
 * (symbolize.h): with a recorded build ID, whatever file mapfile.h finds
 * that carries it; without one, only the very inode mapped.  NULL if it
 * cannot be read, or is another file (then f->refused).
 */
static Elf *open_file(const struct symbolizer *s, struct sym_file *f, int *fd)
{
	struct mapfile_ref ref = { f->path, f->start, f->end, f->ino };
	char id[2 * 64 + 1];
	Elf *elf;

	if (!s->elf_ok || !f->loadable)
		return NULL;
	/* a pprof mapping of a file without a build ID: nothing to check
	 * a file against (symbolize.h) */
	if (!f->build_id && !f->ino) {
		f->unverifiable = true;
		return NULL;
	}
	if (!f->build_id)
		return debugfile_elf_begin(mapfile_open_exact(s->root,
							      s->live_pid,
							      &ref),
					   fd);
	elf = debugfile_elf_begin(mapfile_open(s->root, s->live_pid, &ref), fd);
	if (elf && (!debugfile_build_id(elf, id, sizeof(id)) ||
		    strcasecmp(id, f->build_id))) {
		close_elf(elf, *fd);
		f->refused = true;
		return NULL;
	}
	return elf;
}

/*
 * The vDSO is no file: its symbols are read from ptprof's own vDSO, which
 * is the target's too when ptprof runs on the kernel that recorded the
 * profile (the usual case: a report right after the recording).  Its
 * size is that of its section headers' end, which it holds in full.
 */
static void vdso_load(struct sym_file *f)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	size_t size;
	Elf *elf;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	elf = elf_memory((char *)eh, size);
	if (!elf)
		return;
	if (load_segs(elf, f) == 0 && syms_from(elf, SHT_SYMTAB, f) == 0)
		syms_from(elf, SHT_DYNSYM, f);
	elf_end(elf);
}

/*
 * Load f once: program headers, then the first of .symtab, the build-ID
 * debug file's .symtab, .dynsym that has functions.  On any failure f
 * simply has no symbols.
 */
static void file_load(struct symbolizer *s, struct sym_file *f)
{
	GElf_Ehdr eh;
	Elf *elf;
	int fd, rc;

	f->loaded = true;
	if (s->elf_ok && !strcmp(f->path, "[vdso]")) {
		vdso_load(f);
		return;
	}
	elf = open_file(s, f, &fd);
	if (!elf)
		return;
	if (gelf_getehdr(elf, &eh) &&
	    (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) &&
	    load_segs(elf, f) == 0) {
		f->is_exec = eh.e_type == ET_EXEC;
		rc = syms_from(elf, SHT_SYMTAB, f);
		if (rc == 0)
			rc = debug_syms(s, elf, fd, f);
		if (rc == 0)
			syms_from(elf, SHT_DYNSYM, f);
		go_find(elf, f);
	}
	close_elf(elf, fd);
}

/* ---- lookups ---------------------------------------------------------- */

/*
 * The bias of an executable mapping (the only ones kept), from the
 * executable segment it maps: by its offset alone the segment may be the
 * read-only one before it, which shares its page in files linked by lld
 * (loadseg.c).  ET_EXEC files have bias 0 by construction, which the
 * formula also gives; without a matching segment assume vaddr == offset.
 */
static uint64_t map_bias(const struct sym_map *m)
{
	const struct sym_file *f = m->file;
	const GElf_Phdr *seg;

	/* GElf_Phdr is Elf64_Phdr */
	seg = loadseg_exec(f->segs, f->nsegs, m->offset);
	if (seg)
		return loadseg_bias(seg, m->start, m->offset);
	return f->is_exec ? 0 : m->start - m->offset;
}

static struct sym_map *find_map(struct symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nmaps, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= s->maps[lo - 1].end)
		return NULL;
	return &s->maps[lo - 1];
}

static const struct sym *find_sym(const struct sym_file *f, uint64_t vaddr)
{
	size_t lo = 0, hi = f->nsyms, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || vaddr >= f->syms[lo - 1].end)
		return NULL;
	return &f->syms[lo - 1];
}

/*
 * No symbol covers addr (in m): name it by the unwind-table entry that
 * does (fdetab.h), "module+0xSTART" with START the entry's file offset,
 * in the form an unnamed address has, so that each stripped function is
 * one name however many of its addresses are sampled.
 */
static void fde_name(struct symbolizer *s, struct sym_map *m, uint64_t addr,
		     struct symbol_info *out)
{
	struct sym_file *f = m->file;
	const char *base = strrchr(f->path, '/');
	uint64_t start, end;
	char buf[4096];
	int64_t id;
	Elf *elf;
	int fd;

	if (!f->fde_tried) {
		f->fde_tried = true;
		elf = open_file(s, f, &fd);
		f->fdes = elf ? fdetab_read(elf, NULL, 0) : NULL;
		f->fde_names = f->fdes ? strpool_new() : NULL;
		if (elf)
			close_elf(elf, fd);
	}
	if (!f->fde_names ||
	    fdetab_lookup(f->fdes, addr - m->bias, &start, &end) ||
	    addr - m->bias - start > out->module_off)
		return;
	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64,
		 base && base[1] ? base + 1 : f->path,
		 out->module_off - (addr - m->bias - start));
	id = strpool_intern(f->fde_names, buf);
	if (id < 0)
		return;
	out->func = strpool_get(f->fde_names, (size_t)id);
	out->func_off = addr - m->bias - start;
	out->fde = true;
}

/* f's Go table, read once, at the first lookup .symtab or DWARF do not
 * answer; NULL if f has none or it cannot be read. */
static struct gopclntab *go_table(struct symbolizer *s, struct sym_file *f)
{
	Elf *elf;
	int fd;

	if (f->go_tried || !f->go_size)
		return f->go;
	f->go_tried = true;
	elf = open_file(s, f, &fd);
	if (!elf)
		return NULL;
	f->go = gopclntab_read(fd, f->go_off, f->go_size, f->go_text, NULL, 0);
	close_elf(elf, fd);
	return f->go;
}

/* The Go function at vaddr, when no symbol names it (gopclntab.h). */
static void go_func(struct symbolizer *s, struct sym_file *f, uint64_t vaddr,
		    struct symbol_info *out)
{
	struct gopclntab *t = go_table(s, f);
	uint64_t entry;

	if (t && gopclntab_func(t, vaddr, &out->func, &entry) == 0)
		out->func_off = vaddr - entry;
}

int symbolizer_lookup(struct symbolizer *s, uint64_t addr,
		      struct symbol_info *out)
{
	const struct sym *sym;
	struct sym_map *m;

	if (!s || !out) {
		errno = EINVAL;
		return -1;
	}
	memset(out, 0, sizeof(*out));
	m = find_map(s, addr);
	if (!m || !m->file)
		return 0;
	out->module = m->file->path;
	out->module_off = addr - m->start + m->offset;
	if (!m->file->loaded)
		file_load(s, m->file);
	if (!m->bias_known) {
		m->bias = map_bias(m);
		m->bias_known = true;
	}
	sym = find_sym(m->file, addr - m->bias);
	if (sym) {
		out->func = m->file->names + sym->name;
		out->func_off = addr - m->bias - sym->start;
	}
	if (!out->func && m->file->go_size)
		go_func(s, m->file, addr - m->bias, out);
	if (!out->func)
		fde_name(s, m, addr, out);
	return 0;
}

/* ---- source lines ----------------------------------------------------- */

/* The DWARF of elf, with its dwz alt file set (debugfile.h), for f whose
 * file is open as fd; NULL if there is none, or it names an alt file
 * that cannot be trusted (libdw would open that one itself). */
static Dwarf *begin_dwarf(const struct symbolizer *s, Elf *elf, int fd,
			  struct sym_file *f)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);

	if (dw && debugfile_set_alt(dw, fd, s->root, &f->dw_alt)) {
		dwarf_end(dw);
		return NULL;
	}
	return dw;
}

/* f's DWARF: from its debug file (debugfile.h), else from f itself. */
static Dwarf *file_dwarf(struct symbolizer *s, struct sym_file *f)
{
	Elf *elf, *dbg;
	int fd, dfd;

	if (f->dw_tried)
		return f->dw;
	f->dw_tried = true;
	elf = open_file(s, f, &fd);
	if (!elf)
		return NULL;
	dbg = debugfile_open(elf, fd, f->path, s->root, &s->crc_ns, &dfd);
	if (dbg) {
		f->dw = begin_dwarf(s, dbg, fd, f);
		if (f->dw) {
			close_elf(elf, fd);
			f->dw_elf = dbg;
			f->dw_fd = dfd;
			return f->dw;
		}
		close_elf(dbg, dfd);
	}
	f->dw = begin_dwarf(s, elf, fd, f);
	if (!f->dw) {
		close_elf(elf, fd);
		return NULL;
	}
	f->dw_elf = elf;
	f->dw_fd = fd;
	return f->dw;
}

int symbolizer_lookup_line(struct symbolizer *s, uint64_t addr,
			   const char **file, unsigned *line)
{
	struct sym_map *m;
	struct symbol_info si;
	Dwarf_Die cu;
	Dwarf_Line *l;
	Dwarf *dw;
	const char *src;
	int n;

	if (!s || !file || !line) {
		errno = EINVAL;
		return -1;
	}
	symbolizer_lookup(s, addr, &si); /* loads the file, sets the bias */
	m = find_map(s, addr);
	dw = m && m->file ? file_dwarf(s, m->file) : NULL;
	if (!dw || !dwarf_addrdie(dw, addr - m->bias, &cu))
		goto none;
	l = dwarf_getsrc_die(&cu, addr - m->bias);
	src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	if (!src || dwarf_lineno(l, &n) || n <= 0)
		goto none;
	*file = src;
	*line = (unsigned)n;
	return 0;
none:
	/* no DWARF line: a stripped Go binary still has its own table */
	if (m && m->file && m->file->go_size && go_table(s, m->file) &&
	    !gopclntab_line(m->file->go, addr - m->bias, file, line))
		return 0;
	errno = ENOENT;
	return -1;
}

/* ---- life cycle ------------------------------------------------------ */

struct symbolizer *symbolizer_new_maps(const struct maps *maps,
				       const char *root, pid_t pid)
{
	return symbolizer_new_cached(maps, root, pid, NULL);
}

struct symbolizer *symbolizer_new_cached(const struct maps *maps,
					 const char *root, pid_t pid,
					 struct symcache *cache)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cache = cache;
	cache_root_key(s, root);
	s->elf_ok = elf_version(EV_CURRENT) != EV_NONE;
	s->crc_ns = DEBUGFILE_CRC_BUDGET_NS;
	s->live_pid = pid > 0 ? pid : 0;
	s->paths = strpool_new();
	if (!s->paths || (root && !(s->root = strdup(root))) ||
	    add_maps(s, maps)) {
		symbolizer_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

/* Hex digits at p (at most max, at least 1) into *v; their count, or 0. */
static size_t hex_at(const char *p, size_t n, size_t max, uint64_t *v)
{
	size_t i = 0;
	int d;

	*v = 0;
	for (; i < n && i < max; i++) {
		d = p[i] >= '0' && p[i] <= '9' ? p[i] - '0' :
		    p[i] >= 'a' && p[i] <= 'f' ? p[i] - 'a' + 10 :
		    p[i] >= 'A' && p[i] <= 'F' ? p[i] - 'A' + 10 :
						 -1;
		if (d < 0)
			break;
		*v = *v << 4 | (uint64_t)d;
	}
	return i;
}

/*
 * The start address and build ID of a line of pprof's brief form,
 * "START-END PERMS PATH (@OFFSET) BUILDID" (maps.h): 2 to 128 hex digits
 * after the last space, which follows ")"; START, hex before a "-".
 */
static bool parse_brief(const char *l, size_t n, uint64_t *start, char *id,
			size_t idlen)
{
	const char *sp = memrchr(l, ' ', n);
	size_t k, idn;
	uint64_t v;

	if (!sp || sp == l || sp[-1] != ')' || !memmem(l, n, " (@", 3))
		return false;
	idn = (size_t)(l + n - sp - 1);
	if (idn < 2 || idn >= idlen || hex_at(sp + 1, idn, idn, &v) != idn)
		return false;
	k = hex_at(l, n, 16, start);
	if (k == 0 || k >= n || l[k] != '-')
		return false;
	memcpy(id, sp + 1, idn);
	id[idn] = '\0';
	return true;
}

/* Give each file the build ID of the brief line of its mapping. */
static int add_build_ids(struct symbolizer *s, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	char id[2 * 64 + 1];
	struct sym_map *m;
	uint64_t start;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (!parse_brief(p, (size_t)(nl - p), &start, id, sizeof(id)))
			continue;
		m = find_map(s, start);
		if (!m || m->start != start || !m->file || m->file->build_id)
			continue;
		if (!(m->file->build_id = strdup(id)))
			return -1;
	}
	return 0;
}

struct symbolizer *symbolizer_new(const char *maps_text, size_t len,
				  const char *root, pid_t pid)
{
	struct maps *maps = maps_new();
	struct symbolizer *s = NULL;

	/* EINVAL: not one line parses; the symbolizer then knows none. */
	if (maps && (!maps_text || !maps_update(maps, maps_text, len) ||
		     errno == EINVAL))
		s = symbolizer_new_maps(maps, root, pid);
	maps_free(maps);
	if (s && maps_text && add_build_ids(s, maps_text, len)) {
		symbolizer_free(s);
		s = NULL;
	}
	if (!s)
		errno = ENOMEM;
	return s;
}

const char *symbolizer_refused(const struct symbolizer *s, size_t *next,
			       const char **why)
{
	for (; s && *next < s->nfiles; ++*next) {
		const struct sym_file *f = s->files[*next];

		*why = f->refused ? "is not the file that was mapped "
				    "(another build ID or inode)" :
				    "cannot be checked against the recording "
				    "(it has neither build ID nor inode)";
		if (f->refused || f->unverifiable) {
			++*next;
			return f->path;
		}
	}
	return NULL;
}

static void file_free(struct sym_file *f)
{
	if (f->dw) {
		dwarf_end(f->dw);
		debugfile_alt_free(&f->dw_alt);
		close_elf(f->dw_elf, f->dw_fd);
	}
	gopclntab_free(f->go);
	free(f->build_id);
	free(f->segs);
	free(f->syms);
	free(f->names);
	fdetab_free(f->fdes);
	strpool_free(f->fde_names);
	free(f);
}

void symbolizer_free(struct symbolizer *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nfiles && !s->cache; i++)
		file_free(s->files[i]);
	free(s->files);
	strpool_free(s->paths);
	free(s->maps);
	free(s->root);
	free(s);
}

void symcache_free(struct symcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfiles; i++)
		file_free(c->files[i]);
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
