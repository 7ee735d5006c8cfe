#!/bin/bash
# sbx audit test by test, one runner family at a time (issue 25's
# Performance): run by bench.sh (BENCH_PARTS "audit-runners"), as the
# calling user, offline.
#
# For each family (cargo, node --test, jest, vitest, mocha, pytest, pytest -n 2,
# unittest, CPython's regrtest, go test with a package named and with
# none, prove, make check, ctest)
# a generated suite of 200 tests, first
# with 5 of them denied (every 40th test listens on 127.0.0.1:0 and
# returns early on EPERM: a lenient test, a false green), then with all
# 200 denied. Measured, wall time, one run each: one run of the command
# under qa plus one under restrictive ("both"), then `sbx audit` of the
# same command. Targets: audit <= 2 x both with 5 denied, <= 4 x with 200.
# What cannot be built here (no cargo, no go, no jest in
# $SBX_NODE_RUNNERS, ...) is said and left out, never timed.
#
# BENCH_AUDIT_RUNNERS picks the families (default: all of them);
# BENCH_AUDIT_DENIED the denied counts (default "5 200"). The table ends
# in a line per row, "audit-runners: RUNNER DENIED BOTH_S AUDIT_S RERUNS
# RATIO TARGET met|MISSED", for docs/performance.md.
set -u
export LC_ALL=C
SBX=${SBX:?set SBX to the sbx binary}
RUNNERS=${BENCH_AUDIT_RUNNERS:-cargo node jest vitest mocha pytest pytest-n unittest regrtest go go-here prove automake ctest}
DENIED=${BENCH_AUDIT_DENIED:-5 200}
NODE_RUNNERS=${SBX_NODE_RUNNERS:-/var/lib/sbx-ci/node-runners}
N=200
work=$(mktemp -d "${BENCH_AUDIT_DIR:-$PWD}/sbx-bench-audit.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
export SBX_PROFILE_PATH=${SBX_PROFILE_PATH:-}
rows=()

now() { echo "$EPOCHREALTIME"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# denied I DENIED: whether test I of N is one of the DENIED denied ones
denied() { [ $(($1 % (N / $2))) = 0 ]; }

# gen_RUNNER DIR DENIED: writes the suite into DIR (the working directory)
# and prints the command that runs it. Generation is one pass of printf
# per test: well under a second for every family.
gen_cargo() {
    mkdir -p "$1/src"
    printf '[package]\nname = "bench"\nversion = "0.1.0"\nedition = "2021"\n' >"$1/Cargo.toml"
    { echo '#[cfg(test)]'
      echo 'mod tests {'
      for ((i = 0; i < N; i++)); do
          if denied $i "$2"; then
              printf '    #[test]\n    fn t_%d() { if std::net::TcpListener::bind("127.0.0.1:0").is_err() { return; } }\n' $i
          else
              printf '    #[test]\n    fn t_%d() { assert_eq!(%d + 1, %d); }\n' $i $i $((i + 1))
          fi
      done
      echo '}'; } >"$1/src/lib.rs"
    (cd "$1" && CARGO_TARGET_DIR=$1/target cargo test --offline -q --no-run >/dev/null 2>&1) || return 1
    echo "cargo test --offline"
}

js_listen='const net = require("node:net");
const listen = () => new Promise((ok, fail) => {
  const s = net.createServer(); s.once("error", fail); s.listen(0, "127.0.0.1", () => s.close(ok)); });
const lenient = async () => { try { await listen(); } catch (e) { if (e.code !== "EPERM" && e.code !== "EACCES") throw e; } };'
js_tests() { # DENIED CALL: one CALL("t_I", ...) per test
    for ((i = 0; i < N; i++)); do
        if denied $i "$1"; then printf '%s("t_%d", lenient);\n' "$2" $i
        else printf '%s("t_%d", () => { if (%d + 1 !== %d) throw new Error("sum"); });\n' "$2" $i $i $((i + 1)); fi
    done
}
have_node_runner() {
    [ -x "$NODE_RUNNERS/node_modules/.bin/$1" ] || return 1
    ln -sfn "$NODE_RUNNERS/node_modules" "$2/node_modules"
    # jest looks for its configuration up to a package.json
    printf '{ "name": "bench", "private": true }\n' >"$2/package.json"
}
gen_node() {
    command -v node >/dev/null || return 1
    { echo 'const test = require("node:test");'; echo "$js_listen"; js_tests "$2" test; } >"$1/bench.test.js"
    echo "node --test bench.test.js"
}
gen_jest() {
    have_node_runner jest "$1" || return 1
    mkdir -p "$1/suite"
    { echo "$js_listen"; js_tests "$2" test; } >"$1/suite/bench.test.js"
    echo "node_modules/.bin/jest suite/"
}
gen_vitest() {
    have_node_runner vitest "$1" || return 1
    mkdir -p "$1/suite"
    { echo 'import { test } from "vitest";'; echo 'import { createRequire } from "node:module";'
      echo 'const require = createRequire(import.meta.url);'; echo "$js_listen"; js_tests "$2" test; } \
        >"$1/suite/bench.test.mjs"
    echo "node_modules/.bin/vitest run suite/"
}
gen_mocha() {
    have_node_runner mocha "$1" || return 1
    mkdir -p "$1/suite"
    { echo "$js_listen"; js_tests "$2" it; } >"$1/suite/bench.spec.js"
    echo "node_modules/.bin/mocha suite/"
}
py_suite() {
    echo 'import socket, unittest'
    echo 'class T(unittest.TestCase):'
    for ((i = 0; i < N; i++)); do
        if denied $i "$1"; then
            printf '    def test_%d(self):\n        try: socket.socket().bind(("127.0.0.1", 0))\n        except PermissionError: pass\n' $i
        else
            printf '    def test_%d(self): self.assertEqual(%d + 1, %d)\n' $i $i $((i + 1))
        fi
    done
}
# pytest_with DIR DENIED MODULES [ARG...]: the first python that imports
# MODULES runs the suite with pytest, with ARGs
pytest_with() {
    local py dir=$1 denied=$2 modules=$3
    shift 3
    for py in python3 /usr/bin/python3; do
        if "$py" -c "import $modules" 2>/dev/null; then
            py_suite "$denied" >"$dir/test_bench.py"
            echo "$py -m pytest -q -p no:cacheprovider $* test_bench.py"
            return 0
        fi
    done
    return 1
}
gen_pytest() { pytest_with "$1" "$2" pytest; }
# pytest-xdist's two workers: each worker's run of a test, by its own
# clock, places the denials (runner_python.c)
gen_pytest-n() { pytest_with "$1" "$2" "pytest, xdist" -n 2; }
gen_unittest() {
    py_suite "$2" >"$1/test_bench.py"
    echo "python3 -m unittest test_bench"
}
# CPython's regrtest (python -m test) on a directory of its own: the
# first python whose stdlib has the test package
gen_regrtest() {
    local py
    for py in python3 /usr/bin/python3; do
        if "$py" -c "import test.libregrtest" 2>/dev/null; then
            mkdir -p "$1/t"
            py_suite "$2" >"$1/t/test_bench.py"
            echo "$py -m test --testdir t test_bench"
            return 0
        fi
    done
    return 1
}
gen_go() {
    command -v go >/dev/null || return 1
    printf 'module example.com/bench\n\ngo 1.19\n' >"$1/go.mod"
    { printf 'package bench\n\nimport (\n\t"errors"\n\t"net"\n\t"os"\n\t"testing"\n)\n\n'
      printf 'var _ = errors.Is\nvar _ = os.ErrPermission\n\n'
      for ((i = 0; i < N; i++)); do
          if denied $i "$2"; then
              printf 'func TestT%d(t *testing.T) {\n\tl, err := net.Listen("tcp", "127.0.0.1:0")\n\tif errors.Is(err, os.ErrPermission) {\n\t\treturn\n\t}\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tl.Close()\n}\n' $i
          else
              printf 'func TestT%d(t *testing.T) {\n\tif %d+1 != %d {\n\t\tt.Fatal("sum")\n\t}\n}\n' $i $i $((i + 1))
          fi
      done; } >"$1/bench_test.go"
    (cd "$1" && go test -count=1 -run '^$' . >/dev/null 2>&1 && go test -json -count=1 -run '^$' . >/dev/null 2>&1) ||
        return 1
    echo "go test -count=1 ."
}
# go test in the package's directory, no package named: the form people
# type most in one package; go test then streams the test binary's -v
# output to sbx itself (runner_go.c), so its denials are placed, not re-run
gen_go-here() {
    gen_go "$@" >/dev/null || return 1
    echo "go test -count=1"
}
gen_prove() {
    command -v prove >/dev/null || return 1
    mkdir -p "$1/t"
    for ((i = 0; i < N; i++)); do
        if denied $i "$2"; then
            printf 'use IO::Socket::INET;\nIO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0");\nprint "1..1\\nok 1 - t_%d\\n";\n' $i
        else
            printf 'print "1..1\\n", (%d + 1 == %d ? "" : "not "), "ok 1 - t_%d\\n";\n' $i $((i + 1)) $i
        fi >"$1/t/$(printf %03d $i).t"
    done
    echo "prove t/"
}
# make check: automake's parallel harness, one script per test (perl
# scripts run by their #! line, as prove's are run by perl)
gen_automake() {
    command -v autoreconf >/dev/null && command -v perl >/dev/null || return 1
    mkdir -p "$1/t"
    printf 'AC_INIT([bench], [1])\nAM_INIT_AUTOMAKE([foreign])\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n' >"$1/configure.ac"
    { printf 'TESTS ='
      for ((i = 0; i < N; i++)); do printf ' t/%03d.t' $i; done
      printf '\n'; } >"$1/Makefile.am"
    for ((i = 0; i < N; i++)); do
        if denied $i "$2"; then
            printf '#!/usr/bin/perl\nuse IO::Socket::INET;\nIO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0");\nexit 0;\n'
        else
            printf '#!/usr/bin/perl\nexit(%d + 1 == %d ? 0 : 1);\n' $i $((i + 1))
        fi >"$1/t/$(printf %03d $i).t"
        chmod +x "$1/t/$(printf %03d $i).t"
    done
    (cd "$1" && autoreconf -fi >/dev/null 2>&1 && ./configure -q >/dev/null 2>&1) || return 1
    echo "make check"
}
gen_ctest() {
    command -v ctest >/dev/null && command -v cmake >/dev/null || return 1
    mkdir -p "$1/src"
    { echo 'cmake_minimum_required(VERSION 3.10)'; echo 'project(bench NONE)'; echo 'enable_testing()'
      for ((i = 0; i < N; i++)); do
          if denied $i "$2"; then
              printf 'add_test(NAME t_%d COMMAND perl -MIO::Socket::INET -e "IO::Socket::INET->new(Listen => 1, LocalAddr => q(127.0.0.1:0)); exit 0")\n' $i
          else
              printf 'add_test(NAME t_%d COMMAND test %d -eq %d)\n' $i $((i + 1)) $((i + 1))
          fi
      done; } >"$1/src/CMakeLists.txt"
    (cd "$1" && cmake -S src -B . >/dev/null 2>&1) || return 1
    echo "ctest"
}

target_for() { [ "$1" = "$N" ] && echo 4 || echo 2; }

printf '%-9s %6s %9s %9s %7s %6s %7s  %-6s %s\n' runner denied "both (s)" "audit (s)" re-runs ratio target met found
for runner in $RUNNERS; do
    for d in $DENIED; do
        dir=$work/$runner-$d
        mkdir -p "$dir"
        # caches in the suite's directory, the one writable place under qa
        export CARGO_TARGET_DIR=$dir/target GOCACHE=$dir/.gocache GOPATH=$dir/.gopath GOFLAGS=-mod=mod \
            GOTOOLCHAIN=local npm_config_cache=$dir/.npm
        if ! cmd=$(cd "$dir" && "gen_$runner" "$dir" "$d"); then
            printf '%-9s %6s  not measured: its runner or toolchain is missing here, or the suite did not build\n' "$runner" "$d"
            continue
        fi
        cd "$dir" || exit 1
        t0=$(now); "$SBX" run -q --profile qa -- $cmd >"$dir/qa.out" 2>&1; qa_rc=$?; t1=$(now)
        "$SBX" run -q --profile restrictive -- $cmd >"$dir/r.out" 2>&1; t2=$(now)
        "$SBX" audit --report "$dir/audit.json" -- $cmd >/dev/null 2>"$dir/audit.err"; rc=$?; t3=$(now)
        cd "$work" || exit 1
        if [ $qa_rc != 0 ]; then
            printf '%-9s %6s  not measured: the suite fails under qa (exit %s): %s\n' "$runner" "$d" "$qa_rc" \
                "$(grep -m1 -i 'error' "$dir/qa.out")"
            continue
        fi
        both=$(secs "$t0" "$t2") audit=$(secs "$t2" "$t3")
        reruns=$(jq -r '.per_test.reruns // "?"' "$dir/audit.json" 2>/dev/null || echo "?")
        flagged=$(jq -r '[.tests[] | select(.verdict == "false-green")] | length' "$dir/audit.json" 2>/dev/null || echo "?")
        unseen=$(jq -r '[.tests[] | select(.verdict == "not-observed")] | length' "$dir/audit.json" 2>/dev/null || echo "?")
        ratio=$(awk -v a="$audit" -v b="$both" 'BEGIN { printf "%.1f", a / b }')
        target=$(target_for "$d")
        met=$(awk -v r="$ratio" -v t="$target" 'BEGIN { print (r <= t) ? "met" : "MISSED" }')
        # what the audit found: every denied test is a false green and
        # every other one unaffected, unless a bound left it not observed
        # (said, never a wrong verdict); a wrong row is counted (the test's
        # number is the last one in its name, in every runner's naming)
        wrong=$(jq -r --argjson every $((N / d)) '[.tests[] | select(.kind == "test")
            | (.name | capture("(?<n>[0-9]+)[^0-9]*$").n | tonumber) as $i
            | select(.verdict != "not-observed" and
                     .verdict != (if $i % $every == 0 then "false-green" else "unaffected" end))]
            | length' "$dir/audit.json" 2>/dev/null || echo "?")
        verdict="$flagged/$d flagged"
        [ "$unseen" = 0 ] || verdict="$verdict, $unseen not observed"
        [ "$wrong" = 0 ] || verdict="$verdict, $wrong WRONG (exit $rc)"
        printf '%-9s %6s %9s %9s %7s %6s %7s  %-6s %s\n' "$runner" "$d" "$both" "$audit" "$reruns" "$ratio" "<= $target" \
            "$met" "$verdict"
        rows+=("audit-runners: $runner $d $both $audit $reruns $ratio $target $met $verdict")
        [ -n "${BENCH_AUDIT_KEEP:-}" ] && cp -r "$dir" "$BENCH_AUDIT_KEEP/" 2>/dev/null
    done
done
printf '%s\n' "${rows[@]}"
