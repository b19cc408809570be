#!/bin/bash
# bench/python.sh - what reading Python frames adds to ptprof's pause
# (`make bench-python`; see bench/README.md): issue 16's benchmark, whose
# goal is a pause per stopped thread with Python frames of at most 1.3x
# the pause of native-only sampling (--no-python) of the same target.
#
# Two workloads on Debian's python3 (3.11+): tests/targets/pysplit.py
# PY_SECS (CPU-bound Python, hot_a and hot_b 3:1; its throughput is the
# CPU seconds the two used, which a stop takes from), and `python3 -m
# json.tool --sort-keys BIG.json /dev/null` on a deterministic JSON file
# of about PY_JSON_MB MB written into the results directory (its wall
# time, through bench/cputime).  Each runs alone, under ptprof -p PID -f
# PY_HZ --stats with Python frames (the default) and under the same with
# --no-python, in turn (the two ptprof runs swap places every other
# repetition), PY_REPS times.  ptprof attaches once pysplit says it is
# ready, or as soon as json.tool's process exists, and ends with the
# target.  One row per run: the throughput or wall time, and from
# --stats the pause per stopped thread, the pause p50 (summary line),
# ptprof's CPU per stack and the stacks merged / kept native on a
# mismatch; then per workload the ratio of the median pauses per stopped
# thread, Python over --no-python.
#
# It kills only the processes it started, by PID, bounds every wait and
# uses no network.  Skipped (exit 0, one line) when the python is not
# 3.11 or newer.
set -u
BENCH_TAG=python BENCH_SCRIPT=python.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"

PY=${PY_PYTHON:-/usr/bin/python3}
REPS=${PY_REPS:-$(quick 1 3)}
SECS=${PY_SECS:-$(quick 3 6)}
HZ=${PY_HZ:-1000}
JSON_MB=${PY_JSON_MB:-24}
PYSPLIT=$SRCDIR/tests/targets/pysplit.py
CPUTIME=$BUILDDIR/bench/cputime

bench_args : "$@"
check_settings "$REPS" "$SECS" "$HZ" "$JSON_MB"
if ! [ -x "$PY" ] ||
	! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
	log "$PY is not CPython 3.11 or newer: nothing to measure"
	exit 0
fi
[ -x "$CPUTIME" ] || die "no bench/cputime at $CPUTIME (make bench/cputime)"
bench_start_run python- python-latest
common_meta >"$RUN/meta"
log "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at the start"

# The JSON file: records whose keys are not in order (--sort-keys sorts
# them), strings, numbers, nested lists; the same bytes every time.
"$PY" - "$RUN/big.json" "$JSON_MB" <<'EOF' || die "cannot write big.json"
import json, random, sys
out, mb = sys.argv[1], float(sys.argv[2])
r = random.Random(16)
words = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]
recs, size, i = [], 0, 0
while size < mb * 1e6:
    rec = {"z%d" % r.randrange(100): r.random(), "name": " ".join(
        r.choice(words) for _ in range(6)), "id": i, "tags": [
        r.choice(words) for _ in range(5)], "m": {"y": r.randrange(10**9),
        "b": [r.random() for _ in range(4)], "a": None, "ok": i % 3 == 0}}
    recs.append(rec)
    size += len(json.dumps(rec)) + 2
    i += 1
with open(out, "w") as f:
    json.dump(recs, f)
EOF
log "big.json: $(($(stat -c %s "$RUN/big.json") / 1000000)) MB"

# finish PID: wait for it (bounded: SECS + 60 s), KILL it past that.
finish() {
	wait_gone "$1" $((SECS + 60)) || kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# start_target NAME: the workload NAME in the background, its PID (the
# python process itself) in $tpid, its wrapper's (or the same) in $wpid;
# returns once ptprof may attach.
start_target() {
	local i kids=""
	case $1 in
	pysplit.*)
		rm -f "$RUN/$1.ready"
		"$PY" "$PYSPLIT" "$SECS" "$RUN/$1.ready" >"$RUN/$1.out" 2>&1 </dev/null &
		tpid=$! wpid=$tpid
		for ((i = 0; i < 3000; i++)); do
			[ -e "$RUN/$1.ready" ] && break
			alive "$tpid" || break
			nap 0.01
		done
		;;
	json.*)
		"$CPUTIME" "$RUN/$1.time" "$PY" -m json.tool --sort-keys \
			"$RUN/big.json" /dev/null >"$RUN/$1.out" 2>&1 </dev/null &
		wpid=$! tpid=""
		for ((i = 0; i < 1000; i++)); do
			read -r kids 2>/dev/null <"/proc/$wpid/task/$wpid/children" || :
			[ -n "$kids" ] && break
			alive "$wpid" || break
			nap 0.005
		done
		tpid=${kids%% *}
		;;
	esac
}

