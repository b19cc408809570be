## Whole services (issue 14): real process trees profiled from the outside,
## never traced between ticks: a make -j2 build of a copy of src/, nginx
## (Debian's nginx-light) with a master and two workers on 127.0.0.1, a
## shell script that runs two programs at once.
## Covers: sampler_procs proctree launch
TESTS += \
	tests/service-sh.test \
	tests/service-make.test \
	tests/service-nginx.test
