#!/bin/sh
# A fresh account (issue 29): none of the caches the session profiles make
# writable exist yet, and `rw? = ${HOME}/.npm` is skipped when missing, so
# the first `npm install` inside failed with ENOENT and sbx said nothing.
# The profiles now list them in `create`: sbx makes them, the caller's own.
# As root the account is a real one (useradd -m, removed at exit); as any
# other user a fresh $HOME of its own. Both drive an offline npm install
# of a local tarball and an offline cargo build without dependencies.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
# As root, useradd and userdel replace /etc/passwd and /etc/shadow: the
# other tests that run beside this one (make -j2) would see /etc/shadow,
# which sbx hides from a root caller, change while their sandbox is made,
# and stop (exit 125). The account is made in a mount namespace of this
# test's own, on an overlay of /etc and an empty /home (a tmpfs: sbx's
# cache layers need a file system that can hold an overlay's upper
# layer), both gone with it.
if is_root && [ -z "${SBX_FRESH_ACCOUNT_NS:-}" ] && command -v unshare >/dev/null 2>&1; then
    SBX_FRESH_ACCOUNT_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
if is_root; then
    ns_upper=$(mktemp -d /var/tmp/sbx-fresh-ns.XXXXXX) || exit 1
    { mount -t tmpfs tmpfs "$ns_upper" && mkdir "$ns_upper/up" "$ns_upper/work" &&
          mount -t overlay overlay -o "lowerdir=/etc,upperdir=$ns_upper/up,workdir=$ns_upper/work" /etc &&
          mount -t tmpfs -o mode=755 tmpfs /home &&
          # the overlay keeps its layers; the directory goes at once
          umount -l "$ns_upper" && rmdir "$ns_upper"; } ||
        { echo "1..0 # SKIP cannot overlay /etc and mount /home in a mount namespace of the test's own"; exit 0; }
fi
plan 14

for cmd in npm cargo git; do
    command -v $cmd >/dev/null 2>&1 || { fail "$cmd is needed (tests/debian-packages)"; exit 1; }
done
make_visible_tmpdir fresh-account
chmod 755 "$tmpdir"
# sbx and the profiles where the account reaches them (the build tree may
# be in /root, mode 0700); runs on the host, so /var/tmp will do
copydir=$(mktemp -d /var/tmp/sbx-fresh.XXXXXX) && chmod 755 "$copydir" &&
    copy_sbx_for_others "$copydir" || { fail "cannot copy sbx for the account"; exit 1; }
trap 'rm -rf "$tmpdir" "$copydir"' EXIT

if is_root; then
    account=sbxfresh$$
    useradd -m -s /bin/sh "$account" || { fail "useradd -m $account"; exit 1; }
    trap 'userdel -r "$account" >/dev/null 2>&1; rm -rf "$tmpdir" "$copydir"' EXIT
    fresh_home=$(getent passwd "$account" | cut -d: -f6)
    uid=$(id -u "$account")
    as_account() {
        setpriv --reuid="$uid" --regid="$(id -g "$account")" --init-groups \
            env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$fresh_home" USER="$account" \
            SBX_PROFILE_PATH="$sbx_copy_profiles" "$@"
    }
else
    fresh_home=$tmpdir/home
    mkdir "$fresh_home"
    as_account() {
        env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$fresh_home" \
            SBX_PROFILE_PATH="$sbx_copy_profiles" "$@"
    }
fi
SBX=$sbx_copy

# The project, in the account's home, with a package to install offline.
as_account sh -c 'cd ~ && mkdir -p proj/demo && cd proj && git init -q . &&
    printf "{\"name\":\"sbxdemo\",\"version\":\"1.0.0\"}\n" >demo/package.json &&
    tar -czf sbxdemo-1.0.0.tgz --transform "s,^demo,package," demo &&
    printf "{\"name\":\"app\",\"version\":\"1.0.0\"}\n" >package.json &&
    cargo new -q --vcs none hello' >"$tmpdir/setup.log" 2>&1
