/*
 * test_symbolize - unit tests of the symbolizer against this very process:
 * its maps text comes from /proc/self/maps, and the addresses looked up
 * are those of a noinline function of this test and of libc's qsort.
 * Exit 0 when every check passes, 1 otherwise (each failure is printed).
 *
 * Covers: symbolize_maps symcache symbolize_elf symbolize_dwarf
 * Covers: symbolize_stripped (the rest of the module, split out).
 */
#define _GNU_SOURCE 1
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "elf/debugfile.h"
#include "proc/maps.h"
#include "symbols/symbolize.h"
#include "unit.h"

/*
 * The function to find.  noinline/noclone keep one copy under its own
 * name whatever -O the build uses, and the body is long enough for +5.
 */
__attribute__((noinline, noclone)) static unsigned long
symbolize_target(unsigned long x)
{
	unsigned long i, h = 1469598103934665603UL;

	for (i = 0; i < x; i++)
		h = (h ^ i) * 1099511628211UL;
	return h;
}

static unsigned long (*volatile target_ptr)(unsigned long) = symbolize_target;

static char *read_self_maps(size_t *lenp)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap), *nb;
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t n;

	if (!buf || fd < 0)
		goto fail;
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			nb = realloc(buf, cap *= 2);
			if (!nb)
				goto fail;
			buf = nb;
		}
	}
	if (n < 0)
		goto fail;
	close(fd);
	buf[len] = '\0'; /* len < cap: the buffer grows when full */
	*lenp = len;
	return buf;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	return NULL;
}

static bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "(null)";
}

static const char *str(const char *s)
{
	return s ? s : "(null)";
}

static void expect_func(struct symbolizer *s, uint64_t addr, const char *func,
			uint64_t off, const char *what)
{
	struct symbol_info si;

	CHECKF(symbolizer_lookup(s, addr, &si) == 0, "%s: lookup", what);
	CHECKF(streq(si.func, func) && si.func_off == off,
	       "%s: 0x%" PRIx64 " gave %s+%" PRIu64 ", want %s+%" PRIu64, what,
	       addr, str(si.func), si.func_off, func, off);
	CHECKF(si.module != NULL, "%s: no module", what);
}

static void expect_unknown(struct symbolizer *s, uint64_t addr,
			   const char *module, const char *what)
{
	struct symbol_info si;

	CHECKF(symbolizer_lookup(s, addr, &si) == 0, "%s: lookup", what);
	CHECKF(si.func == NULL, "%s: 0x%" PRIx64 " gave func %s", what, addr,
	       str(si.func));
	CHECKF(module ? streq(si.module, module) : si.module == NULL,
	       "%s: module %s, want %s", what, str(si.module), str(module));
}

static void test_self(struct symbolizer *s)
{
	uint64_t fn = (uint64_t)(uintptr_t)target_ptr;
	char exe[4096];
	struct symbol_info si;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	expect_func(s, fn, "symbolize_target", 0, "own function");
	expect_func(s, fn + 5, "symbolize_target", 5, "own function + 5");
	symbolizer_lookup(s, fn, &si);
	exe[n > 0 ? n : 0] = '\0';
	CHECKF(streq(si.module, exe), "module %s, want %s", str(si.module),
	       exe);
	CHECKF(target_ptr(3) != 0, "target runs");
}

/* libc's own qsort, not a sanitizer's interceptor of the same name. */
static void test_libc(struct symbolizer *s)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *fn = libc ? dlsym(libc, "qsort") : NULL;
	struct symbol_info si;

	CHECKF(fn != NULL, "dlsym(libc, qsort): %s", str(dlerror()));
	if (!fn)
		return;
	expect_func(s, (uint64_t)(uintptr_t)fn, "qsort", 0, "libc qsort");
	symbolizer_lookup(s, (uint64_t)(uintptr_t)fn, &si);
	CHECKF(strncmp(base_name(si.module), "libc.so", 7) == 0,
	       "qsort module %s", str(si.module));
	dlclose(libc);
}

static void test_unknown(struct symbolizer *s)
{
	int local = 0;
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);

	expect_unknown(s, 0, NULL, "address 0");
	expect_unknown(s, 0x10, NULL, "address 0x10");
	expect_unknown(s, UINT64_MAX, NULL, "address ~0");
	expect_unknown(s, (uint64_t)(uintptr_t)&local, NULL, "stack");
	if (vdso)
		expect_unknown(s, vdso + 0x10, "[vdso]", "vdso");
	CHECKF(symbolizer_lookup(NULL, 0, NULL) == -1 && errno == EINVAL,
	       "NULL symbolizer");
}

