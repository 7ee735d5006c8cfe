#!/bin/sh
# The agents' sandboxes, side by side (issue 19): tests/helpers/agent-battery
# runs under each real tool (Codex CLI in its three modes, Claude Code's
# sandbox-runtime with its defaults) and under the sbx profile that
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

# --- the place: not under /tmp, which Codex's workspace-write makes writable ---
base=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/integration/agents-battery.XXXXXX")
trap 'rm -rf "$base"' EXIT
chmod 755 "$base"
mkdir -p "$base/work/.git" "$base/home/.ssh" "$base/codex-home"
echo "not a key" >"$base/home/.ssh/id_battery"
export HOME="$base/home" CODEX_HOME="$base/codex-home"
cd "$base/work" || exit 1

# real_run PROFILE: the battery under the tool the profile reproduces
real_run() {
    case $1 in
        codex-read-only) timeout 120 "$codex" sandbox -c 'sandbox_mode="read-only"' -- "$battery" ;;
        codex-workspace-write) timeout 120 "$codex" sandbox -c 'sandbox_mode="workspace-write"' -- "$battery" ;;
        codex-workspace-write-network)
            timeout 120 "$codex" sandbox -c 'sandbox_mode="workspace-write"' \
                -c 'sandbox_workspace_write.network_access=true' -- "$battery" ;;
        claude-code) timeout 120 "$srt" "$battery" ;;
    esac
}
keys() { sed 's/: .*//' "$1"; }
value() { sed -n "s/^$(printf '%s' "$2" | sed 's/[][\/.*^$]/\\&/g'): //p" "$1"; }
# the known differences that apply to this caller, one key a line
known() {
    header "$1" | sed -n 's/^# differs: //p'
    [ "$(id -u)" = 0 ] && header "$1" | sed -n 's/^# differs as root: //p'
}

"$battery" >"$base/host.out" 2>"$base/host.err"
rows=$(keys "$base/host.out" | wc -l)
[ "$rows" -ge 60 ] && [ "$(keys "$base/host.out" | sort -u | wc -l)" = "$rows" ]
ok $? "the battery prints $rows rows, each key once"

for p in $profiles; do
    real_run $p >"$base/$p.real" 2>"$base/$p.real.err"
    st=$?
    [ $st = 0 ] && [ "$(keys "$base/$p.real")" = "$(keys "$base/host.out")" ]
    ok $? "$p: the real tool ran the whole battery (exit $st)" ||
        { diag "stderr:"; diag "$(tail -5 "$base/$p.real.err")"; }
    "$SBX" run --profile "$p" -- "$battery" >"$base/$p.sbx" 2>"$base/$p.sbx.err"
    st=$?
    [ $st = 0 ] && [ "$(keys "$base/$p.sbx")" = "$(keys "$base/host.out")" ]
    ok $? "$p: sbx ran the whole battery (exit $st)" || diag "$(tail -5 "$base/$p.sbx.err")"
done

# The comparison can fail: outside a sandbox, and under default, rows the
# tools take away are there.
for p in $profiles; do
    if cmp -s "$base/host.out" "$base/$p.real"; then
        fail "$p: without a sandbox the battery differs from the real tool"
    else
        pass "$p: without a sandbox the battery differs from the real tool ($(diff "$base/host.out" "$base/$p.real" | grep -c '^<') rows)"
    fi
done
"$SBX" run --profile default -- "$battery" >"$base/default.sbx" 2>/dev/null
n=$(diff "$base/default.sbx" "$base/codex-read-only.real" | grep -c '^<')
[ "$n" -gt 5 ]
ok $? "under the default profile $n rows differ from codex read-only (so a wrong profile is caught)"

# --- row by row ---------------------------------------------------------------
for p in $profiles; do
    known $p | sed 's/: .*//' >"$base/$p.known.keys"
    unexpected=
    while IFS= read -r line; do
        key=${line%%: *}
        real=$(value "$base/$p.real" "$key") mine=$(value "$base/$p.sbx" "$key")
        [ "$real" = "$mine" ] && continue
        grep -qxF "$key" "$base/$p.known.keys" && continue
        unexpected="$unexpected
$key: $real (real) / $mine (sbx)"
    done <"$base/host.out"
    [ -z "$unexpected" ]
    ok $? "$p: every row agrees with the real tool, or is a known difference in the header" ||
        diag "rows that differ and are not in profiles/$p.ini's header:$unexpected"

    stale=
    while IFS= read -r key; do
        grep -q "^$(printf '%s' "$key" | sed 's/[][\/.*^$]/\\&/g'): " "$base/host.out" ||
            { stale="$stale
$key: no such row"; continue; }
        [ "$(value "$base/$p.real" "$key")" = "$(value "$base/$p.sbx" "$key")" ] &&
            stale="$stale
$key: both say $(value "$base/$p.sbx" "$key")"
    done <"$base/$p.known.keys"
    [ -z "$stale" ]
    ok $? "$p: every known difference of the header still differs ($(wc -l <"$base/$p.known.keys") for uid $(id -u))" ||
        diag "listed in profiles/$p.ini but not different (remove them):$stale"
done

done_testing
