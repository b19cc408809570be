/*
 * debuginfod.c - debug files and executables fetched by build ID through
 * libdebuginfod, bounded in time and size, checked before use (see
 * debuginfod.h).
 */
#include "config.h"

#include <ctype.h>
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/debugfile.h"
#include "elf/debuginfod.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/hashtab.h"
#include "util/safeopen.h"
#include "util/timeutil.h"

/* Build IDs are at most 64 bytes here, as in debugfile.c. */
#define ID_MAX (2 * 64)

/* Why the transfer under way was stopped by progress(). */
enum abort_why { ABORT_NONE, ABORT_BUDGET, ABORT_SIZE };

/* One build ID asked for (kind and hex), never asked again. */
struct tried {
	enum debuginfod_kind kind;
	char id[ID_MAX + 1];
};

/*
 * libdebuginfod, opened with dlopen() at the first fetch, as libdwfl does
 * it: linked in, it and libcurl's TLS and LDAP stack (29 more libraries)
 * were loaded into every ptprof run, and its constructor's
 * curl_global_init() tripled the CPU time of `ptprof --version` (10 ms
 * to 34 ms), for runs that never fetch.
 */
static struct {
	void *dl;
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_find_executable) *find_executable;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_verbose_fd) *set_verbose_fd;
} lib;

static bool lib_open(void)
{
	if (lib.dl)
		return true;
	lib.dl = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib.dl)
		return false;
	lib.begin = (__typeof__(lib.begin))dlsym(lib.dl, "debuginfod_begin");
	lib.end = (__typeof__(lib.end))dlsym(lib.dl, "debuginfod_end");
	lib.find_debuginfo = (__typeof__(lib.find_debuginfo))
		dlsym(lib.dl, "debuginfod_find_debuginfo");
	lib.find_executable = (__typeof__(lib.find_executable))
		dlsym(lib.dl, "debuginfod_find_executable");
	lib.set_progressfn = (__typeof__(lib.set_progressfn))
		dlsym(lib.dl, "debuginfod_set_progressfn");
	lib.set_verbose_fd = (__typeof__(lib.set_verbose_fd))
		dlsym(lib.dl, "debuginfod_set_verbose_fd");
	if (lib.begin && lib.end && lib.find_debuginfo && lib.find_executable &&
	    lib.set_progressfn && lib.set_verbose_fd)
		return true;
	dlclose(lib.dl);
	memset(&lib, 0, sizeof(lib));
	return false;
}

static struct {
	bool on;       /* set up, URLs set, not given up */
	bool cache_ok; /* the cache directory was checked */
	debuginfod_client *client;
	debuginfod_hook_fn hook;
	void *hook_arg;
	int64_t budget_ns, spent_ns, max_size;
	/* the fetch under way, for progress() */
	struct debuginfod_status cur;
	uint64_t cur_start, last_report;
	bool downloaded;
	enum abort_why abort;
	/* what was asked for */
	struct tried *tried;
	size_t ntried, tried_cap;
	struct hashtab tried_idx;
} g;

static void tell(enum debuginfod_event ev, const char *why)
{
	struct debuginfod_status st = g.cur;

	st.event = ev;
	st.why = why;
	if (ev == DEBUGINFOD_GAVE_UP)
		st.build_id = st.module = NULL;
	if (g.hook)
		g.hook(&st, g.hook_arg);
}

/* No more fetches this run, for why (told once). */
static void give_up(const char *why)
{
	if (!g.on)
		return;
	g.on = false;
	tell(DEBUGINFOD_GAVE_UP, why);
}

/* A positive decimal from the environment, at most max; 0 when unset or
 * not such a number. */
static int64_t env_num(const char *name, int64_t max)
{
	const char *s = getenv(name);
	char *end;
	long long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v <= 0)
		return 0;
	return v > max ? max : v;
}

