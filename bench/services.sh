#!/bin/bash
# bench/services.sh - ptprof against perf on a real service at normal
# load (issue 26): one window of one service, or, sourced, the functions
# bench/accuracy.sh runs its service rows with.
#
#   bench/services.sh SERVICE DIR     measure one window into the new
#                                     directory DIR, print its result line
#
# SERVICE is one of
#   redis-light   redis-server on 127.0.0.1, `redis-benchmark -c 1 -t get,set`
#                 (handlers of microseconds, then epoll_wait)
#   redis-heavy   the same with -c 4
#   postgres      PostgreSQL (initdb in a temporary directory, a unix socket
#                 there, no TCP), `pgbench -S` (select-only, unthrottled,
#                 one client) on a scale-1 database
#   python-http   `python3 -m http.server` on 127.0.0.1 serving a 4 KB file,
#                 one request every 20 ms from a python3 client (ptprof
#                 with --no-python: perf sees the eval loop, not the
#                 Python functions)
#   nginx-4k      nginx, a master and 2 workers on 127.0.0.1, a 4 KB file
#                 to `wrk -t 1 -c 4` (or, without wrk, two curl loops)
#
# A window: the service is started, its load is started and left
# SVC_WARMUP s, then the service's process tree (the root and every
# descendant there now, with their threads) is recorded in the SAME
# SVC_SECS window by
#   ptprof -p ROOT --children -f SVC_HZ -d SVC_SECS -o DIR/ptprof.pb.gz
#   perf record -e cpu-clock -F SVC_HZ -g -p ROOT,DESCENDANTS...
# Both become flat profiles by function (bench/flat.sh: the leaf frame,
# perf's kernel samples at their first user frame, names keyed by module
# and function start), and
#   o_pt       overlap(ptprof, perf) = sum over functions of min(share)
#   self       overlap(perf's odd samples, perf's even samples): the noise
#              floor, two halves of the same profile
#   ratio      o_pt / self (issue 26's goal: >= 0.90)
#   blk_pt, blk_perf   each one's share in blocking calls (SVC_BLOCKING:
#              the one list of them), in percent (goal: within 10 points)
#   top_pt, top_perf   each one's largest row, name:percent
# The result line, "service=S status=ok o_pt=... self=... ratio=...
# blk_pt=... blk_perf=... blk_diff=... top_pt=... top_perf=... n_pt=...
# n_perf=... kernel_perf=... load=...", goes to stdout and DIR/result;
# DIR keeps the flat profiles, the shares (DIR/shares.tsv: key, label,
# ptprof, perf, perf odd, perf even) and every log.  Exit 0 when measured,
# 2 when perf record cannot run here (DIR/result says why), 1 otherwise.
#
# PostgreSQL refuses to run as root: as root, initdb and postgres run as
# the `postgres` user of Debian's postgresql-common (setpriv, which execs:
# the PID started is the postmaster's), in a directory of their own under
# ${TMPDIR:-/tmp}.  Every service listens on 127.0.0.1 or a unix socket
# only; every process is started here and ended by its PID (the load
# first, then the service); every wait is bounded; no network.
#
# Settings: SVC_SECS (6), SVC_WARMUP (2), SVC_HZ (1000), SVC_PG_BIN (the
# newest /usr/lib/postgresql/*/bin), SVC_PYTHON (/usr/bin/python3).

SVC_SECS=${SVC_SECS:-6}
SVC_WARMUP=${SVC_WARMUP:-2}
SVC_HZ=${SVC_HZ:-1000}
SVC_PYTHON=${SVC_PYTHON:-/usr/bin/python3}
SERVICES_ALL="redis-light redis-heavy postgres python-http nginx-4k"

