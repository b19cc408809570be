#!/bin/bash
# bench/procs.sh - what profiling a process tree costs (`make bench-procs`;
# see bench/README.md): issue 14's benchmark.
#
#   bench/procs.sh                 measure, then splice the section into
#                                  docs/PERFORMANCE.md
#   bench/procs.sh --report DIR    only re-render the section from DIR
#
# Rows, each configuration in turn, the order rotating from one
# repetition to the next:
#   idle   bench/jitter -b 1 (one busy thread that measures the time stolen
#          from it): with no profiler; profiled alone (ptprof -p JPID); and
#          beside bench/idlers N T (N processes of T blocked threads each),
#          profiled with them (ptprof -p JPID,P1,...,PN), if this ptprof's
#          --help lists the -p PID[,PID...] form.  ptprof runs under
#          bench/cputime: its CPU time over its ticks is its cost per tick.
#   build  make -jJOBS of a copy of ptprof's src/ (a plain Makefile, cc -O2
#          -c, no link): with no profiler, under ptprof -f HZ -- make (which
#          follows make's children if its --help lists --children) and
#          under perf record -g -F HZ -- make (perf follows children);
#          `make clean` before each, one unmeasured build first to warm the
#          caches.  Wall and CPU time from bench/cputime.
#
# It kills only the processes it started, by PID, bounds every wait and
# uses no network.
set -u
BENCH_TAG=procs BENCH_SCRIPT=procs.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
BIN=${BENCH_BIN:-$BUILDDIR/bench}

ROWS=${PROCS_ROWS:-idle build}
REPS=${PROCS_REPS:-$(quick 1 3)}
SECS=${PROCS_SECS:-$(quick 2 5)}
WARMUP=${PROCS_WARMUP:-1}
HZ=${PROCS_HZ:-100}
IDLERS=${PROCS_IDLERS:-100}
IDLE_THREADS=${PROCS_IDLE_THREADS:-4}
JOBS=${PROCS_JOBS:-2}
BEGIN_MARK='<!-- bench/procs.sh: begin -->'
END_MARK='<!-- bench/procs.sh: end -->'

result() {
	echo "$*" >>"$RUN/results.tsv"
	log "$*"
}

# "key=value" of the machine's busy share since cpustat line $1, and the
# 1-minute load average.
machine_since() {
	local tot0 idle0 tot1 idle1
	read -r tot0 idle0 <<<"$1"
	read -r tot1 idle1 <<<"$(cpustat)"
	printf 'busy_pct=%s load=%s' \
		"$(awk -v t=$((tot1 - tot0)) -v i=$((idle1 - idle0)) \
			'BEGIN { if (t > 0) printf "%.1f", 100 * (t - i) / t }')" \
		"$(cut -d' ' -f1 /proc/loadavg)"
}

# The figures of ptprof's summary line and --stats in file $1: ticks,
# missed, samples, processes (when the summary or --stats counts them),
# threads, pause mean.
ptprof_figures() {
	local t line
	t=$(cat "$1" 2>/dev/null)
	line=$(grep -m1 -E '^ptprof: [0-9]+ ticks' <<<"$t")
	printf 'ticks=%s missed=%s samples=%s processes=%s threads=%s pause_mean_us=%s' \
		"$(grab "$line" '([0-9]+) ticks')" \
		"$(grab "$line" '\(([0-9]+) missed\)')" \
		"$(grab "$line" '([0-9]+) samples')" \
		"$(grab "$line" '([0-9]+) process' || grab "$t" 'processes [a-z]+ ([0-9]+),')" \
		"$(grab "$line" '([0-9]+) threads')" \
		"$(grab "$line" 'pause mean ([0-9.]+) ?us')"
}

