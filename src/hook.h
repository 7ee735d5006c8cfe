/* An agent harness's shell tool call, judged: is it a test command that
 * should run in sbx rather than in the harness's own sandbox, and the
 * command line that does so. Pure (no system calls): `sbx hook` (hook_cmd.c)
 * reads the harness's JSON and prints the decision. */
#ifndef SBX_HOOK_H
#define SBX_HOOK_H

#include <stdbool.h>

enum hook_verdict {
    HOOK_LEAVE,   /* not a test command (or already sbx): the harness decides */
    HOOK_ALLOW,   /* a test command, rewritten; nothing else in the line */
    HOOK_ASK,     /* rewritten, but the line does more than run tests (a
                   * command outside the short list of harmless ones, a
                   * redirection that writes, syntax this reader does not
                   * follow): the person approves the rewritten line */
};

struct hook_options {
    bool audit;            /* sbx audit instead of sbx run */
    const char *profile;   /* run: the profile (qa) */
};

struct hook_decision {
    enum hook_verdict verdict;
    char *command;         /* the rewritten line (malloc'd), or NULL */
    char runner[32];       /* the first test command seen: "cargo test" */
    char why[160];         /* for ASK: what made it more than a test */
};

/* Judges LINE, a shell command line as the agent wrote it (untrusted: any
 * bytes). Fills d; hook_decision_free() releases it. */
void hook_decide(const char *line, const struct hook_options *o, struct hook_decision *d);
void hook_decision_free(struct hook_decision *d);

/* S as one shell word: single-quoted unless it is made of safe characters
 * only. Malloc'd. */
char *hook_shell_quote(const char *s);

#endif
