# Peer suites (issue 17): other projects' network tests give the same
# results on the host and under --profile qa. A few minutes each: Go's
# standard library (~1 min per run), CPython's (~2 min per run).
peer_integration_tests = tests/integration/peer-go.sh tests/integration/peer-cpython.sh
TESTS += $(peer_integration_tests)
EXTRA_DIST += $(peer_integration_tests)
