/* Which test runner a command line starts, what to add so that it reports
 * every test in a stable form, and how to re-run one test (runner.h). The
 * parsers are in runner_parse.c. Pure.
 *
 * What each runner is given, and why:
 *   cargo test  --no-fail-fast: cargo stops at the first test binary that
 *               fails, so the tests of the next ones would have no result.
 *               libtest's human lines ("test PATH ... ok") are read as they
 *               are: they are stable on stable Rust (--format json needs
 *               nightly's -Z unstable-options); the default parallel
 *               threads are kept (lines are printed whole, in the order the
 *               tests end). -q (one character per test) is refused.
 *   unittest    -v: only verbose mode names each test.
 *   pytest      -p no:cacheprovider: the cache carries the first run's
 *               failures into the second (--lf, --ff, --sw, which are
 *               refused); --verbosity=N (N >= 1, what the user's -v/-q make
 *               it otherwise), last, so that a -q in addopts cannot hide
 *               the per-test lines. -v prints the node id with the outcome
 *               ("ID PASSED [ 5%]", under xdist "[gw0] [ 5%] PASSED ID"),
 *               which -rA's summary does not do for skips (it prints
 *               "file:line: reason").
 *   go test     -json: test2json's events name package and test exactly;
 *               -count=1: go test replays cached results, and a replayed
 *               run proves nothing (any explicit -count disables the cache,
 *               so the user's own is kept).
 *   node --test --test-reporter=tap: node 20's default reporter is spec on
 *               a terminal, tap only on a pipe; the user's own reporter is
 *               refused (two reporters need two destinations).
 *   prove       -v: prove prints each test's line only when verbose.
 *   make check  AM_COLOR_TESTS=no. automake's harness prints one line per
 *               result on the console ("PASS: t.sh", for TAP tests "FAIL:
 *               t.sh 2 - description"), for the serial and the parallel
 *               harness alike (the Automake manual, "Scripts-based
 *               Testsuites"), so the console is read rather than the .trs
 *               files afterwards: those need reading files the sandbox
 *               wrote (not pure, and `make distcheck`-style trees remove
 *               them), and VERBOSE=1 only adds the logs of failed tests. */
#include "config.h"

#include "runner.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct runner runners[] = {
    { RUNNER_CARGO, "cargo", "cargo test" },
    { RUNNER_UNITTEST, "unittest", "python -m unittest" },
    { RUNNER_PYTEST, "pytest", "pytest or python -m pytest" },
    { RUNNER_GO, "go", "go test" },
    { RUNNER_NODE, "node", "node --test" },
    { RUNNER_PROVE, "prove", "prove" },
    { RUNNER_AUTOMAKE, "automake", "make check" },
    { RUNNER_TAP, "tap", "a command that prints TAP" },
};
#define NRUNNERS (sizeof runners / sizeof runners[0])

const char *runner_names(void)
{
    return "cargo, unittest, pytest, go, node, prove, automake, tap";
}

const struct runner *runner_by_name(const char *name, const char **suggestion)
{
    size_t best = SIZE_MAX;
    *suggestion = NULL;
    for (size_t i = 0; i < NRUNNERS; i++) {
        if (!strcmp(name, runners[i].name))
            return &runners[i];
        size_t d;
        if (near_word(name, runners[i].name, &d) && d < best) {
            best = d;
            *suggestion = runners[i].name;
        }
    }
    return NULL;
}

