/* `sbx audit` for CI (issue 25): the per-test verdicts as JUnit XML
 * (--junit FILE), TAP (--tap FILE) and a Markdown table appended to
 * $GITHUB_STEP_SUMMARY. Pure: strings in, a malloc'd document out; the
 * names and the denied calls come from the command's output and are
 * untrusted, so everything is escaped for its format (XML's five
 * characters and the control bytes XML 1.0 cannot hold, TAP's '#' and
 * newlines, Markdown's '|' and newlines). Unit-tested in
 * tests/unit/audit-ci-test.c. */
#ifndef SBX_AUDIT_CI_H
#define SBX_AUDIT_CI_H

#include <stdbool.h>
#include <stddef.h>

struct audit_ci_row {
    const char *name;      /* the runner's id */
    const char *unit;      /* or NULL */
    const char *kind;      /* "test", "fixture", "parent" */
    const char *verdict;   /* test_verdict_name() */
    const char *under, *against;  /* statuses, "not-observed" */
    const char *denied;    /* the calls denied to it, "" */
    const char *note;      /* why, "" */
    double seconds;        /* its time under the profile; 0: unknown */
};

/* Is this verdict a failure for CI: a false green (hiding a failure or
 * not), not-observed, or fails (under the profile itself)? */
bool audit_ci_is_failure(const char *verdict);
bool audit_ci_is_skip(const char *verdict);

/* <testsuites><testsuite name=suite ...><testcase ...>: one testcase a
 * row; failures carry the verdict and the denied calls in the message. */
char *audit_ci_junit(const char *suite, const struct audit_ci_row *rows, size_t n);
/* TAP version 13: "ok N - name # verdict", "not ok" for failures, SKIP
 * for skips, the denied calls as a diagnostic line. */
char *audit_ci_tap(const struct audit_ci_row *rows, size_t n);
/* "### sbx audit: summary\n\n| verdict | test | denied |..." with only the
 * rows that are not unaffected (rows[i].verdict). */
char *audit_ci_markdown(const char *title, const char *summary, const struct audit_ci_row *rows,
                        size_t n);

#endif
