#!/bin/bash
# bench/memory.sh - ptprof's memory on a long run with ever new stacks.
#
# Profiles bench/manystacks (THREADS threads walking random paths through
# 16 recursive functions: a new stack at almost every sample) at HZ for
# SECS seconds, and reports ptprof's peak RSS (VmHWM, read from
# /proc/PID/status just before it exits, by polling) and the profile's
# size.  The target: RSS <= 64 MiB for 64 threads at 1000 Hz for
# 10 minutes; ptprof spills its stacks to the output file every 50000
# distinct stacks rather than keep them all.
#
#   BENCH_MEMORY_SECS (600)  BENCH_MEMORY_HZ (1000)  BENCH_MEMORY_THREADS (64)
#   BENCH_MEMORY_MODE (--wall: every thread counts at every tick)
set -u
secs=${BENCH_MEMORY_SECS:-600}
hz=${BENCH_MEMORY_HZ:-1000}
threads=${BENCH_MEMORY_THREADS:-64}
mode=${BENCH_MEMORY_MODE:---wall}
builddir=${BENCH_BUILDDIR:-.}
ptprof=${PTPROF:-$builddir/src/ptprof}
out=$(mktemp -d "${TMPDIR:-/tmp}/ptprof-memory.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

"$builddir/bench/manystacks" "$threads" $((secs + 5)) > "$out/target.out" &
target=$!
for _ in $(seq 100); do
	grep -q ready "$out/target.out" 2> /dev/null && break
	sleep 0.1
done
"$ptprof" $mode --stats -f "$hz" -d "$secs" -o "$out/m.prof" -p "$target" \
	2> "$out/ptprof.err" &
pt=$!
peak=0
# VmHWM is the peak; read it until ptprof is gone (bounded by the run).
for _ in $(seq $((secs * 2 + 60))); do
	h=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pt/status" 2> /dev/null)
	[ -n "$h" ] && [ "$h" -gt "$peak" ] && peak=$h
	kill -0 "$pt" 2> /dev/null || break
	sleep 0.5
done
wait "$pt"
rc=$?
kill "$target" 2> /dev/null
wait "$target" 2> /dev/null
cat "$out/ptprof.err"
size=$(stat -c %s "$out/m.prof" 2> /dev/null || echo 0)
echo "memory: ptprof $mode -f $hz, $threads threads, $secs s: exit $rc, peak RSS $((peak / 1024)) MiB ($peak kB), profile $((size / 1024)) KiB"
[ "$rc" -eq 0 ] && [ "$peak" -le $((64 * 1024)) ]