static const struct runner *runner_of(enum runner_kind k)
{
    for (size_t i = 0; i < NRUNNERS; i++)
        if (runners[i].kind == k)
            return &runners[i];
    return NULL;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

static size_t argv_len(char *const argv[])
{
    size_t n = 0;
    while (argv[n])
        n++;
    return n;
}

/* python, python3, python3.11 */
static bool is_python(const char *name)
{
    if (strncmp(name, "python", 6))
        return false;
    for (const char *c = name + 6; *c; c++)
        if (!(*c >= '0' && *c <= '9') && *c != '.')
            return false;
    return true;
}

/* The index of the -m MODULE token of a python command line (the token
 * that names the module: "unittest" of "-m unittest", or "-munittest"),
 * *module set to the module name; -1 when python runs a script or -c. The
 * interpreter's options that take a value (-X opt, -W arg) are skipped. */
static int python_module(char *const argv[], const char **module)
{
    for (int i = 1; argv[i]; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || !a[1])
            return -1;
        if (!strcmp(a, "--"))
            return -1;
        if (a[1] == '-')
            continue;  /* --help, --version */
        for (const char *c = a + 1; *c; c++) {
            if (*c == 'm') {
                if (c[1]) {
                    *module = c + 1;
                    return i;
                }
                if (!argv[i + 1])
                    return -1;
                *module = argv[i + 1];
                return i + 1;
            }
            if (*c == 'c')
                return -1;
            if (*c == 'X' || *c == 'W') {
                if (!c[1])
                    i++;
                if (!argv[i])
                    return -1;
                break;
            }
        }
    }
    return -1;
}

/* cargo's options before the subcommand that take a value. */
static bool cargo_global_takes_value(const char *a)
{
    return !strcmp(a, "--config") || !strcmp(a, "-Z") || !strcmp(a, "-C") ||
           !strcmp(a, "--color");
}

/* Where each runner's own arguments start: the index of "test" (cargo, go),
 * of the module token (python), of "--test" (node), of "check" (make), 0
 * for pytest and prove; -1 when argv does not have the runner's shape. */
static int anchor(enum runner_kind k, char *const argv[], char *why, size_t why_size)
{
    if (!argv || !argv[0]) {
        snprintf(why, why_size, "the command is empty");
        return -1;
    }
    const char *prog = base_name(argv[0]);
    switch (k) {
    case RUNNER_CARGO:
        if (strcmp(prog, "cargo"))
            return -1;
        for (int i = 1; argv[i]; i++) {
            const char *a = argv[i];
            if (a[0] == '+' || (a[0] == '-' && strcmp(a, "--"))) {
                if (cargo_global_takes_value(a) && argv[i + 1])
                    i++;
                continue;
            }
            if (!strcmp(a, "test") || !strcmp(a, "t"))
                return i;
            snprintf(why, why_size, "cargo %.64s is not cargo test", a);
            return -1;
        }
        snprintf(why, why_size, "cargo without a subcommand runs no tests");
        return -1;
    case RUNNER_UNITTEST:
    case RUNNER_PYTEST: {
        if (k == RUNNER_PYTEST && (!strcmp(prog, "pytest") || !strcmp(prog, "py.test") ||
                                   !strcmp(prog, "pytest-3")))
            return 0;
        if (!is_python(prog))
            return -1;
        const char *module = NULL;
        int i = python_module(argv, &module);
        if (i < 0) {
            snprintf(why, why_size, "%.64s runs a script, not -m unittest or -m pytest", prog);
            return -1;
        }
        if (k == RUNNER_UNITTEST && !strcmp(module, "unittest"))
            return i;
        if (k == RUNNER_PYTEST && (!strcmp(module, "pytest") || !strcmp(module, "py.test")))
            return i;
        if (strcmp(module, "unittest") && strcmp(module, "pytest") && strcmp(module, "py.test"))
            snprintf(why, why_size, "python -m %.64s is neither unittest nor pytest", module);
        return -1;
    }
    case RUNNER_GO:
        if (strcmp(prog, "go"))
            return -1;
        if (argv[1] && !strcmp(argv[1], "test"))
            return 1;
        snprintf(why, why_size, "go %.64s is not go test", argv[1] ? argv[1] : "without a command");
        return -1;
    case RUNNER_NODE:
        if (strcmp(prog, "node") && strcmp(prog, "nodejs"))
            return -1;
        /* node's own options end at the script */
        for (int i = 1; argv[i] && argv[i][0] == '-'; i++)
            if (!strcmp(argv[i], "--test"))
                return i;
        snprintf(why, why_size, "node runs a script, not node --test");
        return -1;
    case RUNNER_PROVE:
        return strcmp(prog, "prove") ? -1 : 0;
    case RUNNER_AUTOMAKE:
        if (strcmp(prog, "make") && strcmp(prog, "gmake"))
            return -1;
        for (int i = 1; argv[i]; i++) {
            const char *a = argv[i];
            if (a[0] == '-') {
                /* make's options that take a separate value */
                if ((!strcmp(a, "-C") || !strcmp(a, "-f") || !strcmp(a, "-I") || !strcmp(a, "-o") ||
                     !strcmp(a, "-W")) && argv[i + 1])
                    i++;
                continue;
            }
            if (!strcmp(a, "check"))
                return i;
        }
        snprintf(why, why_size, "make runs no `check` target");
        return -1;
    case RUNNER_TAP:
        return 0;
    }
    return -1;
}

