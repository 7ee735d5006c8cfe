#!/bin/sh
# Session profiles and nesting: a session (qa-session) gives the same
# loopback and descriptor limit as qa; inside it a test command wrapped in
# `sbx run -p qa` and a bubblewrap sandbox with its own network namespace
# both work (nested_userns = yes), and `sbx probe` says it runs inside sbx
# under which profile.
#
# As root the command inside is uid 0 without capabilities, and since
# Linux 5.12 such a process may create a user namespace only for a
# non-root uid (mapping uid 0 takes CAP_SETFCAP): there the test checks the
# refusal is explained and that the documented fix (uid = 1000) works.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 17
make_tmpdir
chmod 755 "$tmpdir"

sbx_run -p qa -- sh -c "grep '^Max open files' /proc/self/limits"
qa_limits=$out
sbx_run -p qa-session -- sh -c "grep '^Max open files' /proc/self/limits; echo \"profile=\$SBX_PROFILE\""
like "$out" "$qa_limits" "qa-session has qa's descriptor limit"
like "$out" "profile=qa-session" "the command sees SBX_PROFILE=qa-session"

sbx_run -p qa-session -- "$SBX" probe
like "$out" "inside sbx, profile qa-session" "sbx probe inside the session says it is inside sbx, and the profile"

if is_root; then
    # A $HOME of the test's own, outside the project: in the package build
    # debhelper's $HOME lies inside the tree, where sbx keeps placeholders
    # of the protected paths (~/.ssh) that the Landlock tier cannot hide
    # below the writable project (sbx(1) TIERS); that is not what this
    # tests.
    saved_home=$HOME
    HOME=$tmpdir/home && mkdir -p "$HOME" && export HOME
    # The session as root: what fails, how it is explained, and the fix.
    # qa asks for fallback = landlock: it starts, in the Landlock tier
    sbx_run -p qa-session -- "$SBX" run -p qa -- "$H/loopback-echo"
    is "$status:$out" "0:127.0.0.1 ok
::1 ok" "as root: sbx run -p qa inside the session starts, loopback working"
    like "$err" "sbx[landlock]: user namespaces are refused here (mapping uid 0 into a user namespace takes CAP_SETFCAP" \
        "as root: in the Landlock tier, saying why"
    # without the fallback: the refusal names the session and the fix of docs/agents.md
    nofb=$(mktemp "$PWD/nofb.XXXXXX.ini")
    printf '[profile]\ninclude = qa\n[sandbox]\nfallback = none\n' >"$nofb"
    sbx_run -p qa-session -- "$SBX" run -p "$nofb" -- true
    rm -f "$nofb"
    like "$status:$err" "125:sbx: cannot map uid 0 into the sandbox's user namespace: since Linux 5.12 that takes CAP_SETFCAP, and the sbx session this runs in (profile qa-session, run as root)" \
        "as root, without the fallback: exit 125 naming the outer sbx session"
    like "$err" "add uid = 1000 and gid = 1000 to [namespaces] of the session's profile, or run the session as a normal user" \
        "... and the fix docs/agents.md gives"
    # an outer sbx that holds the one seccomp listener, on the host's
    # network: the Landlock tier's checks cannot be had, said before anything
    outer=$(mktemp "$PWD/outer.XXXXXX.ini")
    printf '[profile]\ninclude = default\n[network]\nmode = host\n[security]\ndeny = mknod EPERM\n' >"$outer"
    sbx_run -p "$outer" -- "$SBX" run -p qa -- true
    rm -f "$outer"
    is "$status" 125 "as root, under an outer sbx holding the seccomp listener: refused at start"
    like "$err" "sbx[landlock]: the Landlock tier checks bind, connect and listen on inet sockets" \
        "... saying why, and what of the outer sandbox to change"
    sbx_run -p qa-session -- "$SBX" probe
    like "$out" "the sbx session this runs in (profile qa-session, run as root) gives its command uid 0 without capabilities; add uid = 1000" \
        "as root: sbx probe inside the session says the same"
    profile session1000 <<'EOT'
[profile]
include = qa-session
[namespaces]
uid = 1000
gid = 1000
EOT
    session="$prof"
    # Still the host's uid 0 (uid = 1000 maps to it), which may write any
    # sysctl by file mode: the session's /proc/sys is covered read-only
    # (mount.c), and the kernel then refuses a fresh /proc to a sandbox
    # nested inside. The inner sandbox uses the session's /proc instead.
    # qa's fallback = landlock takes the Landlock tier there, saying why
    # and how to keep the namespaces
    sbx_run -p "$session" -- "$SBX" run -p qa -- true
    like "$status:$err" "0:sbx[landlock]: the namespaces are refused here (a fresh /proc: the kernel refuses one" \
        "as root, uid 1000: a nested qa cannot have a fresh /proc: the Landlock tier, said"
    like "$err" "set proc = no to keep the namespaces" "as root, uid 1000: ... with the fix that keeps the namespaces"
    inner=$(mktemp "$PWD/inner.XXXXXX.ini")
    printf '[profile]\ninclude = qa\n[filesystem]\nproc = no\n' >"$inner"
    inner_profile=$inner
    HOME=$saved_home
else
    session=qa-session inner_profile=qa
    pass "not root: a nested sbx maps a non-root uid, nothing to refuse"
    pass "not root: no CAP_SETFCAP needed"
    pass "not root: no Landlock tier needed"
    pass "not root: no refusal to name the session in"
    pass "not root: nothing for sbx probe to explain"
    pass "not root: the inner sbx keeps its namespaces, no Landlock listener needed"
    pass "not root: nothing refused"
    pass "not root: /proc/sys needs no cover (file modes refuse), a fresh /proc nests"
    pass "not root: nothing to fix"
fi

# (No leak check in the helper: with proc = no inside, /proc is the
# session's, of another PID namespace, where LeakSanitizer of the ASan
# build looks its own pid up and finds another process or none.)
sbx_run -p "$session" -- "$SBX" run -p "$inner_profile" -- sh -c "ASAN_OPTIONS=detect_leaks=0 '$H/loopback-echo' && grep '^Max open files' /proc/self/limits"
[ "$inner_profile" = qa ] || rm -f "$inner_profile"
is "$status" 0 "a test command wrapped in sbx run -p qa inside the session runs"
like "$out" "127.0.0.1 ok" "it has a working loopback"
like "$out" "$qa_limits" "it has the same descriptor limit as qa outside"

if ! command -v bwrap >/dev/null 2>&1; then
    skip "bubblewrap is not installed (apt-get install bubblewrap)"
    skip "bubblewrap is not installed (apt-get install bubblewrap)"
else
    sbx_run -p "$session" -- bwrap --unshare-net --ro-bind / / --proc /proc --dev /dev -- \
        sh -c 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "'
    is "$status" 0 "a nested bwrap --unshare-net runs inside the session"
    is "$out" "lo" "the nested bwrap has a network namespace of its own (only lo)"
fi

done_testing
