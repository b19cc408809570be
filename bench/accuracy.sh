#!/bin/bash
# bench/accuracy.sh - does ptprof's CPU-mode flat profile agree with perf's?
# (`make bench-accuracy`; see bench/README.md.)
#
#   bench/accuracy.sh                 measure, then splice the section into
#                                     docs/PERFORMANCE.md
#   bench/accuracy.sh --report DIR    only re-render the section from DIR
#
# For each workload (xz -T2 -6 on generated data, a python3 loop, a perl
# loop, sqlite3 SELECTs over an index of a file database with a small page
# cache: a pread() between short stretches of user code, where ptrace
# stops are biased, ptprof(1) SYSTEM CALL BIAS) and each repetition: start the workload, let it warm up, then
# record the SAME window three times at once on its PID: ptprof (CPU mode,
# ACC_HZ), perf record -e cpu-clock -g at ACC_PERF_A Hz and again at
# ACC_PERF_B Hz.  Each profile becomes a flat profile by function (the
# leaf frame only; see "Names" below), shares = weight / total, and
#
#   overlap(P, Q) = sum over functions f of min(P_f, Q_f)      (0..1)
#
# The figure of merit is overlap(ptprof, perf A) / overlap(perf A, perf B):
# how well ptprof agrees with perf, relative to how well perf agrees with
# itself at another rate over the same window.
#
# Names.  Both sides are keyed by (module, function start):
#   - a named function by its symbol's address in the module's symbol
#     table, so aliases at one address (__memcpy_* / __memmove_*) agree;
#   - an address with no symbol (Debian's binaries are stripped: liblzma's
#     internal functions, python's static ones) by the .eh_frame FDE that
#     covers it, i.e. the function it is in, named module+0xSTART;
#   - perf's kernel samples ([k], cpu-clock counts system time) go to the
#     first user frame of their call chain: the user pc where the thread
#     entered the kernel, which is where ptprof, which only sees user
#     registers, counts that time too (ptprof's CPU mode weights by the
#     thread's on-CPU time, system time included).  A kernel sample with
#     no user frame stays in a "[kernel]" bucket, which ptprof cannot have.
#
# Then real services at normal load (issue 26; bench/services.sh): redis
# under redis-benchmark -c 1 and -c 4, PostgreSQL under pgbench -S,
# python3 -m http.server with a request every 20 ms, nginx serving 4 KB
# to wrk.  Each window records the service's whole process tree with
# ptprof -p ROOT --children and perf record -e cpu-clock -g, both at
# ACC_SVC_HZ over the same ACC_SVC_SECS; the figure is overlap(ptprof,
# perf) / overlap(perf's odd samples, its even samples), beside each
# one's share in blocking calls (bench/services.sh lists them).
#
# It kills only the processes it started, by PID, bounds every wait and
# uses no network (DEBUGINFOD_URLS is unset).
set -u
BENCH_TAG=accuracy BENCH_SCRIPT=accuracy.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
. "$here/flat.sh"
. "$here/services.sh"
# Debian's perl and xz, not whatever PATH finds first.
PERL=${ACC_PERL:-/usr/bin/perl}
XZ=${ACC_XZ:-/usr/bin/xz}

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	d_secs=3 d_reps=1 d_warm=1
else
	d_secs=8 d_reps=3 d_warm=2
fi
SECS=${ACC_SECS:-$d_secs}
REPS=${ACC_REPS:-$d_reps}
WARMUP=${ACC_WARMUP:-$d_warm}
HZ=${ACC_HZ:-200}
PERF_A=${ACC_PERF_A:-199}
PERF_B=${ACC_PERF_B:-997}
WORKLOADS=${ACC_WORKLOADS:-xz python perl sqlite}
# bench/services.sh's services, window and rate.
SERVICES=${ACC_SERVICES-$SERVICES_ALL}
SVC_SECS=${ACC_SVC_SECS:-6}
SVC_WARMUP=${ACC_SVC_WARMUP:-2}
SVC_HZ=${ACC_SVC_HZ:-1000}
XZ_MB=${ACC_XZ_MB:-160}
# Options added to every ptprof of the run (words), e.g. "--max-overhead=1"
# to measure what a budget costs in accuracy (bench/README.md).
PT_ARGS=${ACC_PTPROF_ARGS:-}
# The section's markers in docs/PERFORMANCE.md (bench/run.sh keeps the
# block when it rewrites the rest of the file).
BEGIN_MARK='<!-- bench/accuracy.sh: begin -->'
END_MARK='<!-- bench/accuracy.sh: end -->'

