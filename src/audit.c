/* `sbx audit`'s verdict: a pure function of the two runs, and the report
 * that says it (no system call here; tests/unit/audit-test.c). */
#include "config.h"

#include "audit.h"

#include "exit.h"
#include "ledger.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

enum audit_verdict audit_decide(const struct audit_run *under, const struct audit_run *against)
{
    if (under->exit_status != 0)
        return AUDIT_FAILS_UNDER_PROFILE;
    uint64_t denied = ledger_total(against->ledger);
    /* A run stopped by its timeout failed, whatever status the command
     * chose on SIGTERM: with denials it hung on what was taken away
     * (issue 16: a test that timed out there with denials is exercised). */
    if (against->exit_status != 0 || against->timed_out)
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

struct audit_bound audit_against_bound(uint64_t first_run_us, bool option_set, uint64_t option_ms,
                                       uint64_t profile_timeout_ms)
{
    struct audit_bound b = { 0, AUDIT_BOUND_NONE, 0 };
    if (option_set) {
        if (option_ms)
            b = (struct audit_bound){ option_ms, AUDIT_BOUND_OPTION, 0 };
    } else {
        /* in whole seconds, rounded up: "a bound of 31 s", not "30663 ms" */
        uint64_t first_s = first_run_us / 1000000 + (first_run_us % 1000000 != 0);
        uint64_t ms = first_s > UINT64_MAX / 1000 / AUDIT_AGAINST_FACTOR
                          ? UINT64_MAX / 1000 * 1000
                          : first_s * AUDIT_AGAINST_FACTOR * 1000;
        if (ms < AUDIT_AGAINST_FLOOR_MS)
            ms = AUDIT_AGAINST_FLOOR_MS;
        b = (struct audit_bound){ ms, AUDIT_BOUND_FIRST_RUN, first_run_us };
    }
    if (profile_timeout_ms && (!b.timeout_ms || profile_timeout_ms <= b.timeout_ms))
        b = (struct audit_bound){ profile_timeout_ms, AUDIT_BOUND_PROFILE, 0 };
    return b;
}

static void format_ms(char *buf, size_t len, uint64_t ms)
{
    if (ms % 1000)
        snprintf(buf, len, "%" PRIu64 " ms", ms);
    else if (ms % 60000 || ms < 120000)
        snprintf(buf, len, "%" PRIu64 " s", ms / 1000);
    else if (ms % 3600000)
        snprintf(buf, len, "%" PRIu64 " min", ms / 60000);
    else
        snprintf(buf, len, "%" PRIu64 " h", ms / 3600000);
}

void audit_describe_bound(char *buf, size_t len, const struct audit_bound *b)
{
    char d[32];
    format_ms(d, sizeof d, b->timeout_ms);
    switch (b->source) {
    case AUDIT_BOUND_NONE:
        snprintf(buf, len, "none");
        return;
    case AUDIT_BOUND_FIRST_RUN:
        snprintf(buf, len, "%s: %d x the first run's %.2f s, at least %d s", d, AUDIT_AGAINST_FACTOR,
                 (double)b->first_run_us / 1e6, AUDIT_AGAINST_FLOOR_MS / 1000);
        return;
    case AUDIT_BOUND_OPTION:
        snprintf(buf, len, "%s: --against-timeout", d);
        return;
    case AUDIT_BOUND_PROFILE:
        snprintf(buf, len, "%s: the profile's timeout", d);
        return;
    }
    snprintf(buf, len, "?");
}

const char *audit_bound_source_name(enum audit_bound_source s)
{
    switch (s) {
    case AUDIT_BOUND_NONE: return NULL;
    case AUDIT_BOUND_FIRST_RUN: return "first-run";
    case AUDIT_BOUND_OPTION: return "option";
    case AUDIT_BOUND_PROFILE: return "profile";
    }
    return NULL;
}

static void describe_status(char *buf, size_t len, const struct audit_run *r)
{
    int status = r->exit_status;
    if (r->timed_out) {
        char b[160];
        audit_describe_bound(b, sizeof b, &r->bound);
        snprintf(buf, len, "failed (timed out at %s; %d)", b, SBX_EXIT_TIMEOUT);
    } else if (status == 0)
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
    char st[256];
    describe_status(st, sizeof st, r);
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
                     "(it %s under %s when ", against->timed_out ? "timed out" : "fails",
                against->profile);
        print_denials(out, against->ledger, 3);
        fprintf(out, ")\n");
        break;
    case AUDIT_TRUSTWORTHY_NO_DENIALS:
        if (against->timed_out)
            fprintf(out, "sbx: verdict: trustworthy: the command notices the restrictions of %s "
                         "(it timed out there although no call was denied: it waits for "
                         "something %s takes away, such as loopback)\n", against->profile,
                    against->profile);
        else
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

void audit_print_interrupted(FILE *out, int sig, int during, const char *const profiles[2])
{
    const char *abbrev = sigabbrev_np(sig);
    char name[32];
    if (abbrev)
        snprintf(name, sizeof name, "SIG%s", abbrev);
    else
        snprintf(name, sizeof name, "signal %d", sig);
    if (during < 0) {
        fprintf(out, "sbx: audit: interrupted by %s before run 1 of 2 (under %s) started: "
                     "no verdict\n", name, profiles[0]);
        fflush(out);
        return;
    }
    if (during >= 2) {
        /* issue 34: after both runs, the phase is the re-runs of single
         * tests, not "run 2" */
        fprintf(out, "sbx: audit: interrupted by %s during the re-runs of single tests under %s "
                     "(after both runs): no verdict\n", name, profiles[1]);
        fflush(out);
        return;
    }
    int i = during == 1 ? 1 : 0;
    fprintf(out, "sbx: audit: interrupted by %s during run %d of 2 (under %s): no verdict", name,
            i + 1, profiles[i]);
    if (i == 0)
        fprintf(out, "; run 2 (under %s) was not started", profiles[1]);
    fprintf(out, "\n");
    fflush(out);
}

void audit_print_bound(FILE *out, const struct audit_bound *b)
{
    char text[160];
    audit_describe_bound(text, sizeof text, b);
    fprintf(out, "sbx: audit: time bound of this run: %s%s\n", text,
            b->source == AUDIT_BOUND_FIRST_RUN ? " (--against-timeout changes it)" : "");
}
