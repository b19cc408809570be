/*
 * test_livename - names of a live run's PCs: an address that nothing
 * names yet (the image's maps did not hold its library when the
 * symbolizer was built) is not cached as "0xADDRESS" for good, and gets
 * its function's name once the maps have it and the symbolizer is built
 * again (at most once a second); a named address is cached.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/livename.h"
#include "profile/procset.h"
#include "unit.h"

__attribute__((noinline)) int livename_probe(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len + 4096 > cap) {
			char *nb = realloc(buf, cap = *len + 65536);

			if (!nb)
				break;
			buf = nb;
		}
		size_t n = fread(buf + *len, 1, cap - *len - 1, f);

		if (!n)
			break;
		*len += n;
	}
	fclose(f);
	if (buf)
		buf[*len] = '\0';
	return buf;
}

static void check_named_late(void)
{
	struct procset *ps = procset_new();
	struct proc_image *im = ps ? procset_add(ps, getpid(), 0, "t") : NULL;
	struct livename *ln = ps ? livename_new(ps, NULL) : NULL;
	uint64_t pc = (uint64_t)(uintptr_t)&livename_probe;
	const char *name = NULL, *module = NULL;
	size_t len;
	char *maps;
	int tries = 0;

	CHECK(ps && im && ln);
	/* The maps are empty: nothing names it. */
	CHECK(livename_get(ln, im, pc, false, &name, &module) == 0);
	CHECKF(!strncmp(name, "0x", 2) && !module, "named '%s'", name);
	CHECKF(livename_cached(ln) == 0, "'%s' cached", name);
	/* The maps have it now; the symbolizer is built again after a
	 * second (a bounded wait: 50 x 0.1 s). */
	maps = slurp("/proc/self/maps", &len);
	CHECK(maps && maps_update(im->maps, maps, len) == 0);
	free(maps);
	do {
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
		CHECK(livename_get(ln, im, pc, false, &name, &module) == 0);
	} while (strcmp(name, "livename_probe") && ++tries < 50);
	CHECKF(!strcmp(name, "livename_probe"), "still named '%s'", name);
	CHECKF(module && !strcmp(module, "test_livename"), "module '%s'",
	       module ? module : "(none)");
	CHECK(livename_cached(ln) == 1);
	livename_free(ln);
	procset_free(ps);
}

int main(void)
{
	check_named_late();
	return unit_result("test_livename");
}
