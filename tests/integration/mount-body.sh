# The body of the filesystem isolation tests (issue 4), shared by
# mount-helper.sh and mount-legacy.sh (mount_setup() through the
# tests/helpers/mount-sandbox program, on the new and the old mount API),
# mount-filtered.sh (the helper under a seccomp filter refusing openat2 and
# the new mount API with EPERM) and mount-sbx.sh (through `sbx run`). The
# caller sets $runner to helper, legacy, filtered, noattr or sbx and sources this
# file after lib.sh.
#
# Test directories live under /var/tmp, not /tmp: /tmp is a tmpfs inside
# (invisible), and every user (root, 65534) can write /var/tmp.

TMPDIR=/var/tmp make_tmpdir
work=$tmpdir/work          # the working directory, the only rw path
home=$tmpdir/home          # a home the profile does not make writable
outside=$tmpdir/outside    # where a symlink in work points
mkdir -p "$work" "$home/.ssh" "$outside"
echo secret >"$home/.ssh/id_ed25519"
echo "machine x password y" >"$home/.netrc"
ln -s "$outside" "$work/link"
uid=$(id -u) gid=$(id -g)

# The sandbox under test: root read-only, a new /proc, a minimal /dev, and
# the rules given as options. $tmpdir/runner is a program so that it can
# run behind other programs (unshare below).
case $runner in
helper) printf '#!/bin/sh\nexec "%s" "$@"\n' "$SBX_TEST_HELPERS/mount-sandbox" ;;
legacy) printf '#!/bin/sh\nexec "%s" --legacy "$@"\n' "$SBX_TEST_HELPERS/mount-sandbox" ;;
filtered)
    # As inside a container runtime whose seccomp filter predates the new
    # mount API and openat2: sbx must find its way without them.
    printf '#!/bin/sh\nexec "%s" EPERM openat2,open_tree,mount_setattr,move_mount -- "%s" "$@"\n' \
        "$SBX_TEST_HELPERS/deny-syscalls" "$SBX_TEST_HELPERS/mount-sandbox" ;;
noattr)
    # A kernel before 6.15 (or a filter that does not know the call):
    # each copy made by open_tree and given its flags by mount_setattr.
    # 467 is open_tree_attr on every architecture.
    printf '#!/bin/sh\nexec "%s" ENOSYS 467 -- "%s" "$@"\n' \
        "$SBX_TEST_HELPERS/deny-syscalls" "$SBX_TEST_HELPERS/mount-sandbox" ;;
sbx)
    cat >"$tmpdir/mount.ini" <<'INI'
[profile]
description = mount tests: nothing but the filesystem rules given as options
[network]
mode = host
[namespaces]
net = no
[filesystem]
root = ro
proc = yes
dev = minimal
INI
    printf '#!/bin/sh\nexec "%s" run --profile "%s" "$@"\n' "$SBX" "$tmpdir/mount.ini" ;;
esac >"$tmpdir/runner"
chmod +x "$tmpdir/runner"
sandbox() { run_cmd "$tmpdir/runner" "$@"; }
# Every sandbox starts in $work.
cd "$work" || exit 1
in_work() { sandbox "$@"; }

# --- the host is read-only ------------------------------------------------
for dir in /usr /etc "$home"; do
    in_work --rw "$work" -- sh -c "touch '$dir/sbx-probe' 2>&1; echo status=\$?"
    like "$out" "Read-only file system" "writing to $dir fails with EROFS"
done
[ ! -e "$home/sbx-probe" ]; ok $? "and nothing reached the host's home"

# --- the working directory is writable, with the caller's owner -----------
rm -f "$work/out"
in_work --rw "$work" -- sh -c 'echo data >out && cat out'
is "$status:$out" "0:data" "writing in the working directory succeeds"
is "$(stat -c %u:%g "$work/out" 2>&1)" "$uid:$gid" "the file belongs to the caller on the host"

# --- a private /tmp ---------------------------------------------------------
marker=sbx-mount-marker-$$
in_work --tmpfs /tmp --rw "$work" -- sh -c "ls -A /tmp; echo x >/tmp/$marker && echo written"
is "$status:$out" "0:written" "/tmp is empty at start and writable"
[ ! -e "/tmp/$marker" ]; ok $? "what was written in /tmp is gone afterwards"

