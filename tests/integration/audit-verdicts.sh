#!/bin/sh
# sbx audit: every row true (issues 25, 33, 34). Suites where every
# process makes a denied call before any test runs (as CPython's
# test.support binds [::1]:0 at import), beside honest, lenient and pure
# tests, in unittest, pytest (a conftest and a module-scope fixture) and go
# (TestMain); a go test binary that dies mid-run; a fixture that hangs;
# tests that hang one after another, each stopped at its own bound; a
# test failing under qa; EMFILE under a low descriptor limit; a runner
# that cannot run one test; SIGTERM during the re-runs. Every verdict is
# asserted from the run record.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/audit-verdicts.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "$PWD/audit-verdicts.XXXXXX") || exit 1
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles:$work/profiles"
export SBX_PROFILE_PATH
cd "$work" || exit 1
mkdir profiles

# the verdicts of the record, "name=verdict" sorted, fixtures and parents included
verdicts() { jq -r '[.tests[] | .name + "=" + .verdict] | sort | join(" ")' "$1"; }

# ---- unittest: an import-time denial in every process, a setUpClass one
cat >support.py <<'PY'
import socket
# what CPython's test.support does at import: probe for IPv6
try:
    s = socket.socket(socket.AF_INET6); s.bind(("::1", 0)); s.close()
except OSError:
    pass
PY
cat >test_imp.py <<'PY'
import socket, unittest
import support

def bind():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.close()

class Plain(unittest.TestCase):
    def test_honest(self):
        bind()
    def test_lenient(self):
        try:
            bind()
        except PermissionError:
            return
    def test_pure(self):
        self.assertEqual(1 + 1, 2)
    def test_fails_everywhere(self):
        self.assertEqual(1, 2)

class WithFixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            socket.socket().bind(("127.0.0.1", 0))
        except PermissionError:
            pass
    def test_pure_in_fixture(self):
        pass
PY
run_sbx audit --report "$work/u.json" -- python3 -m unittest test_imp
is "$status" 3 "unittest: a false green among them: exit 3, a test failing under qa hides nothing"
is "$(verdicts "$work/u.json")" \
    "test_imp.Plain.test_fails_everywhere=fails test_imp.Plain.test_honest=exercised test_imp.Plain.test_lenient=false-green test_imp.Plain.test_pure=unaffected test_imp.WithFixture.test_pure_in_fixture=unaffected" \
    "unittest: every verdict, the pure tests not charged with the import's or the fixture's call"
like "$err" "the suite's start-up made denied calls: bind(AF_INET6 [::1]:0) x1 -> EPERM (before any test ran; charged to no test)" \
    "unittest: the import's call is said once, as the start-up's"
like "$err" "a class or module fixture made denied calls between tests: bind(AF_INET 127.0.0.1:0) x1 -> EPERM" \
    "unittest: setUpClass's call is said once, as the suite's"
like "$err" "1 test(s) fail under qa itself, which proves nothing about them: test_imp.Plain.test_fails_everywhere; the others are judged" \
    "unittest: the test failing under qa is named, the others judged"
is "$(jq -r '.tests[] | select(.name == "test_imp.Plain.test_lenient") | .denied' "$work/u.json")" \
    "bind(AF_INET 127.0.0.1:0) x1 -> EPERM" "unittest: the lenient test carries its own call only"
is "$(jq -r .per_test.reruns "$work/u.json")" 0 "unittest: nothing re-run"

# The same test alone: its run makes the import's call too; less the
# calls made before unittest announced the test, it made none.
run_sbx audit --report "$work/u1.json" -- python3 -m unittest test_imp.Plain.test_pure
is "$status" 0 "unittest, one pure test whose import is denied: exit 0"
is "$(verdicts "$work/u1.json")" "test_imp.Plain.test_pure=unaffected" "unittest: alone, the pure test is unaffected"

# ---- pytest: a conftest's call at collection, a module-scope fixture that gives up quietly
if command -v pytest >/dev/null 2>&1; then
    mkdir py && cd py || exit 1
    cat >conftest.py <<'PY'
import socket
try:
    s = socket.socket(socket.AF_INET6); s.bind(("::1", 0)); s.close()
except OSError:
    pass
PY
    cat >test_mod.py <<'PY'
import socket, pytest

