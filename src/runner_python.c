/* python: unittest (-m unittest -v) and pytest (-v, also under
 * pytest-xdist), runner_impl.h's operations.
 *
 * unittest is given -v: only verbose mode names each test. pytest is
 * given -p no:cacheprovider: the cache carries the first run's failures
 * into the second (--lf, --ff, --sw, which are refused); --verbosity=N
 * (N >= 1, what the user's -v/-q make it otherwise), last, so that a -q
 * in addopts cannot hide the per-test lines. -v prints the node id with
 * the outcome ("ID PASSED [ 5%]", under xdist "[gw0] [ 5%] PASSED ID"),
 * which -rA's summary does not do for skips (it prints "file:line:
 * reason").
 *
 * The channel: both print a test's own output unframed (unittest) or
 * captured and shown after the results (pytest), so a test can print a
 * line that reads as another's result under unittest.
 *
 * CPython's own suite (python -m test, regrtest) is given -v: it prints
 * unittest's verbose lines, read as unittest's. */
#include "config.h"

#include "runner_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct python_state {
    char *doc_id;        /* unittest: a description line awaiting its docstring line */
    uint64_t ran;        /* unittest: "Ran N tests", until its "OK"/"FAILED" */
    bool ran_seen;
    bool over;           /* unittest: after "Ran N tests"; regrtest: until its next module */
    struct strv reports; /* unittest: its closing report, "<status digit><20-digit position><id>" */
    bool summary;        /* pytest: after its "short test summary info" */
    bool failures;       /* pytest: in its FAILURES/ERRORS sections */
};

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

/* The index of the module token of python -m MODULE when MODULE is one
 * of `modules`, 0 for one of `programs`; -1 otherwise, why filled when
 * python runs another module or a script. */
static int python_anchor(char *const argv[], char *why, size_t why_size, const char *const programs[],
                         const char *const modules[])
{
    const char *prog = base_name(argv[0]);
    for (size_t i = 0; programs[i]; i++)
        if (!strcmp(prog, programs[i]))
            return 0;
    if (!is_python(prog))
        return -1;
    const char *module = NULL;
    int i = python_module(argv, &module);
    if (i < 0) {
        snprintf(why, why_size, "%.64s runs a script, not -m unittest or -m pytest", prog);
        return -1;
    }
    for (size_t m = 0; modules[m]; m++)
        if (!strcmp(module, modules[m]))
            return i;
    if (strcmp(module, "unittest") && strcmp(module, "pytest") && strcmp(module, "py.test"))
        snprintf(why, why_size, "python -m %.64s is neither unittest nor pytest", module);
    return -1;
}

static int unittest_anchor(char *const argv[], char *why, size_t why_size)
{
    static const char *const programs[] = { NULL };
    static const char *const modules[] = { "unittest", NULL };
    return python_anchor(argv, why, why_size, programs, modules);
}

static int pytest_anchor(char *const argv[], char *why, size_t why_size)
{
    static const char *const programs[] = { "pytest", "py.test", "pytest-3", NULL };
    static const char *const modules[] = { "pytest", "py.test", NULL };
    return python_anchor(argv, why, why_size, programs, modules);
}

/* CPython's own suite: python -m test (Lib/test/regrtest). */
static int regrtest_anchor(char *const argv[], char *why, size_t why_size)
{
    static const char *const programs[] = { NULL };
    static const char *const modules[] = { "test", "test.regrtest", NULL };
    char ignored[256];
    (void)why;
    (void)why_size;
    return python_anchor(argv, ignored, sizeof ignored, programs, modules);
}

/* regrtest's options that take a value */
static const char *const regrtest_value_options[] = {
    "-m", "--match", "-i", "--ignore", "-u", "--use", "-j", "--multiprocess", "--timeout", "--randseed",
    "-M", "--memlimit", "-R", "--huntrleaks", "--matchfile", "--ignorefile", "--testdir", "-w", "-S",
    "--start", "-W", "-F", "--forever", "--junit-xml", "--tempdir", "--cleanup", NULL,
};

/* -v: regrtest prints each test's unittest line ("name (id) ... ok") only
 * when verbose; without it, one line per module. */
