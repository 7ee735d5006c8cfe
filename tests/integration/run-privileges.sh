#!/bin/sh
# Privileges and hygiene: no capabilities (cap_net_raw aside for uid 0 in
# its own network namespace), no_new_privs, only fds 0 1 2,
# the environment of [environment] plus container=sbx and SBX_PROFILE.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 14
make_tmpdir

# A command that is uid 0 in its own network namespace keeps cap_net_raw
# (bit 13) and nothing else (caps.c; escape-netraw.sh).
if is_root; then caps=0000000000002000 who="uid 0 inside: only cap_net_raw"; else caps=0000000000000000 who=0; fi
sbx_run -- grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status
like "$out" "CapEff:	$caps" "CapEff is $who"
like "$out" "CapPrm:	$caps" "CapPrm is $who"
like "$out" "CapBnd:	$caps" "CapBnd is $who"
like "$out" "NoNewPrivs:	1" "NoNewPrivs is 1"

# uid 0 inside regains the bounding set at exec: nothing but cap_net_raw
# may be in it.
profile root <<INI
[namespaces]
uid = 0
INI
sbx_run -p "$prof" -- grep -E '^(CapEff|CapBnd):' /proc/self/status
is "$(echo $out)" "CapEff: 0000000000002000 CapBnd: 0000000000002000" "uid 0 inside: cap_net_raw only, in the bounding set too"
# In the host's network namespace, not even that.
profile roothost <<INI
[namespaces]
uid = 0
[network]
mode = host
INI
sbx_run -p "$prof" -- grep -E '^(CapEff|CapBnd):' /proc/self/status
is "$(echo $out)" "CapEff: 0000000000000000 CapBnd: 0000000000000000" "uid 0 inside, mode = host: no capabilities"

profile netraw <<INI
[security]
capabilities = cap_net_raw
INI
sbx_run -p "$prof" -- grep -E '^CapEff:' /proc/self/status
is "$(echo $out)" "CapEff: 0000000000002000" "capabilities = cap_net_raw keeps exactly that one"

# Descriptors 5 and 7 are open in the caller: neither may reach the command.
run_cmd sh -c "exec 5</dev/null 7>/dev/null; \"$SBX\" run -- \"$H/list-fds\""
is "$out" "0 1 2" "only fds 0 1 2 reach the command"

sbx_run -- sh -c 'echo "$container|$SBX_PROFILE"'
is "$out" "sbx|default" "container=sbx and SBX_PROFILE are set"
run_cmd env SBX_RUN_SECRET=1 "$SBX" run --unsetenv SBX_RUN_SECRET --setenv CI=true -- sh -c 'echo "${SBX_RUN_SECRET-unset}|$CI"'
is "$out" "unset|true" "unset removes, set adds"
profile keep <<INI
[environment]
clear = yes
keep = PATH SBX_RUN_A
INI
run_cmd env SBX_RUN_A=1 SBX_RUN_B=2 "$SBX" run -p "$prof" -- sh -c 'echo "${SBX_RUN_A-}|${SBX_RUN_B-gone}|$container"'
is "$out" "1|gone|sbx" "clear = yes keeps only the keep list (and container=)"

profile nopath <<INI
[environment]
clear = yes
keep = HOME
INI
sbx_run -p "$prof" -- sh -c 'echo ok'
is "$status" 0 "without PATH inside, argv[0] is found in the default search path"
sbx_run --setenv PATH=/nonexistent -- sh -c 'echo ok'
is "$status" 127 "argv[0] is looked up in the PATH inside"
like "$err" "sh: command not found" "and the error says so"

done_testing
