# tests/chaos/stacks.sh - sourced by the tests of tests/chaos/stacks.mk
# after tests/init.sh.
#
# The targets here (tests/chaos/targets/) burn CPU for the seconds they
# are given, a generous bound, or until a file "stop" appears in their
# current directory: stop_target_ PID makes it (in the current directory)
# and waits for PID to exit; its status is then in $exit_status.
stop_target_()
{
	: > stop || framework_failure_ "cannot make $(pwd)/stop"
	wait_exit_ "$1" 30
	rm -f stop
}

# profile_started_ NAME PID OUT [PTPROF-ARG...]: PID (started with
# start_bg_, output in OUT) burns CPU until stopped: attach ptprof -p
# -f 1000 -d $ptprof_secs (default 2; and the extra args) to it, and check
# that
#  - ptprof exits 0 within 30 s and writes a profile that profcat and
#    `ptprof report` read (the folded stacks end up in prof.folded, the
#    report's table in $report);
#  - PID, still running when ptprof is done, is untraced and not stopped;
#  - PID, then stopped, exits 0 and its last line begins with "ok" or
#    "NAME ok": its own check of what it computed.
profile_started_()
{
	local name=$1 pid=$2 out=$3
	shift 3
	run_ptprof_ 30 err -f 1000 -d "${ptprof_secs:-2}" -o prof --stats \
		-p "$pid" "$@"
	[ $exit_status -eq 0 ] ||
		fail_ "$name: ptprof exited $exit_status, expected 0"
	is_gone_ "$pid" &&
		fail_ "$name: the target ended while ptprof ran: $(cat "$out")"
	check_untraced "$pid"
	stop_target_ "$pid"
	[ "$exit_status" -eq 0 ] ||
		fail_ "$name: the target exited $exit_status: $(cat "$out")"
	tail -n 1 "$out" | grep -Eq "^($name )?ok" ||
		fail_ "$name: the target did not report success: $(cat "$out")"
	info_ "target: $(tail -n 1 "$out")"
	check_profile_ prof 1000
	report=$tmpdir/report.out
	"$PTPROF" report --top=0 prof > "$report" 2> report.err ||
		fail_ "$name: ptprof report failed: $(cat report.err)"
	grep -q '^Total: [1-9][0-9]* samples$' "$report" ||
		fail_ "$name: ptprof report shows no samples: $(head -3 "$report")"
	show_ "$report" 14
}

# profile_hostile_ MODE [PTPROF-ARG...]: profile_started_ on
# `tests/chaos/targets/hostile MODE 30`, attached 0.2 s after its start.
profile_hostile_()
{
	local mode=$1 hostile=$abs_top_builddir/tests/chaos/targets/hostile
	shift
	[ -x "$hostile" ] || framework_failure_ "target not built: $hostile"
	start_bg_ "$mode.out" "$hostile" "$mode" 30
	sleep 0.2 # past the dynamic loader, into its own code
	profile_started_ "$mode" "$bg_pid" "$mode.out" "$@"
}

# profile_runtime_ NAME CMD [ARG...]: CMD prints "ready" and then burns
# CPU until stopped: profile_started_ on it once it is ready (within 30 s:
# a JVM starts slowly on a loaded machine).
profile_runtime_()
{
	local name=$1
	shift
	start_bg_ "$name.out" "$@"
	wait_for_ 30 "$name to print 'ready'" grep_ready_ "$name.out" ||
		fail_ "$name never got ready: $(cat "$name.out")"
	profile_started_ "$name" "$bg_pid" "$name.out"
}

# depth_hist_ FOLDED: "FRAMES SAMPLES" per stack depth, deepest first.
depth_hist_()
{
	awk '{ s = $0; sub(/ [0-9]+$/, "", s)
		d[split(s, fr, ";")] += $NF }
	END { for (k in d) print k, d[k] }' "$1" | sort -nr
}

# expect_refusal_ WANT CMD [ARG...]: CMD (killed after 20 s) exits 1,
# prints nothing on stdout and exactly the line WANT on stderr, and leaves
# no file in the current directory.
expect_refusal_()
{
	local want=$1 st
	shift
	mkdir refusal && cd refusal || framework_failure_ "cannot make refusal/"
	timeout -s KILL 20 "$@" > ../refusal.out 2> ../refusal.err < /dev/null
	st=$?
	cd .. || framework_failure_ "cannot leave refusal/"
	info_ "$* -> $st: $(cat refusal.err)"
	[ "$st" -eq 1 ] || fail_ "$*: exit status $st, expected 1"
	[ ! -s refusal.out ] || fail_ "$*: wrote to stdout: $(head -c 300 refusal.out)"
	[ "$(wc -l < refusal.err)" -eq 1 ] && [ "$(cat refusal.err)" = "$want" ] ||
		fail_ "$*: stderr is '$(cat refusal.err)', expected '$want'"
	[ -z "$(ls -A refusal)" ] ||
		fail_ "$*: left files behind: $(ls -A refusal | tr '\n' ' ')"
	rmdir refusal
}

# start_busy_ SECS [RUNNER...]: `hostile busy SECS` (its PID in $busy_pid,
# its output in busy.N.out, named by $busy_out), run through RUNNER (e.g.
# setpriv ...) if given, once it printed "ready"; "nodump" instead of
# "busy" when $busy_mode says so.
busy_n=0
start_busy_()
{
	local secs=$1
	shift
	busy_n=$((busy_n + 1))
	busy_out=busy.$busy_n.out
	start_bg_ "$busy_out" "$@" \
		"$abs_top_builddir/tests/chaos/targets/hostile" \
		"${busy_mode:-busy}" "$secs"
	busy_pid=$bg_pid
	wait_for_ 10 "hostile $busy_pid to print 'ready'" grep_ready_ "$busy_out" ||
		framework_failure_ "hostile busy did not start: $(cat "$busy_out")"
}

# finish_busy_: stop the last start_busy_ target; it must exit 0 and
# report its computation right.
finish_busy_()
{
	stop_target_ "$busy_pid"
	[ "$exit_status" -eq 0 ] && grep -q "^${busy_mode:-busy} ok" "$busy_out" ||
		fail_ "target $busy_pid exited $exit_status: $(cat "$busy_out")"
	info_ "target: $(tail -n 1 "$busy_out")"
}