static bool cmd_regrtest(char *const argv[], int m, struct strv *out, struct strv *notes, char *err,
                         size_t err_size)
{
    (void)err;
    (void)err_size;
    int n = (int)argv_len(argv);
    bool verbose = false;
    for (int i = m + 1; i < n; i++) {
        if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-vv"))
            verbose = true;
        else if (takes_value(regrtest_value_options, argv[i]))
            i++;
    }
    push_range(out, argv, 0, m + 1);
    if (!verbose) {
        push(out, "-v");
        note_add(notes, "added -v: CPython's regrtest names each test only when verbose");
    }
    push_range(out, argv, m + 1, n);
    return true;
}

/* The test modules of the ids ("test.test_socket.C.test_x" is test_socket),
 * each once, then -m ID per test (regrtest matches a full id exactly, and
 * runs a test when any -m matches); none: -m with an id no test has. The
 * user's own selections (test names, -m, -i, --matchfile) are replaced. */
static bool regrtest_select(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                            const struct runner_test *t, struct strv *out)
{
    push_range(out, argv, 0, a + 1);
    for (int i = a + 1; argv[i]; i++) {
        const char *o = argv[i];
        bool selection = !strcmp(o, "-m") || !strcmp(o, "--match") || !strcmp(o, "-i") ||
                         !strcmp(o, "--ignore") || !strcmp(o, "--matchfile") || !strcmp(o, "--ignorefile");
        if (o[0] != '-')
            continue;
        if (!selection)
            push(out, o);
        if (takes_value(regrtest_value_options, o) && argv[i + 1]) {
            if (!selection)
                push(out, argv[i + 1]);
            i++;
        }
    }
    size_t from = out->n;
    const struct runner_test *const *list = count ? tests : &t;
    for (size_t k = 0; k < (count ? count : 1); k++) {
        const char *id = list[k]->id;
        if (!starts(id, "test."))
            return false;
        const char *dot = strchr(id + 5, '.');
        char *module = dot ? xstrndup(id + 5, (size_t)(dot - id - 5)) : xstrdup(id + 5);
        bool seen = false;
        for (size_t j = from; j < out->n && !seen; j++)
            seen = !strcmp(out->v[j], module);
        if (!seen)
            strv_push(out, module);
        else
            free(module);
    }
    for (size_t k = 0; k < count; k++) {
        push(out, "-m");
        push(out, tests[k]->id);
    }
    if (!count) {
        push(out, "-m");
        push(out, "test.sbx.selects.no.test");
    }
    return true;
}

static bool regrtest_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                           struct strv *out)
{
    return regrtest_select(argv, a, tests, count, tests[0], out);
}

static bool regrtest_baseline(char *const argv[], int a, const struct runner_test *t, struct strv *out)
{
    return regrtest_select(argv, a, NULL, 0, t, out);
}