/* The same maps with every mapping moved by delta: resolution is offline. */
static char *shift_maps(const char *maps, uint64_t delta)
{
	size_t cap = strlen(maps) * 2 + 64, len = 0;
	char *out = malloc(cap);
	unsigned long long a, b;
	const char *line, *rest;
	int used;

	for (line = maps; out && *line; line = strchr(line, '\n') + 1) {
		if (sscanf(line, "%llx-%llx%n", &a, &b, &used) != 2)
			break;
		rest = line + used;
		len += (size_t)snprintf(out + len, cap - len, "%llx-%llx%.*s",
					(unsigned long long)(a + delta),
					(unsigned long long)(b + delta),
					(int)(strcspn(rest, "\n") + 1), rest);
		if (!strchr(line, '\n'))
			break;
	}
	return out;
}

static void test_offline(const char *maps)
{
	const uint64_t delta = 0x100000000ULL;
	uint64_t fn = (uint64_t)(uintptr_t)target_ptr;
	char *moved = shift_maps(maps, delta);
	struct symbolizer *s;

	CHECKF(moved != NULL, "shift_maps");
	s = moved ? symbolizer_new(moved, strlen(moved), NULL, 0) : NULL;
	if (s)
		expect_func(s, fn + delta + 7, "symbolize_target", 7, "moved");
	symbolizer_free(s);
	free(moved);

	s = symbolizer_new(maps, strlen(maps), "/", 0);
	CHECKF(s != NULL, "symbolizer_new with root /");
	if (s)
		expect_func(s, fn, "symbolize_target", 0, "root /");
	symbolizer_free(s);
}

/*
 * This executable's lines of maps with its path written "/.." + path:
 * under the root /proc that names the real file again, which must not be
 * opened.
 */
static void test_dotdot(const char *maps)
{
	uint64_t fn = (uint64_t)(uintptr_t)target_ptr;
	char exe[4096], dotted[4096 + 3], *text = malloc(strlen(maps) * 2 + 1);
	const char *line, *p, *nl;
	struct symbolizer *s;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t len = 0;

	CHECKF(n > 0 && text, "readlink /proc/self/exe");
	if (n <= 0 || !text) {
		free(text);
		return;
	}
	exe[n] = '\0';
	snprintf(dotted, sizeof(dotted), "/..%s", exe);
	for (line = maps; *line; line = nl + 1) {
		nl = line + strcspn(line, "\n");
		p = strstr(line, exe);
		if (p && p < nl && p + n == nl)
			len += (size_t)sprintf(text + len, "%.*s%s\n",
					       (int)(p - line), line, dotted);
		if (!*nl)
			break;
	}
	text[len] = '\0';
	s = symbolizer_new(text, len, "/proc", 0);
	CHECKF(s != NULL && len > 0, "symbolizer_new on dotted maps");
	if (s)
		expect_unknown(s, fn, dotted, "path with ..");
	symbolizer_free(s);
	free(text);
}

static void test_odd_maps(void)
{
	static const char text[] =
		"7f0000000000-7f0000001000 r-xp 00002000 08:01 7 "
		"/usr/lib/libgone.so (deleted)\n"
		"7f0000001000-7f0000002000 r-xp 00000000 00:00 0 \n"
		"7f0000002000-7f0000003000 r-xp 00000000 08:01 8 "
		"/nonexistent/libnone.so\n"
		"7f0000003000-7f0000004000 rw-p 00000000 08:01 8 /data\n"
		"garbage\0\xff\n"
		"zzzz-1 r-xp\n"
		"7f0000005000-7f0000004000 r-xp 00000000 08:01 1 /bad/range\n"
		"7f0000006000-7f0000007000 r-xp 00000000";
	struct symbolizer *s = symbolizer_new(text, sizeof(text) - 1, NULL, 0);
	struct symbol_info si;

	CHECKF(s != NULL, "symbolizer_new on odd maps");
	if (!s)
		return;
	expect_unknown(s, 0x7f0000000010, "/usr/lib/libgone.so (deleted)",
		       "deleted");
	symbolizer_lookup(s, 0x7f0000000010, &si);
	CHECKF(si.module_off == 0x2010, "deleted module_off 0x%" PRIx64,
	       si.module_off);
	expect_unknown(s, 0x7f0000001010, NULL, "anonymous");
	expect_unknown(s, 0x7f0000002010, "/nonexistent/libnone.so", "missing");
	expect_unknown(s, 0x7f0000003010, NULL, "not executable");
	expect_unknown(s, 0x7f0000005010, NULL, "bad range");
	symbolizer_free(s);
	s = symbolizer_new(NULL, 0, NULL, 0);
	CHECKF(s != NULL, "symbolizer_new on no maps");
	if (s)
		expect_unknown(s, 0x1000, NULL, "no maps");
	symbolizer_free(s);
}

