#!/bin/sh
# docs/agents.md, section 3: the Codex CLI files as the guide writes them
# (the sandbox settings and the PreToolUse hook of ~/.codex/config.toml,
# ~/.codex/rules/sbx.rules), read from the guide and given to the real
# Codex CLI ($SBX_AGENT_TOOLS, the version agents-battery.sh pins). The
# model is a stand-in on the loopback (codex-model.py) that asks Codex's
# shell tool to run the project's tests: Codex runs the guide's hook, which
# rewrites the call to `sbx run --profile qa -- sh -c 'make check'`, and
# the guide's rule runs that outside Codex's sandbox, where sbx makes its
# own namespaces. Without the rule, the same line runs inside Codex's
# sandbox, where sbx gets no user namespace: the test can fail. The
# guide's `codex execpolicy check` command is run as its text gives it.
# Nothing leaves the machine.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
guide=$SBX_TOP_SRCDIR/docs/agents.md
codex=${SBX_AGENT_TOOLS:+$SBX_AGENT_TOOLS/node_modules/.bin/codex}
if [ -z "$codex" ] || [ ! -x "$codex" ]; then
    skip "Codex CLI is not installed: set SBX_AGENT_TOOLS (.ci/run and agents-battery.sh install it there)"
    done_testing
fi
plan 13
command -v python3 >/dev/null 2>&1 || { fail "python3 is needed (tests/debian-packages): the stand-in model"; exit 1; }
# LeakSanitizer stops the world with ptrace, which Codex's filter refuses
export ASAN_OPTIONS=detect_leaks=0
unset TMPDIR

# Not under /tmp: Codex refuses to put its helpers there (agents-battery.sh)
make_visible_tmpdir docs-agents-codex
chmod 755 "$tmpdir"
home=$tmpdir/home
mkdir -p "$home/.codex/rules" "$home/.local/bin" "$tmpdir/project"
# sbx installed where a user's own programs go: on PATH for the hook, and
# for the login shell Codex runs commands in (Debian's ~/.profile)
ln -s "$SBX" "$home/.local/bin/sbx"
cp /etc/skel/.profile "$home/.profile" 2>/dev/null ||
    printf 'PATH="$HOME/.local/bin:$PATH"\n' >"$home/.profile"
printf 'check:\n\t@echo "suite passed"\n' >"$tmpdir/project/Makefile"
(cd "$tmpdir/project" && git init -q .)

# The guide's section 3: its blocks of one language, in order.
section=$(sed -n '/^## 3\. Codex CLI/,/^## 4\./p' "$guide")
blocks() { printf '%s\n' "$section" | awk -v lang="$1" '/^```/ { if (inb) { inb = 0; next } inb = 1; keep = (substr($0, 4) == lang); next } inb && keep'; }
blocks toml >"$tmpdir/guide.toml"
blocks python >"$home/.codex/rules/sbx.rules"
grep -q 'command = "sbx hook codex"' "$tmpdir/guide.toml" && grep -q 'prefix_rule' "$home/.codex/rules/sbx.rules"
ok $? "the guide's config.toml blocks (the hook) and sbx.rules read"

