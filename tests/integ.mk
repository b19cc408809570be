## Integration tests with real targets: small programs with noinline
## functions in known places (tests/targets/), profiled by ptprof, and the
## profiles checked with profcat, google-pprof and go tool pprof.  The
## shell tests source tests/init.sh (which, with $(TESTS), is in EXTRA_DIST
## already).
## Covers: sampler sampler_procs sampler_py capture ptctl procfs peek unwind
## Covers: fpstep debugfile symbolize demangle profile profile_load profile_out
## Covers: profile_read pprof_out pprof_read stacktab report thread_report
## Covers: cmd_record cmd_report cmd_dump cli errbuf sysbias cpuacct ticksched
## Covers: threadtab pyrt pymerge pyframes
## Covers: sampler_cpu sampler_late sampler_peek sampler_policy sampler_record
## Covers: sampler_seize sampler_stats sampler_stops sampler_tick
## Covers: record_summary recwrite cpuwatch
## Covers: framename
check_PROGRAMS += \
	tests/targets/split \
	tests/targets/chain \
	tests/targets/threads \
	tests/targets/exiter \
	tests/targets/vdso \
	tests/targets/vforker \
	tests/targets/zleader \
	tests/targets/execer \
	tests/targets/execburn \
	tests/targets/waker \
	tests/targets/mangled \
	tests/targets/cpuwait \
	tests/targets/sysloop \
	tests/targets/faulty \
	tests/targets/bursts \
	tests/targets/hostile \
	tests/targets/fakepy \
	tests/targets/alias

tests_targets_alias_SOURCES = tests/targets/alias.c
tests_targets_alias_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_alias_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_cpuwait_SOURCES = tests/targets/cpuwait.c
tests_targets_cpuwait_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_cpuwait_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_sysloop_SOURCES = tests/targets/sysloop.c
tests_targets_sysloop_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_sysloop_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_faulty_SOURCES = tests/targets/faulty.c
tests_targets_faulty_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_faulty_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_bursts_SOURCES = tests/targets/bursts.c
tests_targets_bursts_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_bursts_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_split_SOURCES = tests/targets/split.c
tests_targets_split_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_split_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_chain_SOURCES = tests/targets/chain.c
tests_targets_chain_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_chain_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_threads_SOURCES = tests/targets/threads.c
tests_targets_threads_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_threads_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_vdso_SOURCES = tests/targets/vdso.c
tests_targets_vdso_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_vdso_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_vforker_SOURCES = tests/targets/vforker.c
tests_targets_vforker_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_vforker_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_zleader_SOURCES = tests/targets/zleader.c
tests_targets_zleader_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_zleader_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_execer_SOURCES = tests/targets/execer.c
tests_targets_execer_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_execer_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_execburn_SOURCES = tests/targets/execburn.c
tests_targets_execburn_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_execburn_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_waker_SOURCES = tests/targets/waker.c
tests_targets_waker_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_waker_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_mangled_SOURCES = tests/targets/mangled.c
tests_targets_mangled_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_mangled_LDFLAGS = $(PT_TARGET_LINKFLAGS)

tests_targets_hostile_SOURCES = tests/targets/hostile.c
tests_targets_hostile_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_hostile_LDFLAGS = $(PT_TARGET_LINKFLAGS)

# _PyRuntime and Py_Version in .dynsym: -rdynamic.
tests_targets_fakepy_SOURCES = tests/targets/fakepy.c
tests_targets_fakepy_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_fakepy_LDFLAGS = $(PT_TARGET_LINKFLAGS) -rdynamic

tests_targets_exiter_SOURCES = tests/targets/exiter.c
tests_targets_exiter_CFLAGS = $(PT_TARGET_CFLAGS)
tests_targets_exiter_LDFLAGS = $(PT_TARGET_LINKFLAGS)

TESTS += \
	tests/vdso.test \
	tests/missed-stall.test \
	tests/syscall-bias.test \
	tests/syscall-truth.test \
	tests/late-stop.test \
	tests/stop-spin.test \
	tests/cpu-mode.test \
	tests/cpu-total.test \
	tests/cpu-1khz.test \
	tests/quiet-threads.test \
	tests/report.test \
	tests/report-symbols.test \
	tests/report-errors.test \
	tests/report-processes.test \
	tests/report-hostile.test \
	tests/dump.test \
	tests/dump-procs.test \
	tests/hostile-names.test \
	tests/exec.test \
	tests/exec-total.test \
	tests/zombie-leader.test \
	tests/suspend.test \
	tests/split.test \
	tests/split-attach.test \
	tests/chain.test \
	tests/python-frames.test \
	tests/dump-python-load.test \
	tests/threads.test \
	tests/modes.test \
	tests/alias.test \
	tests/select.test \
	tests/pprof-google.test \
	tests/pprof-go.test \
	tests/pprof-proto.test \
	tests/exit-status.test \
	tests/signal-stop.test \
	tests/target-exit.test \
	tests/stopped-target.test
EXTRA_DIST += tests/targets/target.h tests/tools/hostile_profile.py \
	tests/targets/pysplit.py tests/targets/pythreads.py

# chain.c again, with no .eh_frame of its own (-fno-asynchronous-unwind-
# tables, and -g): its functions' unwind rules are in .debug_frame only,
# the PIE's .eh_frame_hdr covers just the C runtime's start files.
check_PROGRAMS += tests/targets/chain_dwf
tests_targets_chain_dwf_SOURCES = tests/targets/chain.c
tests_targets_chain_dwf_CFLAGS = $(PT_TARGET_CFLAGS) \
	-fno-asynchronous-unwind-tables -fno-unwind-tables
tests_targets_chain_dwf_LDFLAGS = $(PT_TARGET_LINKFLAGS)
TESTS += tests/chain-debug-frame.test