@pytest.fixture(scope="module")
def server():
    try:
        s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
    except PermissionError:
        yield None          # gives up quietly: the seed's pattern
        # and its teardown tries once more, quietly: the suite's call too
        try:
            socket.create_connection(("127.0.0.1", 7), timeout=1)
        except OSError:
            pass
        return
    yield s
    s.close()

@pytest.fixture
def port():                 # the test's own fixture: its calls are the test's
    try:
        s = socket.socket(); s.bind(("127.0.0.1", 0))
    except PermissionError:
        yield None
        return
    yield s.getsockname()[1]
    s.close()

def test_uses_server_leniently(server):
    if server is None:
        # it tries the server's address anyway, and swallows that too
        try:
            socket.create_connection(("127.0.0.1", 9), timeout=1)
        except OSError:
            pass
        return
    assert server.getsockname()[1] > 0

def test_honest():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.close()

def test_pure():
    assert sorted([2, 1]) == [1, 2]

def test_pure_too():
    assert "a".upper() == "A"

def test_with_own_fixture(port):
    if port is None:
        return
    assert port > 0
PY
    run_sbx audit --report "$work/p.json" -- pytest test_mod.py
    is "$status" 3 "pytest: the test behind the quiet fixture is a false green: exit 3"
    is "$(verdicts "$work/p.json")" \
        "test_mod.py::test_honest=exercised test_mod.py::test_pure=unaffected test_mod.py::test_pure_too=unaffected test_mod.py::test_uses_server_leniently=false-green test_mod.py::test_with_own_fixture=false-green" \
        "pytest: every verdict; the conftest's call charged to no test"
    is "$(jq -r '.tests[] | select(.name == "test_mod.py::test_uses_server_leniently") | .denied' "$work/p.json" | grep -c 'connect(')" 1 \
        "pytest: found through its own call (connect), not the start-up's"
    # serial pytest: sbx's reporter records each start, and brackets the
    # module fixture's setup (in the first test's setup) and teardown (in
    # the last test's teardown) as the suite's own time
    like "$err" "attributed without re-running" "pytest: every denial placed by the channel, nothing re-run"
    is "$(jq -r '.tests[] | select(.name == "test_mod.py::test_uses_server_leniently") | .denied' "$work/p.json")" \
        "connect(AF_INET 127.0.0.1:9) x1 -> EPERM" \
        "pytest: the module fixture's bind, set up in this test's setup, is not this test's"
    like "$err" "a class or module fixture made denied calls between tests: bind(AF_INET 127.0.0.1:0) x1 -> EPERM; connect(AF_INET 127.0.0.1:7) x1 -> EPERM (the suite's" \
        "pytest: the module fixture's setup and teardown calls are the suite's, said once"
    is "$(jq -r '.tests[] | select(.name == "test_mod.py::test_with_own_fixture") | .denied' "$work/p.json")" \
        "bind(AF_INET 127.0.0.1:0) x1 -> EPERM" \
        "pytest: a function-scoped fixture's call is its test's"
    cd "$work" || exit 1
else
    for i in $(seq 7); do skip "pytest is not installed for uid $(id -u)"; done
fi

# ---- go: TestMain's denied call in every binary; a binary that dies mid-run
if command -v go >/dev/null 2>&1; then
    export GOCACHE="$work/.gocache" GOPATH="$work/.gopath" GOFLAGS=-mod=mod GOTOOLCHAIN=local
    mkdir -p gomain gopanic
    printf 'module example.com/m\n\ngo 1.19\n' >gomain/go.mod
    cat >gomain/m_test.go <<'GO'
package m

import (
	"net"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if l, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		l.Close()
	}
	os.Exit(m.Run())
}

func TestPureFirst(t *testing.T) {}

func TestLenient(t *testing.T) {
	if l, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		l.Close()
	}
}

func TestHonest(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
}

func TestPure(t *testing.T) {}
GO
    cd gomain || exit 1
    run_sbx audit --report "$work/g.json" -- go test .
    is "$status" 3 "go, TestMain denied in every binary: a false green, exit 3"
    is "$(verdicts "$work/g.json")" \
        "TestHonest=exercised TestLenient=false-green TestPure=unaffected TestPureFirst=unaffected" \
        "go: every verdict, TestMain's call charged to no test"
    like "$err" "the suite's start-up made denied calls: bind(AF_INET6 [::1]:0) x1 -> EPERM" "go: said once, as the start-up's"
    cd "$work" || exit 1

    printf 'module example.com/p\n\ngo 1.19\n' >gopanic/go.mod
    cat >gopanic/p_test.go <<'GO'
