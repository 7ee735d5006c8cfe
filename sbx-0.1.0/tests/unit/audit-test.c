/* sbx(1) AUDIT's verdict table, decided without a sandbox. */
#include "config.h"

#include "audit.h"
#include "ledger.h"
#include "profile.h"
#include "../tap.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static char *report(const struct audit_run *a, const struct audit_run *b, enum audit_verdict v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    audit_print_report(f, a, b, v);
    fclose(f);
    return buf;
}

int main(void)
{
    plan(59);
    struct profile p;
    memset(&p, 0, sizeof p);
    struct ledger *denied = ledger_new(&p);
    ledger_record(denied, "bind", AF_INET, "127.0.0.1:0", EPERM, 12, "test-runner");
    struct ledger *clean = ledger_new(&p);

    struct audit_run qa_pass = { "qa", 0, 1500000, NULL };
    struct audit_run qa_fail = { "qa", 1, 1500000, NULL };
    struct audit_run r_fail_denied = { "restrictive", 101, 900000, denied };
    struct audit_run r_pass_denied = { "restrictive", 0, 900000, denied };
    struct audit_run r_pass_clean = { "restrictive", 0, 900000, clean };
    struct audit_run r_pass_none = { "restrictive", 0, 900000, NULL };
    struct audit_run r_fail_clean = { "restrictive", 1, 900000, clean };

    enum audit_verdict v;
    v = audit_decide(&qa_pass, &r_fail_denied);
    is_int(v, AUDIT_TRUSTWORTHY, "pass / fail with denials: trustworthy");
    is_int(audit_verdict_exit_status(v), 0, "trustworthy exits 0");
    v = audit_decide(&qa_pass, &r_pass_denied);
    is_int(v, AUDIT_FALSE_GREEN, "pass / pass with denials: false green");
    is_int(audit_verdict_exit_status(v), 3, "false green exits 3");
    char *s = report(&qa_pass, &r_pass_denied, v);
    like_str(s, "sbx: verdict: FALSE GREEN suspected", "report says FALSE GREEN");
    like_str(s, "swallowed: bind(AF_INET 127.0.0.1:0) x1 -> EPERM\n", "report names what was swallowed");
    like_str(s, "sbx: audit: under qa: passed (exit 0) in 1.50 s, 0 operations denied\n", "first run's status and duration");
    like_str(s, "sbx: audit: under restrictive: passed (exit 0) in 0.90 s, 1 operation denied\n", "second run's denials");
    free(s);
    v = audit_decide(&qa_pass, &r_pass_clean);
    is_int(v, AUDIT_NO_NETWORK, "pass / pass, no denials: does not touch the network");
    is_int(audit_verdict_exit_status(v), 0, "no network exits 0");
    s = report(&qa_pass, &r_pass_clean, v);
    like_str(s, "does not touch the network", "report says so");
    free(s);
    is_int(audit_decide(&qa_pass, &r_pass_none), AUDIT_NO_NETWORK, "no ledger at all counts as no denials");
    v = audit_decide(&qa_fail, &r_pass_denied);
    is_int(v, AUDIT_FAILS_UNDER_PROFILE, "fail under qa: whatever the second run");
    is_int(audit_verdict_exit_status(v), 1, "fails under the profile exits 1");
    v = audit_decide(&qa_pass, &r_fail_clean);
    is_int(v, AUDIT_TRUSTWORTHY_NO_DENIALS, "pass / fail without denials: trustworthy (loopback or nofile)");
    is_int(audit_verdict_exit_status(v), 0, "exits 0");
    ledger_free(denied);
    ledger_free(clean);
    /* The names the audit record carries (docs/run-record.md), once
     * static in the command's file, and the statuses of sbx(1). */
    is_str(audit_verdict_name(AUDIT_TRUSTWORTHY), "trustworthy", "record name: trustworthy");
    is_str(audit_verdict_name(AUDIT_TRUSTWORTHY_NO_DENIALS), "trustworthy-no-denials",
           "record name: trustworthy-no-denials");
    is_str(audit_verdict_name(AUDIT_FALSE_GREEN), "false-green", "record name: false-green");
    is_str(audit_verdict_name(AUDIT_NO_NETWORK), "no-network", "record name: no-network");
    is_str(audit_verdict_name(AUDIT_FAILS_UNDER_PROFILE), "fails-under-profile",
           "record name: fails-under-profile");
    is_int(audit_verdict_exit_status(AUDIT_TRUSTWORTHY_NO_DENIALS), 0, "trustworthy-no-denials exits 0");
    is_int(audit_verdict_exit_status(AUDIT_NO_NETWORK), 0, "no-network exits 0");
    is_int(audit_verdict_exit_status(AUDIT_FAILS_UNDER_PROFILE), 1, "fails-under-profile exits 1");
    struct audit_run timed_out = {.profile = "qa", .exit_status = 124, .duration_us = 1000000};
    char *t = report(&timed_out, &timed_out, AUDIT_FAILS_UNDER_PROFILE);
    like_str(t, "under qa: failed (timed out, 124) in 1.00 s", "a status of 124 reads as the timeout");
    free(t);

    /* The bound of the --against run (issue 16: a test that waits until
     * killed under restrictive held an audit for 15 minutes). */
    struct audit_bound b = audit_against_bound(200000, false, 0, 0);
    is_int(b.source, AUDIT_BOUND_FIRST_RUN, "default bound: from the first run");
    is_int((int)b.timeout_ms, 10000, "a 0.2 s first run is bounded by the 10 s floor");
    b = audit_against_bound(20000000, false, 0, 0);
    is_int((int)b.timeout_ms, 60000, "a 20 s first run: 3 x, 60 s");
    b = audit_against_bound(20300000, false, 0, 0);
    is_int((int)b.timeout_ms, 63000, "a 20.3 s first run: 3 x its whole seconds rounded up, 63 s");
    b = audit_against_bound(UINT64_MAX, false, 0, 0);
    ok(b.timeout_ms >= UINT64_MAX / 1000 * 999 / 1000, "a first run too long to multiply saturates");
    b = audit_against_bound(20000000, false, 0, 30 * 60 * 1000);
    is_int(b.source, AUDIT_BOUND_FIRST_RUN, "qa's 30 min timeout is longer than 60 s: the multiple");
    b = audit_against_bound(20000000, false, 0, 5000);
    is_int(b.source, AUDIT_BOUND_PROFILE, "a profile timeout shorter than the multiple wins");
    is_int((int)b.timeout_ms, 5000, "and bounds the run at its value");
    b = audit_against_bound(200000, true, 2000, 0);
    is_int(b.source, AUDIT_BOUND_OPTION, "--against-timeout replaces the multiple");
    is_int((int)b.timeout_ms, 2000, "even below the floor");
    b = audit_against_bound(200000, true, 60000, 3000);
    is_int(b.source, AUDIT_BOUND_PROFILE, "the profile's timeout wins over a longer --against-timeout");
    b = audit_against_bound(200000, true, 0, 0);
    is_int(b.source, AUDIT_BOUND_NONE, "--against-timeout 0: no bound");
    is_int((int)b.timeout_ms, 0, "and no timeout");
    b = audit_against_bound(200000, true, 0, 1800000);
    is_int(b.source, AUDIT_BOUND_PROFILE, "--against-timeout 0 leaves the profile's own timeout");
    char d[160];
    b = audit_against_bound(200000, false, 0, 0);
    audit_describe_bound(d, sizeof d, &b);
    is_str(d, "10 s: 3 x the first run's 0.20 s, at least 10 s", "the default bound, described");
    b = audit_against_bound(200000, true, 1500, 0);
    audit_describe_bound(d, sizeof d, &b);
    is_str(d, "1500 ms: --against-timeout", "the option's bound, described");
    b = audit_against_bound(200000, false, 0, 4000);
    audit_describe_bound(d, sizeof d, &b);
    is_str(d, "4 s: the profile's timeout", "the profile's bound, described");
    b = audit_against_bound(200000, true, 0, 30 * 60 * 1000);
    audit_describe_bound(d, sizeof d, &b);
    is_str(d, "30 min: the profile's timeout", "minutes read as minutes");
    b = audit_against_bound(3000000000, false, 0, 0);
    audit_describe_bound(d, sizeof d, &b);
    is_str(d, "150 min: 3 x the first run's 3000.00 s, at least 10 s", "a long first run");
    is_str(audit_bound_source_name(AUDIT_BOUND_FIRST_RUN), "first-run", "record name: first-run");
    is_str(audit_bound_source_name(AUDIT_BOUND_OPTION), "option", "record name: option");
    is_str(audit_bound_source_name(AUDIT_BOUND_PROFILE), "profile", "record name: profile");
    ok(audit_bound_source_name(AUDIT_BOUND_NONE) == NULL, "no bound: null in the record");

    /* A timed-out --against run is a failure of that run: with denials
     * it is evidence, whatever status the command chose on SIGTERM. */
    denied = ledger_new(&p);
    ledger_record(denied, "bind", AF_INET, "127.0.0.1:0", EPERM, 12, "test-runner");
    clean = ledger_new(&p);
    struct audit_run qa_fast = { "qa", 0, 200000, NULL };
    struct audit_run r_hung = { .profile = "restrictive", .exit_status = 124, .duration_us = 10000000,
                                .ledger = denied, .timed_out = true,
                                .bound = audit_against_bound(200000, false, 0, 0) };
    v = audit_decide(&qa_fast, &r_hung);
    is_int(v, AUDIT_TRUSTWORTHY, "pass / timed out with denials: trustworthy");
    is_int(audit_verdict_exit_status(v), 0, "exits 0");
    s = report(&qa_fast, &r_hung, v);
    like_str(s, "under restrictive: failed (timed out at 10 s: 3 x the first run's 0.20 s, at least "
                "10 s; 124) in 10.00 s, 1 operation denied\n", "the run says it timed out, and at what bound");
    like_str(s, "trustworthy: the command exercises the network for real (it timed out under "
                "restrictive when bind(AF_INET 127.0.0.1:0) x1 -> EPERM)", "the verdict says it timed out");
    free(s);
    r_hung.exit_status = 0;
    is_int(audit_decide(&qa_fast, &r_hung), AUDIT_TRUSTWORTHY,
           "timed out, although the command exited 0 on SIGTERM: still a failure");
    r_hung.ledger = clean;
    v = audit_decide(&qa_fast, &r_hung);
    is_int(v, AUDIT_TRUSTWORTHY_NO_DENIALS, "pass / timed out without denials: trustworthy-no-denials");
    s = report(&qa_fast, &r_hung, v);
    like_str(s, "it timed out there although no call was denied", "and says it timed out");
    free(s);
    ledger_free(denied);
    ledger_free(clean);

    /* Stopped by a signal: no verdict. */
    const char *names[2] = { "qa", "restrictive" };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    audit_print_interrupted(f, SIGINT, 0, names);
    audit_print_interrupted(f, SIGTERM, 1, names);
    audit_print_interrupted(f, SIGHUP, -1, names);
    fclose(f);
    like_str(buf, "sbx: audit: interrupted by SIGINT during run 1 of 2 (under qa): no verdict; "
                  "run 2 (under restrictive) was not started\n", "interrupted in the first run");
    like_str(buf, "sbx: audit: interrupted by SIGTERM during run 2 of 2 (under restrictive): no verdict\n",
             "interrupted in the second run");
    like_str(buf, "sbx: audit: interrupted by SIGHUP before run 1 of 2 (under qa) started: no verdict\n",
             "interrupted before any run");
    ok(!strstr(buf, "verdict:"), "no verdict line");
    free(buf);
    return done_testing();
}
