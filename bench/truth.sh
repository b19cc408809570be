#!/bin/bash
# bench/truth.sh - are ptprof's CPU-mode figures true where ptrace stops
# are known to mislead?  (`make bench-truth`; see bench/README.md.)  The
# four goals of issue 13 and issue 26's bursts, each measured on the
# ptprof under test ("after") and, with BENCH_BASELINE=BINARY, on another
# one ("before"):
#
#   bench/truth.sh                 measure, then splice the section into
#                                  docs/PERFORMANCE.md
#   bench/truth.sh --report DIR    only re-render the section from DIR
#
# Rows (ptprof(1), SYSTEM CALL BIAS and CPU MODE):
#   syscall  tests/targets/sysloop pread|getppid (~10 us of work, one call,
#            pinned to the last CPU, as tests/syscall-bias.test does): ptprof
#            (CPU mode, HZ) and perf record -e cpu-clock -g attached to the
#            same PID over the same window; the call wrapper's and work's
#            shares of each flat profile (perf's kernel samples go to their
#            first user frame, the wrapper: bench/flat.sh), sysloop's own
#            measure of its time in the call, and the stacks at a call's
#            exit that --stats reports.
#   sqlite   bench/accuracy.sh's sqlite3 workload, the same way: pread's
#            share.
#   alias    tests/targets/alias (slice_a and slice_b alternate every 5 ms of
#            CLOCK_MONOTONIC) run under ptprof at 100 Hz, CPU mode and
#            --wall: slice_a's share of slice_a + slice_b (frames anywhere in
#            the stack), and the target's own measure of where it was.
#   1khz     tests/targets/bursts, 1 thread that never sleeps, at 1000 Hz:
#            stacks per period of CPU time the thread used, and samples x
#            period over that CPU time (utime + stime of /proc/PID/stat
#            around the bursts, as tests/cpu-total.test reads it).
#   totals   tests/targets/bursts with 1, 8, 100 and 1000 threads, light and
#            heavy (tests/cpu-total.test's loads), 100 Hz, and 1000 threads
#            at 1000 Hz: samples x period over the CPU time used.
#   duty     tests/targets/duty, a thread that burns in burn_work and sleeps
#            in clock_nanosleep (issue 26: a service at normal load), at
#            duty cycles of about 5%, 30% and 100%: ptprof (CPU mode,
#            DUTY_HZ) and perf record -e cpu-clock -g on the same PID in
#            the same window, as the syscall row; burn_work's and the
#            sleep's shares of each flat profile, and duty's own measure
#            of its CPU time in burn_work (as tests/bursty.test checks).
#
# Each repetition runs every row on each binary, the order of the binaries
# alternating.  It kills only the processes it started, by PID, bounds
# every wait and uses no network.
set -u
BENCH_TAG=truth BENCH_SCRIPT=truth.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
. "$here/flat.sh"
TGT=${BENCH_TARGETS_DIR:-$BUILDDIR/tests/targets}
BASELINE=${BENCH_BASELINE:-}

SECS=${TRUTH_SECS:-$(quick 3 8)}
REPS=${TRUTH_REPS:-$(quick 1 3)}
BURST_SECS=${TRUTH_BURST_SECS:-$(quick 2 3)}
ALIAS_SECS=${TRUTH_ALIAS_SECS:-$(quick 4 8)}
WARMUP=${TRUTH_WARMUP:-1}
HZ=${TRUTH_HZ:-100}
PERF_HZ=${TRUTH_PERF_HZ:-997}
ROWS=${TRUTH_ROWS:-syscall sqlite alias 1khz totals duty}
# N BURST_US SLEEP_US HZ: tests/cpu-total.test's loads, then 1000 Hz.
TOTALS=${TRUTH_TOTALS:-1:3000:30000:100 1:100000:0:100 8:1000:50000:100
8:100000:0:100 100:200:100000:100 100:2000:150000:100 1000:100:200000:100
1000:1000:700000:100 1000:100:200000:1000 1000:1000:700000:1000}
# N:BURST_US:SLEEP_US: duty cycles of about 5%, 30% and 100%, at DUTY_HZ.
DUTY=${TRUTH_DUTY:-1:500:9500 1:3000:7000 1:3000:0}
DUTY_HZ=${TRUTH_DUTY_HZ:-1000}
BEGIN_MARK='<!-- bench/truth.sh: begin -->'
END_MARK='<!-- bench/truth.sh: end -->'

