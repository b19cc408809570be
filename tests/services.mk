## Whole services (issue 14): real process trees profiled from the outside,
## never traced between ticks: a make -j2 build of a copy of src/, nginx
## (Debian's nginx-light) with a master and two workers on 127.0.0.1, a
## shell script that runs two programs at once.
## Covers: sampler_procs proctree launch
TESTS += \
	tests/service-sh.test \
	tests/service-make.test \
	tests/service-nginx.test

## Real services against perf (issue 26): redis-server under
## redis-benchmark -c 1 and PostgreSQL under pgbench -S, started by the
## test (bench/services.sh, tests/service-perf.sh), ptprof's flat profile
## and share in blocking calls against perf record -e cpu-clock -g of the
## same window.
## Covers: sampler_cpu sampler_tick sampler_stops sysbias cpuacct
TESTS += \
	tests/service-redis.test \
	tests/service-postgres.test
EXTRA_DIST += tests/service-perf.sh

## Real programs nobody here wrote, blocked (issue 28): nginx's idle
## workers in epoll_wait on their listening socket, a PostgreSQL backend
## waiting on a row lock (its latch), a Python deadlock on two
## threading.Lock (semaphores, with their Python frames), make -j2
## waiting for its children and for a jobserver token: each wait named.
## Covers: waitdesc fdname
TESTS += tests/dump-real-waits.test
