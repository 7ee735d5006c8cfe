/* The subcommands main() (main.c) dispatches to; argv[0] is the subcommand. */
#ifndef SBX_COMMANDS_H
#define SBX_COMMANDS_H

#include <stdio.h>

int cmd_run(int argc, char **argv);      /* run_cmd.c */
int cmd_audit(int argc, char **argv);    /* audit_cmd.c */
int cmd_probe(int argc, char **argv);    /* probe_cmd.c */
int cmd_profile(int argc, char **argv);  /* profile_cmd.c */
int cmd_cache(int argc, char **argv);    /* cache_cmd.c */
void cli_print_cache_help(FILE *out);    /* cache_cmd.c */
int cmd_hook(int argc, char **argv);     /* hook_cmd.c */
int cmd_explain(int argc, char **argv);  /* explain_cmd.c */
int cmd_profile_learn(int argc, char **argv);  /* learn_cmd.c: argv[0] is "learn" */

/* "sbx: MSG" and a pointer to `sbx help SUB`; returns 125. */
int cli_run_usage_error(const char *sub, const char *msg);

#endif