void debuginfod_setup(const struct debuginfod_config *cfg)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	int64_t secs = env_num("PTPROF_DEBUGINFOD_TIME", 3600);
	int64_t max = env_num("DEBUGINFOD_MAXSIZE", DEBUGFILE_MAX_SIZE);

	debuginfod_teardown();
	g.hook = cfg->hook;
	g.hook_arg = cfg->hook_arg;
	g.budget_ns = secs ? secs * (int64_t)NSEC_PER_SEC :
			     DEBUGINFOD_BUDGET_NS;
	g.max_size = max ? max : DEBUGINFOD_DEFAULT_MAX_SIZE;
	g.on = !cfg->off && urls && *urls;
}

bool debuginfod_enabled(void)
{
	return g.on;
}

void debuginfod_teardown(void)
{
	if (g.client)
		lib.end(g.client);
	free(g.tried);
	hashtab_free(&g.tried_idx);
	memset(&g, 0, sizeof(g));
}

/* Lower-case hex of even length, 2..ID_MAX digits: it becomes a URL and
 * a directory of the cache. */
static bool valid_id(const char *id)
{
	size_t n = strnlen(id, ID_MAX + 1);

	if (n < 2 || n > ID_MAX || n % 2)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((id[i] >= '0' && id[i] <= '9') ||
		      (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return true;
}

/* Whether (kind, id) failed already this run; with add, remember that
 * it did.  On an allocation failure it counts as failed (nothing more is
 * fetched for it). */
static bool failed_before(enum debuginfod_kind kind, const char *id, bool add)
{
	uint64_t h = hash_mix64(
		hash_fnv1a_word(hash_fnv1a_str(id), (uint64_t)kind));
	struct hashtab_probe p;
	struct tried *t;
	size_t i;

	if (hashtab_reserve(&g.tried_idx, g.ntried + 1))
		return true;
	hashtab_probe_init(&g.tried_idx, h, &p);
	while (hashtab_next(&g.tried_idx, &p, &i))
		if (g.tried[i].kind == kind && !strcmp(g.tried[i].id, id))
			return true;
	if (!add)
		return false;
	t = grow_array(g.tried, &g.tried_cap, g.ntried + 1, sizeof(*t));
	if (!t)
		return true;
	g.tried = t;
	t[g.ntried].kind = kind;
	snprintf(t[g.ntried].id, sizeof(t[g.ntried].id), "%s", id);
	if (hashtab_set(&g.tried_idx, &p, g.ntried))
		return true;
	g.ntried++;
	return true;
}

/*
 * Called by libdebuginfod about once a second while it waits or
 * downloads (a: bytes so far, b: the announced size or 0): a non-zero
 * return aborts the transfer.  The run's time budget and the size bound
 * are enforced here.
 */
static int progress(debuginfod_client *c, long a, long b)
{
	uint64_t now = mono_now_ns();

	(void)c;
	g.downloaded = true;
	/* Until a server answers, libdebuginfod 0.188 passes its loop
	 * count as a, not bytes: a size is shown once the file's is known
	 * (b) or a has grown past what a count of loops reaches. */
	g.cur.bytes = a > 0 && (b > 0 || a >= (1L << 20)) ? a : 0;
	g.cur.total = b > 0 ? b : 0;
	if (g.spent_ns + (int64_t)(now - g.cur_start) > g.budget_ns) {
		g.abort = ABORT_BUDGET;
		return 1;
	}
	if (g.cur.bytes > g.max_size || g.cur.total > g.max_size) {
		g.abort = ABORT_SIZE;
		return 1;
	}
	if (now - g.last_report >= 200 * NSEC_PER_MSEC) {
		g.last_report = now;
		tell(DEBUGINFOD_FETCHING, NULL);
	}
	return 0;
}

/* The cache directory libdebuginfod will use (its own rule, 0.188):
 * DEBUGINFOD_CACHE_PATH; else ~/.debuginfod_client_cache if it exists;
 * else $XDG_CACHE_HOME or ~/.cache, then /debuginfod_client. */
static bool cache_dir(char *buf, size_t len)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH");
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
	struct stat st;
	int n;

	if (!home)
		home = "/";
	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else {
		n = snprintf(buf, len, "%s/.debuginfod_client_cache", home);
		if (n > 0 && (size_t)n < len && stat(buf, &st) == 0)
			return true;
		if (xdg && *xdg)
			n = snprintf(buf, len, "%s/debuginfod_client", xdg);
		else
			n = snprintf(buf, len, "%s/.cache/debuginfod_client",
				     home);
	}
	return n > 0 && (size_t)n < len;
}

/* Whether directory dir may hold our files: ours or root's, written by
 * nobody else; why not into why. */
static bool dir_ok(const char *dir, char *why, size_t len)
{
	struct stat st;

	if (stat(dir, &st)) {
		snprintf(why, len, "cannot use the cache %s: %s", dir,
			 strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode))
		snprintf(why, len, "the cache %s is not a directory", dir);
	else if (st.st_uid != geteuid() && st.st_uid != 0)
		snprintf(why, len,
			 "the cache %s belongs to uid %u, not to you (set DEBUGINFOD_CACHE_PATH)",
			 dir, (unsigned)st.st_uid);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, len, "the cache %s is writable by others", dir);
	else if (access(dir, W_OK))
		snprintf(why, len, "the cache %s is not writable: %s", dir,
			 strerror(errno));
	else
		return true;
	return false;
}

