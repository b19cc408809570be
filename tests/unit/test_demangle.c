/*
 * test_demangle.c - demangle(): Rust legacy and v0 names without their
 * hashes, ".llvm.HASH" suffixes dropped from every kind of name, C++ as
 * libstdc++ writes it, and what is left alone.  The Rust names are those
 * rustc 1.95 gave tests/targets/names.rs (tests/rust-names.test).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "unit.h"

/* demangle(in) is want (NULL: nothing to change). */
static void expect(const char *in, const char *want)
{
	char *out = demangle(in);

	if (!want)
		CHECKF(!out, "%s gave \"%s\", expected nothing", in, out);
	else
		CHECKF(out && !strcmp(out, want), "%s gave \"%s\", expected %s",
		       in, out ? out : "(null)", want);
	free(out);
}

static void test_rust_legacy(void)
{
	expect("_ZN5names4spin6Burner3hot17hb17d20c82321d473E",
	       "names::spin::Burner::hot");
	expect("_ZN5names4spin5outer17ha872c7ad5e99b520E",
	       "names::spin::outer");
	/* escapes: $u7b$ is '{', $LT$ '<', .. is :: */
	expect("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$"
	       "17h0123456789abcdefE",
	       "std::rt::lang_start::{{closure}}");
	expect("_ZN5names4spin6Burner3hot17hb17d20c82321d473E.llvm.1234567",
	       "names::spin::Burner::hot");
}

static void test_rust_v0(void)
{
	expect("_RNvMNtCs4T4zK9Otvt5_5names4spinNtB2_6Burner3hot",
	       "<names::spin::Burner>::hot");
	expect("_RNvNtCs4T4zK9Otvt5_5names4spin5outer", "names::spin::outer");
	expect("_RNvNtNtNtNtNtCsjrHSEGnQ3l9_3std3sys3pal4unix14stack_overflow"
	       "11thread_info9SPIN_LOCK",
	       "std::sys::pal::unix::stack_overflow::thread_info::SPIN_LOCK");
	expect("_RNvNtCs4T4zK9Otvt5_5names4spin5outer.llvm.8865129823467",
	       "names::spin::outer");
	/* not a v0 name: left alone */
	expect("_RNvNtCs4T4zK9Otvt5_5names4spin5oute", NULL);
	expect("_R", NULL);
}

/* A base-62 number of v0 (RFC 2603): "_" for 0, else n - 1 and "_". */
static size_t b62(char *out, size_t n)
{
	static const char d[] = "0123456789abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char tmp[16];
	size_t k = 0, i;

	if (n-- > 0)
		do
			tmp[k++] = d[n % 62];
		while ((n /= 62) > 0);
	for (i = 0; i < k; i++)
		out[i] = tmp[k - 1 - i];
	out[k] = '_';
	return k + 1;
}

/*
 * a::f::<(i32, i32), ((i32, i32), (i32, i32)), ...>: levels tuples, each
 * of two back-references to the one before, so each prints twice as
 * long as the one before: a hostile name whose reading is exponentially
 * longer than itself.  Into buf (room for 16 bytes per level and 32).
 */
static void v0_doubling(char *buf, int levels)
{
	size_t n = 0, prev, at;

	n += (size_t)sprintf(buf, "_RINvC1a1f");
	prev = n - 2; /* back-references count from after "_R" */
	n += (size_t)sprintf(buf + n, "TllE");
	for (int i = 0; i < levels; i++) {
		at = n - 2;
		buf[n++] = 'T';
		buf[n++] = 'B';
		n += b62(buf + n, prev);
		buf[n++] = 'B';
		n += b62(buf + n, prev);
		buf[n++] = 'E';
		prev = at;
	}
	strcpy(buf + n, "E");
}

/*
 * void f<A<int, int>, A<A<int, int>, A<int, int> >, ...>(...): levels
 * template arguments, each an A of two substitutions of the one before,
 * so each reads twice as long: the C++ form of v0_doubling().
 */
