# tests/init.sh - sourced by every tests/*.test (strace/elfutils style).
#
# Gives a test: $me (its name), $PTPROF, $abs_top_srcdir, $abs_top_builddir,
# $targets (the built test targets), $profcat, and $tmpdir, a directory of
# its own that is the current directory and is removed on exit.
#
# Exit statuses (automake's harness): 0 pass, 1 fail_, 77 skip_,
# 99 framework_failure_ (the harness, not ptprof, is broken).
#
# Processes: start_bg_ (and start_target_, start_ptprof_) remember every
# PID they start; on exit the test kills those still running, by PID, and
# only those (never by name).  Every loop here is bounded in tries and time.

me=${0##*/}
me=${me%.test}

info_() { printf '%s: %s\n' "$me" "$*"; }
fail_() { printf '%s: FAIL: %s\n' "$me" "$*" >&2; exit 1; }
skip_() { printf '%s: SKIP: %s\n' "$me" "$*" >&2; exit 77; }
framework_failure_()
{
	printf '%s: framework failure: %s\n' "$me" "$*" >&2
	exit 99
}

# Run from make check, these come from AM_TESTS_ENVIRONMENT; run by hand
# from the top of an in-tree build, they are guessed.
if [ -z "${abs_top_srcdir:-}" ]; then
	abs_top_srcdir=$(cd "$(dirname "$0")/.." && pwd) ||
		framework_failure_ "cannot find the source tree"
fi
: "${abs_top_builddir:=$abs_top_srcdir}"
: "${PTPROF:=$abs_top_builddir/src/ptprof}"
export abs_top_srcdir abs_top_builddir PTPROF
targets=$abs_top_builddir/tests/targets
profcat=$abs_top_builddir/tests/tools/profcat

[ -x "$PTPROF" ] || framework_failure_ "ptprof not built: $PTPROF"
for t_ in timeout od awk sed; do
	command -v "$t_" > /dev/null || framework_failure_ "$t_ is missing"
done

# Everything this test started in the background, by PID.
started_pids=

# PPID of PID (field 4 of /proc/PID/stat, read past the ")" of comm), or
# nothing if PID is gone.  In the C locale: a comm that is not valid UTF-8
# (hostile-names.test's) matches no "." otherwise, and its target was
# left running.
ppid_of_()
{
	LC_ALL=C sed -n 's/^.*) [A-Za-z] \([0-9]*\) .*/\1/p' "/proc/$1/stat" 2> /dev/null
}

# One-letter state of PID (R, S, T, t, Z...), or nothing if PID is gone.
state_of_()
{
	LC_ALL=C sed -n 's/^.*) \([A-Za-z]\) .*/\1/p' "/proc/$1/stat" 2> /dev/null
}

# Kill PID if it is a child this test started and it is still there.  The
# PPID check keeps a recycled PID (our child long reaped) from being hit.
kill_started_()
{
	case " $started_pids " in
	*" $1 "*) ;;
	*) framework_failure_ "kill_started_ $1: not a PID this test started" ;;
	esac
	if [ "$(ppid_of_ "$1")" = "$$" ]; then
		kill -KILL "$1" 2> /dev/null
		wait "$1" 2> /dev/null
	fi
	return 0
}

cleanup_()
{
	rc_=$?
	trap - EXIT
	for p_ in $started_pids; do
		kill_started_ "$p_"
	done
	cd / || :
	# files a test had to make outside $tmpdir (/tmp/perf-PID.map)
	[ -z "${cleanup_files_:-}" ] || rm -f $cleanup_files_
	if [ -n "${tmpdir:-}" ] && [ -z "${PTPROF_TEST_KEEP:-}" ]; then
		rm -rf "$tmpdir"
	elif [ -n "${tmpdir:-}" ]; then
		info_ "kept $tmpdir"
	fi
	exit $rc_
}
trap cleanup_ EXIT
trap 'exit 99' HUP INT TERM

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/ptprof-$me.XXXXXX") ||
	framework_failure_ "cannot make a temporary directory"
cd "$tmpdir" || framework_failure_ "cannot enter $tmpdir"

