#!/bin/sh
# The Landlock tier (issue 20, sbx(1) TIERS): where the kernel refuses a
# user namespace, sbx runs the command under Landlock only when asked to
# (--fallback landlock, [sandbox] fallback = landlock), applies the
# profile's read-only host, rw, hide and deny rules, refuses at start what
# it cannot express, and kills what the command leaves. The refusal is
# made for real: an outer seccomp filter that refuses CLONE_NEWUSER as
# Docker's default profile does (deny-userns), user.max_user_namespaces = 0
# in a user namespace of our own, and (root) a caller without
# CAP_SETFCAP. Every attack is first shown to work without sbx. Runs as
# root and as an unprivileged user.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
make_tmpdir
P="$H/escape-probe"
NOUSERNS="$H/deny-userns"

abi=$("$SBX" probe --tap 2>/dev/null | sed -n 's/^ok [0-9]* - landlock: ok \([0-9]*\) .*/\1/p')
if [ -z "$abi" ] || [ "$abi" -lt 6 ]; then
    skip "this kernel has no Landlock ABI 6 (sbx probe: '${abi:-none}'): the tier's scoping cannot be tested"
    done_testing
fi

work=$tmpdir/work outside=$tmpdir/outside home=$tmpdir/home
mkdir -p "$work" "$outside" "$home/.ssh"
echo keep >"$outside/file"
echo PRIVATE-KEY-4711 >"$home/.ssh/id_ed25519"
echo TOP-SECRET-0815 >"$tmpdir/secret.txt"
cd "$work" || exit 1
export HOME="$home"

# The shipped default profile, less what needs a mount namespace (its
# private /tmp), plus a hidden file and a deny rule of this test's.
base=$tmpdir/base.ini
cat >"$base" <<INI
[profile]
include = default
[network]
forward = 9
[filesystem]
-tmpfs = *
hide = $tmpdir/secret.txt
[security]
deny = mkdir EPERM
INI
fb=$tmpdir/fb.ini
printf '[profile]\ninclude = %s\n[sandbox]\nfallback = landlock\n' "$base" >"$fb"

# --- no fallback: the diagnosis, exit 125, nothing ran --------------------
run_cmd "$NOUSERNS" "$SBX" run -p "$base" -- touch "$work/ran"
is "$status" 125 "user namespace refused, no fallback: exit 125"
like "$err" "seccomp filter around sbx" "... with the diagnosis"
unlike "$err" "landlock" "... and no word of a fallback nobody asked for"
[ ! -e "$work/ran" ]; ok $? "... and the command did not run"

# --- no capability in this tier, not even the cap_net_raw that the
# namespaces tier gives root in its own netns (here it would be the host's)
if [ "$(id -u)" = 0 ]; then
    run_cmd "$SBX" run -p "$base" -- sh -c 'grep ^CapEff /proc/self/status'
    is "$status:$out" "0:CapEff:	0000000000002000" "namespaces tier, root: cap_net_raw in its own netns"
    run_cmd "$NOUSERNS" "$SBX" run -p "$base" --fallback landlock -- sh -c 'grep -E "^Cap(Eff|Prm|Amb)" /proc/self/status'
    is "$status:$out" "0:CapPrm:	0000000000000000
CapEff:	0000000000000000
CapAmb:	0000000000000000" "Landlock tier, root: no capability at all (the host's network is not the sandbox's)"
else
    run_cmd "$NOUSERNS" "$SBX" run -p "$base" --fallback landlock -- sh -c 'grep ^CapEff /proc/self/status'
    is "$status:$out" "0:CapEff:	0000000000000000" "Landlock tier: no capability"
    pass "root only: the namespaces tier's cap_net_raw is not this caller's"
fi

# --- --fallback landlock: the command runs, and says in which tier --------
run_cmd "$NOUSERNS" "$SBX" run -p "$base" --fallback landlock --report "$tmpdir/r.json" -- \
    sh -c 'echo inside >ran && cat ran'