/*
 * Built from a struct maps, with this process's pid for map_files: the
 * same names as from the text, and a mapping that is gone from the newest
 * snapshot (a library dlclose()d since) still names its addresses.
 */
static void test_from_maps(const char *text, size_t len)
{
	uint64_t fn = (uint64_t)(uintptr_t)target_ptr;
	const char *lib = "7e0000000000-7e0000001000 r-xp 00001000 08:01 9 "
			  "/nonexistent/libgone.so\n";
	struct maps *m = maps_new();
	struct symbolizer *s;

	CHECK(m && maps_update(m, lib, strlen(lib)) == 0 &&
	      maps_update(m, text, len) == 0);
	CHECK(maps_count(m) > 1 && maps_find(m, 0x7e0000000010) == NULL);
	s = m ? symbolizer_new_maps(m, NULL, getpid()) : NULL;
	maps_free(m); /* not needed after the call */
	CHECKF(s != NULL, "symbolizer_new_maps");
	if (!s)
		return;
	expect_func(s, fn + 5, "symbolize_target", 5, "from maps");
	expect_unknown(s, 0x7e0000000010, "/nonexistent/libgone.so",
		       "gone mapping");
	symbolizer_free(s);
}

/* maps text with every inode replaced by 1: another file at each path. */
static char *other_inodes(const char *maps)
{
	char *out = strdup(maps), *line;
	unsigned long long a, b, off;
	char perms[8], dev[16];
	int used;

	for (line = out; out && *line; line = strchr(line, '\n') + 1) {
		if (sscanf(line, "%llx-%llx %7s %llx %15s %n", &a, &b, perms,
			   &off, dev, &used) == 5)
			for (char *p = line + used; *p >= '0' && *p <= '9'; p++)
				*p = p == line + used ? '1' : ' ';
		if (!strchr(line, '\n'))
			break;
	}
	return out;
}

/*
 * A cache shared by two symbolizers (the images of a process tree): the
 * same executable at two addresses is named right in each, the strings
 * stay valid after the first symbolizer is freed (the cache owns them),
 * and a mapping whose inode differs is another file, not the cached one.
 */
static void test_cached(const char *maps)
{
	const uint64_t delta = 0x100000000ULL;
	uint64_t fn = (uint64_t)(uintptr_t)target_ptr;
	char *moved = shift_maps(maps, delta), *other = other_inodes(maps);
	struct symcache *c = symcache_new();
	struct symbolizer *s1 = NULL, *s2 = NULL, *s3 = NULL;
	struct maps *m1 = maps_new(), *m2 = maps_new(), *m3 = maps_new();
	struct symbol_info si;

	CHECK(c && moved && other && m1 && m2 && m3 &&
	      maps_update(m1, maps, strlen(maps)) == 0 &&
	      maps_update(m2, moved, strlen(moved)) == 0 &&
	      maps_update(m3, other, strlen(other)) == 0);
	if (c && m1 && m2 && m3) {
		s1 = symbolizer_new_cached(m1, NULL, 0, c);
		s2 = symbolizer_new_cached(m2, NULL, 0, c);
		s3 = symbolizer_new_cached(m3, NULL, 0, c);
	}
	CHECKF(s1 && s2 && s3, "symbolizer_new_cached");
	if (s1 && s2 && s3) {
		expect_func(s1, fn + 3, "symbolize_target", 3, "cached, first");
		CHECK(symbolizer_lookup(s1, fn + 3, &si) == 0);
		symbolizer_free(s1);
		s1 = NULL;
		CHECKF(streq(si.func, "symbolize_target"),
		       "a cached name freed with its symbolizer");
		expect_func(s2, fn + delta + 7, "symbolize_target", 7,
			    "cached, moved");
		CHECK(symbolizer_lookup(s3, fn + 3, &si) == 0);
		CHECKF(si.func == NULL,
		       "a file with another inode was named from the cache: %s",
		       str(si.func));
	}
	symbolizer_free(s1);
	symbolizer_free(s2);
	symbolizer_free(s3);
	symcache_free(c);
	maps_free(m1);
	maps_free(m2);
	maps_free(m3);
	free(moved);
	free(other);
}

