# Tests of the probe concern: `sbx probe` and the run record.
check_PROGRAMS += tests/unit/report-test
tests_unit_report_test_SOURCES = tests/unit/report-test.c tests/tap.h
tests_unit_report_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/report-test