is "$status:$out" "0:inside" "--fallback landlock: the command runs and writes its rw directory"
like "$err" "sbx[landlock]: user namespaces are refused here" "the run says why the namespaces could not be had"
like "$err" "--fallback asks for fallback = landlock" "... and who asked for the fallback"
like "$err" "the Landlock tier (Landlock ABI $abi) has no namespaces" "... and names the tier and what it lacks"
like "$err" "mode = loopback: no network namespace here" "the default loopback: the command shares the host's network, said"
if command -v jq >/dev/null 2>&1; then
    is "$(jq -r '.tier.name, .tier.landlock_abi, (.namespaces.created | any)' "$tmpdir/r.json" | tr '\n' ' ')" \
        "landlock $abi false " "--report: tier landlock, its ABI, no namespace created"
else
    skip "jq is not installed (apt-get install jq)"
fi
run_cmd "$SBX" run -p "$base" --fallback landlock --report "$tmpdir/n.json" -- true
if command -v jq >/dev/null 2>&1; then
    is "$status:$(jq -r .tier.name "$tmpdir/n.json")" "0:namespaces" \
        "where namespaces work, --fallback changes nothing: tier namespaces"
else
    skip "jq is not installed (apt-get install jq)"
fi
unlike "$err" "landlock" "... and nothing is said of Landlock"

# --- sbx probe names the tier that runs here ------------------------------
run_cmd "$SBX" probe
like "$out" "(tier: namespaces)" "sbx probe: where namespaces work, the tier is namespaces"
run_cmd "$NOUSERNS" "$SBX" probe
like "$out" "tier: landlock with --fallback landlock" "sbx probe under the refusal: the Landlock tier, with the fallback"
if command -v jq >/dev/null 2>&1; then
    is "$("$NOUSERNS" "$SBX" probe --json 2>/dev/null | jq -r .tier)" landlock "sbx probe --json: tier landlock"
else
    skip "jq is not installed (apt-get install jq)"
fi

# landlock RUNNER... -- COMMAND: under the refusal, in the Landlock tier
landlock() { run_cmd "$NOUSERNS" "$SBX" run -q -p "$fb" -- "$@"; }

# --- read-only host: writes outside rw fail -------------------------------
"$P" open-write "$outside/file" >"$tmpdir/o" 2>&1
like "$(cat "$tmpdir/o")" "open-write $outside/file: ok" "without sbx, the caller opens a file outside the working directory for writing (the test can fail)"
landlock "$P" open-write "$outside/file"
like "$out" "open-write $outside/file: EACCES" "landlock tier: opening a file outside rw for writing: EACCES"
touch "$outside/new" && rm "$outside/new"; ok $? "without sbx, the caller creates a file outside (the test can fail)"
landlock touch "$outside/new"
[ "$status" != 0 ] && [ ! -e "$outside/new" ]; ok $? "landlock tier: creating a file outside rw fails, and no file was made"
truncate -s 0 "$outside/file" && echo keep >"$outside/file"; ok $? "without sbx, truncate(2) empties a file outside (the test can fail)"
landlock truncate -s 0 "$outside/file"
isnt "$status" 0 "landlock tier: truncate(2) outside rw fails"
is "$(cat "$outside/file")" keep "... and the file is intact"
landlock sh -c "echo x >>'$outside/file'"
isnt "$status" 0 "landlock tier: appending to a file outside rw fails"
landlock "$P" open-write /dev/null
like "$out" "open-write /dev/null: ok" "landlock tier: /dev/null stays writable (dev = minimal)"

# --- hidden paths: no read, whatever the mode bits say ----------------------
is "$(cat "$home/.ssh/id_ed25519" "$tmpdir/secret.txt")" "PRIVATE-KEY-4711
TOP-SECRET-0815" "without sbx, the caller reads its key and the secret (the test can fail)"
landlock sh -c "cat '$home/.ssh/id_ed25519'; cat '$tmpdir/secret.txt'; cat /etc/hostname >/dev/null && echo host-readable"
unlike "$out" "PRIVATE-KEY-4711" "landlock tier: default.ini's hide? = \${HOME}/.ssh holds: the key is not read"
unlike "$out" "TOP-SECRET-0815" "landlock tier: the profile's hide holds"
like "$out" "host-readable" "... while the rest of the host stays readable"

