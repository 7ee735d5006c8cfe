#!/bin/sh
# sbx audit's result reporter for mocha (issues 25, 34): mocha typed
# directly runs with sbx's reporter, which writes each test's and each
# hook's start and result to the result channel; a denial is charged to
# the one test (or hook) running when it was made, with no re-run. The
# corpus: an honest test, a lenient one (returns early on EPERM), one
# that skips visibly when bind fails, a pure one, a pure one after a
# `before` hook whose timer binds once the test has ended (issue 34:
# charged to it by a re-run alone, a false green), a failing `before all`
# hook (issue 34: not-observed under qa; here a fixture row that fails
# under qa), a pure test printing a forged record and a forged mocha
# document, a test mocha retries, and a second file. Then the channel forged by a test (the
# audit never ends trustworthy), mocha re-executing itself (the channel
# silent) and mocha --parallel (no reporter): the JSON and re-runs, as
# before, said so.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

runners=${SBX_NODE_RUNNERS:-/var/lib/sbx-ci/node-runners}
if ! command -v node >/dev/null 2>&1 || [ ! -x "$runners/node_modules/.bin/mocha" ]; then
    for i in $(seq 16); do skip "mocha is not installed in $runners (.ci/run installs it)"; done
    done_testing; exit 0
fi
work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/audit-mocha.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "$PWD/audit-mocha.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH
cd "$work" || exit 1
ln -s "$runners/node_modules" node_modules
cat >a.spec.js <<'JS'
const net = require('node:net');
const assert = require('node:assert');
const listen = () => new Promise((ok, ko) => {
  const s = net.createServer();
  s.on('error', ko);
  s.listen(0, '127.0.0.1', () => s.close(ok));
});
describe('net', function () {
  it('honest', async function () { await listen(); });
  it('lenient', async function () {
    try { await listen(); } catch (e) { if (e.code === 'EPERM') return; throw e; }
  });
  it('skips', async function () {
    try { await listen(); } catch (e) { this.skip(); }
  });
});
describe('late', function () {
  before(function () {
    setTimeout(() => { const s = net.createServer(); s.on('error', () => {}); s.listen(0, '127.0.0.1', () => s.close()); }, 30);
  });
  it('pure after a hook', function () { assert.ok(true); });
});
describe('broken', function () {
  before(function () { throw new Error('the fixture fails everywhere'); });
  it('never runs', function () {});
});
JS
cat >b.spec.js <<'JS'
const assert = require('node:assert');
const net = require('node:net');
let tries = 0;
describe('retry', function () {
  beforeEach(function () {});
  // fails once, then is lenient: one run over both attempts, its bind its own
  it('lenient on its second try', function (done) {
    this.retries(1);
    if (++tries < 2) throw new Error('first try');
    const s = net.createServer();
    s.on('error', () => done());
    s.listen(0, '127.0.0.1', () => s.close(() => done()));
  });
});
describe('pure', function () {
  it('adds', function () { assert.equal(1 + 1, 2); });
  it('forges', function () {
    console.log('0123456789abcdef0123456789abcdef 3 result failed net lenient');
    console.log('{"stats":{"tests":1,"passes":1,"failures":0,"pending":0},"passes":[{"title":"lenient","fullTitle":"net lenient"}],"failures":[],"pending":[]}');
  });
});
JS
verdicts() { jq -r '[.tests[] | .kind + ":" + .name + "=" + .verdict] | sort | join("|")' "$1"; }

run_sbx audit --report "$work/m.json" -- node_modules/.bin/mocha a.spec.js b.spec.js
is "$status" 3 "mocha with sbx's reporter: false greens, exit 3"
like "$err" "added sbx's result reporter: mocha runs as /usr/bin/node -e" "the reporter added, said so"
like "$err" "attributed without re-running" "every denial placed by the channel"
like "$err" "fixture made denied calls between tests: bind" "the hook's late bind: the suite's, between tests"
unlike "$err" "re-running there" "no re-run at all"
is "$(jq '[.tests[] | select(.under.rerun_alone or .against.rerun_alone)] | length' "$work/m.json")" 0 \
    "no row was re-run alone"
unlike "$err" "as a fallback" "the results came from the channel"
is "$(verdicts "$work/m.json")" \
    "fixture:broken \"before all\" hook for \"never runs\"=fails|fixture:late \"before all\" hook for \"pure after a hook\"=unaffected|fixture:retry \"before each\" hook for \"lenient on its second try\"=unaffected|test:late pure after a hook=unaffected|test:net honest=exercised|test:net lenient=false-green|test:net skips=skipped-here|test:pure adds=unaffected|test:pure forges=unaffected|test:retry lenient on its second try=false-green" \
    "every verdict: the hook's late bind is no test's, the failing before-all hook a fixture failing under qa, the forged lines change nothing"
is "$(jq -r '.tests[] | select(.name == "broken \"before all\" hook for \"never runs\"") | .under.status + " " + (.under.observed | tostring)' "$work/m.json")" "errored true" \
    "the failing before-all hook: observed under qa, errored"
is "$(jq -r '.tests[] | select(.name == "net lenient") | .denied' "$work/m.json")" "bind(AF_INET 127.0.0.1:0) x1 -> EPERM" \
    "the lenient test is charged its own bind only"

# a test that writes to the channel itself, without the run's key
cat >c.spec.js <<'JS'
const fs = require('node:fs');
it('writes the channel', function () { try { fs.writeSync(61, 'x 1 result passed writes the channel\n'); } catch (e) {} });
JS
run_sbx audit --report "$work/f.json" -- node_modules/.bin/mocha c.spec.js a.spec.js
isnt "$status" 0 "a test that forges a record: never trustworthy"
like "$err" "a record without the run's key" "the forgery named"

# --node-option: mocha re-executes itself in a child, the reporter is
# not there, the channel stays silent: mocha's JSON and re-runs, said so
run_sbx audit --report "$work/n.json" -- node_modules/.bin/mocha --node-option no-warnings a.spec.js b.spec.js
like "$err" "results read from the output, as a fallback: sbx's result reporter never spoke" \
    "mocha re-executing itself: the fallback, said so"
is "$(jq -r '.tests[] | select(.name == "net lenient") | .verdict' "$work/n.json")" false-green \
    "mocha re-executing itself: the lenient test still found, by re-runs"

# --parallel: the tests run in workers, where the reporter is not
run_sbx audit --report "$work/p.json" -- node_modules/.bin/mocha --parallel a.spec.js b.spec.js
like "$err" "mocha --parallel runs the tests in worker processes" "mocha --parallel: no reporter, said so"
is "$(jq -r '.tests[] | select(.name == "net lenient") | .verdict' "$work/p.json")" false-green \
    "mocha --parallel: the lenient test found by re-runs, as before"
done_testing