static void cxx_doubling(char *buf, int levels)
{
	static const char d[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	size_t n = (size_t)sprintf(buf, "_Z1fI1AIiiE");
	char id[8];

	/* substitutions: S_ f, S0_ A, S1_ A<int, int>, then each level's */
	for (unsigned i = 0, seq = 1; i < (unsigned)levels; i++, seq++) {
		/* seq in base 36, two digits at most */
		if (seq < 36)
			sprintf(id, "%c", d[seq]);
		else
			sprintf(id, "%c%c", d[seq / 36], d[seq % 36]);
		n += (size_t)sprintf(buf + n, "S0_IS%s_S%s_E", id, id);
	}
	strcpy(buf + n, "EvT_");
}

/*
 * A name of `small` doubling levels (make()) reads as prefix..., between
 * min and DEMANGLE_OUT_MAX bytes; one of `big` levels would read longer:
 * not demangled; one of 60 levels neither, at once (libiberty's
 * rust_demangle() and __cxa_demangle() would try to write them all:
 * 470 MB in 6 s for 2^24 Rust pairs).
 */
static void check_doubling(void (*make)(char *, int), int small, int big,
			   const char *prefix, size_t min)
{
	char name[24 * 64 + 32], *out;

	make(name, small);
	out = demangle(name);
	CHECKF(out && !strncmp(out, prefix, strlen(prefix)) &&
		       strlen(out) > min && strlen(out) < DEMANGLE_OUT_MAX,
	       "%d levels gave %.60s (%zu bytes)", small, out ? out : "(null)",
	       out ? strlen(out) : 0);
	free(out);
	make(name, big);
	out = demangle(name);
	CHECKF(!out, "%d levels gave %zu bytes", big, out ? strlen(out) : 0);
	if (out) { /* no limit: 60 levels would not end */
		free(out);
		return;
	}
	make(name, 60);
	expect(name, NULL);
}

static void test_hostile(void)
{
	/* 2^10 Rust pairs: 28 KB; 2^17: 3.7 MB */
	check_doubling(v0_doubling, 10, 17,
		       "a::f::<(i32, i32), ((i32, i32), (i32, i32)), "
		       "(((i32, i32)",
		       20000);
	/* 2^12 C++: 139 KB; 2^16: 2.2 MB */
	check_doubling(cxx_doubling, 12, 16,
		       "void f<A<int, int>, A<A<int, int>, ", 100000);
}

static void test_cxx(void)
{
	expect("_Z3foov", "foo()");
	expect("_ZNSt6vectorIiSaIiEE9push_backERKi",
	       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	/* LLVM's suffix goes, GCC's clone suffixes stay (perf keeps them) */
	expect("_Z3foov.llvm.11713487046356282718", "foo()");
	expect("_Z3foov.constprop.0", "foo() [clone .constprop.0]");
	expect("_ZN3foo3barEv.cold", "foo::bar() [clone .cold]");
	/* a C++ variable that looks nearly like legacy Rust: a hash of
	 * fewer than 5 distinct digits is no hash */
	expect("_ZN4core3fmt9Formatter3pad17h1111111111111111E",
	       "core::fmt::Formatter::pad::h1111111111111111");
	expect("_Z", NULL);
	expect("_Zx", NULL);
}

static void test_plain(void)
{
	char *big;

	expect("main", NULL);
	expect("", NULL);
	expect(NULL, NULL);
	expect("hash_block.llvm.123", "hash_block");
	expect("hash_block.llvm.0xdeadbeef", NULL); /* 'x' is no digit */
	expect("hash_block.llvm.", NULL);
	expect(".llvm.12", "");
	expect("f.llvm.1.llvm.2", "f.llvm.1");
	/* too long to demangle: left alone, whatever it is */
	big = malloc(DEMANGLE_MAX + 16);
	CHECK(big != NULL);
	if (!big)
		return;
	memset(big, 'a', DEMANGLE_MAX + 15);
	memcpy(big, "_ZN", 3);
	big[DEMANGLE_MAX + 15] = '\0';
	expect(big, NULL);
	free(big);
}

int main(void)
{
	test_rust_legacy();
	test_rust_v0();
	test_cxx();
	test_hostile();
	test_plain();
	return unit_result("test_demangle");
}
