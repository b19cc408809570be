# tests/chaos/stacks.sh - sourced by the tests of tests/chaos/stacks.mk
# after tests/init.sh.
#
# profile_started_ NAME PID OUT [PTPROF-ARG...]: PID (started with
# start_bg_, output in OUT) burns CPU for at least 4 s more: attach
# ptprof -p -f 1000 -d $ptprof_secs (default 2; and the extra args) to it,
# and check that
#  - ptprof exits 0 within 30 s and writes a profile that profcat and
#    `ptprof report` read (the folded stacks end up in prof.folded, the
#    report's table in $report);
#  - PID, still running when ptprof is done (the margin is for a loaded
#    machine), is untraced and not stopped;
#  - PID then exits 0 and its last line begins with "ok" or "NAME ok":
#    its own check of what it computed.
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
	wait_exit_ "$pid" 30
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
# `tests/chaos/targets/hostile MODE 6`, attached 0.2 s after its start.
profile_hostile_()
{
	local mode=$1 hostile=$abs_top_builddir/tests/chaos/targets/hostile
	shift
	[ -x "$hostile" ] || framework_failure_ "target not built: $hostile"
	start_bg_ "$mode.out" "$hostile" "$mode" 6
	sleep 0.2 # past the dynamic loader, into its own code
	profile_started_ "$mode" "$bg_pid" "$mode.out" "$@"
}

# profile_runtime_ NAME CMD [ARG...]: CMD prints "ready" and then burns
# CPU for some seconds: profile_started_ on it once it is ready (within
# 30 s: a JVM starts slowly on a loaded machine).
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
