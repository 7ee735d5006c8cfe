# Test fragments, one per concern. Each adds to check_PROGRAMS and TESTS.
# Unit tests: tests/unit/*-test.c (C, tests/tap.h). Integration tests:
# tests/integration/*.sh (TAP, tests/integration/lib.sh). Helper programs
# the integration tests run: tests/helpers/*.c.
EXTRA_DIST += tests/tap.h tests/integration/lib.sh

# The peer suites first: the longest scripts (CPython's ~4 min, Go's ~2),
# started first under make -j2, run beside the rest instead of alone at
# the end (1.5 min of each suite's wall time, four suites in CI).
include tests/peer.mk
include tests/profile.mk
include tests/cli.mk
include tests/run.mk
include tests/mount.mk
include tests/seccomp.mk
include tests/probe.mk
include tests/report.mk
include tests/audit.mk
include tests/runner.mk
include tests/harden.mk
include tests/agents.mk
include tests/ci.mk

# Built by `make` (not only `make check`): README's quick start runs it.
noinst_PROGRAMS += tests/helpers/loopback-fds
tests_helpers_loopback_fds_SOURCES = tests/helpers/loopback-fds.c tests/helpers/loopback-roundtrip.h
include tests/fuzz.mk
include tests/docs.mk
include tests/session.mk
include tests/perf.mk
include tests/real.mk
EXTRA_DIST += tests/debian-packages
