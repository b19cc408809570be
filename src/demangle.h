/*
 * demangle.h - C++ symbol names as people write them.
 *
 * Contract: demangle() returns a malloc'd demangled copy of an Itanium
 * C++ ABI name ("_Z..."), or NULL when name is not one, cannot be
 * demangled, or libstdc++ (opened at the first call) is not there; the
 * caller then shows name as it is.  Never prints or exits.  Not
 * thread-safe.
 */
#ifndef PTPROF_DEMANGLE_H
#define PTPROF_DEMANGLE_H

char *demangle(const char *name);

#endif /* PTPROF_DEMANGLE_H */
