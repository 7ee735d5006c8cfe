#!/bin/sh
# Escape suite, filesystem (issue 7): write outside rw, read a hidden path,
# write /proc/sys, mknod, remount a read-only bind rw (directly and from a
# nested user namespace), gain from a setuid binary, swap a symlink in a
# profile path between check and bind. Each asserts the errno. Runs as root
# and as an unprivileged user, under the shipped default profile.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 33
P="$H/escape-probe"

make_visible_tmpdir escape-fs
trap 'chmod -R u+w "$tmpdir" 2>/dev/null; rm -rf "$tmpdir"' EXIT
work=$tmpdir/work outside=$tmpdir/outside secret=$tmpdir/secret
mkdir -p "$work" "$outside" "$secret" "$tmpdir/robind"
echo host-data >"$outside/file"
echo key >"$secret/id"
echo token >"$tmpdir/token"
# rw = ${PROJECT}: $work is a work tree of its own, so only it is
# writable (the build tree is itself a git checkout, whose top the
# default profile would make writable from any directory below it).
git init -q "$work" || exit 1
cd "$work" || exit 1
# The helpers are run from $work: the build tree may lie where the default
# profile puts a tmpfs (/tmp, /var/tmp), as in an unprivileged test run.
cp "$H/escape-probe" "$H/nested-remount" "$work/"
P=$work/escape-probe NR=$work/nested-remount
# The default profile, with the host's /tmp and /var/tmp shown read-only
# instead of as empty tmpfs mounts: the test tree must be visible wherever
# the build tree lies (an unprivileged run builds under /tmp).
esc=$tmpdir/escape.ini
printf '[profile]\ninclude = default\n[filesystem]\nro? = /tmp\nro? = /var/tmp\n' >"$esc"
sbx_run() { run_sbx run -p "$esc" "$@"; }

# --- write outside rw ----------------------------------------------------
sbx_run -- "$P" open-write "$outside/file"
is "$out" "open-write $outside/file: EROFS" "open for writing outside rw: EROFS"
sbx_run -- sh -c "echo x >'$outside/new'"
like "$err" "Read-only file system" "creating a file outside rw: EROFS"
is "$(cat "$outside/file"; ls "$outside")" "host-data
file" "the host's files are unchanged"
sbx_run -- sh -c "echo inside >'$work/w' && cat '$work/w'"
is "$out" "inside" "the rw working directory is writable (the test can fail)"

# --- read a hidden path ----------------------------------------------------
sbx_run --hide "$secret" --hide "$tmpdir/token" -- sh -c \
    "\"$P\" read '$secret/id'; \"$P\" read '$tmpdir/token'; ls -A '$secret' | wc -l"
like "$out" "read $secret/id: ENOENT" "a file in a hidden directory: ENOENT"
like "$out" "read $tmpdir/token: ok: 
" "a hidden file opens"
unlike "$out" "ok: token" "but reads empty"
sbx_run -- "$P" read "$secret/id"
is "$out" "read $secret/id: ok: key" "without hide it is readable (the test can fail)"

# --- /proc/sys -------------------------------------------------------------
# Root's command is the global uid 0, which the kernel lets write any
# sysctl by DAC alone: /proc/sys must be read-only (EROFS). For anyone
# else the mode bits refuse first (EACCES).
if is_root; then want=EROFS; else want=EACCES; fi
sbx_run -- "$P" open-write /proc/sys/kernel/core_pattern
is "$out" "open-write /proc/sys/kernel/core_pattern: $want" "writing kernel.core_pattern: $want"
sbx_run -- "$P" open-write /proc/sys/vm/overcommit_memory
is "$out" "open-write /proc/sys/vm/overcommit_memory: $want" "writing vm.overcommit_memory: $want"
printf '[profile]\ninclude = %s\n[namespaces]\npid = no\n' "$esc" >"$tmpdir/nopid.ini"
run_sbx run -p "$tmpdir/nopid.ini" -- "$P" open-write /proc/sys/kernel/core_pattern
is "$out" "open-write /proc/sys/kernel/core_pattern: $want" "pid = no (the host's /proc): $want too"
sbx_run -- sh -c 'echo 0 >/proc/self/oom_score_adj && echo own-proc-writable'
is "$out" "own-proc-writable" "the command's own /proc files stay writable"

