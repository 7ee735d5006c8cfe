#!/bin/sh
# sbx audit on a real suite nobody here wrote (issues 33, 34): a part of
# CPython's network tests that runs in about a minute. The rows asserted
# were established by hand (docs/audit-precision.md): each test run alone
# under `sbx run -p restrictive` and its code read. Known pure tests are
# never flagged, the one lenient test is found, tests that fail on their
# denied calls are exercised, every name is one unittest itself gives, and
# a row named as a fixture is a fixture.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

# Debian's interpreter and its test suite (libpython3.11-testsuite), as
# the issue measured them
py=/usr/bin/python3
mods="test.test_httplib test.test_wsgiref test.test_poplib test.test_telnetlib test.test_xmlrpc.XMLRPCTestCase"
if ! "$py" -c 'import test.support, test.test_httplib, test.test_wsgiref, test.test_poplib, test.test_telnetlib, test.test_xmlrpc' 2>/dev/null; then
    skip "CPython's test suite is not installed for $py (apt-get install libpython3.11-testsuite)"
    done_testing
fi
make_build_tmpdir cpython-net
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH
# CPython's tests write their scratch files in TMPDIR: the sandbox's own /tmp
TMPDIR=/tmp
export TMPDIR
cd "$tmpdir" || exit 1

# The issue's own case: one pure test alone, whose process makes the
# import's denied call: the start-up's, not the test's.
run_sbx audit --report "$tmpdir/one.json" -- "$py" -m unittest test.test_httplib.BasicTest.test_bad_status_repr
is "$status" 0 "one pure test alone: exit 0, not a false green"
is "$(jq -r '[.tests[] | .name + "=" + .verdict] | join(" ")' "$tmpdir/one.json")" \
    "test.test_httplib.BasicTest.test_bad_status_repr=unaffected" "and it is unaffected"
like "$err" "the suite's start-up made denied calls: bind(AF_INET6 [::1]:0)" "the import's call is the start-up's"

# shellcheck disable=SC2086 # the module names are words
run_sbx audit --report "$tmpdir/r.json" -- "$py" -m unittest $mods
is "$status" 3 "a lenient test among them: exit 3"
verdict() { jq -r --arg t "$1" '[.tests[] | select(.name == $t) | .verdict] | join(",")' "$tmpdir/r.json"; }

# opens no socket (read by hand: Lib/test/test_httplib.py, test_wsgiref.py,
# test_poplib.py, test_telnetlib.py, test_xmlrpc.py); each alone under
# restrictive passes with the import's bind(AF_INET6 [::1]:0) only
for t in test.test_httplib.BasicTest.test_bad_status_repr \
    test.test_httplib.BasicTest.test_status_lines \
    test.test_httplib.HeaderTests.test_auto_headers \
    test.test_httplib.HeaderTests.test_content_length_0 \
    test.test_httplib.HeaderTests.test_malformed_headers_coped_with \
    test.test_httplib.HeaderTests.test_parse_all_octets \
    test.test_httplib.HeaderTests.test_invalid_headers \
    test.test_httplib.HeaderTests.test_putheader \
    test.test_httplib.OfflineTest.test_all \
    test.test_httplib.RequestBodyTest.test_manual_content_length \
    test.test_wsgiref.HeaderTests.testExtras \
    test.test_wsgiref.HeaderTests.testMappingInterface \
    test.test_wsgiref.UtilityTests.testAppURIs \
    test.test_telnetlib.OptionTests.test_IAC_commands \
    test.test_xmlrpc.XMLRPCTestCase.test_dump_bare_datetime \
    test.test_xmlrpc.XMLRPCTestCase.test_loads_unsupported; do
    is "$(verdict "$t")" unaffected "pure: $t"
done
# connects to localhost:9999 and passes on any OSError, by design: a green
# that does not depend on the call (the audit's definition of lenient)
is "$(verdict test.test_xmlrpc.XMLRPCTestCase.test_ssl_presence)" false-green \
    "lenient: test_xmlrpc's test_ssl_presence"
is "$(jq -r '.tests[] | select(.name == "test.test_xmlrpc.XMLRPCTestCase.test_ssl_presence") | .denied' "$tmpdir/r.json")" \
    "connect(AF_INET 127.0.0.1:9999) x1 -> EPERM" "its own call, not the import's"
is "$(jq -r '[.tests[] | select(.verdict == "false-green" or .verdict == "false-green-hiding-failure")] | length' "$tmpdir/r.json")" 1 \
    "and no other test flagged"
# the POP3 server thread's bind is denied: the tests that talk to it fail
for t in test.test_poplib.TestPOP3Class.test_stat test.test_poplib.TestPOP3Class.test_quit \
    test.test_telnetlib.GeneralTests.testBasic; do
    is "$(verdict "$t")" exercised "exercised: $t"
done
is "$(jq -r '[.tests[] | select(.verdict == "not-observed")] | length' "$tmpdir/r.json")" 0 "none left unobserved"
is "$(jq -r .per_test.startup_denied "$tmpdir/r.json")" "bind(AF_INET6 [::1]:0) x1 -> EPERM" \
    "test.support's import-time bind is the start-up's"

# every name is one unittest gives: the tests it loads, or a fixture row
# named after what it sets up
"$py" - $mods >"$tmpdir/names" <<'PY'
import sys, unittest
def walk(s):
    for t in s:
        if isinstance(t, unittest.TestSuite):
            yield from walk(t)
        else:
            yield t.id()
for name in sys.argv[1:]:
    for i in walk(unittest.defaultTestLoader.loadTestsFromName(name)):
        print(i)
PY
made_up=$(jq -r '.tests[] | select(.kind == "test") | .name' "$tmpdir/r.json" | sort | comm -23 - "$(sort "$tmpdir/names" >"$tmpdir/names.sorted" && echo "$tmpdir/names.sorted")")
is "$made_up" "" "no made-up names: every test row is one unittest loads"
is "$(jq -r '[.tests[] | select(.kind == "test")] | length' "$tmpdir/r.json")" "$(wc -l <"$tmpdir/names" | tr -d ' ')" \
    "and every test it loads has its row"
is "$(jq -r '[.tests[] | select((.name | test("\\.(setUp|tearDown)(Class|Module)$")) and .kind != "fixture")] | length' "$tmpdir/r.json")" 0 \
    "a row named after a class or module fixture is a fixture"
lines=$(printf '%s\n' "$err" | wc -l)
ok "$([ "$lines" -le 100 ] && echo 0 || echo 1)" "for people: $lines lines on stderr (at most 100)"

done_testing