# ~/.codex/config.toml: the stand-in model first (top-level keys), then the
# guide's blocks as they are, then the provider's table.
model_port() { cat "$tmpdir/model.port"; }
start_model() { # COMMAND: a stand-in that runs it through Codex's shell tool
    rm -f "$tmpdir/model.port"
    : >"$tmpdir/model.log"
    python3 "$SBX_TOP_SRCDIR/tests/integration/codex-model.py" "$tmpdir/model.port" "$tmpdir/model.log" "$1" &
    model=$!
    i=0
    while [ ! -s "$tmpdir/model.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    {
        echo 'model = "gpt-5"'
        echo 'model_provider = "standin"'
        echo 'approval_policy = "on-request"'
        cat "$tmpdir/guide.toml"
        echo '[model_providers.standin]'
        echo 'name = "stand-in"'
        echo "base_url = \"http://127.0.0.1:$(model_port)/v1\""
        echo 'wire_api = "responses"'
    } >"$home/.codex/config.toml"
}
trap 'kill $model 2>/dev/null; rm -rf "$tmpdir"' EXIT
# codex exec as a user would start it in the project; the hook trust that
# the TUI asks for is given on the command line (no one to ask here)
run_codex() {
    (cd "$tmpdir/project" && env HOME="$home" CODEX_HOME="$home/.codex" PATH="$home/.local/bin:$PATH" \
        timeout 120 "$codex" exec --skip-git-repo-check --dangerously-bypass-hook-trust "run the tests") \
        </dev/null >"$tmpdir/codex.out" 2>&1
    codex_status=$?
    kill $model 2>/dev/null
    wait $model 2>/dev/null
    # what Codex sent back to the model: the tool's output
    tool_output=$(grep -o '"function_call_output"[^}]*' "$tmpdir/model.log" | head -1)
}

start_model "make check"
run_codex
is "$codex_status" 0 "codex exec with the guide's configuration ends (exit 0)" || diag "$(tail -20 "$tmpdir/codex.out")"
like "$(cat "$tmpdir/codex.out")" "hook: PreToolUse Completed" "Codex ran the guide's PreToolUse hook (sbx hook codex)"
like "$(cat "$tmpdir/codex.out")" "sbx run --profile qa -- sh -c 'make check'" "the hook rewrote the model's 'make check' into the sbx line"
like "$tool_output" "suite passed" "the suite ran, and its output went back to the model"
# What sbx says inside Codex's sandbox: as root no user namespace (the
# Landlock tier), as another user a filter that refuses every socket.
in_codex_sandbox() {
    case $tool_output in
        *"user namespaces are refused here"* | *"sbx[landlock]"* | *"the filter of the sandbox sbx runs in refuses"*) echo inside ;;
        *) echo outside ;;
    esac
}
is "$(in_codex_sandbox)" outside "the guide's rule ran sbx outside Codex's sandbox: its own namespaces, a loopback"

# Without sbx.rules the same line runs inside Codex's sandbox.
mv "$home/.codex/rules/sbx.rules" "$tmpdir/sbx.rules"
start_model "make check"
run_codex
is "$(in_codex_sandbox)" inside "without the guide's rule, sbx runs inside Codex's sandbox: the rule is what takes it out" ||
    diag "$tool_output"
mv "$tmpdir/sbx.rules" "$home/.codex/rules/sbx.rules"

# The guide's own check, as its text writes it (one line joined, ~ the home).
check=$(printf '%s\n' "$section" | tr '\n' ' ' | grep -o '`codex execpolicy check [^`]*`' | head -1 | tr -d '`')
like "$check" "codex execpolicy check --rules ~/.codex/rules/sbx.rules sbx run --profile qa" "the guide's execpolicy command read"
out=$(cd "$tmpdir/project" && env HOME="$home" CODEX_HOME="$home/.codex" PATH="$(dirname "$codex"):$PATH" \
      sh -c "$check" 2>&1)
like "$out" '"decision":"allow"' "'$check' says allow"
out=$(env HOME="$home" CODEX_HOME="$home/.codex" "$codex" execpolicy check --rules "$home/.codex/rules/sbx.rules" \
      sbx run --network host -- cargo test 2>&1)
unlike "$out" '"decision":"allow"' "and another form of sbx (--network host) is not allowed by it"

# "ask Codex to run sbx probe: outside its sandbox it reports working
# namespaces"
start_model "sbx probe"
run_codex
like "$(cat "$tmpdir/codex.out")" "sbx probe" "the model's call is sbx probe"
like "$tool_output" "user_namespace         ok" "sbx probe run by Codex finds user namespaces working: the guide's rule runs it outside Codex's sandbox"
like "$tool_output" "sbx can create its sandbox here" "and says sbx can make its sandbox"

done_testing
