#!/bin/bash
# bench/soak.sh - ptprof's memory on an endless --children run
# (`make bench-soak`; see bench/README.md): issue 30, item 4.
#
#   bench/soak.sh                 measure, print the summary
#   bench/soak.sh --report DIR    only print the summary of results DIR again
#
# A shell loop (bash, started by this script) starts PROCS short processes
# over SECS seconds at an even pace (/bin/true, sh -c :, env true, sleep 0
# in turn: /bin/true-like work in four executables), and every BUSY_EVERY
# seconds one busy bash loop of BUSY_SECS s in the background.  Once
# `ptprof -p LOOP --children --rotate=ROTATE -o RUN/periods/p.%n.pb.gz`
# samples it, the loop begins.  Every EVERY seconds ptprof's VmRSS, VmHWM
# and open fds go to RUN/rss.csv with the processes started so far.  At the end:
# every period's file is checked (gzip -t, `ptprof report`, and `go tool
# pprof -raw` or `google-pprof --raw` when installed; RUN/files.tsv),
# their count against the periods the run lasted, and RUN/summary.md gets
# RSS at the start and the end, its slope over the second half of the
# loop (least squares, % per hour of that half's mean; the issue's goal:
# under 1 % per hour) and ptprof's --stats about its heap, its rotations
# and the process images they freed.
#
# It signals only the processes it started (ptprof, the loop), by PID;
# the loop's own children end by themselves (each is bounded), every wait
# is bounded and nothing uses the network (no debuginfod).
set -u
BENCH_TAG=soak BENCH_SCRIPT=soak.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

SECS=${SOAK_SECS:-7200}
# The issue's pace: 200,000 processes in 2 hours (about 28 a second).
PROCS=${SOAK_PROCS:-$((200000 * SECS / 7200))}
ROTATE=${SOAK_ROTATE:-60}
EVERY=${SOAK_EVERY:-5}
HZ=${SOAK_HZ:-100}
BUSY_EVERY=${SOAK_BUSY_EVERY:-10}
BUSY_SECS=${SOAK_BUSY_SECS:-2}
KEEP_FILES=${SOAK_KEEP_FILES:-0}

# Every period's file of results dir $1 (DIR/periods/p.N.pb.gz): a
# complete gzip, read by `ptprof report` and by pprof when installed; one
# line each in DIR/files.tsv.
check_files() {
	local dir=$1 f name seq gz rep pp pprof=()
	if command -v go >/dev/null; then
		pprof=(go tool pprof -raw -symbolize=none)
	elif command -v google-pprof >/dev/null; then
		pprof=(google-pprof --raw)
	fi
	sed -i '/^pprof=/d' "$dir/meta"
	echo "pprof=${pprof[*]:-none}" >>"$dir/meta"
	: >"$dir/files.tsv"
	for f in "$dir"/periods/p.*.pb.gz; do
		[ -e "$f" ] || continue
		name=${f##*/} seq=${name#p.}
		seq=${seq%%.*}
		gz=0 rep=0 pp=none
		gzip -t "$f" 2>/dev/null && gz=1
		timeout 300 "$PTPROF" report --top=5 "$f" >"$dir/report.out" 2>&1 && rep=1
		if [ ${#pprof[@]} -gt 0 ]; then
			pp=0
			HOME=$dir timeout 300 "${pprof[@]}" "$f" >"$dir/pprof.out" 2>&1 &&
				[ -s "$dir/pprof.out" ] && pp=1
		fi
		echo "file=$name seq=$((10#$seq)) bytes=$(stat -c %s "$f") gzip=$gz report=$rep pprof=$pp" >>"$dir/files.tsv"
	done
	rm -f "$dir/report.out" "$dir/pprof.out"
}

# The summary of results dir $1 (with --report: the files checked again
# when they were kept, SOAK_KEEP_FILES=1).
summary() {
	local dir=$1
	[ -s "$dir/meta" ] || die "$dir/meta: no such results"
	[ -z "${RUN:-}" ] && compgen -G "$dir/periods/p.*.pb.gz" >/dev/null &&
		check_files "$dir"
	touch "$dir/rss.csv" "$dir/files.tsv"
	awk -f "$here/soak.awk" "$dir/meta" "$dir/rss.csv" "$dir/files.tsv" \
		>"$dir/summary.md" || die "soak.awk failed"
	cat "$dir/summary.md"
}

bench_args summary "$@"
check_settings "$SECS" "$PROCS" "$ROTATE" "$EVERY" "$HZ" "$BUSY_EVERY" "$BUSY_SECS"
for v in "$SECS" "$PROCS" "$ROTATE" "$HZ" "$BUSY_EVERY" "$BUSY_SECS"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || die "not a whole number above 0: '$v'"
done

bench_start_run soak- soak-latest periods
mkfifo "$RUN/.loopnap" || die "mkfifo failed"
PT="" LOOP=""
cleanup() {
	# ptprof first (INT: it writes its last period and detaches), then
	# the loop; both by the PID $! gave.
	if [ -n "$PT" ] && alive "$PT"; then
		kill -INT "$PT" 2>/dev/null
		wait_gone "$PT" 30 || kill -KILL "$PT" 2>/dev/null
	fi
	[ -n "$PT" ] && wait "$PT" 2>/dev/null
	[ -n "$LOOP" ] && stop_pid "$LOOP"
	rm -f "$RUN/.nap" "$RUN/.loopnap" "$RUN/go"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The loop: waits (60 s at most) for the file "go", then runs.  Its
# arguments: PROCS SECS BUSY_EVERY BUSY_SECS RUNDIR.  It writes "N B" (the
# processes and busy ones started) to RUNDIR/count every tick of its
# pacing (50 ms), and sleeps on a FIFO nobody writes, without forking.
cat >"$RUN/loop.sh" <<'EOF'
set -u
procs=$1 secs=$2 busy_every=$3 busy_secs=$4 dir=$5
exec {nap}<>"$dir/.loopnap"
for ((i = 0; i < 6000; i++)); do
	[ -e "$dir/go" ] && break
	read -r -t 0.01 -u "$nap" _
done
[ -e "$dir/go" ] || exit 3
start=${EPOCHREALTIME/./}
span=$((secs * 1000000))
end=$((start + span))
n=0 nb=0 next_busy=$start
while :; do
	now=${EPOCHREALTIME/./}
	((now < end)) || break
	due=$((procs * (now - start) / span))
	# Catch up for 50 ms at most, then the busy ones and the count.
	slice=$((now + 50000))
	while ((n < due && ${EPOCHREALTIME/./} < slice)); do
		case $((n % 4)) in
		0) /bin/true ;;
		1) /bin/sh -c : ;;
		2) /usr/bin/env true ;;
		3) /bin/sleep 0 ;;
		esac
		n=$((n + 1))
	done
	if ((now >= next_busy)); then
		/bin/bash -c 'e=$((SECONDS + $1)); while ((SECONDS < e)); do :; done' \
			busy "$busy_secs" &
		nb=$((nb + 1))
		next_busy=$((next_busy + busy_every * 1000000))
	fi
	echo "$n $nb" >"$dir/count"
	((n < due)) || read -r -t 0.05 -u "$nap" _