static bool cmd_unittest(char *const argv[], int m, struct strv *out, struct strv *notes, char *err,
                         size_t err_size)
{
    (void)err;
    (void)err_size;
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
    /* -f/--failfast stops at the first failure: the tests after it would
     * have no result under the stricter profile; removed */
    bool failfast = false;
    for (int i = 0; i < d; i++) {
        if (i > m && (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--failfast"))) {
            failfast = true;
            continue;
        }
        push(out, argv[i]);
    }
    if (failfast)
        note_add(notes, "removed -f/--failfast: unittest would stop at a failure, leaving the tests after "
                        "it without a result");
    if (!verbose) {
        push(out, "-v");
        note_add(notes, "added -v: unittest names each test only in verbose mode");
    }
    push_range(out, argv, d, (int)argv_len(argv));
    return true;
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
    bool no_cache = false, stops = false;
    for (int i = a0 + 1; i < d; i++) {
        const char *a = argv[i];
        /* -x, --exitfirst, --maxfail=N: pytest stops at the first
         * failures, and a test after them has no result under the
         * stricter profile (cargo's --no-fail-fast, for pytest) */
        stops |= !strcmp(a, "--exitfirst") || starts(a, "--maxfail") ||
                 (a[0] == '-' && a[1] != '-' && strchr(a, 'x') && strspn(a + 1, "vqxsl") == strlen(a + 1));
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
    if (stops) {
        push(out, "--maxfail=0");
        note_add(notes, "added --maxfail=0: the command's -x/--maxfail stops pytest at a failure, which "
                        "would leave the tests after it without a result");
    }
    note_add(notes, no_cache ? "added --verbosity: pytest names each test only when verbose"
                             : "added -p no:cacheprovider: pytest's cache carries one run's "
                               "failures into the next; --verbosity: pytest names each test "
                               "only when verbose");
    push_range(out, argv, d, (int)argv_len(argv));
    return true;
}

/* "name (module.Class.name)" (python >= 3.11) or "name (module.Class)":
 * the test's id, *rest set after the closing parenthesis (a subtest's
 * "(i=1)" or " [msg]"). Class and module fixtures are named by what they
 * set up: "setUpClass (module.Class)" is module.Class.setUpClass. */
static char *unittest_desc(const char *s, const char **rest)
{
    const char *sp = strchr(s, ' ');
    if (!sp || sp == s || sp[1] != '(')
        return NULL;
    const char *inside = sp + 2, *close = strchr(inside, ')');
    if (!close || close == inside)
        return NULL;
    /* what unittest prints inside is a dotted Python name (module.Class
     * or module.Class.method): anything else ("FAILED (failures=1)", the
     * run's last line) is not a test */
    for (const char *c = inside; c < close; c++)
        if (!(*c == '.' || *c == '_' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
              (*c >= 'A' && *c <= 'Z') || (unsigned char)*c >= 0x80))
            return NULL;
    size_t name_len = (size_t)(sp - s), in_len = (size_t)(close - inside);
    *rest = close + 1;
    if (in_len > name_len + 1 && inside[in_len - name_len - 1] == '.' &&
        !memcmp(inside + in_len - name_len, s, name_len))
        return xstrndup(inside, in_len);
    return xasprintf("%.*s.%.*s", (int)in_len, inside, (int)name_len, s);
}

static bool unittest_status(const char *s, enum test_status *out)
{
    if (!strcmp(s, "ok"))
        *out = TEST_PASSED;
    else if (!strcmp(s, "FAIL") || !strcmp(s, "unexpected success"))
        *out = TEST_FAILED;
    else if (!strcmp(s, "ERROR"))
        *out = TEST_ERRORED;
    else if (!strcmp(s, "expected failure") || !strcmp(s, "skipped") || starts(s, "skipped "))
        *out = TEST_SKIPPED;
    else
        return false;
    return true;
}

/* N of "key=N" in unittest's closing line, 0 without. */
static uint64_t unittest_kv(const char *s, const char *key)
{
    const char *at = strstr(s, key);
    uint64_t n = 0;
    if (at)
        for (at += strlen(key); *at >= '0' && *at <= '9'; at++)
            n = n < UINT64_MAX / 16 ? n * 10 + (uint64_t)(*at - '0') : n;
    return n;
}

static void unittest_line(struct runner_parser *p, char *line)
{
    struct python_state *ps = p->state;
    char *s = skip_spaces(line);
    const char *rest = "";
    enum test_status st;
    char *doc = ps->doc_id;
    ps->doc_id = NULL;
    /* the report after the run: "FAIL: name (id)", also for what never
     * printed a line of its own (setUpClass) */
    static const struct { const char *prefix; enum test_status st; } report[] = {
        { "FAIL: ", TEST_FAILED }, { "ERROR: ", TEST_ERRORED }, { "UNEXPECTED SUCCESS: ", TEST_FAILED },
    };
    /* the runner's own count: "Ran 5 tests in 0.01s", then "OK
     * (skipped=1)" or "FAILED (failures=1, errors=1, skipped=1)" */
    uint64_t ran;
    if (s == line && starts(s, "Ran ") && (ran = runner_count_of(s, "tests", NULL) + runner_count_of(s, "test", NULL),
                                          strstr(s, " in "))) {
        ps->ran = ran;
        ps->ran_seen = true;
        ps->over = true;
    } else if (s == line && ps->ran_seen && (!strcmp(s, "OK") || starts(s, "OK (") || starts(s, "FAILED ("))) {
        uint64_t failed = unittest_kv(s, "failures=") + unittest_kv(s, "errors=") +
                          unittest_kv(s, "unexpected successes=");
        uint64_t skipped = unittest_kv(s, "skipped=") + unittest_kv(s, "expected failures=");
        runner_count(p, ps->ran > failed + skipped ? ps->ran - failed - skipped : 0, failed, skipped, 0);
        ps->ran_seen = false;
    }
    /* regrtest's "0:00:01 load avg: 0.52 [2/3] test_x": the next module */
    if (s == line && *s >= '0' && *s <= '9' && strstr(s, " [") && strstr(s, "] test"))
        ps->over = false;
    /* the report after the run ("FAIL: name (id)") repeats what each
     * test's own line said; it is kept for the rows that have no line of
     * their own (setUpClass, a module that did not import) and applied
     * at the end to those only, so that a test printing "ERROR: other
     * (m.C.other)" changes nothing */
    for (size_t i = 0; i < 3 && !ps->over; i++)
        if (starts(s, report[i].prefix)) {
            char *id = unittest_desc(s + strlen(report[i].prefix), &rest);
            if (id && ps->reports.n < RUNNER_MAX_TESTS) {
                strv_push(&ps->reports, xasprintf("%d%020llu%s", (int)report[i].st,
                                                  (unsigned long long)p->line_end, id));
            }
            free(id);
            free(doc);
            return;
        }
    char *dots = strstr(s, " ... ");
    if (dots) {
        *dots = '\0';
        char *tail = dots + 5;
        trim_right(tail);
        char *id = unittest_desc(s, &rest);
        if (id && *rest && *rest != ' ')
            free(id), id = NULL;
        if (!id && doc) {
            id = doc;  /* "First docstring line ... ok" */
            doc = NULL;
            rest = "";
        }
        /* while a test runs (announced, no result yet), a line naming
         * a test that already has its result is the running test's own
         * output: a test that prints "other (m.C.other) ... FAIL" does
         * not change the result of a test that ran before it. (A line
         * naming a test not yet run is taken: the running test may have
         * printed its last output without a newline, so that its own
         * result never came on a line of its own; a forgery against a
         * later test is not stopped.) */
        /* unittest prints one verbose line per test: a second plain line
         * about a test that has its result, or any after the run's
         * "Ran N tests" (a test's stdout, block-buffered off a terminal,
         * reaches the pipe when the process exits), is a test's output */
        size_t k = id ? find_test(p, NULL, id, false) : SIZE_MAX;
        bool had = k != SIZE_MAX && p->entries[k].has_result;
        if (id && (ps->over || (had && (!*rest || (p->pending != SIZE_MAX && k != p->pending))))) {
            free(id);
            free(doc);
            return;
        }
        if (id) {
            /* startTest() writes "name (id) ... " and flushes, then the
             * test runs: its start, in the output's bytes */
            if (!*rest)
                announced_at(p, test_started(p, NULL, id), line, tail);
            /* a subtest's line ("  name (id) (i=1) ... FAIL") counts for
             * its test: unittest re-runs tests, not subtests */
            if (unittest_status(tail, &st)) {
                size_t i = test_result(p, NULL, id, st);
                if (i == p->pending || !*rest)
                    p->pending = SIZE_MAX;
            } else if (!*rest) {
                p->pending = find_test(p, NULL, id, false);
            }
            free(id);
        }
        free(doc);
        return;
    }
    free(doc);
    trim_right(s);
    char *id = unittest_desc(s, &rest);
    if (id && !*rest) {
        /* verbose mode prints a test with a docstring on two lines */
        ps->doc_id = id;
        test_started(p, NULL, id);
        return;
    }
    free(id);
    /* the result after the test's own output */
    if (p->pending != SIZE_MAX && unittest_status(s, &st)) {
        result_at(p, p->pending, st);
        p->pending = SIZE_MAX;
    }
}

/* "name (id) ... ", flushed by startTest() before the test runs: the test
 * running, until the line ends with its result (runner_ops.partial). */
static char *unittest_partial(struct runner_parser *p, const char *line, size_t len)
{
    const struct python_state *ps = p->state;
    if (ps->over || len < 9 || len > 4096 || memcmp(line + len - 5, " ... ", 5) ||
        memchr(line, '\0', len) || line[0] == ' ')
        return NULL;
    char *s = xstrndup(line, len - 5);
    const char *rest = "";
    char *id = unittest_desc(s, &rest);
    bool more = id && *rest;  /* rest is in s */
    free(s);
    if (more) {
        free(id);
        return NULL;
    }
    /* a test that has its result already is not the one running */
    if (id && runner_parser_index(p, NULL, id) != SIZE_MAX &&
        p->entries[runner_parser_index(p, NULL, id)].has_result) {
        free(id);
        return NULL;
    }
    return id;
}

static bool pytest_word(const char *s, size_t len, enum test_status *out)
{
    static const struct { const char *w; enum test_status st; } words[] = {
        { "PASSED", TEST_PASSED }, { "FAILED", TEST_FAILED }, { "SKIPPED", TEST_SKIPPED },
        { "XFAIL", TEST_SKIPPED }, { "XPASS", TEST_PASSED }, { "ERROR", TEST_ERRORED },
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].w) == len && !memcmp(s, words[i].w, len)) {
            *out = words[i].st;
            return true;
        }
    return false;
}

