# Tests of the hardening concern (issue 7): the escape suite, stress and
# fault injection. `make stress` and `make valgrind` are separate targets
# (CI runs them); `make security-figures` reproduces docs/security.md's table.
check_PROGRAMS += tests/helpers/escape-probe
TESTS += tests/integration/escape-fs.sh tests/integration/fault-kill.sh tests/integration/fault-timeout.sh \
	tests/integration/escape-proc.sh \
	tests/integration/escape-net.sh \
	tests/integration/escape-tty.sh
EXTRA_DIST += tests/integration/escape-fs.sh tests/integration/fault-kill.sh tests/integration/fault-timeout.sh \
	tests/integration/escape-proc.sh \
	tests/integration/escape-net.sh \
	tests/integration/escape-tty.sh
