#!/bin/bash
# bench/accuracy.sh - does ptprof's CPU-mode flat profile agree with perf's?
# (`make bench-accuracy`; see bench/README.md.)
#
#   bench/accuracy.sh                 measure, then splice the section into
#                                     docs/PERFORMANCE.md
#   bench/accuracy.sh --report DIR    only re-render the section from DIR
#
# For each workload (xz -T2 -6 on generated data, a python3 loop, a perl
# loop, sqlite3 SELECTs over an index of a file database with a small page
# cache: a pread() between short stretches of user code, where ptrace
# stops are biased, ptprof(1) SYSTEM CALL BIAS) and each repetition: start the workload, let it warm up, then
# record the SAME window three times at once on its PID: ptprof (CPU mode,
# ACC_HZ), perf record -e cpu-clock -g at ACC_PERF_A Hz and again at
# ACC_PERF_B Hz.  Each profile becomes a flat profile by function (the
# leaf frame only; see "Names" below), shares = weight / total, and
#
#   overlap(P, Q) = sum over functions f of min(P_f, Q_f)      (0..1)
#
# The figure of merit is overlap(ptprof, perf A) / overlap(perf A, perf B):
# how well ptprof agrees with perf, relative to how well perf agrees with
# itself at another rate over the same window.
#
# Names.  Both sides are keyed by (module, function start):
#   - a named function by its symbol's address in the module's symbol
#     table, so aliases at one address (__memcpy_* / __memmove_*) agree;
#   - an address with no symbol (Debian's binaries are stripped: liblzma's
#     internal functions, python's static ones) by the .eh_frame FDE that
#     covers it, i.e. the function it is in, named module+0xSTART;
#   - perf's kernel samples ([k], cpu-clock counts system time) go to the
#     first user frame of their call chain: the user pc where the thread
#     entered the kernel, which is where ptprof, which only sees user
#     registers, counts that time too (ptprof's CPU mode weights by the
#     thread's on-CPU time, system time included).  A kernel sample with
#     no user frame stays in a "[kernel]" bucket, which ptprof cannot have.
#
# It kills only the processes it started, by PID, bounds every wait and
# uses no network (DEBUGINFOD_URLS is unset).
set -u
BENCH_TAG=accuracy BENCH_SCRIPT=accuracy.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
# Debian's interpreters and xz, not whatever PATH finds first (pyenv).
PYTHON=${ACC_PYTHON:-/usr/bin/python3}
PERL=${ACC_PERL:-/usr/bin/perl}
XZ=${ACC_XZ:-/usr/bin/xz}
SQLITE=${ACC_SQLITE:-/usr/bin/sqlite3}

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	d_secs=3 d_reps=1 d_warm=1
else
	d_secs=8 d_reps=3 d_warm=2
fi
SECS=${ACC_SECS:-$d_secs}
REPS=${ACC_REPS:-$d_reps}
WARMUP=${ACC_WARMUP:-$d_warm}
HZ=${ACC_HZ:-200}
PERF_A=${ACC_PERF_A:-199}
PERF_B=${ACC_PERF_B:-997}
WORKLOADS=${ACC_WORKLOADS:-xz python perl sqlite}
XZ_MB=${ACC_XZ_MB:-160}
# The section's markers in docs/PERFORMANCE.md (bench/run.sh keeps the
# block when it rewrites the rest of the file).
BEGIN_MARK='<!-- bench/accuracy.sh: begin -->'
END_MARK='<!-- bench/accuracy.sh: end -->'

# --- Flat profiles ---------------------------------------------------------
# Every flat profile is first written as "weight<TAB>module<TAB>name<TAB>off":
# module a basename ("?" when unmapped), name the function or empty, off
# the hex file offset when name is empty.

