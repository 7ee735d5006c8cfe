#!/bin/sh
# sbx hook claude-code (and codex, at the end), fed the tool-call JSON Claude Code sends a
# PreToolUse hook (session_id, transcript_path, cwd, permission_mode,
# hook_event_name, tool_name, tool_input, tool_use_id), for real tool calls:
# what it decides (hookSpecificOutput.permissionDecision), and what the
# rewritten command (updatedInput.command) runs when the harness runs it:
# the test command, in the directory the line cd's to, inside sbx's qa
# sandbox. Test runners are stand-ins on PATH that say where they run.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

command -v jq >/dev/null 2>&1 ||
    { skip "jq is not installed (apt-get install jq): the test reads the hook's JSON with it"; done_testing; }

make_build_tmpdir hook-claude
work=$tmpdir
# The stand-ins live in the project: the sandbox sees its working
# directory, wherever the build tree is.
mkdir -p "$work/project/.bin" "$work/project/backend" "$work/project/my dir"
ln -s "$work/project/.bin" "$work/bin"
ln -s "$SBX" "$work/bin/sbx"
for tool in cargo npm go pytest; do
    printf '#!/bin/sh\necho "%s $* in ${PWD##*/} under ${SBX_PROFILE:-no sandbox} X=${X:-}"\n' "$tool" >"$work/bin/$tool"
    chmod +x "$work/bin/$tool"
done
PATH=$work/project/.bin:$PATH
export PATH

# call COMMAND [TOOL]: the JSON of one tool call.
call() {
    jq -n --arg c "$1" --arg t "${2:-Bash}" --arg cwd "$work/project" '{
        session_id: "abc123", transcript_path: "/home/u/.claude/projects/p/abc123.jsonl",
        cwd: $cwd, permission_mode: "default", hook_event_name: "PreToolUse",
        tool_name: $t, tool_use_id: "toolu_01",
        tool_input: { command: $c, description: "Run the tests", timeout: 120000 } }'
}

# decide LINE WANT [OUTPUT]: the decision for LINE is WANT (allow, ask,
# none); the rewritten command, run as the Bash tool runs it (by a shell,
# in the cwd), prints OUTPUT.
decide() {
    out=$(call "$1" | (cd "$work/project" && sbx hook claude-code))
    st=$?
    if [ "$2" = none ]; then
        is "$st:$out" "0:" "[$1]: no decision, left to Claude Code"
        return
    fi
    got=$(printf '%s' "$out" | jq -r '.hookSpecificOutput | [.hookEventName, .permissionDecision] | join(" ")')
    is "$got" "PreToolUse $2" "[$1]: $2"
    new=$(printf '%s' "$out" | jq -r '.hookSpecificOutput.updatedInput.command')
    like "$new" "sbx run --profile qa -- sh -c " "[$1]: the command runs through sbx"
    keep=$(printf '%s' "$out" | jq -r '.hookSpecificOutput.updatedInput | [.description, (.timeout|tostring)] | join(" ")')
    is "$keep" "Run the tests 120000" "[$1]: the rest of the tool input is kept"
    if [ -n "${3:-}" ]; then
        ran=$(cd "$work/project" && sh -c "$new" 2>&1)
        like "$ran" "$3" "[$1]: runs '$3'"
    fi
}

decide 'cargo test' allow 'cargo test in project under qa'
decide 'cd backend && cargo test --workspace' allow 'cargo test --workspace in backend under qa'
decide "cd 'my dir' && go test ./..." allow 'go test ./... in my dir under qa'
decide 'X=1 npm test 2>&1 | tail -n 5' allow 'npm test in project under qa X=1'
decide "pytest -k 'net and not slow'" allow 'pytest -k net and not slow in project under qa'
decide 'npm run test:unit; echo "exit $?"' allow 'exit 0'
decide 'cargo build && cargo test' ask 'cargo test in project under qa'
decide 'go test ./... > log.txt' ask
decide 'git status' none
decide 'npm install' none
decide "echo 'cargo test'" none
decide 'sbx run -p qa -- cargo test' none

# Not the Bash tool: not ours.
out=$(call 'cargo test' Write | sbx hook claude-code)
is "$?:$out" "0:" "another tool's call gets no decision"

# The sandbox-disabling parameter is dropped: sbx is the sandbox.
out=$(call 'cargo test' | jq '.tool_input.dangerouslyDisableSandbox = true' | sbx hook claude-code)
is "$(printf '%s' "$out" | jq -r '.hookSpecificOutput.updatedInput | has("dangerouslyDisableSandbox")')" false \
    "dangerouslyDisableSandbox is dropped from a test command's input"

# --audit: one simple command keeps the runner's argv.
out=$(call 'go test ./...' | sbx hook claude-code --audit)
is "$(printf '%s' "$out" | jq -r '.hookSpecificOutput.updatedInput.command')" \
    "sbx audit --profile qa -- go test ./..." "--audit: sbx audit of the runner's own argv"

# Bad input: exit 1 (Claude Code shows stderr and goes on), never a crash.
out=$(printf 'not json' | sbx hook claude-code 2>&1)
is "$?" 1 "input that is not JSON: exit 1"
like "$out" "not a JSON object" "and says so"
head -c 1100000 /dev/zero | tr '\0' ' ' | sbx hook claude-code >/dev/null 2>&1
is "$?" 1 "an input over 1 MiB is refused"
out=$(printf '{"tool_name":"Bash","tool_input":{"command":"cargo test\\u0000; rm -rf ~"}}' | sbx hook claude-code)
is "$?:$out" "0:" "a command with a NUL inside gets no decision"
sbx hook gemini </dev/null >/dev/null 2>&1
is "$?" 125 "an unknown harness is a usage error (125)"

# Codex CLI: the same wire format (its input has turn_id and model too);
# it takes updatedInput only with "allow" and refuses "ask", so a line that
# does more than run tests gets no decision there.
codex_call() {
    jq -n --arg c "$1" --arg cwd "$work/project" '{
        session_id: "0199a", turn_id: "t1", transcript_path: null, cwd: $cwd,
        hook_event_name: "PreToolUse", model: "gpt-5", permission_mode: "default",
        tool_name: "Bash", tool_use_id: "call_1", tool_input: { command: $c } }'
}
out=$(codex_call 'cd backend && go test ./...' | sbx hook codex)
is "$(printf '%s' "$out" | jq -r '.hookSpecificOutput | [.permissionDecision, .updatedInput.command] | join(" | ")')" \
    "allow | sbx run --profile qa -- sh -c 'cd backend && go test ./...'" "Codex: a test line: allow, with the sbx line"
ran=$(cd "$work/project" && sh -c "$(printf '%s' "$out" | jq -r '.hookSpecificOutput.updatedInput.command')" 2>&1)
like "$ran" "go test ./... in backend under qa" "Codex: the rewritten line runs the test in sbx"
out=$(codex_call 'cargo build && cargo test' | sbx hook codex)
is "$?:$out" "0:" "Codex: a line that does more gets no decision (Codex has no ask)"
out=$(codex_call 'git push' | sbx hook codex)
is "$?:$out" "0:" "Codex: a command that is not a test gets no decision"

done_testing