# The blocking calls: where a thread waits (for a socket, a pipe, a
# lock, a timer, a child, a signal), by the name of the libc function (or
# its alias: svc_blocking_share strips __GI_, leading underscores, libc_
# and _nocancel first).  read and recv count whether or not the socket
# was ready (a service's reads mostly follow an epoll_wait); pread, a
# file's, does not.  One list, for ptprof and perf alike.
SVC_BLOCKING="epoll_wait epoll_pwait epoll_pwait2 poll ppoll select pselect
pselect6 read readv recv recvfrom recvmsg recvmmsg accept accept4 futex_wait futex_abstimed_wait_common
futex_abstimed_wait_common64 lll_lock_wait pthread_cond_wait
pthread_cond_timedwait pthread_cond_clockwait pthread_join sem_wait
sem_timedwait sem_clockwait do_futex_wait nanosleep clock_nanosleep
usleep sleep pause sigsuspend sigtimedwait sigwaitinfo sigwait wait4
waitpid waitid msgrcv semop semtimedop io_getevents"

# Every process this file started and still has to end, by PID.
SVC_PIDS=""
SVC_PGDIR=""
SVC_STOPFILE=""

# --- Processes ----------------------------------------------------------------

# Remember PID $1 to end it.
svc_started() {
	SVC_PIDS="$1 $SVC_PIDS"
}

# End every process started here, the last started first (the load before
# the service); PostgreSQL gets INT (its fast shutdown: TERM waits for the
# clients), the others TERM, then KILL (lib.sh stop_pid).
svc_stop_all() {
	local p
	[ -n "$SVC_STOPFILE" ] && : >"$SVC_STOPFILE"
	for p in $SVC_PIDS; do
		if [ "$p" = "${SVC_PG_PID:-}" ] && alive "$p"; then
			kill -INT "$p" 2>/dev/null
			wait_gone "$p" 20
		fi
		stop_pid "$p"
	done
	SVC_PIDS=""
	if [ -n "$SVC_PGDIR" ]; then
		rm -rf "$SVC_PGDIR"
		SVC_PGDIR=""
	fi
}

