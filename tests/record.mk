## The record command's behaviour around the run: an existing profile kept
## as FILE.old, the warning about CPU time used by COMMAND's children, the
## progress line on a terminal, where --top goes.
TESTS += \
	tests/keep-old.test \
	tests/top-output.test
