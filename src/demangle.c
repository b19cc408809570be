/*
 * demangle.c - C++ names through libstdc++'s __cxa_demangle (demangle.h).
 *
 * libstdc++ is opened with dlopen() at the first C++ name, not linked:
 * linked, it costs every ptprof command about 1.3 ms of start-up (it is
 * large, and relocated at load), which a one-shot `ptprof dump` pays
 * whether or not the target has a single C++ frame.  Without libstdc++
 * (not installed), names stay as they are.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "demangle.h"

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

char *demangle(const char *name)
{
	cxa_demangle_fn fn;
	int status = 0;
	char *out;

	if (!name || name[0] != '_' || name[1] != 'Z')
		return NULL;
	fn = cxa_demangle();
	if (!fn)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
