/* `sbx audit`'s verdict: a pure function of the two runs, and the report
 * that says it (no system call here; tests/unit/audit-test.c). */
#include "config.h"

#include "audit.h"

#include "exit.h"
#include "ledger.h"

#include <stdio.h>

enum audit_verdict audit_decide(const struct audit_run *under, const struct audit_run *against)
{
    if (under->exit_status != 0)
        return AUDIT_FAILS_UNDER_PROFILE;
    uint64_t denied = ledger_total(against->ledger);
    if (against->exit_status != 0)
        return denied ? AUDIT_TRUSTWORTHY : AUDIT_TRUSTWORTHY_NO_DENIALS;
    return denied ? AUDIT_FALSE_GREEN : AUDIT_NO_NETWORK;
}

int audit_verdict_exit_status(enum audit_verdict v)
{
    switch (v) {
    case AUDIT_TRUSTWORTHY:
    case AUDIT_TRUSTWORTHY_NO_DENIALS:
    case AUDIT_NO_NETWORK:
        return 0;
    case AUDIT_FALSE_GREEN:
        return SBX_EXIT_STRICT;
    case AUDIT_FAILS_UNDER_PROFILE:
        return SBX_EXIT_VERDICT_NEGATIVE;
    }
    return SBX_EXIT_VERDICT_NEGATIVE;
}

static void describe_status(char *buf, size_t len, int status)
{
    if (status == 0)
        snprintf(buf, len, "passed (exit 0)");
    else if (status == SBX_EXIT_TIMEOUT)
        snprintf(buf, len, "failed (timed out, %d)", SBX_EXIT_TIMEOUT);
    else if (status > 128 && status < 128 + 65)
        snprintf(buf, len, "failed (killed by signal %d, %d)", status - 128, status);
    else
        snprintf(buf, len, "failed (exit %d)", status);
}

static void print_run(FILE *out, const struct audit_run *r)
{
    char st[64];
    describe_status(st, sizeof st, r->exit_status);
    uint64_t denied = ledger_total(r->ledger);
    fprintf(out, "sbx: audit: under %s: %s in %.2f s, %llu operation%s denied\n", r->profile, st,
            (double)r->duration_us / 1e6, (unsigned long long)denied, denied == 1 ? "" : "s");
}

/* The denied calls without the processes, most frequent first, as one
 * phrase: "bind(AF_INET 127.0.0.1:0) x3 -> EPERM, connect(...) x1 -> EPERM". */
static void print_denials(FILE *out, const struct ledger *l, size_t max_rows)
{
    size_t cursor = 0, rows = 0;
    struct ledger_entry e;
    uint64_t shown = 0;
    char line[512];
    while (rows < max_rows && ledger_next(l, &cursor, &e)) {
        e.npids = 0;
        e.more_pids = 0;
        e.nthreads = 0;
        e.threads_unlisted_count = 0;
        ledger_format_entry(&e, line, sizeof line);
        fprintf(out, "%s%s", rows ? ", " : "", line);
        shown += e.count;
        rows++;
    }
    if (shown < ledger_total(l))
        fprintf(out, " and %llu more", (unsigned long long)(ledger_total(l) - shown));
}

void audit_print_report(FILE *out, const struct audit_run *under,
                        const struct audit_run *against, enum audit_verdict v)
{
    print_run(out, under);
    print_run(out, against);
    switch (v) {
    case AUDIT_TRUSTWORTHY:
        fprintf(out, "sbx: verdict: trustworthy: the command exercises the network for real "
                     "(it fails under %s when ", against->profile);
        print_denials(out, against->ledger, 3);
        fprintf(out, ")\n");
        break;
    case AUDIT_TRUSTWORTHY_NO_DENIALS:
        fprintf(out, "sbx: verdict: trustworthy: the command notices the restrictions of %s "
                     "(it fails there although no call was denied: loopback down or the "
                     "descriptor limit caught it)\n", against->profile);
        break;
    case AUDIT_FALSE_GREEN:
        fprintf(out, "sbx: verdict: FALSE GREEN suspected: the command passed under %s although "
                     "denied operations were swallowed: ", against->profile);
        print_denials(out, against->ledger, 5);
        fprintf(out, "\n");
        break;
    case AUDIT_NO_NETWORK:
        fprintf(out, "sbx: verdict: the command does not touch the network "
                     "(it passes under %s and nothing was denied)\n", against->profile);
        break;
    case AUDIT_FAILS_UNDER_PROFILE:
        fprintf(out, "sbx: verdict: the command fails under %s itself: fix that first, "
                     "the comparison proves nothing\n", under->profile);
        break;
    }
    fflush(out);
}

const char *audit_verdict_name(enum audit_verdict v)
{
    switch (v) {
    case AUDIT_TRUSTWORTHY: return "trustworthy";
    case AUDIT_TRUSTWORTHY_NO_DENIALS: return "trustworthy-no-denials";
    case AUDIT_FALSE_GREEN: return "false-green";
    case AUDIT_NO_NETWORK: return "no-network";
    case AUDIT_FAILS_UNDER_PROFILE: return "fails-under-profile";
    }
    return "?";
}
