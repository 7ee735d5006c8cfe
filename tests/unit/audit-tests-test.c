/* The per-test verdicts of `sbx audit` (audit_tests.c): every row of
 * sbx(1) AUDIT's table, the corner cases, the summary line and the exit
 * status. */
#include "config.h"

#include "../tap.h"

#include "audit_tests.h"

#include <string.h>

static const char *judge(enum test_status under, enum test_status against, uint64_t denied)
{
    struct test_judged t = { under, against, denied };
    return test_verdict_name(test_verdict_of(&t));
}

int main(void)
{
    plan(24);
    /* the table, row by row */
    is_str(judge(TEST_PASSED, TEST_FAILED, 2), "exercised", "passes, fails under --against with its denials");
    is_str(judge(TEST_PASSED, TEST_ERRORED, 1), "exercised", "passes, errors under --against with its denials");
    is_str(judge(TEST_PASSED, TEST_PASSED, 3), "false-green", "passes under both although denied");
    is_str(judge(TEST_FAILED, TEST_PASSED, 1), "false-green-hiding-failure",
           "fails, passes under --against although denied: the incident");
    is_str(judge(TEST_FAILED, TEST_FAILED, 1), "fails", "fails under both");
    is_str(judge(TEST_FAILED, TEST_PASSED, 0), "fails", "fails, passes under --against with nothing denied");
    is_str(judge(TEST_FAILED, TEST_SKIPPED, 2), "fails", "fails, skipped under --against");
    is_str(judge(TEST_PASSED, TEST_SKIPPED, 0), "skipped-here", "passes, skips itself under --against");
    is_str(judge(TEST_PASSED, TEST_SKIPPED, 4), "skipped-here", "even when it made denied calls first");
    is_str(judge(TEST_PASSED, TEST_PASSED, 0), "unaffected", "passes under both, nothing denied");
    is_str(judge(TEST_PASSED, TEST_FAILED, 0), "fails-without-denial",
           "passes, fails under --against with no denial");
    /* the corners the table leaves to us */
    is_str(judge(TEST_PASSED, TEST_TIMED_OUT, 1), "exercised", "timed out under --against with denials");
    is_str(judge(TEST_PASSED, TEST_TIMED_OUT, 0), "fails-without-denial", "timed out without a denial");
    is_str(judge(TEST_PASSED, TEST_RUNNING, 0), "fails-without-denial", "no result under --against");
    is_str(judge(TEST_SKIPPED, TEST_PASSED, 5), "skipped", "skipped under the profile: exercised nowhere");
    is_str(judge(TEST_ERRORED, TEST_PASSED, 1), "false-green-hiding-failure", "an error under the profile is a failure");

    size_t counts[TEST_VERDICT_COUNT] = { 0 };
    char line[256];
    test_verdicts_summary(counts, line, sizeof line);
    is_str(line, "0 tests: 0 exercised, 0 false green, 0 hiding a failure, 0 fail, 0 skipped here, 0 unaffected",
           "summary of nothing");
    is_int(test_verdicts_exit_status(counts), 0, "no test: exit 0");
    counts[TEST_EXERCISED] = 2;
    counts[TEST_UNAFFECTED] = 5;
    counts[TEST_FAILS_WITHOUT_DENIAL] = 1;
    test_verdicts_summary(counts, line, sizeof line);
    is_str(line, "8 tests: 2 exercised, 0 false green, 0 hiding a failure, 0 fail, 0 skipped here, "
                 "5 unaffected, 1 fails without a denial", "summary with a failure without denial");
    is_int(test_verdicts_exit_status(counts), 0, "exercised and unaffected: exit 0");
    counts[TEST_FAILS] = 1;
    is_int(test_verdicts_exit_status(counts), 1, "a test fails under the profile: exit 1");
    counts[TEST_FALSE_GREEN_HIDING_FAILURE] = 1;
    is_int(test_verdicts_exit_status(counts), 3, "hiding a failure: exit 3, before the failure's 1");
    counts[TEST_FALSE_GREEN_HIDING_FAILURE] = 0;
    counts[TEST_FALSE_GREEN] = 1;
    is_int(test_verdicts_exit_status(counts), 3, "a false green: exit 3");
    char small[16];
    test_verdicts_summary(counts, small, sizeof small);
    ok(strlen(small) < sizeof small, "a short buffer is cut, not overrun");
    return done_testing();
}