/* "[ 42%]" or "[ 3/17]" at the end of a line: removed. */
static void pytest_strip_progress(char *s)
{
    size_t n = strlen(s);
    if (!n || s[n - 1] != ']')
        return;
    char *open = strrchr(s, '[');
    if (!open || open == s || open[-1] != ' ')
        return;
    const char *c = open + 1;
    while (*c == ' ')
        c++;
    size_t digits = strspn(c, "0123456789");
    if (!digits)
        return;
    c += digits;
    if (*c == '%')
        c++;
    else if (*c == '/' && strspn(c + 1, "0123456789"))
        c += 1 + strspn(c + 1, "0123456789");
    else
        return;
    if (*c != ']' || c[1])
        return;
    *open = '\0';
    trim_right(s);
}

/* "===== 1 failed, 3 passed, 1 skipped in 0.05s =====": the runner's
 * own count (errors, outside a test's call, count as failures) */
static bool pytest_counts(struct runner_parser *p, const char *line)
{
    size_t n = strlen(line);
    if (!starts(line, "=") || !n || line[n - 1] != '=' || !strstr(line, " in "))
        return false;
    bool seen = false;
    uint64_t passed = runner_count_of(line, "passed", &seen) + runner_count_of(line, "xpassed", &seen);
    uint64_t failed = runner_count_of(line, "failed", &seen) + runner_count_of(line, "error", &seen) +
                      runner_count_of(line, "errors", &seen);
    uint64_t skipped = runner_count_of(line, "skipped", &seen) + runner_count_of(line, "xfailed", &seen);
    bool none = strstr(line, "no tests ran") != NULL;
    if (seen || none)
        runner_count(p, passed, failed, skipped, 0);
    return seen || none;
}

