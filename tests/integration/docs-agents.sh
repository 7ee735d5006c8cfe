#!/bin/sh
# docs/agents.md: every sbx command the guide shows is run here, against
# the build tree's sbx, and must end as the guide says.
#
# The ```sh test blocks run in order, in one scratch project directory.
# A line that starts with "sbx " is a checked command; its trailing comment
# may hold "exit N" (default 0) and "quoted text" its output must contain;
# a trailing "< FILE" is its standard input (else /dev/null), "> FILE"
# where its standard output goes.
# Other lines (cat > file <<'EOF' ...) run as they are. An sbx command in
# any other block (yaml, markdown) must appear word for word in a test
# block, so no command is shown that is not run.
#
# A command whose feature is not in this build yet (sbx says "... is not
# available in this build yet") is a SKIP naming it: CI counts every skip
# as a failure, so the list of pending commands is the list of skips.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

guide=$SBX_TOP_SRCDIR/docs/agents.md

# Preferably outside /tmp, where a project is rarely kept (the shipped
# profiles put a tmpfs on /tmp); the build tree may belong to another user
# when a copy of it is checked, hence the fallbacks.
work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/docs-agents.XXXXXX" 2>/dev/null ||
       mktemp -d "$PWD/docs-agents.XXXXXX" 2>/dev/null ||
       mktemp -d "${TMPDIR:-/tmp}/docs-agents.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin" "$work/project"
# `sbx` on PATH is the build tree's (a symlink keeps /proc/self/exe, so it
# still finds the source tree's profiles).
ln -s "$SBX" "$work/bin/sbx"

# The stand-in for a project's test suite that the guide's `make check` runs.
printf 'check:\n\t@echo "suite passed"\n' >"$work/project/Makefile"

# --- extract ----------------------------------------------------------------
# Test blocks become one script: checked commands turn into
#   doc_cmd LINE EXIT 'text'... -- sbx ARGS
awk -v q="'" -v tested="$work/tested.txt" '
    function flush_expect(comment,    rest, n, out, s, e) {
        out = ""
        rest = comment
        while (match(rest, /"[^"]*"/)) {
            s = substr(rest, RSTART + 1, RLENGTH - 2)
            out = out " " q s q
            rest = substr(rest, RSTART + RLENGTH)
        }
        return out
    }
    /^```/ {
        if (!inblock) { inblock = 1; testblock = ($0 ~ /^```sh test[ \t]*$/); next }
        inblock = 0; testblock = 0; next
    }
    !testblock { next }
    heredoc != "" { print; if ($0 == heredoc) heredoc = ""; next }
    /<<.?EOF/ { heredoc = "EOF"; print; next }
    /^sbx / {
        cmd = $0; comment = ""
        i = index(cmd, " #")
        if (i) { comment = substr(cmd, i + 2); cmd = substr(cmd, 1, i - 1) }
        sub(/[ \t]+$/, "", cmd)
        status = 0
        if (match(comment, /exit [0-9]+/)) status = substr(comment, RSTART + 5, RLENGTH - 5)
        # A trailing "< FILE" is the stdin of the command (else /dev/null),
        # "> FILE" where its standard output goes (as well as checked).
        input = "/dev/null"; output = "-"; run = cmd
        if (match(run, / > [^ <>|;&]+$/)) { output = substr(run, RSTART + 3); run = substr(run, 1, RSTART - 1) }
        if (match(run, / < [^ <>|;&]+$/)) { input = substr(run, RSTART + 3); run = substr(run, 1, RSTART - 1) }
        printf "doc_cmd %d %s %s %s%s -- %s\n", NR, status, input, output, flush_expect(comment), run
        print cmd > tested
        next
    }
    { print }
' "$guide" >"$work/guide-tests.sh"