package p

import (
	"net"
	"testing"
)

// as httptest.NewServer does when listen fails
func TestServerPanics(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	l.Close()
}

func TestLenientAfter(t *testing.T) {
	if l, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		l.Close()
	}
}

func TestPureAfter(t *testing.T) {}
GO
    cd gopanic || exit 1
    run_sbx audit --report "$work/gp.json" -- go test .
    is "$status" 3 "go, a binary that dies mid-run: the lenient test after it is found, exit 3"
    is "$(verdicts "$work/gp.json")" \
        "TestLenientAfter=false-green TestPureAfter=unaffected TestServerPanics=exercised" \
        "go: the tests that never ran under restrictive are re-run there, none fails-without-denial"
    like "$err" "have no result under restrictive (their process died with another test, a timeout or a crash): re-running 2 there alone" \
        "go: says why they are re-run"
    # one package named: the binary's === RUN lines reach sbx directly, so
    # the two run together, resumed after the panic, each call placed
    like "$err" "running the 2 together under restrictive first, resumed after any test that stops the run" \
        "go: the two run together in one resumed run"
    is "$(jq -r '[.tests[] | select(.name | test("After")) | .against.observed] | unique | join(" ")' "$work/gp.json") $(jq -r .per_test.reruns "$work/gp.json")" \
        "true 1" "record: their results under restrictive observed, from one re-run"
    cd "$work" || exit 1
else
    for i in $(seq 8); do skip "go is not installed for uid $(id -u)"; done
fi

# ---- a fixture that hangs under restrictive: each re-run waits for its
# own bound, not the whole run's; what cannot be observed is not-observed
cat >test_hang.py <<'PY'
import socket, time, unittest
class Hangs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            socket.socket().bind(("127.0.0.1", 0))
        except PermissionError:
            time.sleep(600)
    def test_a(self): pass
    def test_b(self): pass
PY
t0=$(date +%s)
run_sbx audit --against-timeout 2s --report "$work/h.json" -- python3 -m unittest test_hang
t1=$(date +%s)
is "$status" 4 "a hanging fixture: its tests cannot be observed under restrictive: exit 4"
is "$(verdicts "$work/h.json")" "test_hang.Hangs.test_a=not-observed test_hang.Hangs.test_b=not-observed" \
    "the hanging fixture's tests are not-observed, never fails-without-denial"
like "$err" "sbx: verdict: incomplete, not trustworthy" "and the audit says it is incomplete"
if [ $((t1 - t0)) -lt 30 ]; then pass "each re-run bounded: $((t1 - t0)) s in all"
else fail "each re-run bounded: $((t1 - t0)) s in all"; fi
is "$(jq -r .exit_status "$work/h.json")/$(jq -r .verdict "$work/h.json")" 4/incomplete "record: incomplete, exit 4"

# ---- tests that hang one after another, as test_xmlrpc's do under
# restrictive: the server thread's bind is denied, the test fails (Python
# 3.11 reports it before tearDown) and tearDown waits for ever for a server
# that never ran. Each is stopped at its own bound within the run, and the
# tests after it are resumed together, their denials placed by the output:
# one run per hang, no bisection, no test left unobserved.
cat >test_tear.py <<'PY'
import socket, threading, unittest
class Server(unittest.TestCase):
    def setUp(self):
        self.ready, self.stopped, self.port = threading.Event(), threading.Event(), None
        def serve():
            try:
                s = socket.socket(); s.bind(("127.0.0.1", 0))
                self.port = s.getsockname()[1]; s.close(); self.stopped.set()
            finally:
                self.ready.set()
        threading.Thread(target=serve, daemon=True).start()
        self.ready.wait()
    def tearDown(self):
        self.stopped.wait()
    def test_1(self): self.assertIsNotNone(self.port)
    def test_2(self): self.assertIsNotNone(self.port)
    def test_3(self): self.assertIsNotNone(self.port)
class Then(unittest.TestCase):
    def test_lenient(self):
        try:
            socket.socket().bind(("127.0.0.1", 0))
        except PermissionError:
            return
    def test_pure(self): pass
