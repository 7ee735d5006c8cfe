#!/bin/sh
# sbx audit: the tests that fail under --against without a denial of
# their own are re-run by module, each module's in one run, not one by
# one (issue 33): the result channel says each test's start and result,
# the ledger's events where each denial was made, so one process tells
# every test of the set apart. Asserted: every verdict, the number of
# re-runs, and which tests a set settled and which it left to a run alone
# (a failure in a set that reached the descriptor limit: whose?).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

command -v python3 >/dev/null 2>&1 || { skip "python3 is not installed"; done_testing; exit 0; }
command -v jq >/dev/null 2>&1 || { skip "jq is not installed"; done_testing; exit 0; }

work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/audit-limit-sets.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "$PWD/audit-limit-sets.XXXXXX") || exit 1
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles:$work/profiles"
export SBX_PROFILE_PATH
cd "$work" || exit 1
mkdir profiles

verdicts() { jq -r '[.tests[] | .name + "=" + .verdict] | sort | join(" ")' "$1"; }
# name=how for the tests check_limits() re-ran: "set" or "alone"
checks() { jq -r '[.tests[] | select(.limit_check != null) | .name + "=" + .limit_check] | sort | join(" ")' "$1"; }

# what CPython's test.support does at import in every process: a denied
# IPv6 probe, the suite's start-up's, no test's
cat >support.py <<'PY'
import socket
LEFT = []
HELD = []
try:
    s = socket.socket(socket.AF_INET6); s.bind(("::1", 0)); s.close()
except OSError:
    pass

def server():
    # a server whose bind is denied, and what its failure leaves behind
    # (CPython's test_socket leaks its sockets so, test_logging's threads
    # wait for a listener that never ran)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", 0))
    except PermissionError:
        LEFT.append("a server never stopped")
        raise
    finally:
        s.close()
PY

# ---- many tests failing without a denial after an earlier test's
# leftovers, one failing by itself, one module with a single such test
cat >test_crowd.py <<'PY'
import resource, unittest
import support

class A(unittest.TestCase):
    def test_server(self):
        support.server()

class B(unittest.TestCase):
    def test_after_1(self):
        self.assertEqual(support.LEFT, [])
    def test_after_2(self):
        self.assertEqual(support.LEFT, [])
    def test_after_3(self):
        self.assertEqual(support.LEFT, [])
    def test_after_4(self):
        self.assertEqual(support.LEFT, [])
    def test_after_5(self):
        self.assertEqual(support.LEFT, [])
    def test_pure(self):
        pass

class C(unittest.TestCase):
    def test_wants_descriptors(self):
        # fails under restrictive by itself, no call denied: nofile = 256
        self.assertGreater(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 256)
PY
cat >test_late.py <<'PY'
import unittest
import support

class Late(unittest.TestCase):
    def test_after(self):
        self.assertEqual(support.LEFT, [])
PY
run_sbx audit --report "$work/c.json" -- python3 -m unittest test_crowd test_late
is "$(verdicts "$work/c.json")" "test_crowd.A.test_server=exercised test_crowd.B.test_after_1=fails-without-denial test_crowd.B.test_after_2=fails-without-denial test_crowd.B.test_after_3=fails-without-denial test_crowd.B.test_after_4=fails-without-denial test_crowd.B.test_after_5=fails-without-denial test_crowd.B.test_pure=unaffected test_crowd.C.test_wants_descriptors=exercised test_late.Late.test_after=fails-without-denial" \
    "leftovers: the victims fail without a denial (they pass without the server test); the one failing by itself fails in its set as alone, exercised by the suite's denied call as before"
is "$(checks "$work/c.json")" "test_crowd.B.test_after_1=set test_crowd.B.test_after_2=set test_crowd.B.test_after_3=set test_crowd.B.test_after_4=set test_crowd.B.test_after_5=set test_crowd.C.test_wants_descriptors=set test_late.Late.test_after=alone" \
    "leftovers: test_crowd's six checked in one set, test_late's one alone"
is "$(jq -r '.per_test.reruns' "$work/c.json")" 2 "leftovers: two re-runs (one set, one alone), not seven"
like "$err" "7 test(s) failed under restrictive without a denial: re-running them by module, each module's in one run," \
    "leftovers: the audit says how it re-runs them"
is "$(jq -r '.tests[] | select(.name == "test_crowd.A.test_server") | .denied' "$work/c.json")" \
    "bind(AF_INET 127.0.0.1:0) x1 -> EPERM" "leftovers: the server test's own call, placed in the whole run"
is "$status" 0 "leftovers: nothing swallowed a denial, exit 0"

# ---- EMFILE under a low descriptor limit: tests that run out of
# descriptors after an earlier test's leaks (pass without it), one that
# leaks in its set as the first did in the whole run (the set runs again
# without it), and one that runs out by itself (every set it runs in
# reaches the limit, so whose failure was the limit's is told by a run
# alone)
cat >profiles/tight.ini <<'INI'
[profile]
description = restrictive with few descriptors
include = restrictive

[limits]
nofile = 32
INI
cat >test_fds.py <<'PY'
import unittest
import support

class A(unittest.TestCase):
    def test_server(self):
        try:
            support.server()
        except PermissionError:
            support.HELD.extend(open(__file__) for _ in range(24))
            raise

class B(unittest.TestCase):
    def test_bind_late(self):
        # runs out of descriptors before its bind in the whole run; in
        # its set it gets there, is denied and leaks as test_server did
        fs = [open(__file__) for _ in range(8)]
        for f in fs:
            f.close()
        A.test_server(self)
    def few(self):
        fs = [open(__file__) for _ in range(8)]
        for f in fs:
            f.close()
    def test_few_1(self):
        self.few()
    def test_few_2(self):
        self.few()
    def test_few_3(self):
        self.few()
    def test_many(self):
        fs = [open(__file__) for _ in range(64)]
        for f in fs:
            f.close()
    def test_pure(self):
        pass
PY
run_sbx audit --against tight --report "$work/f.json" -- python3 -m unittest test_fds
is "$(verdicts "$work/f.json")" "test_fds.A.test_server=exercised test_fds.B.test_bind_late=exercised test_fds.B.test_few_1=fails-at-limit test_fds.B.test_few_2=fails-at-limit test_fds.B.test_few_3=fails-at-limit test_fds.B.test_many=fails-at-limit test_fds.B.test_pure=unaffected" \
    "EMFILE: the leaks' victims and the test that runs out by itself labelled with the limit"
is "$(checks "$work/f.json")" "test_fds.B.test_bind_late=set test_fds.B.test_few_1=set test_fds.B.test_few_2=set test_fds.B.test_few_3=set test_fds.B.test_many=alone" \
    "EMFILE: the leaking one and the victims settled by their sets, the one failing in every set re-run alone"
is "$(jq -r '.per_test.reruns' "$work/f.json")" 3 "EMFILE: three re-runs (the set, the set without the leaking one, then one alone), not five"
is "$(jq -r '.per_test.phases.limits.reruns' "$work/f.json")" 3 "EMFILE: the record times the phase and counts its re-runs"
like "$err" "  fails-at-limit             passed / errored: test_fds.B.test_many (EMFILE: the descriptor limit of tight, nofile = 32)" \
    "EMFILE: the row names the limit"

done_testing
