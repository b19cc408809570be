## The benchmark's report (bench/report.awk, `make bench`), from results
## written by the test: bench-snapreport.test checks the snapshot table
## and the Targets rows of issue 30 part 6 (dump against eu-stack -i,
## dump --no-inline against eu-stack).  It covers bench/, no module of
## src/, so this fragment has no Covers: line.
TESTS += tests/bench-snapreport.test
