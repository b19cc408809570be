/*
 * gen_corpus.c - writes the seed corpus of the fuzz targets.
 *
 * gen_corpus DIR writes DIR/profile_read/ (valid profiles: the smallest,
 * one with several records and a real-looking maps section, one with an
 * extended header) and DIR/symbolize_maps/ (their maps texts).  The seeds
 * are committed in fuzz/corpus/; `make fuzz-corpus` writes them again.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char maps_real[] =
	"555555554000-555555556000 r--p 00000000 08:01 1311 /usr/bin/app\n"
	"555555556000-555555559000 r-xp 00002000 08:01 1311 /usr/bin/app\n"
	"555555559000-55555555a000 rw-p 00005000 08:01 1311 /usr/bin/app\n"
	"555555560000-555555581000 rw-p 00000000 00:00 0 [heap]\n"
	"7ffff7dd0000-7ffff7df6000 r--p 00000000 08:01 2045 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7ffff7df6000-7ffff7f4b000 r-xp 00026000 08:01 2045 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7ffff7f60000-7ffff7f61000 r-xp 00000000 00:00 0 \n"
	"7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0 [vdso]\n"
	"7ffff7fd0000-7ffff7fd1000 r-xp 00000000 08:01 99 /tmp/gone.so (deleted)\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n";

static const char maps_one[] =
	"400000-401000 r-xp 00000000 08:01 1234 /bin/x\n";

static void put_slot(FILE *f, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		fputc((int)(v >> (8 * i) & 0xff), f);
}

static void write_file(const char *dir, const char *name,
		       const uint64_t *slots, size_t n, const char *text)
{
	char path[4096];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (i = 0; i < n; i++)
		put_slot(f, slots[i]);
	fputs(text, f);
	if (fclose(f)) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0777) && errno != EEXIST) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const uint64_t minimal[] = { 0, 3, 0, 10000, 0, 0, 1, 0 };
	static const uint64_t several[] = {
		0, 3, 0, 10000, 0,
		7, 3, 0x555555557010, 0x555555557123, 0x7ffff7df8d90,
		2, 1, 0x7ffff7e12345,
		1, 2, 0x7ffff7fc1a00, 0x555555557200,
		3, 2, 0x7ffff7f60010, 0x7ffff7fd0100,
		1, 1, 0xffffffffff600400,
		0, 1, 0,
	};
	static const uint64_t exthdr[] = {
		0, 6, 0, 4000, 0, 0x77, 0x88, 0x99,
		4, 2, 0x400100, 0x400200,
		0, 1, 0,
	};
	char pdir[4096], mdir[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus DIR\n");
		return 2;
	}
	snprintf(pdir, sizeof(pdir), "%s/profile_read", argv[1]);
	snprintf(mdir, sizeof(mdir), "%s/symbolize_maps", argv[1]);
	make_dir(argv[1]);
	make_dir(pdir);
	make_dir(mdir);
	write_file(pdir, "minimal.prof", minimal, N(minimal), "");
	write_file(pdir, "several.prof", several, N(several), maps_real);
	write_file(pdir, "exthdr.prof", exthdr, N(exthdr), maps_one);
	write_file(mdir, "real.maps", NULL, 0, maps_real);
	write_file(mdir, "one.maps", NULL, 0, maps_one);
	return 0;
}
