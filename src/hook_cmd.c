/* sbx hook claude-code|codex: the PreToolUse hook of Claude Code (its Bash
 * tool) and of Codex CLI (its shell tool, also named Bash there; the same
 * wire format).
 *
 * Claude Code runs the hook before each tool call with the call as JSON on
 * stdin (tool_name, tool_input.command, ...) and reads the decision as JSON
 * on stdout (hookSpecificOutput: permissionDecision, its reason, and
 * updatedInput, the tool input to use instead). A test command (hook.c)
 * comes back as the same call with its command run through sbx; anything
 * else gets no output, which leaves the decision to the harness's own
 * rules. Codex takes updatedInput only with "allow" and refuses "ask"
 * (codex-rs/hooks output_parser.rs): a line that would be ASK gets no
 * output there, and runs as it would have without the hook. The input is untrusted (the command is the agent's): it is parsed
 * by json-c, bounded in size, and never run here. */
#include "config.h"

#include "commands.h"
#include "exit.h"
#include "hook.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A tool call is a command line and a few fields; a megabyte is far more
 * than any, and keeps a runaway input from costing memory. */
#define HOOK_INPUT_MAX (1u << 20)

static void hook_usage(FILE *out)
{
    fputs("Usage: sbx hook claude-code|codex [--audit] [--profile P]\n\n"
          "The PreToolUse hook of Claude Code or Codex CLI: reads the tool call (JSON)\n"
          "on stdin; for a test command (cargo test, pytest, npm test, go test, make\n"
          "check, ...) prints the decision to run it as 'sbx run --profile P -- sh -c\n"
          "LINE' (P: qa), or 'sbx audit' with --audit; prints nothing for any other\n"
          "command. See docs/agents.md.\n",
          out);
}

static int hook_error(const char *msg)
{
    /* Exit 1: Claude Code shows stderr and goes on as if there were no
     * hook, so a broken hook never blocks the agent's other commands. */
    fprintf(stderr, "sbx hook: %s\n", msg);
    return 1;
}

static int judge_call(const struct hook_options *o, bool codex)
{
    const char *harness = codex ? "Codex" : "Claude Code";
    char *buf = xmalloc(HOOK_INPUT_MAX + 1);
    size_t len = 0;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf + len, HOOK_INPUT_MAX + 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            return hook_error("cannot read the tool call on stdin");
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > HOOK_INPUT_MAX) {
            free(buf);
            return hook_error("the tool call on stdin is over 1 MiB: not judged");
        }
    }
    buf[len] = '\0';
    struct json_tokener *tok = json_tokener_new();
    struct json_object *in = json_tokener_parse_ex(tok, buf, (int)len);
    bool parsed = in && json_tokener_get_error(tok) == json_tokener_success &&
                  tok->char_offset == (int)len;
    json_tokener_free(tok);
    free(buf);
    if (!parsed || !json_object_is_type(in, json_type_object)) {
        json_object_put(in);
        return hook_error("stdin is not a JSON object (a PreToolUse hook's input)");
    }
    struct json_object *name, *input, *cmd;
    if (!json_object_object_get_ex(in, "tool_name", &name) ||
        !json_object_is_type(name, json_type_string) || strcmp(json_object_get_string(name), "Bash") ||
        !json_object_object_get_ex(in, "tool_input", &input) ||
        !json_object_is_type(input, json_type_object) ||
        !json_object_object_get_ex(input, "command", &cmd) ||
        !json_object_is_type(cmd, json_type_string)) {
        json_object_put(in);
        return 0;   /* not a Bash call: not ours to judge */
    }
    const char *line = json_object_get_string(cmd);
    if (strlen(line) != (size_t)json_object_get_string_len(cmd)) {
        json_object_put(in);
        return 0;   /* a NUL inside: no shell would run it as written */
    }
    struct hook_decision d;
    hook_decide(line, o, &d);
    if (d.verdict == HOOK_LEAVE || (codex && d.verdict == HOOK_ASK)) {
        hook_decision_free(&d);
        json_object_put(in);
        return 0;
    }
    /* The call as it was, with the command replaced; the sandbox-disabling
     * parameter dropped: sbx is the sandbox for this command. */
    struct json_object *upd = json_object_new_object();
    json_object_object_foreach(input, k, v) {
        if (!strcmp(k, "command") || !strcmp(k, "dangerouslyDisableSandbox"))
            continue;
        json_object_object_add(upd, k, json_object_get(v));
    }
    json_object_object_add(upd, "command", json_object_new_string(d.command));
    char reason[512];
    if (d.verdict == HOOK_ALLOW)
        snprintf(reason, sizeof reason,
                 "sbx: '%s' runs in sbx's %s sandbox (a loopback of its own, descriptors "
                 "raised) instead of %s's%s", d.runner, o->profile, harness,
                 o->audit ? ", audited against restrictive" : "");
    else
        snprintf(reason, sizeof reason,
                 "sbx: '%s' would run in sbx, but %s: approve the sbx line or not", d.runner, d.why);
    struct json_object *hso = json_object_new_object();
    json_object_object_add(hso, "hookEventName", json_object_new_string("PreToolUse"));
    json_object_object_add(hso, "permissionDecision",
                           json_object_new_string(d.verdict == HOOK_ALLOW ? "allow" : "ask"));
    json_object_object_add(hso, "permissionDecisionReason", json_object_new_string(reason));
    json_object_object_add(hso, "updatedInput", upd);
    struct json_object *out = json_object_new_object();
    json_object_object_add(out, "hookSpecificOutput", hso);
    puts(json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(out);
    json_object_put(in);
    hook_decision_free(&d);
    return fflush(stdout) == 0 ? 0 : hook_error("cannot write the decision on stdout");
}

int cmd_hook(int argc, char **argv)
{
    struct hook_options o = { .profile = "qa" };
    const char *harness = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            hook_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--audit")) {
            o.audit = true;
        } else if ((!strcmp(argv[i], "--profile") || !strcmp(argv[i], "-p")) && i + 1 < argc) {
            o.profile = argv[++i];
        } else if (argv[i][0] != '-' && !harness) {
            harness = argv[i];
        } else {
            fprintf(stderr, "sbx: hook: unknown argument '%s'\n", argv[i]);
            hook_usage(stderr);
            return SBX_EXIT_FAILURE;
        }
    }
    if (!harness || (strcmp(harness, "claude-code") && strcmp(harness, "codex"))) {
        fprintf(stderr, "sbx: hook: %s: the harness is claude-code or codex\n",
                harness ? "unknown harness" : "no harness given");
        hook_usage(stderr);
        return SBX_EXIT_FAILURE;
    }
    return judge_call(&o, !strcmp(harness, "codex"));
}
