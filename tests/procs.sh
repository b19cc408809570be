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