# Every sbx command of the guide's other blocks (yaml "run: sbx ...",
# "- sbx ...", an indented command in markdown).
awk '
    /^```/ {
        if (!inblock) { inblock = 1; kind = substr($0, 4); next }
        inblock = 0; next
    }
    inblock && kind !~ /^sh test/ && kind != "json" && kind != "toml" {
        line = $0
        sub(/^[ \t]*(- )?(run: )?/, "", line)
        if (line ~ /^sbx (run|audit|probe|profile|help|hook|explain)( |$)/) print NR ": " line
    }
' "$guide" >"$work/shown.txt"

ncmds=$(grep -c '^doc_cmd ' "$work/guide-tests.sh")
[ "$ncmds" -ge 15 ]
ok $? "found the guide's checked commands ($ncmds)"
[ -s "$work/shown.txt" ]
ok $? "found the sbx commands of the guide's yaml and markdown blocks"
while IFS= read -r shown; do
    cmd=${shown#*: }
    if grep -qxF -- "$cmd" "$work/tested.txt"; then
        pass "agents.md:${shown%%:*}: '$cmd' is run by a test block"
    else
        fail "agents.md:${shown%%:*}: '$cmd' is shown but no test block runs it"
    fi
done <"$work/shown.txt"

# Every ```json block (the settings files the guide tells you to write)
# is JSON, and the Claude Code settings name the hook the test runs.
awk -v dir="$work" '
    /^```/ {
        if (!inblock) { inblock = 1; n += (substr($0, 4) == "json"); json = (substr($0, 4) == "json"); next }
        inblock = 0; json = 0; next
    }
    json { print > (dir "/block" n ".json") }
' "$guide"
for f in "$work"/block*.json; do
    [ -e "$f" ] || { fail "agents.md has json blocks"; break; }
    if command -v jq >/dev/null 2>&1; then
        jq empty "$f" 2>/dev/null
        ok $? "agents.md: json block ${f##*/block} parses"
    else
        skip "jq is not installed (apt-get install jq): the guide's json blocks are not checked"
    fi
done
if command -v jq >/dev/null 2>&1; then
    hooks=$(cat "$work"/block*.json | jq -r '.hooks.PreToolUse[]?.hooks[]?.command' 2>/dev/null)
    like "$hooks" "sbx hook claude-code" "agents.md: the settings run the hook this guide tests"
    # What the hook writes is what the same settings let run without a
    # prompt (permissions.allow, Bash(PATTERN): * any words) and outside
    # Claude's sandbox (sandbox.excludedCommands): with and without --audit,
    # a lone test command and a chain.
    settings=$(cat "$work"/block*.json | jq -c 'select(.hooks.PreToolUse)' 2>/dev/null)
    allow=$(printf '%s' "$settings" | jq -r '.permissions.allow[]' | sed -n 's/^Bash(\(.*\))$/\1/p')
    excluded=$(printf '%s' "$settings" | jq -r '.sandbox.excludedCommands[]')
    # matches_any PATTERNS CMD: yes when a line of PATTERNS, a glob, matches
    matches_any() {
        printf '%s\n' "$1" | while IFS= read -r pat; do
            # shellcheck disable=SC2254 # the settings' pattern, as a glob
            case $2 in $pat) echo yes; break ;; esac
        done
    }
    for hook in "sbx hook claude-code" "sbx hook claude-code --audit"; do
        for line in "cargo test" "cd . && make check"; do
            call=$(jq -nc --arg c "$line" '{hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {command: $c}}')
            cmd=$(printf '%s' "$call" | "$SBX" ${hook#sbx } | jq -r '.hookSpecificOutput.updatedInput.command')
            is "$(matches_any "$allow" "$cmd")" yes "agents.md: '$hook' writes '$cmd', which the settings' permissions.allow lets run"
            is "$(matches_any "$excluded" "$cmd")" yes "agents.md: and sandbox.excludedCommands takes out of Claude's sandbox"
        done
    done
fi

# --- run --------------------------------------------------------------------
if ! command -v python3 >/dev/null 2>&1; then
    skip "python3 is not installed (apt-get install python3): the guide's walkthrough runs a Python test"
    done_testing
fi

# doc_cmd LINE EXIT STDIN STDOUT [TEXT...] -- COMMAND...
doc_cmd() {
    _line=$1 _want=$2 _stdin=$3 _stdout=$4
    shift 4
    _texts=
    while [ "$1" != -- ]; do
        _texts="$_texts$1
"
        shift
    done
    shift
    _desc="agents.md:$_line: $*"
    _o=$(mktemp)
    if [ "$_stdout" = - ]; then
        "$@" <"$_stdin" >"$_o" 2>&1
        _status=$?
    else
        "$@" <"$_stdin" >"$_stdout" 2>"$_o"
        _status=$?
        cat "$_stdout" >>"$_o"
    fi
    _out=$(cat "$_o")
    rm -f "$_o"
    case $_out in
        *"is not available in this build yet"*)
            skip "$_desc: pending, its feature is not in this build yet"
            return ;;
    esac
    _bad=
    [ "$_status" = "$_want" ] || _bad="exit $_status, the guide says $_want"
    _rest=$_texts
    while [ -n "$_rest" ]; do
        _t=${_rest%%
*}
        _rest=${_rest#*
}
        case $_out in
            *"$_t"*) ;;
            *) _bad="${_bad:+$_bad; }no '$_t' in the output" ;;
        esac
    done
    if [ -z "$_bad" ]; then
        pass "$_desc"
    else
        fail "$_desc ($_bad)"
        diag "$_out"
    fi
}

cd "$work/project" || exit 1
PATH="$work/bin:$PATH"
export PATH
. "$work/guide-tests.sh"
cd / || exit 1

done_testing