/* Before the first fetch: the cache directory, if it exists already, is
 * fit for use (libdebuginfod creates it 0700 otherwise). */
static bool check_cache(void)
{
	char dir[4096], why[4300];
	struct stat st;

	if (g.cache_ok)
		return true;
	if (!cache_dir(dir, sizeof(dir))) {
		give_up("the cache path is too long");
		return false;
	}
	if (stat(dir, &st) && errno == ENOENT)
		return g.cache_ok = true;
	if (!dir_ok(dir, why, sizeof(why))) {
		give_up(why);
		return false;
	}
	return g.cache_ok = true;
}

static bool client_begin(void)
{
	if (g.client)
		return true;
	if (!lib_open()) {
		give_up("cannot load " DEBUGINFOD_SONAME
			" (Debian: apt-get install libdebuginfod1)");
		return false;
	}
	g.client = lib.begin();
	if (!g.client) {
		give_up("libdebuginfod could not start a client");
		return false;
	}
	/* ptprof's own reports only: DEBUGINFOD_VERBOSE would make the
	 * library write to stderr itself */
	lib.set_verbose_fd(g.client, -1);
	lib.set_progressfn(g.client, progress);
	return true;
}

static Elf *refuse(Elf *elf, int fd, const char *why)
{
	if (elf) {
		elf_end(elf);
		close(fd);
	}
	tell(DEBUGINFOD_REFUSED, why);
	return NULL;
}

/*
 * path, as libdebuginfod returned it (CACHE/BUILDID/debuginfo), opened
 * and checked as debuginfod.h says.
 */
static Elf *open_checked(const char *path, int *fdp)
{
	char dir[4096], why[4400], id[ID_MAX + 1];
	struct stat st;
	char *slash;
	Elf *elf;
	int fd;

	/* the build-ID directory, then the cache directory */
	snprintf(dir, sizeof(dir), "%s", path);
	for (int up = 0; up < 2; up++) {
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return refuse(NULL, -1, "the cache path is unusable");
		*slash = '\0';
		if (!dir_ok(dir, why, sizeof(why))) {
			give_up(why);
			return NULL;
		}
	}
	fd = safeopen_read(AT_FDCWD, path, SAFEOPEN_NOFOLLOW, 0, &st);
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot open %s: %s", path,
			 strerror(errno));
		return refuse(NULL, -1, why);
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		snprintf(why, sizeof(why),
			 "%s is not yours alone (owner uid %u, mode %o)", path,
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return refuse(NULL, -1, why);
	}
	if (st.st_size <= 0 || st.st_size > g.max_size) {
		close(fd);
		snprintf(why, sizeof(why),
			 "its size, %lld bytes, is out of bounds",
			 (long long)st.st_size);
		return refuse(NULL, -1, why);
	}
	elf = debugfile_elf_begin(fd, &fd);
	if (!elf)
		return refuse(NULL, -1, "not an ELF file, or a sparse one");
	if (!debugfile_build_id(elf, id, sizeof(id)))
		return refuse(elf, fd, "it carries no build ID (truncated?)");
	if (strcmp(id, g.cur.build_id)) {
		snprintf(why, sizeof(why), "it carries another build ID, %s",
			 id);
		return refuse(elf, fd, why);
	}
	g.cur.bytes = g.cur.total = st.st_size;
	*fdp = fd;
	return elf;
}

