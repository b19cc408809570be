# tests/inline.sh - sourced by tests/inline-*.test (after init.sh): one
# -O2 program whose hottest function is inlined, checked against the
# tools users trust (issue 29, item 2).
#
# inline_compare_ REF BIN WANT [ARG...]: profile BIN ARG... with ptprof into
# a legacy file and a .pb.gz in one run, then
#  - google-pprof --text BIN on the legacy file (it names the inlined
#    frames itself, with addr2line -i) and go tool pprof -top on the
#    .pb.gz (ptprof's own Lines): both must name WANT at the top, marked
#    "(inline)", with shares within 10 points of each other (the same
#    samples: only the naming differs);
#  - REF, eu-stack or perf, on BIN run again: eu-stack -i takes
#    INLINE_SNAPS snapshots of its stack, perf record --call-graph dwarf
#    samples it (perf script --inline names the frames); the most common
#    innermost frame must be WANT too, its share within 25 points of
#    ptprof's (eu-stack: a few dozen snapshots, sampling noise), 10
#    (perf: hundreds of samples).  eu-stack 0.188 (libdw's
#    dwarf_getscopes()) finds no inlined frame in a function inside a
#    namespace DIE, as Rust's all are: the Rust test asks perf.
# Names are compared as their last component before any template or
# parameter list ("std::__unguarded_partition<...>(...)" is
# __unguarded_partition; a Rust hash suffix is dropped).  Leaves the
# files prof, prof.pb.gz and the tables gp.txt, go.txt, ref.count; the
# shares in $gp_share, $go_share, $ref_share.
INLINE_SNAPS=${INLINE_SNAPS:-30}

# The comparable form of the function names on stdin, one a line.
inline_norm_()
{
	sed -e 's/ (inline)$//' -e 's/ (inlined)$//' -e 's/[<(].*//' \
		-e 's/::h[0-9a-f]\{16\}$//' -e 's/.*:://'
}

# The first data row of a pprof text table in FILE (after the line
# matching HEADER): "SHARE NAME", SHARE the flat% without "%".
inline_top_()
{
	awk -v h="$2" 'go && NF >= 6 {
		n = $6; for (i = 7; i <= NF; i++) n = n " " $i
		sub(/%$/, "", $2); print $2, n; exit
	} $0 ~ h { go = 1 }' "$1"
}

# inline_top_is_ FILE HEADER WANT TOOL: the top row of TOOL's table in
# FILE (inline_top_) is WANT, marked inlined; prints its share.
inline_top_is_()
{
	local row name
	show_ "$1" 16 >&2
	row=$(inline_top_ "$1" "$2")
	name=${row#* }
	case $name in *" (inline)") ;; *) fail_ "$4: the top row is not inlined: $name" ;; esac
	[ "$(echo "$name" | inline_norm_)" = "$3" ] ||
		fail_ "$4: the top row is $name, not $3"
	echo "${row%% *}"
}

inline_compare_()
{
	local ref=$1 bin=$2 want=$3 n tol ref_name
	shift 3
	require_google_pprof_
	require_go_pprof_
	if [ "$ref" = perf ]; then
		command -v perf > /dev/null || skip_ "perf is not installed"
		ref_name="perf script --inline" tol=10
	else
		command -v eu-stack > /dev/null || skip_ "eu-stack is not installed"
		ref_name="eu-stack -i" tol=25
	fi

	# the shares compared are of the same samples (or eu-stack's, with
	# room for noise): a busy machine's late ticks change nothing here
	run_ptprof_ 120 err -f 200 -o prof -o prof.pb.gz -- "$bin" "$@"
	[ $exit_status -eq 0 ] || fail_ "ptprof exited $exit_status, expected 0"
	[ -s prof ] && [ -s prof.pb.gz ] || fail_ "ptprof wrote no prof or prof.pb.gz"

	timeout -s KILL 120 google-pprof --text "$bin" prof > gp.txt 2> gp.err ||
		fail_ "google-pprof --text failed: $(head -3 gp.err)"
	gp_share=$(inline_top_is_ gp.txt '^Total:' "$want" "google-pprof") || exit 1
	timeout -s KILL 120 go tool pprof -top -nodecount=20 prof.pb.gz > go.txt 2> go.err ||
		fail_ "go tool pprof -top failed: $(head -3 go.err)"
	go_share=$(inline_top_is_ go.txt 'flat%' "$want" "go tool pprof on ptprof's .pb.gz") || exit 1
	awk -v a="$gp_share" -v b="$go_share" 'BEGIN { d = a - b; exit !(d <= 10 && d >= -10) }' ||
		fail_ "$want: $gp_share% in google-pprof, $go_share% in go tool pprof on ptprof's .pb.gz: more than 10 points apart"

	if [ "$ref" = perf ]; then
		inline_perf_ "$bin" "$@"
	else
		inline_eu_stack_ "$bin"
	fi
	n=$(wc -l < ref.txt)
	inline_norm_ < ref.txt | sort | uniq -c | sort -rn > ref.count
	show_ ref.count 5
	set -- $(head -1 ref.count)
	[ "$2" = "$want" ] || fail_ "$ref_name's most common innermost frame is $2, not $want"
	ref_share=$(awk -v k="$1" -v n="$n" 'BEGIN { printf "%.1f", 100 * k / n }')
	awk -v a="$ref_share" -v b="$go_share" -v t="$tol" 'BEGIN { d = a - b; exit !(d <= t && d >= -t) }' ||
		fail_ "$want: $ref_share% of $ref_name's stacks, $go_share% in go tool pprof on ptprof's .pb.gz: more than $tol points apart"
	info_ "$want at the top, inlined: google-pprof $gp_share%, go tool pprof on ptprof's .pb.gz $go_share%, $ref_name $ref_share% ($n stacks)"
}

# eu-stack -i: INLINE_SNAPS snapshots of BIN, run again; the innermost
# frame of each into ref.txt.
inline_eu_stack_()
{
	local i pid
	start_bg_ bin.out "$1" 60
	pid=$bg_pid
	sleep 0.3
	: > ref.txt
	for i in $(seq "$INLINE_SNAPS"); do
		timeout -s KILL 20 eu-stack -i -p "$pid" 2> /dev/null |
			awk '$1 == "#0" { n = $3; for (i = 4; i <= NF; i++) n = n " " $i; print n; exit }' >> ref.txt
	done
	kill_started_ "$pid"
	[ "$(wc -l < ref.txt)" -ge $((INLINE_SNAPS / 2)) ] ||
		fail_ "eu-stack -i gave $(wc -l < ref.txt) stacks of $INLINE_SNAPS"
}

# perf record --call-graph dwarf of BIN ARG... run again, perf script
# --inline: the innermost frame of each sample into ref.txt.
inline_perf_()
{
	timeout -s KILL 120 perf record -q -e cpu-clock -F 200 --call-graph dwarf \
		-o perf.data -- "$@" > perf.out 2>&1 ||
		skip_ "perf record does not run here: $(tail -2 perf.out)"
	timeout -s KILL 300 perf script -i perf.data --inline -F comm,ip,sym 2> perf.err |
		awk '/^[^\t]/ { want = 1; next }
			want && NF >= 2 { n = $2; for (i = 3; i <= NF; i++) n = n " " $i; print n; want = 0 }' > ref.txt
	[ "$(wc -l < ref.txt)" -ge 50 ] ||
		fail_ "perf script gave $(wc -l < ref.txt) samples: $(head -3 perf.err)"
}
