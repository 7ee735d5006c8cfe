# Test fragments, one per concern. Each adds to check_PROGRAMS and TESTS.
# Unit tests: tests/unit/*-test.c (C, tests/tap.h). Integration tests:
# tests/integration/*.sh (TAP, tests/integration/lib.sh). Helper programs
# the integration tests run: tests/helpers/*.c.
EXTRA_DIST += tests/tap.h tests/integration/lib.sh

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
include tests/peer.mk

# Built by `make` (not only `make check`): README's quick start runs it.
noinst_PROGRAMS += tests/helpers/loopback-fds
tests_helpers_loopback_fds_SOURCES = tests/helpers/loopback-fds.c tests/helpers/loopback-roundtrip.h
include tests/fuzz.mk
include tests/docs.mk
include tests/session.mk
include tests/perf.mk
include tests/real.mk
EXTRA_DIST += tests/debian-packages
