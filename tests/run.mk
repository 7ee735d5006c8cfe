# Tests of the run concern.
check_PROGRAMS += tests/helpers/loopback-echo tests/helpers/open-fds \
	tests/helpers/list-fds tests/helpers/wait-signal
TESTS += \
	tests/integration/run-namespaces.sh \
	tests/integration/run-network.sh \
	tests/integration/run-limits.sh \
	tests/integration/run-privileges.sh \
	tests/integration/run-exit-status.sh \
	tests/integration/run-signals.sh
EXTRA_DIST += tests/integration/run-common.sh \
	tests/integration/run-namespaces.sh \
	tests/integration/run-network.sh \
	tests/integration/run-limits.sh \
	tests/integration/run-privileges.sh \
	tests/integration/run-exit-status.sh \
	tests/integration/run-signals.sh
