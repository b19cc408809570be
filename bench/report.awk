# bench/report.awk - docs/PERFORMANCE.md from a bench/run.sh results dir.
#
#   awk -f report.awk RUN/meta RUN/unavailable RUN/results.tsv RUN/snapshots.tsv
#
# meta and unavailable hold key=value lines; results.tsv and snapshots.tsv
# one run per line as space-separated key=value fields.  Every figure is
# the median over the successful repetitions of a configuration.  Plain
# POSIX awk (mawk): no asort, no length(array).

function base(f) { sub(/.*\//, "", f); return f }

function median(list,   a, n, i, j, t) {
	n = split(list, a, " ")
	if (n == 0)
		return ""
	for (i = 2; i <= n; i++) {
		t = a[i] + 0
		for (j = i - 1; j >= 1 && a[j] + 0 > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	return n % 2 ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}

function minmax(list,   a, n, i, lo, hi) {
	n = split(list, a, " ")
	if (n == 0)
		return ""
	lo = hi = a[1] + 0
	for (i = 2; i <= n; i++) {
		if (a[i] + 0 < lo) lo = a[i] + 0
		if (a[i] + 0 > hi) hi = a[i] + 0
	}
	return lo " " hi
}

function add(key, v) {
	if (v == "")
		return
	vals[key] = (key in vals) ? vals[key] " " v : v
}

function m(g, k) { return (g SUBSEP k) in vals ? median(vals[g SUBSEP k]) : "" }

function f(x, dec) {
	if (x == "")
		return "—"
	return sprintf("%." dec "f", x)
}

function ratio(a, b) {
	if (a == "" || b == "" || b + 0 <= 0)
		return ""
	return a / b
}

function fx(r) { return r == "" ? "—" : sprintf("%.2f×", r) }

# Ratio of two excesses over the baseline: meaningless unless both are
# above it.
function fxe(a, b) {
	if (a == "" || b == "")
		return "—"
	if (a < 0)
		return "below baseline"
	return fx(ratio(a, b))
}

# The excess ratio (a - c) / (b - c) as a number, "" when unknown; a
# profiler below the baseline counts as 0.
function xr(a, b, c) {
	if (a == "" || b == "" || c == "" || b - c <= 0)
		return ""
	return a < c ? 0 : (a - c) / (b - c)
}

function us(ns) { return ns == "" ? "" : ns / 1000 }

function tlabel(t,   b, i) {
	if (match(t, /^[0-9]+busy/)) {
		b = substr(t, 1, RLENGTH - 4)
		i = substr(t, RLENGTH + 1)
		sub(/idle$/, "", i)
		if (i != "" && i + 0 > 0)
			return b " busy + " i " idle threads"
		return b " busy thread" (b == 1 ? "" : "s")
	}
	return t
}

function plabel(p) {
	if (p == "none") return "no profiler"
	if (p == "floor") return "floor"
	if (p == "ptprof") return meta["have_wall"] == 1 ? "ptprof (CPU mode)" : "ptprof"
	if (p == "ptprof-wall") return "ptprof --wall"
	if (p == "ptprof-before") return "ptprof before (CPU mode)"
	if (p == "gperftools") return "gperftools"
	if (p == "perf") return "perf record -g"
	if (p == "perf-dwarf") return "perf record --call-graph=dwarf"
	return p
}

function runs(g,   s) {
	s = (g in nok ? nok[g] : 0) "/" ((g in nok ? nok[g] : 0) + (g in nfail ? nfail[g] : 0))
	return s
}

# Median over repetitions of the marginal CPU per sample between the
# lowest and highest rate: (cpu_hi - cpu_lo) / (samples_hi - samples_lo).
# The start-up cost (ELF parsing, first maps read) is the same in both and
# cancels: this is the warm-cache cost of one more thread-sample.
function marginal(t, p,   glo, ghi, r, list, ds) {
	glo = t "|" p "|" rlo
	ghi = t "|" p "|" rhi
	list = ""
	for (r = 1; r <= maxrep; r++) {
		if (!((glo SUBSEP r) in cpu) || !((ghi SUBSEP r) in cpu))
			continue
		ds = smp[ghi SUBSEP r] - smp[glo SUBSEP r]
		# Too few more samples at the high rate (ticks missed): the
		# difference would be noise.
		if (ds <= 0 || ds < 0.2 * smp[ghi SUBSEP r])
			continue
		list = list " " (cpu[ghi SUBSEP r] - cpu[glo SUBSEP r]) / ds
	}
	return median(list)
}

function verdict(r, lim) {
	if (r == "")
		return "n/a"
	return r <= lim ? "**yes**" : "no"
}

# The same for a figure that must reach lim.
function verdict_ge(r, lim) {
	if (r == "")
		return "n/a"
	return r >= lim ? "**yes**" : "no"
}

# A count of bytes, in B, KiB or MiB.
function fb(x) {
	if (x == "")
		return "—"
	if (x < 10240)
		return sprintf("%d B", x)
	if (x < 10485760)
		return sprintf("%.0f KiB", x / 1024)
	return sprintf("%.1f MiB", x / 1048576)
}

# A row of the Targets table: the median wall time of snapshot tool
# ref over tool's on 2 busy + 200 idle threads, at least 10×.
function snap_row(tool, ref, what,    a, b, r) {
	a = ((tI "|" tool) in snok) ? median(vals["snap" SUBSEP tI "|" tool SUBSEP "wall"]) : ""
	b = ((tI "|" ref) in snok) ? median(vals["snap" SUBSEP tI "|" ref SUBSEP "wall"]) : ""
	r = (a != "" && b != "" && a > 0) ? b / a : ""
	printf "| %s, %s | %s ms | (%s: %s ms) | — | %s | ≥ 10× | %s |\n",
		what, tlabel(tI), f(a, 1), ref, f(b, 1), r == "" ? "—" : sprintf("%.1f×", r), verdict_ge(r, 10)
}

# A row of the Targets table: ptprof's (group gp) excess stolen time
# over perf record -g's (gf), both over the baseline (gn), at most lim.
function excess_row(gp, gf, gn, label, lim,   a, b, c) {
	a = m(gp, "stolen_pct"); b = m(gf, "stolen_pct"); c = m(gn, "stolen_pct")
	printf "| excess stolen time over perf record -g's, %s | %s pp | (perf: %s pp) | %s %% | %s | ≤ %.1f× | %s |\n",
		label, (a != "" && c != "") ? f(a - c, 2) : "—", (b != "" && c != "") ? f(b - c, 2) : "—",
		f(c, 2), (a != "" && b != "" && c != "") ? fxe(a - c, b - c) : "—", lim, verdict(xr(a, b, c), lim)
}

base(FILENAME) == "meta" || base(FILENAME) == "unavailable" {
	i = index($0, "=")
	if (i == 0)
		next
	k = substr($0, 1, i - 1)
	v = substr($0, i + 1)
	if (base(FILENAME) == "meta")
		meta[k] = v
	else
		unav[k] = v
	next
}

{
	delete kv
	for (i = 1; i <= NF; i++) {
		j = index($i, "=")
		if (j)
			kv[substr($i, 1, j - 1)] = substr($i, j + 1)
	}
}

base(FILENAME) == "results.tsv" {
	g = kv["target"] "|" kv["prof"] "|" kv["hz"]
	if (kv["status"] != "ok") {
		nfail[g]++
		why[g] = kv["status"]
		next
	}
	nok[g]++
	if (kv["rep"] + 0 > maxrep)
		maxrep = kv["rep"] + 0
	nkeys = split("stolen_pct gap_p50_ns gap_p99_ns gap_max_ns gap_mean_ns ticks missed samples threads pause_mean_us pause_p50_us pause_p99_us pause_max_us unwind_p50_us cpu_us machine_busy_pct pause_thread_us bytes report_wall_us report_cpu_us perf_lost", keys, " ")
	for (i = 1; i <= nkeys; i++)
		add(g SUBSEP keys[i], kv[keys[i]])
	# The floor stops every thread at every tick: its pause per stopped
	# thread is its pause per tick over the threads it sampled a tick.
	if (kv["prof"] == "floor" && kv["samples"] + 0 > 0 && kv["pause_mean_us"] != "")
		add(g SUBSEP "pause_thread_us", kv["pause_mean_us"] * kv["ticks"] / kv["samples"])
	# ptprof --stats: the stop window by phase (run.sh parse_phases).
	for (k in kv)
		if (k ~ /^ph_/)
			add(g SUBSEP k, kv[k])
	if (kv["cpu_us"] != "" && kv["ticks"] + 0 > 0)
		add(g SUBSEP "us_per_tick", kv["cpu_us"] / kv["ticks"])
	# The threads a sampler stopped per tick: ptprof --stats' "threads
	# stopped", else its thread-samples (the floor stops every thread).
	nstop = kv["stopped"] != "" ? kv["stopped"] : kv["samples"]
	if (nstop != "" && kv["ticks"] + 0 > 0)
		add(g SUBSEP "stopped_per_tick", nstop / kv["ticks"])
	if (kv["bytes"] != "" && kv["samples"] + 0 > 0)
		add(g SUBSEP "bytes_per_sample", kv["bytes"] / kv["samples"])
	# perf's own CPU per sample (the kernel's work is in the target's
	# time); kept apart from the samplers' column, which compares with
	# the floor.
	if (kv["cpu_us"] != "" && kv["samples"] + 0 > 0 && kv["prof"] ~ /^perf/)
		add(g SUBSEP "perf_us_per_sample", kv["cpu_us"] / kv["samples"])
	if (kv["cpu_us"] != "" && kv["samples"] + 0 > 0 && kv["prof"] !~ /^perf/) {
		add(g SUBSEP "us_per_sample", kv["cpu_us"] / kv["samples"])
		cpu[g SUBSEP kv["rep"]] = kv["cpu_us"]
		smp[g SUBSEP kv["rep"]] = kv["samples"]
	}
	next
}

base(FILENAME) == "snapshots.tsv" {
	g = kv["target"] "|" kv["tool"]
	if (kv["ok"] != 1) {
		snfail[g]++
		next
	}
	snok[g]++
	add("snap" SUBSEP g SUBSEP "wall", kv["wall_us"] / 1000)
	add("snap" SUBSEP g SUBSEP "cpu", kv["cpu_us"] / 1000)
	add("snap" SUBSEP g SUBSEP "samples", kv["samples"])
	next
}

END {
	nt = split(meta["targets"], targets, " ")
	np = split(meta["profilers"], profs, " ")
	nr = split(meta["rates"], rates, " ")
	rlo = rates[1]; rhi = rates[1]
	for (i = 2; i <= nr; i++) {
		if (rates[i] + 0 < rlo + 0) rlo = rates[i]
		if (rates[i] + 0 > rhi + 0) rhi = rates[i]
	}
	pt = "ptprof"

	print "# ptprof performance"
	print ""
	print "Written by `make bench` (bench/run.sh; see bench/README.md for what each"
	print "number means and how to run it).  Do not edit by hand: run `make bench`"
	print "again (`BENCH_QUICK=1 make bench` for a 2-minute smoke run).  Only the"
	print "block between `<!-- by hand: begin -->` and its end, after the Targets"
	print "table (why a goal is not met), is written by hand; `make bench` keeps it."
	print ""
	print "- Date: " meta["date"] "; the whole run took " meta["elapsed_s"] " s."
	print "- Machine: " meta["nproc"] " CPUs (nproc), " meta["cpu_model"] "; " meta["kernel"] "; " meta["memory"] "."
	print "- Load average (1, 5, 15 min) at the start: " meta["load_start"] "; at the end: " meta["load_end"] "."
	print "- ptprof: " meta["ptprof_version"] " (git " meta["ptprof_git"] "); " \
		(meta["have_wall"] == 1 ? "default CPU mode and --wall" : "one mode (stops every thread; no --wall yet)") \
		(meta["have_stats"] == 1 ? "; run with --stats" : "") "."
	print "- Others: " meta["perf_version"] "; gperftools " meta["libprofiler"] \
		"; " meta["eu_stack_version"] "; " meta["gdb_version"] "."
	print "- Method: " meta["reps"] " interleaved repetitions of every configuration, each " \
		meta["secs"] " s measured after a " meta["warmup"] " s warm-up (for the profiler to attach); " \
		"medians.  Targets are bench/jitter spinning " meta["depth"] " calls deep.  Snapshots: median of " \
		meta["snap_reps"] " runs."
	if (meta["baseline"] != "")
		print "- ptprof before: " meta["baseline"] " (" meta["baseline_version"] "), run on " \
			tlabel(meta["before_target"]) " interleaved with the others (BENCH_BASELINE)."
	for (k in unav)
		print "- Unavailable: " k ": " unav[k] "."
	print ""

	# ---- The lead's targets -------------------------------------------
	t1 = "1busy"; tI = "2busy200idle"; h = "100"
	g_pt = t1 "|" pt "|" h; g_fl = t1 "|floor|" h; g_no = t1 "|none|-"
	print "## Targets"
	print ""
	# A loaded machine: 1 busy thread alone should keep 1/nproc of it busy.
	nb = m(g_no, "machine_busy_pct"); c = m(g_no, "stolen_pct")
	lim = 100 / (meta["nproc"] ? meta["nproc"] : 1) + 15
	if ((nb != "" && nb > lim) || (c != "" && c > 5)) {
		printf "**Warning: this machine was busy with other work during the run** (1 busy thread, no profiler: machine %s %% busy where about %.0f %% is expected, %s %% of the time stolen).  Stolen-time ratios mostly measure that noise, and pauses and CPU times are inflated by it; run `make bench` again on a quiet machine before quoting them.\n\n",
			f(nb, 0), 100 / (meta["nproc"] ? meta["nproc"] : 1), f(c, 2)
	}
	print "Ratios are ptprof's figure over the floor's, same target, same rate." \
		" \"Stolen\" is raw (nothing subtracted); the no-profiler baseline and" \
		" the ratio of the excess over it are shown beside it.  The stolen-time" \
		" targets are judged on the excess: on a shared VM the baseline alone" \
		" (time the target loses with no profiler at all) can be more than a" \
		" tenth of the floor's, so no profiler could meet a raw 0.1×."
	print ""
	print "| check | ptprof | floor | no profiler | ratio | target | met? |"
	print "|---|---|---|---|---|---|---|"
	a = m(g_pt, "stolen_pct"); b = m(g_fl, "stolen_pct"); c = m(g_no, "stolen_pct")
	r = ratio(a, b)
	ex = (a != "" && b != "" && c != "") ? fxe(a - c, b - c) : "—"
	printf "| stolen time, 1 busy thread, 100 Hz | %s %% | %s %% | %s %% | %s (excess: %s) | ≤ 1.0× (excess) | %s |\n",
		f(a, 2), f(b, 2), f(c, 2), fx(r), ex, verdict(xr(a, b, c), 1.0)
	g_ptI = tI "|" pt "|" h; g_flI = tI "|floor|" h; g_noI = tI "|none|-"
	a = m(g_ptI, "stolen_pct"); b = m(g_flI, "stolen_pct"); c = m(g_noI, "stolen_pct")
	r = ratio(a, b)
	ex = (a != "" && b != "" && c != "") ? fxe(a - c, b - c) : "—"
	printf "| stolen time, 2 busy + 200 idle threads, 100 Hz, %s | %s %% | %s %% | %s %% | %s (excess: %s) | ≤ 0.1× (excess) | %s |\n",
		(meta["have_wall"] == 1 ? "CPU mode" : "only mode (stops all)"),
		f(a, 2), f(b, 2), f(c, 2), fx(r), ex, verdict(xr(a, b, c), 0.1)
	# The baseline binary (BENCH_BASELINE), same runs interleaved.
	if (meta["baseline"] != "") {
		# On the target it ran on, against that target's goal.
		bt = meta["before_target"] != "" ? meta["before_target"] : t1
		lim = bt == tI ? 0.1 : 1.0
		g_bf = bt "|ptprof-before|" h
		a = m(g_bf, "stolen_pct"); b = m(bt "|floor|" h, "stolen_pct")
		c = m(bt "|none|-", "stolen_pct")
		ex = (a != "" && b != "" && c != "") ? fxe(a - c, b - c) : "—"
		printf "| stolen time, %s, 100 Hz, ptprof before (%s) | %s %% | %s %% | %s %% | %s (excess: %s) | ≤ %.1f× (excess) | %s |\n",
			tlabel(bt), meta["baseline_version"], f(a, 2), f(b, 2), f(c, 2),
			fx(ratio(a, b)), ex, lim, verdict(xr(a, b, c), lim)
	}
	a = m(g_pt, "pause_mean_us"); b = m(g_fl, "pause_mean_us")
	r = ratio(a, b)
	printf "| mean pause per tick, 1 busy thread, 100 Hz (own report) | %s µs | %s µs | — | %s | ≤ 1.2× | %s |\n",
		f(a, 0), f(b, 0), fx(r), verdict(r, 1.2)
	a = m(g_pt, "pause_thread_us"); b = m(g_fl, "pause_thread_us")
	r = ratio(a, b)
	printf "| mean pause per stopped thread, 1 busy thread, 100 Hz (own report) | %s µs | %s µs | — | %s | ≤ 0.6× | %s |\n",
		f(a, 1), f(b, 1), fx(r), verdict(r, 0.6)
	# Against perf record -g (issues 17 and 30): the excess stolen time
	# of each over the no-profiler baseline, every target at every rate;
	# on 1 busy thread at 100 Hz, at or below perf's.
	for (ti = 1; ti <= nt; ti++) {
		for (ri = 1; ri <= nr; ri++) {
			tt = targets[ti]; hh = rates[ri]
			excess_row(tt "|" pt "|" hh, tt "|perf|" hh, tt "|none|-",
				tlabel(tt) ", " hh " Hz", 1.5)
		}
	}
	excess_row(g_pt, t1 "|perf|" h, g_no, tlabel(t1) ", " h " Hz, at or below perf's", 1.0)
	a = us(m(g_pt, "gap_mean_ns")); b = us(m(g_fl, "gap_mean_ns")); c = us(m(g_no, "gap_mean_ns"))
	r = ratio(a, b)
	printf "| mean gap seen by the target, 1 busy thread, 100 Hz (jitter) | %s µs | %s µs | %s µs | %s | (≤ 1.2×) | %s |\n",
		f(a, 1), f(b, 1), f(c, 1), fx(r), verdict(r, 1.2)
	gh = t1 "|" pt "|" rhi
	a = m(gh, "unwind_p50_us")
	printf "| one unwind from the stack copy, 1 busy thread, %s Hz (ptprof --stats, median) | %s µs | (does not unwind) | — | — | ≤ 30 µs | %s |\n",
		rhi, f(a, 0), verdict(a, 30)
	a = marginal(t1, pt); b = marginal(t1, "floor")
	printf "| ptprof CPU per thread-sample, 1 busy thread, warm (marginal %s vs %s Hz) | %s µs | %s µs | — | %s | ≤ 30 µs | %s |\n",
		rhi, rlo, f(a, 1), f(b, 1), fx(ratio(a, b)), verdict(a, 30)
	a = m(gh, "us_per_sample"); b = m(t1 "|floor|" rhi, "us_per_sample")
	printf "| ptprof CPU per thread-sample, 1 busy thread, %s Hz (total / samples, start-up included) | %s µs | %s µs | — | %s | (≤ 30 µs) | %s |\n",
		rhi, f(a, 1), f(b, 1), fx(ratio(a, b)), verdict(a, 30)
	# Issue 30: ptprof's CPU per tick against what the floor spends
	# stopping as many threads (its CPU per stopped thread times the
	# threads ptprof stopped per tick), every target at every rate.
	for (ti = 1; ti <= nt; ti++) {
		for (ri = 1; ri <= nr; ri++) {
			tt = targets[ti]; hh = rates[ri]
			a = m(tt "|" pt "|" hh, "us_per_tick"); sp = m(tt "|" pt "|" hh, "stopped_per_tick")
			b = m(tt "|floor|" hh, "us_per_sample")
			r = (b != "" && sp != "") ? ratio(a, b * sp) : ""
			printf "| ptprof CPU per tick over the floor's for as many stopped threads, %s, %s Hz | %s µs | %s µs per stopped thread × %s = %s µs | — | %s | ≤ 1.5× | %s |\n",
				tlabel(tt), hh, f(a, 0), f(b, 1), f(sp, 2), (b != "" && sp != "") ? f(b * sp, 0) : "—",
				fx(r), verdict(r, 1.5)
		}
	}
	# Issue 30: ptprof dump at least 10 times as fast as eu-stack on 2
	# busy + 200 idle threads (wall time, medians), like for like: dump
	# names inlined frames as eu-stack -i does (the target), dump
	# --no-inline names none, as eu-stack without -i.
	snap_row("ptprof-dump", "eu-stack-i", "eu-stack -i's wall time over ptprof dump's (both name inlined frames)")
	snap_row("ptprof-dump-noinline", "eu-stack", "eu-stack's wall time over ptprof dump --no-inline's (neither names inlined frames)")
	print ""

	# ---- Per-target tables -----------------------------------------------
	for (ti = 1; ti <= nt; ti++) {
		t = targets[ti]
		print "## " tlabel(t)
		print ""
		print "Seen by the target (bench/jitter; gaps are the pauses its busy threads saw):"
		print ""
		print "| profiler | Hz | stolen % | × floor | excess over baseline (pp) | excess × floor | gap p50 µs | gap p99 µs | gap max µs | gap mean µs | machine busy % | runs ok |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|"
		base0 = m(t "|none|-", "stolen_pct")
		for (pi = 1; pi <= np; pi++) {
			p = profs[pi]
			if (p == "ptprof-before" && t != meta["before_target"])
				continue
			if (p in unav) {
				printf "| %s | — | unavailable: %s ||||||||||\n", plabel(p), unav[p]
				continue
			}
			for (ri = 1; ri <= (p == "none" ? 1 : nr); ri++) {
				hz = p == "none" ? "-" : rates[ri]
				g = t "|" p "|" hz
				if (!(g in nok)) {
					printf "| %s | %s | %s ||||||||||\n", plabel(p), hz == "-" ? "—" : hz,
						(g in nfail) ? "failed: " why[g] : "not run"
					continue
				}
				s = m(g, "stolen_pct")
				fs = m(t "|floor|" hz, "stolen_pct")
				exs = (s != "" && base0 != "") ? s - base0 : ""
				exf = (fs != "" && base0 != "") ? fs - base0 : ""
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
					plabel(p), hz == "-" ? "—" : hz, f(s, 2),
					p == "none" ? "—" : (p == "floor" ? "(floor)" : fx(ratio(s, fs))),
					p == "none" ? "(baseline)" : f(exs, 2),
					(p == "none" || p == "floor") ? "—" : fxe(exs, exf),
					f(us(m(g, "gap_p50_ns")), 1), f(us(m(g, "gap_p99_ns")), 1),
					f(us(m(g, "gap_max_ns")), 0), f(us(m(g, "gap_mean_ns")), 1),
					f(m(g, "machine_busy_pct"), 0), runs(g)
			}
		}
		print ""
		print "Seen by the profiler (its own summary line; CPU is its process's user+system time):"
		print ""
		print "| profiler | Hz | ticks (missed) | thread-samples | pause mean µs | × floor | pause p50 µs | pause p99 µs | pause max µs | CPU ms | CPU µs / tick | CPU µs / sample | × floor | warm µs / sample |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		for (pi = 1; pi <= np; pi++) {
			p = profs[pi]
			if (p == "none" || p in unav)
				continue
			for (ri = 1; ri <= nr; ri++) {
				hz = rates[ri]
				g = t "|" p "|" hz
				gf = t "|floor|" hz
				if (!(g in nok))
					continue
				sampler = p == "floor" || p ~ /^ptprof/
				tk = m(g, "ticks")
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
					plabel(p), hz,
					tk == "" ? "—" : f(tk, 0) " (" f(m(g, "missed"), 0) ")",
					f(m(g, "samples"), 0),
					f(m(g, "pause_mean_us"), 0),
					!sampler ? "—" : (p == "floor" ? "(floor)" : fx(ratio(m(g, "pause_mean_us"), m(gf, "pause_mean_us")))),
					f(m(g, "pause_p50_us"), 0), f(m(g, "pause_p99_us"), 0), f(m(g, "pause_max_us"), 0),
					p == "gperftools" ? "in-process" : f(m(g, "cpu_us") / 1000, 1),
					f(m(g, "us_per_tick"), 0),
					f(m(g, "us_per_sample"), 1),
					!sampler ? "—" : (p == "floor" ? "(floor)" : fx(ratio(m(g, "us_per_sample"), m(gf, "us_per_sample")))),
					(sampler && ri == nr && nr > 1) ? f(marginal(t, p), 1) : "—"
			}
		}
		print ""
	}

	# ---- Against perf record --call-graph=dwarf (issue 30) -----------------
	hdr = 0
	for (ti = 1; ti <= nt; ti++) {
		for (ri = 1; ri <= nr; ri++) {
			t = targets[ti]; hz = rates[ri]
			base0 = m(t "|none|-", "stolen_pct")
			pfx = m(t "|perf|" hz, "stolen_pct")
			ptr = m(t "|" pt "|" hz, "report_wall_us")
			for (pi = 1; pi <= 3; pi++) {
				p = pi == 1 ? pt : (pi == 2 ? "perf" : "perf-dwarf")
				g = t "|" p "|" hz
				if (!(g in nok))
					continue
				if (!hdr++) {
					print "## ptprof against perf record --call-graph=dwarf"
					print ""
					print "perf's two modes beside ptprof's default mode, same runs: the target's loss" \
						" (excess stolen time over the no-profiler baseline, and its ratio to perf record -g's)," \
						" the profiler's own CPU (perf: the perf process alone, start-up and writing included;" \
						" the kernel's sampling work is in the target's time), the bytes it wrote per sample" \
						" (ptprof: its profile, `-o X.prof`, addresses only; perf: perf.data, which with" \
						" --call-graph=dwarf holds each sample's registers and " \
						(meta["perf_dwarf_opts"] ~ /dwarf,/ ? "the stack bytes asked for" : "8 KiB of its stack") \
						"), and the wall and CPU time of its report on that file of the same run" \
						" (`ptprof report X.prof`, which opens the binaries and names every address;" \
						" `perf report --stdio -i X.data`, which with --call-graph=dwarf also unwinds every stack)." \
						" perf-dwarf: `perf record " meta["perf_dwarf_opts"] "`; lost: chunks perf report says were lost."
					print ""
					print "| target | Hz | profiler | excess stolen pp | × perf -g | CPU ms | CPU µs / sample | samples | written | bytes / sample | report wall s | report CPU s | report × ptprof's | lost | runs ok |"
					print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
				}
				s = m(g, "stolen_pct")
				exs = (s != "" && base0 != "") ? s - base0 : ""
				exf = (pfx != "" && base0 != "") ? pfx - base0 : ""
				rw = m(g, "report_wall_us")
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
					tlabel(t), hz, plabel(p), f(exs, 2),
					p == "perf" ? "(perf -g)" : fxe(exs, exf),
					f(m(g, "cpu_us") / 1000, 1),
					f(p ~ /^perf/ ? m(g, "perf_us_per_sample") : m(g, "us_per_sample"), 1),
					f(m(g, "samples"), 0), fb(m(g, "bytes")), f(m(g, "bytes_per_sample"), 0),
					f(rw == "" ? "" : rw / 1e6, 2),
					f(m(g, "report_cpu_us") == "" ? "" : m(g, "report_cpu_us") / 1e6, 2),
					p == pt ? "(ptprof)" : fx(ratio(rw, ptr)),
					p ~ /^perf/ ? f(m(g, "perf_lost"), 0) : "—", runs(g)
			}
		}
	}
	if (hdr)
		print ""

	# ---- ptprof's stop window by phase (--stats) ---------------------------
	nph = split("stop regs stack py seccomp detach held whole", phs, " ")
	hdr = 0
	for (ti = 1; ti <= nt; ti++) {
		for (pi = 1; pi <= np; pi++) {
			p = profs[pi]
			if (p !~ /^ptprof/)
				continue
			for (ri = 1; ri <= nr; ri++) {
				g = targets[ti] "|" p "|" rates[ri]
				if (!(g in nok) || m(g, "ph_whole_mean") == "")
					continue
				if (!hdr++) {
					print "## ptprof's stop window by phase"
					print ""
					print "Per stopped thread, mean / p50 in µs, from ptprof --stats (ptprof(1)): interrupt to stop reaped," \
						" PTRACE_GETREGS, the stack copy (and its bytes, mean), Python frames, the seccomp guard," \
						" PTRACE_DETACH, held (stop reaped to detach) and whole (interrupt to detach); the floor's" \
						" whole pause per stopped thread beside it; the ticks that spun for their stops, and the stops reaped so."
					print ""
					print "| profiler | target | Hz | stop | GETREGS | stack copy | bytes | Python | seccomp | detach | held | whole | floor | spun (hits) |"
					print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
				}
				printf "| %s | %s | %s |", plabel(p), tlabel(targets[ti]), rates[ri]
				for (k = 1; k <= nph; k++) {
					printf " %s / %s |", f(m(g, "ph_" phs[k] "_mean"), 1), f(m(g, "ph_" phs[k] "_p50"), 1)
					if (phs[k] == "stack")
						printf " %s |", f(m(g, "ph_bytes"), 0)
				}
				printf " %s | %s (%s) |\n", f(m(targets[ti] "|floor|" rates[ri], "pause_thread_us"), 1),
					f(m(g, "ph_spun"), 0), f(m(g, "ph_spin_hits"), 0)
			}
		}
	}
	if (hdr)
		print ""

	# ---- Snapshots ---------------------------------------------------------
	ns = split(meta["snap_targets"], st, " ")
	nk = split(meta["snap_tools"], tools, " ")
	print "## One-shot snapshots"
	print ""
	print "Wall time of one command that attaches, captures every thread's stack once and" \
		" detaches (ptprof-dump: `ptprof dump -p PID`, stacks symbolized and printed, as" \
		" the others do, inlined functions named as frames of their own;" \
		" ptprof-dump-noinline: the same with --no-inline; -before: the BENCH_BASELINE binary's;" \
		" ptprof: `ptprof -p PID -f 1 -d 0.001`, one tick written to a profile," \
		" no symbols; eu-stack: eu-stack -p PID; eu-stack-i: eu-stack -i -p PID, inlined frames named;" \
		" gdb -p PID -batch -ex 'thread apply all bt', inlined frames named)." \
		"  CPU is the command's own user+system time." \
		" The last two columns are eu-stack's and eu-stack -i's median wall time over the tool's:" \
		" compare a tool that names inlined frames with eu-stack -i, one that does not with eu-stack."
	print ""
	print "| tool | target | wall ms median | wall ms min–max | CPU ms median | thread-samples | runs ok | eu-stack ÷ tool | eu-stack -i ÷ tool |"
	print "|---|---|---|---|---|---|---|---|---|"
	for (si = 1; si <= ns; si++) {
		for (ki = 1; ki <= nk; ki++) {
			g = st[si] "|" tools[ki]
			if (tools[ki] in unav) {
				printf "| %s | %s | unavailable: %s ||||||\n", tools[ki], tlabel(st[si]), unav[tools[ki]]
				continue
			}
			if (!(g in snok)) {
				printf "| %s | %s | failed |||| 0/%d |||\n", tools[ki], tlabel(st[si]), (g in snfail) ? snfail[g] : 0
				continue
			}
			mm = minmax(vals["snap" SUBSEP g SUBSEP "wall"])
			split(mm, lh, " ")
			ge = st[si] "|eu-stack"
			ew = (ge in snok) ? median(vals["snap" SUBSEP ge SUBSEP "wall"]) : ""
			ge = st[si] "|eu-stack-i"
			ei = (ge in snok) ? median(vals["snap" SUBSEP ge SUBSEP "wall"]) : ""
			tw = median(vals["snap" SUBSEP g SUBSEP "wall"])
			printf "| %s | %s | %s | %s–%s | %s | %s | %d/%d | %s | %s |\n", tools[ki], tlabel(st[si]),
				f(tw, 1), f(lh[1], 1), f(lh[2], 1),
				f(median(vals["snap" SUBSEP g SUBSEP "cpu"]), 1),
				("snap" SUBSEP g SUBSEP "samples") in vals ? f(median(vals["snap" SUBSEP g SUBSEP "samples"]), 0) : "—",
				snok[g], snok[g] + ((g in snfail) ? snfail[g] : 0),
				(ew != "" && tw > 0) ? sprintf("%.1f×", ew / tw) : "—",
				(ei != "" && tw > 0) ? sprintf("%.1f×", ei / tw) : "—"
		}
	}
	print ""
	nf = 0
	for (g in nfail) {
		if (!nf++) {
			print "## Failed runs"
			print ""
		}
		split(g, parts, "|")
		printf "- %s, %s at %s Hz: %d failed (last: %s); see the logs of the results dir.\n",
			tlabel(parts[1]), plabel(parts[2]), parts[3], nfail[g], why[g]
	}
	if (nf)
		print ""
	print "## Reading the numbers"
	print ""
	print "- **stolen %**: share of the measured window the target's busy threads did not run" \
		" (sum of gaps over " "2 µs between two clock readings / window, mean over busy threads)." \
		" It includes the machine's own noise (no-profiler row): on a shared VM that can" \
		" dominate, hence the excess column."
	print "- **gap p50/p99/max/mean**: the pauses the target saw, over every gap of every busy thread."
	print "- **machine busy %**: the whole machine's non-idle CPU time (/proc/stat) over the run," \
		" target and profiler included (100 % = all " meta["nproc"] " CPUs): with 1 busy thread and no" \
		" profiler, anything above " sprintf("%.0f", 100 / (meta["nproc"] ? meta["nproc"] : 1)) \
		" % is other load on the machine."
	print "- **pause** (profiler's view): from the first PTRACE_INTERRUPT of a tick to its last" \
		" detach, as ptprof and the floor measure it themselves."
	print "- **CPU µs / sample**: the profiler's user+system CPU time for the whole run (attach," \
		" start-up and writing included) divided by the thread-samples it took" \
		" (**CPU µs / tick**: by the ticks)." \
		" **warm µs / sample** is the marginal cost, (CPU at " rhi " Hz − CPU at " rlo " Hz) /" \
		" (samples at " rhi " Hz − samples at " rlo " Hz), paired by repetition: start-up cancels."
	print "- **floor**: bench/floor, which does only list / seize / interrupt / wait /" \
		" GETREGS / detach each tick: the least any stop-the-world ptrace sampler can cost."
	print "- gperftools samples in-process (SIGPROF per thread CPU time, no ptrace); perf samples" \
		" in the kernel (its CPU column is the perf process only, start-up and writing included;" \
		" no per-sample figure here: *ptprof against perf record --call-graph=dwarf* gives perf's)."
}