# start_bg_ OUT CMD [ARG...]: run CMD in the background, stdout and stderr
# to OUT, stdin from /dev/null; its PID in $bg_pid.  The subshell execs, so
# $! is CMD itself.
start_bg_()
{
	local out=$1
	shift
	(exec "$@") > "$out" 2>&1 < /dev/null &
	bg_pid=$!
	started_pids="$started_pids $bg_pid"
}

# start_target_ NAME [ARG...]: start tests/targets/NAME; its PID in
# $target_pid, its output file in $target_out.  Targets that print "ready"
# are waited for with wait_ready_.
start_target_()
{
	local name=$1
	shift
	[ -x "$targets/$name" ] ||
		framework_failure_ "target not built: $targets/$name"
	target_out=$tmpdir/$name.$$.$(date +%s%N).out
	start_bg_ "$target_out" "$targets/$name" "$@"
	target_pid=$bg_pid
}

# start_ptprof_ ERRFILE [ARG...]: ptprof in the background, its PID in
# $ptprof_pid, its stderr (and stdout) in ERRFILE.
start_ptprof_()
{
	local err=$1
	shift
	start_bg_ "$err" "$PTPROF" "$@"
	ptprof_pid=$bg_pid
}

# wait_for_ SECONDS WHAT CMD [ARG...]: run CMD every 0.05 s until it
# succeeds; give up after SECONDS seconds or SECONDS*20 tries, whichever
# comes first.  Returns 1 (after saying what it waited for) on timeout.
wait_for_()
{
	local secs=$1 what=$2 i=0 tries deadline
	shift 2
	tries=$((secs * 20))
	deadline=$(($(date +%s) + secs))
	while [ $i -lt $tries ]; do
		"$@" && return 0
		[ "$(date +%s)" -gt "$deadline" ] && break
		sleep 0.05
		i=$((i + 1))
	done
	info_ "timed out after ${secs}s waiting for $what"
	return 1
}

grep_ready_() { grep -qx ready "$1" 2> /dev/null; }

# wait_ready_ [SECONDS]: wait until the last started target printed "ready".
wait_ready_()
{
	wait_for_ "${1:-10}" "target $target_pid to print 'ready'" \
		grep_ready_ "$target_out" ||
		framework_failure_ "target $target_pid never got ready: $(cat "$target_out")"
}

# True when PID has exited (gone or a zombie).
is_gone_()
{
	local s
	s=$(state_of_ "$1")
	[ -z "$s" ] || [ "$s" = Z ]
}

# wait_exit_ PID SECONDS: wait (bounded) for a background child to end;
# its exit status in $exit_status.  On timeout it is killed and the test
# fails.
wait_exit_()
{
	if ! wait_for_ "$2" "PID $1 to exit" is_gone_ "$1"; then
		kill_started_ "$1"
		fail_ "PID $1 did not exit within $2 s"
	fi
	wait "$1"
	exit_status=$?
}

# run_ptprof_ SECONDS ERRFILE [ARG...]: ptprof in the foreground, killed
# if it runs longer than SECONDS; exit status in $exit_status, stderr in
# ERRFILE, stdout in ERRFILE.out (named by $run_out); both echoed to the
# log.
run_ptprof_()
{
	local secs=$1 err=$2
	shift 2
	info_ "running: ptprof $*"
	run_out=$err.out
	timeout -s KILL "$secs" "$PTPROF" "$@" 2> "$err" > "$run_out"
	exit_status=$?
	cat "$run_out"
	sed 's/^/  | /' "$err"
	[ $exit_status -ne 137 ] ||
		fail_ "ptprof was still running after $secs s (killed)"
}

# ptprof blocks SIGINT, SIGTERM and SIGHUP (bits 2, 15, 1 of SigBlk) before
# it starts sampling and reads them from a signalfd from then on: the mask
# shows that ptprof would take one of them as a stop request.  (Syscall 128,
# rt_sigtimedwait, is accepted too: ptprof waited there before 0.1.0.)
ptprof_sampling_()
{
	local blk sc
	blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' "/proc/$1/status" 2> /dev/null)
	sc=$(cut -d ' ' -f 1 "/proc/$1/syscall" 2> /dev/null)
	[ "$sc" = 128 ] ||
		{ [ -n "$blk" ] && [ $((0x$blk & 0x4003)) -eq $((0x4003)) ]; }
}