st=$?
ok $st "a fresh account with a project (npm package, cargo crate)"
[ $st = 0 ] || sed 's/^/# /' "$tmpdir/setup.log"
[ ! -e "$fresh_home/.npm" ] && [ ! -e "$fresh_home/.cargo" ] && [ ! -e "$fresh_home/.cache" ]
ok $? "it has no ~/.npm, ~/.cargo or ~/.cache yet"

# Without the create rule (the profiles before it): npm fails inside.
printf '[profile]\ninclude = qa-session\n[filesystem]\n-create = ${HOME}/.npm\n' >"$copydir/nocreate.ini"
chmod 644 "$copydir/nocreate.ini"
as_account sh -c "cd ~/proj && '$SBX' run -p '$copydir/nocreate.ini' -- npm install --offline --no-audit --no-fund --no-update-notifier ./sbxdemo-1.0.0.tgz" \
    >"$tmpdir/o" 2>&1
isnt "$?" 0 "without 'create = \${HOME}/.npm', npm install fails in the fresh account (the test can fail)"
[ ! -e "$fresh_home/.npm" ]; ok $? "and ~/.npm was not made"

for profile in devbackend-session qa-session; do
    rm -rf "$fresh_home/.npm" "$fresh_home/.cache" "$fresh_home/.cargo" "$fresh_home/proj/node_modules" \
        "$fresh_home/proj/package-lock.json"
    as_account sh -c "cd ~/proj && '$SBX' run -p $profile -- npm install --offline --no-audit --no-fund --no-update-notifier ./sbxdemo-1.0.0.tgz" \
        >"$tmpdir/o" 2>&1
    st=$?
    [ $st = 0 ] && [ -f "$fresh_home/proj/node_modules/sbxdemo/package.json" ]
    ok $? "$profile: npm install from a local tarball works in the fresh account (exit $st)"
    [ $st = 0 ] || sed 's/^/# /' "$tmpdir/o" | tail -8
    [ -d "$fresh_home/.npm" ] && [ "$(stat -c %u "$fresh_home/.npm")" = "$(as_account id -u)" ]
    ok $? "$profile: ~/.npm was made, the account's own"
    as_account sh -c "cd ~/proj/hello && '$SBX' run -p $profile -- cargo build --offline -q && ./target/debug/hello" \
        >"$tmpdir/o" 2>&1
    like "$(cat "$tmpdir/o")" "Hello, world!" "$profile: cargo build --offline works in the fresh account"
    [ "$(stat -c %a "$fresh_home/.cargo/registry")" = 700 ]
    ok $? "$profile: ~/.cargo/registry was made, mode 0700"
done

# Issue 29: "one qa-session run leaves 7 empty directories in ~/.config"
# (the protected paths' placeholders, when ~/.config was rw): a run leaves
# the account's home as it was, but for the profile's create = and sbx's
# own state.
rm -rf "$fresh_home/.npm" "$fresh_home/.cache" "$fresh_home/.cargo" "$fresh_home/.local"
as_account sh -c 'mkdir -p ~/.config && printf "[profile]\ninclude = qa-session\n[filesystem]\nrw = \${HOME}/.config\n" >~/rwconfig.ini'
home_tree() { as_account sh -c 'cd ~ && find . -path ./proj -prune -o -path ./.local/state/sbx -prune -o -path ./.cache/sbx -prune -o -print | LC_ALL=C sort | tr "\n" " "'; }
before=$(home_tree)
for profile in qa-session "$fresh_home/rwconfig.ini"; do
    as_account sh -c "cd ~/proj && env -u XDG_STATE_HOME '$SBX' run -p '$profile' -- true" >"$tmpdir/o" 2>&1
    after=$(home_tree)
    extra=$(printf '%s\n' $after | grep -vxF -e . $(printf -- '-e %s ' $before) | tr '\n' ' ')
    is "$extra" "./.cache ./.cargo ./.cargo/git ./.cargo/registry ./.local ./.local/state ./.npm " \
        "$(basename "$profile"): the home gains the profile's create = and sbx's state, no placeholder"
done

done_testing
