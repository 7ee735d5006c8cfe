/* `sbx audit`, test by test (pure): each test's result under the profile
 * and under --against, and the denials attributed to it, give one verdict
 * of sbx(1) AUDIT's table; the verdicts give the summary line and the
 * exit status. Unit-tested without a sandbox (tests/unit/audit-tests-test.c).
 * Which test made which denial, and the runners' results, come from
 * elsewhere (the ledger and the runner adapters). */
#ifndef SBX_AUDIT_TESTS_H
#define SBX_AUDIT_TESTS_H

#include "runner.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum test_verdict {
    TEST_EXERCISED,                  /* passes; fails under --against with its denials */
    TEST_FALSE_GREEN,                /* passes under both although calls it made were denied */
    TEST_FALSE_GREEN_HIDING_FAILURE, /* fails; passes under --against with denials: the incident */
    TEST_FAILS,                      /* fails under the profile: nothing else can be said */
    TEST_SKIPPED_HERE,               /* passes; the test skipped itself under --against */
    TEST_UNAFFECTED,                 /* passes under both, nothing denied */
    TEST_FAILS_WITHOUT_DENIAL,       /* passes; fails under --against with no denial */
    TEST_NOT_OBSERVED,               /* no result on a side, even run alone there (issue 25) */
    TEST_SKIPPED_BOTH,               /* skips itself under the profile: exercised nowhere */
    TEST_FAILS_AT_LIMIT,             /* passes; fails under --against at a limit it sets (EMFILE) */
    TEST_VERDICT_COUNT
};

/* A test's results (runner.h) under the profile and under --against; a
 * test one run did not report at all (it died before) is TEST_ERRORED
 * there. */
struct test_judged {
    enum test_status under, against;
    uint64_t denied;      /* denials attributed to this test under --against */
    /* No result was seen on that side, not even in a run of the test
     * alone there: it died with another test, a timeout, a crash, or a
     * runner that stopped early, or it was never re-run (a bound). */
    bool unobserved_under, unobserved_against;
    /* Its denials may be the start-up's (made while the runner started,
     * before the test ran) and no run told them apart (issue 33): they
     * prove nothing against the test. */
    bool denials_ambiguous;
    /* Its failure under --against is a limit that profile sets (EMFILE,
     * ENFILE), not what the sandbox denied. */
    bool at_limit;
};

/* The table of sbx(1) AUDIT. A test skipped under the profile was
 * exercised nowhere: skipped. A test that timed out under --against
 * with denials is exercised (the restriction is what it waited on). A
 * result still TEST_RUNNING counts as errored. A test without a result on
 * a side that decides its verdict is not-observed, never
 * fails-without-denial; one whose green rests on denials that may be the
 * start-up's is not-observed, never false-green. */
enum test_verdict test_verdict_of(const struct test_judged *t);

/* "exercised", "false-green", ...: also the values of the audit record. */
const char *test_verdict_name(enum test_verdict v);

/* A parent of subtests (go TestX of TestX/sub) takes the most telling of
 * its subtests' verdicts (a false green among them makes it one), its
 * own when it has none. */
enum test_verdict test_verdict_of_parent(enum test_verdict own, const enum test_verdict *subtests,
                                         size_t n);

/* "N tests: a exercised, b false green, c hiding a failure, d fail, e
 * skipped here, f unaffected" (and ", g fail without a denial", ", h not
 * observed", ", i skipped", ", j fail at a limit" when there are any),
 * into buf. */
void test_verdicts_summary(const size_t counts[TEST_VERDICT_COUNT], char *buf, size_t len);

/* 3 when any test is false-green or hides a failure, else 4 when the
 * evidence is incomplete (a test not observed, or incomplete: a denial no
 * test or start-up accounts for, a runner whose own count disagrees with
 * the tests parsed), else 1 when any fails under the profile, else 0
 * (sbx(1) EXIT STATUS). */
int test_verdicts_exit_status(const size_t counts[TEST_VERDICT_COUNT]);
int test_verdicts_exit_status_of(const size_t counts[TEST_VERDICT_COUNT], bool incomplete);

/* Does this output of a run of one test (untrusted bytes) show a
 * descriptor limit reached: "Too many open files" (EMFILE, also "in
 * system": ENFILE), or the errno names? Into *which "EMFILE" or
 * "ENFILE". */
bool test_output_at_limit(const char *bytes, size_t len, const char **which);

#endif
