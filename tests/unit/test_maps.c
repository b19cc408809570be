/*
 * test_maps - the maps snapshot union: a newer snapshot replaces what it
 * overlaps, executable mappings that vanished are kept (dlclose), other
 * vanished mappings are dropped, and the output is ordered by address.
 * A kept mapping is gone: written, but no lookup finds it (a PC there must
 * make the sampler read the maps again, not unwind with a stale image).
 * Build IDs: read from this test's own executable through its own maps,
 * written on a brief line before its mapping, kept by a newer snapshot.
 * The line parser: the kernel's forms accepted with every field right;
 * every malformed variant rejected with EINVAL and one sentence naming
 * the column of the fault and what was expected there.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/debugfile.h"
#include "proc/maps.h"
#include "unit.h"

static char *text_of(const struct maps *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	maps_write(m, f);
	fclose(f);
	return buf;
}

static char *self_maps(size_t *len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char *buf = malloc(1 << 20);

	*len = f && buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct good_line {
	const char *line;
	uint64_t start, end, offset, ino;
	const char *perms; /* "rwx" as parsed, '-' for no */
	const char *path;
};

static const struct good_line good_lines[] = {
	{ "7f0000000000-7f0000001000 r-xp 00002000 08:01 7 "
	  "/usr/lib/libgone.so (deleted)",
	  0x7f0000000000, 0x7f0000001000, 0x2000, 7, "r-x",
	  "/usr/lib/libgone.so (deleted)" },
	/* the kernel pads with spaces before the path */
	{ "00400000-00452000 r-xs 00000000 fd:01 1234567              /bin/x",
	  0x400000, 0x452000, 0, 1234567, "r-x", "/bin/x" },
	/* anonymous: the kernel ends the line with a space, others do not */
	{ "7ffd1000-7ffd2000 rw-p 00000000 00:00 0 ", 0x7ffd1000, 0x7ffd2000, 0,
	  0, "rw-", "" },
	{ "7ffd1000-7ffd2000 rw-p 00000000 00:00 0", 0x7ffd1000, 0x7ffd2000, 0,
	  0, "rw-", "" },
	/* gperftools writes '-' for a shared mapping's 'p'; hex in capitals */
	{ "ABC000-ABD000 ---- 0 0:0 0 [x y]", 0xabc000, 0xabd000, 0, 0, "---",
	  "[x y]" },
	/* the widest numbers: 16 hex digits, an inode of 2^64 - 1 */
	{ "fffffffffffff000-ffffffffffffffff r--p ffffffffffffffff "
	  "ffffffff:ffffffff 18446744073709551615 /z",
	  0xfffffffffffff000, UINT64_MAX, UINT64_MAX, UINT64_MAX, "r--", "/z" },
};

struct bad_line {
	const char *line;
	size_t col;	  /* column named by the message */
	const char *what; /* a word of the message */
};

static const struct bad_line bad_lines[] = {
	{ "", 1, "start address" },
	{ "zz-2000 r-xp 0 0:0 0", 1, "start address" },
	{ "10000000000000000-20000000000000000 r-xp 0 0:0 0", 1,
	  "start address" },
	{ "1000 2000 r-xp 0 0:0 0", 5, "'-'" },
	{ "1000-", 6, "end address" },
	{ "1000-x r-xp 0 0:0 0", 6, "end address" },
	{ "1000-2000r-xp 0 0:0 0", 10, "space after the end" },
	{ "2000-1000 r-xp 0 0:0 0", 1, "not above" },
	{ "1000-1000 r-xp 0 0:0 0", 1, "not above" },
	{ "1000-2000 r-x", 11, "permissions" },
	{ "1000-2000 rxwp 0 0:0 0", 11, "permissions" },
	{ "1000-2000 r-xq 0 0:0 0", 11, "permissions" },
	{ "1000-2000 R-XP 0 0:0 0", 11, "permissions" },
	{ "1000-2000 r-xp0 0:0 0", 15, "space after the permissions" },
	{ "1000-2000 r-xp  0 0:0 0", 16, "file offset" },
	{ "1000-2000 r-xp /bin/x (@0) 0123abcd", 16, "file offset" },
	{ "1000-2000 r-xp 0", 17, "space after the file offset" },
	{ "1000-2000 r-xp 0 /bin/x", 18, "device" },
	{ "1000-2000 r-xp 0 08 1 /x", 18, "device" },
	{ "1000-2000 r-xp 0 08: 1 /x", 18, "device" },
	{ "1000-2000 r-xp 0 123456789:0 0", 18, "device" },
	{ "1000-2000 r-xp 0 0:0", 21, "space after the device" },
	{ "1000-2000 r-xp 0 0:0 x", 22, "inode" },
	{ "1000-2000 r-xp 0 0:0 -1", 22, "inode" },
	{ "1000-2000 r-xp 0 0:0 18446744073709551616", 22, "inode" },
	{ "1000-2000 r-xp 0 0:0 12x /x", 24, "after the inode" },
	{ "1000-2000 r-xp 0 0:0 12\t/x", 24, "after the inode" },
};