# The binary for "before" or "after".
bin_of() {
	[ "$1" = before ] && echo "$BASELINE" || echo "$PTPROF"
}

# utime + stime of process $1, clock ticks.
cpu_ticks() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null
}

# "A B P" of --stats' "stacks at a system call's exit A of B (P% of
# samples)", nothing when the binary does not report it.
at_exit_of() {
	sed -n "s/.*stacks at a system call's exit \([0-9]*\) of \([0-9]*\) (\([0-9.]*\)% of samples).*/\3/p" "$1"
}

# The summary line's "N samples", --stats' "stacks N", ticks and missed.
summary_of() {
	local t
	t=$(cat "$1")
	printf 'ticks=%s missed=%s samples=%s stacks=%s' \
		"$(sed -n 's/^ptprof: \([0-9]*\) ticks .*/\1/p' <<<"$t")" \
		"$(sed -n 's/^ptprof: [0-9]* ticks (\([0-9]*\) missed).*/\1/p' <<<"$t")" \
		"$(sed -n 's/^ptprof: [0-9]* ticks ([0-9]* missed), \([0-9]*\) samples.*/\1/p' <<<"$t")" \
		"$(sed -n 's/.* stacks \([0-9]*\), samples reusing.*/\1/p' <<<"$t")"
}

# Share (percent) of canon file $2's weight whose label matches regex $1.
share_of() {
	awk -F'\t' -v re="$1" '{ t += $3; if ($2 ~ re) s += $3 }
	END { if (t > 0) printf "%.1f", 100 * s / t }' "$2"
}

result() {
	echo "$*" >>"$RUN/results.tsv"
	log "$*"
}

# One window of workload WPID (started by the caller, warmed up) recorded
# by ptprof binary $2 (at $3 Hz, HZ without it) and perf at once, into
# directory $1; then the flat profiles' canon files $1/ptprof.canon and
# $1/perf.canon.  Sets st.
record_window() {
	local d=$1 bin=$2 hz=${3:-$HZ}
	cp "/proc/$WPID/maps" "$d/maps" 2>/dev/null
	window_record "$d" "$PERF_HZ" "$WPID" "$SECS" \
		"$bin" -p "$WPID" -f "$hz" -d "$SECS" --stats -o "$d/ptprof.prof"
	[ -s "$d/ptprof.prof" ] || [ "$st" != ok ] || st=fail:no-profile
	[ "$st" = ok ] || return
	flat_ptprof "$d/ptprof.prof" >"$d/ptprof.flat"
	flat_perf "$d/perf.data" >"$d/perf.flat" 2>"$d/perf.kernel"
	tables_for "$d/maps" "$d"/*.flat >"$d/tables"
	canon "$d/tables" "$d/ptprof.flat" >"$d/ptprof.canon"
	canon "$d/tables" "$d/perf.flat" >"$d/perf.canon"
	rm -f "$d/tables"
	[ "${ACC_KEEP:-0}" = 1 ] || rm -f "$d/perf.data"
}

# Row syscall: sysloop $1 on binary $2, repetition $3.
row_syscall() {
	local call=$1 bin=$2 rep=$3 d="$RUN/syscall.$1.$2.r$3" st=ok own re
	mkdir -p "$d"
	"$TGT/sysloop" "$call" "$(awk -v w="$WARMUP" -v s="$SECS" 'BEGIN { print w + s + 2 }')" \
		10000 >"$d/target.out" 2>&1 &
	WPID=$!
	if ! wait_ready "$d/target.out" "$WPID" 20; then
		stop_pid "$WPID"; WPID=""
		result "row=syscall case=$call bin=$bin rep=$rep status=fail:target-not-ready"
		return
	fi
	# The last CPU: the stop then comes by an interrupt from another
	# CPU, which loses the race to the call's exit more often (the bias).
	[ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null &&
		taskset -p -c $(($(nproc) - 1)) "$WPID" >/dev/null 2>&1
	nap "$WARMUP"
	record_window "$d" "$(bin_of "$bin")"
	wait_gone "$WPID" 30 || st=fail:target-overran
	stop_pid "$WPID"; WPID=""
	own=$(sed -n 's/^syscall_share \([0-9.]*\) .*/\1/p' "$d/target.out")
	if [ "$st" != ok ]; then
		result "row=syscall case=$call bin=$bin rep=$rep status=$st"
		return
	fi
	re="^([A-Za-z_]*_)?$call(64)? [[]"
	result "row=syscall case=$call bin=$bin rep=$rep status=ok" \
		"call_pt=$(share_of "$re" "$d/ptprof.canon")" \
		"call_perf=$(share_of "$re" "$d/perf.canon")" \
		"work_pt=$(share_of '^work [[]' "$d/ptprof.canon")" \
		"work_perf=$(share_of '^work [[]' "$d/perf.canon")" \
		"own=$own at_exit=$(at_exit_of "$d/ptprof.log")" \
		"$(summary_of "$d/ptprof.log") load=$(cut -d' ' -f1 /proc/loadavg)"
}

