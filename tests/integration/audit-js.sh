#!/bin/sh
# sbx audit on the JavaScript runners as people type them (issue 25): npm
# test running node --test, npm run SCRIPT running jest and mocha, npx
# vitest, jest typed directly. Each suite (tests/corpus/js) mixes an
# honest test, a lenient one (returns early on EPERM), a visibly skipping
# one (where the runner has a run-time skip), a pure one that prints a
# forged result, and the incident (a server that checks the origin against
# its configured port 0 answers 403; its test returns early on EPERM).
# Every verdict is asserted, from the record. jest, vitest and mocha come
# from npm: .ci/run installs them into $SBX_NODE_RUNNERS, with yarn and
# pnpm, which run the same scripts.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/audit-js.XXXXXX" 2>/dev/null) ||
    work=$(mktemp -d "$PWD/audit-js.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
SBX_PROFILE_PATH="$SBX_TOP_SRCDIR/profiles"
export SBX_PROFILE_PATH
cp -R "$SBX_TOP_SRCDIR/tests/corpus/js/." "$work/"
chmod -R u+w "$work"
cd "$work" || exit 1
# npm's cache and logs: in the project, the one writable place under qa
export npm_config_cache="$work/.npm" npm_config_update_notifier=false

runners=${SBX_NODE_RUNNERS:-/var/lib/sbx-ci/node-runners}
have_runners=
[ -x "$runners/node_modules/.bin/jest" ] && [ -x "$runners/node_modules/.bin/vitest" ] &&
    [ -x "$runners/node_modules/.bin/mocha" ] && have_runners=1 &&
    ln -s "$runners/node_modules" node_modules

# verdicts FILE: every test's name=verdict, sorted
verdicts() { jq -r '[.tests[] | .name + "=" + .verdict] | sort | join(" ")' "$1"; }

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    for i in $(seq 10); do skip "node and npm are not installed for uid $(id -u)"; done
else
    run_sbx audit --report "$work/node.json" -- npm test
    is "$status" 3 "npm test (node --test): false greens, exit 3"
    like "$err" "added NODE_OPTIONS=--test-reporter=tap" "npm test: the reporter goes in NODE_OPTIONS, said so"
    is "$(jq -r .runner "$work/node.json")" node "npm test: its script's runner, node"
    is "$(verdicts "$work/node.json")" \
        "accepts its own origin=false-green-hiding-failure honest=exercised lenient=false-green pure=unaffected skips=skipped-here" \
        "npm test: every verdict; the incident hides a failure; the forged 'not ok' changes nothing"
    like "$err" "false-green-hiding-failure failed / passed: accepts its own origin; denied: bind(" \
        "npm test: the incident, with its own denial"
    run_sbx audit -- npm run nosuch
    like "$err" "sbx could not see individual tests: package.json has no script \"nosuch\"" \
        "npm run of a script that is not there: judged whole, saying why"

    # a test file's process exits at a denied bind (issue 34): under
    # restrictive node reports only the file, for all its tests
    run_sbx audit --report "$work/ncrash.json" -- node --test crash/node/
    is "$status" 3 "node --test, a file's process dies: the lenient test after it found, exit 3"
    is "$(verdicts "$work/ncrash.json" | sed "s|$work/||")" \
        "crash/node/crash.test.js=fails-without-denial dies when bind fails=not-observed honest=exercised lenient=false-green pure first=unaffected pure last=unaffected" \
        "node --test, a file's process dies: the tests after it re-run, never fails-without-denial"
    is "$(jq -r '.tests[] | select(.name | endswith("crash.test.js")) | .kind' "$work/ncrash.json")" fixture \
        "node --test: the row standing for the dead file's tests is the file's, a fixture, not a test"
    like "$err" "5 tests: 1 exercised, 1 false green, 0 hiding a failure, 0 fail, 0 skipped here, 2 unaffected, 1 not observed" \
        "node --test, a file's process dies: five tests counted, the file not among them"
fi

if [ -z "$have_runners" ]; then
    for i in $(seq 15); do skip "jest, vitest and mocha are not installed in $runners (.ci/run installs them)"; done
else
    run_sbx audit --report "$work/jest.json" -- npm run jest
    is "$status" 3 "npm run jest: false greens, exit 3"
    like "$err" "added --json: jest's JSON report" "npm run jest: --json added, said so"
    is "$(verdicts "$work/jest.json")" \
        "net accepts its own origin=false-green-hiding-failure net honest=exercised net lenient=false-green pure=unaffected" \
        "npm run jest: every verdict; the forged report printed before jest's own changes nothing"

    run_sbx audit --report "$work/jest2.json" -- npx jest jest/
    is "$status" 3 "npx jest: exit 3"
    is "$(verdicts "$work/jest2.json")" "$(verdicts "$work/jest.json")" "npx jest: the same verdicts"

    run_sbx audit --report "$work/vitest.json" -- npm run vitest
    is "$status" 3 "npm run vitest: false greens, exit 3"
    like "$err" "added --reporter=json: vitest's JSON report" "npm run vitest: the reporter added, said so"
    is "$(verdicts "$work/vitest.json")" \
        "net accepts its own origin=false-green-hiding-failure net honest=exercised net lenient=false-green net skips=skipped-here pure=unaffected" \
        "npm run vitest: every verdict"

    run_sbx audit --report "$work/mocha.json" -- npm run mocha
    is "$status" 3 "npm run mocha: false greens, exit 3"
    like "$err" "added --reporter json: mocha's JSON report" "npm run mocha: the reporter added, said so"
    is "$(verdicts "$work/mocha.json")" \
        "net accepts its own origin=false-green-hiding-failure net honest=exercised net lenient=false-green net skips=skipped-here pure=unaffected" \
        "npm run mocha: every verdict; the forged document printed before mocha's own changes nothing"

    # mocha dies mid-run (issue 34, as ws's suite did): no report at all
    # under restrictive; the tests are re-run with --grep, together first
    run_sbx audit --report "$work/mcrash.json" -- npx mocha crash/mocha/
    is "$status" 3 "mocha dies mid-run: the lenient test after the crash found, exit 3"
    is "$(verdicts "$work/mcrash.json")" \
        "net dies when bind fails=not-observed net honest=exercised net lenient=false-green net pure first=unaffected net pure last=unaffected" \
        "mocha dies mid-run: every verdict, from re-runs; none fails-without-denial"
    like "$err" "5 test(s) have no result under restrictive (their process died with another test, a timeout or a crash): re-running 5 there alone" \
        "mocha dies mid-run: the re-runs announced are the ones made"
fi
# yarn and pnpm, where installed (.ci/run installs them beside the
# runners): `yarn test` / `pnpm test` run the same script as npm test,
# `yarn jest` / `pnpm run jest` the jest one; nothing is installed or
# fetched (the scripts' runners come from the linked node_modules)
for pm in yarn pnpm; do
    if [ -z "$have_runners" ] || [ ! -x "$runners/node_modules/.bin/$pm" ]; then
        for i in 1 2 3 4; do skip "$pm is not installed in $runners (.ci/run installs it)"; done
        continue
    fi
    opath=$PATH
    PATH="$runners/node_modules/.bin:$PATH"
    run_sbx audit --report "$work/$pm.json" -- $pm test
    is "$status" 3 "$pm test (node --test): false greens, exit 3"
    is "$(verdicts "$work/$pm.json")" \
        "accepts its own origin=false-green-hiding-failure honest=exercised lenient=false-green pure=unaffected skips=skipped-here" \
        "$pm test: every verdict, as npm test's"
    if [ $pm = yarn ]; then set -- yarn jest; else set -- pnpm run jest; fi
    run_sbx audit --report "$work/$pm-jest.json" -- "$@"
    PATH=$opath
    is "$status" 3 "$*: false greens, exit 3"
    is "$(verdicts "$work/$pm-jest.json")" \
        "net accepts its own origin=false-green-hiding-failure net honest=exercised net lenient=false-green pure=unaffected" \
        "$*: every verdict, as npm run jest's"
done

# mocha's JSON comes at the end, so no position says which test made a
# denial: the tests are re-run in groups selected by --grep, bisected,
# a half that made all of its group's calls clearing the other unrun.
# 16 tests, t_3 and t_12 lenient: every verdict.
if [ -z "$have_runners" ]; then
    for i in 1 2; do skip "mocha is not installed in $runners (.ci/run installs it)"; done
else
    mkdir -p "$work/bisect" && cd "$work/bisect" || exit 1
    ln -s "$runners/node_modules" node_modules
    printf '{ "name": "bisect", "private": true }\n' >package.json
    { echo 'const net = require("node:net");'
      echo 'const lenient = (done) => { const s = net.createServer(); s.once("error", () => done());'
      echo '  s.listen(0, "127.0.0.1", () => s.close(() => done())); };'
      for i in $(seq 0 15); do
          case $i in 3|12) echo "it('t_$i', lenient);" ;; *) echo "it('t_$i', () => {});" ;; esac
      done; } >bisect.spec.js
    want=$(for i in $(seq 0 15); do case $i in 3|12) echo "t_$i=false-green" ;; *) echo "t_$i=unaffected" ;; esac; done |
           sort | tr '\n' ' ' | sed 's/ $//')
    run_sbx audit --report "$work/bisect.json" -- node_modules/.bin/mocha bisect.spec.js
    is "$status" 3 "mocha, 2 of 16 denied, found by groups: exit 3"
    is "$(verdicts "$work/bisect.json")" "$want" "mocha, 2 of 16 denied: every verdict"
    cd "$work" || exit 1
fi

done_testing
