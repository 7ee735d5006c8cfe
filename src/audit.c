#include "config.h"

#include "audit.h"

#include "cli.h"
#include "commands.h"
#include "exit.h"
#include "ledger.h"
#include "log.h"
#include "report.h"
#include "sandbox.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static const char *verdict_name(enum audit_verdict v)
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

int cmd_audit(int argc, char **argv)
{
    struct run_cli c;
    char err[512];
    switch (cli_parse_run(argc, argv, CLI_MODE_AUDIT, &c, err, sizeof err)) {
    case CLI_HELP:
        cli_print_run_help(stdout, CLI_MODE_AUDIT);
        run_cli_free(&c);
        return 0;
    case CLI_USAGE:
        run_cli_free(&c);
        return cli_run_usage_error("audit", err);
    case CLI_OK:
        break;
    }
    log_verbosity = c.verbosity;
    /* --strict needs nothing here: the verdict already exits 3 for a green
     * after denials. */
    const char *names[2] = { c.profile ? c.profile : "qa", c.against ? c.against : "restrictive" };
    const char *labels[2] = { "run 1 of 2", "run 2 of 2" };

    /* Opened first: an unwritable path stops sbx before anything runs, and
     * a die() later still leaves what is known in the file (report.h). */
    if (c.report)
        report_audit_open(c.report);
    /* Both profiles are loaded before anything runs: a typo in --against
     * should not cost a full run of the suite first. */
    struct profile profiles[2];
    cli_load_profile(&profiles[0], names[0], &c);
    cli_load_profile(&profiles[1], names[1], &c);
    char *cwd = cli_command_cwd(&c);

    struct sandbox_result results[2];
    struct audit_run runs[2];
    memset(results, 0, sizeof results);
    for (int i = 0; i < 2; i++) {
        char label[128];
        snprintf(label, sizeof label, "%s, under %s", labels[i], names[i]);
        fprintf(stderr, "sbx: audit: ---- %s ----\n", label);
        fflush(stderr);
        fflush(stdout);
        struct sandbox_request req = {
            .profile = &profiles[i], .argv = c.command, .cwd = cwd, .label = label,
        };
        if (c.report) {
            report_audit_begin_run(i, label);
            record_profile(&profiles[i]);
            record_command(c.command, cwd);
        }
        int status = sandbox_run(&req, &results[i]);
        fflush(stdout);
        runs[i] = (struct audit_run){
            .profile = names[i],
            .exit_status = results[i].command_ran || results[i].exit_status ? results[i].exit_status : status,
            .duration_us = results[i].duration_us,
            .ledger = results[i].ledger,
        };
        fprintf(stderr, "sbx: audit: ---- end of %s ----\n", label);
        if (c.report)
            report_audit_end_run(i, &results[i], runs[i].exit_status);
        if (runs[i].exit_status == SBX_EXIT_FAILURE && !results[i].command_ran) {
            /* sbx itself failed: no verdict can rest on that run. */
            fprintf(stderr, "sbx: audit: no verdict: the sandbox could not run the command under %s\n",
                    names[i]);
            if (c.report)
                report_audit_write(NULL, SBX_EXIT_FAILURE);
            for (int k = 0; k <= i; k++)
                sandbox_result_free(&results[k]);
            profile_free(&profiles[0]);
            profile_free(&profiles[1]);
            free(cwd);
            run_cli_free(&c);
            return SBX_EXIT_FAILURE;
        }
    }
    int status_override = 0;
    enum audit_verdict v = audit_decide(&runs[0], &runs[1]);
    audit_print_report(stderr, &runs[0], &runs[1], v);
    if (c.report && !report_audit_write(verdict_name(v), audit_verdict_exit_status(v))) {
        status_override = SBX_EXIT_FAILURE;  /* the evidence asked for is missing */
    }

    for (int i = 0; i < 2; i++) {
        sandbox_result_free(&results[i]);
        profile_free(&profiles[i]);
    }
    free(cwd);
    run_cli_free(&c);
    return status_override ? status_override : audit_verdict_exit_status(v);
}