# --- deny rules, with the ledger ---------------------------------------------
mkdir "$work/d1" && rmdir "$work/d1"; ok $? "without sbx, mkdir works in the working directory (the test can fail)"
run_cmd "$NOUSERNS" "$SBX" run -p "$fb" -- mkdir "$work/d2"
isnt "$status" 0 "landlock tier: the profile's deny = mkdir EPERM holds"
like "$err" "mkdir: cannot create directory" "... the command saw the error"
like "$err" "sbx[landlock]: 1 operation denied: mkdir() x1 -> EPERM" "... and the ledger counted it, naming the tier"
[ ! -d "$work/d2" ]; ok $? "... and no directory was made"

# --- TCP: the loopback through the supervisor (escape-landlock.sh has the rest)
mkfifo "$tmpdir/hold"
"$P" listen-tcp 127.0.0.1 <"$tmpdir/hold" >"$tmpdir/listen" 2>&1 &
listener=$!
exec 7>"$tmpdir/hold"
wait_for_text "$tmpdir/listen" "port " || diag "the listener did not start"
port=$(sed -n 's/^port //p' "$tmpdir/listen")
"$P" connect-tcp 127.0.0.1 "$port" >"$tmpdir/o" 2>&1
like "$(cat "$tmpdir/o")" "connect 127.0.0.1:$port: ok" "without sbx, connect to a host loopback port (the test can fail)"
landlock "$P" connect-tcp 127.0.0.1 "$port"
like "$out" "connect 127.0.0.1:$port: ok" "landlock tier: TCP connect on the (host's) loopback works, made by the supervisor"
landlock "$P" connect-tcp 127.0.0.1 9
unlike "$out" "EACCES" "landlock tier: TCP connect to the forward port 9 is not refused"
landlock "$P" listen-tcp 127.0.0.1
like "$out" "port " "landlock tier: TCP bind on 127.0.0.1 works"
exec 7>&-
wait "$listener" 2>/dev/null

# --- scoping: signals to host processes, abstract unix sockets --------------
new_marker 1
sleep "$marker" &
victim=$!
"$P" kill "$victim" 0 >"$tmpdir/o" 2>&1
like "$(cat "$tmpdir/o")" "kill $victim: ok" "without sbx, the caller signals its own process (the test can fail)"
landlock "$P" kill "$victim" 15
like "$out" "kill $victim: EPERM" "landlock tier: SIGTERM to a host process of the same uid: EPERM"
kill -0 "$victim"; ok $? "... and it still runs"
kill "$victim"; wait "$victim" 2>/dev/null

name=sbx-landlock-$$
mkfifo "$tmpdir/hold2"
"$P" listen-abstract "$name" <"$tmpdir/hold2" >"$tmpdir/alisten" 2>&1 &
alistener=$!
exec 8>"$tmpdir/hold2"
wait_for_text "$tmpdir/alisten" listening || diag "the abstract listener did not start"
"$P" connect-abstract "$name" >"$tmpdir/o" 2>&1
like "$(cat "$tmpdir/o")" "connect $name: ok" "without sbx, connect to a host abstract unix socket (the test can fail)"
landlock "$P" connect-abstract "$name"
like "$out" "connect $name: EPERM" "landlock tier: connect to a host abstract socket: EPERM (ABI 6 scoping)"
exec 8>&-
wait "$alistener" 2>/dev/null

# --- TIOCSTI into the caller's terminal --------------------------------------
if command -v script >/dev/null 2>&1; then
    in_pty() { out=$(script -qfec "$*" /dev/null </dev/null 2>&1 | tr -d '\r'); }
    in_pty "$P" tiocsti 0
    case $(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1) in
    1) like "$out" "tiocsti 0: ok" "without sbx, TIOCSTI on the controlling terminal works (the test can fail)" ;;
    *) like "$out" "tiocsti 0: EIO" "without sbx, this kernel refuses TIOCSTI itself (dev.tty.legacy_tiocsti = 0)" ;;
    esac
    in_pty "$NOUSERNS" "$SBX" run -q -p "$fb" -- "$P" tiocsti 0
    like "$out" "tiocsti 0: EPERM" "landlock tier: TIOCSTI on the caller's terminal: EPERM (seccomp)"