/*
 * Build IDs (issue 12, item 6): a brief line "START-END PERMS PATH
 * (@OFFSET) BUILDID" before the maps, as a profile holds it, for this
 * test's code mapping.  With another build ID the file is refused (no
 * function, symbolizer_refused() names it); with its own it is used; a
 * malformed one is ignored (then the inode decides, and it matches).
 * With a cache (report's spaces share one) the same: the file refused
 * for another build ID is not the one named for its own, though both
 * have the same path and inode.
 */
static void test_build_id(const char *maps, struct symcache *cache)
{
	uint64_t fn = (uint64_t)(uintptr_t)target_ptr;
	static const char *const ids[] = {
		"00112233445566778899aabbccddeeff00112233", NULL, "xyz"
	};
	unsigned long long start, end, off;
	char exe[4096], own[129], perms[5], *text;
	const char *line = maps;
	struct symbolizer *s;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *why;
	size_t next;
	int fd, k;
	Elf *elf;

	exe[n > 0 ? n : 0] = '\0';
	elf_version(EV_CURRENT);
	elf = debugfile_open_elf(exe, &fd);
	CHECKF(elf && debugfile_build_id(elf, own, sizeof(own)),
	       "build ID of %s", exe);
	if (elf) {
		elf_end(elf);
		close(fd);
	}
	for (; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (sscanf(line, "%llx-%llx %4s %llx", &start, &end, perms,
			   &off) == 4 &&
		    perms[2] == 'x' && start <= fn && fn < end)
			break;
	CHECKF(line != NULL, "no mapping of this test's code");
	for (int i = 0; line && i < 3; i++) {
		const char *id = ids[i] ? ids[i] : own;

		k = asprintf(&text, "%llx-%llx %s %s (@%llx) %s\n%s", start,
			     end, perms, exe, off, id, maps);
		s = k > 0 ? symbolizer_new_text_cached(text, strlen(text), NULL,
						       0, cache) :
			    NULL;
		CHECKF(s != NULL, "symbolizer_new with build ID %s", id);
		if (s && i == 0) {
			const char *first;

			next = 0;
			expect_unknown(s, fn, exe, "another build ID");
			first = symbolizer_refused(s, &next, &why);
			CHECKF(streq(first, exe) &&
				       !symbolizer_refused(s, &next, &why) &&
				       !symbolizer_refused(s, &next, &why),
			       "refused: %s", str(first));
		} else if (s) {
			next = 0;
			expect_func(s, fn, "symbolize_target", 0, id);
			CHECKF(!symbolizer_refused(s, &next, &why),
			       "%s: refused", id);
		}
		symbolizer_free(s);
		if (k > 0)
			free(text);
	}
	/* neither build ID nor inode (a pprof mapping of a file without a
	 * build ID): not named, and said why */
	k = line ? asprintf(&text, "%llx-%llx %s %08llx 00:00 0 %s\n", start,
			    end, perms, off, exe) :
		   -1;
	s = k > 0 ? symbolizer_new_text_cached(text, strlen(text), NULL, 0,
					       cache) :
		    NULL;
	CHECKF(s != NULL, "symbolizer_new without build ID or inode");
	if (s) {
		const char *first;

		next = 0;
		expect_unknown(s, fn, exe, "no build ID, no inode");
		first = symbolizer_refused(s, &next, &why);
		CHECKF(streq(first, exe) && strstr(why, "cannot be checked"),
		       "unverifiable: %s (%s)", str(first), str(why));
	}
	symbolizer_free(s);
	if (k > 0)
		free(text);
}

int main(void)
{
	struct symbolizer *s;
	size_t len;
	char *maps = read_self_maps(&len);

	if (!maps) {
		perror("test_symbolize: /proc/self/maps");
		return 1;
	}
	s = symbolizer_new(maps, len, NULL, 0);
	CHECKF(s != NULL, "symbolizer_new: %s", strerror(errno));
	if (s) {
		test_self(s);
		test_libc(s);
		test_unknown(s);
	}
	symbolizer_free(s);
	test_offline(maps);
	test_dotdot(maps);
	test_from_maps(maps, len);
	test_cached(maps);
	test_build_id(maps, NULL);
	{
		struct symcache *c = symcache_new();

		CHECK(c != NULL);
		if (c)
			test_build_id(maps, c);
		symcache_free(c);
	}
	free(maps);
	test_odd_maps();
	return unit_result("test_symbolize");
}