const struct runner *runner_detect(char *const argv[], char *why, size_t why_size)
{
    static const enum runner_kind order[] = {
        RUNNER_CARGO, RUNNER_UNITTEST, RUNNER_PYTEST, RUNNER_GO,
        RUNNER_NODE, RUNNER_PROVE, RUNNER_AUTOMAKE,
    };
    snprintf(why, why_size,
             "%s is not a test runner sbx knows (cargo test, python -m unittest, pytest, "
             "go test, node --test, prove, make check); name one with --runner NAME (%s)",
             argv && argv[0] ? base_name(argv[0]) : "the command", runner_names());
    char shape[256] = "";
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (anchor(order[i], argv, shape, sizeof shape) >= 0)
            return runner_of(order[i]);
    if (shape[0])
        snprintf(why, why_size, "%s; name the runner with --runner NAME (%s)", shape, runner_names());
    return NULL;
}

/* ---- building command lines ---- */

static void push(struct strv *sv, const char *s)
{
    strv_push(sv, xstrdup(s));
}

static void push_range(struct strv *sv, char *const argv[], int from, int to)
{
    for (int i = from; i < to; i++)
        push(sv, argv[i]);
}

/* The index of the first "--" after `from`, or the length of argv. */
static int end_of_options(char *const argv[], int from)
{
    int i = from;
    for (; argv[i]; i++)
        if (!strcmp(argv[i], "--"))
            break;
    return i;
}

static bool has_arg(char *const argv[], int from, int to, const char *a)
{
    for (int i = from; i < to && argv[i]; i++)
        if (!strcmp(argv[i], a))
            return true;
    return false;
}

static bool has_prefix_arg(char *const argv[], int from, int to, const char *prefix)
{
    size_t n = strlen(prefix);
    for (int i = from; i < to && argv[i]; i++)
        if (!strncmp(argv[i], prefix, n))
            return true;
    return false;
}

static void note_add(struct strv *notes, const char *what)
{
    push(notes, what);
}

static char *join_notes(struct strv *notes)
{
    size_t len = 1;
    for (size_t i = 0; i < notes->n; i++)
        len += strlen(notes->v[i]) + 2;
    char *out = xmalloc(len);
    out[0] = '\0';
    for (size_t i = 0; i < notes->n; i++) {
        if (i)
            strcat(out, "; ");
        strcat(out, notes->v[i]);
    }
    strv_free(notes);
    return out;
}