static void pytest_line(struct runner_parser *p, char *line)
{
    struct python_state *ps = p->state;
    enum test_status st;
    if (pytest_counts(p, line))
        return;
    if (strstr(line, "short test summary info") && starts(line, "=")) {
        ps->summary = true;
        ps->failures = false;
        return;
    }
    /* "===== FAILURES =====" and "===== ERRORS =====": the tracebacks and
     * the tests' captured output, where a line a test printed
     * ("test_x.py::test_y FAILED") is no result */
    if (starts(line, "=") && (strstr(line, "= FAILURES =") || strstr(line, "= ERRORS =") ||
                              strstr(line, "= warnings summary =") || strstr(line, "= PASSES ="))) {
        ps->failures = true;
        return;
    }
    if (ps->failures)
        return;
    if (starts(line, "[gw")) {
        /* "[gw0] [ 41%] PASSED ID" */
        char *c = strchr(line, ']');
        if (!c || c[1] != ' ')
            return;
        c += 2;
        if (*c == '[') {
            char *close = strchr(c, ']');
            if (!close || close[1] != ' ')
                return;
            c = close + 2;
        }
        char *sp = strchr(c, ' ');
        if (sp && pytest_word(c, (size_t)(sp - c), &st) && sp[1]) {
            trim_right(sp + 1);
            test_result(p, NULL, sp + 1, st);
        }
        return;
    }
    /* xdist: "worker 'gw0' crashed while running 'ID'" */
    char *crash = strstr(line, "crashed while running '");
    if (crash && starts(skip_spaces(line), "worker '")) {
        char *id = crash + 23;
        size_t n = strlen(id);
        if (n > 1 && id[n - 1] == '\'') {
            id[n - 1] = '\0';
            test_result(p, NULL, id, TEST_ERRORED);
        }
        return;
    }
    if (ps->summary && (starts(line, "FAILED ") || starts(line, "ERROR "))) {
        /* "FAILED ID - message": the id is the longest known prefix
         * before a " - " (a parametrized id may hold one), else up to the
         * first (a collection error names a file never seen before) */
        char *id = line + (line[0] == 'F' ? 7 : 6);
        st = line[0] == 'F' ? TEST_FAILED : TEST_ERRORED;
        if (find_test(p, NULL, id, false) != SIZE_MAX) {
            test_result(p, NULL, id, st);
            return;
        }
        char *first = strstr(id, " - "), *known = NULL;
        size_t tries = 0;
        for (char *at = first; at && tries++ < 64; at = strstr(at + 1, " - ")) {
            *at = '\0';
            if (find_test(p, NULL, id, false) != SIZE_MAX)
                known = at;
            *at = ' ';
        }
        char *cut = known ? known : first;
        if (cut)
            *cut = '\0';
        if (*id)
            test_result(p, NULL, id, st);
        return;
    }
    if (line[0] == ' ' || !strstr(line, "::"))
        return;
    /* "ID STATUS (reason)  [ 5%]", the id printed before the test runs
     * (a line that ends there is the test still running) */
    size_t len = strlen(line);
    bool id_only = line[len - 1] == ' ';
    trim_right(line);
    pytest_strip_progress(line);
    len = strlen(line);
    for (size_t at = len; at-- > 0;) {
        if (line[at] != ' ')
            continue;
        char *w = line + at + 1;
        size_t wl = strcspn(w, " ");
        if (!pytest_word(w, wl, &st))
            continue;
        char *after = w + wl;
        if (*after && !(after[0] == ' ' && after[1] == '(' && line[len - 1] == ')'))
            continue;
        line[at] = '\0';
        if (strstr(line, "::"))
            test_result(p, NULL, line, st);
        return;
    }
    /* "ID " alone: the test now running (pytest prints the id, then runs
     * the test, then the outcome; xdist prints the id on a line of its own) */
    if (id_only)
        test_started(p, NULL, line);
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

static const char *const pytest_value_options[] = {
    "-k", "-m", "-p", "-c", "-o", "-n", "-W", "-r", "--rootdir", "--tb", "--dist", "--maxfail",
    "--deselect", "--ignore", "--ignore-glob", "--confcutdir", "--basetemp", "--durations",
    "--junitxml", "--junit-xml", "--import-mode", "--log-level", "--log-file", "--numprocesses",
    "--maxprocesses", "--timeout", "--capture", "--pyargs-root", "--override-ini", "--config-file",
    "--cov", "--cov-report", "--tx", "--rsyncdir", "--color", "--code-highlight", NULL,
};

/* unittest: -k may be given many times (a test runs when any pattern
 * matches it), the user's own -k removed; none: a pattern no dotted
 * Python name contains. */
static bool unittest_select(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                            struct strv *out)
{
    int n = (int)argv_len(argv);
    int d = end_of_options(argv, a + 1);
    for (int i = 0; i < d; i++) {
        if (i > a && !strcmp(argv[i], "-k")) {
            i++;
            continue;
        }
        if (i > a && !strncmp(argv[i], "-k", 2))
            continue;
        push(out, argv[i]);
    }
    for (size_t i = 0; i < count; i++) {
        push(out, "-k");
        strv_push(out, unittest_pattern(tests[i]->id));
    }
    if (!count) {
        push(out, "-k");
        push(out, "sbx:selects:no:test");
    }
    push_range(out, argv, d, n);
    return true;
}

static bool unittest_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                           struct strv *out)
{
    return unittest_select(argv, a, tests, count, out);
}

