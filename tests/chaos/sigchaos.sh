# tests/chaos/sigchaos.sh - sourced by the signals cases of the chaos suite
# (tests/chaos/signals.mk), after tests/init.sh.
#
# Their targets live in tests/chaos/targets/; start_chaos_target_ starts
# one as start_target_ does (its PID in $target_pid, its output in
# $target_out) and waits for its "ready".

chaos_targets=$abs_top_builddir/tests/chaos/targets

start_chaos_target_()
{
	local saved=$targets
	targets=$chaos_targets
	start_target_ "$@"
	targets=$saved
	wait_ready_
}

# finish_steadywork_ PID OUT: SIGUSR1 ends steadywork PID, which must exit
# 0 with an "ok" verdict: every round of its threads gave the right result.
finish_steadywork_()
{
	local line
	kill -s USR1 "$1"
	wait_exit_ "$1" 10
	line=$(grep '^steadywork: ' "$2")
	info_ "target: $line"
	case $line in
	'steadywork: ok '*'ended=signal') ;;
	*) fail_ "steadywork did not end well: ${line:-$(cat "$2")}" ;;
	esac
	[ "$exit_status" -eq 0 ] || fail_ "steadywork exited $exit_status"
}

# all_stopped_ PID: every thread of PID is stopped (T, or t while a tick
# holds it).  One awk: it runs in polling loops, and forks are slow
# under load.
all_stopped_()
{
	awk '{ s = $0; sub(/^.*\) /, "", s); c = substr(s, 1, 1); n++
	       if (c != "T" && c != "t") bad = 1 }
	     END { exit bad || !n }' /proc/"$1"/task/*/stat 2> /dev/null
}

# ms_since_ NS: milliseconds since NS (a date +%s%N).
ms_since_() { echo $((($(date +%s%N) - $1) / 1000000)); }

# rand_ms_ LO HI N: the Nth random number of milliseconds in LO..HI, as
# seconds for sleep (0.123); N, not a counter, as it runs in $(...).
# Seeded by $chaos_seed (PTPROF_CHAOS_SEED, else the PID), which the test
# prints: PTPROF_CHAOS_SEED=S replays a run's moments.
: "${chaos_seed:=${PTPROF_CHAOS_SEED:-$$}}"
rand_ms_()
{
	awk -v s="$chaos_seed" -v n="$3" -v lo="$1" -v hi="$2" 'BEGIN {
		srand(s); for (i = 0; i < n; i++) r = rand()
		printf "%.3f\n", (lo + int(r * (hi - lo + 1))) / 1000 }'
}