# Share of column $1 that has no symbol (an FDE or nothing).
nosym_share() {
	awk -F'\t' -v p="$1" '$2 ~ /\+0x[0-9a-f]+ \[|no symbol/ { s += $p }
	END { printf "%.4f", s }' "$2"
}

# --- Workloads ---------------------------------------------------------------

PERL_LOOP='
$| = 1;
my ($secs) = @ARGV;
srand(7);
my @w = map { join "", map { chr(97 + int(rand 10)) } 1 .. 2 + int(rand 8) } 1 .. 3000;
my @lines = map { my @l = map { $w[rand @w] } 1 .. 12; join " ", @l } 1 .. 2000;
my $text = join "\n", @lines;
print "ready\n";
my $end = time + $secs;
while (time < $end) {
	my %h;
	for (@lines) { $h{$_}++ for split / /; }
	my $n = 0;
	for (@lines) { (my $s = $_) =~ tr/a/4/; $n += length(uc $s); $n += () = /ka/g; }
	my @s = sort { $a <=> $b } map { rand } 1 .. 20000;
	my @m = $text =~ /([a-z]+)/g;
	(my $t = $text) =~ s/[a-z]+/#/g;
	my $x = 0;
	$x = ($x * 31 + $_) % 1000003 for 1 .. 100000;
}
'

# Start workload $1 in the background, its output in $2; sets WPID.
start_workload() {
	local bound=$((${WARMUP%.*} + ${SECS%.*} + 60))
	case $1 in
	xz) "$XZ" -T2 -6 -c "$DATA/input" >/dev/null 2>"$2" & ;;
	python) "$PYTHON" "$here/accuracy_work.py" loop "$bound" >"$2" 2>&1 & ;;
	perl) "$PERL" -e "$PERL_LOOP" "$bound" >"$2" 2>&1 & ;;
	sqlite) start_sqlite "$DATA/sq.db" "$bound" "$2"; return ;;
	*) die "unknown workload '$1' (want xz, python, perl or sqlite)" ;;
	esac
	WPID=$!
}

