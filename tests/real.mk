# Real third-party suites under sbx audit (make check-real): each script
# runs a suite nobody here wrote and asserts rows established by hand.
REAL_TESTS = tests/real/cpython-net.sh
EXTRA_DIST += tests/real/cpython-net.sh
