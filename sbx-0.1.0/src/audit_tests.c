#include "config.h"

#include "audit_tests.h"

#include "exit.h"

#include <stdio.h>

static bool failed(enum test_status s)
{
    return s == TEST_FAILED || s == TEST_ERRORED || s == TEST_TIMED_OUT || s == TEST_RUNNING;
}

enum test_verdict test_verdict_of(const struct test_judged *t)
{
    bool denied = t->denied > 0;
    if (t->under == TEST_SKIPPED)
        return TEST_SKIPPED_HERE;
    if (failed(t->under))
        return t->against == TEST_PASSED && denied ? TEST_FALSE_GREEN_HIDING_FAILURE : TEST_FAILS;
    /* passed under the profile */
    switch (t->against) {
    case TEST_PASSED:
        return denied ? TEST_FALSE_GREEN : TEST_UNAFFECTED;
    case TEST_SKIPPED:
        return TEST_SKIPPED_HERE;
    case TEST_RUNNING:
    case TEST_FAILED:
    case TEST_ERRORED:
    case TEST_TIMED_OUT:
        break;
    }
    return denied ? TEST_EXERCISED : TEST_FAILS_WITHOUT_DENIAL;
}

const char *test_verdict_name(enum test_verdict v)
{
    static const char *const names[TEST_VERDICT_COUNT] = {
        [TEST_EXERCISED] = "exercised",
        [TEST_FALSE_GREEN] = "false-green",
        [TEST_FALSE_GREEN_HIDING_FAILURE] = "false-green-hiding-failure",
        [TEST_FAILS] = "fails",
        [TEST_SKIPPED_HERE] = "skipped-here",
        [TEST_UNAFFECTED] = "unaffected",
        [TEST_FAILS_WITHOUT_DENIAL] = "fails-without-denial",
    };
    return (unsigned)v < TEST_VERDICT_COUNT ? names[v] : "?";
}

void test_verdicts_summary(const size_t counts[TEST_VERDICT_COUNT], char *buf, size_t len)
{
    size_t total = 0;
    for (int v = 0; v < TEST_VERDICT_COUNT; v++)
        total += counts[v];
    int n = snprintf(buf, len,
                     "%zu test%s: %zu exercised, %zu false green, %zu hiding a failure, %zu fail, "
                     "%zu skipped here, %zu unaffected",
                     total, total == 1 ? "" : "s", counts[TEST_EXERCISED], counts[TEST_FALSE_GREEN],
                     counts[TEST_FALSE_GREEN_HIDING_FAILURE], counts[TEST_FAILS],
                     counts[TEST_SKIPPED_HERE], counts[TEST_UNAFFECTED]);
    if (counts[TEST_FAILS_WITHOUT_DENIAL] && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", %zu fail%s without a denial",
                 counts[TEST_FAILS_WITHOUT_DENIAL], counts[TEST_FAILS_WITHOUT_DENIAL] == 1 ? "s" : "");
}

int test_verdicts_exit_status(const size_t counts[TEST_VERDICT_COUNT])
{
    if (counts[TEST_FALSE_GREEN] || counts[TEST_FALSE_GREEN_HIDING_FAILURE])
        return SBX_EXIT_STRICT;
    if (counts[TEST_FAILS])
        return SBX_EXIT_VERDICT_NEGATIVE;
    return 0;
}
