/*
 * modcache.c - cached read-only module images (see modcache.h).
 */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/debugframe.h"
#include "elf/ehframe.h"
#include "proc/mapfile.h"
#include "proc/vmread.h"
#include "unwind/modcache.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"

#define VDSO_MAX (64 * 1024)
/* Where the program headers may start: right after the ELF header in
 * every linker's output; further is a hostile file. */
#define HEADERS_MAX (64 * 1024)
/* The section header string table: a few hundred bytes in every linker's
 * output. */
#define SHSTRTAB_MAX (1024 * 1024)

struct modcache {
	pid_t pid;
	size_t copied; /* bytes in all parts held, <= MODCACHE_MAX_TOTAL */
	struct module **mods; /* in the order first asked for */
	size_t nmods, cap_mods;
	struct hashtab idx; /* key hash -> index into mods */
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
	debugframe_free(m->dwf);
	for (size_t i = 0; i < m->nparts; i++)
		free(m->part[i].data);
	free(m->key);
	free(m);
}

void modcache_flush(struct modcache *c)
{
	for (size_t i = 0; i < c->nmods; i++) {
		struct module *m = c->mods[i];

		for (size_t k = 0; k < m->nparts; k++)
			c->copied -= m->part[k].len;
		if (m->dwf)
			c->copied -= m->dwf->len;
		module_free(m);
	}
	c->nmods = 0;
	hashtab_clear(&c->idx);
}

void modcache_free(struct modcache *c)
{
	if (!c)
		return;
	modcache_flush(c);
	free(c->mods);
	hashtab_free(&c->idx);
	free(c);
}

/* All len bytes at off, or -1 (a short read: the file was cut). */
static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (uint8_t *)buf + done, len - done,
			  (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* Copy the file's bytes [off, off + len) into a new part of m. */
static int read_part(struct modcache *c, int fd, uint64_t fsize, uint64_t off,
		     uint64_t len, struct module *m)
{
	struct module_part *p = &m->part[m->nparts];

	if (m->nparts == MODCACHE_PARTS || len == 0 ||
	    len > MODCACHE_MAX_PART || off > fsize || len > fsize - off ||
	    len > MODCACHE_MAX_TOTAL - c->copied)
		return -1;
	p->data = malloc(len);
	if (!p->data)
		return -1;
	if (pread_full(fd, p->data, len, off)) {
		free(p->data);
		p->data = NULL;
		return -1;
	}
	p->off = off;
	p->len = len;
	m->nparts++;
	c->copied += len;
	return 0;
}

/* The PT_LOAD segment whose file bytes hold link-time address v. */
static const Elf64_Phdr *load_of(const Elf64_Phdr *ph, size_t n, uint64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && v >= ph[i].p_vaddr &&
		    v - ph[i].p_vaddr < ph[i].p_filesz)
			return &ph[i];
	return NULL;
}

/*
 * The unwind tables of the file: .eh_frame_hdr (segment hdr) and
 * .eh_frame, which its eh_frame_ptr locates; .eh_frame runs at most to
 * the end of its PT_LOAD segment's file bytes (no section headers are
 * needed: sstrip removes them).  Linkers put the two side by side (GNU
 * ld: header first; lld and gold: .eh_frame first), so one part holds
 * both, and at most a few small sections after (.gcc_except_table).
 */
static int read_tables(struct modcache *c, int fd, uint64_t fsize,
		       const Elf64_Phdr *ph, size_t n, const Elf64_Phdr *hdr,
		       struct module *m)
{
	uint8_t head[32];
	const Elf64_Phdr *seg;
	uint64_t ef, ef_off, first, last;