# The words of $1 rotated left by $2: each repetition's order.
rotate() {
	local a n i
	read -r -a a <<<"$1"
	n=${#a[@]}
	for ((i = 0; i < n; i++)); do printf '%s ' "${a[$(((i + $2) % n))]}"; done
}

# The PID cputime wrapper $1 runs, once it has forked (up to 5 s).
child_of() {
	local i kids=""
	for ((i = 0; i < 500; i++)); do
		read -r kids 2>/dev/null <"/proc/$1/task/$1/children" || :
		[ -n "$kids" ] && { echo "${kids%% *}"; return 0; }
		alive "$1" || return 1
		nap 0.01
	done
	return 1
}

# Wait up to $2 s for "ready" in file $1 (bench/idlers prints its PIDs
# first) while process $3 lives.
wait_line_ready() {
	local i
	for ((i = 0; i < $2 * 100; i++)); do
		grep -qx ready "$1" 2>/dev/null && return 0
		alive "$3" || return 1
		nap 0.01
	done
	return 1
}

# --- Row idle: jitter alone, profiled alone, profiled with idle siblings ---

# Case $1 (none, alone or siblings), repetition $2.
run_idle() {
	local c=$1 rep=$2 L="$RUN/logs/idle.$1.r$2" st=ok m0 pids="" out
	local cpu_us ticks attach_ms="" t0 pp rc=0 jst
	m0=$(cpustat)
	if [ "$c" = siblings ]; then
		"$BIN/idlers" -t "$BOUND" "$IDLERS" "$IDLE_THREADS" \
			>"$L.idlers" 2>"$L.idlers.err" &
		IPID=$!
		if ! wait_line_ready "$L.idlers" 60 "$IPID"; then
			stop_pid "$IPID"; IPID=""
			result "row=idle case=$c rep=$rep status=fail:idlers-not-ready"
			return
		fi
		pids=$(sed -n 's/^pids //p' "$L.idlers")
	fi
	"$BIN/jitter" -b 1 -d "$SECS" -w "$WARMUP" >"$L.jitter" 2>"$L.jitter.err" &
	JPID=$!
	if ! wait_ready "$L.jitter" "$JPID" 20; then
		stop_pid "$JPID"; JPID=""
		[ -n "$IPID" ] && { stop_pid "$IPID"; IPID=""; }
		result "row=idle case=$c rep=$rep status=fail:target-not-ready"
		return
	fi
	if [ "$c" != none ]; then
		t0=$(date +%s%N)
		# -d bounds the run; it is ended (INT) when jitter is done.
		"$BIN/cputime" -t "$BOUND" "$L.cpu" "$PTPROF" -p "$JPID${pids:+,$pids}" \
			-f "$HZ" -d "$PDUR" --stats -o "$SCRATCH/idle.prof" \
			>"$L.out" 2>"$L.err" &
		CPID=$!
		# How long until ptprof samples: the warm-up must cover it.
		if pp=$(child_of "$CPID") && wait_sampling "$pp"; then
			attach_ms=$((($(date +%s%N) - t0) / 1000000))
		else
			st=fail:ptprof-not-sampling
		fi
	fi
	wait_gone "$JPID" "$BOUND" || { st=fail:target-overran; stop_pid "$JPID"; }
	wait "$JPID"
	jst=$?
	JPID=""
	if [ -n "$CPID" ]; then
		alive "$CPID" && kill -INT "$CPID" 2>/dev/null
		wait_gone "$CPID" 30 || { [ "$st" = ok ] && st=fail:ptprof-hung; stop_wrapped "$CPID"; }
		wait "$CPID"
		rc=$?
		CPID=""
	fi
	[ -n "$IPID" ] && { stop_pid "$IPID"; IPID=""; }
	out=$(grep -m1 '^jitter ' "$L.jitter")
	[ -n "$out" ] && [ "$jst" = 0 ] || [ "$st" != ok ] || st=fail:target-exit-$jst
	# 130: ptprof ended by the INT sent above, as asked.
	[ "$rc" = 0 ] || [ "$rc" = 130 ] || [ "$st" != ok ] || st=fail:ptprof-exit-$rc
	local fig="" per=""
	if [ "$c" != none ]; then
		fig=$(ptprof_figures "$L.err")
		cpu_us=$(kv "$(cat "$L.cpu" 2>/dev/null)" cpu_us)
		ticks=$(kv "$fig" ticks)
		[ -n "$cpu_us" ] && [ -n "$ticks" ] && [ "$ticks" -gt 0 ] &&
			per=$(awk -v c="$cpu_us" -v t="$ticks" 'BEGIN { printf "%.1f", c / t }')
		[ -n "$per" ] || [ "$st" != ok ] || st=fail:no-summary
		fig+=" cpu_us=$cpu_us cpu_per_tick_us=$per attach_ms=$attach_ms"
	fi
	result "row=idle case=$c rep=$rep status=$st" \
		"stolen_pct=$(kv "$out" stolen_pct) gap_p99_ns=$(kv "$out" p99_ns)" \
		"$fig $(machine_since "$m0")"
	rm -f "$SCRATCH"/*
}

# --- Row build: make -jJOBS of a copy of src/ ---------------------------------

# The build tree in $1: src/'s layer folders (includes are "LAYER/x.h")
# but the files that need the generated protobuf-c headers (directly or
# through a private header), the build's config.h, a plain Makefile.
make_tree() {
	local d pbh
	mkdir -p "$1" || return 1
	for d in "$SRCDIR"/src/*/; do
		mkdir -p "$1/$(basename "$d")" &&
			cp "$d"*.c "$d"*.h "$1/$(basename "$d")/" || return 1
	done
	chmod -R u+w "$1"
	rm -f "$1"/*/*.pb-c.[ch]
	pbh=$(grep -l 'pb-c\.h' "$1"/*/*.h | sed "s|^$1/||" | tr '\n' '|')
	grep -lE "pb-c\.h${pbh:+|${pbh%|}}" "$1"/*/*.c | xargs rm -f
	cp "$BUILDDIR/config.h" "$1/" || return 1
	cat >"$1/Makefile" <<'EOF'
# bench/procs.sh's build: compile only (no link), every .c of src/ but
# those that need generated headers.
OBJS = $(patsubst %.c,%.o,$(wildcard */*.c))
all: $(OBJS)
%.o: %.c
	cc -O2 -I. -c $< -o $@
