/* SPEC's audit table, decided without a sandbox. */
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
    plan(16);
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
    return done_testing();
}