# PID $1 and every descendant there now (their /proc children lists),
# one a line.
svc_tree() {
	local todo=$1 p kids
	while [ -n "$todo" ]; do
		# A list of PIDs, split on purpose.
		# shellcheck disable=SC2086
		set -- $todo
		p=$1
		shift
		todo="$*"
		echo "$p"
		kids=$(cat /proc/"$p"/task/*/children 2>/dev/null)
		todo="$todo $kids"
		todo=${todo# }
	done
}

# Run "$@" until it succeeds, every 0.05 s, at most $1 s (shifted off).
svc_until() {
	local i n=$(($1 * 20))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		nap 0.05
	done
	return 1
}

# A free TCP port on 127.0.0.1.
svc_port() {
	"$SVC_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A client that GETs URL $2 every $3 s (a new connection each time), while
# file $SVC_STOPFILE is absent, at most $4 s; its output in $1.  One
# python3 process, not a curl per request: on a busy 2-CPU machine
# starting curl takes longer than the period (a curl loop made 5 requests
# a second, not 50).
svc_paced_client() {
	local out=$1 url=$2 gap=$3 bound=$4
	SVC_STOPFILE=${SVC_STOPFILE:-$SVC_DIR/stop}
	"$SVC_PYTHON" -c '
import os, sys, time, urllib.request
url, gap, bound, stop = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
t0 = time.monotonic()
nxt, n, bad = t0, 0, 0
while time.monotonic() - t0 < bound and not os.path.exists(stop):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            r.read()
        n += 1
    except OSError:
        bad += 1
    nxt += gap
    time.sleep(max(0.0, nxt - time.monotonic()))
    if nxt < time.monotonic() - 1:
        nxt = time.monotonic()
print("requests", n, "failed", bad, flush=True)
' "$url" "$gap" "$bound" "$SVC_STOPFILE" >"$out" 2>&1 </dev/null &
	svc_started $!
}

# A 4 KB file, $1.
svc_4k() {
	head -c 4096 /dev/zero | tr '\0' 'x' >"$1"
}

# A loop of curl requests to URL $2, one every $3 s (0: back to back),
# while file $SVC_STOPFILE is absent, at most $4 s; its output in $1.
svc_curl_loop() {
	local out=$1 url=$2 gap=$3 bound=$4
	SVC_STOPFILE=${SVC_STOPFILE:-$SVC_DIR/stop}
	(
		end=$((SECONDS + bound))
		while [ ! -e "$SVC_STOPFILE" ] && [ "$SECONDS" -lt "$end" ]; do
			curl -s --max-time 2 -o /dev/null "$url"
			[ "$gap" = 0 ] || nap "$gap"
		done
	) >"$out" 2>&1 </dev/null &
	svc_started $!
}

# --- Services -------------------------------------------------------------------
# svc_start_NAME: start the service and its load in $SVC_DIR, bounded by
# $1 s; set SVC_ROOT (the process tree to profile) and SVC_WHAT (the
# load, for the report).  Fail with a sentence in SVC_WHY.

svc_start_redis() {
	local bound=$1 clients=$2 port
	port=$(svc_port) || { SVC_WHY="no free port"; return 1; }
	redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
		--daemonize no --dir "$SVC_DIR" >"$SVC_DIR/service.log" 2>&1 </dev/null &
	SVC_ROOT=$!
	svc_started "$SVC_ROOT"
	svc_until 10 sh -c "redis-cli -h 127.0.0.1 -p $port ping | grep -q PONG" || {
		SVC_WHY="redis-server does not answer: $(tail -1 "$SVC_DIR/service.log")"
		return 1
	}
	# -l: until stopped (by PID, after the window); -q: one line a test.
	redis-benchmark -h 127.0.0.1 -p "$port" -c "$clients" -t get,set -l -q \
		>"$SVC_DIR/load.log" 2>&1 </dev/null &
	svc_started $!
	SVC_WHAT="redis-server $(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p'), redis-benchmark -c $clients -t get,set"
}

svc_start_postgres() {
	local bound=$1 bin=${SVC_PG_BIN:-} as="" pg
	[ -n "$bin" ] || bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	[ -x "$bin/postgres" ] || { SVC_WHY="no PostgreSQL in ${bin:-/usr/lib/postgresql}"; return 1; }
	SVC_PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/ptprof-pg.XXXXXX") || { SVC_WHY="mktemp failed"; return 1; }
	pg=$SVC_PGDIR
	if [ "$(id -u)" = 0 ]; then
		# PostgreSQL will not run as root: Debian's postgres user.
		id postgres >/dev/null 2>&1 || { SVC_WHY="no user postgres (Debian's postgresql-common makes it)"; return 1; }
		chown postgres: "$pg"
		chmod 755 "$pg"
		as="setpriv --reuid=postgres --regid=postgres --clear-groups --"
	fi
	$as "$bin/initdb" -D "$pg/data" -U postgres -A trust -N >"$SVC_DIR/initdb.log" 2>&1 </dev/null || {
		SVC_WHY="initdb failed: $(tail -1 "$SVC_DIR/initdb.log")"
		return 1
	}
	# No TCP: the socket in $pg.  No fsync: a benchmark's database.
	$as "$bin/postgres" -D "$pg/data" -c listen_addresses= -c port=5432 \
		-c unix_socket_directories="$pg" -c fsync=off \
		-c shared_buffers=32MB >"$SVC_DIR/service.log" 2>&1 </dev/null &
	SVC_ROOT=$!
	SVC_PG_PID=$SVC_ROOT
	svc_started "$SVC_ROOT"
	svc_until 20 "$bin/pg_isready" -q -h "$pg" -p 5432 || {
		SVC_WHY="postgres does not answer: $(tail -1 "$SVC_DIR/service.log")"
		return 1
	}
	timeout 120 "$bin/pgbench" -h "$pg" -p 5432 -U postgres -i -s 1 -q postgres \
		>"$SVC_DIR/pgbench-init.log" 2>&1 </dev/null || {
		SVC_WHY="pgbench -i failed: $(tail -1 "$SVC_DIR/pgbench-init.log")"
		return 1
	}
	"$bin/pgbench" -h "$pg" -p 5432 -U postgres -S -c 1 -T "$bound" postgres \
		>"$SVC_DIR/load.log" 2>&1 </dev/null &
	svc_started $!
	SVC_WHAT="PostgreSQL $("$bin/postgres" --version | awk '{ print $3 }'), pgbench -S -c 1 (scale 1, unthrottled)"
}

svc_start_python_http() {
	local bound=$1 port
	port=$(svc_port) || { SVC_WHY="no free port"; return 1; }
	mkdir -p "$SVC_DIR/www"
	svc_4k "$SVC_DIR/www/f4k"
	"$SVC_PYTHON" -m http.server --bind 127.0.0.1 --directory "$SVC_DIR/www" "$port" \
		>"$SVC_DIR/service.log" 2>&1 </dev/null &
	SVC_ROOT=$!
	svc_started "$SVC_ROOT"
	svc_until 10 curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$port/f4k" || {
		SVC_WHY="http.server does not answer: $(tail -1 "$SVC_DIR/service.log")"
		return 1
	}
	svc_paced_client "$SVC_DIR/load.log" "http://127.0.0.1:$port/f4k" 0.02 "$bound"
	SVC_WHAT="$("$SVC_PYTHON" --version 2>&1) -m http.server, a request every 20 ms (4 KB, a python3 client)"
	SVC_PTPROF_ARGS="--no-python"
}

svc_start_nginx_4k() {
	local bound=$1 port nginx
	nginx=$(command -v nginx || echo /usr/sbin/nginx)
	[ -x "$nginx" ] || { SVC_WHY="no nginx"; return 1; }
	port=$(svc_port) || { SVC_WHY="no free port"; return 1; }
	mkdir -p "$SVC_DIR/www" "$SVC_DIR/body" "$SVC_DIR/proxy" "$SVC_DIR/fastcgi"
	svc_4k "$SVC_DIR/www/f4k"
	cat >"$SVC_DIR/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes 2;
$([ "$(id -u)" = 0 ] && echo "user root;")
pid $SVC_DIR/nginx.pid;
error_log stderr;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $SVC_DIR/body;
	proxy_temp_path $SVC_DIR/proxy;
	fastcgi_temp_path $SVC_DIR/fastcgi;
	types { text/plain txt; }
	default_type text/plain;
	server {
		listen 127.0.0.1:$port reuseport;
		root $SVC_DIR/www;
	}
}
EOF
	"$nginx" -p "$SVC_DIR" -c "$SVC_DIR/nginx.conf" >"$SVC_DIR/service.log" 2>&1 </dev/null &
	SVC_ROOT=$!
	svc_started "$SVC_ROOT"
	svc_until 10 curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$port/f4k" || {
		SVC_WHY="nginx does not answer: $(tail -1 "$SVC_DIR/service.log")"
		return 1
	}
	if command -v wrk >/dev/null; then
		wrk -t 1 -c 4 -d "${bound}s" "http://127.0.0.1:$port/f4k" \
			>"$SVC_DIR/load.log" 2>&1 </dev/null &
		svc_started $!
		SVC_WHAT="nginx $("$nginx" -v 2>&1 | sed 's|.*/||'), 2 workers, a 4 KB file to wrk -t 1 -c 4"
	else
		svc_curl_loop "$SVC_DIR/load.log" "http://127.0.0.1:$port/f4k" 0 "$bound"
		svc_curl_loop "$SVC_DIR/load2.log" "http://127.0.0.1:$port/f4k" 0 "$bound"
		SVC_WHAT="nginx $("$nginx" -v 2>&1 | sed 's|.*/||'), 2 workers, a 4 KB file to two curl loops"
	fi
}

# --- Analysis ---------------------------------------------------------------------

# Share (percent) of column $1 of shares file $2 in the blocking calls.
svc_blocking_share() {
	awk -F'\t' -v c="$1" -v list="$SVC_BLOCKING" '
	BEGIN { n = split(list, l, /[ \n]+/); for (i = 1; i <= n; i++) blk[l[i]] = 1 }
	{
		name = $2
		sub(/ \[[^]]*\]$/, "", name)
		sub(/^__GI_/, "", name); sub(/^_+/, "", name)
		sub(/^libc_/, "", name); sub(/^_+/, "", name)
		sub(/_nocancel$/, "", name)
		if (name in blk)
			s += $c
	}
	END { printf "%.1f", 100 * s }' "$2"
}

