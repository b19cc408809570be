/*
 * test_maps - the maps snapshot union: a newer snapshot replaces what it
 * overlaps, executable mappings that vanished are kept (dlclose), other
 * vanished mappings are dropped, and the output is ordered by address.
 * A kept mapping is gone: written, but no lookup finds it (a PC there must
 * make the sampler read the maps again, not unwind with a stale image).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	return unit_result("test_maps");
}
