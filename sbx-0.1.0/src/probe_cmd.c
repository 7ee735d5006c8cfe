/* `sbx probe`: options, where the checks run (here, or inside a sandbox
 * built from --profile P), the output format, the exit status. */
#include "config.h"

#include "commands.h"
#include "exit.h"
#include "log.h"
#include "probe.h"
#include "probe_output.h"
#include "probe_profile.h"

#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool want_colour(FILE *out)
{
    /* https://no-color.org: present and not empty disables colour. */
    const char *no_colour = getenv("NO_COLOR");
    if (no_colour && *no_colour)
        return false;
    const char *term = getenv("TERM");
    if (term && !strcmp(term, "dumb"))
        return false;
    return isatty(fileno(out));
}

static void probe_usage(FILE *out)
{
    fputs("usage: sbx probe [--json | --tap] [--profile NAME|PATH]\n"
          "Says what this environment can validate: namespaces, loopback bind and\n"
          "connect, AF_UNIX, RLIMIT_NOFILE, seccomp, Landlock, container hints, and\n"
          "the credential-like files readable here.\n"
          "  --json           one JSON object (keys: docs/probe-json.md)\n"
          "  --tap            TAP, one test per check\n"
          "  -p, --profile P  run the same checks inside a sandbox built from P\n"
          "Exit status: 0 when network tests can be validated here, 1 when not.\n",
          out);
}

int cmd_probe(int argc, char **argv)
{
    enum { FORMAT_TABLE, FORMAT_JSON, FORMAT_TAP } format = FORMAT_TABLE;
    const char *profile = NULL, *scan_cwd = NULL;
    static const struct option options[] = {
        {"json", no_argument, NULL, 'j'},
        {"tap", no_argument, NULL, 't'},
        {"profile", required_argument, NULL, 'p'},
        /* internal: probe --profile passes the caller's directory, the
         * inner probe itself starts in / */
        {"scan-cwd", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    /* "+": stop at the first non-option, as every sbx subcommand does. */
    optind = 0;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "+:p:h", options, NULL)) != -1) {
        switch (opt) {
        case 'j':
        case 't':
            if (format != FORMAT_TABLE && format != (opt == 'j' ? FORMAT_JSON : FORMAT_TAP))
                die("probe: --json and --tap cannot be combined: choose one format");
            format = opt == 'j' ? FORMAT_JSON : FORMAT_TAP;
            break;
        case 'p':
            profile = optarg;
            break;
        case 'C':
            scan_cwd = optarg;
            break;
        case 'h':
            probe_usage(stdout);
            return 0;
        case ':':
            die("probe: option %s needs an argument (see sbx probe --help)", argv[optind - 1]);
        default:
            die("probe: unknown option '%s' (see sbx probe --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        die("probe: unexpected argument '%s' (see sbx probe --help)", argv[optind]);

    if (profile)
        return probe_in_profile(profile, format == FORMAT_JSON ? "--json"
                                         : format == FORMAT_TAP ? "--tap" : NULL);

    struct probe_results r;
    probe_run(&r, scan_cwd);
    switch (format) {
    case FORMAT_TABLE:
        probe_print_table(&r, stdout, want_colour(stdout));
        break;
    case FORMAT_TAP:
        probe_print_tap(&r, stdout);
        break;
    case FORMAT_JSON: {
        struct json_object *j = probe_to_json(&r);
        fputs(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
                                                    JSON_C_TO_STRING_SPACED |
                                                    JSON_C_TO_STRING_NOSLASHESCAPE),
              stdout);
        fputc('\n', stdout);
        json_object_put(j);
        break;
    }
    }
    int status = r.network.ok ? 0 : SBX_EXIT_VERDICT_NEGATIVE;
    probe_results_free(&r);
    if (fflush(stdout) != 0)
        die_errno("probe: writing the results to standard output");
    return status;
}
