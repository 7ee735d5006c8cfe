# Tests of `sbx audit` (src/audit*.c): the pure verdict, and the corpus of
# suites (tests/corpus) whose verdicts under qa against restrictive are known.
check_PROGRAMS += tests/unit/audit-test
tests_unit_audit_test_SOURCES = tests/unit/audit-test.c
tests_unit_audit_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/audit-test
TESTS += tests/integration/audit-corpus.sh
EXTRA_DIST += tests/integration/audit-corpus.sh tests/corpus
# The per-test verdicts (src/audit_tests.c).
check_PROGRAMS += tests/unit/audit-tests-test
tests_unit_audit_tests_test_SOURCES = tests/unit/audit-tests-test.c tests/tap.h
tests_unit_audit_tests_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/audit-tests-test
# Denials attributed without re-running every test (src/audit_attrib.c).
check_PROGRAMS += tests/unit/audit-attrib-test
tests_unit_audit_attrib_test_SOURCES = tests/unit/audit-attrib-test.c tests/tap.h
tests_unit_audit_attrib_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/audit-attrib-test
# The command's output copied through and seen (src/capture.c).
check_PROGRAMS += tests/unit/capture-test
tests_unit_capture_test_SOURCES = tests/unit/capture-test.c tests/tap.h
tests_unit_capture_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/capture-test
# sbx audit test by test, end to end (src/audit_per_test.c).
TESTS += tests/integration/audit-tests.sh
EXTRA_DIST += tests/integration/audit-tests.sh
TESTS += tests/integration/audit-js.sh
EXTRA_DIST += tests/integration/audit-js.sh
TESTS += tests/integration/audit-mocha-report.sh
EXTRA_DIST += tests/integration/audit-mocha-report.sh
TESTS += tests/integration/audit-js-clock.sh
EXTRA_DIST += tests/integration/audit-js-clock.sh
TESTS += tests/integration/audit-runners.sh
# The result channel: names and results never from the output (issues 25, 34).
TESTS += tests/integration/audit-channel.sh
EXTRA_DIST += tests/integration/audit-channel.sh
EXTRA_DIST += tests/integration/audit-runners.sh
# Signals stop an audit; the --against run is bounded (issue 16).
check_PROGRAMS += tests/helpers/bind-or-wait
TESTS += tests/integration/audit-signals.sh tests/integration/audit-timeout.sh
EXTRA_DIST += tests/integration/audit-signals.sh tests/integration/audit-timeout.sh
# Every row true: the suite's start-up, not-observed, limits, bounds (issues 25, 33, 34).
TESTS += tests/integration/audit-verdicts.sh
EXTRA_DIST += tests/integration/audit-verdicts.sh
# Tests failing without a denial re-run by module, in one run each (issue 33).
TESTS += tests/integration/audit-limit-sets.sh
EXTRA_DIST += tests/integration/audit-limit-sets.sh
TESTS += tests/integration/audit-leftover-threads.sh
EXTRA_DIST += tests/integration/audit-leftover-threads.sh
# The CI reports, escaped (src/audit_ci.c).
check_PROGRAMS += tests/unit/audit-ci-test
tests_unit_audit_ci_test_SOURCES = tests/unit/audit-ci-test.c tests/tap.h
tests_unit_audit_ci_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/audit-ci-test
# CPython's network tests: tests/real/cpython-net.sh (make check-real, tests/real.mk).
