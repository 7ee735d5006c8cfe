#!/bin/sh
# The agents' sandboxes, side by side (issue 19): tests/helpers/agent-battery
# runs under each real tool (Codex CLI in its three modes, Claude Code's
# sandbox-runtime with the settings Claude Code gives it by default) and
# under the sbx profile that
# reproduces it; the two outputs must agree on every row, except the rows
# the profile's header lists as known differences ("# differs: KEY: why",
# "# differs as root: KEY: why" for a root caller only). A listed row that
# no longer differs fails too, so the list cannot drift from the truth.
#
# The tools are the versions the headers name ("# Checked against: PACKAGE
# VERSION"), from npm, in $SBX_AGENT_TOOLS (.ci/run installs them there)
# or else installed by this test into the build tree. When npm cannot
# reach the registry the test fails and says so: it never skips.
#
# That the comparison can fail is shown first: the battery outside any
# sandbox, and under the default profile, differs from each tool.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

profiles="codex-read-only codex-workspace-write codex-workspace-write-network claude-code"
plan 24
battery="$SBX_TEST_HELPERS/agent-battery"
tools=${SBX_AGENT_TOOLS:-$SBX_TOP_BUILDDIR/tests/agent-tools}
# LeakSanitizer stops the world with ptrace, which Codex's filter refuses
export ASAN_OPTIONS=detect_leaks=0
unset TMPDIR

header() { cat "$SBX_TOP_SRCDIR/profiles/$1.ini"; }
# PACKAGE@VERSION from a profile's header
pinned() { header "$1" | sed -n 's/^# Checked against: \([^ ]*\) \([^ ]*\)$/\1@\2/p'; }
installed_version() { # PACKAGE: the version under $tools, or nothing
    sed -n 's/^  "version": "\(.*\)",$/\1/p' "$tools/node_modules/$1/package.json" 2>/dev/null
}

# --- the tools ------------------------------------------------------------------
missing=
for cmd in bwrap socat rg npm; do
    command -v $cmd >/dev/null 2>&1 || missing="$missing $cmd"
done
if [ -n "$missing" ]; then
    fail "the real tools need:$missing (Debian: bubblewrap socat ripgrep npm)"
    exit 1
fi
wanted=$(for p in $profiles; do pinned $p; done | sort -u)
need=
for w in $wanted; do
    [ "$(installed_version "${w%@*}")" = "${w##*@}" ] || need="$need $w"
done
if [ -n "$need" ]; then
    mkdir -p "$tools"
    if ! npm install --prefix "$tools" --no-audit --no-fund --no-save $need >"$tools/npm.log" 2>&1; then
        fail "npm install$need into $tools failed (is the registry reachable? $(npm config get registry 2>/dev/null)):"
        sed 's/^/# /' "$tools/npm.log" | tail -15
        exit 1
    fi
fi
codex="$tools/node_modules/.bin/codex"
srt="$tools/node_modules/.bin/srt"
for w in $wanted; do
    is "$(installed_version "${w%@*}")" "${w##*@}" "${w%@*} ${w##*@}, the version the profiles were checked against, is installed"
done

# --- the place: not under /tmp, which Codex's workspace-write makes writable,
# where Codex refuses to put its helpers ("Refusing to create helper
# binaries under temporary dir"), and where sbx's codex-workspace-write
# shows a tmpfs: a build tree under /tmp has the battery copied out of it.
make_visible_tmpdir agents-battery
base=$tmpdir
trap 'rm -rf "$base"' EXIT
chmod 755 "$base"
mkdir -p "$base/work/.git" "$base/home/.ssh" "$base/codex-home" "$base/bin"
cp "$battery" "$base/bin/agent-battery" || exit 1
battery=$base/bin/agent-battery
echo "not a key" >"$base/home/.ssh/id_battery"
export HOME="$base/home" CODEX_HOME="$base/codex-home"
# a file in the caller's /tmp, which a sandbox that shares it shows
SBX_BATTERY_TMP_MARKER=$(mktemp /tmp/agents-battery.XXXXXX) || exit 1
export SBX_BATTERY_TMP_MARKER
trap 'rm -rf "$base" "$SBX_BATTERY_TMP_MARKER"' EXIT
# What Claude Code gives srt when sandboxing is on and nothing is set (its
# documentation: the working directory writable, no domain allowed until
# the user approves one): profiles/claude-code.ini reproduces that, not
# srt without settings, where nothing is writable.
printf '{"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]}}\n' \
    >"$base/claude-code-settings.json"
# Claude Code makes its TMPDIR, /tmp/claude, which srt then makes writable
# ("write $TMPDIR: ok"); removed at the end if this test made it.
made_claude_tmp=
mkdir /tmp/claude 2>/dev/null && made_claude_tmp=/tmp/claude
trap 'rm -rf "$base" "$SBX_BATTERY_TMP_MARKER"; [ -z "$made_claude_tmp" ] || rm -rf "$made_claude_tmp"' EXIT
cd "$base/work" || exit 1

