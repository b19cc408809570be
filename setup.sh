#!/bin/sh
# setup.sh - install what ptprof needs on Debian 12, build it, then either
# profile the demo program or run the test suite.
#
#   ./setup.sh demo     build, then profile demo/hotspots (make demo)
#   ./setup.sh check    build, then run the whole test suite (make check)
#   ./setup.sh deps     only install the Debian packages
#
# Missing packages are installed with apt-get (through sudo when not root).
# Extra ./configure arguments come from $CONFIGURE_FLAGS, e.g.
#   CONFIGURE_FLAGS=--enable-sanitizers ./setup.sh check
# Running it again is harmless: installed packages are left alone and the
# build is brought up to date.
set -eu

usage()
{
	echo "usage: $0 demo|check|deps" >&2
	exit 2
}

[ $# -eq 1 ] || usage
case $1 in
demo | check | deps) what=$1 ;;
*) usage ;;
esac

cd "$(dirname "$0")"

# To build: compiler (libstdc++, opened at run time, demangles C++ names), make,
# autotools, pkg-config and the libraries (libdw: source lines; protobuf-c,
# its compiler and zlib: the pprof protobuf output; libiberty, static:
# Rust names; ncurses: ptprof top).
build_pkgs="build-essential autoconf automake pkgconf libunwind-dev libelf-dev libdw-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libiberty-dev libncurses-dev"
# libdebuginfod (elfutils' client library): debug files fetched by build
# ID from the servers $DEBUGINFOD_URLS names.
build_pkgs="$build_pkgs libdebuginfod-dev"
# The demo reads its profile with ptprof itself; google-pprof is there to
# read it the pprof way too.
demo_pkgs="google-perftools"
# To test: go tool pprof, strace (ptrace checks), setpriv (util-linux),
# ps/pgrep (procps), timeout/od (coreutils), awk, sed; chromium renders
# the flame graph headless (tests/flame-svg.test) and python3 reads its
# screenshots.  The chaos suite profiles real runtimes: a JVM
# (default-jdk-headless: java, javac), Go and CPython
# (tests/chaos/runtime-*.test); valgrind checks ptprof itself
# (tests/chaos/valgrind.test); tmux is the terminal of
# tests/progress.test.
check_pkgs="google-perftools golang-go strace util-linux procps coreutils mawk sed chromium python3 default-jdk-headless valgrind tmux"
# Binaries linked with lld, whose segments share pages: clang and lld
# build the C targets of tests/lld.test, rustc the Rust one of
# tests/lld-rust.test.  A rustc already on $PATH (rustup's, in
# ~/.cargo/bin) is left alone: Debian's is added only where there is
# none, so it never shadows or fights a rustup toolchain.
check_pkgs="$check_pkgs clang lld"
# clang's libFuzzer runtime: .ci/run builds the fuzzers after the suite
# (make fuzz-build), so a fuzzer that stops linking fails CI.
check_pkgs="$check_pkgs libclang-rt-dev"
# dwz makes the shared "alt" debug file of tests/chaos/dwz-alt-fifo.test.
check_pkgs="$check_pkgs dwz"
# Real services profiled whole (tests/service-*.test): nginx with a master
# and two workers on 127.0.0.1, loaded by curl.
check_pkgs="$check_pkgs nginx-light curl"
# Node 20 (tests/chaos/runtime-node*.test): JIT frames unwound by frame
# pointer, named from V8's perf map.
check_pkgs="$check_pkgs nodejs"
# perf counts the EINTR a real program sees without tracing it
# (tests/eintr-python.test: perf trace), and is the reference of the
# accuracy tests and benchmarks.
check_pkgs="$check_pkgs linux-perf"
# Real services against perf (tests/service-redis.test and
# tests/service-postgres.test, bench/services.sh, make bench-accuracy):
# redis-server and redis-benchmark (redis-tools), PostgreSQL (initdb,
# postgres and pgbench, started by the test in its own directory, as the
# postgres user the package makes when the test runs as root), and wrk,
# nginx's load.  A system instance the packages may start is left alone:
# the tests use their own ports and sockets.
check_pkgs="$check_pkgs redis-server redis-tools postgresql wrk"
# Debian's debuginfod server, started on 127.0.0.1 by tests/debuginfod.test
# over a folder of debug files (never a public server).
check_pkgs="$check_pkgs debuginfod"
# The debug file of Debian's stripped /usr/bin/python3.11, named by its
# build ID under /usr/lib/debug/.build-id (tests/python-dbgsym.test: the
# interpreter's static functions named).  It matches only the interpreter
# of the same package version, and the archive keeps only the newest
# python3.11-dbg (deb12u8 and u9 when u6 was installed, in 2026): it
# depends on python3.11 of exactly its
# version, so installing it upgrades python3.11, python3.11-minimal (the
# binary), libpython3.11-minimal and libpython3.11-stdlib (and
# libpython3.11, -dev, -venv when installed) to that version, and the
# build IDs agree.  An interpreter held at another version keeps the test
# skipped, with both versions named.
check_pkgs="$check_pkgs python3.11-dbg"
command -v rustc > /dev/null 2>&1 || check_pkgs="$check_pkgs rustc"

case $what in
demo) pkgs="$build_pkgs $demo_pkgs" ;;
*) pkgs="$build_pkgs $check_pkgs" ;;
esac

say() { printf 'setup.sh: %s\n' "$*"; }
die() { printf 'setup.sh: %s\n' "$*" >&2; exit 1; }

missing_pkgs()
{
	for p in $pkgs; do
		s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2> /dev/null) || s=
		[ "$s" = installed ] || printf '%s ' "$p"
	done
}

install_pkgs()
{
	missing=$(missing_pkgs)
	if [ -z "$missing" ]; then
		say "all needed Debian packages are installed"
		return
	fi
	say "installing: $missing"
	if [ "$(id -u)" = 0 ]; then
		sudo=
	elif command -v sudo > /dev/null 2>&1; then
		sudo="sudo"
	else
		die "not root and no sudo: install these Debian packages first: $missing"
	fi
	$sudo apt-get update
	# $missing is a list of words on purpose.
	# shellcheck disable=SC2086
	$sudo env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends $missing < /dev/null
	missing=$(missing_pkgs)
	[ -z "$missing" ] || die "still not installed: $missing"
}

build()
{
	jobs=$(nproc 2> /dev/null || echo 2)
	say "autoreconf -fi"
	autoreconf -fi
	say "./configure ${CONFIGURE_FLAGS:-}"
	# shellcheck disable=SC2086
	./configure ${CONFIGURE_FLAGS:-}
	say "make -j$jobs"
	make -j"$jobs"
}

# The suite's outcome as one closing line, "tests: N passed, N failed,
# N skipped", from the summary at the top of test-suite.log.
summary()
{
	[ -f test-suite.log ] || return 0
	awk '
		/^# PASS:/ { pass = $3 }
		/^# XFAIL:/ { pass += $3 }
		/^# SKIP:/ { skip = $3 }
		/^# (FAIL|XPASS|ERROR):/ { fail += $3 }
		/^# ERROR:/ { exit }
		END { printf "tests: %d passed, %d failed, %d skipped\n", pass, fail, skip }
	' test-suite.log
}

check()
{
	say "make check"
	rm -f test-suite.log
	if make check; then
		summary
		return 0
	fi
	if [ -f test-suite.log ]; then
		echo
		say "the suite failed; test-suite.log (with the log of every failed test):"
		cat test-suite.log
	fi
	summary
	die "make check failed"
}

install_pkgs
[ "$what" = deps ] && exit 0
build
case $what in
demo) make demo ;;
check) check ;;
esac
