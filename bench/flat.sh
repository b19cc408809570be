# bench/flat.sh - flat profiles by function, shared by bench/accuracy.sh
# and bench/truth.sh (sourced after lib.sh, not run): ptprof's and perf
# record's profiles turned into "weight module name off" lines, the
# module tables that key both by (module, function start) (canon; the
# top of bench/accuracy.sh explains the names), stopping perf record,
# and the sqlite3 workload (indexed SELECTs on a file database with a
# small page cache: a pread() between short stretches of user code).
#
# The caller sets PTPROF and PERF (lib.sh does).

# Debian's interpreters and sqlite3, not whatever PATH finds first (pyenv).
PYTHON=${ACC_PYTHON:-/usr/bin/python3}
SQLITE=${ACC_SQLITE:-/usr/bin/sqlite3}

# --- Flat profiles ---------------------------------------------------------
# Every flat profile is first written as "weight<TAB>module<TAB>name<TAB>off":
# module a basename ("?" when unmapped), name the function or empty, off
# the hex file offset when name is empty.

# ptprof's own flat column (ptprof report: flat is the leaf), by the
# function that holds each address, as perf report's symbol column is
# (--no-inline: with libc6-dbg installed, write's samples would go to
# "__GI___libc_write (inline)", a name perf never gives).
flat_ptprof() {
	"$PTPROF" report --no-inline --top=0 "$1" | awk -F'\t' '
	NR <= 2 { next }			# "Total:" and the header
	/^\([0-9]+ more rows/ { next }
	{
		n = split($0, w, " ")
		mod = "?"
		last = n
		if (w[n] ~ /^\[.*\]$/ && n > 6) {
			mod = w[n]
			if (mod != "[vdso]")
				mod = substr(mod, 2, length(mod) - 2)
			last = n - 1
		}
		name = w[6]
		for (i = 7; i <= last; i++)
			name = name " " w[i]
		off = ""
		if (mod != "?" && index(name, mod "+0x") == 1) {
			off = substr(name, length(mod) + 4)
			name = ""
		} else if (mod == "?")
			name = ""
		printf "%s\t%s\t%s\t%s\n", w[1], mod, name, off
	}'
}

# perf's samples, each weighted by its period, at the first user frame of
# its call chain (see the top of this file); prints the kernel-mode weight
# on stderr as "kernel=W total=W switch=W".  With a second argument
# "noswitch", the samples taken in the scheduler's switch (a kernel frame
# __schedule or finish_task_switch*: the thread going to sleep or just
# woken, which perf charges to the call it sleeps in and no ptrace stop
# can land in) are left out; switch= is their weight either way.
flat_perf() {
	"$PERF" script -i "$1" -F period,ip,sym,dso 2>/dev/null | awk -v drop="${2:-}" '
	function base(p) { sub(/.*\//, "", p); return p }
	function emit(mod, name, off) {
		if (sw)
			switched += period
		if (!(sw && drop == "noswitch")) {
			printf "%s\t%s\t%s\t%s\n", period, mod, name, off
			total += period
		}
		state = 0
	}
	/^[^\t]/ && NF == 1 { period = $1; state = 1; kern = 0; sw = 0; next }
	/^\t/ && state == 1 {
		dso = $NF
		gsub(/^\(|\)$/, "", dso)
		if (dso == "[kernel.kallsyms]") {
			if (!kern)
				kernel += period
			kern = 1
			if ($2 == "__schedule" || $2 ~ /^finish_task_switch/)
				sw = 1
			next
		}
		name = $2
		for (i = 3; i < NF; i++)
			name = name " " $i
		if (dso == "[unknown]")
			emit("?", "", "")
		else if (name == "[unknown]")
			emit(base(dso), "", $1)
		else
			emit(dso == "[vdso]" ? dso : base(dso), name, "")
		next
	}
	/^$/ && state == 1 { emit("[kernel]", "[kernel]", "") }
	END {
		if (state == 1)
			emit("[kernel]", "[kernel]", "")
		printf "kernel=%.0f total=%.0f switch=%.0f\n", kernel, total, switched > "/dev/stderr"
	}'
}

# awk: the value of a hex string ("0x" optional; mawk has no strtonum).
AWK_HEX='
function hex(s,   i, c, v) {
	sub(/^0x/, "", s)
	v = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", tolower(substr(s, i, 1)))
		if (!c)
			break
		v = v * 16 + c - 1
	}
	return v
}'

# Symbols and FDEs of one ELF file as file offsets, for canon():
#   S<TAB>module<TAB>offset<TAB>name     a function symbol (.symtab, .dynsym,
#                                        and the .symtab of a detached
#                                        debug file found by build ID, as
#                                        ptprof and perf both read it)
#   F<TAB>module<TAB>start<TAB>end       an .eh_frame FDE
# Addresses become file offsets through the executable PT_LOAD segments.
module_table() {
	local path=$1 mod=$2 id dbg=""
	id=$(readelf -nW "$path" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -1)
	[ -n "$id" ] && dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	{
		readelf -lW "$path" 2>/dev/null | sed 's/^/L /'
		readelf -SW "$path" 2>/dev/null | sed 's/^/P /'
		readelf -sW "$path" 2>/dev/null | sed 's/^/S /'
		[ -n "$dbg" ] && [ -r "$dbg" ] &&
			readelf -sW "$dbg" 2>/dev/null | sed 's/^/S /'
		readelf -W --debug-dump=frames "$path" 2>/dev/null |
			grep ' FDE ' | sed 's/^/F /'
	} | awk -v mod="$mod" "$AWK_HEX"'
	function off(a,   i) {
		for (i = 1; i <= nseg; i++)
			if (a >= va[i] && a < va[i] + sz[i])
				return a - va[i] + fo[i]
		return -1
	}
	$1 == "L" && $2 == "LOAD" && $0 ~ / R?W?E / {
		nseg++
		fo[nseg] = hex($3); va[nseg] = hex($4); sz[nseg] = hex($7)
		next
	}
	# The PLT sections (.plt, .plt.got, .plt.sec): one row "[PLT]" on
	# both sides, for perf names each stub (malloc@plt) and ptprof, with
	# no symbol there, the FDE that covers the whole section.
	$1 == "P" {
		for (i = 3; i <= NF && $i != "PROGBITS"; i++)
			;
		if (i + 3 <= NF && $(i - 1) ~ /^\.plt/)
			printf "P\t%s\t%d\t%d\n", mod, hex($(i + 2)),
				hex($(i + 2)) + hex($(i + 3))
		next
	}
	$1 == "S" && ($5 == "FUNC" || $5 == "IFUNC") && $8 != "UND" && NF >= 9 {
		o = off(hex($3))
		name = $9
		sub(/@.*/, "", name)
		if (o >= 0)
			printf "S\t%s\t%d\t%s\n", mod, o, name
		next
	}
	$1 == "F" {
		split(substr($NF, 4), r, /\.\./)
		s = off(hex(r[1])); e = off(hex(r[2]) - 1)
		if (s >= 0 && e >= s)
			printf "F\t%s\t%d\t%d\n", mod, s, e + 1
	}'
}

# The tables of every module named in flat files $2..., found by basename
# in the target's maps ($1), into stdout.
tables_for() {
	local maps=$1 mod path
	shift
	cut -f2 "$@" | sort -u | while read -r mod; do
		case $mod in "?" | "[vdso]" | "[kernel]") continue ;; esac
		path=$(awk -v m="$mod" '$6 ~ "/" && $2 ~ /x/ {
			n = $6; sub(/.*\//, "", n); if (n == m) { print $6; exit } }' "$maps")
		[ -n "$path" ] && [ -r "$path" ] && module_table "$path" "$mod"
	done | sort -t"$(printf '\t')" -k1,1 -k2,2 -k3,3n
}

# Flat file ($2) to "key<TAB>label<TAB>weight" by function, with the
# module tables of $1 (see the top of this file).
canon() {
	awk -F'\t' "$AWK_HEX"'
	# Is offset o in a PLT section of mod?
	function in_plt(mod, o,   i) {
		for (i = 1; i <= np[mod]; i++)
			if (o >= ps[mod, i] && o < pe[mod, i])
				return 1
		return 0
	}
	# Index of the last FDE of mod starting at or before o, or 0.
	function fde(mod, o,   lo, hi, mid) {
		lo = 1; hi = nf[mod]
		while (lo <= hi) {
			mid = int((lo + hi) / 2)
			if (fs[mod, mid] <= o)
				lo = mid + 1
			else
				hi = mid - 1
		}
		return hi >= 1 && o < fe[mod, hi] ? hi : 0
	}
	FNR == NR && $1 == "S" {
		k = $2 SUBSEP $4
		if (k in at && at[k] != $3)
			amb[k] = 1
		at[k] = $3
		k = $2 SUBSEP $3
		if (!(k in best) || $4 < best[k])
			best[k] = $4
		next
	}
	FNR == NR && $1 == "F" {
		i = ++nf[$2]
		fs[$2, i] = $3; fe[$2, i] = $4
		next
	}
	FNR == NR && $1 == "P" {
		i = ++np[$2]
		ps[$2, i] = $3; pe[$2, i] = $4
		next
	}
	FNR == NR { next }
	{
		mod = $2; name = $3
		if (name ~ /@plt$/ || (name == "" && $4 != "" && in_plt(mod, hex($4)))) {
			w[mod "@plt"] += $1; lab[mod "@plt"] = "[PLT]"; md[mod "@plt"] = mod
			next
		}
		sub(/@.*/, "", name)	# perf keeps "cfree@GLIBC_2.2.5"
		if (mod == "[vdso]")
			sub(/^__vdso_/, "", name)
		if (name != "" && (mod SUBSEP name) in at && !((mod SUBSEP name) in amb)) {
			a = at[mod, name]
			key = mod "@" a; label = best[mod, a]
		} else if (name != "") {
			key = mod ":" name; label = name
		} else if ($4 != "" && (i = fde(mod, hex($4)))) {
			a = fs[mod, i]
			key = mod "@" a
			label = (mod SUBSEP a) in best ? best[mod, a] : sprintf("%s+0x%x", mod, a)
		} else {
			key = mod "@?"; label = mod " (no symbol, no FDE)"
		}
		w[key] += $1; lab[key] = label; md[key] = mod
	}
	END {
		for (k in w)
			printf "%s\t%s [%s]\t%s\n", k, lab[k], md[k], w[k]
	}' "$1" "$2"
}

# Shares of canon files side by side: "key label S1 S2 ..." (as
# fractions, the files in the order given), largest first by S1.
shares() {
	awk -F'\t' '
	BEGIN { for (i = 1; i < ARGC; i++) col[ARGV[i]] = i; n = ARGC - 1 }
	{ w[col[FILENAME], $1] += $3; tot[col[FILENAME]] += $3; lab[$1] = $2; keys[$1] = 1 }
	END {
		for (k in keys) {
			line = k "\t" lab[k]
			for (i = 1; i <= n; i++)
				line = line sprintf("\t%.6f", tot[i] ? w[i, k] / tot[i] : 0)
			print line
		}
	}' "$@" | sort -t"$(printf '\t')" -k3,3gr
}

# overlap of columns $1 and $2 of a shares file (3 is the first profile):
# the sum over its rows of the smaller share.
overlap() {
	awk -F'\t' -v p="$1" -v q="$2" '
	{ s += ($p < $q ? $p : $q) }
	END { printf "%.4f", s }' "$3"
}

# One window recorded by perf and ptprof at once, into directory $1: perf
# record -e cpu-clock -g at $2 Hz on the PIDs $3 (a comma list: their
# threads, and what they start) into $1/perf.data, and the ptprof command
# line after $4 (its -o is the caller's; its stdout in $1/ptprof.out, its
# stderr in $1/ptprof.log), for $4 s; then perf is stopped and ptprof
# reaped (it ends by its -d).  Sets st to fail:... if st is ok and ptprof
# hung or failed, or perf wrote nothing.  PA and PT are set while they
# run (window_cleanup ends them).
window_record() {
	local d=$1 hz=$2 pids=$3 secs=$4 rc
	shift 4
	"$PERF" record -e cpu-clock -F "$hz" -g --no-buildid-cache -p "$pids" \
		-o "$d/perf.data" >"$d/perf.log" 2>&1 &
	PA=$!
	"$@" >"$d/ptprof.out" 2>"$d/ptprof.log" &
	PT=$!
	nap "$secs"
	stop_perf "$PA"
	wait_gone "$PT" 30 || { [ "$st" = ok ] && st=fail:ptprof-hung; stop_pid "$PT"; }
	wait "$PT"
	rc=$?
	PA="" PT=""
	[ "$rc" = 0 ] || [ "$st" != ok ] || st=fail:ptprof-exit-$rc
	[ -s "$d/perf.data" ] || [ "$st" != ok ] || st=fail:no-perf-data
}

# Stop a perf record started here: INT makes it write its file; bounded.
stop_perf() {
	if alive "$1"; then
		kill -INT "$1" 2>/dev/null
		wait_gone "$1" 30 || stop_pid "$1"
	fi
	wait "$1" 2>/dev/null
}

# The sqlite3 workload's database, generated into file $1.
sqlite_db() {
	"$PYTHON" "$bench_here/accuracy_work.py" sqldb "$1"
}

# Start the sqlite3 workload on database $1 for up to $2 s, its stderr in
# $3; sets WPID.  $! is sqlite3's PID (the last of the pipeline); the
# writer ends on the closed pipe when sqlite3 is stopped.
start_sqlite() {
	"$PYTHON" "$bench_here/accuracy_work.py" sqlq "$2" 2>/dev/null |
		"$SQLITE" "$1" >/dev/null 2>"$3" &
	WPID=$!
}

# Start a run: t_start, RUN (bench_start_run $1 $2), DATA a scratch
# directory, an empty results.tsv, and a clean-up at exit that ends the
# processes of the window under way: WPID, the perf records PA and PB,
# ptprof PT (each set while it runs, emptied once it is reaped).
window_run_start() {
	t_start=$(date +%s)
	bench_start_run "$1" "$2"
	DATA=$(mktemp -d "${TMPDIR:-/tmp}/ptprof-$BENCH_TAG.XXXXXX") || die "mktemp failed"
	WPID="" PA="" PB="" PT=""
	trap window_cleanup EXIT
	trap 'exit 130' INT TERM
	: >"$RUN/results.tsv"
}

# End the run started by window_run_start: the load and time in RUN/meta,
# then the section (the caller's splice).
window_run_end() {
	echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RUN/meta"
	echo "elapsed_s=$(($(date +%s) - t_start))" >>"$RUN/meta"
	splice "$RUN"
	log "done in $(($(date +%s) - t_start)) s"
}

window_cleanup() {
	[ -n "$PA" ] && stop_perf "$PA"
	[ -n "$PB" ] && stop_perf "$PB"
	[ -n "$PT" ] && stop_pid "$PT"
	[ -n "$WPID" ] && stop_pid "$WPID"
	rm -rf "$DATA"
	rm -f "$RUN/.nap"
}

# Does perf record -e cpu-clock work here?  If not, say why in
# RUN/meta ("unavailable=...") and fail.
perf_works() {
	local ok=1
	if ! "$PERF" record -e cpu-clock -F 99 -g --no-buildid-cache \
		-o "$DATA/check.data" -- true >"$RUN/perf-check.log" 2>&1 ||
		[ ! -s "$DATA/check.data" ]; then
		echo "unavailable=perf record -e cpu-clock fails here: $(grep -v '^\s*$' "$RUN/perf-check.log" | head -1)" >>"$RUN/meta"
		log "perf unavailable; see $RUN/perf-check.log"
		ok=0
	fi
	rm -f "$DATA/check.data"
	[ "$ok" = 1 ]
}
