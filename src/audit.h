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

/* The --against run is bounded (sbx(1) AUDIT): CPython's test_httpservers
 * waits until killed when bind() is denied, 15 minutes of a 34-minute
 * audit. Under --against a denied call fails at once with EPERM, so an
 * honest suite takes about as long as under the profile (less: the first
 * run warmed the caches); 3 x leaves room for a loaded machine and for
 * tests that retry, and the 10 s floor for suites so short that the start
 * of an interpreter or a test harness is most of their time. */
#define AUDIT_AGAINST_FACTOR 3
#define AUDIT_AGAINST_FLOOR_MS 10000

enum audit_bound_source {
    AUDIT_BOUND_NONE,        /* nothing bounds the run */
    AUDIT_BOUND_FIRST_RUN,   /* AUDIT_AGAINST_FACTOR x the first run, at least the floor */
    AUDIT_BOUND_OPTION,      /* --against-timeout */
    AUDIT_BOUND_PROFILE,     /* the profile's own timeout (or --timeout), as short or shorter */
};

struct audit_bound {
    uint64_t timeout_ms;     /* 0: none */
    enum audit_bound_source source;
    uint64_t first_run_us;   /* with AUDIT_BOUND_FIRST_RUN: what it is a multiple of */
};

/* The bound of the --against run after a first run of first_run_us:
 * --against-timeout when given (option_set; 0 = no bound of the audit's),
 * else the multiple; never longer than profile_timeout_ms (0: none). */
struct audit_bound audit_against_bound(uint64_t first_run_us, bool option_set, uint64_t option_ms,
                                       uint64_t profile_timeout_ms);

/* "10 s: 3 x the first run's 0.20 s, at least 10 s", "2 m: --against-timeout",
 * "5 s: the profile's timeout", "none". */
void audit_describe_bound(char *buf, size_t len, const struct audit_bound *b);

/* "sbx: audit: time bound of this run: ...", as both kinds of audit say
 * it before the run under --against. */
void audit_print_bound(FILE *out, const struct audit_bound *b);

/* "first-run", "option", "profile", or NULL without a bound: its
 * name in the audit record. */
const char *audit_bound_source_name(enum audit_bound_source s);

struct audit_run {
    const char *profile;    /* name as given */
    int exit_status;        /* sbx(1) EXIT STATUS: 0 passed, anything else failed */
    uint64_t duration_us;
    const struct ledger *ledger;  /* NULL: no deny rule applied */
    bool timed_out;         /* its timeout (bound) expired: counted as a failure */
    struct audit_bound bound;     /* what bounded it */
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

/* A signal stopped the audit: no verdict. during: the run that was under
 * way or had just ended (0 or 1; -1: before the first started; 2: the
 * re-runs of single tests after both runs). "sbx: audit: interrupted by SIGINT
 * during run 1 of 2 (under qa): no verdict; run 2 (under restrictive)
 * was not started". */
void audit_print_interrupted(FILE *out, int sig, int during, const char *const profiles[2]);

#endif