clean:
	rm -f */*.o
.PHONY: all clean
EOF
}

# Case $1 (none, ptprof or perf), repetition $2 ("warm" for the build
# that warms the caches, not measured).
run_build() {
	local c=$1 rep=$2 L="$RUN/logs/build.$1.r$2" st=ok m0 rc cmd=() n
	make -s -C "$TREE" clean >/dev/null 2>&1
	case $c in
	none) cmd=() ;;
	ptprof) cmd=("$PTPROF" -f "$HZ" -o "$SCRATCH/build.pb.gz" --) ;;
	perf) cmd=("$PERF" record -g -F "$HZ" --no-buildid-cache -o "$SCRATCH/build.data" --) ;;
	esac
	m0=$(cpustat)
	"$BIN/cputime" -t "$BUILD_BOUND" "$L.cpu" "${cmd[@]}" make -j"$JOBS" -C "$TREE" \
		>"$L.make" 2>"$L.err" &
	CPID=$!
	wait_gone "$CPID" $((BUILD_BOUND + 15)) || { st=fail:hung; stop_wrapped "$CPID"; }
	wait "$CPID"
	rc=$?
	CPID=""
	[ "$rc" = 0 ] || [ "$st" != ok ] || st=fail:exit-$rc
	n=$(find "$TREE" -maxdepth 2 -name '*.o' | wc -l)
	[ "$n" = "$NSRC" ] || [ "$st" != ok ] || st=fail:built-$n-of-$NSRC
	[ "$rep" = warm ] && { rm -f "$SCRATCH"/*; return; }
	local extra="" t
	t=$(cat "$L.err" 2>/dev/null)
	case $c in
	ptprof)
		extra=$(ptprof_figures "$L.err")
		[ -s "$SCRATCH/build.pb.gz" ] || [ "$st" != ok ] || st=fail:no-profile ;;
	perf)
		extra="samples=$(grab "$t" '\(([0-9]+) samples\)')"
		[ -s "$SCRATCH/build.data" ] || [ "$st" != ok ] || st=fail:no-perf-data ;;
	esac
	result "row=build case=$c rep=$rep status=$st" \
		"wall_us=$(kv "$(cat "$L.cpu" 2>/dev/null)" wall_us)" \
		"cpu_us=$(kv "$(cat "$L.cpu" 2>/dev/null)" cpu_us) $extra $(machine_since "$m0")"
	rm -f "$SCRATCH"/*
}

# --- The report section ------------------------------------------------------

splice() {
	splice_section "$1" render_results procs.md
}

bench_args splice "$@"

# --- Set-up ---------------------------------------------------------------
check_settings "$REPS" "$SECS" "$WARMUP" "$HZ" "$IDLERS" "$IDLE_THREADS" "$JOBS"
for p in jitter cputime idlers; do
	[ -x "$BIN/$p" ] || die "$BIN/$p missing: run 'make bench-procs'"
done
for row in $ROWS; do
	case $row in idle | build) ;; *) die "unknown row '$row' (want idle or build)" ;; esac
done
# ptprof's -d (a bound: it is stopped when jitter is done) and the
# longest any run may take before it counts as hung.
PDUR=$(awk -v s="$SECS" -v w="$WARMUP" 'BEGIN { print s + w + 5 }')
BOUND=$(awk -v s="$SECS" -v w="$WARMUP" 'BEGIN { print int(s + w) + 60 }')
BUILD_BOUND=${PROCS_BUILD_BOUND:-900}

t_start=$(date +%s)
bench_start_run procs- procs-latest logs
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/ptprof-procs.XXXXXX") || die "mktemp failed"
TREE="$SCRATCH.tree"
JPID="" IPID="" CPID=""
cleanup() {
	[ -n "$CPID" ] && stop_wrapped "$CPID"
	[ -n "$JPID" ] && stop_pid "$JPID"
	[ -n "$IPID" ] && stop_pid "$IPID"
	rm -rf "$SCRATCH" "$TREE"
	rm -f "$RUN/.nap"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
: >"$RUN/results.tsv"

help=$("$PTPROF" --help 2>&1)
HAVE_LIST=0 HAVE_CHILDREN=0
grep -q 'PID\[,PID' <<<"$help" && HAVE_LIST=1
grep -q -- '--children' <<<"$help" && HAVE_CHILDREN=1
{
	common_meta
	echo "ptprof=$PTPROF"
	echo "quick=${BENCH_QUICK:-0}"
	echo "rows=$ROWS"
	echo "reps=$REPS"
	echo "secs=$SECS"
	echo "warmup=$WARMUP"
	echo "hz=$HZ"
	echo "idlers=$IDLERS"
	echo "idle_threads=$IDLE_THREADS"
	echo "jobs=$JOBS"
	echo "have_list=$HAVE_LIST"
	echo "have_children=$HAVE_CHILDREN"
	# What this ptprof's --help says of a launched command's children.
	echo "help_children=$(tr -s ' \n' '  ' <<<"$help" | grep -o -i -m1 '[^.]*child[^.]*\.' | head -1 | sed 's/^ *//')"
	echo "perf_version=$("$PERF" version 2>/dev/null | head -1)"
	echo "cc_version=$(cc --version 2>/dev/null | head -1)"
} >"$RUN/meta"