PY
run_sbx audit --report "$work/t.json" -- python3 -m unittest test_tear
is "$status" 3 "hangs in tearDown, then a lenient test: exit 3"
is "$(verdicts "$work/t.json")" \
    "test_tear.Server.test_1=exercised test_tear.Server.test_2=exercised test_tear.Server.test_3=exercised test_tear.Then.test_lenient=false-green test_tear.Then.test_pure=unaffected" \
    "each hanging test exercised, the lenient one after them found, the pure one cleared"
like "$err" "the run under restrictive timed out at a test's own bound: test_tear.Server.test_1 ran " \
    "the whole run is stopped at the first test past its own bound"
is "$(jq -r '[.tests[] | .against.status | sub("timed-out"; "failed")] | join(" ")' "$work/t.json")" \
    "failed failed failed passed passed" \
    "the hanging tests failed or timed out under restrictive, the two after them passed"
is "$(jq -r '.per_test.stopped_at_test_bound' "$work/t.json")" 3 \
    "the whole run and two resumed runs stopped at a test's bound"
is "$(jq -r '.per_test.reruns' "$work/t.json")" 3 "three runs in all after the whole run: one per hang and the last, no bisection"
is "$(jq -r '.tests[] | select(.name == "test_tear.Then.test_lenient") | .attributed + " " + .denied' "$work/t.json")" \
    "set bind(AF_INET 127.0.0.1:0) x1 -> EPERM" "the lenient test's call placed in the run it got its result in"


# ---- a resumed run that hangs between tests, after a result and before
# the next announcement: in a tearDownClass, or at exit on a thread that
# is not a daemon (threading._shutdown joins it). The test announced last
# stays bounded after its result, so each such run stops at that test's
# bound, never at the whole run's (minutes on CPython's suite).
cat >common_hang.py <<'PY'
import socket
def denied():
    try:
        socket.socket().bind(("127.0.0.1", 0)); return False
    except PermissionError:
        return True
PY
cat >test_between.py <<'PY'
import threading, time, unittest
from common_hang import denied
class A(unittest.TestCase):
    def test_hang(self):
        if denied(): time.sleep(600)
class B(unittest.TestCase):
    @classmethod
    def tearDownClass(cls):
        if denied(): time.sleep(600)
    def test_1(self): pass
class C(unittest.TestCase):
    def test_c(self): pass
def tearDownModule():
    if denied(): threading.Thread(target=time.sleep, args=(600,)).start()
PY
t0=$(date +%s)
run_sbx audit --report "$work/b.json" -- python3 -m unittest test_between
t1=$(date +%s)
is "$(verdicts "$work/b.json")" \
    "test_between.A.test_hang=exercised test_between.B.test_1=unaffected test_between.C.test_c=unaffected" \
    "hangs between tests: every test has its result under restrictive"
is "$(jq -r '.per_test.stopped_at_test_bound' "$work/b.json")" 3 \
    "the whole run and each resumed run stopped at the bound of the test announced last"
if [ $((t1 - t0)) -lt 60 ]; then pass "no run waited for the whole run's bound: $((t1 - t0)) s in all"
else fail "a run waited for the whole run's bound: $((t1 - t0)) s in all"; fi
# ---- a test that fails under restrictive only after another test's
# leftovers, and passes there alone, in a suite whose start-up is denied
# (CPython's test_logging.BasicConfigTest.test_filename after test_ssl):
# the start-up's call, which its run alone made too, is not why it failed
cat >test_left.py <<'PY'
import socket, unittest
import support
LEFT = []
class Order(unittest.TestCase):
    def test_1_honest(self):
        try:
            socket.socket().bind(("127.0.0.1", 0))
        except PermissionError:
            LEFT.append("a server never stopped")
            raise
    def test_2_after(self):
        self.assertEqual(LEFT, [])
PY
run_sbx audit --report "$work/l.json" -- python3 -m unittest test_left
is "$(verdicts "$work/l.json")" "test_left.Order.test_1_honest=exercised test_left.Order.test_2_after=fails-without-denial" \
    "a test failing on another's leftovers, passing alone: fails-without-denial, not exercised by the start-up's call"

# ---- EMFILE under a low descriptor limit
cat >profiles/tight.ini <<'INI'
[profile]
description = restrictive with few descriptors
include = restrictive

