# Test runners for `sbx audit`'s per-test results (issue 16): detection,
# the command line that reports per test, the parsers of that report.
src_libsbx_a_SOURCES += src/runner.c src/runner_parse.c src/runner.h src/runner_impl.h src/runner_report.c src/runner_report.h \
	src/runner_cargo.c src/runner_python.c src/runner_go.c src/runner_node.c src/runner_npm.c src/runner_tap.c src/runner_ctest.c