static bool refuse(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool refuse(char *err, size_t err_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return false;
}

/* libtest's -q (cargo's own -q/--quiet passes it on) and --format terse
 * print one character per test instead of its name: they are removed,
 * which changes what is printed and nothing of what runs (issue 25: with
 * them the audit saw no test at all). The other formats (json, junit)
 * need nightly's -Z unstable-options and replace the lines read here. */
static bool cargo_quiet(const char *a)
{
    return !strcmp(a, "-q") || !strcmp(a, "--quiet");
}

static bool cmd_cargo(char *const argv[], int t, struct strv *out, struct strv *notes, char *err,
                      size_t err_size)
{
    int d = end_of_options(argv, t + 1);
    int n = (int)argv_len(argv);
    bool quiet = false, terse = false;
    for (int i = d; argv[i]; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--format=terse") || !strcmp(a, "--format=pretty"))
            continue;
        if (!strcmp(a, "--format") && argv[i + 1] &&
            (!strcmp(argv[i + 1], "terse") || !strcmp(argv[i + 1], "pretty"))) {
            i++;
            continue;
        }
        if (!strncmp(a, "--format", 8))
            return refuse(err, err_size,
                          "the test binary's %s replaces libtest's per-test lines: drop it", a);
    }
    /* cargo's options before the subcommand, its own, the test binary's */
    for (int i = 0; i < n; i++) {
        const char *a = argv[i];
        if (i > 0 && i != t && (i < d || i > d) && cargo_quiet(a)) {
            quiet = true;
            continue;
        }
        if (i > d && (!strcmp(a, "--format=terse") ||
                      (!strcmp(a, "--format") && argv[i + 1] && !strcmp(argv[i + 1], "terse")))) {
            terse = true;
            i += a[8] == '\0';
            continue;
        }
        push(out, a);
        if (i == t && !has_arg(argv, t + 1, d, "--no-fail-fast")) {
            push(out, "--no-fail-fast");
            note_add(notes, "added --no-fail-fast: cargo test stops at the first failing test binary, "
                            "which would leave the tests of the others without a result");
        }
    }
    if (quiet || terse)
        strv_push(notes, xasprintf("removed %s: libtest then prints one character per test, not its "
                                   "name (what runs is the same)",
                                   quiet && terse ? "-q and --format terse" : quiet ? "-q" : "--format terse"));
    return true;
}

static void cmd_unittest(char *const argv[], int m, struct strv *out, struct strv *notes)
{
    int d = end_of_options(argv, m + 1);
    bool verbose = false;
    for (int i = m + 1; i < d; i++) {
        if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
            verbose = true;
        else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
            verbose = false;
    }
    /* argparse: the last of -v/-q wins, so -v goes after the user's flags
     * (but before "--"); `discover` must stay argv[1] of unittest. */
    push_range(out, argv, 0, d);
    if (!verbose) {
        push(out, "-v");
        note_add(notes, "added -v: unittest names each test only in verbose mode");
    }
    push_range(out, argv, d, (int)argv_len(argv));
}

static bool cmd_pytest(char *const argv[], int a0, struct strv *out, struct strv *notes, char *err,
                       size_t err_size)
{
    static const char *const cache_flags[] = {
        "--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--sw",
        "--stepwise", "--sw-skip", "--stepwise-skip", "--cache-show", "--lfnf",
    };
    int d = end_of_options(argv, a0 + 1);
    long verbosity = 0;
    bool no_cache = false;
    for (int i = a0 + 1; i < d; i++) {
        const char *a = argv[i];
        for (size_t c = 0; c < sizeof cache_flags / sizeof cache_flags[0]; c++) {
            size_t n = strlen(cache_flags[c]);
            if (!strncmp(a, cache_flags[c], n) && (a[n] == '\0' || a[n] == '='))
                return refuse(err, err_size,
                              "pytest %s selects tests from the cache of a previous run, so the "
                              "two runs would not run the same tests: drop it", a);
        }
        if (a[0] == '-' && a[1] && strspn(a + 1, "vq") == strlen(a + 1)) {
            for (const char *c = a + 1; *c; c++)
                verbosity += *c == 'v' ? 1 : -1;
        } else if (!strcmp(a, "--verbose")) {
            verbosity++;
        } else if (!strcmp(a, "--quiet")) {
            verbosity--;
        } else if (!strncmp(a, "--verbosity=", 12)) {
            uint64_t v;
            verbosity = parse_u64(a + 12, &v) && v < 100 ? (long)v : 0;
        } else if ((!strcmp(a, "-p") && argv[i + 1] && !strcmp(argv[i + 1], "no:cacheprovider")) ||
                   !strcmp(a, "-pno:cacheprovider")) {
            no_cache = true;
        }
    }
    push_range(out, argv, 0, d);
    if (!no_cache) {
        push(out, "-p");
        push(out, "no:cacheprovider");
    }
    if (verbosity < 1)
        verbosity = 1;
    if (verbosity > 99)
        verbosity = 99;
    strv_push(out, xasprintf("--verbosity=%ld", verbosity));
    note_add(notes, no_cache ? "added --verbosity: pytest names each test only when verbose"
                             : "added -p no:cacheprovider: pytest's cache carries one run's "
                               "failures into the next; --verbosity: pytest names each test "
                               "only when verbose");
    push_range(out, argv, d, (int)argv_len(argv));
    return true;
}

static void cmd_go(char *const argv[], struct strv *out, struct strv *notes)
{
    int end = end_of_options(argv, 2);
    int args = end;
    for (int i = 2; i < end; i++)
        if (!strcmp(argv[i], "-args") || !strcmp(argv[i], "--args")) {
            args = i;
            break;
        }
    bool json = has_arg(argv, 2, args, "-json") || has_arg(argv, 2, args, "--json") ||
                has_arg(argv, 2, args, "-json=true");
    bool count = has_arg(argv, 2, args, "-count") || has_arg(argv, 2, args, "--count") ||
                 has_prefix_arg(argv, 2, args, "-count=") || has_prefix_arg(argv, 2, args, "--count=");
    push_range(out, argv, 0, 2);
    if (!json) {
        push(out, "-json");
        note_add(notes, "added -json: go test's events name each package and test exactly");
    }
    if (!count) {
        push(out, "-count=1");
        note_add(notes, "added -count=1: go test replays cached results, which prove nothing");
    }
    push_range(out, argv, 2, (int)argv_len(argv));
}

static bool cmd_node(char *const argv[], int t, struct strv *out, struct strv *notes, char *err,
                     size_t err_size)
{
    for (int i = 1; argv[i] && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--test-reporter=tap") ||
            (!strcmp(a, "--test-reporter") && argv[i + 1] && !strcmp(argv[i + 1], "tap"))) {
            push_range(out, argv, 0, (int)argv_len(argv));
            return true;
        }
        if (!strncmp(a, "--test-reporter", 15) && (a[15] == '\0' || a[15] == '='))
            return refuse(err, err_size,
                          "node %s: sbx reads node's TAP reporter on stdout; drop the command's "
                          "own reporter", a);
    }
    push_range(out, argv, 0, t + 1);
    push(out, "--test-reporter=tap");
    note_add(notes, "added --test-reporter=tap: node's default reporter on a terminal (spec) is "
                    "for people");
    push_range(out, argv, t + 1, (int)argv_len(argv));
    return true;
}

