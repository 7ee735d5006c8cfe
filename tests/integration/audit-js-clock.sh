#!/bin/sh
# sbx audit's clock for node --test, jest and vitest (runner_node.c,
# issue 25): each process that runs a test file writes when each of its
# tests ran, and every denial is placed in its test by that clock, without
# a re-run. Each case shows the placement took (the record's re-run count
# is 0) and that every verdict is right; and each thing that must turn
# the clock off (tests that run side by side in one process, a test that
# writes to the channel) does, the verdicts still right by re-runs. Run
# as root and as uid 65534.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/audit-js-clock.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "$PWD/audit-js-clock.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH
export npm_config_cache="$work/.npm" npm_config_update_notifier=false

# verdicts FILE: every test's name=verdict, sorted
verdicts() { jq -r '[.tests[] | .name + "=" + .verdict] | sort | join(" ")' "$1"; }
reruns() { jq -r '.per_test.reruns' "$1"; }

# node 20.16 or later names each test in full (t.fullName), which the
# clock needs; this machine's node is what sbx's clock is given
node_ok=
if command -v node >/dev/null 2>&1; then
    node -e 'const [a, b] = process.versions.node.split(".").map(Number);
             process.exit(a > 22 || (a === 22 && b >= 3) || (a === 20 && b >= 16) ? 0 : 1)' && node_ok=1
fi
if [ -z "$node_ok" ]; then
    for i in $(seq 38); do skip "node 20.16 or later is not installed for uid $(id -u)"; done
    done_testing
    exit 0
fi

mkdir -p "$work/p/test" && cd "$work/p" || exit 1
printf '{ "name": "clock", "private": true, "scripts": { "test": "node --test test/" } }\n' >package.json
# helper.js: a process a test forks, which binds
cat >helper.js <<'EOF'
const s = require("node:net").createServer();
s.once("error", () => process.send("denied"));
s.listen(0, "127.0.0.1", () => s.close(() => process.send("bound")));
EOF
# the tests every runner's corpus starts with: an honest one, a lenient one
js_common='const listen = () => new Promise((res, rej) => { const s = net.createServer(); s.once("error", rej);
  s.listen(0, "127.0.0.1", () => s.close(() => res())); });
const lenient = async () => { try { await listen(); } catch (e) { return false; } return true; };
test("honest", async () => { await listen(); });
test("lenient", async () => { await lenient(); });'
{ cat <<'EOF'
const { test, describe, it } = require("node:test");
const assert = require("node:assert");
const net = require("node:net");
const { fork } = require("node:child_process");
const path = require("node:path");
EOF
  printf '%s\n' "$js_common"; cat <<'EOF'
test("pure", () => {
  // a line that looks like one of the clock's records, on stdout
  console.log("00000000000000000000000000000000 1:0 ran 1 0 1 - honest");
  assert.strictEqual(1 + 1, 2);
});
test("parent", async (t) => {
  assert.ok(true);
  await t.test("lenient sub", async () => { await lenient(); });
  await t.test("pure sub", () => {});
});
describe("group", () => {
  it("inner lenient", async () => { await lenient(); });
  it("inner pure", () => {});
});
test("skips", async (t) => { if (!(await lenient())) t.skip("no bind here"); });
test("never runs", { skip: true }, async () => { await listen(); });
test("forks a binder", async () => {
  const msg = await new Promise((res) => fork(path.join(__dirname, "..", "helper.js")).once("message", res));
  if (msg === "denied") return;
});
EOF
} >test/a.test.js
cat >test/b.test.mjs <<'EOF'
import { test } from "node:test";
import net from "node:net";
test("esm lenient", async () => {
  await new Promise((res) => { const s = net.createServer(); s.once("error", () => res());
    s.listen(0, "127.0.0.1", () => s.close(() => res())); });
});
test("esm pure", () => {});
EOF
want="esm lenient=false-green esm pure=unaffected forks a binder=false-green group > inner lenient=false-green group > inner pure=unaffected group=false-green honest=exercised lenient=false-green never runs=skipped parent > lenient sub=false-green parent > pure sub=unaffected parent=false-green pure=unaffected skips=skipped-here"

run_sbx audit --report "$work/direct.json" -- node --test test/
is "$status" 3 "node --test: false greens, exit 3"
like "$err" "added sbx's clock to node --test" "node --test: the clock is added, and said so"
is "$(verdicts "$work/direct.json")" "$want" \
    "node --test: every verdict, a subtest's, an it's, a forked helper's, an ESM file's (a parent's is its subtests')"
