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
    plan(44);
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

    /* issues 25, 33, 34: no row without evidence */
    struct test_judged t = { TEST_PASSED, TEST_ERRORED, 0 };
    t.unobserved_against = true;
    is_str(test_verdict_name(test_verdict_of(&t)), "not-observed",
           "no result under --against (died with another test): not-observed, never fails-without-denial");
    t = (struct test_judged){ TEST_ERRORED, TEST_PASSED, 0 };
    t.unobserved_under = true;
    is_str(test_verdict_name(test_verdict_of(&t)), "not-observed", "no result under the profile: not-observed");
    t = (struct test_judged){ TEST_FAILED, TEST_ERRORED, 0 };
    t.unobserved_against = true;
    is_str(test_verdict_name(test_verdict_of(&t)), "fails", "fails under the profile: fails, whatever is missing there");
    t = (struct test_judged){ TEST_PASSED, TEST_PASSED, 1 };
    t.denials_ambiguous = true;
    is_str(test_verdict_name(test_verdict_of(&t)), "not-observed",
           "passes on both with calls the start-up makes too: not-observed, not false-green");
    t = (struct test_judged){ TEST_FAILED, TEST_PASSED, 1 };
    t.denials_ambiguous = true;
    is_str(test_verdict_name(test_verdict_of(&t)), "not-observed", "nor hiding a failure on them");
    is_str(judge(TEST_SKIPPED, TEST_SKIPPED, 0), "skipped", "a skip on both sides: skipped, not skipped-here");
    t = (struct test_judged){ TEST_PASSED, TEST_ERRORED, 2 };
    t.at_limit = true;
    is_str(test_verdict_name(test_verdict_of(&t)), "fails-at-limit", "EMFILE under --against: the limit, not exercised");
    t.against = TEST_PASSED;
    is_str(test_verdict_name(test_verdict_of(&t)), "false-green", "a limit does not excuse a green with denials");

    enum test_verdict subs[3] = { TEST_UNAFFECTED, TEST_FALSE_GREEN, TEST_EXERCISED };
    is_str(test_verdict_name(test_verdict_of_parent(TEST_FAILS_WITHOUT_DENIAL, subs, 3)), "false-green",
           "a parent takes its subtests' most telling verdict");
    is_str(test_verdict_name(test_verdict_of_parent(TEST_FAILS_WITHOUT_DENIAL, subs, 1)), "unaffected",
           "not its own fails-without-denial");
    is_str(test_verdict_name(test_verdict_of_parent(TEST_EXERCISED, NULL, 0)), "exercised",
           "without subtests, its own");

    const char *which = NULL;
    ok(test_output_at_limit("OSError: [Errno 24] Too many open files: 'x'", 44, &which) &&
           !strcmp(which, "EMFILE"), "Python's EMFILE is seen");
    ok(test_output_at_limit("accept4: too many open files", 28, &which) && !strcmp(which, "EMFILE"),
       "Go's");
    ok(test_output_at_limit("[Errno 23] Too many open files in system", 40, &which) &&
           !strcmp(which, "ENFILE"), "ENFILE told apart");
    ok(!test_output_at_limit("Too many open fi", 16, &which), "a cut message is not one");
    ok(!test_output_at_limit(NULL, 0, &which), "no output: none");

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
    counts[TEST_FALSE_GREEN] = 0;
    counts[TEST_NOT_OBSERVED] = 2;
    is_int(test_verdicts_exit_status(counts), 4, "a test not observed: exit 4, before the failure's 1");
    counts[TEST_NOT_OBSERVED] = 0;
    is_int(test_verdicts_exit_status_of(counts, true), 4, "evidence incomplete (an unattributed denial): exit 4");
    counts[TEST_FAILS] = 0;
    is_int(test_verdicts_exit_status_of(counts, false), 0, "complete, nothing swallowed: exit 0");
    counts[TEST_SKIPPED_BOTH] = 1;
    counts[TEST_FAILS_AT_LIMIT] = 1;
    counts[TEST_NOT_OBSERVED] = 1;
    test_verdicts_summary(counts, line, sizeof line);
    is_str(line, "11 tests: 2 exercised, 0 false green, 0 hiding a failure, 0 fail, 0 skipped here, "
                 "5 unaffected, 1 fails without a denial, 1 not observed, 1 skipped, 1 fails at a limit",
           "the other verdicts follow when they occur");
    counts[TEST_FALSE_GREEN] = 1;
    char small[16];
    test_verdicts_summary(counts, small, sizeof small);
    ok(strlen(small) < sizeof small, "a short buffer is cut, not overrun");
    return done_testing();
}
