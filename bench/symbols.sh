#!/bin/bash
# bench/symbols.sh - what naming a profile costs (`make bench-symbols`;
# see bench/README.md): issue 29's benchmark, the time and memory of
# `ptprof report` on a profile of about SYM_SAMPLES (100,000) samples of
# a large C++ program, with and without inlined frames.
#
#   bench/symbols.sh                 measure, then splice the section into
#                                    docs/PERFORMANCE.md
#   bench/symbols.sh --report DIR    only re-render the section from DIR
#
# The input: a C++ file of SYM_FUNCS functions written here (each its own
# struct type, std::vector, std::map, std::unordered_map, std::sort and
# std::stable_sort with lambdas: a new set of template instances each,
# mostly inlined at -O2).  Two targets, each recorded (ptprof -f SYM_HZ,
# one legacy file and one pprof protobuf per run, -o twice) run after run
# until the runs hold SYM_SAMPLES samples together:
#   clang  Debian's clang++ -O2 -c of that file: libLLVM and libclang-cpp
#          (about 100 MB of code), named from .dynsym and demangled; Debian
#          ships no debug file for them, so no DWARF and no inlined frames.
#   cxx    that file built with g++ -O2 -g and run (SYM_CHUNK s a run): a
#          large binary with its DWARF, where most of the work is inlined.
# Then, SYM_REPS times in turn, `ptprof report --top=20` of all the runs
# of a target together (report merges them), of the legacy files (named
# now: the symbol tables and DWARF are read by report) and of the
# protobufs (named at the end of each recording), with and without
# --no-inline, under /usr/bin/time -f '%e %M': wall seconds and peak RSS.
# A report without --no-inline (before issue 29's report has it) is
# measured without it alone, and the section says so.
#
# It kills only the processes it started, by PID, bounds every wait and
# uses no network.
set -u
BENCH_TAG=symbols BENCH_SCRIPT=symbols.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

TARGETS=${SYM_TARGETS:-clang cxx}
SAMPLES=${SYM_SAMPLES:-$(quick 10000 100000)}
HZ=${SYM_HZ:-1000}
FUNCS=${SYM_FUNCS:-$(quick 20 60)}
REPS=${SYM_REPS:-$(quick 1 3)}
CHUNK=${SYM_CHUNK:-20}
CLANG=${SYM_CLANG:-/usr/bin/clang++}
CXX=${SYM_CXX:-/usr/bin/g++}
PY=${SYM_PYTHON:-/usr/bin/python3}
TIME=/usr/bin/time
# The most runs a target may take to reach SAMPLES (a machine so busy
# that runs bring few samples ends the recording there, and says so).
MAX_RUNS=${SYM_MAX_RUNS:-40}
# The results folder of an earlier run whose profiles are reported again
# (not recorded): the same profiles read by another ptprof.
PROFILES=${SYM_PROFILES:-}
# The longest one report may take (seconds).
REPORT_BOUND=${SYM_REPORT_BOUND:-1800}
BEGIN_MARK='<!-- bench/symbols.sh: begin -->'
END_MARK='<!-- bench/symbols.sh: end -->'

# --- The report section ------------------------------------------------------

# The median, min and max of the numbers on stdin: "MED (MIN-MAX)", or
# "MED" when there is one.
med_range() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "-"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (NR == 1) printf "%s\n", m
		else printf "%s (%s–%s)\n", m, v[1], v[NR]
	}'
}

# The "inlined frames" cell: shown, --no-inline, or none (a report from
# before them).
inl_label() {
	if [ "$2" != 1 ]; then
		echo "none (no --no-inline)"
	elif [ "$1" = inline ]; then
		echo "shown"
	else
		echo "--no-inline"
	fi
}

# The "wall" cell of the rows $1: median (min-max) of those measured,
# and how many reports outlasted the bound $2.
wall_cell() {
	local over cell
	over=$(grep -c 'status=over-' <<<"$1")
	cell=$(sed -n 's/.* wall_s=\([0-9.]*\).*/\1/p' <<<"$1" | med_range)
	if [ "$over" = 0 ]; then
		echo "$cell"
	elif [ "$cell" = - ]; then
		echo "over $2 (killed)"
	else
		echo "$cell; $over over $2 (killed)"
	fi
}

