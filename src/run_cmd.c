/* `sbx run`: options, profile, sandbox, exit status. */
#include "config.h"

#include "cli.h"
#include "commands.h"
#include "log.h"
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
    const char *name = c.profile ? c.profile : getenv("SBX_PROFILE");
    if (!name || !*name)
        name = "default";

    struct profile p;
    cli_load_profile(&p, name, &c);
    char *cwd = cli_command_cwd(&c);

    struct sandbox_request req = {
        .profile = &p,
        .argv = c.command,
        .cwd = cwd,
    };
    struct sandbox_result res = {0};
    int status = sandbox_run(&req, &res);

    sandbox_result_free(&res);
    free(cwd);
    profile_free(&p);
    run_cli_free(&c);
    return status;
}
