#!/bin/bash
# bench/run.sh - ptprof's benchmark driver (`make bench`; see bench/README.md).
#
#   bench/run.sh                 run everything, write the results and the report
#   bench/run.sh --report DIR    only rewrite the report from a results DIR
#
# Side by side on the same targets (bench/jitter), interleaved, BENCH_REPS
# times: no profiler, bench/floor, ptprof (its default mode and --wall when
# it has one; with BENCH_BASELINE=BINARY, that other ptprof too, on 1 busy
# thread), gperftools' in-process profiler and perf record (-g, and
# --call-graph=dwarf: perf-dwarf), at each rate of BENCH_RATES, with the
# bytes each sampler wrote and the time its report takes on them; then
# one-shot snapshots (ptprof dump -p with and without inlined frames,
# ptprof -f 1 -d 0.001 (capture only, no symbols), eu-stack with and
# without -i, gdb; with BENCH_BASELINE, that ptprof's dump too).  Raw results go to $BENCH_BUILDDIR/bench/results/RUN/, the report to
# docs/PERFORMANCE.md.  It kills only the processes it started, by PID, and
# every wait is bounded.  Nothing here uses the network (the one exception:
# installing elfutils with apt-get when eu-stack is missing, which
# BENCH_NO_INSTALL=1 turns off).
set -u
BENCH_TAG=bench BENCH_SCRIPT=run.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
BIN=${BENCH_BIN:-$BUILDDIR/bench}
LIBPROFILER=${BENCH_LIBPROFILER:-/usr/lib/x86_64-linux-gnu/libprofiler.so.0}

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	d_secs=1 d_reps=1 d_snap=3 d_warm=0.3
else
	d_secs=5 d_reps=3 d_snap=5 d_warm=0.5
fi
SECS=${BENCH_SECS:-$d_secs}
REPS=${BENCH_REPS:-$d_reps}
SNAP_REPS=${BENCH_SNAP_REPS:-$d_snap}
WARMUP=${BENCH_WARMUP:-$d_warm}
DEPTH=${BENCH_DEPTH:-12}
RATES=${BENCH_RATES:-100 1000}
TARGETS=${BENCH_TARGETS:-1busy 8busy 2busy200idle}
PROFILERS=${BENCH_PROFILERS:-none floor ptprof ptprof-wall gperftools perf perf-dwarf}
SNAP_TARGETS=${BENCH_SNAP_TARGETS:-1busy 2busy200idle}
# ptprof-dump names inlined frames, as eu-stack-i (eu-stack -i) does;
# ptprof-dump-noinline (--no-inline) and eu-stack do not: the report
# compares like with like.
SNAP_TOOLS=${BENCH_SNAP_TOOLS:-ptprof-dump ptprof-dump-noinline ptprof eu-stack eu-stack-i gdb}
# Another ptprof binary ("before" a change), run in CPU mode on
# BEFORE_TARGET at each rate, interleaved with the others: the row
# "ptprof before (CPU mode)".
BASELINE=${BENCH_BASELINE:-}
BEFORE_TARGET=${BENCH_BEFORE_TARGET:-1busy}
# perf record --call-graph=dwarf: the stack bytes copied per sample (empty:
# perf's default, 8192) and its ring buffer per CPU (-m; perf's default
# of 512 KiB loses samples at 1000 Hz with 8 KiB stacks).
PERF_DWARF_SIZE=${BENCH_PERF_DWARF_SIZE:-}
PERF_DWARF_MMAP=${BENCH_PERF_DWARF_MMAP:-16M}
# 1: after each run of ptprof, perf or perf-dwarf, time the report of
# what it wrote (`ptprof report FILE`, `perf report --stdio -i FILE`).
TIME_REPORTS=${BENCH_TIME_REPORTS:-1}

# "1busy", "8busy", "2busy200idle": jitter's -b and -i.
target_args() {
	if [[ $1 =~ ^([0-9]+)busy(([0-9]+)idle)?$ ]]; then
		echo "-b ${BASH_REMATCH[1]} -i ${BASH_REMATCH[3]:-0}"
	else
		die "bad target '$1' (want NbusyMidle)"
	fi
}

