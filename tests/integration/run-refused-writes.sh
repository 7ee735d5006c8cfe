#!/bin/sh
# sbx(1) REFUSED WRITES: the writes a read-only mount refused (EROFS) and
# the rename onto a protected file's bind mount (EBUSY) are named at exit,
# in the run record and by sbx explain, each with the profile line that
# allows it and whether that is safe; applied, the line makes the run
# pass (issue 31). The supervisor reads each path from the command's
# memory: unterminated, too long, unmapped, and changed by another thread
# while it is judged, none of which may crash it, block the command, or
# grant a write the kernel refused.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 41

command -v jq >/dev/null 2>&1 ||
    { skip "jq is not installed (apt-get install jq): the test reads the record with it"; done_testing; }
command -v git >/dev/null 2>&1 ||
    { skip "git is not installed (apt-get install git): the git config case"; done_testing; }
make_visible_tmpdir refused-writes
work=$tmpdir
# the helper where the sandbox sees it (a build tree below /tmp is not seen)
cp "$SBX_TEST_HELPERS/write-probe" "$work/write-probe" || exit 1
probe=$work/write-probe
# A project of its own (the build tree is one too, around it), a HOME
# beside it, and host directories outside both, read-only inside.
mkdir -p "$work/proj" "$work/home/.npm" "$work/outside" "$work/prefix/lib/node_modules" || exit 1
HOME=$work/home
export HOME
cd "$work/proj" || exit 1
git init -q . && git config user.name before || exit 1

# A write to a read-only host path
run_sbx run --report r1.json -- sh -c "echo x >'$work/outside/f'"
isnt "$status" 0 "a write to a read-only host path fails"
like "$err" "sbx: 1 write refused: openat $work/outside/f (EROFS, read-only mount) x1 [pid " \
    "named at exit, with the call, the errno and the caller"
like "$err" "sbx: fix: [filesystem] rw = $work/outside   (review: makes $work/outside writable on the host" \
    "with the rule that allows it, not called safe"
is "$(jq -r '.refusals | [.observed, .total, .writes[0].syscall, .writes[0].path, .writes[0].errno] | map(tostring) | join("|")' r1.json)" \
    "true|1|openat|$work/outside/f|EROFS" "the record's refusals"
is "$(jq -r '.refusals.writes[0].fix | [.section, .line, (.safe|tostring)] | join("|")' r1.json)" \
    "filesystem|rw = $work/outside|false" "the record's write carries the fix"
is "$("$SBX" explain r1.json)" "[filesystem] rw = $work/outside   (review: $(jq -r '.refusals.writes[0].fix.why' r1.json))" \
    "sbx explain lists it"
"$SBX" explain --profile r1.json >"$work/fixed.ini"
run_sbx run -p "$work/fixed.ini" -- sh -c "echo x >'$work/outside/f'"
is "$status:$err" "0:" "the explained profile makes the run pass, nothing refused"
[ -f "$work/outside/f" ]; ok $? "... and the file was written"
# The judge runs after the answer; a slow one (ASan, a loaded machine)
# may come when the command is gone and its mounts taken apart, where
# the path would reach the read-only host under the rw bind mount: the
# caller's mount namespace is held until it is done.
rm -f "$work/outside/f"
SBX_TEST_JUDGE_DELAY_MS=400 run_sbx run -p "$work/fixed.ini" -- sh -c "echo x >'$work/outside/f'"
is "$status:$err" "0:" "a slow judge, after the command is gone: still nothing refused"

# git config: the rename onto .git/config, a protected file's bind mount
run_sbx run -- git config user.name inside
isnt "$status" 0 "git config fails in the sandbox"
like "$err" "Device or resource busy" "with EBUSY"
like "$err" "write refused: rename $work/proj/.git/config (EBUSY, a protected file's mount point)" \
    "the EBUSY is named"
like "$err" "sbx: fix: [filesystem] unprotect = \${PROJECT}/.git/config   (review: a protected path (the repository's git configuration" \
    "the fix names the protected path from the project, not safe, and why"
printf '[profile]\ninclude = default\n[filesystem]\nunprotect = ${PROJECT}/.git/config\n' >"$work/git.ini"
run_sbx run -p "$work/git.ini" -- git config user.name inside
is "$status:$(git config user.name)" "0:inside" "the fix line applied: git config passes"

# npm -g style: a package directory below a read-only prefix
run_sbx run -- mkdir "$work/prefix/lib/node_modules/pkg"
like "$err" "write refused: mkdir $work/prefix/lib/node_modules/pkg (EROFS" "npm -g style: the mkdir named"
like "$err" "fix: [filesystem] rw = $work/prefix/lib/node_modules   (review" "its directory, the deepest that exists"
printf '[profile]\ninclude = default\n[filesystem]\nrw = %s/prefix/lib/node_modules\n' "$work" >"$work/npm.ini"
run_sbx run -p "$work/npm.ini" -- mkdir "$work/prefix/lib/node_modules/pkg"
is "$status:$err" "0:" "the fix line applied: it passes"

