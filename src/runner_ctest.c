/* ctest (CMake's test driver), runner_impl.h's operations.
 *
 * ctest prints one line per test as it ends, "N/M Test #K: NAME ....
 * Passed 0.01 sec" (or "***Failed", "***Skipped", "***Not Run",
 * "***Timeout", "***Exception: ..."), and its count, "67% tests passed,
 * 1 tests failed out of 3". Its -Q/--quiet (no lines) and --progress
 * (lines overwritten on a terminal) are removed.
 *
 * The channel: ctest captures each test's output and prints it only with
 * -V or --output-on-failure, after that test's own line; a result counts
 * only when its "N/M" is the next N of the same M, so a line a test
 * prints must also guess that counter, and a forgery that does displaces
 * the real line, which then no longer counts: the audit sees a test
 * missing or reported twice, never a silent change. --output-junit FILE
 * would be a better channel, but it is a file written inside the
 * sandbox. A test is re-run with -R ^NAME$. */
#include "config.h"

#include "runner_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ctest_state {
    uint64_t next;   /* the N the next result line must carry */
    uint64_t of;     /* its M */
};

static int ctest_anchor(char *const argv[], char *why, size_t why_size)
{
    (void)why;
    (void)why_size;
    return strcmp(base_name(argv[0]), "ctest") ? -1 : 0;
}

static bool ctest_command(char *const argv[], int at, struct strv *out, struct strv *notes, char *err,
                          size_t err_size)
{
    (void)at;
    int n = (int)argv_len(argv);
    bool removed = false;
    for (int i = 0; i < n; i++) {
        const char *a = argv[i];
        if (i && (!strcmp(a, "-Q") || !strcmp(a, "--quiet") || !strcmp(a, "--progress"))) {
            removed = true;
            continue;
        }
        if (i && (!strcmp(a, "-N") || !strcmp(a, "--show-only") || starts(a, "--show-only=")))
            return refuse(err, err_size, "ctest %s lists the tests without running them", a);
        push(out, a);
    }
    if (removed)
        note_add(notes, "removed -Q/--progress: ctest then prints no line per test, or overwrites it");
    return true;
}

static bool digits(const char **s, uint64_t *v)
{
    const char *c = *s;
    uint64_t n = 0;
    if (!(*c >= '0' && *c <= '9'))
        return false;
    for (; *c >= '0' && *c <= '9'; c++)
        n = n < UINT64_MAX / 16 ? n * 10 + (uint64_t)(*c - '0') : n;
    *s = c;
    *v = n;
    return true;
}

static void ctest_line(struct runner_parser *p, char *line)
{
    struct ctest_state *cs = p->state;
    /* "60% tests passed, 2 tests failed out of 5" */
    const char *out_of = strstr(line, " tests failed out of ");
    if (out_of && strstr(line, "% tests passed, ")) {
        const char *c = out_of + 21;
        uint64_t total, failed = runner_count_of(line, "tests failed", NULL);
        if (digits(&c, &total))
            runner_count(p, total > failed ? total - failed : 0, failed, 0, 0);
        cs->next = 1;
        cs->of = 0;
        return;
    }
    const char *c = skip_spaces(line);
    uint64_t nth, of, k;
    if (!digits(&c, &nth) || *c++ != '/' || !digits(&c, &of) || !starts(c, " Test ") ||
        !(c = skip_spaces((char *)c + 6), *c == '#') || (c++, !digits(&c, &k)) || *c++ != ':' || *c++ != ' ')
        return;
    if (!cs->next || (cs->of && of != cs->of) || nth != cs->next)
        return;
    /* the name, then " ..." dots padding to a column, then the result */
    const char *dots = strstr(c, " ..");
    if (!dots || dots == c)
        return;
    const char *r = dots + 1;
    while (*r == '.')
        r++;
    r = skip_spaces((char *)r);
    enum test_status st;
    if (starts(r, "Passed"))
        st = TEST_PASSED;
    else if (starts(r, "***Skipped") || starts(r, "***Not Run (Disabled)"))
        st = TEST_SKIPPED;
    else if (starts(r, "***Timeout"))
        st = TEST_TIMED_OUT;
    else if (starts(r, "***Failed"))
        st = TEST_FAILED;
    else if (starts(r, "***"))
        st = TEST_ERRORED;  /* Not Run, Exception: a crash */
    else
        return;
    cs->next = nth + 1;
    cs->of = of;
    char *name = xstrndup(c, (size_t)(dots - c));
    size_t i = test_result(p, NULL, name, st);
    free(name);
    /* "Passed    0.27 sec" */
    const char *sec = strstr(r, " sec");
    if (sec) {
        const char *num = sec;
        while (num > r && ((num[-1] >= '0' && num[-1] <= '9') || num[-1] == '.'))
            num--;
        test_duration(p, i, runner_decimal_us(num, 1000000));
    }
}

/* -R takes a regular expression (POSIX-ish, CMake's): the names exactly;
 * the user's own -R/-E/-L/-I selections are replaced. */
static bool ctest_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                        struct strv *out)
{
    (void)a;
    static const char *const selections[] = { "-R", "--tests-regex", "-E", "--exclude-regex", "-L",
                                              "--label-regex", "-LE", "--label-exclude", "-I",
                                              "--tests-information", NULL };
    for (int i = 0; argv[i]; i++) {
        if (i && takes_value(selections, argv[i])) {
            i += argv[i + 1] != NULL;
            continue;
        }
        push(out, argv[i]);
    }
    const char **names = xcalloc(count, sizeof *names);
    for (size_t i = 0; i < count; i++)
        names[i] = tests[i]->id;
    push(out, "-R");
    strv_push(out, regex_any(names, count));
    free(names);
    return true;
}

static void *ctest_state_new(void)
{
    struct ctest_state *cs = xcalloc(1, sizeof *cs);
    cs->next = 1;
    return cs;
}

static const struct runner_ops ctest_ops = {
    .anchor = ctest_anchor,
    .command = ctest_command,
    .line = ctest_line,
    .rerun = ctest_rerun,
    .state_new = ctest_state_new,
    .state_free = free,
};

const struct runner runner_ctest = { RUNNER_CTEST, "ctest", "ctest", RUNNER_ATTRIBUTE_ALONE, &ctest_ops };
