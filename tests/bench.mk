## The benchmark's report (bench/report.awk, `make bench`), from results
## written by the test: bench-snapreport.test checks the snapshot table
## and the Targets rows of issue 30 part 6 (dump against eu-stack -i,
## dump --no-inline against eu-stack); bench-keephand.test, that `make
## bench` keeps the report's block written by hand (why a goal is not
## met) after the Targets section.  They cover bench/, no module of
## src/, so this fragment has no Covers: line.
TESTS += tests/bench-snapreport.test tests/bench-keephand.test