# perf record's options for profiler $1 (perf or perf-dwarf).
perf_opts() {
	if [ "$1" = perf-dwarf ]; then
		echo "--call-graph=dwarf${PERF_DWARF_SIZE:+,$PERF_DWARF_SIZE}" \
			"${PERF_DWARF_MMAP:+-m $PERF_DWARF_MMAP}"
	else
		echo "-g"
	fi
}

# What a run of profiler $1 wrote to file $2, and the time its report
# takes (logs $3.report*): bytes= report_wall_us= report_cpu_us=, and for
# perf the chunks its report says were lost (perf_lost=).  The report of
# ptprof's file is the ptprof under test's, whichever binary wrote it.
written() {
	local prof=$1 file=$2 L=$3 cmd rst=0
	[ -s "$file" ] || return 0
	printf 'bytes=%s' "$(stat -c %s "$file")"
	[ "$TIME_REPORTS" = 1 ] || return 0
	case $prof in
	perf | perf-dwarf) cmd=("$PERF" report --stdio -i "$file") ;;
	*) cmd=("$PTPROF" report "$file") ;;
	esac
	"$BIN/cputime" -t 600 "$L.report.cpu" "${cmd[@]}" \
		>/dev/null 2>"$L.report.err" || rst=$?
	if [ "$rst" = 0 ]; then
		printf ' report_wall_us=%s report_cpu_us=%s' \
			"$(kv "$(cat "$L.report.cpu")" wall_us)" \
			"$(kv "$(cat "$L.report.cpu")" cpu_us)"
	else
		printf ' report_status=%s' "$rst"
	fi
	case $prof in
	perf | perf-dwarf)
		printf ' perf_lost=%s' \
			"$(grab "$(tr '\n' ' ' <"$L.report.err")" 'lost ([0-9]+) chunks' || echo 0)" ;;
	esac
}


# Fields of a sampler's summary line (ptprof or floor): only the stable
# ones; p50/p99 when the sampler prints them on a line about pauses.
# samples: the thread stacks taken (ptprof --stats "stacks N"; in CPU mode
# the summary's "samples" are weighted by CPU time, so a stack taken every
# few ticks counts for several), else the summary's figure.
parse_sampler() {
	local text=$1 line pl stacks
	line=$(grep -m1 -E '^(ptprof|floor): .*ticks' <<<"$text")
	pl=$(grep -E 'pause' <<<"$text" | tr '\n' ' ')
	stacks=$(grab "$text" ' stacks ([0-9]+),')
	printf 'stopped=%s pause_thread_us=%s %s ' \
		"$(grab "$text" 'threads stopped ([0-9]+),')" \
		"$(grab "$text" 'pause per stopped thread ([0-9.]+) us')" \
		"$(parse_phases "$text")"
	printf 'ticks=%s missed=%s samples=%s threads=%s pause_mean_us=%s pause_max_us=%s pause_p50_us=%s pause_p99_us=%s unwind_p50_us=%s' \
		"$(grab "$line" '([0-9]+) ticks')" \
		"$(grab "$line" '\(([0-9]+) missed\)')" \
		"${stacks:-$(grab "$line" '([0-9]+) samples')}" \
		"$(grab "$line" '([0-9]+) threads')" \
		"$(grab "$line" 'pause mean ([0-9.]+) ?us')" \
		"$(grab "$line" 'pause [^,]*max ([0-9.]+) ?us')" \
		"$(grab "$pl" 'p50[ =:]+([0-9.]+) ?us')" \
		"$(grab "$pl" 'p99[ =:]+([0-9.]+) ?us')" \
		"$(grab "$text" 'unwind [(]from the copy[)] p50 ([0-9]+) us')"
}

