#!/bin/sh
# What a user sees from sbx's command line: help, version, usage errors
# (exit 125 with a usage line), profile lookup order and `profile show`.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
make_tmpdir

run_sbx --version
is "$status" 0 "--version exits 0"
like "$out" "sbx " "--version prints the version"

run_sbx --help
is "$status" 0 "--help exits 0"
for word in run audit probe profile; do
    like "$out" "sbx $word" "--help shows 'sbx $word'"
done

for sub in run audit probe profile; do
    run_sbx help $sub
    is "$status" 0 "help $sub exits 0"
    like "$out" "Usage: sbx $sub" "help $sub shows its usage"
done
run_sbx run --help
like "$out" "--nofile N|max" "run --help lists --nofile"

run_sbx
is "$status" 125 "no arguments: exit 125"
like "$err" "Usage: sbx run" "no arguments: usage line"
run_sbx frobnicate
is "$status" 125 "unknown command: exit 125"
like "$err" "unknown command 'frobnicate'" "unknown command: named"
run_sbx --frob
is "$status" 125 "unknown top-level option: exit 125"
run_sbx help frob
is "$status" 125 "help on an unknown command: exit 125"

run_sbx run
is "$status" 125 "run without a command: exit 125"
like "$err" "no command given" "run without a command: says so"
like "$err" "sbx help run" "run without a command: points at help"
run_sbx run --bogus true
is "$status" 125 "run --bogus: exit 125"
like "$err" "unknown option '--bogus'" "run --bogus: named"
run_sbx run --nofile
is "$status" 125 "run --nofile without a value: exit 125"
like "$err" "'--nofile' needs an argument" "run --nofile: says it needs an argument"
run_sbx run --nofile lots -- true
is "$status" 125 "run --nofile lots: exit 125"
like "$err" "--nofile: nofile: 'lots' is not valid" "run --nofile lots: the option and the value are named"
run_sbx run --network wifi -- true
is "$status" 125 "run --network wifi: exit 125"
like "$err" "expected one of loopback, none, host" "run --network wifi: lists the choices"
run_sbx run --rw relative/../x -- true
isnt "$status" 0 "run --rw relative: does not run unchecked"

run_sbx profile
is "$status" 125 "profile without a command: exit 125"
run_sbx profile show
is "$status" 125 "profile show without a name: exit 125"
run_sbx profile frob
is "$status" 125 "profile frob: exit 125"
run_sbx profile check
is "$status" 125 "profile check without files: exit 125"

# Shipped profiles are found from the build tree and all pass the check.
run_sbx profile check default qa devbackend deny-network no-loopback low-nofile restrictive
is "$status" 0 "every shipped profile passes the check"
run_sbx profile list
is "$status" 0 "profile list exits 0"
for p in default qa devbackend deny-network no-loopback low-nofile restrictive; do
    like "$out" "$p " "profile list shows $p"
done

run_sbx profile show qa
is "$status" 0 "profile show qa exits 0"
like "$out" "nofile = max" "profile show qa: merged value"
like "$out" "qa.ini:" "profile show qa: origin in qa.ini"
like "$out" "default.ini:" "profile show qa: origin in the included default.ini"
like "$out" "; default" "profile show qa: built-in defaults are marked"

run_sbx run -p no-such-profile -- true
is "$status" 125 "run with an unknown profile: exit 125"
like "$err" "no profile 'no-such-profile'" "unknown profile: named"
like "$err" "$SBX_TOP_SRCDIR/profiles" "unknown profile: the search path is listed"
unlike "$err" "did you mean" "no profile name near no-such-profile: no hint"
run_sbx run -p qaa -- true
is "$status" 125 "run -p qaa: exit 125"
like "$err" "no profile 'qaa' (looked for qaa.ini in " "a mistyped profile: the message is kept"
like "$err" "\`sbx profile list\` shows them (did you mean 'qa'?)" "... and the nearest profile appended"
printf '[profile]\ninclude = defualt\n' >"$tmpdir/typo.ini"
run_sbx run -p "$tmpdir/typo.ini" -- true
like "$status:$err" "125:sbx: $tmpdir/typo.ini:2: include: no profile 'defualt' (looked for defualt.ini in " \
    "a mistyped include: exit 125, the message is kept"
like "$err" ") (did you mean 'default'?)" "... and the nearest profile appended"
run_sbx run --profle qa -- true
is "$status:$err" "125:sbx: unknown option '--profle' (did you mean '--profile'?)
Try 'sbx help run'." "run --profle: exit 125 and the nearest option"