# One measured window: workload $1, repetition $2.
run_one() {
	local w=$1 rep=$2 d="$RUN/$1.r$2" st=ok load rc
	mkdir -p "$d"
	start_workload "$w" "$d/workload.out"
	# The interpreters say "ready"; xz and sqlite3 have nothing to prepare.
	if { [[ " xz sqlite " = *" $w "* ]] && ! alive "$WPID"; } ||
		{ [[ " xz sqlite " != *" $w "* ]] &&
			! wait_ready "$d/workload.out" "$WPID" 20; }; then
		stop_pid "$WPID"; WPID=""
		echo "workload=$w rep=$rep status=fail:workload-not-ready" >>"$RUN/results.tsv"
		log "$w r$rep: the workload did not start"
		return
	fi
	nap "$WARMUP"
	cp "/proc/$WPID/maps" "$d/maps" 2>/dev/null
	"$PERF" record -e cpu-clock -F "$PERF_A" -g --no-buildid-cache -p "$WPID" \
		-o "$d/perfA.data" >"$d/perfA.log" 2>&1 &
	PA=$!
	"$PERF" record -e cpu-clock -F "$PERF_B" -g --no-buildid-cache -p "$WPID" \
		-o "$d/perfB.data" >"$d/perfB.log" 2>&1 &
	PB=$!
	# shellcheck disable=SC2086
	"$PTPROF" -p "$WPID" -f "$HZ" -d "$SECS" $PT_ARGS -o "$d/ptprof.prof" \
		>"$d/ptprof.log" 2>&1 &
	PT=$!
	nap "$SECS"
	stop_perf "$PA"
	stop_perf "$PB"
	wait_gone "$PT" 30 || { st=fail:ptprof-hung; stop_pid "$PT"; }
	wait "$PT"
	rc=$?
	PA="" PB="" PT=""
	[ "$rc" = 0 ] || [ "$st" != ok ] || st=fail:ptprof-exit-$rc
	alive "$WPID" || st=fail:workload-ended-early
	stop_pid "$WPID"; WPID=""
	load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)
	for f in perfA.data perfB.data ptprof.prof; do
		[ -s "$d/$f" ] || { [ "$st" = ok ] && st=fail:no-$f; }
	done
	if [ "$st" != ok ]; then
		echo "workload=$w rep=$rep status=$st load=$load" >>"$RUN/results.tsv"
		log "$w r$rep: $st"
		return
	fi
	analyse "$d" "$w" "$rep" "$load"
	[ "${ACC_KEEP:-0}" = 1 ] || rm -f "$d"/*.data
}

# Flat profiles, names, shares and overlaps of one window's directory.
analyse() {
	local d=$1 w=$2 rep=$3 load=$4 ka oa ab pb npt na nb noise
	flat_ptprof "$d/ptprof.prof" >"$d/ptprof.flat"
	flat_perf "$d/perfA.data" >"$d/perfA.flat" 2>"$d/perfA.kernel"
	flat_perf "$d/perfB.data" >"$d/perfB.flat" 2>"$d/perfB.kernel"
	tables_for "$d/maps" "$d"/*.flat >"$d/tables"
	for p in ptprof perfA perfB; do
		canon "$d/tables" "$d/$p.flat" >"$d/$p.canon"
	done
	shares "$d/ptprof.canon" "$d/perfA.canon" "$d/perfB.canon" >"$d/shares.tsv"
	rm -f "$d/tables"
	ka=$(awk '{ split($1, k, "="); split($2, t, "=");
		if (t[2] > 0) printf "%.4f", k[2] / t[2] }' "$d/perfA.kernel")
	oa=$(overlap 3 4 "$d/shares.tsv")
	ab=$(overlap 4 5 "$d/shares.tsv")
	pb=$(overlap 3 5 "$d/shares.tsv")
	# ptprof's samples are weighted by CPU time (in periods); their sum.
	npt=$(awk -F'\t' '{ s += $1 } END { printf "%.0f", s }' "$d/ptprof.flat")
	na=$(grep -o '(\([0-9]*\) samples)' "$d/perfA.log" | tr -dc 0-9)
	nb=$(grep -o '(\([0-9]*\) samples)' "$d/perfB.log" | tr -dc 0-9)
	noise=$("$PYTHON" "$here/accuracy_work.py" noise "$d/shares.tsv" \
		"$npt" "${na:-0}" "${nb:-0}" 2>>"$d/noise.err")
	echo "workload=$w rep=$rep status=ok o_pt_a=$oa o_a_b=$ab o_pt_b=$pb" \
		"ratio=$(awk -v a="$oa" -v b="$ab" 'BEGIN { if (b > 0) printf "%.4f", a / b }')" \
		"noise_ratio=$(awk -v n="$noise" 'BEGIN { split(n, e, " ");
			if (e[2] > 0) printf "%.4f", e[1] / e[2] }')" \
		"kernel_a=$ka nosym_pt=$(nosym_share 3 "$d/shares.tsv")" \
		"n_pt=$npt n_a=$na n_b=$nb funcs=$(wc -l <"$d/shares.tsv")" \
		"load=$load" >>"$RUN/results.tsv"
	log "$w r$rep: overlap(ptprof, perf@$PERF_A) $oa, overlap(perf@$PERF_A, perf@$PERF_B) $ab, load $load"
}

# One window of service $1, repetition $2 (bench/services.sh).
run_service() {
	local s=$1 rep=$2 d="$RUN/svc-$1.r$2" line
	# In this shell, not $(...): its processes are then this shell's to
	# end (the trap above) if the run is interrupted.
	svc_measure "$s" "$d" >/dev/null 2>>"$RUN/log"
	line=$(tail -1 "$d/result" 2>/dev/null)
	[ -n "$line" ] || line="service=$s status=fail:no-result"
	echo "$line rep=$rep" >>"$RUN/results.tsv"
	[ -s "$d/what" ] && ! grep -q "^svc_what_$s=" "$RUN/meta" &&
		echo "svc_what_$s=$(cat "$d/what")" >>"$RUN/meta"
	log "$s r$rep: $line"
}

# --- The report section ------------------------------------------------------

# The markdown section from a results directory, on stdout.
render() {
	local dir=$1
	awk -f "$here/stats.awk" -f "$here/accuracy.awk" "$dir/meta" "$dir/results.tsv" \
		$(cd "$dir" && ls -d */shares.tsv 2>/dev/null | grep -v '^svc-' | sed "s|^|$dir/|")
	awk -f "$here/stats.awk" -f "$here/services.awk" "$dir/meta" "$dir/results.tsv"
}

