# Tests of the command line.
check_PROGRAMS += tests/unit/cli-test
tests_unit_cli_test_SOURCES = tests/unit/cli-test.c
tests_unit_cli_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/cli-test tests/integration/cli.sh tests/integration/user-lookup.sh
EXTRA_DIST += tests/integration/cli.sh tests/integration/user-lookup.sh
