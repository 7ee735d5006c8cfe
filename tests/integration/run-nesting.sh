#!/bin/sh
# sbx starts where agents run (issue 26): `sbx run -p qa` inside the real
# Claude Code sandbox (srt) and Codex's (`codex sandbox`, workspace-write,
# with and without network), as root and as an unprivileged user. What
# the outer sandbox already denies is not an error (Codex keeps P/.git
# read-only, its filter refuses every inet socket without network); what
# the namespaces cannot have there (root: no CAP_SETFCAP inside Codex, no
# fresh /proc under srt's overmounts) runs in the Landlock tier, which qa
# asks for; nofile = max is the most the outer sandbox allows. The tools
# are the versions the profiles pin, from $SBX_AGENT_TOOLS (.ci/run
# installs them; agents-battery.sh).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 12
export ASAN_OPTIONS=detect_leaks=0
unset TMPDIR
tools=${SBX_AGENT_TOOLS:-$SBX_TOP_BUILDDIR/tests/agent-tools}
srt="$tools/node_modules/.bin/srt" codex="$tools/node_modules/.bin/codex"
if [ ! -x "$srt" ] || [ ! -x "$codex" ] || ! command -v bwrap >/dev/null 2>&1; then
    i=0; while [ $i -lt 12 ]; do skip "srt and codex are not installed in $tools (agents-battery.sh installs them; .ci/run does)"; i=$((i + 1)); done
    done_testing
fi
# not under /tmp, which Codex's workspace-write makes writable and where
# Codex refuses to put its helpers ("Refusing to create helper binaries
# under temporary dir"): a build tree under /tmp has the test's files out
# of it, where a sandbox sees them
make_visible_tmpdir run-nesting
base=$tmpdir
trap 'rm -rf "$base"' EXIT
chmod 755 "$base"
mkdir -p "$base/work" "$base/home" "$base/codex-home"
export HOME="$base/home" CODEX_HOME="$base/codex-home"
cd "$base/work" || exit 1
# in the project, which every sandbox here shows (a build tree below
# /var/tmp is hidden by qa's tmpfs there)
cp "$SBX_TEST_HELPERS/loopback-echo" "$base/work/" || exit 1
echo_helper="$base/work/loopback-echo"
who=$(id -u)

# --- Claude Code's sandbox-runtime ----------------------------------------------
run_cmd timeout 120 "$srt" "$SBX" run -v -p qa -- sh -c "echo ran; ulimit -Hn; '$echo_helper'"
is "$status" 0 "uid $who inside srt: sbx run -p qa starts"
like "$out" "ran" "... and runs the command"
like "$out" "127.0.0.1 ok" "... with a working loopback (bind and connect)"
hard_in_srt=$(timeout 60 "$srt" sh -c 'ulimit -Hn' 2>/dev/null)
like "$out" "ran
$hard_in_srt" "... and nofile = max is srt's hard limit, $hard_in_srt"
if is_root; then
    like "$err" "limit nofile = max: $hard_in_srt, the hard limit: the kernel refused to raise it" \
        "as root: -v says why max is the hard limit (CAP_SYS_RESOURCE of a user namespace)"
else
    like "$err" "limit nofile: soft $hard_in_srt, hard $hard_in_srt" "-v says what nofile = max applied"
fi

# --- Codex CLI ----------------------------------------------------------------
codex_ws() { timeout 120 "$codex" sandbox -c 'sandbox_mode="workspace-write"' "$@"; }
run_cmd codex_ws -- "$SBX" run -p qa -- sh -c 'echo ran; echo x >file && cat file'
is "$status:$out" "0:ran
x" "uid $who inside codex sandbox (workspace-write): sbx run -p qa starts and writes its project"
unlike "$err" "cannot create it to keep it read-only" "... Codex's read-only P/.git is not an error"
if is_root; then
    like "$err" "sbx[landlock]: user namespaces are refused here (mapping uid 0 into a user namespace takes CAP_SETFCAP" \
        "as root (no CAP_SETFCAP there): the Landlock tier, saying why"
else
    like "$err" "lo stays down: the filter of the sandbox sbx runs in refuses netlink, AF_INET and AF_INET6" \
        "without Codex's network: lo stays down, said (nothing could use it)"
fi
if is_root; then
    # without the fallback nothing can work there: the message names Codex and the change
    printf '[profile]\ninclude = qa\n[sandbox]\nfallback = none\n' >"$base/nofb.ini"
    run_cmd codex_ws -- "$SBX" run -p "$base/nofb.ini" -- true
    like "$status:$err" "125:sbx: cannot map uid 0 into the sandbox's user namespace: since Linux 5.12 that takes CAP_SETFCAP, and Codex's sandbox (codex sandbox, PID 1 codex-linux-sandbox) runs its command as uid 0 without capabilities; run Codex as a normal user" \
        "as root without the fallback: exit 125 naming Codex's sandbox and the change that makes it work"
else
    pass "not root: Codex's sandbox maps this uid, nothing to refuse"
fi
run_cmd codex_ws -c 'sandbox_workspace_write.network_access=true' -- "$SBX" run -p qa -- "$echo_helper"
is "$status" 0 "uid $who inside codex sandbox with network: sbx run -p qa starts"
like "$out" "127.0.0.1 ok" "... with a working loopback"
run_cmd codex_ws -- "$SBX" probe
if is_root; then
    like "$out" "tier: landlock with --fallback landlock" "sbx probe inside codex sandbox says the same: the Landlock tier, by the fallback"
else
    like "$out" "(tier: namespaces)" "sbx probe inside codex sandbox says the same: the namespaces"
fi

done_testing
