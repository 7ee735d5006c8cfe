#!/bin/sh
# The run record of `sbx run --report FILE` matches what really happened:
# a passing command, one killed by SIGKILL, a timeout, a command not found,
# setup failures in the supervisor, in the sandbox and in the profile, an
# unwritable report path; names but never values of the environment;
# argv bytes that are not UTF-8.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
make_tmpdir
cd "$tmpdir" || exit 1

r="$tmpdir/r.json"
j() { jq -r "$@" "$r"; }
report() { # report ARGS...: sbx run --report $r ARGS, sets status, err; checks the file is JSON
    rm -f "$r"
    run_sbx run --report "$r" "$@"
    if ! jq -e . "$r" >/dev/null 2>&1; then
        diag "no JSON record in $r for: $*"; diag "$err"
    fi
}

run_sbx run -- true
case $err in
*"not available in this build"*)
    for i in $(seq 1 60); do skip "the run core is not in this build (sbx run: $err)"; done
    done_testing ;;
esac

uid=$(id -u)
gid=$(id -g)

# --- a passing command
SBX_TEST_SECRET_TOKEN=value-never-written-7f3a SBX_TEST_SESSION_ID=value-never-written-9c1e \
    report -p qa -- true "$(printf 'a\377b')"
is "$status" 0 "pass: exit 0"
jq -e . "$r" >/dev/null 2>&1
ok $? "pass: the record is valid JSON"
is "$(j .format)/$(j .kind)" 1/run "pass: format 1, kind run"
is "$(j .verdict)" passed "pass: verdict passed"
is "$(j .result.exit_status)/$(j .result.exit_code)/$(j .result.signal)/$(j .result.command_ran)" \
    0/0/null/true "pass: exit_status 0, exit_code 0, no signal, command ran"
is "$(j .failure)" null "pass: no failure"
is "$(j .sbx_version)" "$("$SBX" --version | sed -n "1s/^sbx //p")" "pass: sbx_version is sbx --version's"
j .start_time | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$'
ok $? "pass: start_time is ISO 8601 UTC"
now_ms=$(($(date +%s) * 1000))
start_ms=$(j .start_time_unix_ms)
[ $((now_ms - start_ms)) -ge -2000 ] && [ $((now_ms - start_ms)) -le 60000 ]
ok $? "pass: start_time_unix_ms is within the last minute ($start_ms vs $now_ms)"
[ "$(j .duration_us)" -gt 0 ]
ok $? "pass: duration_us > 0"
is "$(j '.argv[0]')" true "pass: argv[0] as given"
is "$(j '.argv[1].base64')" "Yf9i" "pass: a non-UTF-8 argument is kept as base64"
is "$(j '.argv[1].text')" "a$(printf '\357\277\275')b" "pass: and as text with U+FFFD"
is "$(j .cwd)" "$tmpdir" "pass: cwd is where sbx was started"
is "$(j .profile.name)" qa "pass: profile name"
is "$(j '.profile.path')" "$(realpath "$SBX_TOP_SRCDIR/profiles/qa.ini")" "pass: profile path"
is "$(j '.profile.files | map(split("/") | last) | join(" ")')" "qa.ini default.ini" \
    "pass: profile files: qa.ini and the default.ini it includes"
is "$(j '.namespaces.created | to_entries | map("\(.key)=\(.value)") | join(" ")')" \
    "user=true mount=true net=true pid=true ipc=true uts=true" "pass: every namespace created"
is "$(j '.ids.uid_map[0].outside')/$(j '.ids.gid_map[0].outside')" "$uid/$gid" \
    "pass: the maps map the caller's uid and gid"
is "$(j '.ids.uid_map[0].inside')" "$uid" "pass: uid = current: inside is the caller's uid"
is "$(j .limits.asked.nofile)" max "pass: nofile asked: max"
is "$(j .limits.applied.nofile.soft)" "$(ulimit -Hn)" "pass: nofile applied: soft = the hard limit"
is "$(j .network.mode)/$(j .network.state.lo)" loopback/up "pass: network loopback, lo up"
is "$(j '.environment.changed_by_sbx | map(.name) | join(" ")')" "container SBX_PROFILE" \
    "pass: sbx's own environment changes"
# qa unsets *TOKEN* (default.ini); *SESSION* only looks like a secret
j '.environment.secret_looking_passed | index("SBX_TEST_SESSION_ID")' | grep -q '^[0-9]'
ok $? "pass: a secret-looking variable the command receives is named"
j '.environment.removed | index("SBX_TEST_SECRET_TOKEN")' | grep -q '^[0-9]'
ok $? "pass: a variable an unset pattern removed is listed as removed"
j '.environment.secret_looking_passed | index("SBX_TEST_SECRET_TOKEN")' | grep -q '^[0-9]'
isnt $? 0 "pass: ... and not as passed"
grep -q 'value-never-written-7f3a\|value-never-written-9c1e' "$r"
isnt $? 0 "pass: their values are not in the record"
is "$(j '.mounts.done[0].target')" / "pass: the first mount is the root"
is "$(j --arg d "$tmpdir" '[.mounts.done[] | select(.target == $d)] | length > 0')" true \
    "pass: the working directory (rw = \${CWD}) is among the mounts done"
