# bench/truth.awk - the "Figures against the truth" section of
# docs/PERFORMANCE.md from a bench/truth.sh results dir.
#
#   awk -f stats.awk -f truth.awk RUN/meta RUN/results.tsv
#
# meta holds key=value lines; results.tsv one measurement per line as
# space-separated key=value fields (row, case, bin = before or after,
# rep, status, figures).  Cells are medians with (min–max) over the
# repetitions; "—" where a binary does not give the figure.  Plain POSIX
# awk (mawk).

function g(row, c, bin) { return row "|" c "|" bin }

function cell(key, dec) { return (key in vals) ? mr(vals[key], dec) : "—" }

# A binary's cell for figure k of (row, case), with the median difference
# from perf in the same windows (key "d" k) when there is one.
function bcell(row, c, bin, k, diff,   key, s) {
	key = g(row, c, bin)
	if (!((key SUBSEP "ok") in vals) && !(key in nfail))
		return "—"
	if (!((key SUBSEP "ok") in vals))
		return "failed: " substr(why[key], index(why[key], ":") + 1)
	s = cell(key SUBSEP k, 1)
	if (s != "—" && diff && (key SUBSEP "d" k) in vals)
		s = s sprintf(" (%+.1f)", median(vals[key SUBSEP "d" k]))
	return s
}

function mark(ok) { return ok == "" ? "—" : (ok ? "**yes**" : "no") }

# met? for "after": |median - want| <= tol ("" when not measured).
function near(key, want, tol,   v) {
	if (!(key in vals))
		return ""
	v = median(vals[key])
	return v - want <= tol && want - v <= tol
}

# met? for "after": median >= lo.
function atleast(key, lo) { return (key in vals) ? median(vals[key]) >= lo : "" }

# met? for "after": median < hi.
function below(key, hi) { return (key in vals) ? median(vals[key]) < hi : "" }

# "0.5 ms bursts, 9.5 ms asleep (5% duty), 1 thread" of a duty case
# N:BURST_US:SLEEP_US.
function duty(c,   a) {
	split(c, a, ":")
	return a[2] / 1000 " ms bursts, " (a[3] > 0 ? a[3] / 1000 " ms asleep" : "never asleep") \
		" (" int(100 * a[2] / (a[2] + a[3]) + 0.5) "% duty), " a[1] " thread" (a[1] == 1 ? "" : "s")
}

function row(what, c1, c2, ref, goal, met) {
	printf "| %s | %s | %s | %s | %s | %s |\n", what, c1, c2, ref, goal, met
}

function both(rw, c, k, diff, what, ref, goal, met) {
	row(what, baseline ? bcell(rw, c, "before", k, diff) : "(no baseline)",
		bcell(rw, c, "after", k, diff), ref, goal, met)
}

function load(c,   a, n) {
	n = split(c, a, ":")
	return a[1] " thread" (a[1] == 1 ? "" : "s") ", " a[2] " µs bursts" \
		(a[3] > 0 ? ", " a[3] " µs asleep" : ", never asleep") ", " a[4] " Hz"
}

{
	fields()
	key = g(kv["row"], kv["case"], kv["bin"])
	if (failed_line(key))
		next
	add(key SUBSEP "ok", 1)
	for (k in kv)
		if (k !~ /^(row|case|bin|rep|status)$/)
			add(key SUBSEP k, kv[k])
	if (kv["call_perf"] != "")
		add(key SUBSEP "dcall_pt", kv["call_pt"] - kv["call_perf"])
	if (kv["work_perf"] != "")
		add(key SUBSEP "dwork_pt", kv["work_pt"] - kv["work_perf"])
	if (kv["burn_perf"] != "")
		add(key SUBSEP "dburn_pt", kv["burn_pt"] - kv["burn_perf"])
	if (kv["sleep_perf"] != "")
		add(key SUBSEP "dsleep_pt", kv["sleep_pt"] - kv["sleep_perf"])
	# duty: burn_work's share against the program's own, window by window.
	if (kv["row"] == "duty" && kv["own"] != "" && kv["burn_pt"] != "")
		add(key SUBSEP "oburn_pt", kv["burn_pt"] - kv["own"])
	# perf's and the target's figures from every window of a case,
	# whichever binary ran: the reference column.
	for (k in kv)
		if (k ~ /_perf$|^own/)
			add(g(kv["row"], kv["case"], "ref") SUBSEP k, kv[k])
}

