/* sbx: dispatch to a subcommand. Nothing else lives here. */
#include "config.h"

#include "cli.h"
#include "log.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}