# throughput NAME: pysplit's CPU s in hot_a + hot_b, json.tool's wall s.
throughput() {
	case $1 in
	pysplit.*) awk '$1 == "split" { printf "%.3f", $2 + $3 }' "$RUN/$1.out" ;;
	json.*) awk '{ sub(/.*wall_us=/, ""); printf "%.3f", $1 / 1e6 }' \
		"$RUN/$1.time" 2>/dev/null ;;
	esac
}

# run WORKLOAD REP MODE: one run (MODE alone, py or nopy); a row of the
# table and, under ptprof, a line "WORKLOAD MODE PAUSE P50" in pauses.tsv.
run() {
	local w=$1 rep=$2 mode=$3 name="$1.$2.$3" err per p50 cpu merged
	local opt=""
	start_target "$name"
	if [ "$mode" != alone ] && [ -n "$tpid" ]; then
		[ "$mode" = nopy ] && opt=--no-python
		timeout -s KILL $((SECS + 60)) "$PTPROF" -p "$tpid" -f "$HZ" \
			--stats $opt -o "$RUN/$name.pb.gz" 2>"$RUN/$name.err"
	fi
	finish "$wpid"
	if [ "$mode" = alone ]; then
		printf '| %s | %s | alone | %s | | | | |\n' "$w" "$rep" \
			"$(throughput "$name")"
		return
	fi
	err=$RUN/$name.err
	per=$(sed -n 's/.*pause per stopped thread \([0-9.]*\) us.*/\1/p' "$err")
	p50=$(sed -n 's/.*pause mean [0-9]* us max [0-9]* us p50 \([0-9]*\) us.*/\1/p' "$err")
	cpu=$(sed -n 's/.*ptprof cpu [0-9]* us, \([0-9.]*\) us per stack.*/\1/p' "$err")
	merged=$(sed -n 's/.*stacks merged \([0-9]*\), kept native: mismatch \([0-9]*\).*/\1 \/ \2/p' "$err")
	[ -n "$per" ] && printf '%s\t%s\t%s\t%s\n' "$w" "$mode" "$per" \
		"${p50:-}" >>"$RUN/pauses.tsv"
	printf '| %s | %s | %s | %s | %s µs | %s µs | %s µs | %s |\n' "$w" "$rep" \
		"$([ "$mode" = py ] && echo "Python frames" || echo "--no-python")" \
		"$(throughput "$name")" "${per:-?}" "${p50:-?}" "${cpu:-?}" \
		"${merged:-—}"
}

# median WORKLOAD MODE COLUMN: of the pauses per stopped thread (3) or
# the pause p50s (4) in pauses.tsv.
median() {
	awk -F'\t' -v w="$1" -v m="$2" -v c="$3" '$1 == w && $2 == m && $c != "" { print $c }' \
		"$RUN/pauses.tsv" 2>/dev/null | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.1f",
			NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A / B to two places, or ?.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "?" }'
}

{
	echo "ptprof -p PID -f $HZ --stats [--no-python] on $("$PY" -V 2>&1)" \
		"($PY); pysplit.py $SECS s (throughput: CPU s in hot_a+hot_b)," \
		"json.tool --sort-keys on $(($(stat -c %s "$RUN/big.json") / 1000000)) MB" \
		"(wall s); $REPS rep(s); $(nproc) CPUs, load at the start" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	printf '| workload | rep | ptprof | throughput / wall s | pause per stopped thread | pause p50 | ptprof CPU per stack | stacks merged / mismatch |\n'
	printf '|---|---|---|---|---|---|---|---|\n'
} | tee "$RUN/table.md"
for rep in $(seq 1 "$REPS"); do
	if [ $((rep % 2)) = 1 ]; then order="py nopy"; else order="nopy py"; fi
	for w in pysplit json; do
		for mode in alone $order; do
			run "$w" "$rep" "$mode"
		done
	done
done | tee -a "$RUN/table.md"
{
	echo
	for w in pysplit json; do
		a=$(median "$w" py 3) b=$(median "$w" nopy 3)
		c=$(median "$w" py 4) d=$(median "$w" nopy 4)
		echo "$w: median pause per stopped thread ${a:-?} µs with Python" \
			"frames, ${b:-?} µs with --no-python: ratio $(ratio "$a" "$b")×" \
			"(goal ≤ 1.3×); median pause p50 ${c:-?} / ${d:-?} µs:" \
			"$(ratio "$c" "$d")×"
	done
	echo
	echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee -a "$RUN/table.md"
rm -f "$RUN/big.json"
log "table in $RUN/table.md"