/* prove's short options that take a value (bundled -lv has none). */
static bool prove_short_takes_value(char c)
{
    return c == 'I' || c == 'P' || c == 'M' || c == 'e' || c == 'j' || c == 'a';
}

static void cmd_prove(char *const argv[], struct strv *out, struct strv *notes)
{
    bool verbose = false;
    for (int i = 1; argv[i]; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--"))
            break;
        if (!strcmp(a, "--verbose"))
            verbose = true;
        else if (a[0] == '-' && a[1] != '-' && a[1] && !prove_short_takes_value(a[1]) && strchr(a, 'v'))
            verbose = true;
    }
    push(out, argv[0]);
    if (!verbose) {
        push(out, "-v");
        note_add(notes, "added -v: prove prints each test's result only when verbose");
    }
    push_range(out, argv, 1, (int)argv_len(argv));
}

static void cmd_automake(char *const argv[], struct strv *out, struct strv *notes)
{
    push_range(out, argv, 0, (int)argv_len(argv));
    if (!has_prefix_arg(argv, 1, (int)argv_len(argv), "AM_COLOR_TESTS=")) {
        push(out, "AM_COLOR_TESTS=no");
        note_add(notes, "added AM_COLOR_TESTS=no: automake colours its per-test lines on a terminal");
    }
}

