# Test runners for `sbx audit`'s per-test results (issue 16): detection,
# the command line that reports per test, the parsers of that report.
src_libsbx_a_SOURCES += src/runner.c src/runner_parse.c src/runner.h