static bool unittest_baseline(char *const argv[], int a, const struct runner_test *t, struct strv *out)
{
    (void)t;
    return unittest_select(argv, a, NULL, 0, out);
}

/* pytest: the node ids, replacing the user's files and ids (node ids are
 * relative to pytest's rootdir: this assumes the run starts there, as the
 * audited one did); none: t's file collected (its imports, its module
 * code) and every test deselected by a -k no name matches, after the
 * user's own (the last -k wins). */
static bool pytest_select(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                          const struct runner_test *t, struct strv *out)
{
    int d = end_of_options(argv, a + 1);
    push_range(out, argv, 0, a + 1);
    for (int i = a + 1; i < d; i++) {
        if (argv[i][0] != '-')
            continue;  /* a file, directory or node id the user chose */
        push(out, argv[i]);
        if (takes_value(pytest_value_options, argv[i]) && argv[i + 1] && i + 1 < d)
            push(out, argv[++i]);
    }
    for (size_t i = 0; i < count; i++)
        push(out, tests[i]->id);
    if (!count) {
        const char *sep = strstr(t->id, "::");
        strv_push(out, sep ? xstrndup(t->id, (size_t)(sep - t->id)) : xstrdup(t->id));
        push(out, "-k");
        push(out, "sbx_selects_no_test");
    }
    return true;
}

