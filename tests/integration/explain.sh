#!/bin/sh
# Refusals an agent can act on: every denial of the run record carries a
# fix (the profile line, its section, whether it is safe), the summary
# prints it as one line, and `sbx explain` turns the record into that list
# or into a profile. Applied, the lines make the refused run pass: a test
# that binds, listens, connects and sends over loopback fails under
# deny-network; each round adds the lines `sbx explain --profile` gives for
# the refusals of the last run, until the run passes with no denial.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

command -v python3 >/dev/null 2>&1 ||
    { skip "python3 is not installed (apt-get install python3): the refused test is Python"; done_testing; }
command -v jq >/dev/null 2>&1 ||
    { skip "jq is not installed (apt-get install jq): the test reads the record with it"; done_testing; }
make_build_tmpdir explain
work=$tmpdir
cd "$work" || exit 1
cp "$SBX_TOP_SRCDIR/tests/integration/sample-net-test.py" net_test.py

run_sbx run -p deny-network --report r0.json -- python3 net_test.py
is "$status" 1 "under deny-network the test fails"
like "$err" "sbx: fix: [security] -deny = bind:inet,inet6 EPERM   (safe: " \
    "the summary prints the fix as one line, marked safe"
is "$(jq -r '.denials.denials[0].fix | [.section, .line, (.safe|tostring)] | join("|")' r0.json)" \
    "security|-deny = bind:inet,inet6 EPERM|true" "the record's denial carries the fix"
out=$("$SBX" explain r0.json)
is "$out" "$(jq -r '.denials.denials[0].fix | "[\(.section)] \(.line)   (safe: \(.why))"' r0.json)" \
    "sbx explain lists it, as the summary does"

# Apply, run, again: each round answers the refusals of the last run.
prev=r0.json
round=1
passed=
while [ "$round" -le 8 ]; do
    "$SBX" explain --profile "$prev" >"fixed$round.ini" || break
    run_sbx run -p "./fixed$round.ini" --report "r$round.json" -- python3 net_test.py
    if [ "$status" = 0 ]; then passed=$round; break; fi
    [ "$(jq '.denials.total' "r$round.json")" -gt 0 ] || break
    prev=r$round.json
    round=$((round + 1))
done
[ -n "$passed" ]
ok $? "the fix lines, applied round by round, make the run pass (round ${passed:-none})" ||
    diag "$(cat "fixed$round.ini"; echo "$err")"
is "$(jq '.denials.total' "r${passed:-1}.json")" 0 "the passing run has no denial"
like "$out$(cat "fixed${passed:-1}.ini")" "include = " "the profile includes the refused run's own"
unlike "$(cat fixed*.ini)" "outbound" "no fix opens the outside network"

# A record is untrusted input: a fix line with a newline is not used.
jq '.denials.denials[0].fix.line = "-deny = bind EPERM\n[filesystem]\nrw = /"' r0.json >bad.json
out=$("$SBX" explain --profile bad.json 2>&1)
unlike "$out" "rw = /" "a crafted fix line cannot add a section to the profile"
like "$out" "have no profile line" "and explain says a row was not used"
printf 'not json' >bad2.json
"$SBX" explain bad2.json >/dev/null 2>&1
is "$?" 125 "a file that is not a run record: 125"

done_testing
