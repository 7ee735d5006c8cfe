/* Command-line parsing and the subcommand dispatcher.
 *
 * cli_parse_run() is pure (getopt_long state aside): it turns `sbx run` /
 * `sbx audit` arguments into a struct run_cli, so it is unit-tested and
 * fuzzed without starting anything. */
#ifndef SBX_CLI_H
#define SBX_CLI_H

#include "profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pwd.h>
#include <sys/types.h>

/* One option that changes the profile, applied in command-line order on
 * top of it through profile_apply_option(). */
struct cli_override {
    const char *section;
    const char *key;
    const char *value;  /* points into argv */
    const char *label;  /* "--rw" */
};

struct run_cli {
    const char *profile;    /* -p; NULL: $SBX_PROFILE or "default" */
    const char *against;    /* audit: --against */
    const char *runner;     /* audit: --runner */
    bool against_timeout_set;      /* audit: --against-timeout given */
    uint64_t against_timeout_ms;   /* its value; 0: no bound of the audit's */
    const char *chdir;      /* -C */
    const char *report;     /* --report */
    const char *junit;      /* audit: --junit FILE */
    const char *tap;        /* audit: --tap FILE */
    bool strict;
    int verbosity;          /* LOG_QUIET .. LOG_VERBOSE */
    struct cli_override *overrides;
    size_t noverrides;
    char **command;         /* NULL-terminated, points into argv */
    int ncommand;
};

enum cli_result {
    CLI_OK,     /* run it */
    CLI_HELP,   /* help was asked for: print it, exit 0 */
    CLI_USAGE,  /* bad usage: message in err, exit 125 */
};

enum cli_mode { CLI_MODE_RUN, CLI_MODE_AUDIT };

/* argv[0] is the subcommand ("run" or "audit"). */
enum cli_result cli_parse_run(int argc, char **argv, enum cli_mode mode, struct run_cli *out,
                              char *err, size_t errlen);
void run_cli_free(struct run_cli *c);

/* Loads the profile a run asks for: lookup, includes, then the overrides.
 * Prints every error ("sbx: file:line: ...") and exits 125 on any. */
void cli_load_profile(struct profile *p, const char *name, const struct run_cli *c);

/* The caller's directory and identity as ${VAR}s for profiles. Strings
 * live until the process exits. */
const struct profile_vars *cli_profile_vars(void);

/* The project (${PROJECT}) of the last profile loaded by
 * cli_load_profile(): the work tree holding the command's working
 * directory. Empty (root NULL) before. */
struct project;
const struct project *cli_project(void);

/* The caller's home directory from the passwd database (canonical when
 * it exists), or NULL when the uid has no entry (project.h: a $HOME other
 * than this one is a build's or a test's). */
const char *cli_account_home(void);
/* realpath() of home ($HOME: the project root's and the plan's checks
 * each want it), worked out once for each home asked; NULL when it has
 * none. Owned by cli.c. */
const char *cli_home_real(const char *home);


/* uid's entry in a passwd(5) file, without NSS (sbx's password database
 * in every build, src/cli.c): NULL if the file cannot be read or has
 * none. The entry is fgetpwent()'s static one, valid until the next call. */
struct passwd *passwd_file_entry(const char *path, uid_t uid);

/* Where the command starts: -C (relative to the caller's directory) or the
 * caller's directory. Exits 125 when it cannot be known. */
char *cli_command_cwd(const struct run_cli *c);

void cli_print_run_help(FILE *out, enum cli_mode mode);

#endif