# Row sqlite: on binary $1, repetition $2.
row_sqlite() {
	local bin=$1 rep=$2 d="$RUN/sqlite.$1.r$2" st=ok re='^([A-Za-z_]*_)?pread(64)? [[]'
	mkdir -p "$d"
	start_sqlite "$DATA/sq.db" $((${WARMUP%.*} + ${SECS%.*} + 60)) "$d/target.err"
	nap "$WARMUP"
	if ! alive "$WPID"; then
		stop_pid "$WPID"; WPID=""
		result "row=sqlite case=pread bin=$bin rep=$rep status=fail:workload-ended"
		return
	fi
	record_window "$d" "$(bin_of "$bin")"
	alive "$WPID" || [ "$st" != ok ] || st=fail:workload-ended-early
	stop_pid "$WPID"; WPID=""
	if [ "$st" != ok ]; then
		result "row=sqlite case=pread bin=$bin rep=$rep status=$st"
		return
	fi
	result "row=sqlite case=pread bin=$bin rep=$rep status=ok" \
		"call_pt=$(share_of "$re" "$d/ptprof.canon")" \
		"call_perf=$(share_of "$re" "$d/perf.canon")" \
		"at_exit=$(at_exit_of "$d/ptprof.log")" \
		"$(summary_of "$d/ptprof.log") load=$(cut -d' ' -f1 /proc/loadavg)"
}

# Row alias: mode $1 (cpu or wall) on binary $2, repetition $3.
row_alias() {
	local mode=$1 bin=$2 rep=$3 d="$RUN/alias.$1.$2.r$3" opts=() rc a b
	mkdir -p "$d"
	[ "$mode" = wall ] && opts+=(--wall)
	"$BIN_DIR/cputime" -t $((${ALIAS_SECS%.*} + 60)) "$d/cpu" \
		"$(bin_of "$bin")" -f 100 "${opts[@]}" -o "$d/ptprof.prof" \
		-- "$TGT/alias" "$ALIAS_SECS" >"$d/target.out" 2>"$d/ptprof.log"
	rc=$?
	if [ "$rc" != 0 ] || [ ! -s "$d/ptprof.prof" ]; then
		result "row=alias case=$mode bin=$bin rep=$rep status=fail:ptprof-exit-$rc"
		return
	fi
	"$PTPROF" report --folded "$d/ptprof.prof" >"$d/folded" 2>"$d/report.err"
	read -r a b < <(awk '{
		s = $0; sub(/ [0-9]+$/, "", s)
		k = split(s, fr, ";"); fa = fb = 0
		for (i = 1; i <= k; i++) {
			if (fr[i] == "slice_a") fa = 1
			if (fr[i] == "slice_b") fb = 1
		}
		if (fa) a += $NF
		else if (fb) b += $NF
	} END { print a + 0, b + 0 }' "$d/folded")
	result "row=alias case=$mode bin=$bin rep=$rep status=ok" \
		"split_pt=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a + b) printf "%.1f", 100 * a / (a + b) }')" \
		"n=$((a + b))" \
		"ran=$(sed -n 's/^ran \([0-9]*\)% of the time$/\1/p' "$d/target.out")" \
		"own_wall=$(sed -n 's/^slice_a: \([0-9.]*\)% of the time, .*/\1/p' "$d/target.out")" \
		"own_run=$(sed -n 's/^slice_a: .*, \([0-9.]*\)% of the time run$/\1/p' "$d/target.out")" \
		"$(summary_of "$d/ptprof.log") load=$(cut -d' ' -f1 /proc/loadavg)"
}

