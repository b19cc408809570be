/*
 * demangle.c - readable C++ and Rust names (demangle.h).
 *
 * libstdc++ is opened with dlopen() at the first C++ name, not linked:
 * linked, it costs every ptprof command about 1.3 ms of start-up (it is
 * large, and relocated at load), which a one-shot `ptprof dump` pays
 * whether or not the target has a single C++ frame.  Without libstdc++
 * (not installed), C++ names stay as they are.
 *
 * Rust goes through libiberty's rust_demangle_callback() alone, not its
 * cplus_demangle(): that one links libiberty's xmalloc(), which exit()s
 * when out of memory.  Not through rust_demangle() either: a v0 name's
 * back-references are printed again at each use, so a hostile name of a
 * few hundred bytes whose back-references refer to back-references
 * prints exponentially (239 bytes gave 470 MB in 6 s), and libiberty has
 * no limit; rust_demangle() would grow its buffer to all of it.  The
 * callback collects at most DEMANGLE_OUT_MAX bytes, then longjmp()s out
 * of the demangler: its callback path holds no resource but, while it
 * prints a Punycode identifier, that identifier's decoded copy (a few
 * bytes per byte of the name), which is then lost, once per hostile name.
 * libiberty's C++ demangler (GCC 13's in Debian 12) does not write C++
 * names: it writes a few differently from GCC 12's libstdc++ ("(std::
 * declval<T>)()" for "std::declval<T>()": 6 of libLLVM-15's 39391); it
 * only measures them first (cxx_fits()).
 */
#include "config.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "symbols/demangle.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len,
				 int *status);

static cxa_demangle_fn cxa_demangle(void)
{
	static bool tried;
	static cxa_demangle_fn fn;
	void *lib;

	if (tried)
		return fn;
	tried = true;
	lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (lib)
		*(void **)&fn = dlsym(lib, "__cxa_demangle");
	return fn;
}

/*
 * The length of name without its ".llvm.HASH" suffix: LLVM writes the
 * hash in decimal, rustc-demangle also accepts hex digits and '@' (as
 * here), which is what perf and rustc-demangle strip.
 */
static size_t demangle_base_len(const char *name, size_t len)
{
	const char *p = NULL, *q = name;
	size_t i;

	while ((q = strstr(q, ".llvm.")) != NULL)
		p = q++;
	if (!p || !p[6])
		return len;
	for (i = 6; p[i]; i++)
		if (!strchr("0123456789abcdefABCDEF@", p[i]))
			return len;
	return (size_t)(p - name);
}

/* What a libiberty demangler printed so far (out_print()). */
struct dm_out {
	char *buf;
	size_t len, cap;
	bool count_only; /* only len, no buf */
	jmp_buf stop;	 /* longjmp()ed to when full or out of memory */
};

static void out_print(const char *s, size_t n, void *arg)
{
	struct dm_out *o = arg;
	size_t cap;
	char *p;

	if (n > DEMANGLE_OUT_MAX - o->len)
		longjmp(o->stop, 1);
	if (o->count_only) {
		o->len += n;
		return;
	}
	if (o->len + n >= o->cap) {
		cap = o->cap ? o->cap : 256;
		while (cap <= o->len + n)
			cap *= 2;
		if (!(p = realloc(o->buf, cap)))
			longjmp(o->stop, 1);
		o->buf = p;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

/* name as libiberty's Rust demangler prints it, at most DEMANGLE_OUT_MAX
 * bytes, or NULL. */
static char *demangle_rust(const char *name)
{
	/* on the heap: what the callback changed is then no local variable
	 * of the function that called setjmp(), whose value longjmp() would
	 * leave indeterminate */
	struct dm_out *o = calloc(1, sizeof(*o));
	char *out = NULL;

	if (!o)
		return NULL;
	if (setjmp(o->stop) == 0 &&
	    rust_demangle_callback(name, DMGL_PARAMS | DMGL_ANSI, out_print,
				   o) &&
	    o->buf)
		out = o->buf;
	else
		free(o->buf);
	free(o);
	return out;
}

/*
 * Whether libiberty's C++ demangler (the same code as libstdc++'s, a GCC
 * apart) reads name in at most DEMANGLE_OUT_MAX bytes.  __cxa_demangle()
 * has no limit and no way to stop it: a name whose substitutions refer
 * to substitutions reads exponentially longer than itself (257 bytes
 * gave 143 MB in 1.3 s).  cplus_demangle_v3_callback() is left by
 * longjmp() past the limit; it allocates nothing on that path.
 */
static bool cxx_fits(const char *name)
{
	struct dm_out *o = calloc(1, sizeof(*o));
	bool fits = false;

	if (!o)
		return false;
	o->count_only = true;
	if (setjmp(o->stop) == 0) {
		/* whether it demangles is libstdc++'s to say */
		cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_TYPES,
					   out_print, o);
		fits = true;
	}
	free(o);
	return fits;
}

static char *demangle_cxx(const char *name)
{
	cxa_demangle_fn fn = cxa_demangle();
	int status = 0;
	char *out;

	if (!fn || !cxx_fits(name))
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}

char *demangle(const char *name)
{
	size_t len, base;
	char *copy, *out = NULL;

	if (!name || (len = strlen(name)) > DEMANGLE_MAX)
		return NULL;
	base = demangle_base_len(name, len);
	copy = strndup(name, base);
	if (!copy)
		return NULL;
	if (copy[0] == '_' && (copy[1] == 'R' || copy[1] == 'Z'))
		out = demangle_rust(copy);
	if (!out && copy[0] == '_' && copy[1] == 'Z')
		out = demangle_cxx(copy);
	if (out || base == len) {
		free(copy);
		return out;
	}
	return copy;
}
