#!/bin/sh
# fuzz/run.sh - the steps of `make fuzz` (see fuzz/README).
#
#   run.sh check CC
#	fail with the Debian package to install when CC is missing or
#	cannot link a libFuzzer target
#   run.sh run SECONDS SRCDIR TARGET...
#	run each target (fuzz/build/TARGET) for SECONDS seconds, one at a
#	time, on its seeds (SRCDIR/fuzz/corpus/NAME, NAME being TARGET
#	without "fuzz_") and its working corpus (fuzz/work/NAME); print
#	libFuzzer's final stats; crashes land in fuzz/crashes/.  Exits 1
#	when a target found a crash, a timeout or a leak.
#   run.sh sources SRCDIR FILE...
#	print the .c files among FILE (a source list of Makefile.am, .h
#	files and all), each under SRCDIR, on one line

check() {
	cc=$1
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "make fuzz: $cc not found: install the Debian package clang (apt-get install clang)" >&2
		exit 1
	fi
	tmp=$(mktemp -d) || exit 1
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
		'{ (void)d; (void)n; return 0; }' > "$tmp/t.c"
	if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" \
	     >"$tmp/log" 2>&1; then
		major=$("$cc" -dumpversion 2>/dev/null | cut -d. -f1)
		cat "$tmp/log" >&2
		echo "make fuzz: $cc cannot link the libFuzzer runtime (libclang_rt.fuzzer):" \
		     "install the Debian package libclang-rt-${major:-N}-dev" \
		     "(libclang-common-${major:-N}-dev before clang 14)" >&2
		rm -rf "$tmp"
		exit 1
	fi
	rm -rf "$tmp"
}

# Print the summary of one run from its log.
summary() {
	grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)' "$1" | tail -n 1
	grep -E '^(Done [0-9]+ runs|stat::)' "$1"
	grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$1"
}

run() {
	secs=$1 srcdir=$2
	shift 2
	status=0
	mkdir -p fuzz/crashes
	for t in "$@"; do
		name=${t#fuzz_}
		mkdir -p "fuzz/work/$name"
		echo "== $t: $secs s, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
		"fuzz/build/$t" -max_total_time="$secs" -max_len=65536 \
			-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="fuzz/crashes/$name-" \
			"fuzz/work/$name" "$srcdir/fuzz/corpus/$name" \
			>"fuzz/build/$t.log" 2>&1
		rc=$?
		summary "fuzz/build/$t.log"
		if [ $rc -ne 0 ]; then
			echo "== $t FAILED (exit $rc): see fuzz/build/$t.log and fuzz/crashes/"
			status=1
		fi
	done
	exit $status
}

sources() {
	srcdir=$1
	shift
	for f in "$@"; do
		case $f in
		*.c) printf '%s/%s ' "$srcdir" "$f" ;;
		esac
	done
	echo
}

cmd=$1
shift
case $cmd in
check) check "$@" ;;
run) run "$@" ;;
sources) sources "$@" ;;
*) echo "usage: run.sh check CC | run SECONDS SRCDIR TARGET... | sources SRCDIR FILE..." >&2; exit 2 ;;
esac
