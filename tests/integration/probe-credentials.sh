#!/bin/sh
# sbx probe's credentials check (issue 14 item 11), against a fake $HOME
# with planted credentials: outside a sandbox the probe lists them (so the
# check can fail), under --profile default none of the stores default
# hides is listed, a credential at an unusual name is found by its
# content both ways, the working directory is walked under --profile too,
# no secret byte is ever printed, and the walk's bounds hold.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

make_visible_tmpdir probe-cred
home=$tmpdir/home work=$tmpdir/work
mkdir -p "$home/.config/gh" "$home/.kube" "$home/.ssh" "$home/.cargo" "$home/notes" "$work"
secret=npm_FAKEtoken7f3a9c
printf '//registry.npmjs.org/:_authToken=%s\n' "$secret" >"$home/.npmrc"
printf 'github.com:\n    oauth_token: gho_FAKE%s\n' "$secret" >"$home/.config/gh/hosts.yml"
printf '[registry]\ntoken = "%s"\n' "$secret" >"$home/.cargo/credentials.toml"
printf 'apiVersion: v1\n' >"$home/.kube/config"
printf 'https://u:%s@github.com\n' "$secret" >"$home/.git-credentials"
printf 'export GITHUB_TOKEN=%s\n' "$secret" >"$home/.bash_history"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n' "$secret" \
    >"$home/.ssh/id_ed25519"
# unusual names: only their content says what they are
printf 'old laptop\n-----BEGIN RSA PRIVATE KEY-----\n%s\n' "$secret" >"$home/notes/backup-2019.txt"
printf 'REGISTRY=x\nTOKEN_LINE=//r/:_authToken=%s\n' "$secret" >"$work/deploy.conf"
printf 'nothing secret here\n' >"$work/README.txt"
hidden="$home/.npmrc $home/.config/gh/hosts.yml $home/.cargo/credentials.toml $home/.kube/config $home/.git-credentials $home/.bash_history $home/.ssh"

cd "$work" || exit 1
probe_json() { # probe_json ARGS...: sbx probe --json ARGS under the fake $HOME, into $j
    HOME=$home "$SBX" probe --json "$@" </dev/null >"$tmpdir/p.json" 2>"$tmpdir/p.err"
    j=$tmpdir/p.json
}
hit() { jq -r --arg p "$1" '.credentials.hits[] | select(.path == $p) | .why' "$j"; }

# --- outside: what a command run without sbx reads
probe_json
is "$(jq -r .checks.credentials.status "$j")" exposed "outside: the check says exposed"
missing=
for p in $hidden; do [ -n "$(hit "$p")" ] || missing="$missing $p"; done
is "$missing" "" "outside: every planted store is listed (the test can fail)"
is "$(hit "$home/.npmrc")" "name: npm config (auth tokens)" "outside: a hit says why (the known name)"
is "$(hit "$home/notes/backup-2019.txt")" "content: a private key" \
    "outside: a key at an unusual name is found by its content"
is "$(hit "$work/deploy.conf")" "content: an npm auth token" "outside: the working directory is walked"
is "$(hit "$work/README.txt")" "" "outside: an ordinary file is no hit"
is "$(jq -r .checks.credentials.value "$j")" "$(jq -r '.credentials.hits | length' "$j")" \
    "outside: the check's value is the number of hits"
if is_root; then
    is "$(hit /etc/shadow)" "name: password hashes" "outside, as root: /etc/shadow is listed"
else
    is "$(hit /etc/shadow)" "" "outside, as uid $(id -u): /etc/shadow is not readable, not listed"
fi
grep -q "$secret" "$j"
isnt $? 0 "outside: no byte of a secret in the JSON"
HOME=$home "$SBX" probe --tap </dev/null >"$tmpdir/p.tap" 2>/dev/null
grep -q "^# $home/.npmrc: name: npm config" "$tmpdir/p.tap"
ok $? "outside --tap: each hit is a diagnostic line"
grep -q "^not ok [0-9]* - credentials: exposed" "$tmpdir/p.tap"
ok $? "outside --tap: the credentials test is not ok"
HOME=$home "$SBX" probe </dev/null >"$tmpdir/p.txt" 2>/dev/null
grep -q "^  $home/.git-credentials: name: git credential store" "$tmpdir/p.txt"
ok $? "outside table: the hits are listed, path: why"
grep -q "$secret" "$tmpdir/p.tap" "$tmpdir/p.txt"
isnt $? 0 "outside --tap and table: no byte of a secret"

