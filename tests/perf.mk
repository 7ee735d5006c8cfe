# Tests of what the performance work changed (docs/performance.md): the
# start-up path must stay correct, not only fast. Timings are not tested
# here (`make bench`).
TESTS += tests/integration/perf-teardown.sh
EXTRA_DIST += tests/integration/perf-teardown.sh
check_PROGRAMS += tests/helpers/memory-hog
TESTS += tests/integration/perf-startup.sh
EXTRA_DIST += tests/integration/perf-startup.sh
# The static build must not reach glibc's NSS (docs/performance.md, change 6).
TESTS += tests/integration/build-nss.sh
EXTRA_DIST += tests/integration/build-nss.sh
# README's build prints no "ar: `u' modifier ignored" (ARFLAGS, Makefile.am).
TESTS += tests/integration/build-quiet.sh
EXTRA_DIST += tests/integration/build-quiet.sh
# make bench's comparison with the recorded ratios names each regression
# (bench/ratios.sh, issue 30).
TESTS += tests/integration/bench-ratios.sh
EXTRA_DIST += tests/integration/bench-ratios.sh
