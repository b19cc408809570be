# bench/procs.awk - the "Process trees" section of docs/PERFORMANCE.md from
# a bench/procs.sh results dir.
#
#   awk -f stats.awk -f procs.awk RUN/meta RUN/results.tsv
#
# meta holds key=value lines; results.tsv one run per line as
# space-separated key=value fields (row, case, rep, status, figures).
# Cells are medians with (min–max) over the repetitions; ratios are paired
# by repetition (the configurations of one repetition ran one after the
# other) before the median is taken.  Plain POSIX awk (mawk).

function cell(key, dec) { return (key in vals) ? mr(vals[key], dec) : "—" }

# The value of figure k of (row, case) in repetition r, or "".
function at(row, c, r, k) { return (row SUBSEP c SUBSEP r SUBSEP k) in one ? one[row, c, r, k] : "" }

# Paired ratios (scaled by mul) or differences (mul = "diff") of figure k,
# case a over case b, one per repetition where both ran: a list.
function paired(row, a, b, k, mul,   r, x, y, l) {
	l = ""
	for (r = 1; r <= meta["reps"]; r++) {
		x = at(row, a, r, k)
		y = at(row, b, r, k)
		if (x == "" || y == "")
			continue
		if (mul == "diff")
			l = l " " sprintf("%.3f", x - y)
		else if (y > 0)
			l = l " " sprintf("%.3f", x * mul / y)
	}
	return l
}

# A case that never ran: its table row says "failed: why (n of reps)"
# after the cells what and cmd, then ncells empty cells; true if so.
function failed_row(row, c, what, cmd, ncells,   i) {
	if ((row SUBSEP c SUBSEP "ok") in vals || !((row SUBSEP c) in nfail))
		return 0
	printf "| %s | %s | failed: %s (%d of %d) |", what, cmd,
		substr(why[row, c], index(why[row, c], ":") + 1), nfail[row, c], meta["reps"]
	for (i = 0; i < ncells; i++)
		printf " |"
	print ""
	return 1
}

function scaled(list, div,   a, n, i, l) {
	n = split(list, a, " ")
	l = ""
	for (i = 1; i <= n; i++)
		l = l " " a[i] / div
	return l
}

function idle_row(c, what, cmd,   k, t) {
	if (failed_row("idle", c, what, cmd, 8))
		return
	k = "idle" SUBSEP c SUBSEP
	t = cell(k "threads", 0)
	if ((k "processes") in vals)
		t = t " in " cell(k "processes", 0)
	printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", what, cmd,
		cell(k "stolen_pct", 2),
		c == "none" ? "—" : ((k "excess") in vals ? mr(vals[k "excess"], 2) : "—"),
		cell(k "cpu_per_tick_us", 1), cell(k "ticks", 0), cell(k "pause_mean_us", 0),
		t, cell(k "attach_ms", 0), cell(k "busy_pct", 1), cell(k "load", 2)
}

function build_row(c, what, cmd,   k, s, u) {
	if (failed_row("build", c, what, cmd, 6))
		return
	k = "build" SUBSEP c SUBSEP
	s = paired("build", c, "none", "wall_us", 1)
	u = paired("build", c, "none", "cpu_us", 1)
	printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", what, cmd,
		(k "wall_us") in vals ? mr(scaled(vals[k "wall_us"], 1e6), 2) : "—",
		c == "none" ? "1" : (s != "" ? mr(s, 2) : "—"),
		(k "cpu_us") in vals ? mr(scaled(vals[k "cpu_us"], 1e6), 2) : "—",
		c == "none" ? "1" : (u != "" ? mr(u, 2) : "—"),
		cell(k "samples", 0), cell(k "busy_pct", 1), cell(k "load", 2)
}

{
	fields()
	key = kv["row"] SUBSEP kv["case"]
	if (failed_line(key))
		next
	add(key SUBSEP "ok", 1)
	for (k in kv)
		if (k !~ /^(row|case|rep|status)$/ && kv[k] != "") {
			add(key SUBSEP k, kv[k])
			one[kv["row"], kv["case"], kv["rep"], k] = kv[k]
		}
}

END {
	for (r = 1; r <= meta["reps"]; r++)
		for (ci = 1; ci <= 2; ci++) {
			c = ci == 1 ? "alone" : "siblings"
			if (at("idle", c, r, "stolen_pct") != "" && at("idle", "none", r, "stolen_pct") != "")
				add("idle" SUBSEP c SUBSEP "excess", at("idle", c, r, "stolen_pct") - at("idle", "none", r, "stolen_pct"))
		}
	section_head("Process trees", "bench/procs.sh", "bench-procs")
	print "- ptprof: " meta["ptprof_version"] " (git " meta["ptprof_git"] ")" \
		(meta["ptprof"] !~ /\/src\/ptprof$/ ? ", binary " meta["ptprof"] : "") "; " meta["perf_version"] \
		"; " meta["cc_version"] "."
	if (meta["quick"] == 1)
		print "- **A quick run (BENCH_QUICK=1)**: " meta["reps"] " repetition(s), " meta["secs"] \
			" s windows; a smoke run, not figures to quote."
	split(meta["load_start"], ls, " ")
	split(meta["load_end"], le, " ")
	b = ("idle" SUBSEP "none" SUBSEP "busy_pct") in vals ? median(vals["idle" SUBSEP "none" SUBSEP "busy_pct"]) : ""
	if (ls[1] + 0 >= meta["nproc"] / 2 || le[1] + 0 >= meta["nproc"] || (b != "" && b > 100 / meta["nproc"] + 10))
		print "- **The machine was loaded by other work**: load average " ls[1] " at the start, " le[1] \
			" at the end" (b != "" ? "; " sprintf("%.0f", b) " % busy during jitter's runs without a" \
			" profiler, where jitter alone makes " sprintf("%.0f", 100 / meta["nproc"]) " %" : "") \
			".  Its noise is in every figure; compare rows of one run only."
	print "- Method: " meta["reps"] " repetition(s); in each, every configuration of a row runs in turn," \
		" the order rotating from one repetition to the next; medians with (min–max) over the" \
		" repetitions, ratios paired by repetition.  *Machine busy %* is the whole machine's non-idle" \
		" CPU during the run (/proc/stat) and *load* the 1-minute load average at its end: with one" \
		" busy thread on " meta["nproc"] " CPUs and nothing else, busy would be " \
		sprintf("%.0f", 100 / meta["nproc"]) " %."
	if (index(" " meta["rows"] " ", " idle "))
		idle_section()
	if (index(" " meta["rows"] " ", " build "))
		build_section()
}