# wait_sampling_ PID ERRFILE: wait until ptprof PID (started with
# start_ptprof_ ERRFILE ...) samples.
wait_sampling_()
{
	wait_for_ 10 "ptprof $1 to start sampling" ptprof_sampling_ "$1" ||
		fail_ "ptprof $1 never started sampling: $(cat "$2")"
}

# ticks_of_ ERRFILE, missed_of_ ERRFILE: the tick counts of ptprof's
# summary line "ptprof: N ticks (M missed), ..." in ERRFILE.
ticks_of_()
{
	sed -n 's/^ptprof: \([0-9]*\) ticks (\([0-9]*\) missed).*/\1/p' "$1"
}
missed_of_()
{
	sed -n 's/^ptprof: \([0-9]*\) ticks (\([0-9]*\) missed).*/\2/p' "$1"
}

# min_ticks_ ERRFILE N: ptprof took at least N ticks (a test that expects
# samples in proportion to the ticks checks that there were some).
min_ticks_()
{
	local t
	t=$(ticks_of_ "$1")
	[ -n "$t" ] || fail_ "no summary line from ptprof in $1"
	[ "$t" -ge "$2" ] || fail_ "ptprof took $t ticks, expected >= $2"
}

# degraded_ ERRFILE: ptprof missed more than 10% of its tick deadlines.
# Then the machine was too busy for it: it ticked back to back, most
# samples repeat the PC of the one before, and a share of samples measured
# so has a spread far beyond +-5 points (61..84% for split's 75%, seen on
# a 2-core machine with a load of 8).
degraded_()
{
	local t m
	t=$(ticks_of_ "$1")
	m=$(missed_of_ "$1")
	[ -n "$t" ] && [ -n "$m" ] || fail_ "no summary line from ptprof in $1"
	[ $((m * 10)) -gt $((t + m)) ]
}

# run_ratio_ptprof_ ERRFILE [ARG...]: run ptprof (exit status 0 expected)
# for a test that measures a ratio: if the run was degraded_, say so and
# run again, at most 3 times; skip the test if all 3 were.  A test that
# measures the target around the run redefines ratio_before_run_, which
# is called before each attempt (a yardstick read once before all three
# would count the target's time in the attempts thrown away).
ratio_before_run_() { :; }
run_ratio_ptprof_()
{
	local err=$1 attempt=1
	shift
	while :; do
		ratio_before_run_
		run_ptprof_ 60 "$err" "$@"
		[ $exit_status -eq 0 ] ||
			fail_ "ptprof $* exited $exit_status, expected 0"
		degraded_ "$err" || return 0
		info_ "run $attempt: ptprof missed $(missed_of_ "$err") tick deadlines and took $(ticks_of_ "$err") ticks: the machine is too busy to measure a ratio"
		[ $attempt -lt 3 ] ||
			skip_ "the machine is too busy: ptprof missed over 10% of its ticks in 3 runs"
		attempt=$((attempt + 1))
		sleep 1
	done
}

require_google_pprof_()
{
	command -v google-pprof > /dev/null || skip_ "google-pprof is not installed"
}

# go tool pprof, with every file go writes kept in $tmpdir and no network.
require_go_pprof_()
{
	command -v go > /dev/null || skip_ "go is not installed"
	HOME=$tmpdir GOCACHE=$tmpdir/gocache GOPATH=$tmpdir/gopath
	PPROF_TMPDIR=$tmpdir GOTOOLCHAIN=local GOPROXY=off GOFLAGS=
	export HOME GOCACHE GOPATH PPROF_TMPDIR GOTOOLCHAIN GOPROXY GOFLAGS
	go tool pprof -h > /dev/null 2>&1 || skip_ "go tool pprof does not run"
}

require_profcat_()
{
	[ -x "$profcat" ] || framework_failure_ "profcat not built: $profcat"
}

