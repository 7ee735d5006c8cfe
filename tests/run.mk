# Tests of the run concern.
check_PROGRAMS += tests/helpers/loopback-echo tests/helpers/open-fds \
	tests/helpers/list-fds tests/helpers/wait-signal tests/helpers/deny-userns \
	tests/helpers/count-sigint tests/helpers/fork-bomb
tests_helpers_deny_userns_LDADD = $(LIBSECCOMP_LIBS)
run_integration_tests = \
	tests/integration/run-namespaces.sh \
	tests/integration/run-network.sh \
	tests/integration/run-limits.sh \
	tests/integration/run-privileges.sh \
	tests/integration/run-exit-status.sh \
	tests/integration/run-signals.sh \
	tests/integration/run-refusals.sh \
	tests/integration/run-acceptance.sh \
	tests/integration/run-forkbomb.sh \
	tests/integration/run-project.sh \
	tests/integration/run-landlock.sh \
	tests/integration/escape-landlock.sh \
	tests/integration/landlock-net.sh \
	tests/integration/landlock-profiles.sh \
	tests/integration/run-nesting.sh \
	tests/integration/run-hostname.sh \
	tests/integration/run-foreign-owner.sh \
	tests/integration/run-allow.sh
TESTS += $(run_integration_tests)
EXTRA_DIST += tests/integration/run-common.sh $(run_integration_tests) \
	tests/integration/landlock-net-world.sh
check_PROGRAMS += tests/unit/run-test
tests_unit_run_test_SOURCES = tests/unit/run-test.c
tests_unit_run_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/run-test
# The Landlock tier's address checks, from bytes the command chose.
check_PROGRAMS += tests/unit/landlock-net-test
tests_unit_landlock_net_test_SOURCES = tests/unit/landlock-net-test.c tests/tap.h
tests_unit_landlock_net_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/landlock-net-test
# Every profile key: what the Landlock tier does with it, refusals by file:line.
check_PROGRAMS += tests/unit/landlock-keys-test
tests_unit_landlock_keys_test_SOURCES = tests/unit/landlock-keys-test.c tests/tap.h
tests_unit_landlock_keys_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/landlock-keys-test
check_PROGRAMS += tests/unit/backend-keys-test
tests_unit_backend_keys_test_SOURCES = tests/unit/backend-keys-test.c tests/tap.h
tests_unit_backend_keys_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/backend-keys-test
check_PROGRAMS += tests/unit/sandbox-test
tests_unit_sandbox_test_SOURCES = tests/unit/sandbox-test.c
tests_unit_sandbox_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/sandbox-test
check_PROGRAMS += tests/unit/cgroup-test
tests_unit_cgroup_test_SOURCES = tests/unit/cgroup-test.c
tests_unit_cgroup_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/cgroup-test
# The one diagnosis of a refused namespace (run and probe), facts by hand.
check_PROGRAMS += tests/unit/ns-diagnosis-test
tests_unit_ns_diagnosis_test_SOURCES = tests/unit/ns-diagnosis-test.c tests/tap.h
tests_unit_ns_diagnosis_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/ns-diagnosis-test
# lo brought up through a socket opened in another network namespace
# (net.c), as the supervisor does through init's.
check_PROGRAMS += tests/unit/net-test
tests_unit_net_test_SOURCES = tests/unit/net-test.c
tests_unit_net_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/net-test
# The AppArmor profile the Debian package installs: compiled by Debian's
# apparmor_parser without loading it, and linted (issue 20).
TESTS += tests/integration/apparmor-profile.sh
EXTRA_DIST += tests/integration/apparmor-profile.sh
# Every refusal of a user namespace produced for real (Docker's seccomp
# rules, max_user_namespaces = 0, no CAP_SETFCAP, a masked /proc, AppArmor
# on a faked sysctl), with run's and probe's diagnosis (issue 20).
TESTS += tests/integration/userns-refusals.sh
EXTRA_DIST += tests/integration/userns-refusals.sh
# The sandbox's /etc/hosts from the host's bytes (hosts.c).
check_PROGRAMS += tests/unit/hosts-test
tests_unit_hosts_test_SOURCES = tests/unit/hosts-test.c
tests_unit_hosts_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/hosts-test
# Environment variables naming hidden directories (src/env_paths.c).
check_PROGRAMS += tests/unit/env-paths-test
tests_unit_env_paths_test_SOURCES = tests/unit/env-paths-test.c tests/tap.h
tests_unit_env_paths_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/env-paths-test
