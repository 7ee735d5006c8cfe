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
    TEST_VERDICT_COUNT
};

/* A test's results (runner.h) under the profile and under --against; a
 * test one run did not report at all (it died before) is TEST_ERRORED
 * there. */
struct test_judged {
    enum test_status under, against;
    uint64_t denied;      /* denials attributed to this test under --against */
};

/* The table of sbx(1) AUDIT. A test skipped under the profile too was
 * exercised nowhere: skipped-here. A test that timed out under --against
 * with denials is exercised (the restriction is what it waited on). A
 * result still TEST_RUNNING counts as errored. */
enum test_verdict test_verdict_of(const struct test_judged *t);

/* "exercised", "false-green", ...: also the values of the audit record. */
const char *test_verdict_name(enum test_verdict v);

/* "N tests: a exercised, b false green, c hiding a failure, d fail, e
 * skipped here, f unaffected" (and ", g fail without a denial" when
 * there are any), into buf. */
void test_verdicts_summary(const size_t counts[TEST_VERDICT_COUNT], char *buf, size_t len);

/* 3 when any test is false-green or hides a failure, else 1 when any
 * fails under the profile, else 0 (sbx(1) EXIT STATUS). */
int test_verdicts_exit_status(const size_t counts[TEST_VERDICT_COUNT]);

#endif