# Lookup order: $SBX_PROFILE_PATH, then the user's config dir, then the
# shipped ones.
mkdir -p "$tmpdir/env" "$tmpdir/xdg/sbx/profiles"
printf '[profile]\ndescription = from-env\ninclude = qa\n' >"$tmpdir/env/qa.ini"
printf '[profile]\ndescription = from-xdg\n' >"$tmpdir/xdg/sbx/profiles/qa.ini"
printf '[profile]\ndescription = only-xdg\n' >"$tmpdir/xdg/sbx/profiles/mine.ini"
run_cmd env SBX_PROFILE_PATH="$tmpdir/env" XDG_CONFIG_HOME="$tmpdir/xdg" "$SBX" profile show qa
like "$out" "description = from-env" "lookup: \$SBX_PROFILE_PATH wins"
run_cmd env SBX_PROFILE_PATH="$tmpdir/env" XDG_CONFIG_HOME="$tmpdir/none" "$SBX" profile show qa
like "$out" "nofile = max" "lookup: a user profile may include the shipped one it shadows"
run_cmd env XDG_CONFIG_HOME="$tmpdir/xdg" "$SBX" profile show qa
like "$out" "description = from-xdg" "lookup: the user's config dir before the shipped profiles"
run_cmd env XDG_CONFIG_HOME="$tmpdir/xdg" "$SBX" profile show mine
like "$out" "description = only-xdg" "lookup: a profile only in the user's dir"
run_cmd env SBX_PROFILE_PATH="$tmpdir/env" XDG_CONFIG_HOME="$tmpdir/xdg" "$SBX" profile list
like "$out" "shadowed by $tmpdir/env/qa.ini" "profile list marks shadowed profiles"
like "$out" "searched, first match wins: $tmpdir/env, $tmpdir/xdg/sbx" \
    "profile list ends with the directories really searched, in order"
run_cmd env HOME="$tmpdir/home" XDG_CONFIG_HOME= "$SBX" profile show qa
like "$out" "qa.ini" "lookup: falls back to the shipped profiles"

# $SBX_PROFILE chooses the profile when -p is not given
printf '[profile]\ninclude = qa\n[limits]\nnofile = bogus\n' >"$tmpdir/env/broken.ini"
run_cmd env SBX_PROFILE_PATH="$tmpdir/env" SBX_PROFILE=broken "$SBX" run -- true
is "$status" 125 "\$SBX_PROFILE picks the profile"
like "$err" "broken.ini:4: nofile: 'bogus' is not valid" "\$SBX_PROFILE: its errors are reported"

# ${HOME} and ${USER} fall back to the password database when the
# environment lacks them (the static sbx reads /etc/passwd without NSS:
# glibc's dlopen()ed modules crash a static program). The caller is known:
me=$(id -u)
home=$(getent passwd "$me" | cut -d: -f6)
run_cmd env -u HOME "$SBX" profile show default
like "$out" "(= $home/.ssh)" "HOME unset: \${HOME} is uid $me's home from the password database"
printf '[profile]\ninclude = default\n[filesystem]\nhide? = /nonexistent/${USER}\n' >"$tmpdir/env/user.ini"
run_cmd env -u USER SBX_PROFILE_PATH="$tmpdir/env" "$SBX" profile show user
like "$out" "(= /nonexistent/$(getent passwd "$me" | cut -d: -f1)" \
    "USER unset: \${USER} is uid $me's name from the password database"
# ... and a caller it does not know (uid 54321 of a user namespace of our
# own) gets an error naming the uid and the fix, never a crash.
stranger() { env -u HOME -u USER "$@" unshare -U --map-user=54321 --map-group=54321 "$SBX" run -- true; }
run_cmd stranger
is "$status" 125 "unknown uid, HOME unset: exit 125"
like "$err" "'\${HOME}' has no value here (no absolute \$HOME in the environment, and the password database has no entry for uid 54321; set HOME)" \
    "unknown uid, HOME unset: the error names the uid and the fix"
run_cmd stranger HOME=relative/home
is "$status" 125 "unknown uid, HOME relative: exit 125"
like "$err" "(no absolute \$HOME in the environment" "unknown uid, HOME relative: the same error"
run_cmd stranger HOME="$tmpdir"
is "$status" 0 "unknown uid with HOME set: runs"
run_cmd stranger HOME="$tmpdir" SBX_PROFILE_PATH="$tmpdir/env" SBX_PROFILE=user
is "$status" 125 "unknown uid, USER unset, a profile with \${USER}: exit 125"
like "$err" "user.ini:4: '\${USER}' has no value here (no \$USER in the environment, and the password database has no entry for uid 54321; set USER)" \
    "unknown uid, USER unset: the error names the uid and the fix"

done_testing
