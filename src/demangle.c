/*
 * demangle.c - C++ names through libstdc++'s __cxa_demangle (demangle.h).
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>

#include "demangle.h"

#ifdef HAVE_CXA_DEMANGLE
/* From <cxxabi.h>, which is C++ only. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
		     int *status);

char *demangle(const char *name)
{
	int status = 0;
	char *out;

	if (!name || name[0] != '_' || name[1] != 'Z')
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
#else
char *demangle(const char *name)
{
	(void)name;
	return NULL;
}
#endif