IDLE_CASES="none alone siblings"
if [ "$HAVE_LIST" = 0 ]; then
	IDLE_CASES="none alone"
	echo "unavailable_siblings=this ptprof's --help has no -p PID[,PID...] form" >>"$RUN/meta"
	log "idle siblings unavailable: no -p PID[,PID...] in $PTPROF --help"
fi
BUILD_CASES="none ptprof perf"
if [[ " $ROWS " = *" build "* ]]; then
	make_tree "$TREE" || die "cannot copy the sources into $TREE"
	NSRC=$(find "$TREE" -maxdepth 2 -name '*.c' | wc -l)
	echo "build_files=$NSRC" >>"$RUN/meta"
	if ! "$PERF" record -g -F "$HZ" --no-buildid-cache -o "$SCRATCH/check.data" \
		-- true >"$RUN/perf-check.log" 2>&1 || [ ! -s "$SCRATCH/check.data" ]; then
		BUILD_CASES="none ptprof"
		echo "unavailable_perf=perf record fails here: $(grep -v '^\s*$' "$RUN/perf-check.log" | head -1)" >>"$RUN/meta"
		log "perf unavailable; see $RUN/perf-check.log"
	fi
	rm -f "$SCRATCH"/*
	log "a first build to warm the caches (not measured)"
	run_build none warm
fi

log "results in $RUN; $REPS repetitions of: $ROWS"
for ((rep = 1; rep <= REPS; rep++)); do
	for row in $ROWS; do
		case $row in
		idle) for c in $(rotate "$IDLE_CASES" $((rep - 1))); do run_idle "$c" "$rep"; done ;;
		build) for c in $(rotate "$BUILD_CASES" $((rep - 1))); do run_build "$c" "$rep"; done ;;
		esac
	done
done
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RUN/meta"
echo "elapsed_s=$(($(date +%s) - t_start))" >>"$RUN/meta"
splice "$RUN"
log "done in $(($(date +%s) - t_start)) s"
