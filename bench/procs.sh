# bench/procs.sh - process helpers shared by bench/run.sh and
# bench/accuracy.sh (sourced, not run).  Every wait is bounded; a process
# is only ever signalled by the PID its starter got from $!.
#
# The caller opens NAP_FD on a FIFO nobody writes before it calls nap:
#   mkfifo "$dir/.nap" && exec {NAP_FD}<>"$dir/.nap"

# Sleep without forking a process (the fd is a FIFO nobody writes).
nap() {
	read -r -t "$1" -u "$NAP_FD" _ 2>/dev/null || :
}

# Alive and not a zombie.
alive() {
	local st
	[ -r "/proc/$1/stat" ] || return 1
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

# Wait up to $2 seconds for process $1 to end.
wait_gone() {
	local i n=$(($2 * 20))
	for ((i = 0; i < n; i++)); do
		alive "$1" || return 0
		nap 0.05
	done
	! alive "$1"
}

# End a process this script started: TERM, then KILL; then reap it.
stop_pid() {
	if alive "$1"; then
		kill -TERM "$1" 2>/dev/null
		wait_gone "$1" 5 || {
			kill -KILL "$1" 2>/dev/null
			wait_gone "$1" 5
		}
	fi
	wait "$1" 2>/dev/null
}

# Wait up to $3 s for process $2 to write "ready" as the first line of
# file $1; fails at once if it dies.
wait_ready() {
	local i line
	for ((i = 0; i < $3 * 100; i++)); do
		if [ -s "$1" ]; then
			read -r line <"$1" || :
			[ "$line" = ready ] && return 0
		fi
		alive "$2" || return 1
		nap 0.01
	done
	return 1
}
