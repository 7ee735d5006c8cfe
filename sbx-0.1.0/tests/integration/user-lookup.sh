#!/bin/sh
# ${HOME} and ${USER} without $HOME and $USER come from /etc/passwd, read by
# sbx itself, in every build: the static PIE, the dynamic one (Debian's
# package) and the sanitizer build run the same caller_passwd() (src/cli.c)
# and give the same answers. To tell that lookup from glibc's NSS
# (getpwuid), each check runs in a mount namespace of its own where
# /etc/passwd is a scratch file with a user 4242 and /etc/nsswitch.conf
# sends passwd lookups to a module that does not exist: NSS knows nobody
# there (shown first with getent), the file does. The caller becomes uid
# 4242 (or 4243, a uid the file lacks) in a user namespace inside it.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 10
make_tmpdir
mkdir "$tmpdir/work" && cd "$tmpdir/work" || exit 1   # sbx run makes it writable: not / nor $HOME

diag "this build: $("$SBX" --version | grep -q "^static PIE" && echo static PIE || echo dynamic)"
printf 'sbxlookup:x:4242:4242:sbx lookup test:/nonexistent/sbx-lookup-home:/bin/sh\n' >"$tmpdir/passwd"
printf 'passwd: sbxnosuchmodule\ngroup: files\n' >"$tmpdir/nsswitch.conf"
mkdir "$tmpdir/env"
printf '[profile]\ninclude = default\n[environment]\nset = WHO=${USER}\n' >"$tmpdir/env/who.ini"

# as_uid UID CMD...: CMD as UID, with the scratch passwd and nsswitch.conf
as_uid() {
    _uid=$1; shift
    unshare -Urm sh -c 'mount --bind "$1/passwd" /etc/passwd &&
        mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf || exit 99
        uid=$2; shift 2
        exec unshare -U --map-user="$uid" --map-group="$uid" "$@"' sh "$tmpdir" "$_uid" "$@"
}

if ! unshare -Urm true 2>/dev/null; then
    for i in 1 2 3 4 5 6 7 8 9 10; do skip "unshare -Urm cannot create a user and mount namespace here"; done
    done_testing
fi

# The premise: in this namespace NSS has no entry for 4242, the file has.
run_cmd as_uid 4242 getent passwd 4242
is "$status" 2 "control: NSS (getent passwd 4242) has no entry for uid 4242 here"
run_cmd as_uid 4242 sh -c 'id -u; grep "^sbxlookup:" /etc/passwd'
is "$status $out" "0 4242
sbxlookup:x:4242:4242:sbx lookup test:/nonexistent/sbx-lookup-home:/bin/sh" \
    "control: the caller is uid 4242 and /etc/passwd has its entry"

run_cmd as_uid 4242 env -u HOME "$SBX" profile show default
is "$status" 0 "HOME unset: profile show runs"
like "$out" "(= /nonexistent/sbx-lookup-home/.ssh)" \
    "HOME unset: \${HOME} is the home /etc/passwd gives uid 4242, not NSS's (none)"
run_cmd as_uid 4242 env HOME=relative "$SBX" profile show default
like "$out" "(= /nonexistent/sbx-lookup-home/.ssh)" "HOME relative: the same home from /etc/passwd"

run_cmd as_uid 4242 env -u USER HOME="$tmpdir" "$SBX" run -p "$tmpdir/env/who.ini" -- sh -c 'echo "$WHO"'
is "$status $out" "0 sbxlookup" "USER unset: sbx run gets \${USER} from /etc/passwd"
[ "$status" = 0 ] || diag "$err"

# A uid the file lacks is unknown, whatever NSS might say elsewhere.
run_cmd as_uid 4243 env -u HOME -u USER "$SBX" run -- true
is "$status" 125 "uid 4243, not in /etc/passwd, HOME unset: exit 125"
like "$err" "'\${HOME}' has no value here (no absolute \$HOME in the environment, and the password database has no entry for uid 4243; set HOME)" \
    "uid 4243: the error names the uid and the fix"
run_cmd as_uid 4243 env -u USER HOME="$tmpdir" SBX_PROFILE_PATH="$tmpdir/env" "$SBX" profile show who
is "$status" 125 "uid 4243, USER unset, a profile with \${USER}: exit 125"
like "$err" "who.ini:4: '\${USER}' has no value here (no \$USER in the environment, and the password database has no entry for uid 4243; set USER)" \
    "uid 4243, USER unset: the error names the uid and the fix"

done_testing
