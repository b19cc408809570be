#!/bin/bash
# bench/jit.sh - what profiling JIT code costs (`make bench-jit`; see
# bench/README.md): issue 15's benchmark.
#
# tests/chaos/targets/jitsplit.js (two hot JavaScript functions) runs
# JIT_SECS seconds under node, with and without --perf-basic-prof
# --interpreted-frames-native-stack (the flags that give ptprof names and
# interpreted frames), alone and under ptprof -p PID -f JIT_HZ -d
# (JIT_SECS - 1) --stats, the four configurations in turn, JIT_REPS
# times.  Printed, one row per run: the script's rounds (its throughput),
# ptprof's CPU time per stack and the share of time the target was
# stopped (from --stats and the summary line).  A run of ptprof covers
# all but the first half second and the last half second of the target's.
#
# It kills only the processes it started, by PID, bounds every wait,
# removes the perf maps the node processes it started wrote, and uses no
# network.  Skipped (exit 0, one line) when node is not installed.
set -u
BENCH_TAG=jit BENCH_SCRIPT=jit.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

REPS=${JIT_REPS:-$(quick 1 3)}
SECS=${JIT_SECS:-$(quick 3 6)}
HZ=${JIT_HZ:-1000}
JS=$SRCDIR/tests/chaos/targets/jitsplit.js
FLAGS="--perf-basic-prof --interpreted-frames-native-stack"

bench_args : "$@"
command -v node >/dev/null 2>&1 || {
	log "node is not installed (Debian: nodejs): nothing to measure"
	exit 0
}
[ -x "$PTPROF" ] || die "no ptprof at $PTPROF (make first)"
bench_start_run jit- jit-latest

# run_node OUT FLAGS...: node on jitsplit.js in the background, its PID in
# $node_pid; the run directory is its working directory (V8 writes an
# isolate log there with --perf-basic-prof).
run_node() {
	local out=$1
	shift
	(cd "$RUN" && exec node "$@" "$JS" "$SECS") >"$out" 2>&1 </dev/null &
	node_pid=$!
}

# rounds OUT: the rounds the script counted.
rounds() {
	sed -n 's/.*rounds=\([0-9]*\).*/\1/p' "$1"
}

# finish PID: wait for it (bounded: SECS + 30 s), then remove its map.
finish() {
	local i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt $(((SECS + 30) * 10)) ]; do
		nap 0.1
		i=$((i + 1))
	done
	kill -0 "$1" 2>/dev/null && kill -KILL "$1"
	wait "$1" 2>/dev/null
	rm -f "/tmp/perf-$1.map"
}

printf '| node flags | rep | rounds alone | rounds under ptprof | ptprof CPU per stack | target stopped |\n' |
	tee "$RUN/table.md"
printf '|---|---|---|---|---|---|\n' | tee -a "$RUN/table.md"
for rep in $(seq 1 "$REPS"); do
	for with in 1 0; do
		# shellcheck disable=SC2086 # FLAGS is two words on purpose
		if [ $with = 1 ]; then set -- $FLAGS; else set --; fi
		run_node "$RUN/alone.$rep.$with" "$@"
		finish "$node_pid"
		run_node "$RUN/under.$rep.$with" "$@"
		p=$node_pid
		nap 0.5
		timeout -s KILL $((SECS + 30)) "$PTPROF" -p "$p" -f "$HZ" \
			-d $((SECS - 1)) --stats -o "$RUN/prof.$rep.$with.pb.gz" \
			2>"$RUN/ptprof.$rep.$with.err"
		finish "$p"
		per=$(sed -n 's/.*ptprof cpu [0-9]* us, \([0-9.]*\) us per stack.*/\1/p' \
			"$RUN/ptprof.$rep.$with.err")
		stopped=$(sed -n 's/.* \([0-9.]*%\) of [0-9.]* s; ended.*/\1/p' \
			"$RUN/ptprof.$rep.$with.err")
		printf '| %s | %s | %s | %s | %s µs | %s |\n' \
			"$([ $with = 1 ] && echo "$FLAGS" || echo none)" "$rep" \
			"$(rounds "$RUN/alone.$rep.$with")" \
			"$(rounds "$RUN/under.$rep.$with")" "${per:-?}" \
			"${stopped:-?}" | tee -a "$RUN/table.md"
	done
done
log "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); table in $RUN/table.md"
