#!/bin/sh
# sbx audit on a real suite nobody here wrote (issue 33): CPython's own
# network tests. test.support binds [::1]:0 at import in every process;
# that call is the start-up's, said once, and no pure test is flagged for
# it. A list of tests that open no socket (read by hand) must come out
# unaffected, and the audit must not cry wolf anywhere.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

if ! python3 -c 'import test.support, test.test_httplib, test.test_wsgiref, test.test_poplib' 2>/dev/null; then
    skip "CPython's test suite is not installed (apt-get install libpython3.11-testsuite)"
    done_testing
fi
work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/audit-cpython.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "$PWD/audit-cpython.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH
cd "$work" || exit 1

# The issue's own case: one pure test alone, whose process makes the
# import's denied call.
run_sbx audit --report "$work/one.json" -- python3 -m unittest test.test_httplib.BasicTest.test_bad_status_repr
is "$status" 0 "one pure test alone: exit 0, not a false green"
is "$(jq -r '[.tests[] | .name + "=" + .verdict] | join(" ")' "$work/one.json")" \
    "test.test_httplib.BasicTest.test_bad_status_repr=unaffected" "and it is unaffected"
like "$err" "the suite's start-up made denied calls: bind(AF_INET6 [::1]:0)" "the import's call is the start-up's"

run_sbx audit --report "$work/a.json" -- python3 -m unittest test.test_httplib test.test_wsgiref test.test_poplib
is "$status" 0 "httplib, wsgiref, poplib: nothing swallowed, exit 0"
is "$(jq -r '[.tests[] | select(.verdict == "false-green" or .verdict == "false-green-hiding-failure" or .verdict == "not-observed")] | length' "$work/a.json")" 0 \
    "no test flagged, none left unobserved"
is "$(jq -r '.per_test.reruns' "$work/a.json")" 0 "every denial placed by unittest's output: no re-run"
# opened no socket, by reading them (Lib/test/test_httplib.py, test_wsgiref.py)
pure="test.test_httplib.BasicTest.test_bad_status_repr
test.test_httplib.BasicTest.test_status_lines
test.test_httplib.HeaderTests.test_auto_headers
test.test_httplib.HeaderTests.test_content_length_0
test.test_httplib.HeaderTests.test_invalid_headers
test.test_httplib.HeaderTests.test_malformed_headers_coped_with
test.test_httplib.HeaderTests.test_parse_all_octets
test.test_httplib.HeaderTests.test_putheader
test.test_wsgiref.HeaderTests.testExtras
test.test_wsgiref.HeaderTests.testMappingInterface"
for t in $pure; do
    is "$(jq -r --arg t "$t" '.tests[] | select(.name == $t) | .verdict' "$work/a.json")" unaffected "pure: $t"
done
lines=$(printf '%s\n' "$err" | wc -l)
ok "$([ "$lines" -le 100 ] && echo 0 || echo 1)" "for people: $lines lines on stderr (at most 100)"

done_testing