# real_run PROFILE: the battery under the tool the profile reproduces
real_run() {
    case $1 in
        codex-read-only) timeout 120 "$codex" sandbox -c 'sandbox_mode="read-only"' -- "$battery" ;;
        codex-workspace-write) timeout 120 "$codex" sandbox -c 'sandbox_mode="workspace-write"' -- "$battery" ;;
        codex-workspace-write-network)
            timeout 120 "$codex" sandbox -c 'sandbox_mode="workspace-write"' \
                -c 'sandbox_workspace_write.network_access=true' -- "$battery" ;;
        claude-code) timeout 120 "$srt" --settings "$base/claude-code-settings.json" "$battery" ;;
    esac
}
keys() { sed 's/: .*//' "$1"; }
value() { sed -n "s/^$(printf '%s' "$2" | sed 's/[][\/.*^$]/\\&/g'): //p" "$1"; }
# the known differences that apply to this caller, one key a line
known() {
    header "$1" | sed -n 's/^# differs: //p'
    [ "$(id -u)" = 0 ] && header "$1" | sed -n 's/^# differs as root: //p'
}

# unexpected_rows REAL SBX KNOWN-KEYS: the rows whose values differ and
# whose key is not listed, as "KEY: REAL (real) / SBX (sbx)"
unexpected_rows() {
    while IFS= read -r line; do
        key=${line%%: *}
        real=$(value "$1" "$key") mine=$(value "$2" "$key")
        [ "$real" = "$mine" ] && continue
        grep -qxF "$key" "$3" && continue
        printf '%s: %s (real) / %s (sbx)\n' "$key" "$real" "$mine"
    done <"$base/host.out"
}
# stale_keys REAL SBX KNOWN-KEYS: the listed keys that name no row or
# whose values agree
stale_keys() {
    while IFS= read -r key; do
        if ! keys "$base/host.out" | grep -qxF "$key"; then
            printf '%s: no such row\n' "$key"
        elif [ "$(value "$1" "$key")" = "$(value "$2" "$key")" ]; then
            printf '%s: both say %s\n' "$key" "$(value "$2" "$key")"
        fi
    done <"$3"
}
# check_that STATUS DESCRIPTION [DIAGNOSTIC]: ok, with the diagnostic
# printed when it fails
check_that() {
    if [ "$1" = 0 ]; then pass "$2"; else fail "$2"; [ -n "${3:-}" ] && diag "$3"; fi
    return 0
}

"$battery" >"$base/host.out" 2>"$base/host.err"
rows=$(keys "$base/host.out" | wc -l)
[ "$rows" -ge 60 ] && [ "$(keys "$base/host.out" | sort -u | wc -l)" = "$rows" ]
check_that $? "the battery prints $rows rows, each key once" "$(cat "$base/host.out" "$base/host.err")"

for p in $profiles; do
    real_run $p >"$base/$p.real" 2>"$base/$p.real.err"
    st=$?
    [ $st = 0 ] && [ "$(keys "$base/$p.real")" = "$(keys "$base/host.out")" ]
    check_that $? "$p: the real tool ran the whole battery (exit $st)" "$(tail -5 "$base/$p.real.err")"
    "$SBX" run --profile "$p" -- "$battery" >"$base/$p.sbx" 2>"$base/$p.sbx.err"
    st=$?
    [ $st = 0 ] && [ "$(keys "$base/$p.sbx")" = "$(keys "$base/host.out")" ]
    check_that $? "$p: sbx ran the whole battery (exit $st)" "$(tail -5 "$base/$p.sbx.err")"
done

# The comparison can fail: outside a sandbox the battery differs from each
# tool, and under the default profile the row by row check below flags
# rows of codex read-only.
for p in $profiles; do
    ! cmp -s "$base/host.out" "$base/$p.real"
    check_that $? "$p: without a sandbox the battery differs from the real tool ($(diff "$base/host.out" "$base/$p.real" | grep -c '^<') rows)"
done
"$SBX" run --profile default -- "$battery" >"$base/default.sbx" 2>/dev/null
header codex-read-only | sed -n 's/^# differs: //p' | sed 's/: .*//' >"$base/default.known.keys"
n=$(unexpected_rows "$base/codex-read-only.real" "$base/default.sbx" "$base/default.known.keys" | wc -l)
[ "$n" -gt 5 ]
check_that $? "under the default profile the check flags $n rows of codex read-only (a wrong profile is caught)"

# --- row by row ---------------------------------------------------------------
for p in $profiles; do
    known $p | sed 's/: .*//' >"$base/$p.known.keys"
    unexpected=$(unexpected_rows "$base/$p.real" "$base/$p.sbx" "$base/$p.known.keys")
    [ -z "$unexpected" ]
    check_that $? "$p: every row agrees with the real tool, or is a known difference in the header" \
        "rows that differ and are not in profiles/$p.ini's header:
$unexpected"
    stale=$(stale_keys "$base/$p.real" "$base/$p.sbx" "$base/$p.known.keys")
    [ -z "$stale" ]
    check_that $? "$p: every known difference of the header still differs ($(wc -l <"$base/$p.known.keys") for uid $(id -u))" \
        "listed in profiles/$p.ini but not different (remove them):
$stale"
done

done_testing
