/* `sbx audit`: options, both profiles loaded before anything runs, the two
 * sandboxed runs, then the verdict (audit.h) and the exit status. */
#include "config.h"

#include "audit.h"
#include "audit_ci_out.h"
#include "audit_per_test.h"
#include "audit_signals.h"
#include "cli.h"
#include "commands.h"
#include "exit.h"
#include "ledger.h"
#include "log.h"
#include "output_file.h"
#include "report.h"
#include "runner.h"
#include "sandbox.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void close_ci(struct audit_ci_outputs *ci)
{
    struct output_file *f[3] = { ci->junit, ci->tap, ci->step_summary };
    for (int i = 0; i < 3; i++)
        if (f[i])
            output_file_close(f[i]);
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
    audit_catch_stop_signals();
    /* --strict needs nothing here: the verdict already exits 3 for a green
     * after denials. */
    const char *names[2] = { c.profile ? c.profile : "qa", c.against ? c.against : "restrictive" };
    const char *labels[2] = { "run 1 of 2", "run 2 of 2" };

    /* Opened first: an unwritable path stops sbx before anything runs, and
     * a die() later still leaves what is known in the file (report.h). */
    if (c.report)
        report_audit_open(c.report);
    /* --junit, --tap and $GITHUB_STEP_SUMMARY are written by sbx outside
     * the sandbox, after the command ran: opened now, as --report is
     * (output_file.h: a link planted in between is replaced, never
     * followed; a device or a directory is refused now). */
    struct output_file junit, tap, step_summary;
    struct audit_ci_outputs ci = { 0 };
    __attribute__((cleanup(strv_free))) struct strv writable = { 0 };
    report_writable_places(&writable);
    if (c.junit) {
        output_file_open(&junit, c.junit, "--junit", &writable);
        ci.junit = &junit;
    }
    if (c.tap) {
        output_file_open(&tap, c.tap, "--tap", &writable);
        ci.tap = &tap;
    }
    const char *gh = getenv("GITHUB_STEP_SUMMARY");
    if (gh && gh[0]) {
        output_file_open(&step_summary, gh, "GITHUB_STEP_SUMMARY", &writable);
        ci.step_summary = &step_summary;
    }
    /* Both profiles are loaded before anything runs: a typo in --against
     * should not cost a full run of the suite first. */
    struct profile profiles[2];
    cli_load_profile(&profiles[0], names[0], &c);
    cli_load_profile(&profiles[1], names[1], &c);
    char *cwd = cli_command_cwd(&c);
    runner_set_project_dir(cwd);  /* npm test: its package.json */

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
        struct audit_per_test_options o = {
            .report = c.report != NULL,
            .against_timeout_set = c.against_timeout_set,
            .against_timeout_ms = c.against_timeout_ms,
            .ci = ci,
        };
        int status = audit_per_test(runner, c.command, cwd, pp, names, &o, why, sizeof why);
        if (status >= 0) {
            close_ci(&ci);
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
    int nresults = 0;
    int interrupted_by = 0, interrupted_during = -1;
    for (int i = 0; i < 2; i++) {
        if ((interrupted_by = audit_stop_requested(NULL))) {
            interrupted_during = i - 1;
            break;
        }
        struct audit_bound bound = { profiles[i].timeout_ms,
                                     profiles[i].timeout_ms ? AUDIT_BOUND_PROFILE : AUDIT_BOUND_NONE, 0 };
        if (i == 1)
            bound = audit_against_bound(results[0].duration_us, c.against_timeout_set,
                                        c.against_timeout_ms, profiles[1].timeout_ms);
        char label[128];
        snprintf(label, sizeof label, "%s, under %s", labels[i], names[i]);
        fprintf(stderr, "sbx: audit: ---- %s ----\n", label);
        if (i == 1) {
            audit_print_bound(stderr, &bound);
        }
        fflush(stderr);
        fflush(stdout);
        struct sandbox_request req = {
            .profile = &profiles[i], .argv = c.command, .cwd = cwd, .label = label,
            .timeout_ms = bound.timeout_ms,
            .may_start = audit_may_start, .stop_signals = audit_caught_signals(),
        };
        if (c.report) {
            report_audit_begin_run(i, label);
            record_profile(&profiles[i]);
            record_command(c.command, cwd);
            if (i == 1)
                report_audit_against_timeout(bound.timeout_ms, audit_bound_source_name(bound.source));
        }
        int status = sandbox_run(&req, &results[i]);
        nresults = i + 1;
        fflush(stdout);
        runs[i] = (struct audit_run){
            .profile = names[i],
            .exit_status = results[i].command_ran || results[i].exit_status ? results[i].exit_status : status,
            .duration_us = results[i].duration_us,
            .ledger = results[i].ledger,
            .timed_out = results[i].timed_out,
            .bound = bound,
        };
        if (!results[i].not_started)
            fprintf(stderr, "sbx: audit: ---- end of %s ----\n", label);
        if (c.report) {
            report_audit_end_run(i, &results[i], runs[i].exit_status);
            if (i == 1)
                report_audit_against_timed_out(results[i].timed_out);
        }
        /* Checked before anything else: a signal stops the audit whatever
         * the command made of it (a run stopped before clone() is not a
         * failure of sbx, and a command that exits 0 on SIGTERM did not
         * pass). */
        if ((interrupted_by = audit_stop_requested(&results[i]))) {
            interrupted_during = results[i].not_started ? i - 1 : i;
            break;
        }
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
    int status_override = 0, exit_status;
    if (interrupted_by) {
        /* sbx(1) AUDIT: 128+N, and no verdict from a half of the evidence. */
        exit_status = 128 + interrupted_by;
        audit_print_interrupted(stderr, interrupted_by, interrupted_during, names);
        if (c.report) {
            report_audit_interrupted(interrupted_by, interrupted_during);
            if (!report_audit_write(NULL, exit_status))
                status_override = SBX_EXIT_FAILURE;
        }
    } else {
        enum audit_verdict v = audit_decide(&runs[0], &runs[1]);
        audit_print_report(stderr, &runs[0], &runs[1], v);
        exit_status = audit_verdict_exit_status(v);
        /* one testcase: the command as a whole */
        char denied[256] = "";
        if (ledger_total(runs[1].ledger)) {
            snprintf(denied, sizeof denied, "%llu denied call(s) under %s",
                     (unsigned long long)ledger_total(runs[1].ledger), names[1]);
        }
        struct audit_ci_row row = {
            .name = "(the command as a whole)", .kind = "test",
            .verdict = v == AUDIT_FALSE_GREEN ? "false-green"
                       : v == AUDIT_FAILS_UNDER_PROFILE ? "fails"
                       : v == AUDIT_NO_NETWORK ? "unaffected" : "exercised",
            .under = runs[0].exit_status ? "failed" : "passed",
            .against = runs[1].exit_status || runs[1].timed_out ? "failed" : "passed",
            .denied = denied, .note = " (sbx could not see individual tests)",
            .seconds = (double)runs[0].duration_us / 1e6,
        };
        if (!audit_ci_write(&ci, "the command", audit_verdict_name(v), &row, 1))
            status_override = SBX_EXIT_FAILURE;
        if (c.report && !report_audit_write(audit_verdict_name(v), exit_status))
            status_override = SBX_EXIT_FAILURE;  /* the evidence asked for is missing */
    }

    for (int i = 0; i < nresults; i++)
        sandbox_result_free(&results[i]);
    for (int i = 0; i < 2; i++)
        profile_free(&profiles[i]);
    close_ci(&ci);
    free(cwd);
    run_cli_free(&c);
    return status_override ? status_override : exit_status;
}