is "$(reruns "$work/direct.json")" 0 "node --test: every denial placed by the clock, no re-run"
like "$err" "by the worker's own clock: attributed without re-running" "node --test: the audit says how"
is "$(jq -r '.per_test.results_from' "$work/direct.json")" output "node --test: the results are node's TAP, said so"
is "$(jq -r '[.tests[] | select(.denied_count > 0) | .name + ":" + (.denied_count | tostring)] | sort | join(" ")' "$work/direct.json")" \
    "esm lenient:1 forks a binder:1 group > inner lenient:1 honest:1 lenient:1 parent > lenient sub:1 skips:1" \
    "node --test: each denial in its own test, none in a parent"

run_sbx audit --report "$work/npm.json" -- npm test
is "$status" 3 "npm test (node --test): false greens, exit 3"
like "$err" "NODE_OPTIONS" "npm test: the clock rides in NODE_OPTIONS"
is "$(verdicts "$work/npm.json")" "$want" "npm test: every verdict"
is "$(reruns "$work/npm.json")" 0 "npm test: no re-run"

# tests that run side by side in one process: their runs overlap, and
# the clock cannot say whose a call was
mkdir -p "$work/c" && cd "$work/c" || exit 1
cat >c.test.js <<'EOF'
const { describe, it } = require("node:test");
const net = require("node:net");
const lenient = () => new Promise((res) => { const s = net.createServer(); s.once("error", () => res());
  s.listen(0, "127.0.0.1", () => s.close(() => res())); });
const wait = () => new Promise((res) => setTimeout(res, 50));
describe("side by side", { concurrency: true }, () => {
  it("slow lenient", async () => { await wait(); await lenient(); });
  it("slow pure", async () => { await wait(); });
});
EOF
run_sbx audit --report "$work/conc.json" -- node --test c.test.js
is "$status" 3 "node --test, concurrent tests: exit 3"
is "$(verdicts "$work/conc.json")" "side by side > slow lenient=false-green side by side > slow pure=unaffected side by side=false-green" \
    "node --test, concurrent tests: every verdict"
isnt "$(reruns "$work/conc.json")" 0 "node --test, concurrent tests: overlapping runs are not placed; re-runs decide"

# a test that writes to the channel itself: the channel is no longer the
# clock's alone, and nothing is placed by it
mkdir -p "$work/w" && cd "$work/w" || exit 1
cat >w.test.js <<'EOF'
const test = require("node:test");
const net = require("node:net");
const fs = require("node:fs");
test("writes to the channel", () => { try { fs.writeSync(61, "pure ran\n"); } catch (e) {} });
test("lenient", () => new Promise((res) => { const s = net.createServer(); s.once("error", () => res());
  s.listen(0, "127.0.0.1", () => s.close(() => res())); }));
EOF
run_sbx audit --report "$work/write.json" -- node --test w.test.js
is "$(verdicts "$work/write.json")" "lenient=false-green writes to the channel=unaffected" \
    "node --test, a test writes to the channel: every verdict"
isnt "$(reruns "$work/write.json")" 0 "node --test, a test writes to the channel: the clock is not trusted; re-runs decide"

# jest and vitest: the same tests, each with its runner's imports. jest's
# workers (-w 2: two files, two workers) or jest's own process (one file:
# in band) run the files, and the clock subclasses the test environment
# jest loads; vitest runs each file in a worker process (the default
# pool, forks), and the clock wraps the worker's TestRunner. A test that
# skips itself after a denied call (vitest's ctx.skip()) keeps the call:
# vitest ends its run only with its attempt.
runners=${SBX_NODE_RUNNERS:-/var/lib/sbx-ci/node-runners}