else
    skip "script(1) is not installed (bsdutils)"
    skip "script(1) is not installed (bsdutils)"
fi

# --- leftovers: what the command leaves is killed at the end -----------------
new_marker 2
setsid sh -c "sleep $marker & exit 0"
sleep 0.2
is "$(count_marker)" 1 "without sbx, a setsid'd background process outlives its parent (the test can fail)"
pkill -f "^sleep $marker\$" 2>/dev/null
new_marker 3
landlock setsid sh -c "sleep $marker & exit 0"
is "$status" 0 "landlock tier: the command left a process and exited"
is "$(count_marker)" 0 "... which sbx killed before it returned (subreaper)"

# --- what cannot be expressed is refused at start, the rule named ------------
touch "$work/.envrc"
nolo=$tmpdir/nolo.ini
cat >"$nolo" <<INI
[profile]
include = $fb
[namespaces]
uid = 0
[network]
outbound = yes
[filesystem]
tmpfs = $outside
INI
run_cmd "$NOUSERNS" "$SBX" run -p "$nolo" -- touch "$work/ran2"
is "$status" 125 "landlock tier: inexpressible rules: exit 125"
like "$err" "nolo.ini:4: uid = 0: another uid inside needs a user namespace" "uid = 0 refused, its line named"
like "$err" "nolo.ini:6: outbound = yes" "outbound = yes refused, its line named"
like "$err" "nolo.ini:8: tmpfs = $outside: the Landlock tier has no private directory there: the host's $outside stays read-only" "tmpfs elsewhere than /tmp: said what the tier does instead, not refused"
like "$err" "2 rules of profile $nolo cannot be expressed without namespaces" "... all of them, at once"
[ ! -e "$work/ran2" ]; ok $? "... and nothing ran"
rm -f "$work/.envrc"

# --- a protected path inside rw stays read-only: rw granted entry by entry ---
echo 'echo from-envrc' >"$work/.envrc"
mkdir -p "$work/build"
echo old >"$work/existing"
echo x >>"$work/.envrc" && sed -i '$d' "$work/.envrc"; ok $? "without sbx, the caller writes its .envrc (the test can fail)"
landlock sh -c "echo evil >>'$work/.envrc'; echo new >'$work/existing' && echo wrote-existing; echo n >'$work/build/new' && echo wrote-below; echo t >'$work/top' || echo no-top"
is "$(cat "$work/.envrc")" "echo from-envrc" "landlock tier: the protected .envrc in the working directory stays read-only"
like "$out" "wrote-existing
wrote-below
no-top" "... what exists is writable, and below; a new entry at the top cannot be made"
run_cmd "$NOUSERNS" "$SBX" run -p "$fb" -- true
like "$err" "rw = $work holds protected paths ($work/.envrc), which stay read-only" "... said at start, with the cost"
rm -rf "$work/.envrc" "$work/build" "$work/existing"

"$P" listen-unix "$tmpdir/agent.sock" </dev/null >/dev/null 2>&1
sock=$tmpdir/sock.ini
printf '[profile]\ninclude = %s\n[filesystem]\nhide = %s\n' "$fb" "$tmpdir/agent.sock" >"$sock"
run_cmd "$NOUSERNS" "$SBX" run -p "$sock" -- true
is "$status" 125 "landlock tier: hiding a unix socket is refused (Landlock cannot refuse connect)"
like "$err" "sock.ini:4: hide = $tmpdir/agent.sock: a unix socket" "... naming the rule"

# --- tmpfs = /tmp: a directory of the run's own as TMPDIR, /tmp read-only --------
tmpprof=$tmpdir/tmp.ini
printf '[profile]\ninclude = %s\n[filesystem]\ntmpfs = /tmp\n' "$fb" >"$tmpprof"
run_cmd "$NOUSERNS" "$SBX" run -p "$tmpprof" -- sh -c 'echo x >"$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR"; touch /tmp/sbx-landlock-escape 2>/dev/null && echo wrote-tmp'
like "$out" "x
/tmp/sbx-landlock." "tmpfs = /tmp: TMPDIR is a directory of the run's own under /tmp, writable"
unlike "$out" "wrote-tmp" "... while the host's /tmp stays read-only"
like "$err" "tmpfs = /tmp: the Landlock tier has no private /tmp" "... said at start"
run_tmp=$(printf '%s\n' "$out" | sed -n 's|^\(/tmp/sbx-landlock\..*\)$|\1|p')
[ -n "$run_tmp" ] && [ ! -e "$run_tmp" ]; ok $? "... and removed at the end ($run_tmp)"
rm -f /tmp/sbx-landlock-escape