static void parse_good(const struct good_line *g)
{
	char buf[256], err[128] = "";
	struct maps_line ml;
	size_t len = strlen(g->line);
	char perms[4];
	int rc;

	/* not NUL-terminated: garbage follows the line */
	memcpy(buf, g->line, len);
	memcpy(buf + len, "X 1-2 junk", 11);
	rc = maps_parse_line(buf, len, &ml, err, sizeof(err));
	CHECKF(rc == 0, "'%s': %s", g->line, err);
	if (rc)
		return;
	snprintf(perms, sizeof(perms), "%c%c%c", ml.read ? 'r' : '-',
		 ml.write ? 'w' : '-', ml.exec ? 'x' : '-');
	CHECKF(ml.start == g->start && ml.end == g->end &&
		       ml.offset == g->offset && ml.ino == g->ino,
	       "'%s': %" PRIx64 "-%" PRIx64 " %" PRIx64 " ino %" PRIu64,
	       g->line, ml.start, ml.end, ml.offset, ml.ino);
	CHECKF(!strcmp(perms, g->perms), "'%s': perms %s", g->line, perms);
	CHECKF(ml.path_off <= len && strlen(g->path) == len - ml.path_off &&
		       !memcmp(buf + ml.path_off, g->path, strlen(g->path)),
	       "'%s': path at %zu", g->line, ml.path_off);
}

static void parse_bad(const struct bad_line *b)
{
	char err[128], want[64], shrt[12];
	struct maps_line ml;
	size_t len = strlen(b->line);

	memset(err, 'x', sizeof(err));
	errno = 0;
	CHECKF(maps_parse_line(b->line, len, &ml, err, sizeof(err)) == -1 &&
		       errno == EINVAL,
	       "'%s' accepted", b->line);
	snprintf(want, sizeof(want), "bad maps line at column %zu: ", b->col);
	CHECKF(memchr(err, '\0', sizeof(err)) &&
		       !strncmp(err, want, strlen(want)) &&
		       strstr(err, b->what) && !strchr(err, '\n'),
	       "'%s': wanted column %zu and '%s', got '%.*s'", b->line, b->col,
	       b->what, (int)sizeof(err), err);
	/* a short buffer is cut and terminated, no buffer is fine */
	CHECK(maps_parse_line(b->line, len, &ml, shrt, sizeof(shrt)) == -1 &&
	      strlen(shrt) == sizeof(shrt) - 1);
	CHECK(maps_parse_line(b->line, len, &ml, NULL, 0) == -1 &&
	      errno == EINVAL);
}

/* A line cut short by its length, and a NUL inside the fields. */
static void parse_bounds(void)
{
	const char *line = "1000-2000 r-xp 0 0:0 1 /x";
	char nul[] = "1000-2000 r\0xp 0 0:0 1 /x";
	struct maps_line ml;

	for (size_t i = 0; i < strlen("1000-2000 r-xp 0 0:0 1"); i++)
		CHECKF(maps_parse_line(line, i, &ml, NULL, 0) == -1,
		       "accepted cut at %zu", i);
	CHECK(maps_parse_line(line, strlen("1000-2000 r-xp 0 0:0 1"), &ml, NULL,
			      0) == 0 &&
	      ml.ino == 1);
	CHECK(maps_parse_line(nul, sizeof(nul) - 1, &ml, NULL, 0) == -1);
}

static void parse_lines(void)
{
	for (size_t i = 0; i < N(good_lines); i++)
		parse_good(&good_lines[i]);
	for (size_t i = 0; i < N(bad_lines); i++)
		parse_bad(&bad_lines[i]);
	parse_bounds();
}

