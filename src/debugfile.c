/*
 * debugfile.c - separate debug files by build ID and .gnu_debuglink
 * (see debugfile.h).
 */
#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debugfile.h"
#include "mapfile.h"

Elf *debugfile_open_elf(const char *path, int *fdp)
{
	return debugfile_elf_begin(mapfile_open_regular(path, 0), fdp);
}

Elf *debugfile_elf_begin(int fd, int *fdp)
{
	Elf *elf;

	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
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

static Elf *by_build_id(Elf *elf, const char *root, int *fd)
{
	char id[2 * 64 + 1], path[4096];
	int n;

	if (!debugfile_build_id(elf, id, sizeof(id)))
		return NULL;
	n = snprintf(path, sizeof(path),
		     "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, id,
		     id + 2);
	if (n < 0 || (size_t)n >= sizeof(path))
		return NULL;
	return debugfile_open_elf(path, fd);
}

/* The CRC-32 of .gnu_debuglink: IEEE 802.3, reflected, as zlib's crc32. */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
	static uint32_t table[256];
	uint32_t c = 0xffffffffu;

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

static bool crc_matches(int fd, uint32_t want)
{
	struct stat st;
	void *p;
	bool ok;

	if (fstat(fd, &st) || st.st_size <= 0)
		return false;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return false;
	ok = crc32_of(p, (size_t)st.st_size) == want;
	munmap(p, (size_t)st.st_size);
	return ok;
}

/* The .gnu_debuglink name and CRC of elf. */
static bool debuglink(Elf *elf, const char **name, uint32_t *crc)
{
	size_t shstrndx, len, off;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	const char *sname;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".gnu_debuglink"))
			continue;
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
	return false;
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
			 int *fd)
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
		dbg = debugfile_open_elf(cand, fd);
		if (!dbg)
			continue;
		if (crc_matches(*fd, crc))
			return dbg;
		elf_end(dbg);
		close(*fd);
	}
	return NULL;
}

Elf *debugfile_open(Elf *elf, const char *path, const char *root, int *fd)
{
	Elf *dbg = by_build_id(elf, root ? root : "", fd);

	return dbg ? dbg : by_debuglink(elf, path, root ? root : "", fd);
}
