# bench/accuracy.awk - the "Accuracy against perf" section of
# docs/PERFORMANCE.md from a bench/accuracy.sh results dir.
#
#   awk -f stats.awk -f accuracy.awk RUN/meta RUN/results.tsv [RUN/W.rN/shares.tsv...]
#
# meta holds key=value lines; results.tsv one window per line as
# space-separated key=value fields; a shares.tsv is "key label ptprof
# perfA perfB" (shares as fractions) for one window.  Figures are medians
# over a workload's successful windows, with their range (stats.awk).
# Plain POSIX awk (mawk).

function wlabel(w) {
	if (w == "xz") return "xz -T2 -6 (" meta["xz_mb"] " MB generated text-like input)"
	if (w == "python") return "python3 loop (bench/accuracy_work.py)"
	if (w == "perl") return "perl loop (in bench/accuracy.sh)"
	if (w == "sqlite") return "sqlite3 indexed SELECTs, 400-page cache (pread-bound)"
	return w
}

function pct(x) { return sprintf("%.1f", 100 * x) }

base(FILENAME) == "results.tsv" {
	fields()
	w = kv["workload"]
	nrun[w]++
	if (kv["status"] != "ok") {
		why[w] = kv["status"]
		next
	}
	nok[w]++
	nk = split("o_pt_a o_a_b o_pt_b ratio noise_ratio kernel_a nosym_pt n_pt n_a n_b funcs", keys, " ")
	for (i = 1; i <= nk; i++)
		add(w SUBSEP keys[i], kv[keys[i]])
	split(kv["load"], l, "/")
	add(w SUBSEP "load1", l[1])
	ratio_of[w, kv["rep"]] = kv["ratio"]
	next
}

# shares.tsv of RUN/W.rN: kept per window, printed for the median one.
{
	d = FILENAME
	sub(/\/shares\.tsv$/, "", d)
	d = base(d)
	nsh[d]++
	split($0, t, "\t")
	sh[d, nsh[d]] = t[2] "\t" t[3] "\t" t[4] "\t" t[5]
}

