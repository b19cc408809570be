/*
 * debugfile.c - separate debug files by build ID and .gnu_debuglink
 * (see debugfile.h).
 */
#include "config.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/debugfile.h"
#include "elf/debuginfod.h"
#include "proc/mapfile.h"
#include "proc/maps.h"
#include "util/safeopen.h"
#include "util/timeutil.h"

/* A debug file's path comes from the stripped file (its build ID, its
 * .gnu_debuglink) or a profile: O_PATH first, only a regular file opened
 * for reading (util/safeopen.h). */
Elf *debugfile_open_elf(const char *path, int *fdp)
{
	return debugfile_elf_begin(safeopen_read(AT_FDCWD, path, 0, 0, NULL),
				   fdp);
}

/* Less than an eighth of st's size allocated: no linker writes that.
 * st_blocks counts 512-byte units on Linux whatever the fs block. */
static bool sparse(const struct stat *st)
{
	return (uint64_t)st->st_blocks * 512 < (uint64_t)st->st_size / 8;
}

Elf *debugfile_elf_begin(int fd, int *fdp)
{
	struct stat st;
	Elf *elf;

	if (fd < 0)
		return NULL;
	/* A sparse file is not read: libelf copies a section whole, and a
	 * 16 KB file whose .symtab claims 2 GiB of holes made a root
	 * ptprof take 2.1 GB writing the .pb.gz of its target (debugfile.h) */
	if (fstat(fd, &st) || sparse(&st)) {
		close(fd);
		return NULL;
	}
	/* not ELF_C_READ_MMAP: a mapped file its owner truncates raises
	 * SIGBUS on the next read of a lost page (debugfile.h) */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		*fdp = fd;
		return elf;
	}
	elf_end(elf);
	close(fd);
	return NULL;
}

static bool to_hex(const unsigned char *b, size_t n, char *buf, size_t len)
{
	if (n < 2 || 2 * n + 1 > len)
		return false;
	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = "0123456789abcdef"[b[i] >> 4];
		buf[2 * i + 1] = "0123456789abcdef"[b[i] & 15];
	}
	buf[2 * n] = '\0';
	return true;
}

/* Find an NT_GNU_BUILD_ID note in one note section's data. */
static bool note_build_id(Elf_Data *data, char *buf, size_t len)
{
	size_t off = 0, next, name_off, desc_off;
	const char *d = data->d_buf;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(d + name_off, "GNU", 4) == 0)
			return to_hex((const unsigned char *)d + desc_off,
				      nh.n_descsz, buf, len);
		off = next;
	}
	return false;
}

bool debugfile_build_id(Elf *elf, char *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && note_build_id(data, buf, len))
			return true;
	}
	return false;
}

/*
 * Whether the debug file open as fd (path cand) may be used for a
 * stripped file owned by owner (debugfile.h): the link that is its last
 * component and the file itself owned by root or owner, regular, at most
 * DEBUGFILE_MAX_SIZE bytes and not sparse.
 */
static bool trusted(int fd, const char *cand, uid_t owner)
{
	struct stat st;

	if (lstat(cand, &st) ||
	    (S_ISLNK(st.st_mode) && st.st_uid != 0 && st.st_uid != owner))
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != owner) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > DEBUGFILE_MAX_SIZE)
		return false;
	return !sparse(&st);
}

/* cand opened with libelf if trusted() for owner; NULL otherwise. */
static Elf *open_trusted(const char *cand, uid_t owner, int *fd)
{
	Elf *dbg = debugfile_open_elf(cand, fd);

	if (dbg && !trusted(*fd, cand, owner)) {
		elf_end(dbg);
		close(*fd);
		return NULL;
	}
	return dbg;
}

static Elf *by_build_id(Elf *elf, const char *root, uid_t owner, int *fd)
{
	char id[2 * 64 + 1], path[4096], dbg_id[sizeof(id)];
	Elf *dbg;
	int n;

	if (!debugfile_build_id(elf, id, sizeof(id)))
		return NULL;
	n = snprintf(path, sizeof(path),
		     "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, id,
		     id + 2);
	if (n < 0 || (size_t)n >= sizeof(path))
		return NULL;
	dbg = open_trusted(path, owner, fd);
	/* a debug file with another build ID is another file's */
	if (dbg && debugfile_build_id(dbg, dbg_id, sizeof(dbg_id)) &&
	    strcmp(dbg_id, id)) {
		elf_end(dbg);
		close(*fd);
		return NULL;
	}
	return dbg;
}

