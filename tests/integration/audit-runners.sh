#!/bin/sh
# sbx audit on the commands people type (issue 25), one corpus each
# (tests/corpus/go-forms, python-forms, ctest), every verdict asserted
# from the record: go test with and without -v, -run, ./..., a test that
# panics (httptest.NewServer) before a lenient one, one that calls
# os.Exit, one that hangs until -timeout; pytest with -q, -x, -k, -n 4,
# python -m pytest; unittest's forms; ctest; each with a test that prints
# a forged result line.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/audit-runners.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "$PWD/audit-runners.XXXXXX") || exit 1
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH
cp -R "$SBX_TOP_SRCDIR/tests/corpus/go-forms" "$SBX_TOP_SRCDIR/tests/corpus/python-forms" \
    "$SBX_TOP_SRCDIR/tests/corpus/ctest" "$SBX_TOP_SRCDIR/tests/corpus/cargo-ws" "$work/"
chmod -R u+w "$work"

# judge DESC STATUS VERDICTS CMD...: the audit's exit status and every
# test's name=verdict (sorted), from its record
judge() {
    desc=$1 want=$2 verdicts=$3
    shift 3
    run_sbx audit --report "$work/r.json" -- "$@"
    is "$status" "$want" "$desc: exit $want"
    # (rustdoc names a workspace's doc-test from the workspace or from the
    # package, by version)
    got=$(jq -r '[.tests[] | .name + "=" + .verdict] | sort | join(" ")' "$work/r.json" 2>/dev/null |
        sed 's|^a/src/lib.rs - |src/lib.rs - |')
    is "$got" "$verdicts" "$desc: every verdict"
    [ "$got" = "$verdicts" ] || diag "$err"
}

