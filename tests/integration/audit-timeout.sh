#!/bin/sh
# The --against run is bounded (issue 16: CPython's test_httpservers waits
# until killed when bind() is denied, and held an audit for 15 minutes).
# bind-or-wait binds 127.0.0.1 and exits 0 under qa; under restrictive its
# bind() is denied and it waits forever. The bound is max(3 x the first
# run, 10 s) by default, --against-timeout otherwise (0: none), and never
# longer than the profile's timeout; a run that timed out with denials is
# judged as one that failed with them: trustworthy, saying it timed out.
#
# First, the hang without the bound: with --against-timeout 0 only the
# profile's timeout (here 14 s) ends it, well past the default 10 s.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 32

work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/audit-timeout.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "${TMPDIR:-/tmp}/sbx-audit-timeout.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH
# A copy with a name of its own, so that leftovers can be counted.
hang="$work/bind-or-wait-$$"
cp "$SBX_TEST_HELPERS/bind-or-wait" "$hang" || exit 1
r="$work/r.json"

if ! "$SBX" run -- true >/dev/null 2>"$work/sbx-err"; then
    why=$(head -n 1 "$work/sbx-err")
    i=0
    while [ $i -lt 32 ]; do skip "sbx cannot run a sandbox here: $why"; i=$((i + 1)); done
    done_testing
fi

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# timed_audit ARGS: run_sbx audit ARGS; sets $ms.
timed_audit() {
    t0=$(now_ms)
    run_sbx audit "$@"
    ms=$(($(now_ms) - t0))
}
leftovers() { ps -eo args= | grep -c "^$hang\$"; }
within() { # within MS LOW HIGH DESCRIPTION
    if [ "$1" -ge "$2" ] && [ "$1" -lt "$3" ]; then pass "$4 (${1} ms)"
    else fail "$4 (${1} ms, want $2..$3)"; diag "$err"; fi
}

# The helper does what it says: bound under qa, waiting under restrictive.
run_sbx run -p qa -- "$hang"
is "$status:$out" "0:bound" "under qa the helper binds and exits 0"
run_sbx run -p restrictive --timeout 1s -- "$hang"
is "$status:$out" "124:bind failed: EPERM" "under restrictive its bind() is denied and it waits until killed"

# Without the bound: --against-timeout 0 leaves only the profile's timeout.
timed_audit --against-timeout 0 --timeout 14s --report "$r" -- "$hang"
within "$ms" 13500 19000 "--against-timeout 0: the hang lasts until the profile's 14 s timeout, past the 10 s bound"
like "$err" "time bound of this run: 14 s: the profile's timeout" "--against-timeout 0: only the profile's timeout bounds it"
is "$(jq -c '.against_timeout' "$r")" '{"timeout_ms":14000,"source":"profile","expired":true}' \
    "--against-timeout 0: the record names the profile's timeout"
is "$(leftovers)" 0 "--against-timeout 0: nothing is left"

# The default bound: 10 s (the first run takes well under 3 s).
timed_audit --report "$r" -- "$hang"
is "$status" 0 "default bound: the timed-out run with denials is evidence: exit 0"
within "$ms" 9500 14000 "default bound: the audit ends within the 10 s bound (plus start and teardown)"
like "$err" "sbx: audit: time bound of this run: 10 s: 3 x the first run's" "default bound: says what bounds the run"
like "$err" "sbx: audit: under restrictive: failed (timed out at 10 s: 3 x the first run's" \
    "default bound: says the run timed out, and at what"
like "$err" "sbx: verdict: trustworthy: the command exercises the network for real (it timed out under restrictive when bind(AF_INET 127.0.0.1:0) x1 -> EPERM)" \
    "default bound: the verdict says it timed out with the denial"
is "$(jq -c '[.verdict, .exit_status, .against_timeout, .runs[1].result.timed_out, .runs[1].timeout.expired, .interrupted]' "$r")" \
    '["trustworthy",0,{"timeout_ms":10000,"source":"first-run","expired":true},true,true,null]' \
    "default bound: the record says it timed out at the audit's bound"
is "$(leftovers)" 0 "default bound: nothing is left"

