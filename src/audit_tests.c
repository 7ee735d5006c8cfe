#include "config.h"

#include "audit_tests.h"

#include "exit.h"

#include <stdio.h>
#include <string.h>

static bool failed(enum test_status s)
{
    return s == TEST_FAILED || s == TEST_ERRORED || s == TEST_TIMED_OUT || s == TEST_RUNNING;
}

enum test_verdict test_verdict_of(const struct test_judged *t)
{
    bool denied = t->denied > 0;
    if (t->unobserved_under)
        return TEST_NOT_OBSERVED;
    if (t->under == TEST_SKIPPED)
        return TEST_SKIPPED_BOTH;
    if (failed(t->under)) {
        /* it fails under the profile: only a green under --against made
         * of its own denials says more */
        if (t->unobserved_against || t->against != TEST_PASSED || !denied)
            return TEST_FAILS;
        return t->denials_ambiguous ? TEST_NOT_OBSERVED : TEST_FALSE_GREEN_HIDING_FAILURE;
    }
    /* passed under the profile */
    if (t->unobserved_against)
        return TEST_NOT_OBSERVED;
    switch (t->against) {
    case TEST_PASSED:
        if (!denied)
            return TEST_UNAFFECTED;
        return t->denials_ambiguous ? TEST_NOT_OBSERVED : TEST_FALSE_GREEN;
    case TEST_SKIPPED:
        return TEST_SKIPPED_HERE;
    case TEST_RUNNING:
    case TEST_FAILED:
    case TEST_ERRORED:
    case TEST_TIMED_OUT:
        break;
    }
    if (t->at_limit)
        return TEST_FAILS_AT_LIMIT;
    return denied ? TEST_EXERCISED : TEST_FAILS_WITHOUT_DENIAL;
}

/* The order of how much a verdict tells, for a parent of subtests: a
 * false green anywhere below makes the parent one. */
static int rank(enum test_verdict v)
{
    static const int r[TEST_VERDICT_COUNT] = {
        [TEST_FALSE_GREEN_HIDING_FAILURE] = 9, [TEST_FALSE_GREEN] = 8, [TEST_NOT_OBSERVED] = 7,
        [TEST_FAILS] = 6, [TEST_EXERCISED] = 5, [TEST_FAILS_AT_LIMIT] = 4,
        [TEST_FAILS_WITHOUT_DENIAL] = 3, [TEST_SKIPPED_HERE] = 2, [TEST_SKIPPED_BOTH] = 1,
        [TEST_UNAFFECTED] = 0,
    };
    return (unsigned)v < TEST_VERDICT_COUNT ? r[v] : 0;
}

enum test_verdict test_verdict_of_parent(enum test_verdict own, const enum test_verdict *subtests,
                                         size_t n)
{
    if (!n)
        return own;
    enum test_verdict best = subtests[0];
    for (size_t i = 1; i < n; i++)
        if (rank(subtests[i]) > rank(best))
            best = subtests[i];
    return best;
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
        [TEST_NOT_OBSERVED] = "not-observed",
        [TEST_SKIPPED_BOTH] = "skipped",
        [TEST_FAILS_AT_LIMIT] = "fails-at-limit",
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
    static const struct {
        enum test_verdict v;
        const char *one, *many;
    } extra[] = {
        { TEST_FAILS_WITHOUT_DENIAL, "fails without a denial", "fail without a denial" },
        { TEST_NOT_OBSERVED, "not observed", "not observed" },
        { TEST_SKIPPED_BOTH, "skipped", "skipped" },
        { TEST_FAILS_AT_LIMIT, "fails at a limit", "fail at a limit" },
    };
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
        size_t c = counts[extra[k].v];
        if (!c || n < 0 || (size_t)n >= len)
            continue;
        int m = snprintf(buf + n, len - (size_t)n, ", %zu %s", c, c == 1 ? extra[k].one : extra[k].many);
        n = m < 0 ? m : n + m;
    }
}

int test_verdicts_exit_status_of(const size_t counts[TEST_VERDICT_COUNT], bool incomplete)
{
    if (counts[TEST_FALSE_GREEN] || counts[TEST_FALSE_GREEN_HIDING_FAILURE])
        return SBX_EXIT_STRICT;
    if (incomplete || counts[TEST_NOT_OBSERVED])
        return SBX_EXIT_INCONCLUSIVE;
    if (counts[TEST_FAILS])
        return SBX_EXIT_VERDICT_NEGATIVE;
    return 0;
}

int test_verdicts_exit_status(const size_t counts[TEST_VERDICT_COUNT])
{
    return test_verdicts_exit_status_of(counts, false);
}

/* memmem over untrusted bytes, case as written: these are the C library's
 * and the runtimes' own messages (strerror, Python's OSError, Go's
 * syscall.Errno, node's code), not the suite's wording. */
bool test_output_at_limit(const char *bytes, size_t len, const char **which)
{
    static const struct {
        const char *needle, *name;
    } signs[] = {
        { "Too many open files in system", "ENFILE" },
        { "ENFILE", "ENFILE" },
        { "Too many open files", "EMFILE" },
        { "too many open files", "EMFILE" },
        { "EMFILE", "EMFILE" },
    };
    for (size_t k = 0; k < sizeof signs / sizeof signs[0]; k++)
        if (bytes && memmem(bytes, len, signs[k].needle, strlen(signs[k].needle))) {
            if (which)
                *which = signs[k].name;
            return true;
        }
    return false;
}