bool runner_command(const struct runner *r, char *const argv[], struct runner_command *out,
                    char *err, size_t err_size)
{
    struct strv sv = {0}, notes = {0};
    char why[256];
    out->argv = NULL;
    out->note = NULL;
    if (!argv || !argv[0]) {
        snprintf(err, err_size, "the command is empty");
        return false;
    }
    int a = anchor(r->kind, argv, why, sizeof why);
    bool done = true;
    if (a < 0) {
        push_range(&sv, argv, 0, (int)argv_len(argv));
        strv_push(&notes, xasprintf("added nothing: the command is not %s, so it must print %s's "
                                    "per-test results itself", r->command, r->name));
    } else {
        switch (r->kind) {
        case RUNNER_CARGO: done = cmd_cargo(argv, a, &sv, &notes, err, err_size); break;
        case RUNNER_UNITTEST: cmd_unittest(argv, a, &sv, &notes); break;
        case RUNNER_PYTEST: done = cmd_pytest(argv, a, &sv, &notes, err, err_size); break;
        case RUNNER_GO: cmd_go(argv, &sv, &notes); break;
        case RUNNER_NODE: done = cmd_node(argv, a, &sv, &notes, err, err_size); break;
        case RUNNER_PROVE: cmd_prove(argv, &sv, &notes); break;
        case RUNNER_AUTOMAKE: cmd_automake(argv, &sv, &notes); break;
        case RUNNER_TAP: push_range(&sv, argv, 0, (int)argv_len(argv)); break;
        }
    }
    if (!done) {
        strv_free(&sv);
        strv_free(&notes);
        return false;
    }
    out->argv = sv.v;
    out->note = join_notes(&notes);
    return true;
}

void runner_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

void runner_command_free(struct runner_command *c)
{
    runner_argv_free(c->argv);
    free(c->note);
    c->argv = NULL;
    c->note = NULL;
}

/* ---- re-running one test ---- */

/* Splits s on `sep` into sv. */
static void push_split(struct strv *sv, const char *s, const char *sep)
{
    size_t n = strlen(sep);
    for (;;) {
        const char *at = strstr(s, sep);
        if (!at) {
            push(sv, s);
            return;
        }
        strv_push(sv, xstrndup(s, (size_t)(at - s)));
        s = at + n;
    }
}

/* A regular expression matching exactly s (Go's regexp and JavaScript's
 * RegExp read the same escapes for these). */
static char *regex_exact(const char *s)
{
    size_t len = strlen(s);
    char *out = xmalloc(2 * len + 3), *o = out;
    *o++ = '^';
    for (; *s; s++) {
        if (strchr("\\.+*?()|[]{}^$/", *s))
            *o++ = '\\';
        *o++ = *s;
    }
    *o++ = '$';
    *o = '\0';
    return out;
}

/* unittest's -k takes a pattern matched against module.Class.method:
 * containing '*', with fnmatch over the whole name; otherwise as a
 * substring (so "-k m.C.test_a" would also run m.C.test_ab). The pattern
 * gets a '*' that matches nothing but the letter it stands for ("[t*]",
 * as names never contain '*'); fnmatch's own characters are bracketed. A
 * class-level error (setUpClass) re-runs the class, setUpModule the
 * module. */
static char *unittest_pattern(const char *id)
{
    size_t len = strlen(id);
    const char *suffixes[] = { ".setUpClass", ".tearDownClass", ".setUpModule", ".tearDownModule" };
    for (size_t i = 0; i < 4; i++) {
        size_t n = strlen(suffixes[i]);
        if (len > n && !strcmp(id + len - n, suffixes[i]))
            return xasprintf("%.*s.*", (int)(len - n), id);
    }
    char *out = xmalloc(4 * len + 4), *o = out;
    bool star = false;
    for (const char *c = id; *c; c++) {
        if (strchr("*?[]", *c)) {
            *o++ = '[';
            *o++ = *c;
            *o++ = ']';
            star |= *c == '*';
        } else if (!star) {
            *o++ = '[';
            *o++ = *c;
            *o++ = '*';
            *o++ = ']';
            star = true;
        } else {
            *o++ = *c;
        }
    }
    *o = '\0';
    return out;
}

/* Options that take the next argument as their value, per runner, so that
 * the user's positional selections can be told apart and replaced. */
static bool takes_value(const char *const list[], const char *a)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(list[i], a))
            return true;
    return false;
}

