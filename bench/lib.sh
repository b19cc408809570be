# bench/lib.sh - the skeleton shared by bench/run.sh, bench/accuracy.sh,
# bench/truth.sh and bench/procs.sh (sourced, not run): the environment every measurement runs in, the
# paths, log/die, the --report argument, a results directory per run, and
# the process helpers.  Every wait is bounded; a process is only ever
# signalled by the PID its starter got from $!.
#
# The caller sets BENCH_TAG (the word its messages start with) and
# BENCH_SCRIPT (its name, for the usage line) before sourcing this file.

# C locale for every number printed and parsed; no debuginfod look-ups
# from gdb, eu-stack or perf: nothing here touches the network.
export LC_ALL=C
unset DEBUGINFOD_URLS

bench_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRCDIR=${BENCH_SRCDIR:-$(dirname "$bench_here")}
BUILDDIR=${BENCH_BUILDDIR:-$SRCDIR}
PTPROF=${PTPROF:-$BUILDDIR/src/ptprof}
PERF=${BENCH_PERF:-/usr/bin/perf}
RESULTS=${BENCH_RESULTS:-$BUILDDIR/bench/results}
REPORT=${BENCH_REPORT:-$SRCDIR/docs/PERFORMANCE.md}

die() {
	echo "$BENCH_TAG: $*" >&2
	exit 1
}

log() {
	echo "$BENCH_TAG: $*" >&2
	[ -n "${RUN:-}" ] && echo "$(date +%T) $*" >>"$RUN/log"
}