# check_profile_ FILE [HZ]: FILE is a gperftools CPU profile: its header
# slots are 0 3 0 PERIOD (PERIOD = 1000000/HZ when HZ is given) and profcat
# reads it.  Leaves the folded stacks in FILE.folded; fails if it holds no
# sample at all.
check_profile_()
{
	local file=$1 hz=${2:-} hdr want
	[ -s "$file" ] || fail_ "profile $file was not written (or is empty)"
	hdr=$(od -A n -t u8 -N 32 "$file" | tr -s ' \n' ' ')
	set -- $hdr
	[ $# -eq 4 ] && [ "$1" = 0 ] && [ "$2" = 3 ] && [ "$3" = 0 ] ||
		fail_ "$file: header slots are '$hdr', expected '0 3 0 PERIOD'"
	if [ -n "$hz" ]; then
		want=$((1000000 / hz))
		[ "$4" = "$want" ] ||
			fail_ "$file: sampling period $4 us, expected $want for -f $hz"
	fi
	require_profcat_
	"$profcat" "$file" > "$file.folded" 2> "$file.err" ||
		fail_ "profcat cannot read $file: $(cat "$file.err")"
	[ -s "$file.folded" ] || fail_ "$file holds no sample"
}

# total_samples_ [FOLDED]: sum of all counts (of stdin without FOLDED).
total_samples_()
{
	awk '{ n += $NF } END { print n + 0 }' "$@"
}

# leaf_count_ FOLDED FUNC: samples whose innermost frame is FUNC.
leaf_count_()
{
	awk -v f="$2" '{
		s = $0; sub(/ [0-9]+$/, "", s)
		k = split(s, fr, ";")
		if (fr[k] == f) n += $NF
	} END { print n + 0 }' "$1"
}

# frame_count_ FOLDED FUNC: samples with FUNC anywhere in the stack.
frame_count_()
{
	awk -v f="$2" '{
		s = $0; sub(/ [0-9]+$/, "", s)
		k = split(s, fr, ";")
		for (i = 1; i <= k; i++)
			if (fr[i] == f) { n += $NF; break }
	} END { print n + 0 }' "$1"
}

# percent_ A B: 100*A/(A+B), one decimal.
percent_()
{
	awk -v a="$1" -v b="$2" 'BEGIN {
		printf "%.1f\n", (a + b > 0) ? 100 * a / (a + b) : 0 }'
}

# in_range_ VALUE LO HI: LO <= VALUE <= HI (decimals allowed).
in_range_()
{
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}

# check_split_ WHAT A B: the 75/25 check of the split target, on two
# sample counts: hot_a's share of A+B must be 75+-5 points (so hot_b's
# 25+-5), and there must be enough samples for that to mean something.
check_split_()
{
	local what=$1 a=$2 b=$3 pa pb
	[ $((a + b)) -ge 100 ] ||
		fail_ "$what: only $((a + b)) samples in hot_a+hot_b (hot_a $a, hot_b $b), expected >= 100"
	pa=$(percent_ "$a" "$b")
	pb=$(percent_ "$b" "$a")
	info_ "$what: hot_a $a samples ($pa%), hot_b $b samples ($pb%) of hot_a+hot_b"
	in_range_ "$pa" 70 80 ||
		fail_ "$what: hot_a has $pa% of hot_a+hot_b, expected 75+-5"
	in_range_ "$pb" 20 30 ||
		fail_ "$what: hot_b has $pb% of hot_a+hot_b, expected 25+-5"
}