/* The CRC-32 of .gnu_debuglink: IEEE 802.3, reflected, as zlib's crc32;
 * c is the CRC of what came before (0 at first). */
static uint32_t crc32_update(uint32_t c, const unsigned char *p, size_t n)
{
	static uint32_t table[256];

	c ^= 0xffffffffu;
	if (!table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t v = i;

			for (int k = 0; k < 8; k++)
				v = v & 1 ? 0xedb88320u ^ (v >> 1) : v >> 1;
			table[i] = v;
		}
	for (size_t i = 0; i < n; i++)
		c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

/*
 * Whether the CRC-32 of fd is want, read in chunks with pread() (a file
 * cut meanwhile is a short read, not a SIGBUS), within the time left in
 * *ns, which it lowers by the time taken.  The table is zlib's.
 */
static bool crc_matches(int fd, uint32_t want, int64_t *ns)
{
	enum { CHUNK = 1 << 20 };
	unsigned char *buf = malloc(CHUNK);
	uint64_t t0 = mono_now_ns();
	uint32_t c = 0;
	off_t off = 0;
	ssize_t n;
	bool ok = false;

	while (buf && *ns > 0) {
		n = pread(fd, buf, CHUNK, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = n == 0 && c == want;
			break;
		}
		c = crc32_update(c, buf, (size_t)n);
		off += n;
		*ns -= (int64_t)(mono_now_ns() - t0);
		t0 = mono_now_ns();
	}
	free(buf);
	return ok;
}

Elf_Scn *debugfile_section(Elf *elf, const char *name, GElf_Shdr *sh)
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

/* The .gnu_debuglink name and CRC of elf. */
static bool debuglink(Elf *elf, const char **name, uint32_t *crc)
{
	size_t len, off;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;

	scn = debugfile_section(elf, ".gnu_debuglink", &sh);
	if (!scn)
		return false;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size < 8)
		return false;
	len = strnlen(d->d_buf, d->d_size);
	off = (len + 4) & ~(size_t)3; /* NUL, then 4-aligned CRC */
	if (len == 0 || off + 4 > d->d_size)
		return false;
	*name = d->d_buf;
	memcpy(crc, (const char *)d->d_buf + off, 4);
	return true;
}

/* Candidate i (0..2) for the debug file NAME of PATH, into buf. */
static bool candidate(int i, const char *root, const char *path,
		      const char *name, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0, n;

	switch (i) {
	case 0:
		n = snprintf(buf, len, "%s%.*s/%s", root, dirlen, path, name);
		break;
	case 1:
		n = snprintf(buf, len, "%s%.*s/.debug/%s", root, dirlen, path,
			     name);
		break;
	default:
		n = snprintf(buf, len, "%s/usr/lib/debug%.*s/%s", root, dirlen,
			     path, name);
		break;
	}
	return n > 0 && (size_t)n < len;
}

static Elf *by_debuglink(Elf *elf, const char *path, const char *root,
			 uid_t owner, int64_t *crc_ns, int *fd)
{
	const char *name;
	char cand[4096];
	uint32_t crc;
	Elf *dbg;

	if (!debuglink(elf, &name, &crc) || strchr(name, '/'))
		return NULL;
	for (int i = 0; i < 3; i++) {
		if (!candidate(i, root, path, name, cand, sizeof(cand)))
			continue;
		/* The stripped file links to itself by name when it is in
		 * the same directory under the same name: skip that. */
		if (i == 0 && !strcmp(cand + strlen(root), path))
			continue;
		dbg = open_trusted(cand, owner, fd);
		if (!dbg)
			continue;
		if (crc_matches(*fd, crc, crc_ns))
			return dbg;
		elf_end(dbg);
		close(*fd);
	}
	return NULL;
}

/* Whether elf holds DWARF itself: a .debug_info (or Go's older
 * .zdebug_info) with contents. */
