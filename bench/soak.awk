# bench/soak.awk - the summary of a bench/soak.sh run (markdown).
#
#   awk -f soak.awk RUN/meta RUN/rss.csv RUN/files.tsv
#
# meta: key=value lines (stats= may repeat); rss.csv: t_s,rss_kb,hwm_kb,
# procs,busy,files,fds after a header; files.tsv: one period's file a line,
# key=value fields (file seq bytes gzip report pprof).  Plain POSIX awk.

function base(f) { sub(/.*\//, "", f); return f }

# Least squares of rss on t over the readings with lo <= t <= hi: sets
# n_, mean_ (kB) and slope_ (kB per hour); false with fewer than 3.
function fit(lo, hi,   i, n, sx, sy, sxx, sxy, d) {
	n = sx = sy = sxx = sxy = 0
	for (i = 1; i <= nr; i++) {
		if (T[i] < lo || T[i] > hi)
			continue
		n++; sx += T[i]; sy += R[i]; sxx += T[i] * T[i]; sxy += T[i] * R[i]
	}
	n_ = n
	if (n < 3)
		return 0
	d = n * sxx - sx * sx
	if (d <= 0)
		return 0
	mean_ = sy / n
	slope_ = (n * sxy - sx * sy) / d * 3600
	return 1
}

function mb(kb) { return sprintf("%.1f MiB", kb / 1024) }

base(FILENAME) == "meta" {
	i = index($0, "=")
	if (i == 0)
		next
	k = substr($0, 1, i - 1)
	if (k == "stats")
		stats[++nstats] = substr($0, i + 1)
	else
		meta[k] = substr($0, i + 1)
	next
}

base(FILENAME) == "rss.csv" {
	if (FNR == 1 || split($0, c, ",") < 3)
		next
	nr++
	T[nr] = c[1] + 0; R[nr] = c[2] + 0; F[nr] = c[7]
	if (c[3] + 0 > hwm)
		hwm = c[3] + 0
	next
}

base(FILENAME) == "files.tsv" {
	delete kv
	for (i = 1; i <= NF; i++) {
		j = index($i, "=")
		if (j)
			kv[substr($i, 1, j - 1)] = substr($i, j + 1)
	}
	nf++
	seq[nf] = kv["seq"] + 0
	bytes[nf] = kv["bytes"] + 0
	if (kv["gzip"] != 1) bad_gz++
	if (kv["report"] != 1) bad_rep++
	if (kv["pprof"] == 0) bad_pp++
	if (kv["pprof"] == "none") no_pp = 1
	next
}

END {
	secs = meta["secs"] + 0; rot = meta["rotate"] + 0
	split(meta["started"], st, " ")
	print "## Soak: ptprof --children --rotate on a loop of short processes"
	print ""
	print "Written by bench/soak.sh (`make bench-soak`; see bench/README.md)."
	print ""
	print "- Date: " meta["date"] "; " meta["nproc"] " CPUs, " meta["cpu_model"] "; " meta["kernel"] \
		"; load average " meta["load_start"] " at the start, " meta["load_end"] " at the end."
	print "- ptprof: " meta["ptprof_version"] " (git " meta["ptprof_git"] "): `" meta["command"] "`."
	printf "- The loop: %d processes asked for over %d s; %d started (%.1f a second), %d of them busy (%d s each, one every %d s).\n",
		meta["procs"], secs, st[1], (secs > 0 ? st[1] / secs : 0), st[2], meta["busy_secs"], meta["busy_every"]
	print "- ptprof ended after " meta["elapsed_s"] " s, exit status " meta["ptprof_exit"] ": " \
		(meta["summary_line"] != "" ? meta["summary_line"] : "(no summary line)")
	print ""
	print "| figure | value | goal | met? |"
	print "|---|---|---|---|"
	if (nr > 0) {
		printf "| RSS at the first reading (t = %d s) / at the last (t = %d s) / peak (VmHWM) | %s / %s / %s | | |\n",
			T[1], T[nr], mb(R[1]), mb(R[nr]), mb(hwm)
		fmax = 0
		for (i = 1; i <= nr; i++)
			if (F[i] + 0 > fmax)
				fmax = F[i] + 0
		printf "| ptprof's open fds at the first reading / the last / most | %s / %s / %d | | |\n",
			F[1], F[nr], fmax
	}
	if (fit(secs / 2, secs)) {
		pct = mean_ > 0 ? 100 * slope_ / mean_ : 0
		printf "| RSS slope over the second half of the loop (%d–%d s, %d readings) | %+.0f kB/h = %+.2f %% per hour of %s | < 1 %% per hour | %s |\n",
			secs / 2, secs, n_, slope_, pct, mb(mean_), pct < 1 ? "**yes**" : "no"
	} else
		printf "| RSS slope over the second half of the loop | too few readings (%d) | < 1 %% per hour | n/a |\n", n_
	if (fit(rot, secs)) {
		pct = mean_ > 0 ? 100 * slope_ / mean_ : 0
		printf "| RSS slope after the first period (%d–%d s, %d readings) | %+.0f kB/h = %+.2f %% per hour of %s | (< 1 %% per hour) | |\n",
			rot, secs, n_, slope_, pct, mb(mean_)
	}
	# The periods: as many as ptprof says it wrote ("the last of N
	# files" on its summary line), numbered 1..N; and about ceil(its run
	# / ROTATE), one either way for where the run's edges fall (a
	# rotation waits while four writers are busy).
	exp_n = int((meta["elapsed_s"] + rot - 1) / rot)
	said = ""
	if (match(meta["summary_line"], /the last of [0-9]+ files/))
		said = substr(meta["summary_line"], RSTART + 12, RLENGTH - 18) + 0
	gaps = 0
	for (i = 1; i <= nf; i++)
		if (seq[i] != i)
			gaps++
	ok = nf > 0 && !gaps && nf >= exp_n - 1 && nf <= exp_n + 1 && (said == "" || nf == said)
	printf "| period files: found / ptprof's summary / ceil(%d s / %d s) | %d / %s / %d | all, numbered 1..N | %s |\n",
		meta["elapsed_s"], rot, nf, said == "" ? "—" : said, exp_n, ok ? "**yes**" : "no"
	printf "| period files complete: gzip -t / ptprof report / %s | %d / %d / %s of %d | all | %s |\n",
		meta["pprof"], nf - bad_gz, nf - bad_rep, no_pp ? "—" : (nf - bad_pp), nf,
		(nf > 0 && !bad_gz && !bad_rep && !bad_pp) ? "**yes**" : "no"
	if (nf > 0) {
		lo = hi = bytes[1]; tot = 0
		for (i = 1; i <= nf; i++) {
			if (bytes[i] < lo) lo = bytes[i]
			if (bytes[i] > hi) hi = bytes[i]
			tot += bytes[i]
		}
		printf "| period file size min / mean / max | %.0f / %.0f / %.0f KiB | | |\n",
			lo / 1024, tot / nf / 1024, hi / 1024
	}
	print ""
	if (nstats) {
		print "ptprof --stats:"
		print ""
		for (i = 1; i <= nstats; i++)
			print "    " stats[i]
		print ""
	}
	print "RSS readings (every " meta["every"] " s) in rss.csv, each file's checks in files.tsv."
}