static bool pytest_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                         struct strv *out)
{
    return pytest_select(argv, a, tests, count, NULL, out);
}

static bool pytest_baseline(char *const argv[], int a, const struct runner_test *t, struct strv *out)
{
    return pytest_select(argv, a, NULL, 0, t, out);
}

static void unittest_finish(struct runner_parser *p)
{
    struct python_state *ps = p->state;
    uint64_t end = p->line_end;
    for (size_t r = 0; r < ps->reports.n; r++) {
        const char *v = ps->reports.v[r], *id = v + 21;
        size_t k = find_test(p, NULL, id, false);
        if (k != SIZE_MAX && p->entries[k].has_result)
            continue;
        /* at the position of its report line */
        p->line_end = strtoull(v + 1, NULL, 10);
        test_result(p, NULL, id, (enum test_status)(v[0] - '0'));
    }
    p->line_end = end;
    static const char *const fixtures[] = { ".setUpClass", ".tearDownClass", ".setUpModule", ".tearDownModule" };
    for (size_t i = 0; i < p->n; i++) {
        const char *id = p->tests[i].id;
        bool fixture = starts(id, "unittest.loader._FailedTest.") || starts(id, "unittest.loader.ModuleImportFailure.");
        for (size_t f = 0; f < 4 && !fixture; f++)
            fixture = ends_with(id, fixtures[f]);
        if (fixture)
            test_kind(p, i, RUNNER_TEST_FIXTURE);
    }
}

static void pytest_finish(struct runner_parser *p)
{
    for (size_t i = 0; i < p->n; i++)
        if (!strstr(p->tests[i].id, "::"))
            test_kind(p, i, RUNNER_TEST_FIXTURE);
}

static void *python_state_new(void)
{
    return xcalloc(1, sizeof(struct python_state));
}

static void python_state_free(void *state)
{
    struct python_state *ps = state;
    if (ps) {
        free(ps->doc_id);
        strv_free(&ps->reports);
    }
    free(ps);
}

static const struct runner_ops unittest_ops = {
    .anchor = unittest_anchor,
    .command = cmd_unittest,
    .line = unittest_line,
    .partial = unittest_partial,
    .finish = unittest_finish,
    .rerun = unittest_rerun,
    .baseline = unittest_baseline,
    .state_new = python_state_new,
    .state_free = python_state_free,
};

static const struct runner_ops pytest_ops = {
    .anchor = pytest_anchor,
    .command = cmd_pytest,
    .line = pytest_line,
    .finish = pytest_finish,
    .rerun = pytest_rerun,
    .baseline = pytest_baseline,
    .state_new = python_state_new,
    .state_free = python_state_free,
};

static const struct runner_ops regrtest_ops = {
    .anchor = regrtest_anchor,
    .command = cmd_regrtest,
    .line = unittest_line,
    .partial = unittest_partial,
    .finish = unittest_finish,
    .rerun = regrtest_rerun,
    .baseline = regrtest_baseline,
    .state_new = python_state_new,
    .state_free = python_state_free,
};

const struct runner runner_regrtest = { RUNNER_REGRTEST, "regrtest", "python -m test (CPython's suite)",
                                        RUNNER_ATTRIBUTE_ALONE, &regrtest_ops };
const struct runner runner_unittest = { RUNNER_UNITTEST, "unittest", "python -m unittest",
                                        RUNNER_ATTRIBUTE_PLACED, &unittest_ops };
const struct runner runner_pytest = { RUNNER_PYTEST, "pytest", "pytest or python -m pytest",
                                      RUNNER_ATTRIBUTE_ALONE, &pytest_ops };
