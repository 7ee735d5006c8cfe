# Tests of the probe concern: `sbx probe`.

check_PROGRAMS += tests/helpers/seccomp-deny
tests_helpers_seccomp_deny_SOURCES = tests/helpers/seccomp-deny.c
tests_helpers_seccomp_deny_LDADD = $(LIBSECCOMP_LIBS)

# Probe without a sandbox: formats, lo down (a netns made by the test), a
# seccomp filter, a low descriptor limit.
TESTS += tests/integration/probe-formats.sh tests/integration/probe-env.sh
EXTRA_DIST += tests/integration/probe-formats.sh tests/integration/probe-env.sh

# Through sbx's own sandbox: probe under qa, restrictive, --network none.
TESTS += tests/integration/probe-sandbox.sh
EXTRA_DIST += tests/integration/probe-sandbox.sh

# The credentials check against a planted $HOME, outside and under the
# shipped profiles (issue 14 item 11).
TESTS += tests/integration/probe-credentials.sh
EXTRA_DIST += tests/integration/probe-credentials.sh

check_PROGRAMS += tests/unit/probe-test
tests_unit_probe_test_SOURCES = tests/unit/probe-test.c tests/tap.h
tests_unit_probe_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/probe-test