# The largest row of column $1 of shares file $2, as name:percent.
svc_top() {
	sort -t"$(printf '\t')" -k"$1,$1"gr "$2" | awk -F'\t' -v c="$1" 'NR == 1 {
		name = $2; sub(/ \[[^]]*\]$/, "", name); gsub(/[ :=]/, "~", name)
		printf "%s:%.1f", name, 100 * $c }'
}

# Flat profiles, shares, overlaps and blocking shares of window directory
# $1 of service $2: the result line on stdout.
svc_analyse() {
	local d=$1 s=$2 o self ratio bpt bpf npt npf ka ons selfns rns bns sw
	flat_ptprof "$d/ptprof.pb.gz" >"$d/ptprof.flat"
	flat_perf "$d/perf.data" >"$d/perf.flat" 2>"$d/perf.kernel"
	flat_perf "$d/perf.data" noswitch >"$d/perfns.flat" 2>/dev/null
	# One line per perf sample, in order: the odd and the even ones.
	awk 'NR % 2' "$d/perf.flat" >"$d/perf1.flat"
	awk '!(NR % 2)' "$d/perf.flat" >"$d/perf2.flat"
	awk 'NR % 2' "$d/perfns.flat" >"$d/perfns1.flat"
	awk '!(NR % 2)' "$d/perfns.flat" >"$d/perfns2.flat"
	tables_for "$d/maps" "$d/ptprof.flat" "$d/perf.flat" >"$d/tables"
	for p in ptprof perf perf1 perf2 perfns perfns1 perfns2; do
		canon "$d/tables" "$d/$p.flat" >"$d/$p.canon"
	done
	rm -f "$d/tables"
	shares "$d/ptprof.canon" "$d/perf.canon" "$d/perf1.canon" "$d/perf2.canon" \
		"$d/perfns.canon" "$d/perfns1.canon" "$d/perfns2.canon" >"$d/shares.tsv"
	o=$(overlap 3 4 "$d/shares.tsv")
	self=$(overlap 5 6 "$d/shares.tsv")
	ratio=$(awk -v a="$o" -v b="$self" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print 0 }')
	bpt=$(svc_blocking_share 3 "$d/shares.tsv")
	bpf=$(svc_blocking_share 4 "$d/shares.tsv")
	# The same against perf without its samples in the scheduler's
	# switch (flat_perf noswitch): what a ptrace stop can see.
	ons=$(overlap 3 7 "$d/shares.tsv")
	selfns=$(overlap 8 9 "$d/shares.tsv")
	rns=$(awk -v a="$ons" -v b="$selfns" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print 0 }')
	bns=$(svc_blocking_share 7 "$d/shares.tsv")
	npt=$(awk -F'\t' '{ s += $1 } END { printf "%.0f", s }' "$d/ptprof.flat")
	npf=$(wc -l <"$d/perf.flat")
	ka=$(awk '{ split($1, k, "="); split($2, t, "=");
		if (t[2] > 0) printf "%.1f", 100 * k[2] / t[2] }' "$d/perf.kernel")
	sw=$(awk '{ split($2, t, "="); split($3, w, "=");
		if (t[2] > 0) printf "%.1f", 100 * w[2] / t[2] }' "$d/perf.kernel")
	echo "service=$s status=ok o_pt=$o self=$self ratio=$ratio" \
		"blk_pt=$bpt blk_perf=$bpf" \
		"blk_diff=$(awk -v a="$bpt" -v b="$bpf" 'BEGIN { printf "%.1f", a - b }')" \
		"top_pt=$(svc_top 3 "$d/shares.tsv") top_perf=$(svc_top 4 "$d/shares.tsv")" \
		"n_pt=$npt n_perf=$npf kernel_perf=${ka:-0} switch_perf=${sw:-0}" \
		"ratio_ns=$rns blk_perf_ns=$bns" \
		"blk_diff_ns=$(awk -v a="$bpt" -v b="$bns" 'BEGIN { printf "%.1f", a - b }')" \
		"load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)"
}

