# procs.sh - helpers of the tests of several processes (tests/procs-*.test),
# sourced after init.sh.

# proc_row_ ERRFILE COMM: "PID SAMPLES" of --stats' first row of a process
# named COMM ("ptprof: stats: process PID (COMM): N samples, ..."); empty
# when there is none.
proc_row_()
{
	sed -n "s/^ptprof: stats: process \([0-9]*\) ($2): \([0-9]*\) samples.*/\1 \2/p" "$1" |
		head -n 1
}

# proc_samples_ ERRFILE COMM: that row's samples, 0 without one.
proc_samples_()
{
	local row
	row=$(proc_row_ "$1" "$2")
	echo "${row#* }" | awk '{ print $1 + 0 }'
}

# children_of_ PID: the PIDs of PID's children, one a line.
children_of_()
{
	cat /proc/"$1"/task/*/children 2> /dev/null | tr ' ' '\n' | sed '/^$/d'
}

# tree_of_ PID: PID and its descendants now, one a line.
tree_of_()
{
	local p
	echo "$1"
	for p in $(children_of_ "$1"); do
		tree_of_ "$p"
	done
}

# go_labels_ FILE: the thread_id labels of FILE's samples (go tool pprof
# -raw), one a line, sorted, distinct.
go_labels_()
{
	go tool pprof -raw "$1" 2> /dev/null |
		sed -n 's/.*thread_id:\[\([0-9]*\)\].*/\1/p' | sort -u
}

# check_by_process_ FILE COMM FUNC...: `ptprof report` of FILE shows a
# --processes row for COMM, and in --pid=COMM's table each FUNC: the
# process labels and each image's own mappings.  Returns 2 (and says so)
# when this ptprof's report has no --processes.
check_by_process_()
{
	local file=$1 comm=$2 f
	shift 2
	if ! "$PTPROF" report --processes "$file" > "$file.procs" 2> "$file.procs.err"; then
		grep -q 'processes' "$file.procs.err" ||
			fail_ "report --processes $file: $(cat "$file.procs.err")"
		info_ "note: report has no --processes here: $(head -n 1 "$file.procs.err")"
		return 2
	fi
	grep -Eq "^ +[0-9]+ +[0-9.]+% +[0-9]+ +$comm\$" "$file.procs" ||
		fail_ "report --processes $file: no row for $comm: $(cat "$file.procs")"
	"$PTPROF" report --pid="$comm" --top=0 "$file" > "$file.$comm" 2>&1 ||
		fail_ "report --pid=$comm $file: $(cat "$file.$comm")"
	for f in "$@"; do
		grep -q " $f \[$comm\]\$" "$file.$comm" ||
			fail_ "report --pid=$comm: no $f [$comm]: $(cat "$file.$comm")"
	done
	info_ "ok: $comm is in $file, labelled, its functions named"
}