# Problems that keep PID's threads from counting as untraced, one a line;
# nothing if none.  $1 = PID, $2 = running|stopped: whether every thread
# must be out of, or in, group stop (T).
untraced_problems_()
{
	local pid=$1 want=$2 n=0 st tid tracer state
	if [ ! -d "/proc/$pid/task" ]; then
		echo "process $pid is gone"
		return
	fi
	for st in /proc/"$pid"/task/*/status; do
		tid=${st%/status}
		tid=${tid##*/}
		tracer=$(sed -n 's/^TracerPid:[[:space:]]*//p' "$st" 2> /dev/null)
		state=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "$st" 2> /dev/null)
		[ -n "$state" ] || continue # the thread exited meanwhile
		n=$((n + 1))
		[ "$tracer" = 0 ] || echo "thread $tid: TracerPid is $tracer, expected 0"
		case $want/$state in
		*/Z | */X) echo "thread $tid: state $state (exited)" ;;
		running/t | running/T) echo "thread $tid: state $state, expected not stopped" ;;
		stopped/T) ;;
		stopped/*) echo "thread $tid: state $state, expected T (group-stopped)" ;;
		esac
	done
	[ $n -gt 0 ] || echo "no thread of process $pid could be read"
}

# check_untraced PID [stopped]: every thread of PID has TracerPid 0 and is
# not stopped (t or T); with "stopped", every thread is in group stop (T)
# instead.  A state can lag a detach by a moment, so it is read up to 10
# times, 0.1 s apart; the test fails if it is still wrong then.
check_untraced()
{
	local pid=$1 want=${2:-running} i=0 why
	while [ $i -lt 10 ]; do
		why=$(untraced_problems_ "$pid" "$want")
		if [ -z "$why" ]; then
			[ $i -eq 0 ] || info_ "note: process $pid settled after $i re-reads"
			info_ "process $pid: $(ls "/proc/$pid/task" | wc -l) threads, all untraced ($want)"
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	fail_ "process $pid is not untraced ($want): $(echo "$why" | tr '\n' ';')"
}

# CPU time (utime+stime, in ticks) of PID.
cpu_ticks_()
{
	LC_ALL=C sed -n 's/^.*) [A-Za-z] \(.*\)/\1/p' "/proc/$1/stat" 2> /dev/null |
		awk '{ print $11 + $12 }'
}

cpu_advanced_()
{
	[ "$(cpu_ticks_ "$1")" -gt "$2" ] 2> /dev/null
}

# check_running_ PID: PID is alive, not stopped, and burning CPU (its CPU
# time grows within 3 s).
check_running_()
{
	local pid=$1 t0 s
	s=$(state_of_ "$pid")
	case $s in
	'') fail_ "process $pid is gone, expected it still running" ;;
	Z) fail_ "process $pid has exited, expected it still running" ;;
	t | T) fail_ "process $pid is stopped ($s), expected it running" ;;
	esac
	t0=$(cpu_ticks_ "$pid")
	wait_for_ 3 "process $pid to use CPU" cpu_advanced_ "$pid" "$t0" ||
		fail_ "process $pid does not run: its CPU time stayed at $t0 ticks"
	info_ "process $pid still runs (CPU time grows past $t0 ticks)"
}

# show_ FILE [N]: the first N (default 40) lines of FILE in the log.
show_()
{
	info_ "$1:"
	head -n "${2:-40}" "$1" | sed 's/^/  | /'
}

# check_chain_ WHAT FOLDED LEAF RE: a chain target (one call chain burning
# CPU in LEAF) was profiled: at least 40 samples and 80% of all have LEAF
# as their leaf (the share, not the ticks: on a busy machine the target
# runs in fewer of them), and at least 95% of those read the whole chain,
# i.e. match the extended regex RE (folded: root first, then the count).
# The lines that do not are shown.
check_chain_()
{
	local what=$1 folded=$2 leaf=$3 re=$4 total n good
	grep -E "(^|;)$leaf [0-9]+\$" "$folded" > "$folded.leaf" || :
	total=$(total_samples_ "$folded")
	n=$(total_samples_ "$folded.leaf")
	good=$(grep -E "$re" "$folded.leaf" | total_samples_)
	info_ "$what: $n of $total samples with $leaf as leaf, $good of them with the whole chain"
	[ "$n" -ge 40 ] && [ $((n * 100)) -ge $((total * 80)) ] ||
		fail_ "$what: $n of $total samples in $leaf, expected >= 40 and >= 80%: $(sort -t ' ' -k 2 -nr "$folded" | head -3 | tr '\n' '|')"
	if [ $((good * 100)) -lt $((n * 95)) ]; then
		grep -Ev "$re" "$folded.leaf" | head -5 | sed 's/^/  bad: /'
		fail_ "$what: $((n - good)) of $n $leaf samples do not unwind through the whole chain"
	fi
}