/* What a failed fetch (rc < 0, or aborted by progress()) means for the
 * run: nothing (not on the servers), this module refused, or no more
 * fetches. */
static void failed(int rc)
{
	const char *env = getenv("DEBUGINFOD_TIMEOUT");
	char why[4300], dir[4096];

	if (g.abort == ABORT_BUDGET) {
		snprintf(why, sizeof(why),
			 "the %lld s allowed for fetching are spent (DEBUGINFOD_URLS is slow or silent)",
			 (long long)(g.budget_ns / (int64_t)NSEC_PER_SEC));
		give_up(why);
		return;
	}
	if (g.abort == ABORT_SIZE || rc == -EFBIG) {
		snprintf(why, sizeof(why),
			 "%lld bytes is over the bound of %lld (DEBUGINFOD_MAXSIZE)",
			 (long long)(g.cur.total > g.cur.bytes ? g.cur.total :
								 g.cur.bytes),
			 (long long)g.max_size);
		tell(DEBUGINFOD_REFUSED, why);
		return;
	}
	switch (-rc) {
	case ENOENT: /* no server has it: the usual case, said nowhere */
		return;
	case EACCES:
	case EPERM:
	case EROFS:
	case ENOSPC:
	case EDQUOT:
	case ENOTDIR:
	case EEXIST:
		if (!cache_dir(dir, sizeof(dir)))
			snprintf(dir, sizeof(dir), "directory");
		snprintf(why, sizeof(why), "cannot write to the cache %s: %s",
			 dir, strerror(-rc));
		break;
	case ETIME:
	case ETIMEDOUT: /* curl's timeouts, as libdebuginfod maps them */
		snprintf(why, sizeof(why),
			 "DEBUGINFOD_URLS: no answer within DEBUGINFOD_TIMEOUT (%.20s s)",
			 env ? env : "90");
		break;
	default:
		snprintf(why, sizeof(why), "DEBUGINFOD_URLS: %s",
			 strerror(-rc));
		break;
	}
	give_up(why);
}

Elf *debuginfod_fetch(enum debuginfod_kind kind, const char *build_id,
		      const char *module, int *fd)
{
	char id[ID_MAX + 2], *path = NULL;
	Elf *elf = NULL;
	size_t n;
	int rc;

	if (!g.on || !build_id)
		return NULL;
	/* a profile's mapping may spell it in capitals */
	n = strnlen(build_id, sizeof(id) - 1);
	for (size_t i = 0; i < n; i++)
		id[i] = (char)tolower((unsigned char)build_id[i]);
	id[n] = '\0';
	/* one that failed is not asked again (one that came is asked again
	 * for its lines: a hit in the cache, no transfer) */
	if (!valid_id(id) || failed_before(kind, id, false) ||
	    !client_begin() || !check_cache())
		return NULL;
	g.cur = (struct debuginfod_status){ .kind = kind,
					    .build_id = id,
					    .module = module ? module : "?" };
	g.cur_start = g.last_report = mono_now_ns();
	g.downloaded = false;
	g.abort = ABORT_NONE;
	/* length 0: the build ID is hex text */
	rc = kind == DEBUGINFOD_DEBUGINFO ?
		     lib.find_debuginfo(g.client, (const unsigned char *)id, 0,
					&path) :
		     lib.find_executable(g.client, (const unsigned char *)id, 0,
					 &path);
	g.spent_ns += (int64_t)(mono_now_ns() - g.cur_start);
	if (rc >= 0) {
		close(rc); /* reopened by path, as safeopen.h requires */
		if (path)
			elf = open_checked(path, fd);
		if (elf && g.downloaded)
			tell(DEBUGINFOD_FETCHED, NULL);
	} else
		failed(rc);
	if (!elf)
		failed_before(kind, id, true);
	free(path);
	g.cur.build_id = g.cur.module = NULL;
	return elf;
}