# js_corpus DIR EXT HEADER: the suite in DIR/test (two files) and DIR/conc
js_corpus() {
    mkdir -p "$1/test" "$1/conc"
    ln -s "$runners/node_modules" "$1/node_modules"
    cp "$work/p/helper.js" "$1/helper.cjs"
    { printf '%s\n%s\n' "$3" "$js_common"; cat <<'EOF'
test("pure", () => {
  console.log("00000000000000000000000000000000 1:0 ran 1 0 1 - honest");
  expect(1 + 1).toBe(2);
});
describe("group", () => {
  beforeEach(async () => { await lenient(); });
  test("inner hooked", () => {});
  describe("deep", () => { test("inner pure", () => {}); });
});
test.each([1, 2])("each %i", async (n) => { if (n === 2) await lenient(); });
test.skip("never runs", async () => { await listen(); });
test.todo("later");
test("forks a binder", async () => {
  const msg = await new Promise((res) => fork(path.join(process.cwd(), "helper.cjs")).once("message", res));
  if (msg === "denied") return;
});
EOF
    } >"$1/test/a.test.$2"
    { printf '%s\n' "$3"; cat <<'EOF'
test("b lenient", () => new Promise((res) => { const s = net.createServer(); s.once("error", () => res());
  s.listen(0, "127.0.0.1", () => s.close(() => res())); }));
test("b pure", () => {});
EOF
    } >"$1/test/b.test.$2"
    # test.concurrent starts its tests' functions before either starts:
    # the clock stops, and re-runs decide
    { printf '%s\n' "$3"; cat <<'EOF'
const lenient = () => new Promise((res) => { const s = net.createServer(); s.once("error", () => res());
  s.listen(0, "127.0.0.1", () => s.close(() => res())); });
const wait = () => new Promise((res) => setTimeout(res, 50));
test.concurrent("slow lenient", async () => { await wait(); await lenient(); });
test.concurrent("slow pure", async () => { await wait(); });
test("plain pure", () => {});
EOF
    } >"$1/conc/c.test.$2"
}

# judge LABEL NAME WANT COMMAND...: every verdict, and none re-run
judge() {
    label=$1 name=$2 jwant=$3
    shift 3
    run_sbx audit --report "$work/$name.json" -- "$@"
    is "$status" 3 "$label: false greens, exit 3"
    is "$(verdicts "$work/$name.json")" "$jwant" "$label: every verdict"
    is "$(reruns "$work/$name.json")" 0 "$label: every denial placed by the clock, no re-run"
}

jswant="b lenient=false-green b pure=unaffected each 1=unaffected each 2=false-green forks a binder=false-green group deep inner pure=false-green group inner hooked=false-green honest=exercised later=skipped lenient=false-green never runs=skipped pure=unaffected"
concwant="plain pure=unaffected slow lenient=false-green slow pure=unaffected"
for runner in jest vitest; do
    if [ ! -x "$runners/node_modules/.bin/$runner" ]; then
        for i in $(seq 11); do skip "$runner is not installed in $runners (.ci/run installs it)"; done
        continue
    fi
    dir=$work/$runner
    if [ "$runner" = jest ]; then
        js_corpus "$dir" js 'const net = require("node:net"), path = require("node:path");
const { fork } = require("node:child_process");'
        direct="node_modules/.bin/jest -w 2 test/" script="jest -w 2 test/" want=$jswant
    else
        js_corpus "$dir" mjs 'import { test, describe, beforeEach, expect } from "vitest";
import net from "node:net";
import path from "node:path";
import { fork } from "node:child_process";'
        printf '%s\n' 'test("skips", async (ctx) => { if (!(await lenient())) ctx.skip(); });' >>"$dir/test/a.test.mjs"
        direct="node_modules/.bin/vitest run test/" script="vitest run test/" want="$jswant skips=skipped-here"
    fi
    printf '{ "name": "clock", "private": true, "scripts": { "t": "%s" } }\n' "$script" >"$dir/package.json"
    cd "$dir" || exit 1
    # shellcheck disable=SC2086
    judge "$runner" "$runner" "$want" $direct
    like "$err" "added sbx's clock to $runner" "$runner: the clock is added, and said so"
    is "$(jq -r '.per_test.results_from' "$work/$runner.json")" output "$runner: the results are its JSON, said so"
    if [ "$runner" = vitest ]; then
        is "$(jq -r '.tests[] | select(.name == "skips") | .denied_count' "$work/$runner.json")" 1 \
            "vitest: a test that skipped itself after a denied call keeps the call"
    else
        is "$(jq -r '[.tests[] | select(.denied_count > 0)] | length' "$work/$runner.json")" 7 \
            "jest: the seven calls in seven tests, a describe's beforeEach's in each of its tests"
    fi
    judge "npm run t ($runner)" "$runner-npm" "$want" npm run t
    # shellcheck disable=SC2086
    run_sbx audit --report "$work/$runner-conc.json" -- ${direct%test/} conc/
    is "$(verdicts "$work/$runner-conc.json")" "$concwant" "$runner, test.concurrent: every verdict"
    isnt "$(reruns "$work/$runner-conc.json")" 0 "$runner, test.concurrent: not placed by the clock; re-runs decide"
done

done_testing
