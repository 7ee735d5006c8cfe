# Tests of `sbx audit` (src/audit*.c): the pure verdict, and the corpus of
# suites (tests/corpus) whose verdicts under qa against restrictive are known.
check_PROGRAMS += tests/unit/audit-test
tests_unit_audit_test_SOURCES = tests/unit/audit-test.c
tests_unit_audit_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/audit-test
TESTS += tests/integration/audit-corpus.sh
EXTRA_DIST += tests/integration/audit-corpus.sh tests/corpus
# Signals stop an audit; the --against run is bounded (issue 16).
check_PROGRAMS += tests/helpers/bind-or-wait
TESTS += tests/integration/audit-signals.sh tests/integration/audit-timeout.sh
EXTRA_DIST += tests/integration/audit-signals.sh tests/integration/audit-timeout.sh
