/* libFuzzer target: the agent hook's reader of shell command lines
 * (src/hook.c), which reads what the agent wrote, and the fix of a
 * refusal (src/fix.c) made from names and addresses the command chose.
 * The first byte picks the options; the rest is the line. Checks what
 * the rewrite promises: the line comes back whole, as one quoted word. */
#include "config.h"

#include "fix.h"
#include "hook.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    char *line = malloc(size);
    memcpy(line, data + 1, size - 1);
    line[size - 1] = '\0';
    struct hook_options o = { .audit = data[0] & 1, .profile = "qa" };
    struct hook_decision d;
    hook_decide(line, &o, &d);
    if (d.verdict != HOOK_LEAVE && (!d.command || strncmp(d.command, "sbx ", 4)))
        abort();
    if (d.verdict != HOOK_LEAVE && !o.audit) {
        char *q = hook_shell_quote(line);
        size_t ql = strlen(q), cl = strlen(d.command);
        if (cl < ql || strcmp(d.command + cl - ql, q))
            abort();   /* the line, quoted whole, ends the sbx command */
        free(q);
    }
    hook_decision_free(&d);
    struct fix f;
    fix_for_destination(line, data[0], &f);
    if (f.section && strchr(f.line, '\n'))
        abort();
    fix_for_denial("connect", 2, line, NULL, true, line, data[0] & 2, &f);
    if (f.section && strchr(f.line, '\n'))
        abort();
    free(line);
    return 0;
}