static bool own_dwarf(Elf *elf)
{
	GElf_Shdr sh;

	return (debugfile_section(elf, ".debug_info", &sh) ||
		debugfile_section(elf, ".zdebug_info", &sh)) &&
	       sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
}

Elf *debugfile_open(Elf *elf, int elf_fd, const char *path, const char *root,
		    int64_t *crc_ns, int *fd)
{
	char id[2 * 64 + 1];
	struct stat st;
	Elf *dbg;

	if (fstat(elf_fd, &st))
		return NULL;
	dbg = by_build_id(elf, root ? root : "", st.st_uid, fd);
	if (!dbg)
		dbg = by_debuglink(elf, path, root ? root : "", st.st_uid,
				   crc_ns, fd);
	/* none here: a debuginfod server may have it (debuginfod.h checks
	 * what it gets); not asked for a file with DWARF of its own (built
	 * with -g), as libdwfl and gdb do not ask */
	if (!dbg && debuginfod_enabled() && !own_dwarf(elf) &&
	    debugfile_build_id(elf, id, sizeof(id)))
		dbg = debuginfod_fetch(DEBUGINFOD_DEBUGINFO, id, path, fd);
	return dbg;
}

int debugfile_set_alt(Dwarf *dw, int elf_fd, const char *root,
		      struct debugfile_alt *alt)
{
	char hex[2 * 64 + 1], got[sizeof(hex)], path[4096];
	const char *name;
	const void *id;
	ssize_t n = dwelf_dwarf_gnu_debugaltlink(dw, &name, &id);
	struct stat st;
	int k;

	*alt = (struct debugfile_alt){ NULL, NULL, -1 };
	/* 0: no link; -1: a malformed one, which libdw will not follow
	 * either (it gives up at the same call) */
	if (n <= 0)
		return 0;
	if (!root)
		root = "";
	if (!to_hex(id, (size_t)n, hex, sizeof(hex)) || fstat(elf_fd, &st))
		return -1;
	for (int i = 0; i < 2; i++) {
		if (i == 0)
			k = snprintf(path, sizeof(path),
				     "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
				     root, hex, hex + 2);
		else if (name[0] == '/')
			k = snprintf(path, sizeof(path), "%s%s", root, name);
		else
			break; /* relative: not looked for (libdw would) */
		if (k < 0 || (size_t)k >= sizeof(path))
			continue;
		alt->elf = open_trusted(path, st.st_uid, &alt->fd);
		if (alt->elf &&
		    debugfile_build_id(alt->elf, got, sizeof(got)) &&
		    !strcmp(got, hex) &&
		    (alt->dw = dwarf_begin_elf(alt->elf, DWARF_C_READ, NULL))) {
			dwarf_setalt(dw, alt->dw);
			return 0;
		}
		debugfile_alt_free(alt);
	}
	return -1;
}

void debugfile_alt_free(struct debugfile_alt *alt)
{
	if (alt->dw)
		dwarf_end(alt->dw);
	if (alt->elf) {
		elf_end(alt->elf);
		close(alt->fd);
	}
	*alt = (struct debugfile_alt){ NULL, NULL, -1 };
}

/* The build ID of e's file, or NULL. */
static char *build_id_of(const struct map_entry *e, const char *root, pid_t pid)
{
	struct mapfile_ref ref = { e->path, e->start, e->end, e->ino, e->dev };
	char id[129];
	bool ok;
	Elf *elf;
	int fd;

	elf = debugfile_elf_begin(mapfile_open_exact(root, pid, &ref), &fd);
	if (!elf)
		return NULL;
	ok = debugfile_build_id(elf, id, sizeof(id));
	elf_end(elf);
	close(fd);
	return ok ? strdup(id) : NULL;
}

void debugfile_maps_build_ids(struct maps *m, const char *root, pid_t pid)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	for (size_t i = 0; i < maps_count(m); i++) {
		const struct map_entry *e = maps_entry(m, i);

		if (e->gone || !e->exec || !maps_entry_is_file(e) ||
		    e->build_id_tried)
			continue;
		maps_set_build_id(m, i, build_id_of(e, root, pid));
	}
}