# --- mknod -----------------------------------------------------------------
sbx_run -- sh -c "\"$P\" mknod '$work/null'; \"$P\" mknod /dev/shm/null"
is "$(echo $out)" "mknod $work/null: EPERM mknod /dev/shm/null: EPERM" \
    "mknod of a device in writable places: EPERM"
sbx_run -- "$P" --nested mknod "$work/null"
is "$(echo $out)" "nested userns: ok mknod $work/null: EPERM" "mknod from a nested user namespace (all its capabilities): EPERM"

# --- remount a read-only bind read-write ----------------------------------
sbx_run --ro "$tmpdir/robind" -- sh -c "\"$P\" remount '$tmpdir/robind'; \"$P\" open-write '$tmpdir/robind/x'; touch '$tmpdir/robind/x' 2>&1"
like "$out" "remount-rw $tmpdir/robind: EPERM" "remount rw of a read-only bind: EPERM"
like "$out" "Read-only file system" "and the bind stays read-only"
sbx_run --ro "$tmpdir/robind" -- "$NR" "$tmpdir/robind" /
like "$out" "remount-rw $tmpdir/robind: EPERM" "remount rw from a nested user namespace: EPERM (locked)"
like "$out" "remount-rw /: EPERM" "the root too"
like "$out" "tmpfs /tmp: ok" "though that namespace can mount (the test can fail)"

# --- setuid binaries ---------------------------------------------------------
# A setuid binary owned by someone else than the caller: as root a copy of
# sleep owned by uid 1 (made here); otherwise the system's su. It is held
# (sleeping, or waiting for a password on a pipe) while its Uid line is
# read from outside. Outside the sandbox its euid changes (the test can
# fail); inside it must stay the caller's, with NoNewPrivs.
new_marker 5
if is_root; then
    cp /bin/sleep "$tmpdir/suid-sleep" && chown 1:1 "$tmpdir/suid-sleep" && chmod 6755 "$tmpdir/suid-sleep"
    suid_cmd="$tmpdir/suid-sleep $marker" owner=1
else
    suid_cmd="/usr/bin/su -c true$marker root" owner=0
fi
suid_ids() { # suid_ids RUNNER...: the Uid and NoNewPrivs of the held binary
    (sleep 3 | "$@" $suid_cmd >/dev/null 2>&1 &)
    i=0 pid=
    while [ $i -lt 100 ] && [ -z "$pid" ]; do
        pid=$(pgrep -f -x "$suid_cmd" | head -1); sleep 0.03; i=$((i + 1))
    done
    sleep 0.1
    [ -n "$pid" ] && awk '/^Uid:/ { printf "%s %s ", $2, $3 } /^NoNewPrivs:/ { print "nnp " $2 }' /proc/$pid/status
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
}
if [ -u "${suid_cmd%% *}" ]; then
    is "$(suid_ids env)" "$(id -u) $owner nnp 0" "outside, the setuid binary runs with euid $owner"
    is "$(suid_ids "$SBX" run -p "$esc" --)" "$(id -u) $(id -u) nnp 1" "inside, its euid stays $(id -u), NoNewPrivs 1"
else
    skip "no setuid binary to try: ${suid_cmd%% *} is not setuid here"
    skip "no setuid binary"
fi

# --- a symlink swapped between check and bind ------------------------------
# (1) Deterministic, many times: the mount helper re-points the link after
# the rules are resolved and before the bind (see mount-body.sh); the rw
# bind must land where the link pointed when resolved.
mkdir -p "$tmpdir/a" "$tmpdir/b"
# The link lies outside the working directory: one inside could be a
# sandbox's, which sbx refuses to follow for an rw rule (escape-persist.sh).
race=$tmpdir/race
lost=0 i=0
while [ $i -lt 30 ]; do
    ln -sfn "$tmpdir/a" "$race"
    run_cmd "$H/mount-sandbox" --swap-link "$race" "$tmpdir/b" --rw "$race" -- \
        sh -c "touch '$tmpdir/b/raced' 2>/dev/null && echo LOST; readlink '$race'"
    case "$status:$out" in 0:"$tmpdir/b") ;; *) lost=$((lost + 1)); diag "run $i: $status $out $err" ;; esac
    i=$((i + 1))
done
is "$lost" 0 "30 swaps between resolve and bind: the bind never follows the new link"
[ ! -e "$tmpdir/b/raced" ]; ok $? "nothing was written through the swapped link"