# --- sbx profile show --tier landlock: what the tier does, before any run ------
ls -d /tmp/sbx-landlock.* 2>/dev/null | sort >"$tmpdir/tmp.before"
run_cmd "$SBX" profile show --tier landlock qa
is "$status" 0 "profile show --tier landlock qa: qa starts in the Landlock tier (exit 0)"
like "$out" "; in the Landlock tier (sbx(1) TIERS):" "... the profile, then what the tier does with it"
like "$out" "tmpfs = /tmp: the Landlock tier has no private /tmp: the host's stays read-only, and the command's TMPDIR is a directory of the run's own" \
    "... tmpfs = /tmp: what it does instead, said"
like "$out" "mode = loopback:" "... and the network"
# other tests' runs (make -j2) make and remove theirs meanwhile: a
# directory profile show made would be new and would stay
i=0
while :; do
    ls -d /tmp/sbx-landlock.* 2>/dev/null | sort | comm -13 "$tmpdir/tmp.before" - >"$tmpdir/tmp.new"
    [ -s "$tmpdir/tmp.new" ] && [ $i -lt 100 ] || break
    sleep 0.1; i=$((i + 1))
done
is "$(cat "$tmpdir/tmp.new")" "" "... nothing created"
run_cmd "$SBX" profile show --tier landlock qa-session
like "$status:$out" "0:" "profile show --tier landlock qa-session: it starts there (exit 0)"
like "$out" "qa-session.ini:16: allow = @anthropic...: the Landlock tier has no network namespace" \
    "... saying by file:line that allow goes through sbx's proxy on the host's loopback"

# --- other refusals of the user namespace ------------------------------------
# user.max_user_namespaces = 0, set in a user namespace of our own.
if unshare -U --map-root-user true 2>/dev/null; then
    run_cmd unshare -U --map-root-user sh -c \
        'echo 0 >/proc/sys/user/max_user_namespaces && exec "$0" run -p "$1" -- sh -c "echo ok >m && cat m; echo x >\"$2/m\""' \
        "$SBX" "$fb" "$outside"
    like "$out" "ok" "max_user_namespaces = 0: the Landlock tier runs the command"
    like "$err" "user.max_user_namespaces = 0" "... saying why the namespaces could not be had"
    [ ! -e "$outside/m" ]; ok $? "... and writes outside rw still fail"
    run_cmd unshare -U --map-root-user sh -c \
        'echo 0 >/proc/sys/user/max_user_namespaces && exec "$0" run -p "$1" -- touch m2' "$SBX" "$base"
    is "$status" 125 "max_user_namespaces = 0 without the fallback: exit 125"
else
    for i in 1 2 3 4; do skip "unshare(1) cannot create a user namespace here"; done
fi

# uid 0 without CAP_SETFCAP cannot map itself into a user namespace.
if is_root; then
    run_cmd setpriv --bounding-set=-setfcap "$SBX" run -p "$fb" -- sh -c 'echo ok >s && cat s'
    is "$status:$out" "0:ok" "root without CAP_SETFCAP: the Landlock tier runs the command"
    like "$err" "CAP_SETFCAP" "... saying why the namespaces could not be had"
else
    # the kernel asks CAP_SETFCAP only to map uid 0: a non-root caller
    # without it keeps the namespaces
    run_cmd setpriv --bounding-set=-setfcap "$SBX" run -p "$fb" -- sh -c 'echo ok >s && cat s'
    is "$status:$out" "0:ok" "not root, without CAP_SETFCAP: the command runs (the CAP_SETFCAP rule is root's)"
    unlike "$err" "landlock" "... in the namespaces, not the Landlock tier"
fi

done_testing