# Row duty: tests/targets/duty N:BURST_US:SLEEP_US ($1) at DUTY_HZ on
# binary $2, repetition $3.  duty runs its rounds for the warm-up, the
# window and 2 s more, then prints its own measure and exits.
row_duty() {
	local spec=$1 bin=$2 rep=$3 n burst sleep st=ok own
	local sleep_re='^([A-Za-z_]*_)?(clock_)?nanosleep(64)? [[]'
	IFS=: read -r n burst sleep <<<"$spec"
	local d="$RUN/duty.$n.$burst.$sleep.$bin.r$rep" tag="row=duty case=$spec bin=$bin rep=$rep"
	mkdir -p "$d"
	"$TGT/duty" "$n" "$burst" "$sleep" \
		"$(awk -v w="$WARMUP" -v s="$SECS" 'BEGIN { print w + s + 2 }')" \
		>"$d/target.out" 2>&1 &
	WPID=$!
	nap "$WARMUP"
	if ! alive "$WPID"; then
		stop_pid "$WPID"; WPID=""
		result "$tag status=fail:target-ended"
		return
	fi
	record_window "$d" "$(bin_of "$bin")" "$DUTY_HZ"
	wait_gone "$WPID" 120 || [ "$st" != ok ] || st=fail:target-overran
	stop_pid "$WPID"; WPID=""
	own=$(sed -n 's/^burn_share \([0-9.]*\)$/\1/p' "$d/target.out")
	[ -n "$own" ] || [ "$st" != ok ] || st=fail:no-own-measure
	if [ "$st" != ok ]; then
		result "$tag status=$st"
		return
	fi
	result "$tag status=ok" \
		"burn_pt=$(share_of '^burn_work [[]' "$d/ptprof.canon")" \
		"burn_perf=$(share_of '^burn_work [[]' "$d/perf.canon")" \
		"sleep_pt=$(share_of "$sleep_re" "$d/ptprof.canon")" \
		"sleep_perf=$(share_of "$sleep_re" "$d/perf.canon")" \
		"own=$own $(summary_of "$d/ptprof.log") load=$(cut -d' ' -f1 /proc/loadavg)"
}

# Rows 1khz and totals: bursts N BURST_US SLEEP_US at HZ, from spec
# "N:BURST:SLEEP:HZ" $2, row name $1, on binary $3, repetition $4.
row_bursts() {
	local row=$1 n burst sleep hz bin=$3 rep=$4 c0 c1 cpu_ms prof_ms st=ok rc
	IFS=: read -r n burst sleep hz <<<"$2"
	local d="$RUN/$row.$n.$burst.$hz.$bin.r$rep" tag="row=$row case=$2 bin=$bin rep=$rep"
	mkdir -p "$d"
	"$TGT/bursts" "$n" "$burst" "$sleep" "$BURST_SECS" >"$d/target.out" 2>&1 &
	WPID=$!
	if ! wait_ready "$d/target.out" "$WPID" 60; then
		stop_pid "$WPID"; WPID=""
		result "$tag status=fail:target-not-ready"
		return
	fi
	"$(bin_of "$bin")" -p "$WPID" -f "$hz" --stats -o "$d/ptprof.prof" \
		>"$d/ptprof.out" 2>"$d/ptprof.log" &
	PT=$!
	wait_sampling "$PT" || st=fail:ptprof-not-sampling
	nap 0.2
	c0=$(cpu_ticks "$WPID")
	kill -USR1 "$WPID"
	# The threads burst for BURST_SECS, then the target prints "done".
	local i
	for ((i = 0; i < (${BURST_SECS%.*} + 60) * 20; i++)); do
		grep -qx 'done' "$d/target.out" && break
		alive "$WPID" || break
		nap 0.05
	done
	grep -qx 'done' "$d/target.out" || [ "$st" != ok ] || st=fail:target-not-done
	c1=$(cpu_ticks "$WPID")
	nap 0.2
	alive "$PT" && kill -INT "$PT"
	wait_gone "$PT" 60 || { [ "$st" = ok ] && st=fail:ptprof-hung; stop_pid "$PT"; }
	wait "$PT"
	rc=$?
	PT=""
	[ "$rc" = 0 ] || [ "$st" != ok ] || st=fail:ptprof-exit-$rc
	stop_pid "$WPID"; WPID=""
	if [ "$st" != ok ]; then
		result "$tag status=$st"
		return
	fi
	local sm
	sm=$(summary_of "$d/ptprof.log")
	cpu_ms=$(((c1 - c0) * 1000 / TCK))
	prof_ms=$(($(sed -n 's/.* samples=\([0-9]*\) .*/\1/p' <<<"$sm ") * 1000 / hz))
	result "$tag status=ok cpu_ms=$cpu_ms prof_ms=$prof_ms" \
		"total_pct=$(awk -v p="$prof_ms" -v c="$cpu_ms" 'BEGIN { if (c > 0) printf "%.1f", 100 * p / c }')" \
		"stack_pct=$(awk -v s="$(sed -n 's/.* stacks=\([0-9]*\).*/\1/p' <<<"$sm")" -v c="$cpu_ms" -v h="$hz" \
			'BEGIN { if (c > 0 && s != "") printf "%.1f", 100 * s / (c * h / 1000) }')" \
		"$sm load=$(cut -d' ' -f1 /proc/loadavg)"
}