# ptprof --stats's stop window by phase ("stop window per thread,
# mean/p50/max us: interrupt to stop reaped A/B/C, GETREGS ..."): each
# phase's mean and p50 as ph_NAME_mean=, ph_NAME_p50=; the stack bytes
# copied (mean), the waits spun and the stops reaped spinning.
parse_phases() {
	local line name key v
	line=$(grep -m1 'stop window per thread' <<<"$1") || return 0
	for name in "interrupt to stop reaped:stop" "GETREGS:regs" \
		"stack copy:stack" "Python frames:py" "seccomp guard:seccomp" \
		"detach:detach" "held [(][^)]*[)]:held" "whole [(][^)]*[)]:whole"; do
		key=${name##*:}
		v=$(grab "$line" "${name%:*} ([0-9.]+)/([0-9.]+)/") &&
			printf 'ph_%s_mean=%s ph_%s_p50=%s ' "$key" "$v" "$key" \
				"$(grab "$line" "${name%:*} [0-9.]+/([0-9.]+)/")"
	done
	printf 'ph_bytes=%s ph_spun=%s ph_spin_hits=%s' \
		"$(grab "$line" '[(]([0-9.]+) bytes mean')" \
		"$(grab "$line" 'waits spun ([0-9]+)')" \
		"$(grab "$line" 'stops reaped spinning ([0-9]+)')"
}

# One measured run: target $1 under profiler $2 at $3 Hz, repetition $4.
run_one() {
	local target=$1 prof=$2 hz=$3 rep=$4
	local tag="$target.$prof.$hz.r$rep" jargs jpid ppid="" jst pst=0
	local tot0 idle0 tot1 idle1 busy
	local L="$RUN/logs/$target.$prof.$hz.r$rep" out status=ok extra=""
	local bound=$BOUND

	read -r -a jargs <<<"$(target_args "$target")"
	rm -f "$SCRATCH"/*
	read -r tot0 idle0 <<<"$(cpustat)"
	local J=("$BIN/jitter" "${jargs[@]}" -d "$SECS" -w "$WARMUP" -s "$DEPTH")
	case $prof in
	gperftools)
		env LD_PRELOAD="$LIBPROFILER" CPUPROFILE="$SCRATCH/$tag.gperf" \
			CPUPROFILE_FREQUENCY="$hz" "${J[@]}" \
			>"$L.jitter" 2>"$L.jitter.err" &
		jpid=$! ;;
	perf | perf-dwarf)
		# perf starts the target itself: attaching with -p takes perf
		# long enough on a loaded machine to miss the warm-up.
		local popts
		read -r -a popts <<<"$(perf_opts "$prof")"
		"$BIN/cputime" -t "$bound" "$L.cpu" \
			"$PERF" record -F "$hz" "${popts[@]}" --no-buildid-cache \
			-o "$SCRATCH/$tag.data" -- "${J[@]}" \
			>"$L.jitter" 2>"$L.err" &
		ppid=$! jpid="" ;;
	*)
		"${J[@]}" >"$L.jitter" 2>"$L.jitter.err" &
		jpid=$! ;;
	esac
	if ! wait_ready "$L.jitter" "${jpid:-$ppid}" 20; then
		if [ -n "$jpid" ]; then stop_pid "$jpid"; else stop_wrapped "$ppid"; fi
		echo "target=$target prof=$prof hz=$hz rep=$rep status=fail:target-not-ready" >>"$RUN/results.tsv"
		log "$tag: the target did not start"
		return
	fi
	case $prof in
	floor)
		"$BIN/cputime" -t "$bound" "$L.cpu" \
			"$BIN/floor" -p "$jpid" -f "$hz" -d "$bound" \
			>"$L.out" 2>"$L.err" &
		ppid=$! ;;
	ptprof | ptprof-wall | ptprof-before)
		local opts=() bin=$PTPROF
		[ "$prof" = ptprof-wall ] && opts+=(--wall)
		[ "$prof" = ptprof-before ] && bin=$BASELINE
		if { [ "$prof" != ptprof-before ] && [ "$HAVE_STATS" = 1 ]; } ||
			{ [ "$prof" = ptprof-before ] && [ "$BEFORE_STATS" = 1 ]; }; then
			opts+=(--stats)
		fi
		"$BIN/cputime" -t "$bound" "$L.cpu" \
			"$bin" -p "$jpid" -f "$hz" -d "$bound" \
			-o "$SCRATCH/$tag.prof" "${opts[@]}" \
			>"$L.out" 2>"$L.err" &
		ppid=$! ;;
	esac
	jst=0
	if [ -n "$jpid" ]; then
		if ! wait_gone "$jpid" "$bound"; then
			status=fail:target-overran
			stop_pid "$jpid"
		fi
		wait "$jpid"
		jst=$?
	fi
	if [ -n "$ppid" ]; then
		wait_gone "$ppid" $((bound + 30)) || {
			status=fail:profiler-hung
			stop_wrapped "$ppid"
		}
		wait "$ppid"
		pst=$?
	fi
	read -r tot1 idle1 <<<"$(cpustat)"
	busy=$(awk -v t=$((tot1 - tot0)) -v i=$((idle1 - idle0)) \
		'BEGIN { if (t > 0) printf "%.1f", 100 * (t - i) / t }')
	out=$(grep -m1 '^jitter ' "$L.jitter")
	if [ -z "$out" ] || [ "$jst" != 0 ]; then
		[ "$status" = ok ] && status=fail:target-exit-$jst
	elif [ "$pst" != 0 ] && [ "$status" = ok ]; then
		status=fail:profiler-exit-$pst
	fi
	case $prof in
	floor | ptprof | ptprof-wall | ptprof-before)
		extra="$(parse_sampler "$(cat "$L.err")") $(kv "$(cat "$L.cpu" 2>/dev/null)" cpu_us | sed 's/^/cpu_us=/')"
		[ "$prof" = floor ] || [ "$status" != ok ] ||
			extra+=" $(written "$prof" "$SCRATCH/$tag.prof" "$L")" ;;
	perf | perf-dwarf)
		# Its rusage includes its child, the target: take that away.
		local pc tc
		pc=$(kv "$(cat "$L.cpu" 2>/dev/null)" cpu_us)
		tc=$(kv "$out" cpu_us)
		extra="samples=$(grab "$(cat "$L.err")" '\(([0-9]+) samples\)')"
		[ -n "$pc" ] && [ -n "$tc" ] && extra+=" cpu_us=$((pc - tc))"
		[ "$status" != ok ] ||
			extra+=" $(written "$prof" "$SCRATCH/$tag.data" "$L")" ;;
	gperftools)
		extra="samples=$(grab "$(cat "$L.jitter.err")" 'interrupts/evictions/bytes = ([0-9]+)/')"
		[ -s "$SCRATCH/$tag.gperf" ] || [ "$status" != ok ] ||
			status=fail:no-profile-written ;;
	esac
	echo "target=$target prof=$prof hz=$hz rep=$rep status=$status" \
		"stolen_pct=$(kv "$out" stolen_pct) gap_p50_ns=$(kv "$out" p50_ns)" \
		"gap_p99_ns=$(kv "$out" p99_ns) gap_max_ns=$(kv "$out" max_ns)" \
		"gap_mean_ns=$(kv "$out" mean_ns) gaps=$(kv "$out" gaps)" \
		"loops=$(kv "$out" loops) machine_busy_pct=$busy $extra" \
		>>"$RUN/results.tsv"
	log "$tag: $status stolen $(kv "$out" stolen_pct)% machine busy $busy% $extra"
	rm -f "$SCRATCH"/*
}

# One-shot snapshots of a running target: wall time of each command.
snap_target() {
	local target=$1 jargs jpid L r i t tool tools
	read -r -a jargs <<<"$(target_args "$target")"
	L="$RUN/logs/$target.snap"
	"$BIN/jitter" "${jargs[@]}" -d 100000 -s "$DEPTH" >"$L.jitter" 2>&1 &
	jpid=$!
	if ! wait_ready "$L.jitter" "$jpid" 20; then
		stop_pid "$jpid"
		log "$target snapshots: the target did not start"
		return
	fi
	read -r -a tools <<<"$SNAP_TOOLS"
	for ((r = 1; r <= SNAP_REPS; r++)); do
		for ((i = 0; i < ${#tools[@]}; i++)); do
			# Rotate the order from one repetition to the next.
			tool=${tools[$(((i + r) % ${#tools[@]}))]}
			t="$L.$tool.r$r"
			local ok=0 extra=""
			case $tool in
			ptprof)
				"$BIN/cputime" -t 60 "$t.cpu" "$PTPROF" -p "$jpid" \
					-f 1 -d 0.001 -o "$SCRATCH/oneshot.prof" \
					>"$t.out" 2>"$t.err" && ok=1
				extra=$(parse_sampler "$(cat "$t.err")") ;;
			ptprof-dump | ptprof-dump-noinline | ptprof-dump-before | \
				ptprof-dump-noinline-before)
				local bin=$PTPROF dopts=()
				[[ $tool = *-before ]] && bin=$BASELINE
				[[ $tool = *-noinline* ]] && dopts+=(--no-inline)
				"$BIN/cputime" -t 60 "$t.cpu" "$bin" dump \
					"${dopts[@]}" -p "$jpid" >"$t.out" 2>"$t.err"
				grep -q '^#0 ' "$t.out" && ok=1 ;;
			eu-stack | eu-stack-i)
				[ -n "$EU_STACK" ] || continue
				local eopts=()
				[ "$tool" = eu-stack-i ] && eopts+=(-i)
				"$BIN/cputime" -t 60 "$t.cpu" "$EU_STACK" "${eopts[@]}" \
					-p "$jpid" >"$t.out" 2>"$t.err"
				grep -q '^#0 ' "$t.out" && ok=1 ;;
			gdb)
				[ -n "$GDB" ] || continue
				"$BIN/cputime" -t 60 "$t.cpu" "$GDB" -nx -batch \
					-iex 'set debuginfod enabled off' \
					-p "$jpid" -ex 'thread apply all bt' \
					</dev/null >"$t.out" 2>"$t.err"
				grep -q '^#0 ' "$t.out" && ok=1 ;;
			*) die "unknown snapshot tool '$tool'" ;;
			esac
			echo "target=$target tool=$tool rep=$r ok=$ok" \
				"$(cat "$t.cpu" 2>/dev/null) $extra" >>"$RUN/snapshots.tsv"
			log "$target snapshot $tool r$r: ok=$ok $(cat "$t.cpu" 2>/dev/null)"
			rm -f "$SCRATCH"/*
			if ! alive "$jpid"; then
				log "$target snapshots: the target died under $tool"
				wait "$jpid" 2>/dev/null
				return
			fi
		done
	done
	stop_pid "$jpid"
}

machine_info() {
	local model mem_total mem_free mem_avail
	model=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')
	mem_total=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
	mem_free=$(awk '/^MemFree:/ {print $2}' /proc/meminfo)
	mem_avail=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
	{
		echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "nproc=$(nproc)"
		echo "cpu_model=${model:-unknown}"
		echo "kernel=$(uname -srm)"
		echo "memory=$(awk -v t="$mem_total" -v f="$mem_free" -v a="$mem_avail" \
			'BEGIN { printf "%.1f GiB free (%.1f GiB available) of %.1f GiB", f/1048576, a/1048576, t/1048576 }')"
		echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
		echo "ptprof_version=$("$PTPROF" --version 2>&1 | head -1)"
		echo "ptprof_git=$([ -e "$SRCDIR/.git" ] &&
			git -C "$SRCDIR" describe --always --dirty 2>/dev/null ||
			echo unknown)"
		echo "secs=$SECS"
		echo "reps=$REPS"
		echo "snap_reps=$SNAP_REPS"
		echo "warmup=$WARMUP"
		echo "depth=$DEPTH"
		echo "rates=$RATES"
		echo "targets=$TARGETS"
		echo "profilers=$PROFILERS"
		echo "snap_targets=$SNAP_TARGETS"
		echo "snap_tools=$SNAP_TOOLS"
		echo "have_wall=$HAVE_WALL"
		echo "have_stats=$HAVE_STATS"
		echo "perf_dwarf_opts=$(perf_opts perf-dwarf)"
		echo "time_reports=$TIME_REPORTS"
		if [ -n "$BASELINE" ]; then
			echo "baseline=$BASELINE"
			echo "baseline_version=$("$BASELINE" --version 2>&1 | head -1)"
			echo "before_target=$BEFORE_TARGET"
		fi
	} >"$RUN/meta"
}

# The sections of the report other scripts write between the markers
# "<!-- bench/NAME.sh: begin -->" and "... end -->" (make bench-accuracy,
# make bench-truth, make bench-procs): kept, in this order, when the rest
# is rewritten.
REPORT_BLOCKS="accuracy truth procs treemem symbols"

# The block written by hand between "<!-- by hand: begin -->" and
# "<!-- by hand: end -->" (why a goal of the Targets table is not met, and
# what would meet it): kept in file $1, the new report, right after its
# Targets section.  1 (said): its end marker is missing, or awk failed.
keep_by_hand() {
	local b='<!-- by hand: begin -->' e='<!-- by hand: end -->'
	[ -f "$REPORT" ] && grep -qx "$b" "$REPORT" || return 0
	grep -qx "$e" "$REPORT" || {
		log "$REPORT: '$b' without its end marker '$e'"
		return 1
	}
	awk -v b="$b" -v e="$e" 'NR == FNR { if ($0 == b) keep = 1
			if (keep) blk = blk $0 "\n"
			if ($0 == e) keep = 0
			next }
		/^## / && seen && !done { printf "%s\n", blk; done = 1 }
		/^## Targets/ { seen = 1 }
		{ print }
		END { if (!done) printf "\n%s", blk }' "$REPORT" "$1" >"$1.hand" ||
		{ rm -f "$1.hand"; return 1; }
	mv "$1.hand" "$1"
}

write_report() {
	local dir=$1 tmp
	[ -s "$dir/meta" ] || die "$dir/meta: no such results"
	touch "$dir/results.tsv" "$dir/snapshots.tsv" "$dir/unavailable"
	mkdir -p "$(dirname "$REPORT")"
	tmp="$REPORT.tmp.$$"
	awk -f "$here/report.awk" "$dir/meta" "$dir/unavailable" \
		"$dir/results.tsv" "$dir/snapshots.tsv" >"$tmp" ||
		{ rm -f "$tmp"; die "report.awk failed"; }
	keep_by_hand "$tmp" ||
		{ rm -f "$tmp"; die "cannot keep the block by hand of $REPORT"; }
	for blk in $REPORT_BLOCKS; do
		b="<!-- bench/$blk.sh: begin -->" e="<!-- bench/$blk.sh: end -->"
		[ -f "$REPORT" ] && grep -qx "$b" "$REPORT" &&
			{ echo; awk -v b="$b" -v e="$e" '$0 == b { keep = 1 }
				keep { print } $0 == e { keep = 0 }' "$REPORT"; } >>"$tmp"
	done
	mv "$tmp" "$REPORT"
	cp "$REPORT" "$dir/PERFORMANCE.md"
	log "wrote $REPORT"
}

bench_args write_report "$@"

# --- Set-up ---------------------------------------------------------------
for t in $TARGETS $SNAP_TARGETS; do target_args "$t" >/dev/null; done
for v in "$SECS" "$WARMUP" "$REPS" "$SNAP_REPS" "$DEPTH" $RATES; do
	[[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "not a number: '$v'"
done
# Longest a run may take before something is declared hung.
BOUND=$(awk -v s="$SECS" -v w="$WARMUP" 'BEGIN { print int(s + w) + 30 }')
for p in jitter floor cputime; do
	[ -x "$BIN/$p" ] || die "$BIN/$p missing: run 'make bench'"
done
[ -x "$PTPROF" ] || die "$PTPROF missing: run 'make'"

t_start=$(date +%s)
bench_start_run "" latest logs
SCRATCH=$(mktemp -d /dev/shm/ptprof-bench.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$SCRATCH"; rm -f "$RUN/.nap"' EXIT
: >"$RUN/results.tsv"
: >"$RUN/snapshots.tsv"
: >"$RUN/unavailable"

unavailable() {
	echo "$1=$2" >>"$RUN/unavailable"
	log "$1 unavailable: $2"
}

HAVE_WALL=0
HAVE_STATS=0
help=$("$PTPROF" --help 2>&1)
grep -q -- --wall <<<"$help" && HAVE_WALL=1
grep -q -- --stats <<<"$help" && HAVE_STATS=1
BEFORE_STATS=0
if [ -n "$BASELINE" ]; then
	[ -x "$BASELINE" ] || die "BENCH_BASELINE=$BASELINE: not an executable"
	"$BASELINE" --help 2>&1 | grep -q -- --stats && BEFORE_STATS=1
	# Its row comes right after ptprof's.
	PROFILERS=$(sed 's/\(^\| \)ptprof\( \|$\)/\1ptprof ptprof-before\2/' <<<"$PROFILERS")
	# And its dump right after each dump, when it has one.
	if "$BASELINE" dump --help 2>&1 | grep -q -- --no-inline; then
		st=""
		for tool in $SNAP_TOOLS; do
			st+=" $tool"
			case $tool in
			ptprof-dump | ptprof-dump-noinline) st+=" $tool-before" ;;
			esac
		done
		SNAP_TOOLS=${st# }
	fi
fi

profs=()
for prof in $PROFILERS; do
	case $prof in
	none | floor | ptprof | ptprof-before) profs+=("$prof") ;;
	ptprof-wall)
		if [ "$HAVE_WALL" = 1 ]; then
			profs+=("$prof")
		else
			unavailable ptprof-wall "this ptprof has no --wall option (its only mode stops every thread)"
		fi ;;
	gperftools)
		if [ -r "$LIBPROFILER" ]; then
			profs+=("$prof")
		else
			unavailable gperftools "$LIBPROFILER not found (Debian package libgoogle-perftools4)"
		fi ;;
	perf | perf-dwarf)
		read -r -a popts <<<"$(perf_opts "$prof")"
		if [ ! -x "$PERF" ]; then
			unavailable "$prof" "$PERF not found"
		elif "$BIN/cputime" -t 30 "$RUN/$prof-check.cpu" "$PERF" record -F 100 \
			"${popts[@]}" --no-buildid-cache -o "$SCRATCH/check.data" -- true \
			>"$RUN/$prof-check.log" 2>&1 && [ -s "$SCRATCH/check.data" ]; then
			profs+=("$prof")
		else
			unavailable "$prof" "perf record $(perf_opts "$prof") fails here: $(grep -v '^\s*$' "$RUN/$prof-check.log" | head -1)"
		fi
		rm -f "$SCRATCH"/* ;;
	*) die "unknown profiler '$prof'" ;;
	esac
done

EU_STACK=$(command -v eu-stack || :)
if [ -z "$EU_STACK" ] && [[ " $SNAP_TOOLS " = *" eu-stack"[\ -]* ]]; then
	if [ "${BENCH_NO_INSTALL:-0}" != 1 ] && [ "$(id -u)" = 0 ] &&
		command -v apt-get >/dev/null; then
		log "installing elfutils for eu-stack (apt-get)"
		{ apt-get install -y elfutils ||
			{ apt-get update && apt-get install -y elfutils; }; } \
			>"$RUN/apt.log" 2>&1
		EU_STACK=$(command -v eu-stack || :)
	fi
	[ -n "$EU_STACK" ] || {
		unavailable eu-stack "eu-stack not installed (Debian package elfutils)"
		unavailable eu-stack-i "eu-stack not installed (Debian package elfutils)"
	}
fi
GDB=$(command -v gdb || :)
if [ -z "$GDB" ] && [[ " $SNAP_TOOLS " = *" gdb "* ]]; then
	unavailable gdb "gdb not installed"
fi
{
	echo "perf_version=$("$PERF" version 2>/dev/null | head -1)"
	echo "eu_stack_version=$([ -n "$EU_STACK" ] && "$EU_STACK" --version 2>/dev/null | head -1)"
	echo "gdb_version=$([ -n "$GDB" ] && "$GDB" --version 2>/dev/null | head -1)"
	echo "libprofiler=$(readlink -f "$LIBPROFILER" 2>/dev/null)"
} >>"$RUN/unavailable.info"

machine_info
cat "$RUN/unavailable.info" >>"$RUN/meta"
log "results in $RUN; $REPS x ${SECS}s runs of: ${profs[*]} at $RATES Hz on $TARGETS"

# --- Measured runs, interleaved ------------------------------------------
configs=()
for prof in "${profs[@]}"; do
	if [ "$prof" = none ]; then
		configs+=("none -")
	else
		for hz in $RATES; do configs+=("$prof $hz"); done
	fi
done
n=${#configs[@]}
for ((rep = 1; rep <= REPS; rep++)); do
	for target in $TARGETS; do
		# Rotate the order of the configurations from one repetition
		# (and target) to the next, so no configuration always runs
		# right after the same other one.
		off=$(((rep - 1) * 3 + ${#target}))
		for ((i = 0; i < n; i++)); do
			read -r prof hz <<<"${configs[$(((i + off) % n))]}"
			[ "$prof" = ptprof-before ] && [ "$target" != "$BEFORE_TARGET" ] &&
				continue
			run_one "$target" "$prof" "$hz" "$rep"
		done
	done
done

# --- One-shot snapshots ------------------------------------------------------
for target in $SNAP_TARGETS; do
	snap_target "$target"
done

echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RUN/meta"
echo "elapsed_s=$(($(date +%s) - t_start))" >>"$RUN/meta"
write_report "$RUN"
log "done in $(($(date +%s) - t_start)) s"