static const char *const pytest_value_options[] = {
    "-k", "-m", "-p", "-c", "-o", "-n", "-W", "-r", "--rootdir", "--tb", "--dist", "--maxfail",
    "--deselect", "--ignore", "--ignore-glob", "--confcutdir", "--basetemp", "--durations",
    "--junitxml", "--junit-xml", "--import-mode", "--log-level", "--log-file", "--numprocesses",
    "--maxprocesses", "--timeout", "--capture", "--pyargs-root", "--override-ini", "--config-file",
    "--cov", "--cov-report", "--tx", "--rsyncdir", "--color", "--code-highlight", NULL,
};

static const char *const go_bool_flags[] = {
    "-v", "-json", "-short", "-failfast", "-race", "-cover", "-a", "-n", "-x", "-work",
    "-benchmem", "-msan", "-asan", "-trimpath", "-linkshared", "-i", "-c", "-modcacherw", NULL,
};

static const char *const prove_value_options[] = {
    "-I", "-P", "-M", "-e", "-j", "-a", "--exec", "--jobs", "--ext", "--state", "--formatter",
    "--harness", "--rules", "--source", "--archive", "--trap", NULL,
};

char **runner_rerun_argv(const struct runner *r, char *const argv[], const struct runner_test *t)
{
    char why[256];
    int a = anchor(r->kind, argv, why, sizeof why);
    if (a < 0 || !t || !t->id || r->kind == RUNNER_TAP)
        return NULL;
    struct strv sv = {0};
    int n = (int)argv_len(argv);
    switch (r->kind) {
    case RUNNER_CARGO: {
        /* The test binary's filter with --exact matches whole test paths;
         * a filter the user gave (cargo test NAME) then also needs to be
         * exact, so it no longer widens the run. The unit (--lib, --test
         * net, --doc) keeps a same-named test of another binary out. */
        int d = end_of_options(argv, a + 1);
        push_range(&sv, argv, 0, d);
        if (t->unit) {
            /* "-p CRATE": cargo's -p takes the package's name, in which
             * the crate's '_' may be a '-' ("b-c" builds b_c); -p takes a
             * glob, so each '_' is "[-_]" */
            struct strv u = {0};
            push_split(&u, t->unit, " ");
            for (size_t k = 0; k < u.n; k++) {
                if (k && !strcmp(u.v[k - 1], "-p") && strchr(u.v[k], '_')) {
                    size_t l = strlen(u.v[k]);
                    char *g = xmalloc(5 * l + 1), *o = g;
                    for (const char *c = u.v[k]; *c; c++)
                        if (*c == '_')
                            o = stpcpy(o, "[-_]");
                        else
                            *o++ = *c;
                    *o = '\0';
                    push(&sv, g);
                    free(g);
                } else {
                    push(&sv, u.v[k]);
                }
            }
            strv_free(&u);
        }
        push(&sv, "--");
        if (argv[d])
            push_range(&sv, argv, d + 1, n);
        /* rustdoc's filter never matches a doctest with --exact (seen with
         * cargo 1.95): its name, "src/lib.rs - item (line 5)", ends with
         * the parenthesis, so as a substring it matches only itself */
        if (!t->unit || !ends_with(t->unit, "--doc"))
            push(&sv, "--exact");
        push(&sv, t->id);
        break;
    }
    case RUNNER_UNITTEST: {
        int d = end_of_options(argv, a + 1);
        for (int i = 0; i < d; i++) {
            if (i > a && !strcmp(argv[i], "-k")) {
                i++;
                continue;
            }
            if (i > a && !strncmp(argv[i], "-k", 2))
                continue;
            push(&sv, argv[i]);
        }
        push(&sv, "-k");
        strv_push(&sv, unittest_pattern(t->id));
        push_range(&sv, argv, d, n);
        break;
    }
    case RUNNER_PYTEST: {
        /* Node ids are relative to pytest's rootdir: this assumes the run
         * starts there, as the audited one did. */
        int d = end_of_options(argv, a + 1);
        push_range(&sv, argv, 0, a + 1);
        for (int i = a + 1; i < d; i++) {
            if (argv[i][0] != '-')
                continue;  /* a file, directory or node id the user chose */
            push(&sv, argv[i]);
            if (takes_value(pytest_value_options, argv[i]) && argv[i + 1] && i + 1 < d)
                push(&sv, argv[++i]);
        }
        push(&sv, t->id);
        break;
    }
    case RUNNER_GO: {
        /* go test [flags] [packages] [flags] [-args ...]: the packages are
         * replaced by the test's, -run (the last one wins) selects the
         * test and each subtest level by its exact name. */
        const char *space = strchr(t->id, ' ');
        if (!space)
            break;
        push_range(&sv, argv, 0, 2);
        int i = 2;
        for (; argv[i]; i++) {
            const char *f = argv[i];
            if (!strcmp(f, "-args") || !strcmp(f, "--args"))
                break;
            if (f[0] != '-')
                continue;
            push(&sv, f);
            if (!strchr(f, '=') && !takes_value(go_bool_flags, f[1] == '-' ? f + 1 : f) && argv[i + 1])
                push(&sv, argv[++i]);
        }
        struct strv parts = {0};
        push_split(&parts, space + 1, "/");
        size_t len = 1;
        for (size_t p = 0; p < parts.n; p++) {
            char *re = regex_exact(parts.v[p]);
            free(parts.v[p]);
            parts.v[p] = re;
            len += strlen(re) + 1;
        }
        char *pattern = xmalloc(len);
        pattern[0] = '\0';
        for (size_t p = 0; p < parts.n; p++) {
            if (p)
                strcat(pattern, "/");
            strcat(pattern, parts.v[p]);
        }
        strv_free(&parts);
        strv_push(&sv, xasprintf("-run=%s", pattern));
        free(pattern);
        strv_push(&sv, xstrndup(t->id, (size_t)(space - t->id)));
        push_range(&sv, argv, i, n);
        break;
    }
    case RUNNER_NODE: {
        /* node 20 matches --test-name-pattern against each test's own name
         * and runs a test when any pattern matches: one exact pattern per
         * level runs the test and its ancestors (and any other test that
         * bears one of those names). A matching test runs all its t.test()
         * subtests, so a subtest's siblings run too (describe/it children
         * are selected one by one); the others print "# SKIP test name
         * does not match pattern". */
        push_range(&sv, argv, 0, a + 1);
        struct strv parts = {0};
        push_split(&parts, t->id, " > ");
        for (size_t p = 0; p < parts.n; p++) {
            char *re = regex_exact(parts.v[p]);
            strv_push(&sv, xasprintf("--test-name-pattern=%s", re));
            free(re);
        }
        strv_free(&parts);
        push_range(&sv, argv, a + 1, n);
        break;
    }
    case RUNNER_PROVE: {
        /* TAP cannot run one test of a script: the script is re-run. */
        if (!t->unit)
            break;
        push(&sv, argv[0]);
        for (int i = 1; argv[i]; i++) {
            if (!strcmp(argv[i], "--") || !strcmp(argv[i], "::"))
                break;
            if (argv[i][0] != '-')
                continue;
            push(&sv, argv[i]);
            if (takes_value(prove_value_options, argv[i]) && argv[i + 1])
                push(&sv, argv[++i]);
        }
        push(&sv, t->unit);
        break;
    }
    case RUNNER_AUTOMAKE:
        if (!t->unit)
            break;
        for (int i = 0; i < n; i++)
            if (strncmp(argv[i], "TESTS=", 6))
                push(&sv, argv[i]);
        strv_push(&sv, xasprintf("TESTS=%s", t->unit));
        break;
    case RUNNER_TAP:
        break;
    }
    if (!sv.n) {
        strv_free(&sv);
        return NULL;
    }
    struct runner_command c;
    char err[512];
    bool made = runner_command(r, sv.v, &c, err, sizeof err);
    strv_free(&sv);
    if (!made)
        return NULL;
    free(c.note);
    return c.argv;
}

char **runner_rerun_set_argv(const struct runner *r, char *const argv[],
                             const struct runner_test *const tests[], size_t n)
{
    if (n == 1)
        return runner_rerun_argv(r, argv, tests[0]);
    return NULL;
}

char **runner_baseline_argv(const struct runner *r, char *const argv[], const struct runner_test *t)
{
    (void)r;
    (void)argv;
    (void)t;
    return NULL;
}