function idle_section(   s) {
	print ""
	print "### Idle siblings"
	print ""
	print "`bench/jitter -b 1 -d " meta["secs"] " -w " meta["warmup"] "` (one busy thread that measures" \
		" the time stolen from it: the sum of its gaps over 2 µs during the " meta["secs"] " s window," \
		" after a " meta["warmup"] " s warm-up for the profiler to attach) with no profiler, profiled" \
		" alone, and profiled with `bench/idlers " meta["idlers"] " " meta["idle_threads"] "` (" meta["idlers"] \
		" processes of " meta["idle_threads"] " threads each, all blocked: the main thread in pause()," \
		" the others on a condition variable) in the same set.  ptprof runs at " meta["hz"] " Hz with" \
		" `--stats` under bench/cputime, and is stopped (SIGINT) when jitter is done; *CPU µs / tick*" \
		" is its user + system CPU time for the whole run (attaching and writing included) over its" \
		" ticks.  *Until sampling* is the time from ptprof's start to its first wait for a tick, seen" \
		" from outside; the warm-up has to cover it."
	if ("unavailable_siblings" in meta)
		print "\n**The row with idle siblings was not measured:** " meta["unavailable_siblings"] "."
	print ""
	print "| row | command | stolen % | excess over no profiler, points | ptprof CPU µs / tick | ticks | pause mean µs | threads (in processes) | until sampling, ms | machine busy % | load |"
	print "|---|---|---|---|---|---|---|---|---|---|---|"
	idle_row("none", "(a) no profiler", "`jitter -b 1`")
	idle_row("alone", "(b) profiled alone", "`ptprof -p JPID -f " meta["hz"] " --stats`")
	if (!("unavailable_siblings" in meta))
		idle_row("siblings", "(c) with " meta["idlers"] " idle siblings", \
			"`ptprof -p JPID,P1,...,P" meta["idlers"] " -f " meta["hz"] " --stats`")
	if ("unavailable_siblings" in meta)
		return
	print ""
	print "| measure | median (min–max) | goal | met? |"
	print "|---|---|---|---|"
	s = paired("idle", "siblings", "alone", "stolen_pct", 1)
	printf "| stolen %%, (c) / (b) | %s | ≤ 1.2 | %s |\n", s != "" ? mr(s, 2) : "—",
		s == "" ? "—" : (median(s) <= 1.2 ? "**yes**" : "no")
	s = paired("idle", "siblings", "alone", "stolen_pct", "diff")
	printf "| stolen %%, (c) − (b), points | %s | (shown) | — |\n", s != "" ? mr(s, 2) : "—"
	s = paired("idle", "siblings", "alone", "cpu_per_tick_us", 1)
	printf "| ptprof CPU per tick, (c) / (b) | %s | (shown) | — |\n", s != "" ? mr(s, 2) : "—"
}

function build_section(   h) {
	print ""
	print "### A real build"
	print ""
	print "`make -j" meta["jobs"] "` of a copy of ptprof's `src/` (" meta["build_files"] " files; a plain" \
		" Makefile, `cc -O2 -I. -c` each, no link; `pprof_out.c` and `pprof_read.c`, which need" \
		" generated headers, left out), `make clean` before each run and one unmeasured build first," \
		" to warm the caches.  Wall and CPU time (user + system of the command and every process it" \
		" waited for, the compilers included) from bench/cputime; the slowdown is the wall time over" \
		" the same repetition's build without a profiler, *CPU ×* the same for CPU time (steadier than" \
		" wall time on a loaded machine: it includes the profiler's own CPU time, not the waits for" \
		" other work).  perf runs with `--no-buildid-cache` (nothing" \
		" written under ~/.debug)."
	if (meta["have_children"] == 1)
		print "\nptprof: children followed (its --help lists `--children`; a launched command's" \
			" descendants are followed by default)."
	else {
		h = meta["help_children"]
		sub(/\.$/, "", h)
		print "\nptprof: **make alone**: this ptprof does not follow children; its --help says: \"" \
			h ".\"  Its row measures the cost of sampling make, not the compilers."
	}
	if ("unavailable_perf" in meta)
		print "\n**perf record not measured:** " meta["unavailable_perf"] "."
	print ""
	print "| row | command | wall s | slowdown × | CPU s | CPU × | samples | machine busy % | load |"
	print "|---|---|---|---|---|---|---|---|---|"
	build_row("none", "(a) no profiler", "`make -j" meta["jobs"] "`")
	build_row("ptprof", "(b) ptprof", "`ptprof -f " meta["hz"] " -o X.pb.gz -- make -j" meta["jobs"] "`")
	if (!("unavailable_perf" in meta))
		build_row("perf", "(c) perf record", "`perf record -g -F " meta["hz"] " -o X.data -- make -j" meta["jobs"] "`")
}