# --- hiding -----------------------------------------------------------------
in_work --hide "$home/.ssh" -- sh -c "ls -A '$home/.ssh'; cat '$home/.ssh/id_ed25519' 2>&1"
unlike "$out" "secret" "a hidden ~/.ssh cannot be read"
like "$out" "No such file" "and reads empty"
in_work --hide "$home/.netrc" -- sh -c "wc -c <'$home/.netrc'; echo x 2>&1 >>'$home/.netrc'"
like "$out" "0" "a hidden file reads empty"
like "$out" "cannot create" "and cannot be written"
is "$(cat "$home/.netrc")" "machine x password y" "the host's file is untouched"

# --- /proc and /dev -----------------------------------------------------------
in_work -- sh -c 'ls /proc | grep -E "^[0-9]+$" | sort -n | tr "\n" " "'
case "$status:$out" in
0:"1 "*) big=$(printf '%s\n' $out | awk '$1 > 10' | head -1)
    is "$big" "" "/proc shows only the sandbox's processes ($out)" ;;
*) fail "/proc shows only the sandbox's processes"; diag "status $status, pids: $out $err" ;;
esac
in_work -- sh -c 'ls -A /dev | tr "\n" " "'
is "$out" "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " \
    "/dev has exactly the minimal set"
in_work -- sh -c 'echo x >/dev/null && head -c 4 /dev/zero | wc -c && test -c /dev/pts/ptmx && touch /dev/shm/x && echo usable'
is "$status:$(echo $out)" "0:4 usable" "its devices, devpts and /dev/shm work"