	if (hdr->p_filesz < 4 || hdr->p_offset > fsize ||
	    pread_full(fd, head,
		       sizeof(head) < hdr->p_filesz ? sizeof(head) :
						      hdr->p_filesz,
		       hdr->p_offset) ||
	    ehframe_frame_addr(head,
			       sizeof(head) < hdr->p_filesz ? sizeof(head) :
							      hdr->p_filesz,
			       hdr->p_vaddr, &ef) ||
	    !(seg = load_of(ph, n, ef)))
		return -1;
	ef_off = seg->p_offset + (ef - seg->p_vaddr);
	first = ef_off < hdr->p_offset ? ef_off : hdr->p_offset;
	last = seg->p_offset + seg->p_filesz;
	if (hdr->p_offset + hdr->p_filesz > last)
		last = hdr->p_offset + hdr->p_filesz;
	if (last < first)
		return -1;
	return read_part(c, fd, fsize, first, last - first, m);
}

/* A new buffer of the file's bytes [off, off + len), at most max. */
static uint8_t *read_new(int fd, uint64_t fsize, uint64_t off, uint64_t len,
			 uint64_t max)
{
	uint8_t *buf;

	if (len == 0 || len > max || off > fsize || len > fsize - off ||
	    !(buf = malloc(len)))
		return NULL;
	if (pread_full(fd, buf, len, off)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The link-time addresses [*lo, *hi) of the file's executable segments;
 * false if it has none. */
static bool exec_range(const Elf64_Phdr *ph, size_t n, uint64_t *lo,
		       uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) ||
		    ph[i].p_vaddr + ph[i].p_memsz < ph[i].p_vaddr)
			continue;
		if (ph[i].p_vaddr < *lo)
			*lo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > *hi)
			*hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	return *lo < *hi;
}

/*
 * The file's .debug_frame (debugframe.h), found by its section headers,
 * converted into m->dwf: the unwind tables of a file with no
 * .eh_frame_hdr (Go), or of code its .eh_frame does not cover.  The
 * section headers, their string table and the section are read into
 * buffers freed here; only the converted image is kept.  Quietly nothing
 * when any of it is missing, too large or malformed.
 */
static void read_debug_frame(struct modcache *c, int fd, uint64_t fsize,
			     const Elf64_Ehdr *eh, const Elf64_Phdr *ph,
			     struct module *m)
{
	uint8_t *shdrs = NULL, *strtab = NULL, *sec = NULL;
	const Elf64_Shdr *sh, *str;
	uint64_t lo, hi, max = MODCACHE_MAX_TOTAL - c->copied;
	char err[128];
	int i;

	if (max > MODCACHE_MAX_DEBUG_FRAME)
		max = MODCACHE_MAX_DEBUG_FRAME;
	/* e_shnum 0 with e_shoff set: more than 0xff00 sections, counted in
	 * the first header (no linker output that large has .debug_frame) */
	if (eh->e_shentsize != sizeof(*sh) || eh->e_shnum == 0 ||
	    eh->e_shstrndx >= eh->e_shnum ||
	    !exec_range(ph, eh->e_phnum, &lo, &hi) ||
	    !(shdrs = read_new(fd, fsize, eh->e_shoff,
			       (uint64_t)eh->e_shnum * sizeof(*sh), max)))
		goto out;
	sh = (const Elf64_Shdr *)shdrs;
	str = &sh[eh->e_shstrndx];
	if (str->sh_type == SHT_NOBITS ||
	    !(strtab = read_new(fd, fsize, str->sh_offset, str->sh_size,
				SHSTRTAB_MAX)) ||
	    (i = debugframe_find(sh, eh->e_shnum, (const char *)strtab,
				 str->sh_size)) < 0 ||
	    !(sec = read_new(fd, fsize, sh[i].sh_offset, sh[i].sh_size, max)))
		goto out;
	m->dwf = debugframe_build(sec, sh[i].sh_size,
				  sh[i].sh_flags & SHF_COMPRESSED, lo, hi, max,
				  err, sizeof(err));
	if (m->dwf)
		c->copied += m->dwf->len;
out:
	free(sec);
	free(strtab);
	free(shdrs);
}

