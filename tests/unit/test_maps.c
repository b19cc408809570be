/*
 * test_maps - the maps snapshot union: a newer snapshot replaces what it
 * overlaps, executable mappings that vanished are kept (dlclose), other
 * vanished mappings are dropped, and the output is ordered by address.
 * A kept mapping is gone: written, but no lookup finds it (a PC there must
 * make the sampler read the maps again, not unwind with a stale image).
 * Build IDs: read from this test's own executable through its own maps,
 * written on a brief line before its mapping, kept by a newer snapshot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maps.h"
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
	maps_read_build_ids(m, NULL, getpid());
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
	free(text);
	maps_free(m);
}

int main(void)
{
	const char *first =
		"1000-2000 r-xp 00000000 08:01 1 /bin/app\n"
		"3000-4000 r-xp 00000000 08:01 2 /lib/libplugin.so\n"
		"5000-6000 rw-p 00000000 00:00 0 [heap]\n";
	const char *second =
		"1000-2000 r-xp 00000000 08:01 1 /bin/app\n"
		"7000-8000 rw-p 00000000 00:00 0 [heap]\n";
	const char *third =
		"1000-2000 r-xp 00000000 08:01 1 /bin/app\n"
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
	CHECK(!strcmp(out, "1000-2000 r-xp 00000000 08:01 1 /bin/app\n"
			   "3800-3900 r-xp 00000000 08:01 3 /lib/libother.so\n"));
	free(out);

	CHECK(maps_update(m, "garbage\n", 8) < 0); /* nothing parseable */
	CHECK(maps_count(m) == 2);		   /* and nothing lost */
	maps_free(m);
	build_ids();
	return unit_result("test_maps");
}
