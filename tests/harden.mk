# Tests of the hardening concern (issue 7): the escape suite, stress and
# fault injection. `make stress` and `make valgrind` are separate targets
# (CI runs them); `make security-figures` reproduces docs/security.md's table.
check_PROGRAMS += tests/helpers/escape-probe tests/helpers/net-raw
TESTS += tests/integration/escape-fs.sh tests/integration/fault-kill.sh tests/integration/fault-timeout.sh tests/integration/stress.sh \
	tests/integration/escape-proc.sh \
	tests/integration/escape-net.sh \
	tests/integration/escape-netraw.sh \
	tests/integration/escape-tty.sh \
	tests/integration/escape-persist.sh \
	tests/integration/escape-layers.sh \
	tests/integration/escape-secrets.sh
EXTRA_DIST += tests/integration/escape-fs.sh tests/integration/fault-kill.sh tests/integration/fault-timeout.sh tests/integration/stress.sh \
	tests/integration/escape-proc.sh \
	tests/integration/escape-net.sh \
	tests/integration/escape-netraw.sh \
	tests/integration/escape-tty.sh \
	tests/integration/escape-persist.sh \
	tests/integration/escape-layers.sh \
	tests/integration/escape-secrets.sh
EXTRA_DIST += tests/valgrind/run.sh tests/valgrind/sbx.supp tests/security-figures.sh docs/security.md

# The same environment as make check's tests.
HARDEN_ENV = SBX='$(abs_top_builddir)/src/sbx' \
	SBX_TEST_HELPERS='$(abs_top_builddir)/tests/helpers' \
	SBX_TOP_SRCDIR='$(abs_top_srcdir)' SBX_TOP_BUILDDIR='$(abs_top_builddir)'

# valgrind --leak-check=full on sbx run, probe, profile show and error
# paths: 0 errors, 0 bytes definitely lost (tests/valgrind/run.sh).
valgrind: all $(VALGRIND_SBX)
	$(HARDEN_ENV) SBX='$(abs_top_builddir)/$(VALGRIND_SBX)' $(SHELL) $(top_srcdir)/tests/valgrind/run.sh

# 500 sandboxes, 8 at a time, then the hostile callers (tests/integration/stress.sh;
# make check runs it with 48). STRESS_COUNT=N for another number.
STRESS_COUNT = 500
stress: all
	SBX_STRESS_COUNT=$(STRESS_COUNT) $(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/integration/stress.sh
	@cat tests/integration/stress.log | grep -E '^(ok|not ok|#)'

# docs/security.md's table of figures, measured here: make check's TAP
# counts, the escape classes, fuzzing (FUZZ_SECONDS each), stress, valgrind.
security-figures: all
	$(HARDEN_ENV) FUZZ_SECONDS='$(FUZZ_SECONDS)' STRESS_COUNT='$(STRESS_COUNT)' MAKE='$(MAKE)' \
		$(SHELL) $(top_srcdir)/tests/security-figures.sh

.PHONY: valgrind stress security-figures
