## The command line: every bad input gets one line on stderr and a non-zero
## exit before the target is touched (options.test, like strace's
## options-syntax.test); the permission refusals that need another user
## (options-cap.test) or Yama (options-yama.test), skipped (77) where the
## machine cannot show them.  tests/tools/tracer holds a target traced for
## the "already traced by PID N" case.
## Covers: options cli ptprof errbuf
## Covers: options_usage options_subcmd options_value options_record
check_PROGRAMS += tests/tools/tracer
tests_tools_tracer_SOURCES = tests/tools/tracer.c

TESTS += \
	tests/options.test \
	tests/options-cap.test \
	tests/options-yama.test
