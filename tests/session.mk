# Tests of the session concern: outbound network, interactive terminals,
# session profiles, nesting.
check_PROGRAMS += tests/helpers/net-probe
TESTS += tests/integration/session-outbound.sh
EXTRA_DIST += tests/integration/session-outbound.sh tests/integration/session-world.sh
check_PROGRAMS += tests/helpers/tiocsti tests/helpers/pty-run tests/helpers/tty-probe
TESTS += tests/integration/session-terminal.sh
EXTRA_DIST += tests/integration/session-terminal.sh
TESTS += tests/integration/session-nesting.sh
EXTRA_DIST += tests/integration/session-nesting.sh
check_PROGRAMS += tests/unit/outbound-test
tests_unit_outbound_test_SOURCES = tests/unit/outbound-test.c
tests_unit_outbound_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/outbound-test
check_PROGRAMS += tests/unit/resolv-test
tests_unit_resolv_test_SOURCES = tests/unit/resolv-test.c
tests_unit_resolv_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/resolv-test
check_PROGRAMS += tests/helpers/dns-answer
TESTS += tests/integration/session-pty.sh tests/integration/session-pipeline.sh
# The pty relay's output filter (terminal_filter.c).
check_PROGRAMS += tests/unit/terminal-filter-test
tests_unit_terminal_filter_test_SOURCES = tests/unit/terminal-filter-test.c
tests_unit_terminal_filter_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/terminal-filter-test
EXTRA_DIST += tests/integration/session-pty.sh tests/integration/tmux-lib.sh \
	tests/integration/session-pipeline.sh tests/integration/slow-terminal.py
check_PROGRAMS += tests/unit/allowlist-test
tests_unit_allowlist_test_SOURCES = tests/unit/allowlist-test.c
tests_unit_allowlist_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/allowlist-test
TESTS += tests/integration/egress.sh tests/integration/egress-clients.sh
EXTRA_DIST += tests/integration/egress.sh tests/integration/egress-world.sh \
	tests/integration/egress-net.sh tests/integration/egress-clients.sh \
	tests/integration/egress-clients-world.sh \
	tests/integration/egress-dns.py tests/integration/egress-http.py \
	tests/integration/egress-client.py tests/integration/EgressFetch.java
check_PROGRAMS += tests/unit/egress-wire-test
tests_unit_egress_wire_test_SOURCES = tests/unit/egress-wire-test.c
tests_unit_egress_wire_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/egress-wire-test
check_PROGRAMS += tests/unit/egress-test
tests_unit_egress_test_SOURCES = tests/unit/egress-test.c
tests_unit_egress_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/egress-test
# A fresh account: the session profiles create the caches they list (issue 29).
TESTS += tests/integration/session-fresh-account.sh
EXTRA_DIST += tests/integration/session-fresh-account.sh
