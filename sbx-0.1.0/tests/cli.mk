# Tests of the command line.
check_PROGRAMS += tests/unit/cli-test
tests_unit_cli_test_SOURCES = tests/unit/cli-test.c
tests_unit_cli_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/cli-test tests/integration/cli.sh tests/integration/user-lookup.sh
EXTRA_DIST += tests/integration/cli.sh tests/integration/user-lookup.sh
# The shared system-reading helpers of util.c (PATH walk, /proc/sys reads).
check_PROGRAMS += tests/unit/util-test
tests_unit_util_test_SOURCES = tests/unit/util-test.c tests/tap.h
tests_unit_util_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/util-test
