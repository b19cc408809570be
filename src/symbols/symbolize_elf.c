/*
 * symbolize_elf.c - a file of a mapping opened (if it is the one that was
 * mapped) and its function symbols loaded with libelf: .symtab, its debug
 * file's, .dynsym, or ptprof's own vDSO's; and where its Go table is.
 */
#include "config.h"

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "elf/debugfile.h"
#include "elf/debuginfod.h"
#include "proc/mapfile.h"
#include "symbols/symbolize_int.h"
#include "util/grow.h"

/* A symbol while it is still inside libelf's data. */
struct raw_sym {
	uint64_t start, size, sec_end;
	const char *name;
	int rank;
};

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

void symbolize_elf_close(Elf *elf, int fd)
{
	elf_end(elf);
	close(fd);
}

/*
 * Where a Go binary's .gopclntab is (".data.rel.ro.gopclntab" when
 * linked position-independent), and its text's address, which the
 * table's function entries are offsets from (gopclntab.h).  Read only
 * when a lookup needs it (symbolize_stripped_go()).
 */
static void go_find(Elf *elf, struct sym_file *f)
{
	GElf_Shdr sh;

	if (debugfile_section(elf, ".text", &sh))
		f->go_text = sh.sh_addr;
	if ((debugfile_section(elf, ".gopclntab", &sh) ||
	     debugfile_section(elf, ".data.rel.ro.gopclntab", &sh)) &&
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
	symbolize_elf_close(dbg, fd);
	return rc;
}

/*
 * f's file, opened with libelf as mapfile.h finds it (under the root, or
 * through the live pid's map_files), if it is the file that was mapped
 * (symbolize.h): with a recorded build ID, whatever file mapfile.h finds
 * that carries it; without one, only the very inode mapped.  NULL if it
 * cannot be read, or is another file (then f->refused).
 */
Elf *symbolize_elf_open(const struct symbolizer *s, struct sym_file *f, int *fd)
{
	struct mapfile_ref ref = { f->path, f->start, f->end, f->ino, f->dev };
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
	/* the file is gone (a profile read elsewhere, a deleted library):
	 * a debuginfod server may have it by its build ID */
	if (!elf)
		elf = debuginfod_fetch(DEBUGINFOD_EXECUTABLE, f->build_id,
				       f->path, fd);
	if (elf && (!debugfile_build_id(elf, id, sizeof(id)) ||
		    strcasecmp(id, f->build_id))) {
		symbolize_elf_close(elf, *fd);
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
void symbolize_elf_load(struct symbolizer *s, struct sym_file *f)
{
	GElf_Ehdr eh;
	Elf *elf;
	int fd, rc;

	f->loaded = true;
	if (s->elf_ok && !strcmp(f->path, "[vdso]")) {
		vdso_load(f);
		return;
	}
	elf = symbolize_elf_open(s, f, &fd);
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
	symbolize_elf_close(elf, fd);
}
