#!/bin/sh
# Regenerates the captured outputs (*.out) of tests/unit/runner-test.c by
# running the real runners on the suites here, with the argv sbx's
# runner_argv() makes of the command in each comment (stdout and stderr
# into one pipe, as sbx reads them). Needs cargo, python3-pytest,
# python3-pytest-xdist, golang-go, nodejs, perl (prove), automake.
# Run from anywhere: ./gen.sh. Builds happen in a scratch copy. Parallel
# runners (libtest, xdist) end tests in a new order each run: the lists in
# runner-test.c then follow the new files.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here"/cargo "$here"/unittest "$here"/pytest "$here"/go "$here"/node \
    "$here"/tap "$here"/automake "$here"/pytest-hang "$work"/
py=/usr/bin/python3
# The outputs name no scratch paths or timings that the tests compare.
export NO_COLOR=1 CARGO_TERM_COLOR=never GOFLAGS=-mod=mod GOCACHE="$work/gocache" \
    CARGO_TARGET_DIR="$work/target"

# cargo test -> cargo test --no-fail-fast
(cd "$work/cargo" && cargo test -q --no-run >/dev/null 2>&1; cargo test --no-fail-fast) >"$here/cargo.out" 2>&1
# python3 -m unittest -> python3 -m unittest -v
(cd "$work/unittest" && $py -m unittest -v test_units) >"$here/unittest.out" 2>&1
# pytest -> pytest -p no:cacheprovider --verbosity=1
(cd "$work/pytest" && $py -m pytest -p no:cacheprovider --verbosity=1) >"$here/pytest.out" 2>&1
# pytest -n 2 -> pytest -p no:cacheprovider -n 2 --verbosity=1
(cd "$work/pytest" && $py -m pytest -p no:cacheprovider -n 2 --verbosity=1) >"$here/pytest-xdist.out" 2>&1
# a run stopped (SIGKILL) while a test hangs: its id is the last, unended line
(cd "$work/pytest-hang" && timeout -s KILL 5 $py -m pytest -p no:cacheprovider --verbosity=1) >"$here/pytest-killed.out" 2>&1
# go test ./... -> go test -json -count=1 ./...
(cd "$work/go" && go test -json -count=1 ./...) >"$here/go.out" 2>&1
# go test -timeout=1s -tags hang ./hang: the binary panics with the test running
(cd "$work/go" && go test -json -count=1 -timeout=1s -tags hang ./hang) >"$here/go-timeout.out" 2>&1
# node --test -> node --test --test-reporter=tap
(cd "$work/node" && node --test --test-reporter=tap) >"$here/node.out" 2>&1
# prove t -> prove -v t
(cd "$work/tap" && prove -v t) >"$here/prove.out" 2>&1
# make check (automake's parallel harness) -> make check AM_COLOR_TESTS=no
(cd "$work/automake" && cp /usr/share/automake-*/tap-driver.sh . &&
    autoreconf -fi >/dev/null 2>&1 && ./configure -q >/dev/null &&
    make check AM_COLOR_TESTS=no) >"$here/automake.out" 2>&1
# The runners' durations vary from run to run; the tests ignore them.
exit 0
