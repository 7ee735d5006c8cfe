#!/bin/sh
# Network: under mode = loopback, bind and connect work on 127.0.0.1 and ::1
# in a network namespace of the sandbox's own; under none they fail; host
# shares the caller's network namespace and says so with -v.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 11

sbx_run --network loopback -- "$H/loopback-echo"
is "$status" 0 "loopback: bind+connect+send succeed"
like "$out" "127.0.0.1 ok" "loopback: 127.0.0.1 works"
like "$out" "::1 ok" "loopback: ::1 works"

sbx_run --network loopback -- cat /sys/class/net/lo/operstate /proc/net/if_inet6
like "$out" "00000000000000000000000000000001 01 80 10 80" "loopback: lo has ::1 (if_inet6)"

sbx_run --network none -- "$H/loopback-echo" 4
is "$status" 1 "none: the loopback test fails"
like "$out" "127.0.0.1 connect: Network is unreachable" "none: 127.0.0.1 is unreachable (lo down)"
sbx_run --network none -- "$H/loopback-echo" 6
like "$out" "::1 bind: Cannot assign requested address" "none: ::1 does not exist (lo down)"

sbx_run --network none -- readlink /proc/self/ns/net
isnt "$out" "$(readlink /proc/self/ns/net)" "none: still a network namespace of its own"

sbx_run --network host -v -- readlink /proc/self/ns/net
is "$out" "$(readlink /proc/self/ns/net)" "host: the host's network namespace"
like "$err" "mode = host" "host: -v says the network is shared"
like "$err" "no network isolation" "host: -v says there is no isolation"

done_testing
