/*
 * profcat - print a gperftools CPU profile as text, for the test suite.
 *
 *   profcat FILE         one line per record, in file order, "folded":
 *                        root;caller;...;leaf COUNT
 *   profcat --modules FILE   the same, each frame followed by
 *                        @basename(module) when it has one
 *   profcat --raw FILE   one line per record: COUNT PC1 PC2 ... (hex,
 *                        leaf first, as stored)
 *
 * Frames are function names.  Caller frames (every PC after the first) are
 * looked up at PC-1, since they are return addresses.  A frame without a
 * function prints as basename(module)+0xOFF, or 0xPC outside every
 * mapping; OFF and PC are those of the PC as stored in the file, so they
 * match --raw.  Records are not merged.  On error: "profcat: FILE: why" on
 * stderr and exit status 1; usage errors exit 2.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "profile/profile_load.h"
#include "symbols/symbolize.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool with_modules;

static void print_frame(struct symbolizer *s, uint64_t pc, bool caller)
{
	uint64_t addr = caller && pc ? pc - 1 : pc;
	struct symbol_info si;

	symbolizer_lookup(s, addr, &si);
	if (si.func)
		fputs(si.func, stdout);
	else if (si.module)
		printf("%s+0x%" PRIx64, base_name(si.module),
		       si.module_off + (pc - addr));
	else
		printf("0x%" PRIx64, pc);
	if (with_modules && si.module)
		printf("@%s", base_name(si.module));
}

static void print_folded(struct symbolizer *s, const struct profile_record *r)
{
	size_t i;

	for (i = r->npcs; i-- > 0;) {
		print_frame(s, r->pcs[i], i > 0);
		if (i > 0)
			putchar(';');
	}
	printf(" %" PRIu64 "\n", r->count);
}

static void print_raw(const struct profile_record *r)
{
	size_t i;

	printf("%" PRIu64, r->count);
	for (i = 0; i < r->npcs; i++)
		printf(" 0x%" PRIx64, r->pcs[i]);
	putchar('\n');
}

static int print_profile(const struct profile *p, bool raw)
{
	struct symbolizer *s = NULL;
	size_t i;

	if (!raw) {
		s = symbolizer_new(p->maps_text, p->maps_len, NULL, 0);
		if (!s)
			return -1;
	}
	for (i = 0; i < p->nrecords; i++) {
		if (raw)
			print_raw(&p->records[i]);
		else
			print_folded(s, &p->records[i]);
	}
	symbolizer_free(s);
	return 0;
}

int main(int argc, char **argv)
{
	struct profile p;
	const char *path;
	char err[256];
	bool raw;
	int rc;

	raw = argc == 3 && strcmp(argv[1], "--raw") == 0;
	with_modules = argc == 3 && strcmp(argv[1], "--modules") == 0;
	if (argc != 2 + (raw || with_modules) || argv[argc - 1][0] == '-') {
		fputs("usage: profcat [--raw | --modules] FILE\n", stderr);
		return 2;
	}
	path = argv[argc - 1];
	if (profile_load_file(path, &p, err, sizeof(err))) {
		fprintf(stderr, "profcat: %s: %s\n", path, err);
		return 1;
	}
	rc = print_profile(&p, raw);
	profile_free(&p);
	if (rc || fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "profcat: %s: %s\n", path,
			rc ? "out of memory" : "write error");
		return 1;
	}
	return 0;
}
