#ifndef SBX_CLI_H
#define SBX_CLI_H
int cli_main(int argc, char **argv);
#endif
