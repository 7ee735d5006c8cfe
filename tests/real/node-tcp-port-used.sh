#!/bin/sh
# make check-real: sbx audit on a node package's own mocha suite, as npm
# ships it: tcp-port-used 1.0.2 (test.js in its tarball; .ci/run installs
# it into $SBX_NODE_RUNNERS, so this test needs no network). Its tests
# bind and connect to fixed loopback ports. A subset, for time (the whole
# file waits out timeouts for 2.5 minutes under restrictive): the
# argument checks, which open no socket (unaffected), and waitUntilUsed's
# two waits for a port that a fixture's timer binds 2 s later: under
# restrictive the bind is denied, the wait times out, the test fails
# (exercised). Established by running each test alone under qa and under
# restrictive (docs/performance.md, "Real suites"). With sbx's result
# reporter (mocha typed directly), issue 34's two rows: waitUntilUsed's
# invalid-port checks, which open nothing, are unaffected (run alone, the
# before hook's timer bound after the test ended and was charged to it:
# a false green), and the before-all hook of "check functionality for
# unused port" (it binds) is a fixture row, observed under qa (passed)
# and errored under restrictive, where its test never runs (not-observed),
# where mocha's JSON names a hook only when it fails.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

runners=${SBX_NODE_RUNNERS:-/var/lib/sbx-ci/node-runners}
pkg=$runners/node_modules/tcp-port-used
if ! command -v node >/dev/null 2>&1 || [ ! -f "$pkg/test.js" ] || [ ! -x "$runners/node_modules/.bin/mocha" ]; then
    for i in $(seq 12); do skip "tcp-port-used 1.0.2 and mocha are not installed in $runners (.ci/run installs them)"; done
    done_testing; exit 0
fi
work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/real-node.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "$PWD/real-node.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH
# the package as installed (its own nested node_modules too), its
# dependencies found through the cache's node_modules one level up
cp -R "$pkg" "$work/pkg" && chmod -R u+w "$work/pkg" || exit 1
ln -s "$runners/node_modules" "$work/node_modules"
cd "$work/pkg" || exit 1

run_sbx audit --report "$work/r.json" -- "$work/node_modules/.bin/mocha" \
    --grep '^(check arguments|waitUntilUsed should (wait until the port is listening|reject promise when given an invalid port)|check functionality for unused port should return true for a used port with default host value in an obj$)' test.js
like "$err" "added --reporter json" "mocha: its JSON report added, said so"
like "$err" "added sbx's result reporter" "mocha: sbx's result reporter added, said so"
verdicts() { # VERDICT: the names of the tests with it, sorted, one line
    jq -r --arg v "$1" '[.tests[] | select(.kind == "test" and .verdict == $v) | .name] | sort | join("|")' "$work/r.json"
}
is "$(jq -r '[.tests[] | select(.kind == "test")] | length' "$work/r.json")" 15 "15 tests read from the reporter"
is "$(verdicts exercised)" \
    "waitUntilUsed should wait until the port is listening|waitUntilUsed should wait until the port is listening using arg obj" \
    "waitUntilUsed's waits: the port never binds under restrictive, they fail: exercised"
n=$(jq -r '[.tests[] | select(.kind == "test" and .verdict == "unaffected" and (.name | startswith("check arguments ")))] | length' "$work/r.json")
is "$n" 10 "the 10 argument checks open no socket: unaffected"
is "$(verdicts false-green)" "" "no test is called a false green"
is "$(verdicts fails-without-denial)" "" "no test is called fails-without-denial"
# each wait is charged its own denied connect; the bind its before
# hook's timer makes lands in an after-all hook's run (mocha waits for
# it): a fixture's, never a test's (a re-run alone charged it to each)
is "$(jq -r '.tests[] | select(.name | startswith("waitUntilUsed should wait until the port is listening")) | .denied' "$work/r.json" |
      grep -c '^connect(AF_INET 127.0.0.1:44204) x1 -> EPERM$')" 2 "each wait is charged its own denied connect"
is "$(jq -r '[.tests[] | select(.kind == "test" and .verdict != "not-observed" and (.denied | test("bind\\(")))] | length' "$work/r.json")" 0 \
    "no observed test is charged a hook's bind"
is "$(verdicts unaffected | tr '|' '\n' | grep -c '^waitUntilUsed should reject promise when given an invalid port')" 2 \
    "issue 34 (a): the invalid-port checks open nothing: unaffected, the hook's late bind not theirs"
is "$(jq -r '.tests[] | select(.kind == "fixture" and (.name | startswith("check functionality for unused port \"before all\" hook"))) | .under.status + "/" + (.under.observed | tostring) + " " + .against.status' "$work/r.json")" \
    "passed/true errored" "issue 34 (b): the binding before-all hook, a fixture row: passed under qa, errored under restrictive"
is "$(verdicts not-observed)" "check functionality for unused port should return true for a used port with default host value in an obj" \
    "its test never runs under restrictive: not-observed"
done_testing