render() {
	local dir=$1 t f i vals name
	local meta="$dir/meta" tsv="$dir/results.tsv"
	m() { sed -n "s/^$1=//p" "$meta" | tail -1; }
	echo "## Symbolization: the cost of \`ptprof report\` (issue 29)"
	echo
	echo "- Machine: $(m nproc) CPUs ($(m cpu_model)), $(m kernel); load $(m load_start) at the start, $(m load_end) at the end; $(m date); ptprof $(m ptprof_git)."
	echo "- Method (bench/symbols.sh, \`make bench-symbols\`): a C++ file of $(m funcs) functions (each its own struct, std::vector, std::map, std::unordered_map, std::sort and std::stable_sort with lambdas), compiled by Debian's clang++ -O2 -c under ptprof (*clang*: $(m clang_version); libLLVM and libclang-cpp named from .dynsym, no DWARF: Debian ships no debug file for them), and built with g++ -O2 -g and run under ptprof (*cxx*: a $(m cxx_mb) MB binary with its DWARF, most of its work inlined).  ptprof -f $(m hz), one legacy file and one pprof protobuf per run, run after run until they hold $(m samples) samples together; then \`ptprof report --top=20\` of all the runs of a target at once, $(m reps) time(s) each, wall time and peak RSS from \`/usr/bin/time -f '%e %M'\`: median (min–max).  A legacy file is named by report itself (symbol tables, DWARF); a protobuf was named when it was written, so its report reads names."
	[ -z "$(m profiles)" ] ||
		echo "- The profiles are those recorded by the run $(basename "$(m profiles)"), read again by this ptprof."
	if [ "$(m have_no_inline)" = 1 ]; then
		echo "- With inlined frames (the default) and with \`--no-inline\` (an address named by its outermost function only, as before issue 29)."
	else
		echo "- **This ptprof's report has no \`--no-inline\`** (before issue 29's inlined frames): one row per file kind, without inlined frames; the \"--no-inline\" rows are left empty."
	fi
	echo
	echo "| target | runs | samples | file | inlined frames | rows (\`(inline)\`) | wall, s | peak RSS, MB |"
	echo "|---|---|---|---|---|---|---|---|"
	for t in $(m targets); do
		for f in prof pb.gz; do
			for i in inline no-inline; do
				grep -q "^target=$t kind=$f inline=$i " "$tsv" || continue
				vals=$(grep "^target=$t kind=$f inline=$i " "$tsv")
				name=$([ "$f" = prof ] && echo "legacy (named by report)" || echo "pprof (named at record)")
				printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$t" \
					"$(m "runs_$t")" "$(sed -n 's/.* total=\([0-9]*\).*/\1/p' <<<"$vals" | head -1)" \
					"$name" "$(inl_label "$i" "$(m have_no_inline)")" \
					"$(sed -n 's/.* rows=\([0-9]*\) inl=\([0-9]*\).*/\1 (\2)/p' <<<"$vals" | head -1)" \
					"$(wall_cell "$vals" "$(m report_bound)")" \
					"$(sed -n 's/.* rss_kb=\([0-9]*\).*/\1/p' <<<"$vals" | awk '{ printf "%.1f\n", $1 / 1024 }' | med_range)"
			done
		done
	done
	local note
	note=$(sed -n 's/^note=//p' "$meta")
	[ -z "$note" ] || { echo; sed 's/^/- /' <<<"$note"; }
}

splice() {
	splice_section "$1" render symbols.md
}

bench_args splice "$@"

# --- Set-up ------------------------------------------------------------------
check_settings "$SAMPLES" "$HZ" "$FUNCS" "$REPS" "$CHUNK" "$MAX_RUNS" "$REPORT_BOUND"
[ -x "$TIME" ] || die "$TIME missing (Debian's time package)"
[ -x "$PY" ] || die "$PY missing"
for t in $TARGETS; do
	case $t in
	clang) [ -x "$CLANG" ] || die "$CLANG missing (Debian's clang)" ;;
	cxx) [ -x "$CXX" ] || die "$CXX missing (Debian's g++)" ;;
	*) die "unknown target '$t' (want clang or cxx)" ;;
	esac
done
HAVE_NO_INLINE=0
"$PTPROF" report --help 2>&1 | grep -q -- '--no-inline' && HAVE_NO_INLINE=1

# (Resolved before this run's symbols-latest link replaces the old one.)
if [ -n "$PROFILES" ]; then
	PROFILES=$(cd "$PROFILES" 2>/dev/null && pwd -P) ||
		die "SYM_PROFILES=${SYM_PROFILES}: no such folder"
