#!/bin/sh
# A root caller's command cannot write files of another uid in its own
# workspace (issue 17): it is kernel uid 0 without CAP_DAC_OVERRIDE, and
# its user namespace maps uid 0 alone. The bare EACCES gets one note after
# a non-zero exit, naming the entry, its owner and the fix; never for a
# command that succeeded, with -q, once nothing of another uid is there, or
# for a caller other than root (whose EACCES is the ordinary one).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
if is_root; then plan 20; else plan 3; fi
note="sbx: note: "

if ! is_root; then
    # A directory of root's is, for this caller, what uid 1000's is for
    # root: a write there is refused, and that is no news.
    ws=/usr/share
    [ -d "$ws" ] && [ ! -w "$ws" ] || { skip "no read-only $ws to start in"; skip "-"; skip "-"; done_testing; }
    (cd "$ws" && "$SBX" run -- sh -c 'echo x >sbx-foreign-probe') </dev/null >/dev/null 2>"$PWD/foreign.err.$$"
    st=$? err=$(cat "$PWD/foreign.err.$$"); rm -f "$PWD/foreign.err.$$"
    isnt "$st" 0 "uid $(id -u) in a directory of root's: the write fails"
    like "$err" "Permission denied" "with EACCES"
    unlike "$err" "$note" "and no note: the note is for a root caller (root-only test otherwise)"
    done_testing
fi

# A directory 65534 can enter too, outside the default profile's tmpfs
# /tmp (the workspace is the working directory: visible wherever it is).
tmpdir=$(mktemp -d /var/tmp/sbx-foreign.XXXXXX) && chmod 755 "$tmpdir"
trap 'rm -rf "$tmpdir"' EXIT
ws=$tmpdir/ws
mkdir -p "$ws/sub" && echo data >"$ws/f"
chown -R 1000:1000 "$ws"
cd "$ws" || exit 1

# --- the premise: root outside writes there; inside it cannot ----------------
sh -c 'echo root >>f' 2>/dev/null
ok $? "without sbx, root writes a file of uid 1000 (CAP_DAC_OVERRIDE)"
sbx_run -- sh -c 'echo x >>f'
isnt "$status" 0 "under sbx the same write fails"
like "$err" "Permission denied" "with a bare EACCES"
like "$err" "${note}$ws is owned by uid 1000 (and 2 more entries of the writable places); the command runs without CAP_DAC_OVERRIDE, so root inside cannot write it (chown it, or run sbx as uid 1000)" \
    "a note names the directory, its owner, why, and the fix"
is "$(printf '%s\n' "$err" | grep -c "$note")" 1 "once"

# --- never when it cannot explain anything -----------------------------------
sbx_run -- true
is "$status:$err" "0:" "a command that succeeds: no note"
sbx_run -q -- sh -c 'echo x >>f'
isnt "$status" 0 "-q: the write fails"
unlike "$err" "$note" "-q: no note"
chown 0:0 "$ws" "$ws/f"
sbx_run -- sh -c 'echo x >>f && cd sub && echo x >g'
like "$err" "cannot create g: Permission denied" "the workspace root's, one directory 1000's: a write there fails"
like "$err" "${note}$ws/sub is owned by uid 1000;" "the note names that entry alone"
chmod 777 "$ws/sub"
sbx_run -- sh -c 'echo x >sub/g && false'
is "$status" 1 "uid 1000's directory writable by all: written, and the command fails"
unlike "$err" "$note" "no note: nothing of another uid refuses root"
chown -R 1000:1000 "$ws"
chmod 755 "$ws/sub"

# --- kept capabilities --------------------------------------------------------
# capabilities = cap_dac_override inside a user namespace that maps uid 0
# alone covers no file of uid 1000 (capable_wrt_inode_uidgid): still refused.
profile dac <<INI
[security]
capabilities = cap_dac_override
INI
sbx_run -p "$prof" -- sh -c 'echo x >>f'
isnt "$status" 0 "capabilities = cap_dac_override, user namespace: the write still fails"
like "$err" "maps uid 0 alone, and CAP_DAC_OVERRIDE there covers no file of an unmapped uid" \
    "the note says why the kept capability does not help"
# Without a user namespace the kept capability is the host's: it writes.
profile host_dac <<INI
[namespaces]
user = no
[security]
capabilities = cap_dac_override
INI
sbx_run -p "$prof" -- sh -c 'echo x >>f && false'
is "$status" 1 "user = no with cap_dac_override: the write succeeds (the command then fails)"
unlike "$err" "$note" "and no note: root can write there"

# --- uid 65534: its EACCES is the ordinary one ------------------------------------
copy_sbx_for_others "$tmpdir/copy" || exit 1
run_cmd setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent \
    SBX_PROFILE_PATH="$sbx_copy_profiles" "$sbx_copy" run -- sh -c 'echo x >>f'
like "$status:$err" "2:sh: 1: cannot create f: Permission denied" "uid 65534 in uid 1000's workspace: the write fails"
unlike "$err" "$note" "no note for a caller other than root"

# --- a $HOME that holds another user's 0700 directory --------------------------
# (root's ~/.cache, made by a root run with the same HOME=/nonexistent):
# the credential hides below it are out of the caller's reach, and so out
# of the command's; sbx starts, hiding nothing there
mkdir -p "$tmpdir/shared-home/.cache/git" && : >"$tmpdir/shared-home/.cache/git/credential" &&
    chmod 0755 "$tmpdir/shared-home" && chmod 0700 "$tmpdir/shared-home/.cache" || exit 1
run_cmd setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmpdir/shared-home" \
    SBX_PROFILE_PATH="$sbx_copy_profiles" "$sbx_copy" run -- sh -c 'cat "$HOME/.cache/git/credential" >/dev/null 2>&1 || echo ran'
is "$status" 0 "uid 65534, another user's 0700 ~/.cache: the run starts (exit 0, was 125)"
is "$out" "ran" "and the command runs, still unable to read below it"

done_testing