[limits]
nofile = 32
INI
cat >test_fds.py <<'PY'
import unittest
class Fds(unittest.TestCase):
    def test_many_files(self):
        fs = [open(__file__) for _ in range(64)]
        for f in fs:
            f.close()
    def test_pure(self):
        pass
PY
run_sbx audit --against tight --report "$work/f.json" -- python3 -m unittest test_fds
is "$(verdicts "$work/f.json")" "test_fds.Fds.test_many_files=fails-at-limit test_fds.Fds.test_pure=unaffected" \
    "EMFILE: labelled with the limit, not exercised nor fails-without-denial"
like "$err" "  fails-at-limit             passed / errored: test_fds.Fds.test_many_files (EMFILE: the descriptor limit of tight, nofile = 32)" \
    "the row names the limit and its value"
is "$status" 0 "EMFILE alone: nothing swallowed, exit 0"
like "$err" "sbx: fix: [limits] nofile = max   (safe: raises the descriptor limit tight sets (nofile = 32) to the hard limit" \
    "EMFILE: the fix line an agent can act on (issue 31)"
is "$(jq -r '.tests[] | select(.verdict == "fails-at-limit") | .fix.section + " " + .fix.line + " " + (.fix.safe | tostring)' "$work/f.json")" \
    "limits nofile = max true" "EMFILE: the record's row carries the fix"

# ---- a runner that cannot run one test: the whole run's denials are no
# test's own, never trustworthy
run_sbx audit --runner tap -- python3 -c '
import socket
try:
    socket.socket().bind(("127.0.0.1", 0))
except PermissionError:
    pass
print("ok 1 - lenient"); print("ok 2 - pure"); print("1..2")'
is "$status" 4 "TAP with denials: not one test re-run, the denials unattributed: exit 4"
like "$err" "denied call(s) of the whole run were made by no test run alone nor by the start-up" \
    "says the denials are no test's"
like "$err" "  not-observed               passed / passed: pure" \
    "the pure test is not called a false green on the whole run's calls"
unlike "$err" "re-running" "and no re-run is announced: none can be made"

# ---- SIGTERM during the re-runs names the re-runs
env --default-signal=INT,TERM,HUP "$SBX" audit --against-timeout 2s -- python3 -m unittest test_hang \
    </dev/null >"$work/sig.out" 2>&1 &
pid=$!
i=0
while [ $i -lt 400 ] && ! grep -q "there alone" "$work/sig.out"; do sleep 0.05; i=$((i + 1)); done
sleep 0.3
kill -TERM $pid
wait $pid
is "$?" 143 "SIGTERM during the re-runs: exit 143"
like "$(cat "$work/sig.out")" "interrupted by SIGTERM during the re-runs of single tests under restrictive" \
    "the phase is named: the re-runs"

# ---- an environment path the sandbox empties is said at the start, by
# run and by audit (a private /tmp)
PYTHONPATH=/tmp/sbx-nowhere:/usr/lib run_sbx run -p qa -- true
like "$err" "warning: PYTHONPATH names /tmp/sbx-nowhere, which the sandbox replaces with an empty tmpfs (tmpfs /tmp" \
    "run: PYTHONPATH under the private /tmp is warned about"
PYTHONPATH=/tmp/sbx-nowhere run_sbx audit -- python3 -m unittest test_fds.Fds.test_pure
like "$err" "warning: PYTHONPATH names /tmp/sbx-nowhere" "audit: the same warning at the start"
PYTHONPATH=/usr/lib run_sbx run -p qa -- true
unlike "$err" "warning: PYTHONPATH" "a visible directory: no warning"

# ---- for CI: --junit, --tap, $GITHUB_STEP_SUMMARY; the names are the
# command's, escaped for each format; the files are sbx's, written
# outside the sandbox: a link planted at the name is replaced, never
# followed
printf 'secret\n' >"$work/secret"
ln -s "$work/secret" "$work/j.xml"
: >"$work/summary.md"
printf 'earlier step\n' >"$work/summary.md"
GITHUB_STEP_SUMMARY="$work/summary.md" run_sbx audit --runner tap --junit "$work/j.xml" --tap "$work/t.tap" -- python3 -c '
import socket
try:
    socket.socket().bind(("127.0.0.1", 0))
    print("ok 1 - <b>&\"x\" | y")
