#!/bin/sh
# --allow DESTINATION... (issue 29): [network] allow names for one run,
# without a profile of one's own. Before it, sbx refused the option.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 7
make_tmpdir
cd "$tmpdir" || exit 1

sbx_run -p qa -v --allow "registry.npmjs.org @pypi" -- sh -c 'echo "$HTTPS_PROXY"'
is "$status" 0 "--allow 'registry.npmjs.org @pypi' under qa: exit 0"
like "$out" "http://127.0.0.1:" "the command gets sbx's proxy"
like "$err" "allow = 2 entries" "both destinations are in the run's allow list"
sbx_run -p qa -v --allow registry.npmjs.org --allow @crates --report "$tmpdir/r.json" -- true
like "$err" "allow = 2 entries" "--allow repeated adds each"
jq -e '[.. | strings] | index("registry.npmjs.org") != null' "$tmpdir/r.json" >/dev/null
ok $? "the run record lists the destination"
sbx_run -p qa --allow registry.npmjs.org --outbound -- true
is "$status" 125 "--allow with --outbound: exit 125"
like "$err" "--allow: allow = registry.npmjs.org contradicts outbound = yes" "naming the option"

done_testing
