# bench/services.awk - the "Real services against perf" part of the
# accuracy section of docs/PERFORMANCE.md, from a bench/accuracy.sh
# results dir (its service windows, measured by bench/services.sh).
#
#   awk -f stats.awk -f services.awk RUN/meta RUN/results.tsv
#
# A service window's line in results.tsv: service=S status=ok o_pt=...
# self=... ratio=... blk_pt=... blk_perf=... blk_diff=... top_pt=NAME:PCT
# top_perf=NAME:PCT n_pt=... n_perf=... kernel_perf=... load=... rep=N.
# Figures are medians over a service's successful windows with their
# range (stats.awk).  Plain POSIX awk (mawk).

function slabel(s) {
	if (("svc_what_" s) in meta)
		return s ": " meta["svc_what_" s]
	return s
}

# NAME:PCT (names with ~ for their spaces) as "`NAME` PCT %".
function top(x,   i, n, p) {
	i = 0
	while (match(substr(x, i + 1), /:/))
		i += RSTART
	if (!i)
		return x
	n = substr(x, 1, i - 1); p = substr(x, i + 1)
	gsub(/~/, " ", n)
	return "`" n "` " p " %"
}

base(FILENAME) == "results.tsv" {
	fields()
	if (!("service" in kv))
		next
	s = kv["service"]
	nrun[s]++
	if (kv["status"] != "ok") {
		why[s] = kv["status"]
		next
	}
	nok[s]++
	nk = split("o_pt self ratio blk_pt blk_perf n_pt n_perf kernel_perf switch_perf ratio_ns blk_perf_ns", keys, " ")
	for (i = 1; i <= nk; i++)
		add(s SUBSEP keys[i], kv[keys[i]])
	# substr() gives strings: +0 makes the comparisons numeric.
	d = kv["blk_diff"] + 0; if (d < 0) d = -d
	add(s SUBSEP "blk_abs", d)
	split(kv["load"], l, "/")
	add(s SUBSEP "load1", l[1])
	t = top(kv["top_pt"]) " / " top(kv["top_perf"])
	if (s in tops)
		tops[s] = tops[s] "; " t
	else
		tops[s] = t
	pass[s] += (kv["ratio"] + 0 >= 0.9 && d <= 10)
}

END {
	if ("unavailable" in meta || meta["services"] == "")
		exit
	ns = split(meta["services"], ss, " ")
	print "### Real services against perf (issue 26)"
	print ""
	print "- Method (bench/services.sh): the service and its load are started by the script" \
		" on 127.0.0.1 or a unix socket, left " meta["svc_warmup"] " s, then its whole process" \
		" tree is recorded over the same " meta["svc_secs"] " s by `ptprof -p ROOT --children -f " \
		meta["svc_hz"] (meta["ptprof_args"] != "" ? " " meta["ptprof_args"] : "") "` and `perf record -e cpu-clock -F " meta["svc_hz"] " -g -p ROOT,DESCENDANTS`." \
		"  Flat profiles by function as above (perf's kernel samples at their first user frame)."
	print "- **floor** = overlap(perf's odd samples, perf's even samples): perf against itself," \
		" the noise of a profile of this size.  The goal is overlap(ptprof, perf) ≥ 0.90 × floor" \
		" (**ratio**), and ptprof's share in blocking calls within 10 points of perf's (what" \
		" tests/service-redis.test and tests/service-postgres.test check)."
	print "- **Blocking calls**: " meta["svc_blocking"] " (libc's names; aliases such as" \
		" `__GI___libc_read` count as `read`)."
	print ""
	print "- **Without perf's switches**: the same against perf less its samples in the scheduler's" \
		" switch (a kernel frame `__schedule` or `finish_task_switch`: a thread going to sleep or" \
		" just woken), which perf charges to the call the thread sleeps in and no ptrace stop can" \
		" land in; ptprof spreads that CPU time over the stacks it takes while the thread runs" \
		" (ptprof(1), CPU mode).  The tests pass on either set of figures, provided ptprof is" \
		" not above perf in blocking calls by more than 10 points."
	print ""
	print "| service, load | windows ok | overlap(ptprof, perf) | floor | ratio | ≥ 0.90? | ptprof in blocking calls | perf in blocking calls | within 10 points? | both goals met | perf in switches | without them: ratio | without them: perf in blocking calls | top row ptprof / perf, each window | ptprof periods | perf samples | perf in kernel | load (1 min) |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= ns; i++) {
		s = ss[i]
		if (!(s in nok)) {
			printf "| %s | 0/%d | %s |||||||||||||||\n", slabel(s), nrun[s] + 0,
				(s in why) ? "failed: " why[s] : "not run"
			continue
		}
		r = median(vals[s SUBSEP "ratio"])
		b = median(vals[s SUBSEP "blk_abs"])
		printf "| %s | %d/%d | %s | %s | %s | %s | %s %% | %s %% | %s | %d/%d windows | %s %% | %s | %s %% | %s | %s | %s | %s %% | %s |\n",
			slabel(s), nok[s], nrun[s],
			mr(vals[s SUBSEP "o_pt"], 3), mr(vals[s SUBSEP "self"], 3),
			mr(vals[s SUBSEP "ratio"], 3), (r >= 0.9 ? "**yes**" : "no"),
			mr(vals[s SUBSEP "blk_pt"], 1), mr(vals[s SUBSEP "blk_perf"], 1),
			(b <= 10 ? "**yes**" : "no"), pass[s], nok[s],
			mr(vals[s SUBSEP "switch_perf"], 1), mr(vals[s SUBSEP "ratio_ns"], 3),
			mr(vals[s SUBSEP "blk_perf_ns"], 1), tops[s],
			mr(vals[s SUBSEP "n_pt"], 0), mr(vals[s SUBSEP "n_perf"], 0),
			mr(vals[s SUBSEP "kernel_perf"], 1), mr(vals[s SUBSEP "load1"], 2)
	}
	print ""
	print "The raw windows (flat profiles, shares per function with perf's two halves," \
		" every log) are in `bench/results/accuracy-*/svc-SERVICE.rN/`."
	print ""
}