except PermissionError:
    print("not ok 1 - <b>&\"x\" | y")
print("ok 2 - pure # a comment")
print("1..2")'
is "$status" 4 "ci: the verdict's exit status is kept (4: the whole run's calls)"
is "$(cat "$work/secret")" "secret" "ci: --junit replaced the planted link, did not write through it"
if python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); print(len(d.getElementsByTagName("testcase")), len(d.getElementsByTagName("failure")))' "$work/j.xml" >"$work/j.count" 2>&1; then
    is "$(cat "$work/j.count")" "2 1" "ci: JUnit XML parses: a testcase a test, the not-observed one a failure"
else
    fail "ci: the JUnit XML does not parse: $(cat "$work/j.count")"
fi
like "$(cat "$work/j.xml")" 'name="&lt;b&gt;&amp;&quot;x&quot; | y"' "ci: the hostile name is XML-escaped"
like "$(cat "$work/t.tap")" "not ok 2 - pure \\# a comment # not-observed" "ci: TAP: a '#' of the name cannot make a directive"
like "$(cat "$work/summary.md")" "earlier step" "ci: the step summary is appended to"
like "$(cat "$work/summary.md")" "| not-observed | pure # a comment | passed / passed |" "ci: a Markdown row per test that is not unaffected"
like "$(cat "$work/summary.md")" '| exercised | &#60;b&#62;&#38;"x" \| y |' "ci: '|' and HTML of the name escaped"
# as --report: a device is written into, never replaced; a directory is
# refused before anything runs
run_sbx audit --junit /dev/null -- true
is "$status:$([ -c /dev/null ] && echo char)" "0:char" "ci: --junit onto a device writes into it, and leaves the device"
run_sbx audit --junit "$work" -- true
is "$status" 125 "ci: --junit onto a directory is refused before anything runs"

# ---- output for people (issue 34): without -v the suite's own output is
# not shown, only the table and the summary; a run failing under qa shows
# its last lines, its control bytes replaced; -v shows everything; the
# record keeps the tail
cat >test_talk.py <<'PY'
import sys, unittest
class Talk(unittest.TestCase):
    def test_talks(self):
        print("MARKER-OUT line")
        sys.stderr.write("MARKER-ERR line\n")
PY
cat >test_broke.py <<'PY'
import sys, unittest
class Broke(unittest.TestCase):
    def test_breaks(self):
        sys.stderr.write("WHY-IT-BROKE \x1b]0;title\x07 here\n")
        self.fail("broken everywhere")
PY
run_sbx audit --report "$work/talk.json" -- python3 -m unittest test_talk
unlike "$out$err" "MARKER-OUT" "output: without -v, the suite's stdout is not shown"
unlike "$err" "MARKER-ERR" "output: without -v, the suite's stderr is not shown"
like "$err" "---- end of run 1 of 2, under qa: exit 0, 1 result(s) read, " \
    "output: each run's end says what was read and what was not shown"
is "$(jq -r '.runs[0].output_tail | contains("MARKER-OUT line")' "$work/talk.json")" true \
    "output: the record keeps the output's tail"
if [ "$(jq -r '.runs[1].output_bytes' "$work/talk.json")" -gt 0 ] 2>/dev/null; then
    pass "output: the record says how much each run wrote"
else
    fail "output: the record says how much each run wrote: $(jq -c '.runs[1].output_bytes' "$work/talk.json")"
fi
run_sbx audit -- python3 -m unittest test_broke
like "$err" " ... WHY-IT-BROKE ?]0;title? here" \
    "output: a run failing under qa shows its last lines, the escape sequence made harmless"
run_sbx audit -v -- python3 -m unittest test_talk
like "$out$err" "MARKER-OUT line" "output: -v shows the suite's output"
unlike "$err" "so far" "output: no progress line where stderr is no terminal (a CI log)"
if command -v script >/dev/null 2>&1; then
    script -qec "\"$SBX\" audit -- python3 -m unittest test_talk" /dev/null </dev/null >"$work/tty.out" 2>&1
    like "$(cat "$work/tty.out")" "run 1 of 2, under qa: 1 result(s) so far" \
        "output: on a terminal, a progress line counts each run's results"
else
    skip "script(1) is not installed (util-linux)"
fi

done_testing
