#include "config.h"
#include "cli.h"
#include <stdio.h>
int cli_main(int argc, char **argv)
{
    (void)argc; (void)argv;
    printf("sbx %s\n", PACKAGE_VERSION);
    return 0;
}
