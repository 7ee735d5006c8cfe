/* sbx: the subcommand dispatcher and top-level help. Option parsing of
 * each subcommand lives with it (cli.c for run/audit). */
#include "config.h"

#include "cli.h"
#include "commands.h"
#include "exit.h"
#include "log.h"

#include <gnu/libc-version.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char usage_text[] =
    "Usage: sbx run [OPTIONS] [--] COMMAND [ARG...]\n"
    "       sbx audit [--profile P] [--against Q] [OPTIONS] [--] COMMAND [ARG...]\n"
    "       sbx probe [--json | --tap] [--profile P]\n"
    "       sbx profile list | show [--tier namespaces|landlock] NAME | check FILE... | learn [--base P] -- COMMAND\n"
    "       sbx cache list | clear [--stale] [PROFILE]\n"
    "       sbx hook claude-code|codex [--audit] [--profile P]\n"
    "       sbx explain [--profile] RECORD\n"
    "       sbx --version | --help | help COMMAND\n";

static void print_main_help(FILE *out)
{
    fputs("sbx runs a command in a namespace sandbox with a working loopback and\n"
          "enough file descriptors, from a declarative INI profile.\n\n", out);
    fputs(usage_text, out);
    fputs("\nCommands:\n"
          "  run       run COMMAND in a sandbox built from a profile\n"
          "  audit     run COMMAND under two profiles and say whether its green is trustworthy\n"
          "  probe     say what this environment can validate (namespaces, loopback, limits)\n"
          "  profile   list, show or check profiles\n"
          "  cache     list or clear the private write layers of cache rules\n"
          "  hook      an agent harness's hook: run its test commands in sbx\n"
          "  explain   a run record's refusals as the profile lines that answer them\n"
          "  help      help on a command: sbx help run\n"
          "\nExit status: the command's own; 128+N when killed by signal N; 124 timeout;\n"
          "125 sbx failed; 126 command not executable; 127 command not found;\n"
          "3 --strict and the command exited 0 after denied operations.\n"
          "\nSee sbx(1) and sbx-profile(5).\n", out);
}

static void print_profile_help(FILE *out)
{
    fputs("Usage: sbx profile list              profiles on the search path\n"
          "       sbx profile show NAME|PATH    the effective profile, each line with its origin\n"
          "       sbx profile show --tier landlock NAME|PATH\n"
          "                                     ... and what the Landlock tier does with it here\n"
          "       sbx profile check FILE...     report every error in each profile\n"
          "       sbx profile learn [--base P] [--permissive Q] -- COMMAND\n"
          "                                     the lines over P (deny-network) under which COMMAND\n"
          "                                     passes, each with the refusal it answers\n"
          "\nSearch path: $SBX_PROFILE_PATH, ~/.config/sbx/profiles, " SBX_SYSCONFDIR "/sbx/profiles,\n"
          SBX_PKGDATADIR "/profiles. See sbx-profile(5).\n",
          out);
}

static void print_probe_help(FILE *out)
{
    fputs("Usage: sbx probe [--json | --tap] [--profile P]\n\n"
          "Says what this environment can validate: namespaces, loopback bind and\n"
          "connect, descriptor limits, seccomp, no_new_privs, Landlock. With --profile,\n"
          "runs the checks inside a sandbox built from P. Exit 0 when network tests\n"
          "can be validated here, 1 when they cannot.\n",
          out);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "sbx: %s\n", msg);
    fputs(usage_text, stderr);
    return SBX_EXIT_FAILURE;
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        print_main_help(stdout);
        return 0;
    }
    const char *what = argv[1];
    if (!strcmp(what, "run"))
        cli_print_run_help(stdout, CLI_MODE_RUN);
    else if (!strcmp(what, "audit"))
        cli_print_run_help(stdout, CLI_MODE_AUDIT);
    else if (!strcmp(what, "profile"))
        print_profile_help(stdout);
    else if (!strcmp(what, "probe"))
        print_probe_help(stdout);
    else if (!strcmp(what, "cache"))
        cli_print_cache_help(stdout);
    else if (!strcmp(what, "help"))
        print_main_help(stdout);
    else
        return usage_error("no help on '%s': commands are run, audit, probe, profile, cache", what);
    return 0;
}

int main(int argc, char **argv)
{
    verbose_clock_start();
    if (argc < 2)
        return usage_error("no command given");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("sbx %s\n", PACKAGE_VERSION);
#ifdef SBX_STATIC_BINARY
        /* Built in, so a security fix in one of them needs a rebuild of sbx. */
        printf("static PIE with glibc %s, %s\n", gnu_get_libc_version(), SBX_STATIC_VERSIONS);
#endif
        return 0;
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        print_main_help(stdout);
        return 0;
    }
    if (!strcmp(cmd, "help"))
        return cmd_help(argc - 1, argv + 1);
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "audit"))
        return cmd_audit(argc - 1, argv + 1);
    if (!strcmp(cmd, "probe")) {
        if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            print_probe_help(stdout);
            return 0;
        }
        return cmd_probe(argc - 1, argv + 1);
    }
    if (!strcmp(cmd, "profile")) {
        if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            print_profile_help(stdout);
            return 0;
        }
        return cmd_profile(argc - 1, argv + 1);
    }
    if (!strcmp(cmd, "cache"))
        return cmd_cache(argc - 1, argv + 1);
    if (!strcmp(cmd, "hook"))
        return cmd_hook(argc - 1, argv + 1);
    if (!strcmp(cmd, "explain"))
        return cmd_explain(argc - 1, argv + 1);
    if (cmd[0] == '-')
        return usage_error("unknown option '%s' (options go after the command: sbx run -v ...)", cmd);
    return usage_error("unknown command '%s'", cmd);
}
