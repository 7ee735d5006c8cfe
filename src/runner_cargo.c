/* cargo test: libtest's human lines (runner_impl.h's operations).
 *
 * Given --no-fail-fast: cargo stops at the first test binary that fails,
 * so the tests of the next ones would have no result. libtest's lines
 * ("test PATH ... ok") are read as they are: they are stable on stable
 * Rust (--format json needs nightly's -Z unstable-options); the default
 * parallel threads are kept (lines are printed whole, in the order the
 * tests end). -q and --format terse are removed (they print one character
 * per test).
 *
 * The channel: libtest captures each test's output and prints it only in
 * the "failures:" section, where "test" lines are ignored, so a test that
 * prints "test other ... ok" does not make a result; with --nocapture a
 * test's output is unframed and can forge one (nothing else to hold on
 * to: libtest's JSON is unstable). */
#include "config.h"

#include "runner_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cargo_state {
    bool failures;   /* inside libtest's "failures:" section */
    bool summary;    /* the current binary printed "test result:" */
};

/* cargo's options before the subcommand that take a value. */
static bool cargo_global_takes_value(const char *a)
{
    return !strcmp(a, "--config") || !strcmp(a, "-Z") || !strcmp(a, "-C") ||
           !strcmp(a, "--color");
}

static int cargo_anchor(char *const argv[], char *why, size_t why_size)
{
    if (strcmp(base_name(argv[0]), "cargo"))
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

/* "unittests src/lib.rs (target/debug/deps/x-0123)" or "tests/net.rs (..)":
 * the option that selects that target. */
static char *cargo_target(const char *what)
{
    const char *src = starts(what, "unittests ") ? what + 10 : what;
    const char *end = strstr(src, " (");
    size_t len = end ? (size_t)(end - src) : strlen(src);
    char *path = xstrndup(src, len);
    char *unit = NULL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t blen = strlen(base);
    char *stem = xstrndup(base, blen > 3 && ends(base, blen, ".rs") ? blen - 3 : blen);
    /* the binary, "target/debug/deps/CRATE-HASH": a library's is named by
     * its crate, which tells two packages' same-named tests apart in a
     * workspace (cargo test --workspace runs both "tests::it") */
    char *crate = NULL;
    if (end && end[2]) {
        const char *bin = strrchr(end + 2, '/');
        bin = bin ? bin + 1 : end + 2;
        const char *dash = strrchr(bin, '-');
        if (dash && dash > bin && strspn(bin, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                                      (size_t)(dash - bin))
            crate = xstrndup(bin, (size_t)(dash - bin));
    }
    if (ends(path, len, "src/lib.rs"))
        unit = crate ? xasprintf("-p %s --lib", crate) : xstrdup("--lib");
    else if (ends(path, len, "src/main.rs") && !strstr(path, "/bin/"))
        unit = xstrdup("--bins");
    else if (strstr(path, "src/bin/"))
        unit = !strcmp(stem, "main") ? NULL : xasprintf("--bin %s", stem);
    else if (starts(path, "tests/") || strstr(path, "/tests/"))
        unit = xasprintf("--test %s", stem);
    else if (starts(path, "benches/") || strstr(path, "/benches/"))
        unit = xasprintf("--bench %s", stem);
    else if (starts(path, "examples/") || strstr(path, "/examples/"))
        unit = xasprintf("--example %s", stem);
    free(crate);
    free(stem);
    free(path);
    return unit;
}

static bool cargo_status(const char *s, enum test_status *out)
{
    if (!strcmp(s, "ok"))
        *out = TEST_PASSED;
    else if (!strcmp(s, "FAILED"))
        *out = TEST_FAILED;
    else if (!strcmp(s, "ignored") || starts(s, "ignored, "))
        *out = TEST_SKIPPED;
    else if (starts(s, "bench:"))
        *out = TEST_PASSED;
    else
        return false;
    return true;
}

static void cargo_line(struct runner_parser *p, char *line)
{
    struct cargo_state *cs = p->state;
    char *s = skip_spaces(line);
    enum test_status st;
    if (starts(s, "Running ") || starts(s, "Doc-tests ")) {
        free(p->unit);
        /* "Doc-tests CRATE" */
        const char *crate = skip_spaces(s + 10);
        p->unit = s[0] == 'R' ? cargo_target(s + 8)
                : *crate && !strchr(crate, ' ') ? xasprintf("-p %s --doc", crate) : xstrdup("--doc");
        cs->failures = cs->summary = false;
        p->pending = SIZE_MAX;
        return;
    }
    if (starts(line, "test result: ")) {
        /* "test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured;
         * 3 filtered out; finished in 0.00s" */
        runner_count(p, runner_count_of(line, "passed", NULL), runner_count_of(line, "failed", NULL),
                     runner_count_of(line, "ignored", NULL), runner_count_of(line, "measured", NULL));
    }
    if (starts(line, "running ") || starts(line, "test result: ")) {
        cs->failures = false;
        cs->summary |= line[5] == 'r';
        return;
    }
    /* cargo: "process didn't exit successfully: `...` (signal: 6, SIGABRT)"
     * before the binary's summary: it died (a test aborted, overflowed its
     * stack), and the tests running then have no line. The binary is the
     * result, named by its target option. */
    if (starts(line, "Caused by:") || strstr(line, "process didn't exit successfully: ")) {
        if (!cs->summary && p->unit && strstr(line, "process didn't"))
            test_kind(p, test_result(p, p->unit, p->unit, TEST_ERRORED), RUNNER_TEST_FIXTURE);
        return;
    }
    if (!strcmp(line, "failures:")) {
        cs->failures = true;
        return;
    }
    if (cs->failures)
        return;
    if (starts(line, "test ")) {
        char *name = line + 5;
        char *dots = rfind(name, " ... ");
        if (!dots) {
            char *slow = strstr(name, " has been running for over ");
            if (slow && slow > name) {
                *slow = '\0';
                test_started(p, p->unit, name);
            }
            return;
        }
        *dots = '\0';
        char *result = dots + 5;
        /* libtest appends how a test is judged to its name */
        static const char *const how[] = { " - should panic", " - compile fail", " - compile" };
        size_t len = strlen(name);
        for (size_t i = 0; i < 3; i++)
            if (ends(name, len, how[i])) {
                name[len - strlen(how[i])] = '\0';
                break;
            }
        if (!*name)
            return;
        trim_right(result);
        if (cargo_status(result, &st)) {
            test_result(p, p->unit, name, st);
            p->pending = SIZE_MAX;
        } else {
            /* --test-threads=1 --nocapture: the name, then the test's own
             * output, then the result on a line of its own */
            p->pending = test_started(p, p->unit, name);
        }
        return;
    }
    if (p->pending != SIZE_MAX && cargo_status(line, &st)) {
        result_at(p, p->pending, st);
        p->pending = SIZE_MAX;
    }
}

/* tests[0..count) all of one unit (a group of one test binary: libtest
 * runs a test when any filter matches it), or, with count 0, none of
 * t's binary: a filter no test path can match (paths are Rust
 * identifiers joined by "::"). */
static bool cargo_select(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                         const struct runner_test *t, struct strv *out)
{
    int n = (int)argv_len(argv);
    for (size_t i = 0; i < count; i++)
        if ((!t->unit) != (!tests[i]->unit) || (t->unit && strcmp(t->unit, tests[i]->unit)))
            return false;
    /* The test binary's filter with --exact matches whole test paths;
     * a filter the user gave (cargo test NAME) then also needs to be
     * exact, so it no longer widens the run. The unit (--lib, --test
     * net, --doc) keeps a same-named test of another binary out. */
    int d = end_of_options(argv, a + 1);
    push_range(out, argv, 0, d);
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
                push(out, g);
                free(g);
            } else {
                push(out, u.v[k]);
            }
        }
        strv_free(&u);
    }
    push(out, "--");
    if (argv[d])
        push_range(out, argv, d + 1, n);
    /* rustdoc's filter never matches a doctest with --exact (seen with
     * cargo 1.95): its name, "src/lib.rs - item (line 5)", ends with
     * the parenthesis, so as a substring it matches only itself */
    if (!t->unit || !ends_with(t->unit, "--doc"))
        push(out, "--exact");
    for (size_t i = 0; i < count; i++)
        push(out, tests[i]->id);
    if (!count)
        push(out, "sbx-selects-no-test");
    return true;
}

static bool cargo_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                        struct strv *out)
{
    return cargo_select(argv, a, tests, count, tests[0], out);
}

static bool cargo_baseline(char *const argv[], int a, const struct runner_test *t, struct strv *out)
{
    return cargo_select(argv, a, NULL, 0, t, out);
}



static void *cargo_state_new(void)
{
    return xcalloc(1, sizeof(struct cargo_state));
}

static const struct runner_ops cargo_ops = {
    .anchor = cargo_anchor,
    .command = cmd_cargo,
    .line = cargo_line,
    .rerun = cargo_rerun,
    .baseline = cargo_baseline,
    .state_new = cargo_state_new,
    .state_free = free,
};

const struct runner runner_cargo = { RUNNER_CARGO, "cargo", "cargo test", RUNNER_ATTRIBUTE_THREAD, &cargo_ops };