# Replace (or append) the marked block of $REPORT with the section.
splice() {
	splice_section "$1" render accuracy.md
}

bench_args splice "$@"

# --- Set-up ---------------------------------------------------------------
check_settings "$SECS" "$WARMUP" "$REPS" "$HZ" "$PERF_A" "$PERF_B" "$XZ_MB" \
	"$SVC_SECS" "$SVC_WARMUP" "$SVC_HZ"
for s in $SERVICES; do
	[[ " $SERVICES_ALL " = *" $s "* ]] || die "unknown service '$s' (want: $SERVICES_ALL)"
done
window_run_start accuracy- accuracy-latest
# The services' processes too (bench/services.sh), whatever way it ends.
trap 'svc_stop_all; window_cleanup' EXIT

{
	common_meta
	echo "perf_version=$("$PERF" version 2>/dev/null | head -1)"
	echo "xz_version=$("$XZ" --version 2>/dev/null | head -1)"
	echo "python_version=$("$PYTHON" --version 2>&1 | head -1)"
	echo "perl_version=$("$PERL" -e 'print "perl $^V"' 2>/dev/null)"
	echo "sqlite_version=$("$SQLITE" --version 2>/dev/null | cut -d' ' -f1)"
	echo "secs=$SECS"
	echo "reps=$REPS"
	echo "warmup=$WARMUP"
	echo "hz=$HZ"
	echo "ptprof_args=$PT_ARGS"
	echo "perf_a=$PERF_A"
	echo "perf_b=$PERF_B"
	echo "xz_mb=$XZ_MB"
	echo "workloads=$WORKLOADS"
	echo "services=$SERVICES"
	echo "svc_secs=$SVC_SECS"
	echo "svc_warmup=$SVC_WARMUP"
	echo "svc_hz=$SVC_HZ"
	echo "svc_blocking=$(echo $SVC_BLOCKING)"
} >"$RUN/meta"

if ! perf_works; then
	splice "$RUN"
	exit 0
fi

if [[ " $WORKLOADS " = *" xz "* ]]; then
	log "generating ${XZ_MB} MB of input for xz"
	# 16 MiB generated once, then repeated: a repeat is 16 MiB back,
	# beyond xz -6's 8 MiB dictionary, so it does not compress better.
	"$PYTHON" "$here/accuracy_work.py" gen $((16 << 20)) >"$DATA/chunk" ||
		die "cannot generate the input"
	for ((i = 0; i < (XZ_MB + 15) / 16; i++)); do cat "$DATA/chunk"; done >"$DATA/input"
	rm -f "$DATA/chunk"
fi

if [[ " $WORKLOADS " = *" sqlite "* ]]; then
	log "generating the sqlite database"
	sqlite_db "$DATA/sq.db" ||
		die "cannot generate the sqlite database"
fi

log "results in $RUN; $REPS x ${SECS}s windows of: $WORKLOADS; $REPS x ${SVC_SECS}s of: $SERVICES"
for ((rep = 1; rep <= REPS; rep++)); do
	for w in $WORKLOADS; do
		run_one "$w" "$rep"
	done
	for s in $SERVICES; do
		run_service "$s" "$rep"
	done
done
window_run_end