is "$(j '.steps | length > 3')" true "pass: setup steps recorded"
is "$(j '[.steps[] | select(.pid == 1)] | length > 0')" true "pass: steps from init (pid 1 inside) too"

# --- killed by SIGKILL
report -p qa -- sh -c 'kill -9 $$'
is "$status" 137 "SIGKILL: exit 137"
is "$(j .verdict)" killed_by_signal "SIGKILL: verdict killed_by_signal"
is "$(j .result.signal)/$(j .result.signal_name)/$(j .result.exit_code)" 9/SIGKILL/null \
    "SIGKILL: signal 9 SIGKILL, no exit code"
is "$(j .result.exit_status)" 137 "SIGKILL: exit_status 137"

# --- timeout
report -p qa --timeout 1s -- sleep 30
is "$status" 124 "timeout: exit 124"
is "$(j .verdict)" timed_out "timeout: verdict timed_out"
is "$(j .timeout.timeout_ms)/$(j .timeout.expired)/$(j .result.timed_out)" 1000/true/true \
    "timeout: 1000 ms asked, expired"
is "$(j .result.signal_name)" SIGTERM "timeout: the command ended by SIGTERM"
[ "$(j .duration_us)" -ge 1000000 ]
ok $? "timeout: duration_us >= 1 s"

# --- command not found
report -p qa -- sbx-no-such-command-4711
is "$status" 127 "not found: exit 127"
is "$(j .verdict)" command_not_found "not found: verdict command_not_found"
is "$(j .result.command_ran)/$(j .result.exit_status)" false/127 "not found: did not run, 127"
is "$(j '.argv[0]')" sbx-no-such-command-4711 "not found: argv recorded"

# --- setup failure in the supervisor: a limit above what can be had
nr_open=$(cat /proc/sys/fs/nr_open)
report -p qa --nofile $((nr_open + 1)) -- touch "$tmpdir/ran"
is "$status" 125 "supervisor setup failure: exit 125"
test -e "$tmpdir/ran"
isnt $? 0 "supervisor setup failure: the command did not run"
is "$(j .verdict)" setup_failed "supervisor setup failure: verdict setup_failed"
is "$(j .failure.step)" "prepare: environment and limits" "supervisor setup failure: the step"
like "$(j .failure.message)" "nofile" "supervisor setup failure: the message names the limit"
like "$err" "$(j .failure.message)" "supervisor setup failure: the message is what sbx printed"

# --- setup failure inside the sandbox: a working directory that is not there
report -p qa -C /nonexistent-sbx-dir -- touch "$tmpdir/ran"
is "$status" 125 "sandbox setup failure: exit 125"
is "$(j .verdict)/$(j .result.command_ran)" setup_failed/false "sandbox setup failure: setup_failed, not run"
like "$(j .failure.message)" "/nonexistent-sbx-dir" "sandbox setup failure: message from inside names the directory"
isnt "$(j .failure.step)" null "sandbox setup failure: a step is named"

# --- limits.applied is what the command's process got, not the plan: a
# setup that fails before that process sets its limits leaves it empty
# (the record used to copy the plan, as if they had been applied)
report -p qa --rw /nonexistent-sbx-dir -- touch "$tmpdir/ran"
is "$status/$(j .verdict)" 125/setup_failed "failure before the limits: setup_failed"
is "$(j .limits.asked.nofile)" max "failure before the limits: nofile was asked"
is "$(j '.limits.applied | length')" 0 "failure before the limits: none is recorded as applied"

# --- a bad profile: the record is still written (at exit)
report -p sbx-no-such-profile -- true
is "$status" 125 "bad profile: exit 125"
is "$(j .verdict)/$(j .failure.step)" "setup_failed/load profile sbx-no-such-profile" \
    "bad profile: setup_failed at 'load profile'"

# --- an unwritable report path stops sbx before the command runs
run_sbx run --report /nonexistent-sbx-dir/r.json -p qa -- touch "$tmpdir/ran2"
is "$status" 125 "unwritable --report: exit 125"
like "$err" "sbx: --report: cannot open /nonexistent-sbx-dir/r.json for writing: No such file or directory" \
    "unwritable --report: names the file and the errno"
test -e "$tmpdir/ran2"
isnt $? 0 "unwritable --report: the command did not run"

# --- -v: each setup step with its duration in microseconds (issue 6)
run_sbx run -v -p qa -- true
is "$status" 0 "-v: exit 0"
steps=$(printf '%s\n' "$err" | grep -Ec '^sbx: \[ *[0-9]+ us\] ')
[ "$steps" -ge 3 ]
ok $? "-v: at least 3 setup steps with their microseconds ($steps)"

done_testing
