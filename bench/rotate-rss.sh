#!/bin/bash
# bench/rotate-rss.sh - ptprof's memory and disk over a long rotated run.
#
# Profiles bench/manystacks (THREADS threads walking random paths through
# 16 recursive functions: a new stack at almost every sample, so any
# table or cache kept across periods would grow) at HZ with
# --rotate=ROTATE and a pprof output for SECS seconds.  Every 10 s it
# reads ptprof's VmRSS; at the end it prints the readings, the slope of
# RSS over time after the first two periods (least squares, KB/min: ~0
# when nothing grows from one period to the next), and the size of each
# rotated file.  The target: flat RSS over 2 hours at 100 Hz on
# 64 threads; this measures a shorter run (12 minutes by default).
#
#   BENCH_ROTATE_SECS (720)  BENCH_ROTATE_PERIOD (30)  BENCH_ROTATE_HZ (100)
#   BENCH_ROTATE_THREADS (64)  BENCH_ROTATE_MODE ("": CPU mode; --wall)
set -u
secs=${BENCH_ROTATE_SECS:-720}
period=${BENCH_ROTATE_PERIOD:-30}
hz=${BENCH_ROTATE_HZ:-100}
threads=${BENCH_ROTATE_THREADS:-64}
mode=${BENCH_ROTATE_MODE:-}
builddir=${BENCH_BUILDDIR:-.}
ptprof=${PTPROF:-$builddir/src/ptprof}
out=$(mktemp -d "${TMPDIR:-/tmp}/ptprof-rotate.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

"$builddir/bench/manystacks" "$threads" $((secs + 10)) > "$out/target.out" &
target=$!
for _ in $(seq 100); do
	grep -q ready "$out/target.out" 2> /dev/null && break
	sleep 0.1
done
# shellcheck disable=SC2086 # mode: empty or one option
"$ptprof" $mode --stats -f "$hz" -d "$secs" --rotate="$period" \
	-o "$out/r.pb.gz" -p "$target" 2> "$out/ptprof.err" &
pt=$!
start=$(date +%s)
# VmRSS every 10 s until ptprof is gone (bounded by the run).
for _ in $(seq $((secs / 10 + 30))); do
	r=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pt/status" 2> /dev/null)
	[ -n "$r" ] && echo "$(($(date +%s) - start)) $r" >> "$out/rss"
	kill -0 "$pt" 2> /dev/null || break
	sleep 10
done
wait "$pt"
rc=$?
kill "$target" 2> /dev/null
wait "$target" 2> /dev/null
cat "$out/ptprof.err"
echo "rss: seconds VmRSS-kB"
tr '\n' ';' < "$out/rss"
echo
# Least squares over the readings after two periods (the builders and
# the symbolizer's first sizes are reached in the first), and over the
# second half of the run: the heap's high-water mark, reached by the
# period with the most distinct stacks so far, may still rise early on.
# Not after SECS: ptprof then writes the last period itself (its
# symbolizer's tables, freed as it exits).
slope_()
{
	awk -v skip="$1" -v end="$secs" '$1 >= skip && $1 < end { n++; x += $1; y += $2; xx += $1 * $1;
		xy += $1 * $2; if (!min || $2 < min) min = $2; if ($2 > max) max = $2 }
		END { if (n < 3) { print "rss: too few readings"; exit }
		      b = (n * xy - x * y) / (n * xx - x * x);
		      printf "rss: after %d s: %d readings, min %d kB, max %d kB, slope %.1f kB/min\n",
			skip, n, min, max, b * 60 }' "$out/rss"
}
slope_ $((2 * period))
slope_ $((secs / 2))
echo "files (bytes):"
stat -c '%n %s' "$out"/r.*.pb.gz | sed "s|$out/||" | tr '\n' ';'
echo
n=$(ls "$out"/r.*.pb.gz | wc -l)
total=$(cat "$out"/r.*.pb.gz | wc -c)
echo "rotate: ptprof $mode -f $hz --rotate=$period, $threads threads, $secs s: exit $rc, $n files, $((total / 1024)) KiB in all, mean $((total / (n ? n : 1) / 1024)) KiB per file"
[ "$rc" -eq 0 ]