/* Copy the headers and unwind tables of the ELF file fd into m. */
static void read_file(struct modcache *c, int fd, struct module *m)
{
	const Elf64_Phdr *ph, *hdr = NULL;
	struct stat st;
	Elf64_Ehdr eh;
	uint64_t end;

	/* st_blocks counts 512-byte units on Linux whatever the fs block */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_blocks * 512 < (uint64_t)st.st_size / 8 ||
	    pread_full(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(*ph) || eh.e_phoff > HEADERS_MAX)
		return;
	end = eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(*ph);
	if (end < sizeof(eh))
		end = sizeof(eh);
	if (read_part(c, fd, (uint64_t)st.st_size, 0, end, m))
		return;
	ph = (const Elf64_Phdr *)(m->part[0].data + eh.e_phoff);
	for (size_t i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			hdr = &ph[i];
	/* without tables a module is still something: its headers */
	if (hdr)
		read_tables(c, fd, (uint64_t)st.st_size, ph, eh.e_phnum, hdr,
			    m);
	read_debug_frame(c, fd, (uint64_t)st.st_size, &eh, ph, m);
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
			ok = thread_root(pid, (pid_t)atoi(de->d_name), buf,
					 len);
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
static void load_file(struct modcache *c, const struct map_entry *e, pid_t tid,
		      struct module *m)
{
	struct mapfile_ref ref = { e->path, e->start, e->end, e->ino, e->dev };
	char root[64];
	int fd;

	live_root(c->pid, tid ? tid : c->pid, root, sizeof(root));
	fd = mapfile_open(root, c->pid, &ref);
	if (fd < 0)
		return;
	read_file(c, fd, m);
	close(fd);
}

static void load_vdso(struct modcache *c, const struct map_entry *e, pid_t tid,
		      struct module *m)
{
	size_t len = e->end - e->start;
	uint8_t *buf;

	if (len > VDSO_MAX)
		return;
	buf = malloc(len);
	if (!buf)
		return;
	if (vmread_all(tid, e->start, buf, len)) {
		free(buf);
		return;
	}
	m->part[0] = (struct module_part){ 0, len, buf };
	m->nparts = 1;
	c->copied += len;
}

const struct module *modcache_get(struct modcache *c, const struct map_entry *e,
				  pid_t tid)
{
	bool vdso = !strcmp(e->path, "[vdso]");
	const char *key = e->path;
	struct hashtab_probe p;
	struct module *m, **nv;
	size_t i;

	if (!vdso && !maps_entry_is_file(e))
		return NULL;
	if (hashtab_reserve(&c->idx, c->nmods + 1))
		return NULL;
	hashtab_probe_init(&c->idx, hash_mix64(hash_fnv1a_str(key)), &p);
	while (hashtab_next(&c->idx, &p, &i))
		if (!strcmp(c->mods[i]->key, key))
			return c->mods[i]->nparts ? c->mods[i] : NULL;
	nv = grow_array(c->mods, &c->cap_mods, c->nmods + 1, sizeof(*nv));
	if (!nv)
		return NULL;
	c->mods = nv;
	m = calloc(1, sizeof(*m));
	if (!m || !(m->key = strdup(key))) {
		free(m);
		return NULL;
	}
	if (vdso)
		load_vdso(c, e, tid, m);
	else
		load_file(c, e, tid, m);
	hashtab_set(&c->idx, &p, c->nmods); /* room reserved above */
	c->mods[c->nmods++] = m;
	return m->nparts ? m : NULL;
}

const uint8_t *modcache_bytes(const struct module *mod, uint64_t off,
			      size_t len)
{
	for (size_t i = 0; i < mod->nparts; i++) {
		const struct module_part *p = &mod->part[i];

		if (off >= p->off && off - p->off <= p->len &&
		    len <= p->len - (off - p->off))
			return p->data + (off - p->off);
	}
	return NULL;
}

int modcache_read(const struct module *mod, const struct map_entry *e,
		  uint64_t addr, void *buf, size_t len)
{
	const uint8_t *p;

	if (addr < e->start || addr + len > e->end || addr + len < addr)
		return -1;
	p = modcache_bytes(mod, e->offset + (addr - e->start), len);
	if (!p)
		return -1;
	memcpy(buf, p, len);
	return 0;
}
