#include "config.h"

#include "cli.h"

#include "commands.h"
#include "exit.h"
#include "log.h"
#include "lookup.h"
#include "project.h"
#include "util.h"

#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    OPT_RW = 256,
    OPT_RO,
    OPT_TMPFS,
    OPT_HIDE,
    OPT_SETENV,
    OPT_UNSETENV,
    OPT_KEEPENV,
    OPT_NOFILE,
    OPT_TIMEOUT,
    OPT_NETWORK,
    OPT_OUTBOUND,
    OPT_ALLOW,
    OPT_REPORT,
    OPT_STRICT,
    OPT_AGAINST,
    OPT_RUNNER,
    OPT_AGAINST_TIMEOUT,
    OPT_JUNIT,
    OPT_TAP,
    OPT_FALLBACK,
};

static const struct option run_options[] = {
    {"profile", required_argument, NULL, 'p'},
    {"chdir", required_argument, NULL, 'C'},
    {"rw", required_argument, NULL, OPT_RW},
    {"ro", required_argument, NULL, OPT_RO},
    {"tmpfs", required_argument, NULL, OPT_TMPFS},
    {"hide", required_argument, NULL, OPT_HIDE},
    {"setenv", required_argument, NULL, OPT_SETENV},
    {"unsetenv", required_argument, NULL, OPT_UNSETENV},
    {"keepenv", required_argument, NULL, OPT_KEEPENV},
    {"nofile", required_argument, NULL, OPT_NOFILE},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"network", required_argument, NULL, OPT_NETWORK},
    {"outbound", no_argument, NULL, OPT_OUTBOUND},
    {"allow", required_argument, NULL, OPT_ALLOW},
    {"fallback", required_argument, NULL, OPT_FALLBACK},
    {"report", required_argument, NULL, OPT_REPORT},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"against", required_argument, NULL, OPT_AGAINST},
    {"runner", required_argument, NULL, OPT_RUNNER},
    {"against-timeout", required_argument, NULL, OPT_AGAINST_TIMEOUT},
    {"junit", required_argument, NULL, OPT_JUNIT},
    {"tap", required_argument, NULL, OPT_TAP},
    {"verbose", no_argument, NULL, 'v'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static void set_err(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* " (did you mean '--profile'?)" for an unknown "--profle" or
 * "--profle=x", or "" when no option is near. */
static void suggest_option(const char *arg, char *hint, size_t len)
{
    hint[0] = '\0';
    if (strncmp(arg, "--", 2) != 0)
        return;
    char word[64];
    size_t n = strcspn(arg + 2, "=");
    if (n == 0 || n >= sizeof word)
        return;
    memcpy(word, arg + 2, n);
    word[n] = '\0';
    const char *best = NULL;
    size_t best_distance = SIZE_MAX;
    for (const struct option *o = run_options; o->name; o++) {
        size_t d;
        if (near_word(word, o->name, &d) && d < best_distance) {
            best = o->name;
            best_distance = d;
        }
    }
    if (best)
        snprintf(hint, len, " (did you mean '--%s'?)", best);
}

static void add_override(struct run_cli *c, const char *section, const char *key, const char *value,
                         const char *label)
{
    c->overrides = xrealloc(c->overrides, (c->noverrides + 1) * sizeof *c->overrides);
    c->overrides[c->noverrides++] = (struct cli_override){section, key, value, label};
}

enum cli_result cli_parse_run(int argc, char **argv, enum cli_mode mode, struct run_cli *out,
                              char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->verbosity = LOG_NORMAL;
    err[0] = '\0';
    const char *sub = mode == CLI_MODE_AUDIT ? "audit" : "run";
    /* "+": stop at the first non-option, the command; ":": report a
     * missing argument distinctly. opterr = 0: we word the messages. */
    optind = 0;
    opterr = 0;
    int c, index = -1;
    while ((c = getopt_long(argc, argv, "+:p:C:vqh", run_options, &index)) != -1) {
        /* the options of `sbx audit` alone */
        if ((c == OPT_AGAINST || c == OPT_RUNNER || c == OPT_AGAINST_TIMEOUT || c == OPT_JUNIT ||
             c == OPT_TAP) &&
            mode != CLI_MODE_AUDIT) {
            set_err(err, errlen, "--%s belongs to 'sbx audit', not 'sbx %s'",
                    index >= 0 ? run_options[index].name : "?", sub);
            return CLI_USAGE;
        }
        index = -1;
        switch (c) {
        case 'p':
            out->profile = optarg;
            break;
        case 'C':
            out->chdir = optarg;
            break;
        case OPT_RW:
            add_override(out, "filesystem", "rw", optarg, "--rw");
            break;
        case OPT_RO:
            add_override(out, "filesystem", "ro", optarg, "--ro");
            break;
        case OPT_TMPFS:
            add_override(out, "filesystem", "tmpfs", optarg, "--tmpfs");
            break;
        case OPT_HIDE:
            add_override(out, "filesystem", "hide", optarg, "--hide");
            break;
        case OPT_SETENV:
            add_override(out, "environment", "set", optarg, "--setenv");
            break;
        case OPT_UNSETENV:
            add_override(out, "environment", "unset", optarg, "--unsetenv");
            break;
        case OPT_KEEPENV:
            add_override(out, "environment", "keep", optarg, "--keepenv");
            break;
        case OPT_NOFILE:
            add_override(out, "limits", "nofile", optarg, "--nofile");
            break;
        case OPT_TIMEOUT:
            add_override(out, "limits", "timeout", optarg, "--timeout");
            break;
        case OPT_NETWORK:
            add_override(out, "network", "mode", optarg, "--network");
            break;
        case OPT_OUTBOUND:
            add_override(out, "network", "outbound", "yes", "--outbound");
            break;
        case OPT_ALLOW:
            /* [network] allow for this run: names, @groups, host:port */
            add_override(out, "network", "allow", optarg, "--allow");
            break;
        case OPT_FALLBACK:
            add_override(out, "sandbox", "fallback", optarg, "--fallback");
            break;
        case OPT_REPORT:
            if (!*optarg) {
                set_err(err, errlen, "--report needs a file name");
                return CLI_USAGE;
            }
            out->report = optarg;
            break;
        case OPT_STRICT:
            out->strict = true;
            break;
        case OPT_AGAINST:
            out->against = optarg;
            break;
        case OPT_RUNNER:
            out->runner = optarg;
            break;
        case OPT_JUNIT:
        case OPT_TAP:
            if (!optarg[0]) {
                set_err(err, errlen, "--%s needs a file name", c == OPT_JUNIT ? "junit" : "tap");
                return CLI_USAGE;
            }
            *(c == OPT_JUNIT ? &out->junit : &out->tap) = optarg;
            break;
        case OPT_AGAINST_TIMEOUT:
            /* As [limits] timeout reads it (profile_values.c parse_timeout). */
            if (!strcmp(optarg, "none") || !strcmp(optarg, "0")) {
                out->against_timeout_ms = 0;
            } else if (!parse_duration_ms(optarg, &out->against_timeout_ms) ||
                       out->against_timeout_ms == 0 ||
                       out->against_timeout_ms > 365ULL * 86400 * 1000) {
                set_err(err, errlen, "--against-timeout: '%s' is not valid: expected a duration "
                        "such as 90s, 30m, 2h (at most 365d), or 0 or 'none' for no bound", optarg);
                return CLI_USAGE;
            }
            out->against_timeout_set = true;
            break;
        case 'v':
            out->verbosity = LOG_VERBOSE;
            break;
        case 'q':
            out->verbosity = LOG_QUIET;
            break;
        case 'h':
            return CLI_HELP;
        case ':':
            set_err(err, errlen, "option '%s' needs an argument", argv[optind - 1]);
            return CLI_USAGE;
        default:
            if (optopt)
                set_err(err, errlen, "unknown option '-%c'", optopt);
            else {
                char hint[96];
                suggest_option(argv[optind - 1], hint, sizeof hint);
                set_err(err, errlen, "unknown option '%s'%s", argv[optind - 1], hint);
            }
            return CLI_USAGE;
        }
    }
    if (optind >= argc) {
        set_err(err, errlen, "no command given: sbx %s [OPTIONS] [--] COMMAND [ARG...]", sub);
        return CLI_USAGE;
    }
    if (!argv[optind][0]) {
        set_err(err, errlen, "the command is an empty string");
        return CLI_USAGE;
    }
    out->command = &argv[optind];
    out->ncommand = argc - optind;
    return CLI_OK;
}

void run_cli_free(struct run_cli *c)
{
    free(c->overrides);
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------------ */

struct passwd *passwd_file_entry(const char *path, uid_t uid)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    struct passwd *pw;
    /* fgetpwent() skips lines it cannot parse. */
    while ((pw = fgetpwent(f)) && pw->pw_uid != uid)
        ;
    fclose(f);
    return pw;
}

/* The caller's entry in the password database, read from /etc/passwd in
 * every build, so that a static and a dynamic sbx give the same ${HOME}
 * and ${USER}. Not getpwuid(): glibc's NSS loads its other modules
 * (systemd, sss, ldap) with dlopen(), which pulls the shared libc into a
 * static program and is not supported there (on Debian 12,
 * libnss_systemd crashed such a program). A user known only to such a
 * module has no entry; login, sshd and systemd's User= set $HOME and
 * $USER for them, and without those ${HOME} and ${USER} have no value
 * and say so (sbx-profile(5)). */
static struct passwd *caller_passwd(void)
{
    return passwd_file_entry("/etc/passwd", getuid());
}

/* ${USER} without $USER: reading /etc/passwd is work (and, through NSS as
 * it once was, nsswitch.conf and the nscd socket: about 60 us and 70 kB)
 * that a profile without ${USER}, as the shipped ones are, should not pay. */
static const char *user_from_passwd(void)
{
    static const char *name;
    static bool looked;
    if (!looked) {
        looked = true;
        struct passwd *pw = caller_passwd();
        name = pw && pw->pw_name ? xstrdup(pw->pw_name) : NULL;
    }
    return name;
}

/* ${PROJECT} of the caller's directory, and of --chdir's (project.h):
 * found on the host before anything of the sandbox exists. */
static struct project cwd_project, chdir_project;
static const struct project *current_project = &cwd_project;

const char *cli_account_home(void)
{
    static char *home;
    static bool looked;
    if (!looked) {
        looked = true;
        struct passwd *pw = caller_passwd();
        /* An entry whose home does not exist (nobody's /nonexistent, a
         * build user's) has no home: any $HOME is a scratch one. */
        if (pw && pw->pw_dir && pw->pw_dir[0] == '/') {
            home = realpath(pw->pw_dir, NULL);
            if (!home)
                home = xstrdup(pw->pw_dir);
        }
    }
    return home;
}

const char *cli_home_real(const char *home)
{
    static char *asked, *real;
    if (!home)
        return NULL;
    if (!asked || strcmp(asked, home)) {
        free(asked);
        free(real);
        asked = xstrdup(home);
        real = realpath(home, NULL);
    }
    return real;
}

static void find_project(struct project *out, struct profile_vars *v)
{
    if (!v->cwd)
        return;
    const char *home_real = cli_home_real(v->home);
    project_find(out, v->cwd, home_real ? home_real : v->home, cli_account_home, geteuid(),
                 &project_host_fs);
    v->project = out->root;
    v->project_error = out->error;
    verbose_step("project root: %s", out->root ? out->root : "none");
}

const struct profile_vars *cli_profile_vars(void)
{
    static struct profile_vars v;
    static char cwd[PATH_MAX], uid[16], gid[16];
    static bool done;
    if (done)
        return &v;
    done = true;
    v.home = getenv("HOME");
    if (!v.home || v.home[0] != '/') {
        struct passwd *pw = caller_passwd();
        v.home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? xstrdup(pw->pw_dir) : NULL;
    }
    v.cwd = getcwd(cwd, sizeof cwd) ? cwd : NULL;
    v.user = getenv("USER");
    v.lookup_user = user_from_passwd;
    snprintf(uid, sizeof uid, "%u", (unsigned)getuid());
    snprintf(gid, sizeof gid, "%u", (unsigned)getgid());
    v.uid = uid;
    v.gid = gid;
    const char *t = getenv("TMPDIR");
    v.tmpdir = t && t[0] == '/' ? t : "/tmp";
    find_project(&cwd_project, &v);
    return &v;
}

static void print_errors(const struct profile_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++)
        fprintf(stderr, "sbx: %s\n", errs->msg[i]);
}

const struct project *cli_project(void)
{
    return current_project;
}

void cli_load_profile(struct profile *p, const char *name, const struct run_cli *c)
{
    struct profile_search search;
    profile_search_from_env(&search);
    struct profile_errors errs = {0};
    /* ${CWD} is the directory the command starts in: with --chdir, that
     * one (canonical), so `sbx run -C ~/proj` from ~ makes the project
     * writable, not the whole home directory. */
    struct profile_vars chdir_vars = *cli_profile_vars();
    autofree char *chdir_real = NULL;
    if (c && c->chdir) {
        autofree char *asked = cli_command_cwd(c);
        chdir_real = realpath(asked, NULL);
        if (!chdir_real)
            die_errno("--chdir %s", asked);
        chdir_vars.cwd = chdir_real;
    }
    if (chdir_real) {
        project_free(&chdir_project);
        find_project(&chdir_project, &chdir_vars);
        current_project = &chdir_project;
    } else {
        current_project = &cwd_project;
    }
    const struct profile_vars *vars = &chdir_vars;
    profile_init_defaults(p);
    bool ok = profile_load(p, name, &search, vars, &errs);
    for (size_t i = 0; ok && c && i < c->noverrides; i++) {
        const struct cli_override *o = &c->overrides[i];
        ok = profile_apply_option(p, o->section, o->key, o->value, o->label, vars, &errs);
    }
    profile_search_free(&search);
    if (!ok) {
        print_errors(&errs);
        profile_errors_free(&errs);
        profile_free(p);
        exit(SBX_EXIT_FAILURE);
    }
    profile_errors_free(&errs);
}

char *cli_command_cwd(const struct run_cli *c)
{
    const struct profile_vars *v = cli_profile_vars();
    if (c->chdir && c->chdir[0] == '/')
        return xstrdup(c->chdir);
    if (!v->cwd)
        die_errno("cannot tell the current directory (it may have been removed); use -C DIR");
    if (c->chdir)
        return xasprintf("%s/%s", v->cwd, c->chdir);
    return xstrdup(v->cwd);
}

/* ------------------------------------------------------------------ */
/* Help                                                                 */

void cli_print_run_help(FILE *out, enum cli_mode mode)
{
    if (mode == CLI_MODE_AUDIT)
        fputs("Usage: sbx audit [--profile P] [--against Q] [OPTIONS] [--] COMMAND [ARG...]\n\n"
              "Runs COMMAND under P (default qa), then under Q (default restrictive), and\n"
              "judges each test when it knows the test runner (else the command as a whole):\n"
              "0 trustworthy or no network use, 3 FALSE GREEN suspected, 4 incomplete evidence\n"
              "(a test not observed), 1 the command fails under P, 128+N when signal N\n"
              "stopped it.\n\n"
              "  -p, --profile NAME|PATH   the profile the command should pass under (qa)\n"
              "      --against NAME|PATH   the restrictive profile to compare with (restrictive)\n"
              "      --runner NAME         judge test by test as runner NAME reports them\n"
              "                            (detected from COMMAND: cargo, unittest, pytest, go,\n"
              "                            node, prove, automake; tap for a command printing TAP)\n"
              "      --against-timeout DURATION\n"
              "                            bound the run under Q (default: 3 x the first run,\n"
              "                            at least 10s; 0: none); timing out there is failing\n"
              "      --junit FILE          also write the verdicts as JUnit XML to FILE\n"
              "      --tap FILE            also write the verdicts as TAP to FILE\n",
              out);
    else
        fputs("Usage: sbx run [OPTIONS] [--] COMMAND [ARG...]\n\n"
              "Runs COMMAND in a sandbox built from a profile. Options override the profile.\n\n"
              "  -p, --profile NAME|PATH   profile to apply (default: $SBX_PROFILE or 'default')\n",
              out);
    fputs("  -C, --chdir DIR           working directory inside, and ${CWD} (default: the current one)\n"
          "      --rw PATH             bind PATH read-write\n"
          "      --ro PATH             bind PATH read-only\n"
          "      --tmpfs PATH          mount an empty tmpfs on PATH\n"
          "      --hide PATH           hide PATH (empty directory or empty file)\n"
          "      --setenv NAME=VALUE   set a variable inside\n"
          "      --unsetenv NAME       remove a variable inside\n"
          "      --keepenv NAME        pass the caller's NAME in (wins over unset patterns)\n"
          "      --nofile N|max        RLIMIT_NOFILE inside ('max': the hard limit)\n"
          "      --timeout DURATION    kill the command after DURATION (90s, 30m, 2h); exit 124\n"
          "      --network loopback|none|host\n"
          "                            own loopback (default), loopback down, or the host's\n"
          "      --outbound            outbound TCP/UDP/DNS through pasta (package passt),\n"
          "                            keeping the sandbox's own loopback\n"
          "      --allow DEST...       add destinations to [network] allow for this run\n"
          "                            (host names, @groups, host:port; sbx's proxy)\n"
          "      --fallback none|landlock\n"
          "                            where user namespaces are refused: exit 125 (none,\n"
          "                            default) or run in the Landlock tier (sbx(1) TIERS)\n"
          "      --report FILE         write the run record (JSON) to FILE\n"
          "      --strict              exit 3 when the command exits 0 after denied operations\n"
          "  -v, --verbose             show each setup step and its duration\n"
          "  -q, --quiet               only errors from sbx itself\n"
          "  -h, --help                this help\n",
          out);
}

int cli_run_usage_error(const char *sub, const char *msg)
{
    fprintf(stderr, "sbx: %s\n", msg);
    fprintf(stderr, "Try 'sbx help %s'.\n", sub);
    return SBX_EXIT_FAILURE;
}

