# Tests of the seccomp concern.
check_PROGRAMS += tests/helpers/seccomp-run tests/helpers/bind-storm \
	tests/helpers/seccomp-probe tests/helpers/ledger-race tests/helpers/write-probe
tests_helpers_seccomp_run_SOURCES = tests/helpers/seccomp-run.c
tests_helpers_seccomp_run_LDADD = src/libsbx.a $(SBX_LIBS)
tests_helpers_bind_storm_SOURCES = tests/helpers/bind-storm.c
tests_helpers_bind_storm_LDADD = -lpthread
tests_helpers_seccomp_probe_SOURCES = tests/helpers/seccomp-probe.c tests/helpers/helper-util.h
tests_helpers_seccomp_probe_LDADD = -lpthread
tests_helpers_ledger_race_SOURCES = tests/helpers/ledger-race.c tests/helpers/helper-util.h
tests_helpers_ledger_race_LDADD = -lpthread
tests_helpers_write_probe_SOURCES = tests/helpers/write-probe.c tests/helpers/helper-util.h
tests_helpers_write_probe_LDADD = -lpthread
TESTS += tests/integration/seccomp-default.sh tests/integration/seccomp-ledger.sh \
	tests/integration/seccomp-i386.sh
EXTRA_DIST += tests/integration/seccomp-default.sh tests/integration/seccomp-ledger.sh \
	tests/integration/seccomp-i386.sh tests/helpers/socketcall32.c
check_PROGRAMS += tests/unit/ledger-test
tests_unit_ledger_test_SOURCES = tests/unit/ledger-test.c
tests_unit_ledger_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/ledger-test
TESTS += tests/integration/seccomp-sbx.sh tests/integration/run-refused-writes.sh
EXTRA_DIST += tests/integration/seccomp-sbx.sh tests/integration/run-refused-writes.sh
check_PROGRAMS += tests/unit/net-families-test
tests_unit_net_families_test_SOURCES = tests/unit/net-families-test.c
tests_unit_net_families_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/net-families-test
check_PROGRAMS += tests/unit/sockaddr-test
tests_unit_sockaddr_test_SOURCES = tests/unit/sockaddr-test.c
tests_unit_sockaddr_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/sockaddr-test
# Issue 14: cgroup namespaces, set-ID modes and file capabilities, io_uring.
check_PROGRAMS += tests/helpers/cgroup-escape tests/helpers/setid-probe \
	tests/helpers/io-uring-probe
tests_helpers_cgroup_escape_SOURCES = tests/helpers/cgroup-escape.c tests/helpers/helper-util.h
tests_helpers_setid_probe_SOURCES = tests/helpers/setid-probe.c tests/helpers/helper-util.h
tests_helpers_io_uring_probe_SOURCES = tests/helpers/io-uring-probe.c
TESTS += tests/integration/seccomp-cgroupns.sh tests/integration/seccomp-setid.sh \
	tests/integration/seccomp-io-uring.sh
EXTRA_DIST += tests/integration/seccomp-cgroupns.sh tests/integration/seccomp-setid.sh \
	tests/integration/seccomp-io-uring.sh
# Issue 14, items 9 and 10: the ledger cannot be stalled or pointed at
# the wrong fd table.
TESTS += tests/integration/seccomp-linger.sh tests/integration/seccomp-fdtable.sh
EXTRA_DIST += tests/integration/seccomp-linger.sh tests/integration/seccomp-fdtable.sh
# Issue 16: each denial names the thread that made it (parallel named
# threads, a forked child) and both families of a socket call.
check_PROGRAMS += tests/helpers/thread-denials
tests_helpers_thread_denials_SOURCES = tests/helpers/thread-denials.c tests/helpers/helper-util.h
tests_helpers_thread_denials_LDADD = -lpthread
TESTS += tests/integration/seccomp-threads.sh
EXTRA_DIST += tests/integration/seccomp-threads.sh
# Issue 30: the compiled filter kept across runs, and the attacks on it.
check_PROGRAMS += tests/unit/seccomp-cache-test
tests_unit_seccomp_cache_test_SOURCES = tests/unit/seccomp-cache-test.c
tests_unit_seccomp_cache_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/seccomp-cache-test tests/integration/seccomp-cache.sh
EXTRA_DIST += tests/integration/seccomp-cache.sh