# ptprof's own flat column (ptprof report: flat is the leaf).
flat_ptprof() {
	"$PTPROF" report --top=0 "$1" | awk -F'\t' '
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
# on stderr as "kernel=W total=W".
flat_perf() {
	"$PERF" script -i "$1" -F period,ip,sym,dso 2>/dev/null | awk '
	function base(p) { sub(/.*\//, "", p); return p }
	function emit(mod, name, off) {
		printf "%s\t%s\t%s\t%s\n", period, mod, name, off
		total += period
		state = 0
	}
	/^[^\t]/ && NF == 1 { period = $1; state = 1; kern = 0; next }
	/^\t/ && state == 1 {
		dso = $NF
		gsub(/^\(|\)$/, "", dso)
		if (dso == "[kernel.kallsyms]") {
			if (!kern)
				kernel += period
			kern = 1
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
		printf "kernel=%.0f total=%.0f\n", kernel, total > "/dev/stderr"
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
	FNR == NR { next }
	{
		mod = $2; name = $3
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

# Shares of three canon files side by side: "key label ptprof A B" (as
# fractions), largest first by the max of the three.
shares() {
	awk -F'\t' '
	{ w[FILENAME, $1] += $3; tot[FILENAME] += $3; lab[$1] = $2; keys[$1] = 1 }
	END {
		for (k in keys)
			printf "%s\t%s\t%.6f\t%.6f\t%.6f\n", k, lab[k],
				tot[a] ? w[a, k] / tot[a] : 0,
				tot[b] ? w[b, k] / tot[b] : 0,
				tot[c] ? w[c, k] / tot[c] : 0
	}' a="$1" b="$2" c="$3" "$1" "$2" "$3" |
		sort -t"$(printf '\t')" -k3,3gr
}

# overlap of columns $1 and $2 (3 = ptprof, 4 = perf A, 5 = perf B) of a
# shares file.
overlap() {
	awk -F'\t' -v p="$1" -v q="$2" '
	{ s += ($p < $q ? $p : $q) }
	END { printf "%.4f", s }' "$3"
}

# Share of column $1 that has no symbol (an FDE or nothing).
nosym_share() {
	awk -F'\t' -v p="$1" '$2 ~ /\+0x[0-9a-f]+ \[|no symbol/ { s += $p }
	END { printf "%.4f", s }' "$2"
}

# --- Workloads ---------------------------------------------------------------

PERL_LOOP='
$| = 1;
my ($secs) = @ARGV;
srand(7);
my @w = map { join "", map { chr(97 + int(rand 10)) } 1 .. 2 + int(rand 8) } 1 .. 3000;
my @lines = map { my @l = map { $w[rand @w] } 1 .. 12; join " ", @l } 1 .. 2000;
my $text = join "\n", @lines;
print "ready\n";
my $end = time + $secs;
while (time < $end) {
	my %h;
	for (@lines) { $h{$_}++ for split / /; }
	my $n = 0;
	for (@lines) { (my $s = $_) =~ tr/a/4/; $n += length(uc $s); $n += () = /ka/g; }
	my @s = sort { $a <=> $b } map { rand } 1 .. 20000;
	my @m = $text =~ /([a-z]+)/g;
	(my $t = $text) =~ s/[a-z]+/#/g;
	my $x = 0;
	$x = ($x * 31 + $_) % 1000003 for 1 .. 100000;
}
'

# Start workload $1 in the background, its output in $2; sets WPID.
start_workload() {
	local bound=$((${WARMUP%.*} + ${SECS%.*} + 60))
	case $1 in
	xz) "$XZ" -T2 -6 -c "$DATA/input" >/dev/null 2>"$2" & ;;
	python) "$PYTHON" "$here/accuracy_work.py" loop "$bound" >"$2" 2>&1 & ;;
	perl) "$PERL" -e "$PERL_LOOP" "$bound" >"$2" 2>&1 & ;;
	# $! is sqlite3's PID (the last of the pipeline); the writer ends on
	# the closed pipe when sqlite3 is stopped.
	sqlite) "$PYTHON" "$here/accuracy_work.py" sqlq "$bound" 2>/dev/null |
		"$SQLITE" "$DATA/sq.db" >/dev/null 2>"$2" & ;;
	*) die "unknown workload '$1' (want xz, python, perl or sqlite)" ;;
	esac
	WPID=$!
}

# Stop a perf record started here: INT makes it write its file; bounded.
stop_perf() {
	if alive "$1"; then
		kill -INT "$1" 2>/dev/null
		wait_gone "$1" 30 || stop_pid "$1"
	fi
	wait "$1" 2>/dev/null
}

# One measured window: workload $1, repetition $2.
run_one() {
	local w=$1 rep=$2 d="$RUN/$1.r$2" st=ok load rc
	mkdir -p "$d"
	start_workload "$w" "$d/workload.out"
	# The interpreters say "ready"; xz and sqlite3 have nothing to prepare.
	if { [[ " xz sqlite " = *" $w "* ]] && ! alive "$WPID"; } ||
		{ [[ " xz sqlite " != *" $w "* ]] &&
			! wait_ready "$d/workload.out" "$WPID" 20; }; then
		stop_pid "$WPID"; WPID=""
		echo "workload=$w rep=$rep status=fail:workload-not-ready" >>"$RUN/results.tsv"
		log "$w r$rep: the workload did not start"
		return
	fi
	nap "$WARMUP"
	cp "/proc/$WPID/maps" "$d/maps" 2>/dev/null
	"$PERF" record -e cpu-clock -F "$PERF_A" -g --no-buildid-cache -p "$WPID" \
		-o "$d/perfA.data" >"$d/perfA.log" 2>&1 &
	PA=$!
	"$PERF" record -e cpu-clock -F "$PERF_B" -g --no-buildid-cache -p "$WPID" \
		-o "$d/perfB.data" >"$d/perfB.log" 2>&1 &
	PB=$!
	"$PTPROF" -p "$WPID" -f "$HZ" -d "$SECS" -o "$d/ptprof.prof" \
		>"$d/ptprof.log" 2>&1 &
	PT=$!
	nap "$SECS"
	stop_perf "$PA"
	stop_perf "$PB"
	wait_gone "$PT" 30 || { st=fail:ptprof-hung; stop_pid "$PT"; }
	wait "$PT"
	rc=$?
	PA="" PB="" PT=""
	[ "$rc" = 0 ] || [ "$st" != ok ] || st=fail:ptprof-exit-$rc
	alive "$WPID" || st=fail:workload-ended-early
	stop_pid "$WPID"; WPID=""
	load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)
	for f in perfA.data perfB.data ptprof.prof; do
		[ -s "$d/$f" ] || { [ "$st" = ok ] && st=fail:no-$f; }
	done
	if [ "$st" != ok ]; then
		echo "workload=$w rep=$rep status=$st load=$load" >>"$RUN/results.tsv"
		log "$w r$rep: $st"
		return
	fi
	analyse "$d" "$w" "$rep" "$load"
	[ "${ACC_KEEP:-0}" = 1 ] || rm -f "$d"/*.data
}

# Flat profiles, names, shares and overlaps of one window's directory.
analyse() {
	local d=$1 w=$2 rep=$3 load=$4 ka oa ab pb npt na nb noise
	flat_ptprof "$d/ptprof.prof" >"$d/ptprof.flat"
	flat_perf "$d/perfA.data" >"$d/perfA.flat" 2>"$d/perfA.kernel"
	flat_perf "$d/perfB.data" >"$d/perfB.flat" 2>"$d/perfB.kernel"
	tables_for "$d/maps" "$d"/*.flat >"$d/tables"
	for p in ptprof perfA perfB; do
		canon "$d/tables" "$d/$p.flat" >"$d/$p.canon"
	done
	shares "$d/ptprof.canon" "$d/perfA.canon" "$d/perfB.canon" >"$d/shares.tsv"
	rm -f "$d/tables"
	ka=$(awk '{ split($1, k, "="); split($2, t, "=");
		if (t[2] > 0) printf "%.4f", k[2] / t[2] }' "$d/perfA.kernel")
	oa=$(overlap 3 4 "$d/shares.tsv")
	ab=$(overlap 4 5 "$d/shares.tsv")
	pb=$(overlap 3 5 "$d/shares.tsv")
	# ptprof's samples are weighted by CPU time (in periods); their sum.
	npt=$(awk -F'\t' '{ s += $1 } END { printf "%.0f", s }' "$d/ptprof.flat")
	na=$(grep -o '(\([0-9]*\) samples)' "$d/perfA.log" | tr -dc 0-9)
	nb=$(grep -o '(\([0-9]*\) samples)' "$d/perfB.log" | tr -dc 0-9)
	noise=$("$PYTHON" "$here/accuracy_work.py" noise "$d/shares.tsv" \
		"$npt" "${na:-0}" "${nb:-0}" 2>>"$d/noise.err")
	echo "workload=$w rep=$rep status=ok o_pt_a=$oa o_a_b=$ab o_pt_b=$pb" \
		"ratio=$(awk -v a="$oa" -v b="$ab" 'BEGIN { if (b > 0) printf "%.4f", a / b }')" \
		"noise_ratio=$(awk -v n="$noise" 'BEGIN { split(n, e, " ");
			if (e[2] > 0) printf "%.4f", e[1] / e[2] }')" \
		"kernel_a=$ka nosym_pt=$(nosym_share 3 "$d/shares.tsv")" \
		"n_pt=$npt n_a=$na n_b=$nb funcs=$(wc -l <"$d/shares.tsv")" \
		"load=$load" >>"$RUN/results.tsv"
	log "$w r$rep: overlap(ptprof, perf@$PERF_A) $oa, overlap(perf@$PERF_A, perf@$PERF_B) $ab, load $load"
}

# --- The report section ------------------------------------------------------

# The markdown section from a results directory, on stdout.
render() {
	local dir=$1
	awk -f "$here/accuracy.awk" "$dir/meta" "$dir/results.tsv" \
		$(cd "$dir" && ls -d */shares.tsv 2>/dev/null | sed "s|^|$dir/|")
}

