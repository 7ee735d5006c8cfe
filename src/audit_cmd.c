/* `sbx audit`: options, both profiles loaded before anything runs, the two
 * sandboxed runs, then the verdict (audit.h) and the exit status. */
#include "config.h"

#include "audit.h"
#include "audit_per_test.h"
#include "cli.h"
#include "commands.h"
#include "exit.h"
#include "log.h"
#include "report.h"
#include "runner.h"
#include "sandbox.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

    /* Test by test when sbx knows the runner (audit_per_test.c); else the
     * command as a whole, saying so. */
    const struct runner *runner = NULL;
    char why[256] = "";
    if (c.runner) {
        const char *near = NULL;
        runner = runner_by_name(c.runner, &near);
        if (!runner)
            die("--runner %s: no such runner (%s)%s%s%s", c.runner, runner_names(),
                near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    } else {
        runner = runner_detect(c.command, why, sizeof why);
    }
    if (runner) {
        const struct profile *pp[2] = { &profiles[0], &profiles[1] };
        int status = audit_per_test(runner, c.command, cwd, pp, names, c.report != NULL, why,
                                    sizeof why);
        if (status >= 0) {
            for (int i = 0; i < 2; i++)
                profile_free(&profiles[i]);
            free(cwd);
            run_cli_free(&c);
            return status;
        }
    }
    fprintf(stderr, "sbx: audit: sbx could not see individual tests: %s; judging the command as a "
            "whole\n", why);

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
    if (c.report && !report_audit_write(audit_verdict_name(v), audit_verdict_exit_status(v))) {
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
