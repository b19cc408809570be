# tests/chaos/hostile.sh - sourced by tests/chaos/stack-*.test after
# tests/init.sh: profile one mode of tests/chaos/targets/hostile.
#
# profile_hostile_ MODE [PTPROF-ARG...]: start `hostile MODE 6`, attach
# ptprof -p -f 1000 -d 2 (and the extra args) to it, and check that
#  - ptprof exits 0 within 30 s and writes a profile that profcat and
#    `ptprof report` read (the folded stacks end up in prof.folded);
#  - the target, still running when ptprof is done (it runs 4 s longer
#    than ptprof: a margin for a loaded machine), is untraced and not
#    stopped;
#  - the target then ends with status 0 and "MODE ok" (its own check of
#    what it computed).
# Also sets $report (the `ptprof report` output file) and $hostile_pid.

hostile=$abs_top_builddir/tests/chaos/targets/hostile
[ -x "$hostile" ] || framework_failure_ "target not built: $hostile"

profile_hostile_()
{
	local mode=$1
	shift
	start_bg_ "$mode.out" "$hostile" "$mode" 6
	hostile_pid=$bg_pid
	# Attach once it runs its own code (not the loader's).
	sleep 0.2
	run_ptprof_ 30 err -f 1000 -d 2 -o prof --stats -p "$hostile_pid" "$@"
	[ $exit_status -eq 0 ] ||
		fail_ "$mode: ptprof exited $exit_status, expected 0"
	is_gone_ "$hostile_pid" &&
		fail_ "$mode: the target ended while ptprof ran: $(cat "$mode.out")"
	check_untraced "$hostile_pid"
	wait_exit_ "$hostile_pid" 20
	[ "$exit_status" -eq 0 ] ||
		fail_ "$mode: the target exited $exit_status: $(cat "$mode.out")"
	grep -q "^$mode ok" "$mode.out" ||
		fail_ "$mode: the target did not report success: $(cat "$mode.out")"
	info_ "target: $(cat "$mode.out")"
	check_profile_ prof 1000
	report=$tmpdir/report.out
	"$PTPROF" report --top=12 prof > "$report" 2> report.err ||
		fail_ "$mode: ptprof report failed: $(cat report.err)"
	grep -q '^Total: [1-9][0-9]* samples$' "$report" ||
		fail_ "$mode: ptprof report shows no samples: $(head -3 "$report")"
	show_ "$report" 16
}

# depth_hist_ FOLDED: "FRAMES SAMPLES" per stack depth, deepest first.
depth_hist_()
{
	awk '{ s = $0; sub(/ [0-9]+$/, "", s)
		d[split(s, fr, ";")] += $NF }
	END { for (k in d) print k, d[k] }' "$1" | sort -nr
}
