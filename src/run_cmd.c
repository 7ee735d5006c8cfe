/* `sbx run`: options, profile, sandbox, exit status. */
#include "config.h"

#include "cli.h"
#include "commands.h"
#include "exit.h"
#include "egress.h"
#include "ledger.h"
#include "log.h"
#include "report.h"
#include "sandbox.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

int cmd_run(int argc, char **argv)
{
    struct run_cli c;
    char err[512];
    switch (cli_parse_run(argc, argv, CLI_MODE_RUN, &c, err, sizeof err)) {
    case CLI_HELP:
        cli_print_run_help(stdout, CLI_MODE_RUN);
        run_cli_free(&c);
        return 0;
    case CLI_USAGE:
        run_cli_free(&c);
        return cli_run_usage_error("run", err);
    case CLI_OK:
        break;
    }
    log_verbosity = c.verbosity;
    /* Opened first: an unwritable path stops sbx before anything runs, and
     * from here on every exit writes the record (report.h). */
    struct run_record *rec = c.report ? report_open(c.report) : NULL;
    record_command(c.command, NULL);
    const char *name = c.profile ? c.profile : getenv("SBX_PROFILE");
    if (!name || !*name)
        name = "default";

    struct profile p;
    record_step("load profile %s", name);
    cli_load_profile(&p, name, &c);
    verbose_step("profile %s read", name);
    record_profile(&p);
    char *cwd = cli_command_cwd(&c);
    record_command(c.command, cwd);

    struct sandbox_request req = {
        .profile = &p,
        .argv = c.command,
        .cwd = cwd,
        .terminal = true,
    };
    struct sandbox_result res = {0};
    int status = sandbox_run(&req, &res);
    /* --strict: a green after denied operations proves nothing (sbx(1) DENIED OPERATIONS). */
    if (c.strict && status == 0 && (ledger_total(res.ledger) > 0 || egress_refused(res.egress) > 0))
        status = SBX_EXIT_STRICT;
    if (rec && !report_write(rec, &res, status))
        status = SBX_EXIT_FAILURE;

    sandbox_result_free(&res);
    free(cwd);
    profile_free(&p);
    run_cli_free(&c);
    return status;
}