END {
	baseline = meta["baseline"] != ""
	section_head("Figures against the truth", "bench/truth.sh", "bench-truth")
	print "- ptprof after: " meta["ptprof_version"] " (git " meta["ptprof_git"] ")" \
		(baseline ? "; ptprof before: " meta["baseline"] " (" meta["baseline_version"] ")" \
			: "; no baseline binary (BENCH_BASELINE): the before column is empty") \
		"; " meta["perf_version"] (meta["sqlite_version"] != "" ? "; sqlite " meta["sqlite_version"] : "") "."
	print "- Method: " meta["reps"] " repetition(s) of every row on each binary, the order of the" \
		" binaries alternating; medians with (min–max).  Shares are of the flat (leaf) profile," \
		" keyed by function as in *Accuracy against perf*: perf's kernel samples count at their" \
		" first user frame, the call's wrapper.  ptprof and `perf record -e cpu-clock -g -F " \
		meta["perf_hz"] "` record the same " meta["secs"] " s window of the same PID at once" \
		" (after a " meta["warmup"] " s warm-up); ptprof in CPU mode at " meta["hz"] " Hz; in" \
		" parentheses, the median difference from perf in the same windows (points)."
	if ("unavailable" in meta)
		print "- **perf rows not measured:** " meta["unavailable"] "."
	print "- Why the duty rows can be right (issue 26): in CPU mode a stack counts for a thread's" \
		" CPU time only if the stop found the thread running; a stop that cut a sleep short," \
		" or a thread woken but not yet run, gives none, and the time waits in the thread's" \
		" carry for the next stack taken while it runs.  The instants the stops land at" \
		" (jittered ticks plus the stop latency) do not depend on what the thread runs, so" \
		" the stops that find it running are a uniform sample of its running time, and each" \
		" takes the CPU time used since the one before: every function gets its share in" \
		" expectation, whatever the length of its bursts.  Not so for code that only runs in" \
		" bursts shorter than the stop latency (`--stats` shows it): the code around it takes" \
		" its time, and what a thread's carry holds beyond 64 ms goes to the row" \
		" `[CPU time not caught running]`, never to a sleep (ptprof(1), CPU mode)."
	print ""
	print "| measure | ptprof before | ptprof after | reference | goal | met? |"
	print "|---|---|---|---|---|---|"
	n = split(meta["rows"], rows, " ")
	for (ri = 1; ri <= n; ri++) {
		rw = rows[ri]
		if (rw == "syscall") {
			for (ci = 1; ci <= 2; ci++) {
				c = ci == 1 ? "pread" : "getppid"
				pk = g(rw, c, "ref")
				ref = "perf " cell(pk SUBSEP "call_perf", 1) " %; sysloop's own " \
					cell(pk SUBSEP "own", 1) " %"
				both(rw, c, "call_pt", 1, "sysloop " c " (~10 µs of work a call): " c "'s share, %",
					ref, "± 10 points of perf", mark(near(g(rw, c, "after") SUBSEP "dcall_pt", 0, 10)))
				both(rw, c, "work_pt", 1, "sysloop " c ": work's share, %",
					"perf " cell(pk SUBSEP "work_perf", 1) " %", "± 10 points of perf",
					mark(near(g(rw, c, "after") SUBSEP "dwork_pt", 0, 10)))
				both(rw, c, "at_exit", 0, "sysloop " c ": samples stopped at a call's exit (--stats), %",
					"—", "(shown)", "—")
			}
		} else if (rw == "sqlite") {
			pk = g(rw, "pread", "ref")
			both(rw, "pread", "call_pt", 1, "sqlite3 indexed SELECTs (pread-bound): pread's share, %",
				"perf " cell(pk SUBSEP "call_perf", 1) " %", "± 10 points of perf",
				mark(near(g(rw, "pread", "after") SUBSEP "dcall_pt", 0, 10)))
			both(rw, "pread", "at_exit", 0, "sqlite3: samples stopped at a call's exit (--stats), %",
				"—", "(shown)", "—")
		} else if (rw == "alias") {
			for (ci = 1; ci <= 2; ci++) {
				c = ci == 1 ? "cpu" : "wall"
				pk = g(rw, c, "ref")
				both(rw, c, "split_pt", 0, "alias (5 ms slices locked to the clock), 100 Hz, " \
					(c == "cpu" ? "CPU mode" : "--wall") ": slice_a's share, %",
					"the target's own: " cell(pk SUBSEP "own_wall", 1) " % of the time" \
					(c == "cpu" ? ", " cell(pk SUBSEP "own_run", 1) " % of the time run" : ""),
					"50 ± 7", mark(near(g(rw, c, "after") SUBSEP "split_pt", 50, 7)))
			}
		} else if (rw == "1khz") {
			c = "1:100000:0:1000"
			both(rw, c, "stack_pct", 0, "1 busy thread, 1000 Hz: stacks per period of CPU time, %",
				"CPU time from /proc/PID/stat", "≥ 90", mark(atleast(g(rw, c, "after") SUBSEP "stack_pct", 90)))
			both(rw, c, "total_pct", 0, "1 busy thread, 1000 Hz: samples × period / CPU time, %",
				"CPU time from /proc/PID/stat", "100 ± 5", mark(near(g(rw, c, "after") SUBSEP "total_pct", 100, 5)))
		} else if (rw == "duty") {
			nt = split(meta["duty"], ts, " ")
			for (ti = 1; ti <= nt; ti++) {
				c = ts[ti]
				pk = g(rw, c, "ref")
				both(rw, c, "burn_pt", 1, "duty: " duty(c) ", " meta["duty_hz"] " Hz: burn_work's share, %",
					"perf " cell(pk SUBSEP "burn_perf", 1) " %; the program's own " cell(pk SUBSEP "own", 1) " %",
					"± 10 points of the program's own",
					mark(near(g(rw, c, "after") SUBSEP "oburn_pt", 0, 10)))
				both(rw, c, "sleep_pt", 1, "duty: " duty(c) ": clock_nanosleep's share, %",
					"perf " cell(pk SUBSEP "sleep_perf", 1) " %", "< 5",
					mark(below(g(rw, c, "after") SUBSEP "sleep_pt", 5)))
			}
		} else if (rw == "totals") {
			nt = split(meta["totals"], ts, " ")
			for (ti = 1; ti <= nt; ti++) {
				c = ts[ti]
				both(rw, c, "total_pct", 0, "CPU totals, bursts: " load(c) ": samples × period / CPU time, %",
					"CPU time from /proc/PID/stat", "100 ± 10", mark(near(g(rw, c, "after") SUBSEP "total_pct", 100, 10)))
			}
		}
	}
}