# --- rules on / and on the directory sbx assembles the root in --------------
# ro = / is stacked on the root: what follows must land on top of it.
sandbox --ro / --tmpfs /tmp -- sh -c 'touch /usr/sbx-probe 2>&1; ls -A /dev | tr "\n" " "'
like "$out" "Read-only file system" "ro = /: the host stays read-only"
like "$out" "fd full null ptmx pts" "ro = /: later mounts (/dev) land on top of it"
[ ! -e /usr/sbx-probe ]; ok $? "ro = /: nothing was written on the host"
# rw = /tmp shows the host's /tmp, not sbx's staging tmpfs there. A build
# tree under /tmp adds sbx's protections of its own binary and profiles,
# and of the write layers' root (lib.sh puts $XDG_STATE_HOME in the build
# tree): read-only, their parents pinned; those are no staging mounts.
# Nor are the protections of a /tmp/.git that something on the machine
# left (sbx keeps a .git below an rw path read-only, as it must).
hostmark=$(mktemp /tmp/sbx-mount-host.XXXXXX)
sandbox --rw /tmp -- sh -c "test -e '$hostmark' && echo host-tmp; awk '\$5 ~ \"^/tmp/\" { print \$5 }' /proc/self/mountinfo"
rm -f "$hostmark"
under_tmp=
for m in $(printf '%s\n' "$out" | sed 1d); do
    case "$SBX/ $SBX_TOP_SRCDIR/profiles/ ${XDG_STATE_HOME:-/nonexistent}/sbx/layers/" in "$m"/* | *" $m"/*) continue ;; esac
    case $m in /tmp/.git | /tmp/.git/*) continue ;; esac
    under_tmp="$under_tmp $m"
done
is "$(printf '%s\n' "$out" | sed -n 1p)$under_tmp" "host-tmp" "rw = /tmp: the host's /tmp, without sbx's staging mounts"

# --- remounting -----------------------------------------------------------------
in_work -- sh -c 'mount -o remount,rw / 2>/dev/null; echo remount=$?; touch /sbx-probe 2>&1'
like "$out" "Read-only file system" "mount -o remount,rw / fails inside, / stays read-only"
in_work --rw "$work" -- "$SBX_TEST_HELPERS/nested-remount" / /dev "$work"
like "$out" "remount-rw /: EPERM" "remount rw of / from a nested user namespace: EPERM"
like "$out" "remount-rw /dev: EPERM" "the same for /dev"
like "$out" "tmpfs /tmp: ok" "though that namespace can mount (the refusal is the lock)"

# --- a read-only submount of the host stays read-only ------------------------------
# As root a real host mount; as another user an outer user+mount namespace
# plays the host (its mounts are more privileged than the sandbox's, so they
# are locked read-only there exactly as a host mount is).
rosub=$work/rosub
mkdir -p "$rosub"
script='touch rosub/x 2>&1; "$0" / "$1/rosub"'
# The outer namespace keeps the host's mount table free of this test's
# mount, so that the mountinfo checks of tests running in parallel hold.
if is_root; then
    # a mount namespace of the initial user namespace: its mounts are the
    # host's kind (more privileged than the sandbox's, so locked there)
    outer="unshare -m --propagation private"
else
    outer="unshare -Urm"
fi
run_cmd $outer sh -c \
    'mount -t tmpfs -o ro,size=64k sbx-test-ro "$1" && shift && exec "$@"' sh "$rosub" \
    "$tmpdir/runner" --rw "$work" -- sh -c "$script" "$SBX_TEST_HELPERS/nested-remount" "$work"
like "$out" "Read-only file system" "a read-only submount inside a rw path stays read-only"
like "$out" "remount-rw $rosub: EPERM" "and cannot be remounted rw from a nested namespace"

# --- paths resolved once, on the host ------------------------------------------------
in_work -v --rw "$work" --ro "$work/link" -- sh -c "touch '$outside/x' 2>&1; test -L '$work/link' && echo still-a-link"
like "$err" "ro-bind $outside " "a symlink in a rule is resolved before binding: the mount is on its target"
like "$out" "Read-only file system" "which is read-only inside"
like "$out" "still-a-link" "and the symlink itself is left as it is"

# The race: the link is re-pointed at $home after the rules are resolved
# and before anything is mounted. The rw mount must still land on $outside;
# had the path been resolved again when binding, $home would be writable.
case $runner in
sbx) ;;  # no hook between resolving and mounting in sbx itself
*)
    # (The link lies outside the working directory: one there could be a
    # sandbox's, and sbx would refuse to follow it for an rw rule.)
    ln -sfn "$outside" "$tmpdir/race"
    sandbox --swap-link "$tmpdir/race" "$home" --rw "$tmpdir/race" -- \
        sh -c "readlink '$tmpdir/race'; touch '$outside/raced' && echo outside-writable; touch '$home/raced' 2>&1"
    like "$out" "$home" "the link was re-pointed during setup"
    like "$out" "outside-writable" "the rw bind still went where the link pointed when resolved"
    like "$out" "Read-only file system" "and not where it points now"
    [ ! -e "$home/raced" ]; ok $? "nothing was written through the swapped link"
    # A directory of the resolved path itself replaced in that window, by
    # another directory or by a symlink: the plan's identity check refuses
    # it, with openat2 and (filtered) with the component-wise walk.
    # escape-fs.sh shows that the swapped path names the other directory.
    for kind in dir link; do
        rm -rf "$tmpdir/sw" "$tmpdir/sw.sbx-old" "$tmpdir/swin"
        mkdir "$tmpdir/sw"
        if [ $kind = dir ]; then mkdir "$tmpdir/swin"; else ln -s "$outside" "$tmpdir/swin"; fi
        sandbox --swap-dir "$tmpdir/sw" "$tmpdir/swin" --rw "$tmpdir/sw" -- \
            sh -c "touch '$tmpdir/sw/sw-raced' && echo RAN"
        is "$status" 125 "$kind swapped in after the plan: refused"
        like "$err" "changed while the sandbox was being made" "$kind swapped in: the diagnosis"
        [ ! -e "$tmpdir/sw/sw-raced" ] && [ ! -e "$outside/sw-raced" ]; ok $? "$kind swapped in: nothing written"
    done ;;
esac

# A generated file (sbx's resolv.conf with outbound on) over a symlink
# covers the link itself: the path shows the file, wherever the link
# points, even at nothing; the link's target is untouched.
case $runner in
sbx) ;;  # sbx makes only /etc/resolv.conf: session-outbound.sh tests it
*)
    ln -sfn "$outside/nowhere" "$work/dangling"
    echo original >"$outside/target"
    ln -sfn "$outside/target" "$work/pointing"
    sandbox --generated "$work/dangling" "made
" --rw "$work" -- sh -c "cat '$work/dangling'; { echo x >'$work/dangling'; } 2>&1"
    like "$out" "made" "a generated file over a dangling symlink is what the path shows"
    like "$out" "Read-only file system" "and it is read-only"
    sandbox --generated "$work/pointing" "made
" --rw "$work" -- \
        sh -c "cat '$work/pointing' '$outside/target'"
    is "$out" "made
original" "over a symlink to a file: the path shows it, the target is untouched"
    is "$(readlink "$work/dangling")" "$outside/nowhere" "the host's symlink is left as it was" ;;
esac

# --- missing paths ------------------------------------------------------------------------
case $runner in
sbx) printf '[profile]\ninclude = %s\n[filesystem]\nrw? = /nonexistent/sbx\n' "$tmpdir/mount.ini" \
         >"$tmpdir/optional.ini"
     run_sbx run --profile "$tmpdir/optional.ini" -- true ;;
*)   in_work --rw? /nonexistent/sbx -- true ;;
esac
is "$status" 0 "a missing path with '?' is skipped"
case $runner in
sbx)
    printf '[profile]\ninclude = %s\n[filesystem]\nrw = /nonexistent/sbx\n' "$tmpdir/mount.ini" >"$tmpdir/missing.ini"
    run_sbx run --profile "$tmpdir/missing.ini" -- true
    where="missing.ini:4" ;;
*)
    in_work --tmpfs /tmp --rw /nonexistent/sbx -- true
    where="mount-test.ini:2" ;;
esac
is "$status" 125 "a missing rw path without '?' exits 125"
like "$err" "$where: rw path /nonexistent/sbx does not exist" "naming file:line and the path"

# --- the working directory must be visible -------------------------------------------------
in_work --tmpfs "$tmpdir" -- true
is "$status" 125 "a working directory hidden by a rule exits 125"
like "$err" "working directory $work is not visible inside the sandbox" "saying so"
if [ "$runner" = sbx ]; then
    # sbx knows it from the plan: refused before any namespace exists,
    # naming the rule that covers it
    in_work -v --tmpfs "$tmpdir" -- true
    is "$status" 125 "sbx: the hidden working directory is refused"
    like "$err" "$tmpdir covers it" "sbx: naming the rule that covers it"
    unlike "$err" "namespaces created" "sbx: before anything is created"
fi

# --- -v lists the mounts in order ------------------------------------------------------------
mkdir -p "$work/nest/inner"
in_work -v --hide "$work/nest/inner" --tmpfs "$work/nest" -- true
first=$(printf '%s\n' "$err" | grep -n "tmpfs $work/nest " | cut -d: -f1)
second=$(printf '%s\n' "$err" | grep -n "hide.* $work/nest/inner " | cut -d: -f1)
[ -n "$first" ] && [ -n "$second" ] && [ "$first" -lt "$second" ]
ok $? "-v lists each mount, parents first whatever the rule order"

# --- root = tmpfs: only what the rules add -------------------------------------------------------
case $runner in
sbx) sed 's/^root = ro/root = tmpfs/' "$tmpdir/mount.ini" >"$tmpdir/root-tmpfs.ini"
     run_sbx run --profile "$tmpdir/root-tmpfs.ini" --ro /usr --rw "$work" -- \
         /bin/sh -c 'ls -A / | tr "\n" " "; touch /x 2>&1; echo ok >rootfs && cat rootfs' ;;
*)   sandbox --root tmpfs --ro /usr --rw "$work" -- \
         /bin/sh -c 'ls -A / | tr "\n" " "; touch /x 2>&1; echo ok >rootfs && cat rootfs' ;;
esac
unlike "$out" " etc " "root = tmpfs shows no host /etc"
like "$out" "usr " "but what the rules add"
like "$out" "Read-only file system" "and its root is read-only once built"
like "$out" "ok" "programs run (top-level symlinks such as /bin -> usr/bin are recreated)"

# --- a profile the command could rewrite is warned about ------------------------------------------
echo '# a profile' >"$work/inside.ini"
case $runner in
sbx) cp "$tmpdir/mount.ini" "$work/inside.ini"
     run_sbx run --profile "$work/inside.ini" --rw "$work" -- true
     warned=$err
     run_sbx run --profile "$work/inside.ini" --rw "$work" --ro "$work/inside.ini" -- true ;;
*)   sandbox --profile-file "$work/inside.ini" --rw "$work" -- true
     warned=$err
     sandbox --profile-file "$work/inside.ini" --rw "$work" --ro "$work/inside.ini" -- true ;;
esac
like "$warned" "warning: profile file $work/inside.ini lies inside $work" \
    "a profile inside a writable path is warned about"
unlike "$err" "warning: profile file" "not when a deeper ro rule protects it"

# --- the shipped default profile hides a planted key ------------------------------------------------
# The home lies in the working directory (rw = ${CWD}), so only the hide
# rule stands between the command and the key; the file next to .ssh must
# stay readable, or the test would pass for the wrong reason.
if [ "$runner" = sbx ]; then
    mkdir -p "$work/fakehome/.ssh"
    echo secret >"$work/fakehome/.ssh/id_ed25519"
    echo visible >"$work/fakehome/visible"
    # (--rw: the working directory holds $HOME, which sbx makes writable
    # only when asked explicitly)
    run_cmd env HOME="$work/fakehome" "$SBX" run --rw "$work" -- \
        sh -c 'cat "$HOME/visible"; cat "$HOME/.ssh/id_ed25519" 2>&1; ls -A "$HOME/.ssh"'
    like "$out" "visible" "default profile: the planted home is visible"
    unlike "$out" "secret" "default profile: a planted ~/.ssh/id_ed25519 cannot be read"
fi

# --- nothing is left on the host ------------------------------------------------------------------
# The host mounts a leaking sandbox would leave: at its rule paths (under
# $tmpdir), the staging directories (/tmp, /run, /mnt, /var/tmp), /proc or /dev. Other tests running in parallel may mount
# elsewhere on the host; those lines are not this test's business.
sandbox_mounts() {
    awk -v t="$tmpdir" '$5 == "/tmp" || $5 == "/run" || $5 == "/mnt" || $5 == "/var/tmp" || $5 == "/proc" || $5 == "/dev" || index($5, "/dev/") == 1 ||
        index($5, t) == 1' /proc/self/mountinfo
}
before=$(sandbox_mounts)
i=0
while [ $i -lt 100 ]; do
    "$tmpdir/runner" --tmpfs /tmp --rw "$work" --hide "$home/.ssh" -- true \
        </dev/null >/dev/null 2>&1 || break
    i=$((i + 1))
done
is "$i" 100 "100 runs succeed"
after=$(sandbox_mounts)
if [ "$before" = "$after" ]; then pass "the host's mountinfo is unchanged after 100 runs"; else
    fail "the host's mountinfo is unchanged after 100 runs"
    diag "$(printf '%s\n' "$after" | grep -vxF "$before")"
fi

# Killed in the middle: the mounts die with the namespace, none is left.
nap=29.$$  # a sleep no one else runs
"$tmpdir/runner" --tmpfs /tmp --rw "$work" -- sh -c 'echo up >"$1/up"; exec sleep "$2"' sh "$work" $nap \
    </dev/null >/dev/null 2>&1 &
killed=$!
n=0
while [ ! -e "$work/up" ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
kill -KILL $killed 2>/dev/null
wait $killed 2>/dev/null
[ -e "$work/up" ]; ok $? "a sandbox was running when it was killed"
n=0
while ps -eo args= | grep -v grep | grep -q "$nap" && [ $n -lt 40 ]; do sleep 0.05; n=$((n + 1)); done
is "$(ps -eo args= | grep -v grep | grep -c "$nap")" 0 "everything inside died with it"
after=$(sandbox_mounts)
if [ "$before" = "$after" ]; then pass "after kill -9, no mount is left on the host"; else
    fail "after kill -9, no mount is left on the host"
    diag "$(printf '%s\n' "$after" | grep -vxF "$before")"
fi