if command -v go >/dev/null 2>&1; then
    cd "$work/go-forms" || exit 1
    export GOCACHE="$work/go-forms/.gocache" GOPATH="$work/go-forms/.gopath" GOFLAGS=-mod=mod GOTOOLCHAIN=local
    go test -count=1 -run '^$' ./... >"$work/go-build.log" 2>&1 || diag "go build: $(tail -n 5 "$work/go-build.log")"
    ok_v="example.com/forms/ok TestHonest=exercised example.com/forms/ok TestLenient=false-green example.com/forms/ok TestPure=unaffected example.com/forms/ok TestSkips=skipped-here"
    # one package named: the test binary writes to sbx's output (-exec),
    # its === RUN lines place each denial, the tests are named bare
    ok_bare="TestHonest=exercised TestLenient=false-green TestPure=unaffected TestSkips=skipped-here"
    judge "go test (no -v)" 3 "$ok_bare" go test ./ok
    like "$err" "added -v and -exec: the test binary writes to sbx's own output" "go test ./ok: -v and -exec added, said so"
    like "$err" "each of the 3 denied call(s) under restrictive was made while one test ran, announced before it and reported after it: attributed without re-running" \
        "go test ./ok: every denial placed by its === RUN line"
    is "$(jq -r .per_test.reruns "$work/r.json")" 0 "go test ./ok: no re-run"
    judge "go test -v" 3 "$ok_bare" go test -v ./ok
    judge "go test -run" 3 "TestHonest=exercised TestLenient=false-green" \
        go test -run 'TestHonest|TestLenient' ./ok
    unlike "$err" "TestForged" "go: a printed '--- FAIL: TestForged' is no test"
    # a test that prints the line of an -exec that could not reach sbx's
    # output: the positions prove nothing, the suspects are re-run, the
    # verdicts the same
    mkdir -p "$work/go-forms/says"
    printf 'package says\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\nfunc TestSays(t *testing.T) { fmt.Println("sbx-go-exec: relayed") }\n' \
        >"$work/go-forms/says/says_test.go"
    cat "$work/go-forms/ok/"*_test.go | sed 's/^package ok$/package says/' >"$work/go-forms/says/ok_test.go"
    judge "go: a test printing the relayed line" 3 \
        "TestHonest=exercised TestLenient=false-green TestPure=unaffected TestSays=unaffected TestSkips=skipped-here" \
        go test ./says
    unlike "$err" "attributed without re-running" "go: after the relayed line, no denial placed from positions"
    isnt "$(jq -r .per_test.reruns "$work/r.json")" 0 "go: after the relayed line, the suspects re-run"
    # a test that panics where it cannot listen: its binary dies there, so
    # the test after it has no result on that side; run alone, the
    # lenient test it hid is the false green it is
    run_sbx audit --report "$work/p.json" -- go test ./panics
    is "$(jq -r '.tests[] | select(.name == "TestServer") | .verdict' "$work/p.json")" \
        exercised "go: the panicking test: exercised, with its denials"
    is "$(jq -r '.tests[] | select(.name == "TestServer") | .against.status' "$work/p.json")" \
        failed "go: the panicking test failed there (go test reports the panic as its failure)"
    judge "go: the lenient test after the panic, run as its re-run runs it" 3 \
        "TestLenient=false-green" go test -run '^TestLenient$' ./panics
    run_sbx audit --report "$work/e.json" -- go test ./exits
    is "$(jq -r '.tests[] | select(.name == "TestExits") | .verdict' "$work/e.json")" \
        exercised "go: os.Exit(0) in a test is its failure there: exercised"
    run_sbx audit --report "$work/h.json" -- go test -timeout=3s ./hangs
    is "$(jq -r '.tests[] | select(.name == "TestWaits") | .against.status + "/" + .verdict' "$work/h.json")" \
        "timed-out/exercised" "go: a test that hangs until -timeout: timed out there, exercised"
    judge "go test ./... (the panicking package left out)" 3 "$ok_v" go test ./ok/...
    # no package named: go test leaves the test binary sbx's own output,
    # so -v's === RUN lines place each denial (no re-run); the tests are
    # named without their package
    cd ok || exit 1
    judge "go test (no package: -v streamed)" 3 \
        "TestHonest=exercised TestLenient=false-green TestPure=unaffected TestSkips=skipped-here" go test
    like "$err" "added -v: with no package named, go test gives the test binary sbx's own output" "go test: -v added, said so"
    like "$err" "each of the 3 denied call(s) under restrictive was made while one test ran, announced before it and reported after it: attributed without re-running" \
        "go test (no package): every denial placed by its === RUN line, nothing re-run"
    is "$(jq -r .per_test.reruns "$work/r.json")" 0 "go test (no package): no re-run"
    unlike "$err" "TestForged" "go test (no package): a printed '--- FAIL: TestForged' is no test there either"
    # the binary dies at the panic: the tests after it are re-run alone,
    # with no package named either
    cd ../panics || exit 1
    judge "go test (no package), a panic before a lenient test" 3 \
        "TestLenient=false-green TestPure=unaffected TestServer=exercised" go test
    cd "$work" || exit 1
    chmod -R u+w go-forms 2>/dev/null; rm -rf go-forms
else
    for i in $(seq 24); do skip "go is not installed for uid $(id -u)"; done
fi

# cargo: a workspace whose two packages have a test of the same path, a
# doc-test, -p, --release and a filter (the incident's -q and
# --test-threads are in audit-tests.sh)
if command -v cargo >/dev/null 2>&1; then
    cd "$work/cargo-ws" || exit 1
    export CARGO_HOME="$work/cargo-ws/.cargo-home" CARGO_TARGET_DIR="$work/cargo-ws/target"
    cargo test --offline --workspace --no-run -q >"$work/cargo-build.log" 2>&1 ||
        diag "cargo build: $(tail -n 5 "$work/cargo-build.log")"
    judge "cargo test -q --workspace (two packages' tests::same told apart, a doc-test)" 3 \
        "src/lib.rs - bind (line 6)=false-green tests::honest=exercised tests::same=false-green tests::same=unaffected" \
        cargo test --offline -q --workspace
    is "$(jq -r '[.tests[] | select(.name == "tests::same") | .unit + "=" + .verdict] | sort | join(" ")' "$work/r.json")" \
        "-p a --lib=false-green -p b_c --lib=unaffected" "cargo --workspace: each package's tests::same by its unit"
    judge "cargo test -p b-c --release same" 0 "tests::same=unaffected" \
        cargo test --offline -p b-c --release same
    cargo test --offline --release --no-run -q >/dev/null 2>&1
    judge "cargo test --workspace --all-targets -- --test-threads=4" 3 \
        "tests::honest=exercised tests::same=false-green tests::same=unaffected" \
        cargo test --offline --workspace --all-targets -- --test-threads=4
    cd "$work" || exit 1
    rm -rf "$work/cargo-ws"