# --- The report section ------------------------------------------------------

splice() {
	splice_section "$1" render_results truth.md
}

bench_args splice "$@"

# --- Set-up ---------------------------------------------------------------
check_settings "$SECS" "$WARMUP" "$REPS" "$HZ" "$PERF_HZ" "$BURST_SECS" "$ALIAS_SECS" \
	"$DUTY_HZ"
BIN_DIR=${BENCH_BIN:-$BUILDDIR/bench}
for p in "$TGT/sysloop" "$TGT/alias" "$TGT/bursts" "$TGT/duty" "$BIN_DIR/cputime"; do
	[ -x "$p" ] || die "$p missing: run 'make bench-truth'"
done
BINS=after
if [ -n "$BASELINE" ]; then
	[ -x "$BASELINE" ] || die "BENCH_BASELINE=$BASELINE: not an executable"
	BINS="before after"
fi
TCK=$(getconf CLK_TCK)
window_run_start truth- truth-latest

{
	common_meta
	echo "baseline=$BASELINE"
	[ -n "$BASELINE" ] &&
		echo "baseline_version=$("$BASELINE" --version 2>&1 | head -1)"
	echo "perf_version=$("$PERF" version 2>/dev/null | head -1)"
	echo "sqlite_version=$("$SQLITE" --version 2>/dev/null | cut -d' ' -f1)"
	echo "secs=$SECS"
	echo "reps=$REPS"
	echo "warmup=$WARMUP"
	echo "hz=$HZ"
	echo "perf_hz=$PERF_HZ"
	echo "burst_secs=$BURST_SECS"
	echo "alias_secs=$ALIAS_SECS"
	echo "rows=$ROWS"
	echo "totals=${TOTALS//$'\n'/ }"
	echo "duty=${DUTY//$'\n'/ }"
	echo "duty_hz=$DUTY_HZ"
} >"$RUN/meta"

PERF_OK=1
perf_works || PERF_OK=0
if [ "$PERF_OK" = 1 ] && [[ " $ROWS " = *" sqlite "* ]]; then
	log "generating the sqlite database"
	sqlite_db "$DATA/sq.db" || die "cannot generate the sqlite database"
fi

log "results in $RUN; $REPS repetitions of: $ROWS; binaries: $BINS"
for ((rep = 1; rep <= REPS; rep++)); do
	# Alternate which binary goes first.
	order=$BINS
	[ $((rep % 2)) = 0 ] && [ -n "$BASELINE" ] && order="after before"
	for row in $ROWS; do
		for bin in $order; do
			case $row in
			syscall)
				[ "$PERF_OK" = 1 ] || continue
				row_syscall pread "$bin" "$rep"
				row_syscall getppid "$bin" "$rep" ;;
			sqlite)
				[ "$PERF_OK" = 1 ] || continue
				row_sqlite "$bin" "$rep" ;;
			alias)
				row_alias cpu "$bin" "$rep"
				row_alias wall "$bin" "$rep" ;;
			1khz) row_bursts 1khz 1:100000:0:1000 "$bin" "$rep" ;;
			totals)
				for spec in $TOTALS; do
					row_bursts totals "$spec" "$bin" "$rep"
				done ;;
			duty)
				[ "$PERF_OK" = 1 ] || continue
				for spec in $DUTY; do
					row_duty "$spec" "$bin" "$rep"
				done ;;
			*) die "unknown row '$row' (want syscall, sqlite, alias, 1khz, totals or duty)" ;;
			esac
		done
	done
done
window_run_end
