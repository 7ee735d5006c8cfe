#!/bin/sh
# The default deny-list (seccomp = default) and nested_userns = no, through
# seccomp_install() in a plain child (tests/helpers/seccomp-run). Each call
# is also made without the filter, so an EPERM the kernel would give anyway
# cannot pass for the filter's.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 13

run="$SBX_TEST_HELPERS/seccomp-run"
probe="$SBX_TEST_HELPERS/seccomp-probe"
checks="tiocsti tiocsti-high keyctl bpf perf_event_open userfaultfd open_by_handle_at"

run_cmd "$run" --seccomp none -- "$probe" $checks
base=$out
run_cmd "$run" -- "$probe" $checks
filtered=$out
is "$status" 0 "probe runs under the default filter"

for c in $checks; do
    want="$c=EPERM"
    case "$filtered" in *"$want"*) ok=0 ;; *) ok=1 ;; esac
    case "$base" in *"$want"*) ok=1; diag "$c is EPERM without the filter too: the test proves nothing" ;; esac
    without=$(printf '%s\n' "$base" | sed -n "s/^$c=//p")
    if [ "$ok" = 0 ]; then pass "$c fails with EPERM under seccomp = default (without the filter: $without)"
    else fail "$c: with filter '$filtered', without '$base'"; fi
done

# nested_userns: unshare(CLONE_NEWUSER) works here (the host allows user
# namespaces, see common brief) unless nested_userns = no.
run_cmd "$run" -- "$probe" unshare-user clone-user
is "$out" "unshare-user=ok
clone-user=ok" "nested_userns = yes: the command may create user namespaces"
run_cmd "$run" --no-nested-userns -- "$probe" unshare-user clone-user clone3 socket-unix
is "$out" "unshare-user=EPERM
clone-user=EPERM
clone3=ENOSYS
socket-unix=ok" "nested_userns = no: unshare/clone of a user namespace EPERM, clone3 ENOSYS, the rest works"

run_cmd "$run" --seccomp none -- "$probe" keyctl
is "$out" "keyctl=ok" "seccomp = none installs nothing"

# The command runs with the filter even after exec'ing a shell and a child.
run_cmd "$run" -- sh -c "\"$probe\" keyctl | cat"
is "$out" "keyctl=EPERM" "the filter is inherited by the command's children"

run_cmd "$run" -- /nonexistent/command
is "$status" 127 "a missing command exits 127 after the filter is installed"
done_testing