# (1b) The plan crosses clone() as canonical paths and the identity of
# what they named (mount.h): a directory on a resolved path replaced
# after the plan was made, by another directory or by a symlink, is
# refused with a diagnosis, never mounted. First the premise: after the
# swap the same path names the other directory, so a mount that went by
# the path again would make that one writable.
for kind in dir link; do
    rm -rf "$tmpdir/proj" "$tmpdir/proj.sbx-old" "$tmpdir/evil" "$tmpdir/swapin"
    mkdir -p "$tmpdir/proj" "$tmpdir/evil"
    if [ $kind = dir ]; then
        mkdir "$tmpdir/swapin" && touch "$tmpdir/swapin/evil-marker"
    else
        ln -s "$tmpdir/evil" "$tmpdir/swapin" && touch "$tmpdir/evil/evil-marker"
    fi
    cp -R "$tmpdir/swapin" "$tmpdir/premise" 2>/dev/null || cp -P "$tmpdir/swapin" "$tmpdir/premise"
    mv "$tmpdir/proj" "$tmpdir/proj.premise" && mv "$tmpdir/premise" "$tmpdir/proj"
    [ -e "$tmpdir/proj/evil-marker" ]; ok $? "$kind: outside sbx, the swapped path names the other directory"
    rm -rf "$tmpdir/proj"; mv "$tmpdir/proj.premise" "$tmpdir/proj"
    run_cmd "$H/mount-sandbox" --swap-dir "$tmpdir/proj" "$tmpdir/swapin" --rw "$tmpdir/proj" -- \
        sh -c "touch '$tmpdir/proj/raced' && echo RAN"
    is "$status" 125 "$kind: a directory replaced after the plan: setup refused (125)"
    like "$err" "changed while the sandbox was being made" "$kind: the diagnosis says the path changed"
    [ ! -e "$tmpdir/proj/raced" ] && [ ! -e "$tmpdir/evil/raced" ]; ok $? "$kind: nothing was written into the replacement"
done

# (2) A real race against sbx run: a process flips the link between two
# directories as fast as it can while 100 sandboxes bind it rw. Whichever
# target sbx resolved, the one directory writable inside must be the one
# -v says it bound: a bind re-resolving the path would show a mismatch.
rm -f "$race"; ln -s "$tmpdir/a" "$race"
# the flag exists before the flipper looks at it, or it may never flip
: >"$tmpdir/flip"
( while [ -e "$tmpdir/flip" ]; do
      ln -sfn "$tmpdir/b" "$race.n" && mv -T "$race.n" "$race"
      ln -sfn "$tmpdir/a" "$race.n" && mv -T "$race.n" "$race"
  done ) &
flipper=$!
mismatch=0 ran=0 a=0 b=0 i=0
# At least 100 runs, and on until both targets were bound (up to 300): on
# a loaded machine the flipper may be starved for a while.
while [ $i -lt 100 ] || { [ $i -lt 300 ] && { [ $a = 0 ] || [ $b = 0 ]; }; }; do
    sbx_run -v --rw "$race" -- sh -c \
        "for d in a b; do rm -f '$tmpdir'/\$d/w; touch '$tmpdir'/\$d/w 2>/dev/null && echo \$d; done; true"
    bound=$(printf '%s\n' "$err" | sed -n "s|^sbx: mount [0-9]*: rw-bind $tmpdir/\([ab]\) .*|\1|p")
    if [ "$status" = 0 ]; then
        ran=$((ran + 1))
        [ "$out" = "$bound" ] || { mismatch=$((mismatch + 1)); diag "bound '$bound', writable '$out'"; }
        [ "$bound" = a ] && a=$((a + 1)); [ "$bound" = b ] && b=$((b + 1))
    else
        # The one refusal allowed: a symlink met while binding (ELOOP).
        case "$err" in *"the path changed since it was resolved"*) ;;
            *) mismatch=$((mismatch + 1)); diag "status $status: $(printf '%s\n' "$err" | tail -3)" ;; esac
    fi
    i=$((i + 1))
done
rm -f "$tmpdir/flip"; wait $flipper 2>/dev/null
is "$mismatch" 0 "$i sandboxes racing a flipping symlink: what is writable is always what was bound"
diag "race: $ran ran, bound a $a times, b $b times"
[ "$a" -gt 0 ] && [ "$b" -gt 0 ]; ok $? "both targets were seen (the race really raced)"

done_testing
