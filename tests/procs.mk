## Several processes in one run (issue 14): -p A,B; a COMMAND's
## descendants; a short-lived descendant's CPU time; every process of the
## tree untraced however ptprof ends.  The targets come from integ.mk and
## record.mk.  An endless run frees the images that ended at each
## rotation (issue 30: procs-retire).
## Covers: sampler_procs proctree launch reaper seccomp procset rotate
## Covers: proctree_cn proctree_scan proctree_ts cpuwatch
TESTS += \
	tests/procs-pids.test \
	tests/procs-launch.test \
	tests/procs-short.test \
	tests/procs-untraced.test \
	tests/procs-skip.test \
	tests/procs-exec.test \
	tests/procs-seccomp.test \
	tests/procs-idle.test \
	tests/procs-fds.test \
	tests/procs-pidreuse.test \
	tests/procs-forktree.test \
	tests/procs-make.test \
	tests/procs-storm-rss.test \
	tests/procs-retire.test \
	tests/procs-retire-skip.test \
	tests/procs-zombies.test
EXTRA_DIST += tests/procs.sh

check_PROGRAMS += tests/targets/forktree
tests_targets_forktree_SOURCES = tests/targets/forktree.c
tests_targets_forktree_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_forktree_LDFLAGS = $(PT_TARGET_LINKFLAGS)

check_PROGRAMS += tests/targets/forkstorm
tests_targets_forkstorm_SOURCES = tests/targets/forkstorm.c
tests_targets_forkstorm_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_forkstorm_LDFLAGS = $(PT_TARGET_LINKFLAGS)
