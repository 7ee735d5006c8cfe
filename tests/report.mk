# Tests of the run record (`--report`, src/report*.c): the document from
# its inputs, the event log as untrusted input, real runs, and a --report
# path a sandbox planted a link or a fifo at, and --report to stdout, a
# pipe, a device, a fifo.
check_PROGRAMS += tests/unit/report-test
tests_unit_report_test_SOURCES = tests/unit/report-test.c tests/tap.h
tests_unit_report_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/report-test
TESTS += tests/integration/report-run.sh tests/integration/report-links.sh \
	tests/integration/report-targets.sh
EXTRA_DIST += tests/integration/report-run.sh tests/integration/report-links.sh \
	tests/integration/report-targets.sh