# The command line: none, or `--report DIR`, which only runs the report
# function $1 on DIR and exits.
bench_args() {
	local report=$1
	shift
	if [ "${1:-}" = --report ]; then
		[ $# = 2 ] || die "usage: $BENCH_SCRIPT --report RESULTS_DIR"
		RUN=""
		"$report" "$2"
		exit 0
	fi
	[ $# = 0 ] || die "usage: $BENCH_SCRIPT [--report RESULTS_DIR]"
}

# A new results directory RUN under RESULTS, named $1 plus the time, with
# the symbolic link $2 to it, a subdirectory $3 if given, and NAP_FD open
# on a FIFO in it for nap.
bench_start_run() {
	RUN="$RESULTS/$1$(date +%Y%m%d-%H%M%S)"
	mkdir -p "$RUN/${3:-}" || die "cannot create $RUN"
	ln -sfn "$(basename "$RUN")" "$RESULTS/$2"
	mkfifo "$RUN/.nap" || die "mkfifo failed"
	exec {NAP_FD}<>"$RUN/.nap"
}

# Sleep without forking a process (the fd is a FIFO nobody writes).
nap() {
	read -r -t "$1" -u "$NAP_FD" _ 2>/dev/null || :
}

# $1 with BENCH_QUICK=1 (a short smoke run), else $2.
quick() {
	if [ "${BENCH_QUICK:-0}" = 1 ]; then echo "$1"; else echo "$2"; fi
}

# Every argument is a number (the settings), and $PTPROF is there.
check_settings() {
	local v
	for v; do
		[[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "not a number: '$v'"
	done
	[ -x "$PTPROF" ] || die "$PTPROF missing: run 'make'"
}

# Alive and not a zombie.
alive() {
	local st
	[ -r "/proc/$1/stat" ] || return 1
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

# Wait up to $2 seconds for process $1 to end.
wait_gone() {
	local i n=$(($2 * 20))
	for ((i = 0; i < n; i++)); do
		alive "$1" || return 0
		nap 0.05
	done
	! alive "$1"
}

# End a process this script started: TERM, then KILL; then reap it.
stop_pid() {
	if alive "$1"; then
		kill -TERM "$1" 2>/dev/null
		wait_gone "$1" 5 || {
			kill -KILL "$1" 2>/dev/null
			wait_gone "$1" 5
		}
	fi
	wait "$1" 2>/dev/null
}

# Wait up to $3 s for process $2 to write "ready" as the first line of
# file $1; fails at once if it dies.
wait_ready() {
	local i line
	for ((i = 0; i < $3 * 100; i++)); do
		if [ -s "$1" ]; then
			read -r line <"$1" || :
			[ "$line" = ready ] && return 0
		fi
		alive "$2" || return 1
		nap 0.01
	done
	return 1
}

# End a bench/cputime wrapper this script started: it passes INT on to
# the command it runs; if both are still there, KILL the command (its
# child, by PID) and then it.
stop_wrapped() {
	local kids=""
	alive "$1" || { wait "$1" 2>/dev/null; return; }
	read -r kids 2>/dev/null <"/proc/$1/task/$1/children" || :
	kill -INT "$1" 2>/dev/null
	if ! wait_gone "$1" 10; then
		for k in $kids; do kill -KILL "$k" 2>/dev/null; done
		wait_gone "$1" 5 || kill -KILL "$1" 2>/dev/null
	fi
	wait "$1" 2>/dev/null
}

# Machine-wide jiffies: "total idle" (idle + iowait), from /proc/stat.
cpustat() {
	local l
	read -r l </proc/stat
	set -- $l
	echo "$(($2 + $3 + $4 + $5 + $6 + $7 + $8 + $9)) $(($5 + $6))"
}

# key=value from a "k=v k=v" line.
kv() {
	[[ " $1 " =~ \ $2=([^ ]*)\  ]] && echo "${BASH_REMATCH[1]}"
}

# First number after regex $2 in text $1 (the number is group 1 of $2).
grab() {
	[[ $1 =~ $2 ]] && echo "${BASH_REMATCH[1]}"
}

# Wait up to 10 s for ptprof $1 to sample: blocked in sigtimedwait (128)
# or with its tick signals blocked (tests/init.sh ptprof_sampling_).
wait_sampling() {
	local i blk sc
	for ((i = 0; i < 1000; i++)); do
		blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
		sc=$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)
		[ "$sc" = 128 ] && return 0
		[ -n "$blk" ] && [ $((0x$blk & 0x4003)) -eq $((0x4003)) ] && return 0
		alive "$1" || return 1
		nap 0.01
	done
	return 1
}

# The machine and ptprof, as key=value lines for a results dir's meta.
common_meta() {
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "nproc=$(nproc)"
	echo "cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')"
	echo "kernel=$(uname -srm)"
	echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "ptprof_version=$("$PTPROF" --version 2>&1 | head -1)"
	echo "ptprof_git=$(git -C "$SRCDIR" describe --always --dirty 2>/dev/null || echo unknown)"
}

# The section bench/$BENCH_TAG.awk renders from results dir $1's meta and
# results.tsv (with bench/stats.awk).
render_results() {
	awk -f "$bench_here/stats.awk" -f "$bench_here/$BENCH_TAG.awk" "$1/meta" "$1/results.tsv"
}

# Replace (or append) the block of $REPORT between the lines $BEGIN_MARK
# and $END_MARK with what the function $2 prints for results dir $1
# (kept as $1/$3).  bench/run.sh keeps these blocks when it rewrites the
# rest of the file (its REPORT_BLOCKS).
splice_section() {
	local dir=$1 render=$2 md="$1/$3" tmp="$REPORT.tmp.$$"
	mkdir -p "$(dirname "$REPORT")"
	"$render" "$dir" >"$md" || die "rendering failed"
	{
		# The rest of the file as it was, then one blank line.
		[ -f "$REPORT" ] && awk -v b="$BEGIN_MARK" -v e="$END_MARK" '
			$0 == b { skip = 1 }
			!skip { print; last = $0 }
			$0 == e { skip = 0 }
			END { if (NR && last != "") print "" }' "$REPORT"
		echo "$BEGIN_MARK"
		cat "$md"
		echo "$END_MARK"
	} >"$tmp" && mv "$tmp" "$REPORT" || { rm -f "$tmp"; die "cannot write $REPORT"; }
	log "wrote the $BENCH_TAG section of $REPORT"
}
