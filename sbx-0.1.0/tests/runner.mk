# Tests of the test runners (src/runner*.c): the parsers against the
# outputs of the real runners captured in tests/corpus/runners (gen.sh
# regenerates them), chunked at every split point.
check_PROGRAMS += tests/unit/runner-test
tests_unit_runner_test_SOURCES = tests/unit/runner-test.c
tests_unit_runner_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/runner-test
