/* sbx(1) AUDIT's verdict table, decided without a sandbox. */
#include "config.h"

#include "audit.h"
#include "ledger.h"
#include "profile.h"
#include "../tap.h"

#include <errno.h>
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
    plan(25);
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
    return done_testing();
}
