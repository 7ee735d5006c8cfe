# make check-real: sbx audit on real third-party suites (issues 25, 34):
# CPython's network modules (libpython3.11-testsuite), Go's net/http from
# the installed toolchain, a node package's own suite
# from npm (installed by .ci/run into $SBX_NODE_RUNNERS). Not in `make
# check`: they take minutes, not seconds. The same TAP driver; the scripts
# use tests/integration/lib.sh. docs/performance.md says what each shows.
REAL_TESTS = tests/real/go-net-http.sh tests/real/node-tcp-port-used.sh tests/real/cpython-net.sh
EXTRA_DIST += $(REAL_TESTS)
check-real:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$(REAL_TESTS)"
.PHONY: check-real