/* maps_copy_build_ids(): a union of src's text, as cmd_record makes for
 * an exec'd process, gets src's brief lines back. */
static void copy_build_ids(const struct maps *src, const char *text, size_t len)
{
	struct maps *u = maps_new();
	char *out;

	CHECK(maps_update(u, text, len) == 0);
	out = text_of(u);
	CHECK(strstr(out, " r-xp /") == NULL); /* no ID carried by text */
	free(out);
	maps_copy_build_ids(u, src);
	out = text_of(u);
	CHECK(strstr(out, " r-xp /") != NULL);
	free(out);
	maps_free(u);
}

/* The brief line "START-END r-xp PATH (@OFFSET) ID" comes before the
 * mapping of this executable. */
static void build_ids(void)
{
	struct maps *m = maps_new();
	char exe[4096], *text, *out, *brief;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t len;

	CHECK(n > 0);
	exe[n > 0 ? n : 0] = '\0';
	text = self_maps(&len);
	CHECK(maps_update(m, text, len) == 0);
	debugfile_maps_build_ids(m, NULL, getpid());
	out = text_of(m);
	brief = strstr(out, " r-xp /");
	CHECKF(brief && strstr(brief, exe) == brief + 6 &&
		       brief[6 + strlen(exe)] == ' ' &&
		       !strncmp(brief + 7 + strlen(exe), "(@", 2),
	       "no brief line for %s in:\n%s", exe, out);
	free(out);
	/* the same snapshot again: the ID is kept without reading it */
	CHECK(maps_update(m, text, len) == 0);
	out = text_of(m);
	CHECK(strstr(out, " r-xp /") != NULL);
	free(out);
	/* a union made from the written text has the IDs once copied */
	copy_build_ids(m, text, len);
	free(text);
	maps_free(m);
}

int main(void)
{
	const char *first = "1000-2000 r-xp 00000000 08:01 1 /bin/app\n"
			    "3000-4000 r-xp 00000000 08:01 2 /lib/libplugin.so\n"
			    "5000-6000 rw-p 00000000 00:00 0 [heap]\n";
	const char *second = "1000-2000 r-xp 00000000 08:01 1 /bin/app\n"
			     "7000-8000 rw-p 00000000 00:00 0 [heap]\n";
	const char *third = "1000-2000 r-xp 00000000 08:01 1 /bin/app\n"
			    "3800-3900 r-xp 00000000 08:01 3 /lib/libother.so\n";
	struct maps *m = maps_new();
	char *out;

	CHECK(maps_update(m, first, strlen(first)) == 0);
	CHECK(maps_count(m) == 3);
	CHECK(maps_covers_exec(m, 0x1800));
	CHECK(maps_covers_exec(m, 0x3000));
	CHECK(!maps_covers_exec(m, 0x5800)); /* mapped, not executable */
	CHECK(!maps_covers_exec(m, 0x2000)); /* end is exclusive */

	CHECK(maps_update(m, second, strlen(second)) == 0);
	out = text_of(m);
	CHECK(!strcmp(out, "1000-2000 r-xp 00000000 08:01 1 /bin/app\n"
			   "3000-4000 r-xp 00000000 08:01 2 /lib/libplugin.so\n"
			   "7000-8000 rw-p 00000000 00:00 0 [heap]\n"));
	free(out);
	CHECK(maps_count(m) == 3);
	CHECK(!maps_covers_exec(m, 0x3000)); /* gone: not a live mapping */
	CHECK(maps_find(m, 0x3000) == NULL);
	CHECK(maps_find_at_or_above(m, 0x2800)->start == 0x7000);
	CHECK(maps_find(m, 0x1000)->start == 0x1000);

	/* the plugin's range is reused: the newer mapping wins */
	CHECK(maps_update(m, third, strlen(third)) == 0);
	out = text_of(m);
	CHECK(!strcmp(out,
		      "1000-2000 r-xp 00000000 08:01 1 /bin/app\n"
		      "3800-3900 r-xp 00000000 08:01 3 /lib/libother.so\n"));
	free(out);

	CHECK(maps_update(m, "garbage\n", 8) < 0); /* nothing parseable */
	CHECK(maps_count(m) == 2);		   /* and nothing lost */
	maps_free(m);
	build_ids();
	parse_lines();
	return unit_result("test_maps");
}
