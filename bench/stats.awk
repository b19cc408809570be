# bench/stats.awk - the meta file and medians and their ranges, for the
# report sections of bench/accuracy.sh, bench/truth.sh and bench/procs.sh
# (awk -f stats.awk -f SECTION.awk RUN/meta ...).
# Plain POSIX awk (mawk).  vals[key] is a space-separated list of numbers.

function base(f) { sub(/.*\//, "", f); return f }

# The file named meta (the first): its key=value lines into meta[].  A
# section's own rules see only the files after it.
base(FILENAME) == "meta" {
	i = index($0, "=")
	if (i)
		meta[substr($0, 1, i - 1)] = substr($0, i + 1)
	next
}

function sorted(list, a,   n, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) {
		t = a[i] + 0
		for (j = i - 1; j >= 1 && a[j] + 0 > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
	return n
}

# "median (min–max)" of a list, or "—".
function mr(list, dec,   a, n, med) {
	n = sorted(list, a)
	if (n == 0)
		return "—"
	med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	if (n == 1)
		return sprintf("%." dec "f", med)
	return sprintf("%." dec "f (%." dec "f–%." dec "f)", med, a[1], a[n])
}

function median(list,   a, n) {
	n = sorted(list, a)
	if (n == 0)
		return ""
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function add(key, v) {
	if (v == "")
		return
	vals[key] = (key in vals) ? vals[key] " " v : v
}

# kv[key] = value, for each key=value field of the current line.
function fields(   i, j) {
	delete kv
	for (i = 1; i <= NF; i++) {
		j = index($i, "=")
		if (j)
			kv[substr($i, 1, j - 1)] = substr($i, j + 1)
	}
}

# A result line (fields() read) whose status is not ok: counted in
# nfail[key], its status kept in why[key]; true for such a line.
function failed_line(key) {
	if (kv["status"] == "ok")
		return 0
	nfail[key]++
	why[key] = kv["status"]
	return 1
}

# A section's title and the lines every section starts with: which script
# wrote it (make target $3), the date and the machine (meta).
function section_head(title, script, target) {
	print "## " title
	print ""
	print "Written by " script " (`make " target "`, also run by `make bench`;" \
		" see bench/README.md).  Do not edit by hand: `bench/run.sh` keeps this" \
		" section when it rewrites the rest of the file."
	print ""
	print "- Date: " meta["date"] "; the whole run took " meta["elapsed_s"] " s."
	print "- Machine: " meta["nproc"] " CPUs (nproc), " meta["cpu_model"] "; " meta["kernel"] \
		"; shared with other work: load average (1, 5, 15 min) " meta["load_start"] \
		" at the start, " meta["load_end"] " at the end."
}