# --- One window ---------------------------------------------------------------------

# Measure service $1 into the new directory $2 (its result line on
# stdout and in $2/result).  Returns 0 measured, 2 perf cannot run, 1 not
# measured (the line says why).
svc_measure() {
	local s=$1 d=$2 bound st=ok rc pids
	SVC_DIR=$d SVC_ROOT="" SVC_WHY="" SVC_WHAT="" SVC_PTPROF_ARGS="" SVC_PG_PID=""
	SVC_STOPFILE=$d/stop
	mkdir -p "$d" || return 1
	rm -f "$SVC_STOPFILE"
	bound=$((${SVC_WARMUP%.*} + ${SVC_SECS%.*} + 30))
	if ! "$PERF" record -e cpu-clock -F 99 -g --no-buildid-cache \
		-o "$d/check.data" -- true >"$d/perf-check.log" 2>&1 || [ ! -s "$d/check.data" ]; then
		echo "service=$s status=unavailable why=perf~record~-e~cpu-clock~fails~here:~$(grep -v '^\s*$' "$d/perf-check.log" | head -1 | tr ' =' '~~')" |
			tee "$d/result"
		return 2
	fi
	rm -f "$d/check.data"
	case $s in
	redis-light) svc_start_redis "$bound" 1 ;;
	redis-heavy) svc_start_redis "$bound" 4 ;;
	postgres) svc_start_postgres "$bound" ;;
	python-http) svc_start_python_http "$bound" ;;
	nginx-4k) svc_start_nginx_4k "$bound" ;;
	*)
		echo "service=$s status=fail:unknown-service" | tee "$d/result"
		return 1
		;;
	esac
	rc=$?
	echo "$SVC_WHAT" >"$d/what"
	if [ "$rc" != 0 ]; then
		svc_stop_all
		echo "service=$s status=fail:not-started why=$(echo "$SVC_WHY" | tr ' =' '~~')" | tee "$d/result"
		return 1
	fi
	nap "$SVC_WARMUP"
	pids=$(svc_tree "$SVC_ROOT" | paste -sd, -)
	for p in ${pids//,/ }; do cat "/proc/$p/maps" 2>/dev/null; done >"$d/maps"
	echo "$pids" >"$d/pids"
	# $SVC_PTPROF_ARGS is empty or one word; $PT_ARGS, words
	# (bench/accuracy.sh's ACC_PTPROF_ARGS).
	# shellcheck disable=SC2086
	window_record "$d" "$SVC_HZ" "$pids" "$SVC_SECS" \
		"$PTPROF" -p "$SVC_ROOT" --children -f "$SVC_HZ" -d "$SVC_SECS" \
		$SVC_PTPROF_ARGS ${PT_ARGS:-} --stats -o "$d/ptprof.pb.gz"
	alive "$SVC_ROOT" || [ "$st" != ok ] || st=fail:service-ended-early
	svc_stop_all
	[ -s "$d/ptprof.pb.gz" ] || [ "$st" != ok ] || st=fail:no-profile
	if [ "$st" != ok ]; then
		echo "service=$s status=$st" | tee "$d/result"
		return 1
	fi
	svc_analyse "$d" "$s" | tee "$d/result"
	[ "${ACC_KEEP:-0}" = 1 ] || rm -f "$d/perf.data"
	return 0
}

# --- Run as a script --------------------------------------------------------------------

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	BENCH_TAG=services BENCH_SCRIPT=services.sh
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	. "$here/lib.sh"
	. "$here/flat.sh"
	[ $# = 2 ] || die "usage: $BENCH_SCRIPT SERVICE DIR (SERVICE: $SERVICES_ALL)"
	[[ " $SERVICES_ALL " = *" $1 "* ]] || die "unknown service '$1' (want one of: $SERVICES_ALL)"
	[ ! -e "$2" ] || die "$2 exists: give a new directory"
	check_settings "$SVC_SECS" "$SVC_WARMUP" "$SVC_HZ"
	mkdir -p "$2" || die "cannot create $2"
	mkfifo "$2/.nap" || die "mkfifo failed"
	exec {NAP_FD}<>"$2/.nap"
	PA="" PT=""
	svc_out=$2
	svc_exit() {
		[ -n "$PA" ] && stop_perf "$PA"
		[ -n "$PT" ] && stop_pid "$PT"
		svc_stop_all
		rm -f "$svc_out/.nap"
	}
	trap svc_exit EXIT
	trap 'exit 130' INT TERM
	svc_measure "$1" "$2"
	exit $?
fi
