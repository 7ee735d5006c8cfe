# Tests of the test runners (src/runner*.c): the parsers against the
# outputs of the real runners captured in tests/corpus/runners (gen.sh
# regenerates them), chunked at every split point.
check_PROGRAMS += tests/unit/runner-test
tests_unit_runner_test_SOURCES = tests/unit/runner-test.c
tests_unit_runner_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/runner-test
# The result reporter's records and channel (src/runner_report.c).
check_PROGRAMS += tests/unit/runner-report-test
tests_unit_runner_report_test_SOURCES = tests/unit/runner-report-test.c tests/tap.h
tests_unit_runner_report_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/runner-report-test