# npm -g itself: a local package installed into a read-only prefix
if command -v npm >/dev/null 2>&1; then
    mkdir -p "$work/pkg" "$work/npm-prefix"
    printf '{"name":"sbx-demo","version":"1.0.0","bin":{"sbx-demo":"x.js"}}\n' >"$work/pkg/package.json"
    printf '#!/usr/bin/env node\nconsole.log("demo")\n' >"$work/pkg/x.js"
    npm_g() { run_sbx run ${1:+-p "$1"} -- npm install -g --offline --no-audit --no-fund --install-links \
        --prefix "$work/npm-prefix" --cache "$work/proj/.npm-cache" "$work/pkg"; }
    npm_g
    like "$status:$err" "write refused: mkdir $work/npm-prefix/lib (EROFS" "npm install -g: the refused mkdir named"
    like "$err" "fix: [filesystem] rw = $work/npm-prefix   (review" "... with the prefix's rw line"
    printf '[profile]\ninclude = default\n[filesystem]\nrw = %s/npm-prefix\n' "$work" >"$work/npm-g.ini"
    npm_g "$work/npm-g.ini"
    is "$status:$([ -e "$work/npm-prefix/lib/node_modules/sbx-demo/package.json" ] && echo installed)" "0:installed" \
        "the fix line applied: npm install -g passes"
else
    for i in 1 2 3; do skip "npm is not installed (apt-get install npm): the npm -g case"; done
fi

# A tool's cache below HOME the host runs code from: a private layer
run_sbx run -- touch "$HOME/.npm/x"
like "$err" "write refused: openat $HOME/.npm/x (EROFS" "a cache write below HOME named"
like "$err" "fix: [filesystem] cache = \${HOME}/.npm   (safe: the writes go to a private layer" \
    "a cache line, relative to HOME, safe"
printf '[profile]\ninclude = default\n[filesystem]\ncache = ${HOME}/.npm\n' >"$work/cache.ini"
run_sbx run -p "$work/cache.ini" -- touch "$HOME/.npm/x"
is "$status:$err" "0:" "the cache line applied: it passes"
[ ! -e "$HOME/.npm/x" ]; ok $? "... and the host's directory is untouched"

# ~/.ssh: a protected path, never called safe
mkdir -p "$HOME/.ssh" && : >"$HOME/.ssh/authorized_keys"
run_sbx run --report ssh.json -- sh -c "echo key >>'$HOME/.ssh/authorized_keys'"
is "$(jq -r '.refusals.writes[0].fix | [.line, (.safe|tostring)] | join("|")' ssh.json)" \
    "unprotect = \${HOME}/.ssh/authorized_keys|false" "~/.ssh/authorized_keys: unprotect, not safe"
like "$(jq -r '.refusals.writes[0].fix.why' ssh.json)" "who may log in as you" "... saying why"

# observe_writes = no: nothing observed, said in the record
printf '[profile]\ninclude = default\n[filesystem]\nobserve_writes = no\n' >"$work/quiet.ini"
run_sbx run -p "$work/quiet.ini" --report q.json -- sh -c "echo x >'$work/outside/g'"
unlike "$err" "write refused" "observe_writes = no: no summary"
is "$(jq -r '.refusals.observed' q.json)" "false" "... and the record says the run was not observed"

# Deny rules hold the listener: the observer's calls ride with them
run_sbx run -p deny-network -- sh -c "echo x >'$work/outside/h'"
like "$err" "write refused: openat $work/outside/h (EROFS" "with deny rules too (deny-network)"

# Writes that succeed are not reported
run_sbx run -- sh -c 'echo x >inside && mkdir -p d/e && mv inside d/e/ && rm -r d'
is "$status:$err" "0:" "writes to writable places: nothing reported"

# The attacks on the supervisor's read of the path
run_sbx run -- "$probe" unterminated
is "$status:$out" "0:unterminated=EFAULT" "a path running into an unmapped page: the kernel's EFAULT, sbx unharmed"
run_sbx run -- "$probe" long "$work/outside"
is "$status:$out" "0:long=ENAMETOOLONG" "a path longer than PATH_MAX: ENAMETOOLONG"
run_sbx run -- "$probe" badptr
is "$status:$out" "0:badptr=EFAULT" "a path at an unmapped address: EFAULT"
# a symlink planted to lead the supervisor out of the sandbox: resolved
# inside its root, never followed through /proc's magic links
ln -s /proc/1/root/etc magic && ln -s /etc absolute
run_sbx run --report esc.json -- sh -c 'echo x >magic/sbx-x; echo x >/proc/self/root/etc/sbx-y; echo x >absolute/sbx-z; exit 0'
is "$status" 0 "planted symlinks: the run completes"
is "$(jq -r '[.refusals.writes[].path] | join(" ")' esc.json)" "/etc/sbx-z" \
    "the supervisor follows no magic link (/proc/PID/root); an absolute symlink is resolved inside the sandbox's root, and named canonical"
rm -f magic absolute
# the path flipped by another thread between a read-only and a writable
# place while the supervisor judges it: the kernel decides every create
mkdir -p rw
run_sbx run -- "$probe" race "$work/outside" "$work/proj/rw" 3000
like "$out" "race ro_exists=0" "a racing path change never creates the file in the read-only place"
like "$out" "race created=yes refused=yes" "both targets were reached (the race ran)"
[ ! -e "$work/outside/x" ]; ok $? "... and nothing is on the host's read-only directory"
# a flood of distinct refusals: bounded rows, exact total
run_sbx run --report many.json -- "$probe" many "$work/outside" 2000
is "$out" "many erofs=2000" "2000 refused creates"
is "$(jq -r '[.refusals.total, (.refusals.writes | length), .refusals.unlisted] | map(tostring) | join(" ")' many.json)" \
    "2000 32 1968" "counted exactly, 32 rows kept"
like "$err" "and more refused writes (see --report)" "the summary stays short"
done_testing