# Replace (or append) the marked block of $REPORT with the section.
splice() {
	local dir=$1 tmp="$REPORT.tmp.$$"
	mkdir -p "$(dirname "$REPORT")"
	render "$dir" >"$dir/accuracy.md" || die "rendering failed"
	{
		# The rest of the file as it was, then one blank line.
		[ -f "$REPORT" ] && awk -v b="$BEGIN_MARK" -v e="$END_MARK" '
			$0 == b { skip = 1 }
			!skip { print; last = $0 }
			$0 == e { skip = 0 }
			END { if (NR && last != "") print "" }' "$REPORT"
		echo "$BEGIN_MARK"
		cat "$dir/accuracy.md"
		echo "$END_MARK"
	} >"$tmp" && mv "$tmp" "$REPORT" || { rm -f "$tmp"; die "cannot write $REPORT"; }
	log "wrote the accuracy section of $REPORT"
}

bench_args splice "$@"

# --- Set-up ---------------------------------------------------------------
for v in "$SECS" "$WARMUP" "$REPS" "$HZ" "$PERF_A" "$PERF_B" "$XZ_MB"; do
	[[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "not a number: '$v'"
done
[ -x "$PTPROF" ] || die "$PTPROF missing: run 'make'"
t_start=$(date +%s)
bench_start_run accuracy- accuracy-latest
DATA=$(mktemp -d "${TMPDIR:-/tmp}/ptprof-accuracy.XXXXXX") || die "mktemp failed"
# The processes of the window under way, for cleanup().
WPID="" PA="" PB="" PT=""
cleanup() {
	[ -n "$PA" ] && stop_perf "$PA"
	[ -n "$PB" ] && stop_perf "$PB"
	[ -n "$PT" ] && stop_pid "$PT"
	[ -n "$WPID" ] && stop_pid "$WPID"
	rm -rf "$DATA"
	rm -f "$RUN/.nap"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
: >"$RUN/results.tsv"

{
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "nproc=$(nproc)"
	echo "cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')"
	echo "kernel=$(uname -srm)"
	echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "ptprof_version=$("$PTPROF" --version 2>&1 | head -1)"
	echo "ptprof_git=$(git -C "$SRCDIR" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "perf_version=$("$PERF" version 2>/dev/null | head -1)"
	echo "xz_version=$("$XZ" --version 2>/dev/null | head -1)"
	echo "python_version=$("$PYTHON" --version 2>&1 | head -1)"
	echo "perl_version=$("$PERL" -e 'print "perl $^V"' 2>/dev/null)"
	echo "sqlite_version=$("$SQLITE" --version 2>/dev/null | cut -d' ' -f1)"
	echo "secs=$SECS"
	echo "reps=$REPS"
	echo "warmup=$WARMUP"
	echo "hz=$HZ"
	echo "perf_a=$PERF_A"
	echo "perf_b=$PERF_B"
	echo "xz_mb=$XZ_MB"
	echo "workloads=$WORKLOADS"
} >"$RUN/meta"

if ! "$PERF" record -e cpu-clock -F 99 -g --no-buildid-cache \
	-o "$DATA/check.data" -- true >"$RUN/perf-check.log" 2>&1 ||
	[ ! -s "$DATA/check.data" ]; then
	echo "unavailable=perf record -e cpu-clock fails here: $(grep -v '^\s*$' "$RUN/perf-check.log" | head -1)" >>"$RUN/meta"
	log "perf unavailable; see $RUN/perf-check.log"
	splice "$RUN"
	exit 0
fi
rm -f "$DATA/check.data"

if [[ " $WORKLOADS " = *" xz "* ]]; then
	log "generating ${XZ_MB} MB of input for xz"
	# 16 MiB generated once, then repeated: a repeat is 16 MiB back,
	# beyond xz -6's 8 MiB dictionary, so it does not compress better.
	"$PYTHON" "$here/accuracy_work.py" gen $((16 << 20)) >"$DATA/chunk" ||
		die "cannot generate the input"
	for ((i = 0; i < (XZ_MB + 15) / 16; i++)); do cat "$DATA/chunk"; done >"$DATA/input"
	rm -f "$DATA/chunk"
fi

if [[ " $WORKLOADS " = *" sqlite "* ]]; then
	log "generating the sqlite database"
	"$PYTHON" "$here/accuracy_work.py" sqldb "$DATA/sq.db" ||
		die "cannot generate the sqlite database"
fi

log "results in $RUN; $REPS x ${SECS}s windows of: $WORKLOADS"
for ((rep = 1; rep <= REPS; rep++)); do
	for w in $WORKLOADS; do
		run_one "$w" "$rep"
	done
done
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RUN/meta"
echo "elapsed_s=$(($(date +%s) - t_start))" >>"$RUN/meta"
splice "$RUN"
log "done in $(($(date +%s) - t_start)) s"