done
wait
echo "$n $nb" >"$dir/count"
EOF

help=$("$PTPROF" --help 2>&1)
opts=(--stats -f "$HZ" --rotate="$ROTATE")
grep -q -- --no-debuginfod <<<"$help" && opts+=(--no-debuginfod)
{
	common_meta
	echo "ptprof=$PTPROF"
	echo "secs=$SECS"
	echo "procs=$PROCS"
	echo "rotate=$ROTATE"
	echo "every=$EVERY"
	echo "hz=$HZ"
	echo "busy_every=$BUSY_EVERY"
	echo "busy_secs=$BUSY_SECS"
	echo "command=ptprof -p LOOP --children ${opts[*]} -o periods/p.%n.pb.gz"
} >"$RUN/meta"
log "results in $RUN: $PROCS processes in $SECS s under ptprof --children --rotate=$ROTATE"

/bin/bash "$RUN/loop.sh" "$PROCS" "$SECS" "$BUSY_EVERY" "$BUSY_SECS" "$RUN" \
	>"$RUN/loop.log" 2>&1 &
LOOP=$!
# -d: a bound only; ptprof ends when the loop and its children have.
"$PTPROF" -p "$LOOP" --children "${opts[@]}" -d $((SECS + 120)) \
	-o "$RUN/periods/p.%n.pb.gz" >"$RUN/ptprof.out" 2>"$RUN/ptprof.err" &
PT=$!
wait_sampling "$PT" || die "ptprof did not start sampling (see $RUN/ptprof.err)"
t0=${EPOCHREALTIME/./}
: >"$RUN/go"
echo "t_s,rss_kb,hwm_kb,procs,busy,files,fds" >"$RUN/rss.csv"
shopt -s nullglob
cnt="0 0"
# Until ptprof is gone: bounded by the loop's SECS, ptprof's last period
# and a margin.
limit=$((SECS + 180))
while alive "$PT"; do
	t=$(((${EPOCHREALTIME/./} - t0) / 1000000))
	if ((t > limit)); then
		log "ptprof still running $limit s after the start: stopping it"
		break
	fi
	st=$(cat "/proc/$PT/status" 2>/dev/null)
	rss=$(grab "$st" 'VmRSS:[[:space:]]*([0-9]+)')
	hwm=$(grab "$st" 'VmHWM:[[:space:]]*([0-9]+)')
	# The loop rewrites the file: a read that finds it empty keeps the last.
	read -r c 2>/dev/null <"$RUN/count" && [ -n "$c" ] && cnt=$c
	files=("$RUN"/periods/p.*.pb.gz)
	fds=("/proc/$PT/fd"/*)
	[ -n "$rss" ] && echo "$t,$rss,$hwm,${cnt% *},${cnt#* },${#files[@]},${#fds[@]}" >>"$RUN/rss.csv"
	nap "$EVERY"
done
# Still there past the bound: INT (it writes its last period), then KILL.
if alive "$PT"; then
	kill -INT "$PT" 2>/dev/null
	wait_gone "$PT" 30 || kill -KILL "$PT" 2>/dev/null
fi
wait "$PT"
pst=$?
t_end=$(((${EPOCHREALTIME/./} - t0) / 1000000))
PT=""
stop_pid "$LOOP"
LOOP=""
log "ptprof ended after $t_end s; checking the files"

{
	echo "elapsed_s=$t_end"
	echo "ptprof_exit=$pst"
	echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "started=$(cat "$RUN/count" 2>/dev/null)"
	grep -m1 -E '^ptprof: [0-9]+ ticks' "$RUN/ptprof.err" | sed 's/^/summary_line=/'
	grep -E 'heap|rotation' "$RUN/ptprof.err" | sed 's/^/stats=/'
} >>"$RUN/meta"
check_files "$RUN"
[ "$KEEP_FILES" = 1 ] || rm -f "$RUN"/periods/p.*.pb.gz
summary "$RUN"
