/* node: node's built-in test runner (node --test), runner_impl.h's
 * operations.
 *
 * Given --test-reporter=tap: node 20's default reporter is spec on a
 * terminal, tap only on a pipe; the user's own reporter is refused (two
 * reporters need two destinations).
 *
 * The channel: node --test runs each file in a child process and reads
 * its results from the child's own channel; what a test prints on stdout
 * reaches node's TAP as a "#" comment, not as a result line. */
#include "config.h"

#include "runner_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int node_anchor(char *const argv[], char *why, size_t why_size)
{
    const char *prog = base_name(argv[0]);
    if (strcmp(prog, "node") && strcmp(prog, "nodejs"))
        return -1;
    /* node's own options end at the script */
    for (int i = 1; argv[i] && argv[i][0] == '-'; i++)
        if (!strcmp(argv[i], "--test"))
            return i;
    snprintf(why, why_size, "node runs a script, not node --test");
    return -1;
}

static bool cmd_node(char *const argv[], int t, struct strv *out, struct strv *notes, char *err,
                     size_t err_size)
{
    for (int i = 1; argv[i] && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--test-reporter=tap") ||
            (!strcmp(a, "--test-reporter") && argv[i + 1] && !strcmp(argv[i + 1], "tap"))) {
            push_range(out, argv, 0, (int)argv_len(argv));
            return true;
        }
        if (!strncmp(a, "--test-reporter", 15) && (a[15] == '\0' || a[15] == '='))
            return refuse(err, err_size,
                          "node %s: sbx reads node's TAP reporter on stdout; drop the command's "
                          "own reporter", a);
    }
    push_range(out, argv, 0, t + 1);
    push(out, "--test-reporter=tap");
    note_add(notes, "added --test-reporter=tap: node's default reporter on a terminal (spec) is "
                    "for people");
    push_range(out, argv, t + 1, (int)argv_len(argv));
    return true;
}

static bool node_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                       struct strv *out)
{
    const struct runner_test *t = tests[0];
    int n = (int)argv_len(argv);
    (void)a;
    (void)n;
    if (count != 1)
        return false;
    /* node 20 matches --test-name-pattern against each test's own name
     * and runs a test when any pattern matches: one exact pattern per
     * level runs the test and its ancestors (and any other test that
     * bears one of those names). A matching test runs all its t.test()
     * subtests, so a subtest's siblings run too (describe/it children
     * are selected one by one); the others print "# SKIP test name
     * does not match pattern". */
    push_range(out, argv, 0, a + 1);
    struct strv parts = {0};
    push_split(&parts, t->id, " > ");
    for (size_t p = 0; p < parts.n; p++) {
        char *re = regex_exact(parts.v[p]);
        strv_push(out, xasprintf("--test-name-pattern=%s", re));
        free(re);
    }
    strv_free(&parts);
    push_range(out, argv, a + 1, n);
    return true;
}

static const struct runner_ops node_ops = {
    .anchor = node_anchor,
    .command = cmd_node,
    .line = tap_line,
    .rerun = node_rerun,
};

const struct runner runner_node = { RUNNER_NODE, "node", "node --test", RUNNER_ATTRIBUTE_ALONE, &node_ops };