# --against-timeout DURATION, below the floor.
timed_audit --against-timeout 2s --report "$r" -- "$hang"
is "$status" 0 "--against-timeout 2s: exit 0 (trustworthy)"
within "$ms" 1800 5000 "--against-timeout 2s: the audit ends after about 2 s"
like "$err" "timed out at 2 s: --against-timeout" "--against-timeout 2s: says so"
is "$(jq -c '.against_timeout' "$r")" '{"timeout_ms":2000,"source":"option","expired":true}' \
    "--against-timeout 2s: the record says so"

# A profile timeout shorter than the bound wins (--timeout sets both runs').
timed_audit --timeout 3s --against-timeout 30s --report "$r" -- "$hang"
is "$status" 0 "--timeout 3s under --against-timeout 30s: exit 0"
within "$ms" 2800 7000 "--timeout 3s under --against-timeout 30s: ends after about 3 s"
like "$err" "timed out at 3 s: the profile's timeout" "the profile's shorter timeout is named"
is "$(jq -c '.against_timeout' "$r")" '{"timeout_ms":3000,"source":"profile","expired":true}' \
    "the record names the profile's timeout"
is "$(leftovers)" 0 "nothing is left"

# A run that ends within the bound is not cut, and the record says the
# bound did not expire.
timed_audit --report "$r" -- true
is "$status" 0 "a quick command: exit 0"
is "$(jq -c '[.verdict, .against_timeout.source, .against_timeout.expired]' "$r")" '["no-network","first-run",false]' \
    "a quick command: bounded, not expired"

# The option's values.
run_sbx audit --against-timeout none -- true
like "$err" "time bound of this run: 30 min: the profile's timeout" \
    "--against-timeout none: restrictive's own 30 min timeout (from qa) still bounds it"
run_sbx audit --against-timeout none --timeout none -- true
like "$err" "time bound of this run: none" "--against-timeout none --timeout none: no bound at all"
run_sbx audit --against-timeout 5x -- true
is "$status" 125 "--against-timeout 5x: exit 125"
like "$err" "sbx: --against-timeout: '5x' is not valid: expected a duration such as 90s, 30m, 2h" \
    "--against-timeout 5x: says what is expected"
run_sbx audit --against-timeout -- true
is "$status" 125 "--against-timeout without a value: exit 125"
run_sbx run --against-timeout 5s -- true
is "$status:$err" "125:sbx: --against-timeout belongs to 'sbx audit', not 'sbx run'
Try 'sbx help run'." "sbx run refuses --against-timeout"

# A re-run alone killed at its bound before the test reported or made a
# call observed nothing: the test is not-observed, never "made none" and
# so unaffected (make bench found it: vitest, every test denied, under
# load). The test listens in its first two runs (qa, restrictive) and
# hangs in its third, its re-run alone there. Under xdist (-n 1), with
# the call made by a grandchild of the worker: a serial pytest's denials
# are placed by sbx's reporter, a worker's or its child's by the worker's
# clock, with no re-run; a grandchild's are found by re-runs.
# (the python pytest runs under: python3 on PATH may be another one)
py=python3
command -v pytest >/dev/null 2>&1 && py=$(sed -n '1s/^#! *//p' "$(command -v pytest)")
case $py in */python*) ;; *) py=python3 ;; esac
if "$py" -c 'import pytest' 2>/dev/null; then
    mkdir -p "$work/hang-alone" && cd "$work/hang-alone" || exit 1
    cat >test_hang.py <<'PY'
import os, subprocess, sys, time
def test_listens_then_hangs():
    n = int(open("runs").read()) if os.path.exists("runs") else 0
    open("runs", "w").write(str(n + 1))
    if n >= 2:
        time.sleep(600)
    # the bind in a grandchild, its failure swallowed
    code = "import socket\ntry:\n    socket.socket().bind(('127.0.0.1', 0))\nexcept PermissionError:\n    pass\n"
    subprocess.run([sys.executable, "-c",
                    "import subprocess, sys; subprocess.run([sys.executable, '-c', %r])" % code], check=True)
PY
    run_sbx audit --against-timeout 3s --report "$work/h.json" -- "$py" -m pytest -q -n 1 -p no:cacheprovider test_hang.py
    is "$(jq -r '.tests[0].verdict' "$work/h.json")" not-observed \
        "a re-run alone killed before its result: not-observed, not unaffected"
    isnt "$status" 0 "... and the audit does not end trustworthy (exit $status)"
    cd "$work" || exit 1
else
    skip "pytest is not installed for uid $(id -u)"; skip "pytest is not installed for uid $(id -u)"
fi

done_testing
