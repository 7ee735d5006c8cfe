#!/bin/sh
# Where `sbx audit` takes test names and results from (issues 25, 34):
# sbx's result reporter, on a channel of its own, never the output the
# tests print on. tests/corpus/python-channel: a test that writes
# "AttributeError" without its newline right before unittest's own line
# (CPython's test_socket: the audit made up a test
# ...test_honest.AttributeErrortest_honest), a lenient test that prints a
# forged "FAIL: test_x (...)" block and "test_x ... FAIL" line for itself
# (read as exercised, not the false green it is), a lenient test whose
# output has no newline at all (its result unread: not-observed); under
# python -m unittest, python -m test (regrtest, --testdir) and python -m
# pytest, every verdict asserted. Then the limits: a test that writes to
# the channel itself (detected: incomplete, never its claimed failure),
# and the forms where no reporter can be added (read from the output,
# said so).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/audit-channel.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "$PWD/audit-channel.XXXXXX") || exit 1
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH
cp -R "$SBX_TOP_SRCDIR/tests/corpus/python-channel" "$work/"
chmod -R u+w "$work"
cd "$work/python-channel" || exit 1
# the forger is run on its own, below
mkdir forger && mv test_forger.py forger/

# judge DESC STATUS VERDICTS CMD...: the audit's exit status, every
# test's name=verdict (sorted) from its record, and where its results
# came from (FROM: reporter, output-fallback)
judge() {
    desc=$1 want=$2 from=$3 verdicts=$4
    shift 4
    run_sbx audit --report "$work/r.json" -- "$@"
    is "$status" "$want" "$desc: exit $want"
    got=$(jq -r '[.tests[] | .name + "=" + .verdict] | sort | join(" ")' "$work/r.json" 2>/dev/null)
    is "$got" "$verdicts" "$desc: every verdict"
    [ "$got" = "$verdicts" ] || diag "$err"
    is "$(jq -r '.per_test.results_from' "$work/r.json" 2>/dev/null)" "$from" "$desc: results from the $from"
}

u="test_channel.AWritesNoNewline.test_pure=unaffected test_channel.BNext.test_honest=exercised test_channel.CForges.test_lenient=false-green test_channel.DNoNewline.test_partial=false-green"
judge "python -m unittest" 3 reporter "$u" python3 -m unittest test_channel
like "$err" "added sbx's result reporter: -m unittest runs as python -c" "unittest: says what it added"
like "$err" "descriptor 61, which the suite's output cannot reach" "unittest: and where it writes"
unlike "$(printf '%s\n' "$err" | grep '^  ')" "AttributeErrortest" "unittest: no test made up from the interleaved output"
like "$err" "attributed without re-running" "unittest: the channel's positions still place each denial"
judge "python -m unittest discover -v" 3 reporter "$u" python3 -m unittest discover -v -p 'test_c*.py'
judge "python -bm unittest MODULE.Class" 3 reporter \
    "test_channel.CForges.test_lenient=false-green" python3 -bm unittest test_channel.CForges

if python3 -c 'import test.libregrtest' 2>/dev/null; then
    judge "python -m test --testdir (regrtest)" 3 reporter "$u" python3 -m test --testdir . test_channel
    like "$err" "-m test runs as python -c" "regrtest: says what it added"
    judge "python -m test -j2 (no reporter in its workers: the output, said so)" 0 output-fallback \
        "test_channel.BNext.test_honest=exercised" python3 -m test --testdir . -j2 test_channel -m test_honest
    like "$err" "results read from the output, as a fallback" "regrtest -j: the verdict says it read the output"
else
    for i in $(seq 9); do skip "CPython's regrtest (test.libregrtest) is not installed for uid $(id -u)"; done
fi

if command -v pytest >/dev/null 2>&1; then
    # the python pytest runs under (python3 on PATH may be another one)
    pytest_python=$(sed -n '1s/^#! *//p' "$(command -v pytest)")
    case $pytest_python in */python*) ;; *) pytest_python=python3 ;; esac
    p="test_channel.py::AWritesNoNewline::test_pure=unaffected test_channel.py::BNext::test_honest=exercised test_channel.py::CForges::test_lenient=false-green test_channel.py::DNoNewline::test_partial=false-green"
    judge "python -m pytest" 3 reporter "$p" "$pytest_python" -m pytest test_channel.py
    like "$err" "from pytest's hooks to descriptor 61" "pytest: says what it added"
    judge "python -m pytest -s (the tests' output not captured)" 3 reporter "$p" \
        "$pytest_python" -m pytest -s test_channel.py
    judge "pytest as a program" 3 reporter "$p" pytest test_channel.py
    like "$err" "pytest runs as $pytest_python -c (the interpreter of its #! line" "pytest as a program: says what it added"
    # a pytest that is a shell wrapper: no python to add the reporter to
    # (in the working directory, which the sandbox shows)
    mkdir -p bin
    printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v pytest)" >bin/pytest
    chmod +x bin/pytest
    judge "a pytest wrapper script (no reporter: the output, said so)" 3 output-fallback "$p" \
        "$PWD/bin/pytest" test_channel.py
    like "$err" "sbx adds no result reporter to pytest run as a program here" "pytest wrapper: says why it added none"
    like "$err" "results read from the output, as a fallback" "pytest wrapper: the verdict says it read the output"
else
    for i in $(seq 16); do skip "pytest is not installed for uid $(id -u)"; done
fi

# The residual limit, detected: a lenient test writes records of its own
# to the channel's descriptor. Its claimed failure is not taken, and the
# audit is incomplete, never trustworthy, never exercised.
cd forger || exit 1
run_sbx audit --report "$work/f.json" -- python3 -m unittest test_forger
is "$status" 4 "a test writing to the channel: incomplete (exit 4)"
is "$(jq -r '.tests[] | select(.name == "test_forger.Forger.test_lenient") | .verdict' "$work/f.json")" \
    not-observed "a test writing to the channel: its claimed failure is not taken (not-observed)"
like "$(jq -r '.per_test.channel_forged' "$work/f.json")" "a record without the run's key" \
    "the record says how the channel was forged"
like "$err" "the result channel was written by something other than sbx's reporter" "and the audit says so"
done_testing
