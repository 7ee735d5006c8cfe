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
# restrictive (docs/performance.md, "Real suites").
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

runners=${SBX_NODE_RUNNERS:-/var/lib/sbx-ci/node-runners}
pkg=$runners/node_modules/tcp-port-used
if ! command -v node >/dev/null 2>&1 || [ ! -f "$pkg/test.js" ] || [ ! -x "$runners/node_modules/.bin/mocha" ]; then
    for i in $(seq 7); do skip "tcp-port-used 1.0.2 and mocha are not installed in $runners (.ci/run installs them)"; done
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
    --grep '^(check arguments|waitUntilUsed should wait until the port is listening)' test.js
like "$err" "added --reporter json" "mocha: its JSON report added, said so"
verdicts() { # VERDICT: the names of the tests with it, sorted, one line
    jq -r --arg v "$1" '[.tests[] | select(.kind == "test" and .verdict == $v) | .name] | sort | join("|")' "$work/r.json"
}
is "$(jq -r '[.tests[] | select(.kind == "test")] | length' "$work/r.json")" 12 "12 tests read from mocha's report"
is "$(verdicts exercised)" \
    "waitUntilUsed should wait until the port is listening|waitUntilUsed should wait until the port is listening using arg obj" \
    "waitUntilUsed's waits: the port never binds under restrictive, they fail: exercised"
n=$(jq -r '[.tests[] | select(.kind == "test" and .verdict == "unaffected" and (.name | startswith("check arguments ")))] | length' "$work/r.json")
is "$n" 10 "the 10 argument checks open no socket: unaffected"
is "$(verdicts false-green)" "" "no test is called a false green"
is "$(verdicts fails-without-denial)" "" "no test is called fails-without-denial"
is "$(jq -r '.tests[] | select(.name == "waitUntilUsed should wait until the port is listening") | .denied' "$work/r.json" |
      grep -c 'bind(')" 1 "the exercised wait is charged its fixture's denied bind"
done_testing
