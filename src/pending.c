/* Subcommands whose feature lands later in this series. Each says so in
 * one line and exits 125. Removed as the features are merged. */
#include "config.h"

#include "commands.h"
#include "log.h"

#include <stdio.h>

int cmd_audit(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "sbx: 'sbx audit' is not available in this build yet\n");
    return SBX_EXIT_FAILURE;
}
