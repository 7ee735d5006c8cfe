/* `sbx audit`: runs a command under two profiles and says whether its
 * green result is evidence (sbx(1), AUDIT).
 *
 * The decision is a pure function of the two runs so it is unit-tested
 * without a sandbox (audit.c); cmd_audit() (audit_cmd.c, declared in
 * commands.h) runs them. */
#ifndef SBX_AUDIT_H
#define SBX_AUDIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ledger;

enum audit_verdict {
    /* passes under P, fails under Q with denials: the suite really uses
     * what Q takes away */
    AUDIT_TRUSTWORTHY,
    /* passes under P, fails under Q without any denied call: loopback down
     * or the descriptor limit made it fail, so it notices restrictions */
    AUDIT_TRUSTWORTHY_NO_DENIALS,
    /* passes under both although Q denied calls: they were swallowed */
    AUDIT_FALSE_GREEN,
    /* passes under both, nothing denied */
    AUDIT_NO_NETWORK,
    /* fails under P: nothing can be concluded */
    AUDIT_FAILS_UNDER_PROFILE,
};

struct audit_run {
    const char *profile;    /* name as given */
    int exit_status;        /* sbx(1) EXIT STATUS: 0 passed, anything else failed */
    uint64_t duration_us;
    const struct ledger *ledger;  /* NULL: no deny rule applied */
};

enum audit_verdict audit_decide(const struct audit_run *under, const struct audit_run *against);

/* sbx(1) EXIT STATUS: 0 trustworthy or no network use, 3 suspected false
 * green (SBX_EXIT_STRICT), 1 fails under the first profile
 * (SBX_EXIT_VERDICT_NEGATIVE). */
int audit_verdict_exit_status(enum audit_verdict v);

/* "trustworthy", "false-green", ...: the verdict in the audit record. */
const char *audit_verdict_name(enum audit_verdict v);

/* The report after both runs: each run's status, duration and denials,
 * then "sbx: verdict: ..." naming what was swallowed. */
void audit_print_report(FILE *out, const struct audit_run *under,
                        const struct audit_run *against, enum audit_verdict v);

#endif
