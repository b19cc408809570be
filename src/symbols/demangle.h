/*
 * demangle.h - C++ and Rust symbol names as people write them.
 *
 * Names are turned readable the way perf shows them:
 *  - a ".llvm.HASH" suffix (LLVM's ThinLTO appends it to a local symbol
 *    it promotes: C, C++ and Rust alike) is dropped;
 *  - Rust symbols, legacy ("_ZN...17h<16 hex digits>E") and v0 ("_R..."),
 *    by GNU libiberty's rust_demangle(), without the legacy "::h<hash>"
 *    and v0's crate disambiguators;
 *  - other Itanium C++ ABI names ("_Z...") by libstdc++'s __cxa_demangle
 *    (opened at the first C++ name), so C++ reads as the system's own
 *    compiler runtime writes it.
 *
 * Contract: demangle() returns a malloc'd readable copy of name, or NULL
 * when there is nothing to change (a C name, a name no demangler accepts,
 * a C++ name without libstdc++ installed, a name longer than
 * DEMANGLE_MAX: both demanglers size stack arrays by the name's length;
 * a name that would read longer than DEMANGLE_OUT_MAX);
 * the caller then shows name as it is.  Never prints or exits.  Not
 * thread-safe.
 */
#ifndef PTPROF_DEMANGLE_H
#define PTPROF_DEMANGLE_H

/* The longest name demangled: the C++ demangler puts about 72 bytes of
 * stack per byte of name (its component arrays), 1.2 MB at this length;
 * the longest C++ name of node 20 and libLLVM-15 is 613 bytes. */
#define DEMANGLE_MAX 16384

/* The longest name written: a v0 name's back-references and a C++ name's
 * substitutions can make it exponentially longer than the mangled name
 * (demangle.c); longer ones are not demangled.  rustc-demangle's limit. */
#define DEMANGLE_OUT_MAX 1000000

char *demangle(const char *name);

#endif /* PTPROF_DEMANGLE_H */