fi
t_start=$(date +%s)
bench_start_run symbols- symbols-latest logs
# The C++ file, the program, the profiles: kept in the results (a report
# of the legacy files needs the program where it ran), or another run's
# with SYM_PROFILES.
if [ -n "$PROFILES" ]; then
	WORK=$PROFILES/work
	[ -d "$WORK" ] || die "SYM_PROFILES=$PROFILES: no work/ folder of profiles there"
else
	WORK=$RUN/work
	mkdir -p "$WORK" || die "cannot create $WORK"
fi
PPID_RUN=""
cleanup() {
	# ptprof, then the command it runs if it outlives it (by PID).
	[ -n "$PPID_RUN" ] && stop_wrapped "$PPID_RUN"
	[ -n "$PROFILES" ] || rm -rf "$WORK/big.o"
	rm -f "$RUN/.nap"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
: >"$RUN/results.tsv"
{
	common_meta
	echo "ptprof=$PTPROF"
	echo "quick=${BENCH_QUICK:-0}"
	echo "targets=$TARGETS"
	echo "samples=$SAMPLES"
	echo "hz=$HZ"
	echo "funcs=$FUNCS"
	echo "reps=$REPS"
	echo "report_bound=$REPORT_BOUND"
	echo "have_no_inline=$HAVE_NO_INLINE"
	echo "clang_version=$("$CLANG" --version 2>/dev/null | head -1)"
	echo "cxx_version=$("$CXX" --version 2>/dev/null | head -1)"
} >"$RUN/meta"
[ "$HAVE_NO_INLINE" = 1 ] ||
	log "this ptprof's report has no --no-inline: measured without inlined frames only"
if [ -n "$PROFILES" ]; then
	# What the recording run said of its profiles (the last line of a
	# key is the one rendered).
	grep -E '^(samples|hz|funcs|targets|runs_[a-z]+|cxx_mb|clang_version|cxx_version|note)=' \
		"$PROFILES/meta" >>"$RUN/meta"
	echo "profiles=$PROFILES" >>"$RUN/meta"
fi

# The C++ file (the same bytes for the same SYM_FUNCS).
[ -n "$PROFILES" ] || "$PY" - "$FUNCS" >"$WORK/big.cc" <<'EOF' || die "cannot write big.cc"
import sys
n = int(sys.argv[1])
o = ["#include <algorithm>", "#include <chrono>", "#include <cstdio>",
     "#include <cstdlib>", "#include <map>", "#include <string>",
     "#include <unordered_map>", "#include <vector>", ""]
for i in range(n):
    o.append(f"""struct T{i} {{
	int a;
	std::string s;
	double d;
	bool operator<(const T{i} &o) const {{ return a < o.a || (a == o.a && s < o.s); }}
}};
__attribute__((noinline)) long work{i}(unsigned seed)
{{
	std::vector<T{i}> v;
	std::map<std::string, int> m;
	std::unordered_map<int, double> u;
	for (int k = 0; k < 300; k++) {{
		seed = seed * 1103515245u + {12345 + i}u;
		v.push_back({{int(seed % 1000) + {i}, std::to_string(seed % {97 + i}), seed * {1 + i % 7}.0}});
		m[v.back().s] += k;
		u[int(seed % 512)] += v.back().d;
	}}
	std::sort(v.begin(), v.end(), [](const T{i} &x, const T{i} &y) {{ return y < x; }});
	std::stable_sort(v.begin(), v.end(), [](const T{i} &x, const T{i} &y) {{ return x.s.size() < y.s.size(); }});
	long r = 0;
	for (auto &t : v)
		r += t.a ^ m[t.s];
	for (auto &kv : u)
		r += (long)kv.second % 7;
	return r;
}}
""")
o.append("typedef long (*work_fn)(unsigned);")
o.append("static const work_fn works[] = {" + ", ".join(f"work{i}" for i in range(n)) + "};")
o.append("""int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
	long r = 0;
	unsigned seed = 1;
	while (std::chrono::steady_clock::now() < end)
		for (auto w : works)
			r += w(seed++);
	printf("%ld\\n", r & 1);
	return 0;
}""")
print("\n".join(o))
EOF

# --- Recording ---------------------------------------------------------------

# record TARGET CMD...: ptprof -f HZ -- CMD, run after run, into
# $WORK/TARGET.N.prof and .pb.gz, until the runs hold SAMPLES samples
# (or MAX_RUNS runs).  Each run is bounded (a run of CMD that outlasts it
# is ended by PID).
record() {
	local t=$1 n=0 total=0 got L rc
	shift
	while [ "$total" -lt "$SAMPLES" ] && [ "$n" -lt "$MAX_RUNS" ]; do
		n=$((n + 1))
		L="$RUN/logs/$t.$n"
		"$PTPROF" -f "$HZ" -o "$WORK/$t.$n.prof" -o "$WORK/$t.$n.pb.gz" \
			-- "$@" >"$L.out" 2>"$L.err" &
		PPID_RUN=$!
		wait_gone "$PPID_RUN" 900 || { log "$t run $n: over 900 s, ended"; stop_wrapped "$PPID_RUN"; }
		wait "$PPID_RUN"
		rc=$?
		PPID_RUN=""
		got=$(grab "$(cat "$L.err")" '([0-9]+) samples,')
		[ "$rc" = 0 ] && [ -n "$got" ] && [ -s "$WORK/$t.$n.prof" ] &&
			[ -s "$WORK/$t.$n.pb.gz" ] ||
			die "$t run $n failed (exit $rc): $(tail -2 "$L.err")"
		total=$((total + got))
		log "$t run $n: $got samples, $total in all"
	done
	echo "runs_$t=$n" >>"$RUN/meta"
	[ "$total" -ge "$SAMPLES" ] ||
		echo "note=$t: $MAX_RUNS runs held $total samples only, not $SAMPLES (a busy machine)" >>"$RUN/meta"
}

# measure TARGET KIND INLINE REP: report --top=20 of every run of TARGET.
# A report that outlasts REPORT_BOUND s is killed (timeout, by the PID
# it started) and its row says so.
measure() {
	local t=$1 kind=$2 inl=$3 rep=$4 L="$RUN/logs/report.$1.$2.$3.r$4" opts=() tm rc line
	[ "$inl" = no-inline ] && opts=(--no-inline)
	timeout -s KILL "$REPORT_BOUND" "$TIME" -f '%e %M' -o "$L.time" \
		"$PTPROF" report --top=20 "${opts[@]}" \
		"$WORK/$t".*."$kind" >"$L.out" 2>"$L.err"
	rc=$?
	if [ "$rc" = 137 ]; then
		line="target=$t kind=$kind inline=$inl rep=$rep status=over-${REPORT_BOUND}s"
		echo "$line" >>"$RUN/results.tsv"
		log "$line"
		return
	fi
	[ "$rc" = 0 ] || die "report of $t ($kind, $inl) failed: $(tail -2 "$L.err")"
	read -r -a tm <"$L.time" || die "no time from $TIME: $(cat "$L.time")"
	# The rows in all (report --top=0 would print them: "N more rows")
	# and the inlined ones of the top 20.
	line="target=$t kind=$kind inline=$inl rep=$rep"
	line+=" total=$(grab "$(head -1 "$L.out")" 'Total: ([0-9]+)')"
	line+=" rows=$(($(grab "$(tail -1 "$L.out")" '\(([0-9]+) more rows') + 20))"
	line+=" inl=$(grep -c ' (inline)' "$L.out") wall_s=${tm[0]} rss_kb=${tm[1]}"
	echo "$line" >>"$RUN/results.tsv"
	log "$line"
}

for t in $TARGETS; do
	[ -n "$PROFILES" ] && break
	case $t in
	clang)
		record clang "$CLANG" -O2 -c "$WORK/big.cc" -o "$WORK/big.o" ;;
	cxx)
		log "building the C++ program (g++ -O2 -g)"
		"$CXX" -O2 -g "$WORK/big.cc" -o "$WORK/big" >"$RUN/logs/cxx.build" 2>&1 ||
			die "g++ failed: $(tail -3 "$RUN/logs/cxx.build")"
		echo "cxx_mb=$(($(stat -c %s "$WORK/big") / 1048576))" >>"$RUN/meta"
		record cxx "$WORK/big" "$CHUNK" ;;
	esac
done

INLINES="inline"
[ "$HAVE_NO_INLINE" = 1 ] && INLINES="inline no-inline"
log "results in $RUN; $REPS repetitions of report"
for ((rep = 1; rep <= REPS; rep++)); do
	for t in $TARGETS; do
		for kind in prof pb.gz; do
			for inl in $INLINES; do measure "$t" "$kind" "$inl" "$rep"; done
		done
	done
done
# The machine at the end, the time it all took; then the section.
{
	echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "elapsed_s=$(($(date +%s) - t_start))"
} >>"$RUN/meta"
splice "$RUN"
log "done in $(($(date +%s) - t_start)) s"