# --- inside: what each shipped profile leaves
for prof in default qa qa-session devbackend-session; do
    probe_json --profile "$prof"
    listed=
    for p in $hidden /etc/shadow /etc/gshadow; do [ -z "$(hit "$p")" ] || listed="$listed $p"; done
    is "$listed" "" "--profile $prof: none of the stores it hides is listed"
    is "$(hit "$home/notes/backup-2019.txt")" "content: a private key" \
        "--profile $prof: the key at an unusual name is still found by content"
done
probe_json --profile default
is "$(hit "$work/deploy.conf")" "content: an npm auth token" \
    "--profile default: the caller's working directory is walked (the inner probe starts in /)"
is "$(jq -r .checks.credentials.status "$j")" exposed "--profile default: exposed while one is readable"
rm "$home/notes/backup-2019.txt" "$work/deploy.conf"
probe_json --profile default
is "$(jq -r '.checks.credentials.status + "/" + (.checks.credentials.value | tostring)' "$j")" ok/0 \
    "--profile default: ok, 0 once nothing readable is left"
probe_json
is "$(hit "$home/.npmrc")" "name: npm config (auth tokens)" "... while outside the stores are still listed"

# --- every ${HOME} store default.ini hides: seen outside, hidden inside
# Each is planted as a small file holding a marker, so the walk finds it
# outside whatever the known-stores list says; inside, default hides it.
home2=$tmpdir/home2
# (the table behind default's `hide? = @credential-stores`, as
# `sbx profile show` prints it; paths may hold a blank)
paths=$(HOME=/nonexistent "$SBX" profile show default | sed -n 's|^hide? = \${HOME}/\(.*[^ ]\) *; (= .*|\1|p')
IFS='
'
for p in $paths; do
    mkdir -p "$(dirname "$home2/$p")" && printf 'oauth_token: %s\n' "$secret" >"$home2/$p"
done
HOME=$home2 "$SBX" probe --json </dev/null >"$tmpdir/h2.json" 2>/dev/null
HOME=$home2 "$SBX" probe --profile default --json </dev/null >"$tmpdir/h2in.json" 2>/dev/null
unseen= shown=
IFS='
'
for p in $paths; do
    jq -e --arg p "$home2/$p" '.credentials.hits | any(.path == $p)' "$tmpdir/h2.json" >/dev/null || unseen="$unseen $p"
    jq -e --arg p "$home2/$p" '.credentials.hits | any(.path == $p)' "$tmpdir/h2in.json" >/dev/null && shown="$shown $p"
done
unset IFS
[ "$(printf '%s\n' "$paths" | wc -l)" -ge 100 ]
ok $? "default hides at least 100 stores under \${HOME} ($(printf '%s\n' "$paths" | wc -l))"
is "$unseen" "" "outside, the probe lists every one of them (the test can fail)"
is "$shown" "" "--profile default lists none of them"

# --- bounds: a tree wider than the walk may look at
mkdir "$work/wide"
i=0
while [ $i -lt 60 ]; do
    mkdir "$work/wide/d$i" && (cd "$work/wide/d$i" && seq 1 100 | sed 's/^/f/' | xargs touch)
    i=$((i + 1))
done
start=$(date +%s%N)
probe_json
took=$((($(date +%s%N) - start) / 1000000))
is "$(jq -r .credentials.complete "$j")/$(jq -r .credentials.stopped_by "$j")" "false/5000 entries looked at" \
    "6000 files: the walk stops at 5000 entries and says so"
like "$(jq -r .checks.credentials.detail "$j")" "more may be readable" "the detail says the list may be incomplete"
is "$(hit "$home/.npmrc")" "name: npm config (auth tokens)" "known stores are checked whatever the walk reaches"
[ "$took" -lt 5000 ]
ok $? "the whole probe took ${took} ms (< 5 s)"

# --- the walk does not follow symlinks
rm -rf "$work/wide"
mkdir "$tmpdir/elsewhere" && printf 'oauth_token: %s\n' "$secret" >"$tmpdir/elsewhere/t.yml"
ln -s "$tmpdir/elsewhere" "$work/link"
ln -s "$work" "$work/loop"
probe_json
is "$(hit "$work/link/t.yml")" "" "a symlinked directory is not entered"
is "$(jq -r .credentials.complete "$j")" true "a symlink loop does not stall the walk"

done_testing