END {
	nw = split(meta["workloads"], ws, " ")
	section_head("Accuracy against perf", "bench/accuracy.sh", "bench-accuracy")
	print "- ptprof " meta["ptprof_version"] " (git " meta["ptprof_git"] "), CPU mode at " meta["hz"] " Hz" \
		(meta["ptprof_args"] != "" ? " with " meta["ptprof_args"] : "") "; " \
		meta["perf_version"] "; " meta["xz_version"] "; " meta["python_version"] "; " meta["perl_version"] \
		(meta["sqlite_version"] != "" ? "; sqlite " meta["sqlite_version"] : "") "."
	if ("unavailable" in meta) {
		print ""
		print "**Not measured:** " meta["unavailable"] "."
		exit
	}
	print "- Method: each workload is started, left " meta["warmup"] " s to warm up, then one " \
		meta["secs"] " s window of it is recorded three times at once, all attached to its PID:" \
		" `ptprof -f " meta["hz"] (meta["ptprof_args"] != "" ? " " meta["ptprof_args"] : "") "` and `perf record -e cpu-clock -g` at " meta["perf_a"] \
		" Hz (**perf A**) and at " meta["perf_b"] " Hz (**perf B**).  " meta["reps"] \
		" windows per workload, interleaved; medians with (min–max)."
	print ""
	print "overlap(P, Q) = Σ over functions of min(P's share, Q's share), from the flat" \
		" (leaf) profiles: 1 when they agree exactly.  The target is overlap(ptprof, perf A)" \
		" ≥ 0.9 × overlap(perf A, perf B), i.e. **ratio ≥ 0.90**."
	print ""
	print "| workload | windows ok | overlap(ptprof, perf A) | overlap(perf A, perf B) | ratio | ≥ 0.90? | ratio from sampling noise alone | overlap(ptprof, perf B) | ptprof samples | perf A samples | functions | perf A in kernel | ptprof share with no symbol | load (1 min) |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= nw; i++) {
		w = ws[i]
		if (!(w in nok)) {
			printf "| %s | 0/%d | %s |||||||||||||\n", wlabel(w), nrun[w] + 0,
				(w in why) ? "failed: " why[w] : "not run"
			continue
		}
		r = median(vals[w SUBSEP "ratio"])
		printf "| %s | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s %% | %s %% | %s |\n",
			wlabel(w), nok[w], nrun[w],
			mr(vals[w SUBSEP "o_pt_a"], 3), mr(vals[w SUBSEP "o_a_b"], 3),
			mr(vals[w SUBSEP "ratio"], 3), (r >= 0.9 ? "**yes**" : "no"),
			mr(vals[w SUBSEP "noise_ratio"], 3),
			mr(vals[w SUBSEP "o_pt_b"], 3),
			mr(vals[w SUBSEP "n_pt"], 0), mr(vals[w SUBSEP "n_a"], 0),
			mr(vals[w SUBSEP "funcs"], 0),
			mr(scale(vals[w SUBSEP "kernel_a"]), 1),
			mr(scale(vals[w SUBSEP "nosym_pt"]), 1),
			mr(vals[w SUBSEP "load1"], 2)
	}
	print ""
	for (i = 1; i <= nw; i++) {
		w = ws[i]
		if (!(w in nok))
			continue
		# The window whose ratio is the median (the lower one of two).
		r = median(vals[w SUBSEP "ratio"])
		best = ""; bd = 2
		for (k in ratio_of) {
			split(k, kk, SUBSEP)
			if (kk[1] != w)
				continue
			dd = ratio_of[k] - r
			if (dd < 0) dd = -dd
			if (dd < bd || (dd == bd && kk[2] < brep)) {
				bd = dd; best = w ".r" kk[2]; brep = kk[2]
			}
		}
		if (!(best in nsh))
			continue
		printf "%s, window %s (the median ratio): the 10 functions with the largest shares, %%\n\n", \
			wlabel(w), substr(best, length(w) + 3)
		print "| function [module] | ptprof | perf A | perf B | ptprof − perf A |"
		print "|---|---|---|---|---|"
		for (j = 1; j <= nsh[best] && j <= 10; j++) {
			split(sh[best, j], c, "\t")
			printf "| %s | %s | %s | %s | %+.1f |\n", c[1], pct(c[2]), pct(c[3]), pct(c[4]), 100 * (c[2] - c[3])
		}
		print ""
	}
	print "How the profiles are compared (bench/accuracy.sh):"
	print ""
	print "- **Functions** are keyed by (module, start address), so aliases at one address" \
		" (`__memcpy_*` and `__memmove_*`) are one function on both sides.  Debian's" \
		" binaries are stripped: an address with no symbol (liblzma's internal functions," \
		" python3.11's static ones) is put in the function its `.eh_frame` FDE covers" \
		" and shown as module+0xSTART; the column *share with no symbol* says how much" \
		" of ptprof's profile that is.  libc is symbolized from libc6-dbg's detached" \
		" debug file when it is installed (both tools read it); the archive has no" \
		" detached symbols for this python3.11 or liblzma."
	print "- **Kernel time.** perf's cpu-clock samples the kernel too; ptprof sees only user" \
		" registers, and its CPU mode counts a thread's system time where the thread" \
		" is in user space (the instruction that faulted, the libc wrapper of a" \
		" system call).  So a perf sample in the kernel is counted at the first user" \
		" frame of its call chain, the same place; *perf A in kernel* is the share so" \
		" moved.  A kernel sample with no user frame would stay a `[kernel]` row."
	print "- **Sampling noise.** Even a perfect profiler would not reach ratio 1: perf A is" \
		" compared with a profile of about as many samples (ptprof's) on the left and with" \
		" one of five times as many (perf B) on the right, so the left overlap carries" \
		" more noise.  *Ratio from sampling noise alone* is what the ratio would be if all" \
		" three profiles were independent draws, of their own sizes, from one and the" \
		" same distribution (the three pooled): the mean over 200 simulated draws" \
		" (`bench/accuracy_work.py noise`).  A measured ratio near it means the" \
		" profiles differ by no more than their sample counts explain; ptprof's samples" \
		" count in periods of CPU time (one per tick a thread ran through)."
	print "- **Same window, three samplers.** The three record the same seconds of the same" \
		" process; they disturb each other a little (ptprof's stops run in the" \
		" target's time, perf's interrupts in everyone's), and the windows start" \
		" within a few milliseconds of each other.  perf A against perf B is the" \
		" yardstick: two profiles of the same window by the same tool differ by" \
		" their sampling noise alone, which the ratio divides out."
	print ""
}

# The space-separated list x times 100.
function scale(list,   a, n, i, s) {
	n = split(list, a, " ")
	s = ""
	for (i = 1; i <= n; i++)
		s = s (i > 1 ? " " : "") 100 * a[i]
	return s
}