else
    for i in $(seq 7); do skip "cargo is not installed for uid $(id -u)"; done
fi

cd "$work/python-forms" || exit 1
u="test_forms.Net.test_honest=exercised test_forms.Net.test_lenient=false-green test_forms.Net.test_skips=skipped-here test_forms.Pure.test_pure=unaffected"
# the forged lines arrive while test_pure runs (stdout unbuffered) or
# when the process exits (block-buffered off a terminal): neither counts
for buffering in unbuffered buffered; do
    if [ $buffering = unbuffered ]; then PYTHONUNBUFFERED=1; export PYTHONUNBUFFERED
    else unset PYTHONUNBUFFERED; fi
    judge "python -m unittest MODULE ($buffering)" 3 "$u" python3 -m unittest test_forms
done
judge "python -m unittest discover -q" 3 "$u" python3 -m unittest discover -q -p 'test_*.py'
judge "python -m unittest MODULE.Class" 3 \
    "test_forms.Net.test_honest=exercised test_forms.Net.test_lenient=false-green test_forms.Net.test_skips=skipped-here" \
    python3 -m unittest test_forms.Net
if command -v pytest >/dev/null 2>&1; then
    # the python pytest runs under (python3 on PATH may be another one)
    pytest_python=$(sed -n '1s/^#! *//p' "$(command -v pytest)")
    case $pytest_python in */python*) ;; *) pytest_python=python3 ;; esac
    p="test_forms.py::Net::test_honest=exercised test_forms.py::Net::test_lenient=false-green test_forms.py::Net::test_skips=skipped-here test_forms.py::Pure::test_pure=unaffected"
    judge "pytest -q" 3 "$p" pytest -q test_forms.py
    judge "python -m pytest -x" 3 \
        "test_forms.py::Net::test_honest=exercised test_forms.py::Net::test_lenient=false-green test_forms.py::Net::test_skips=skipped-here test_forms.py::Pure::test_pure=unaffected" \
        "$pytest_python" -m pytest -x test_forms.py
    judge "pytest -k" 3 "test_forms.py::Net::test_lenient=false-green" pytest -k lenient test_forms.py
    if pytest --help 2>/dev/null | grep -q -- '--numprocesses'; then
        judge "pytest -n 4" 3 "$p" pytest -n 4 test_forms.py
    else
        for i in 1 2; do skip "pytest-xdist is not installed for uid $(id -u)"; done
    fi
else
    for i in $(seq 8); do skip "pytest is not installed for uid $(id -u)"; done
fi
cd "$work" || exit 1

if command -v ctest >/dev/null 2>&1 && command -v cmake >/dev/null 2>&1; then
    mkdir -p "$work/ctest/build" && cd "$work/ctest/build" || exit 1
    if cmake .. >"$work/cmake.log" 2>&1; then
        c="honest=exercised lenient=false-green pure=unaffected skips=skipped-here"
        judge "ctest" 3 "$c" ctest
        judge "ctest -V (each test's output printed, a forged line among it)" 3 "$c" ctest -V
        judge "ctest -Q (removed: it prints no line per test)" 3 "$c" ctest -Q
    else
        diag "$(tail -n 5 "$work/cmake.log")"
        for i in $(seq 6); do fail "ctest: cmake could not configure the project"; done
    fi
    cd "$work" || exit 1
else
    for i in $(seq 6); do skip "cmake and ctest are not installed"; done
fi
# prove, every script making the same denied call: each run alone makes
# it, and so would a start-up's call; but the runs alone add up to the
# whole run's calls, which a start-up's (made once there) would not: the
# tests' own, each a false green, never "unaffected, trustworthy" (make
# bench's 200 scripts all denied)
if command -v prove >/dev/null 2>&1; then
    mkdir -p "$work/prove-all/t" && cd "$work/prove-all" || exit 1
    for i in 1 2 3; do
        printf 'use IO::Socket::INET;\nIO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0");\nprint "1..1\\nok 1 - binds %s\\n";\n' $i >"t/$i.t"
    done
    judge "prove, every script denied the same call" 3 \
        "t/1.t: binds 1=false-green t/2.t: binds 2=false-green t/3.t: binds 3=false-green" prove t/
    cd "$work" || exit 1
else
    for i in 1 2; do skip "prove is not installed"; done
fi

done_testing
