/* The test runners (src/runner*.c): which runner a command starts, the
 * command line that reports per test, the command that re-runs one test,
 * and the parsers, against outputs of the real runners captured in
 * tests/corpus/runners (the .out files; gen.sh there regenerates them): the exact
 * list of (unit, id, status) per file, the same when the output arrives
 * cut at every byte, and no crash or unbounded growth on hostile bytes. */
#include "config.h"

#include "runner.h"
#include "util.h"

#include "../tap.h"

#include <stdint.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CORPUS SBX_ABS_SRCDIR "/tests/corpus/runners/"
/* runner_go.c's -exec program, as it must reach go test */
#define GO_EXEC_WANT                                                                               \
    "sh -c 'if : 2>/dev/null >>/proc/$PPID/fd/1; then exec \"$0\" \"$@\" >>/proc/$PPID/fd/1 2>&1; fi; " \
    "echo sbx-go-exec: relayed; exec \"$0\" \"$@\"'"

struct expect {
    const char *unit;
    const char *id;
    enum test_status status;
};

static const struct runner *named(const char *name)
{
    const char *suggestion;
    const struct runner *r = runner_by_name(name, &suggestion);
    if (!r)
        bail_out("no runner of that name");
    return r;
}

/* argv as the tests below read it: sbx's result reporter ("-c" and the
 * code that reads it, runner_python.c) shown as the "-m MODULE" it runs,
 * or, for pytest run as a program ("PYTHON -c CODE" naming its script),
 * as the program's name; runner-report-test.c checks them as they are.
 * Owned. */
static char **shown(char **argv)
{
    struct strv sv = { 0 };
    for (size_t i = 0; argv && argv[i]; i++) {
        const char *main_at = argv[i + 1] ? strstr(argv[i + 1], "'MAIN':'") : NULL;
        const char *script = argv[i + 1] ? strstr(argv[i + 1], "'SCRIPT':'") : NULL;
        if (!strcmp(argv[i], "-c") && script && sv.n == 1 && !strncmp(argv[i + 1], "import os;exec(", 15)) {
            script = strrchr(script + 10, '/');
            free(sv.v[0]);
            sv.v[0] = xstrndup(script + 1, strcspn(script + 1, "'"));
            i++;
            continue;
        }
        if (!strcmp(argv[i], "-c") && main_at && !strncmp(argv[i + 1], "import os;exec(", 15)) {
            main_at += 8;
            strv_push(&sv, xstrdup("-m"));
            strv_push(&sv, xstrndup(main_at, strcspn(main_at, "'")));
            i++;
            continue;
        }
        strv_push(&sv, xstrdup(argv[i]));
    }
    if (!sv.v)
        sv.v = xcalloc(1, sizeof *sv.v);
    return sv.v;
}

static char *joined(char **raw)
{
    if (!raw)
        return xstrdup("(null)");
    char **argv = shown(raw);
    size_t len = 1;
    for (char **a = argv; *a; a++)
        len += strlen(*a) + 1;
    char *out = xmalloc(len);
    out[0] = '\0';
    for (char **a = argv; *a; a++) {
        if (a != argv)
            strcat(out, " ");
        strcat(out, *a);
    }
    runner_argv_free(argv);
    return out;
}

/* ---- detection ---- */

static void test_detect(void)
{
    static const struct {
        const char *argv[8];
        const char *runner;  /* NULL: not recognised */
        const char *why;     /* part of the reason when not */
    } cases[] = {
        { { "cargo", "test", NULL }, "cargo", NULL },
        { { "/root/.cargo/bin/cargo", "+stable", "--locked", "test", "--", "--test-threads", "2", NULL }, "cargo", NULL },
        { { "cargo", "build", NULL }, NULL, "cargo build is not cargo test" },
        { { "python3", "-m", "unittest", NULL }, "unittest", NULL },
        { { "python3.11", "-B", "-X", "dev", "-munittest", "discover", NULL }, "unittest", NULL },
        { { "python", "-m", "pytest", "-q", NULL }, "pytest", NULL },
        { { "pytest", "tests", NULL }, "pytest", NULL },
        { { "py.test", NULL }, "pytest", NULL },
        { { "python3", "run_tests.py", NULL }, NULL, "python3 runs a script" },
        { { "python3", "-c", "import unittest", NULL }, NULL, "python3 runs a script" },
        { { "python3", "-m", "http.server", NULL }, NULL, "python -m http.server is neither" },
        { { "go", "test", "./...", NULL }, "go", NULL },
        { { "go", "vet", "./...", NULL }, NULL, "go vet is not go test" },
        { { "node", "--test", NULL }, "node", NULL },
        { { "node", "--experimental-vm-modules", "--test", "t/", NULL }, "node", NULL },
        { { "node", "app.js", "--test", NULL }, NULL, "node runs a script" },
        { { "prove", "-lr", "t", NULL }, "prove", NULL },
        { { "make", "-C", "check", "all", NULL }, NULL, "make runs no `check` target" },
        { { "make", "-j2", "check", NULL }, "automake", NULL },
        { { "./run-tests.sh", NULL }, NULL, "run-tests.sh is not a test runner sbx knows" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[512] = "";
        const struct runner *r = runner_detect((char *const *)cases[i].argv, why, sizeof why);
        if (cases[i].runner)
            is_str(r ? r->name : "(none)", cases[i].runner, "detect: %s ... is %s", cases[i].argv[0],
                   cases[i].runner);
        else
            ok(!r && strstr(why, cases[i].why) && strstr(why, "--runner NAME"),
               "detect: %s %s is no runner: %s", cases[i].argv[0], cases[i].argv[1] ? cases[i].argv[1] : "",
               why);
    }

    const char *suggestion;
    ok(runner_by_name("pytest", &suggestion) && !suggestion, "--runner pytest names pytest");
    ok(!runner_by_name("pytset", &suggestion) && suggestion && !strcmp(suggestion, "pytest"),
       "--runner pytset: did you mean pytest");
    ok(!runner_by_name("nod", &suggestion) && suggestion && !strcmp(suggestion, "node"),
       "--runner nod: did you mean node");
    ok(!runner_by_name("karma", &suggestion) && !suggestion, "--runner karma: unknown, nothing near");
    ok(strstr(runner_names(), "automake") && strstr(runner_names(), "tap"), "the names list has them all");
}

/* ---- the command that reports per test ---- */

static void check_command(const char *runner, const char *const argv[], const char *want,
                          const char *note_part)
{
    struct runner_command c;
    char err[512] = "";
    const struct runner *r = runner ? named(runner) : NULL;
    char why[256];
    if (!r)
        r = runner_detect((char *const *)argv, why, sizeof why);
    if (!r || !runner_command(r, (char *const *)argv, &c, err, sizeof err)) {
        ok(0, "command: %s (%s)", want, err);
        return;
    }
    char *got = joined(c.argv);
    is_str(got, want, "command: %s", want);
    /* the user's arguments are all there, in their order */
    size_t j = 0;
    char **seen = shown(c.argv);
    for (size_t i = 0; seen[i] && argv[j]; i++)
        if (!strcmp(seen[i], argv[j]))
            j++;
    runner_argv_free(seen);
    ok(!argv[j], "  keeps the command's %zu arguments in order", j);
    ok(strstr(c.note, note_part) != NULL, "  note says: %s", note_part);
    free(got);
    runner_command_free(&c);
}

static void check_refused(const char *const argv[], const char *err_part)
{
    char why[256], err[512] = "";
    struct runner_command c;
    const struct runner *r = runner_detect((char *const *)argv, why, sizeof why);
    ok(r && !runner_command(r, (char *const *)argv, &c, err, sizeof err) && strstr(err, err_part),
       "refused: %s %s ...: %s", argv[0], argv[1], err);
}

/* A command from which the runner removes what hides its per-test lines:
 * the command sbx runs is exactly `want`. */
static void check_removed(const char *const argv[], const char *want, const char *note_part)
{
    char why[256], err[512] = "";
    struct runner_command c;
    const struct runner *r = runner_detect((char *const *)argv, why, sizeof why);
    if (!r || !runner_command(r, (char *const *)argv, &c, err, sizeof err)) {
        ok(0, "command %s: %s", want, err);
        return;
    }
    char *got = joined(c.argv);
    is_str(got, want, "command: %s", want);
    ok(strstr(c.note, note_part) != NULL, "  note says: %s", note_part);
    free(got);
    runner_command_free(&c);
}

static void test_command(void)
{
    check_command(NULL, (const char *[]){ "cargo", "test", "-p", "foo", "adds", "--", "--test-threads", "2", NULL },
                  "cargo test --no-fail-fast -p foo adds -- --test-threads 2", "--no-fail-fast");
    check_command(NULL, (const char *[]){ "cargo", "test", "--no-fail-fast", NULL },
                  "cargo test --no-fail-fast", "");
    /* -q and --format terse name no test: removed (issue 25), and only they */
    check_removed((const char *[]){ "cargo", "-q", "test", "--release", "-q", "--", "-q", "--exact", NULL },
                  "cargo test --no-fail-fast --release -- --exact", "removed -q: libtest then prints one character");
    check_removed((const char *[]){ "cargo", "test", "--quiet", "--workspace", "--", "--format", "terse", NULL },
                  "cargo test --no-fail-fast --workspace --", "removed -q and --format terse");
    check_removed((const char *[]){ "cargo", "test", "--", "--format=terse", "--test-threads=4", NULL },
                  "cargo test --no-fail-fast -- --test-threads=4", "removed --format terse");
    check_refused((const char *[]){ "cargo", "test", "--", "--format", "json", NULL }, "--format");
    check_command(NULL, (const char *[]){ "python3", "-m", "unittest", "discover", "-s", "tests", NULL },
                  "python3 -m unittest discover -s tests -v", "added -v");
    check_command(NULL, (const char *[]){ "python3", "-m", "unittest", "-v", "-q", "m", NULL },
                  "python3 -m unittest -v -q m -v", "added -v");
    check_command(NULL, (const char *[]){ "python3", "-m", "unittest", "-v", NULL },
                  "python3 -m unittest -v", "");
    check_command(NULL, (const char *[]){ "pytest", "-q", "-n", "2", "tests", NULL },
                  "pytest -q -n 2 tests -p no:cacheprovider --verbosity=1", "no:cacheprovider");
    check_command(NULL, (const char *[]){ "python3", "-m", "pytest", "-vv", "--", "x", NULL },
                  "python3 -m pytest -vv -p no:cacheprovider --verbosity=2 -- x", "verbos");
    check_refused((const char *[]){ "pytest", "--lf", NULL }, "cache of a previous run");
    /* stopping at the first failure leaves later tests without a result
     * under the stricter profile: undone, as cargo's --no-fail-fast */
    check_command(NULL, (const char *[]){ "pytest", "-xv", "t", NULL },
                  "pytest -xv t -p no:cacheprovider --verbosity=1 --maxfail=0", "added --maxfail=0");
    check_removed((const char *[]){ "python3", "-m", "unittest", "-f", "-v", "m", NULL },
                  "python3 -m unittest -v m", "removed -f/--failfast");
    check_removed((const char *[]){ "go", "test", "-failfast", "./...", NULL },
                  "go test -json -count=1 ./...", "removed -failfast");
    check_removed((const char *[]){ "python3", "-m", "test", "test_socket", NULL },
                  "python3 -m test -v test_socket", "added -v: CPython's regrtest");
    check_removed((const char *[]){ "ctest", "-Q", "-j4", NULL }, "ctest -j4", "removed -Q");
    check_refused((const char *[]){ "pytest", "--stepwise", NULL }, "cache of a previous run");
    check_command(NULL, (const char *[]){ "go", "test", "-v", "./...", "-args", "-x", NULL },
                  "go test -json -count=1 -v ./... -args -x", "added -count=1: go test replays cached results");
    check_command(NULL, (const char *[]){ "go", "test", "-count=2", "-json", NULL },
                  "go test -count=2 -json", "");
    /* one package named: the test binary is given sbx's own output */
    check_command(NULL, (const char *[]){ "go", "test", "-run", "X", ".", NULL },
                  "go test -v -exec " GO_EXEC_WANT " -count=1 -run X .", "added -v and -exec");
    check_command(NULL, (const char *[]){ "go", "test", "-v", "./pkg", "-args", "-x", "y", NULL },
                  "go test -exec " GO_EXEC_WANT " -count=1 -v ./pkg -args -x y", "added -exec");
    /* several, a pattern, the user's own -exec or -json: test2json's events */
    check_command(NULL, (const char *[]){ "go", "test", "./a", "./b", NULL },
                  "go test -json -count=1 ./a ./b", "added -json");
    check_command(NULL, (const char *[]){ "go", "test", "./pkg/...", NULL },
                  "go test -json -count=1 ./pkg/...", "added -json");
    check_command(NULL, (const char *[]){ "go", "test", "-exec", "qemu", ".", NULL },
                  "go test -json -count=1 -exec qemu .", "added -json");
    check_command(NULL, (const char *[]){ "go", "test", "-exec=qemu", ".", NULL },
                  "go test -json -count=1 -exec=qemu .", "added -json");
    setenv("GOFLAGS", "-mod=mod -exec=qemu-arm", 1);
    check_command(NULL, (const char *[]){ "go", "test", ".", NULL }, "go test -json -count=1 .",
                  "added -json");
    unsetenv("GOFLAGS");
    check_command(NULL, (const char *[]){ "node", "--test", "--test-concurrency=2", "t/", NULL },
                  "node --test --test-reporter=tap --test-concurrency=2 t/", "--test-reporter=tap");
    check_refused((const char *[]){ "node", "--test", "--test-reporter=spec", NULL }, "own reporter");
    check_command(NULL, (const char *[]){ "prove", "-lr", "t", NULL }, "prove -v -lr t", "added -v");
    check_command(NULL, (const char *[]){ "prove", "-lv", "t", NULL }, "prove -lv t", "");
    check_command(NULL, (const char *[]){ "make", "-j2", "check", NULL },
                  "make -j2 check AM_COLOR_TESTS=no", "AM_COLOR_TESTS=no");
    /* --runner with a wrapper: nothing can be inserted, and the note says what it must print */
    check_command("go", (const char *[]){ "./ci/test.sh", "--fast", NULL }, "./ci/test.sh --fast",
                  "added nothing: the command is not go test");
    check_command("tap", (const char *[]){ "./tests/unit/audit-test", NULL }, "./tests/unit/audit-test", "");
}

/* ---- re-running one test ---- */

static void check_rerun(const char *runner, const char *const argv[], const char *unit, const char *id,
                        const char *want)
{
    struct runner_test t = { (char *)id, (char *)unit, TEST_FAILED };
    char **re = runner_rerun_argv(named(runner), (char *const *)argv, &t);
    char *got = joined(re);
    is_str(got, want, "re-run %s: %s", id, want);
    free(got);
    runner_argv_free(re);
}

static void test_rerun(void)
{
    check_rerun("cargo", (const char *[]){ "cargo", "test", "-p", "foo", "--", "--test-threads", "2", NULL },
                "--test net", "adds",
                "cargo test --no-fail-fast -p foo --test net -- --test-threads 2 --exact adds");
    check_rerun("cargo", (const char *[]){ "cargo", "test", NULL }, "--doc", "src/lib.rs - add (line 5)",
                "cargo test --no-fail-fast --doc -- src/lib.rs - add (line 5)");
    /* a workspace's package, by its crate's name: "b-c" builds b_c */
    check_rerun("cargo", (const char *[]){ "cargo", "test", "-q", "--workspace", NULL }, "-p b_c --lib", "tests::same",
                "cargo test --no-fail-fast --workspace -p b[-_]c --lib -- --exact tests::same");
    check_rerun("cargo", (const char *[]){ "cargo", "test", "--workspace", NULL }, "-p a --doc", "a/src/lib.rs - f (line 1)",
                "cargo test --no-fail-fast --workspace -p a --doc -- a/src/lib.rs - f (line 1)");
    /* -k with a '*' is an fnmatch over the whole name: "[t*]" is 't' */
    check_rerun("unittest", (const char *[]){ "python3", "-m", "unittest", "-k", "foo", "discover", NULL },
                NULL, "test_units.TestPlain.test_pass",
                "python3 -m unittest discover -k [t*]est_units.TestPlain.test_pass -v");
    check_rerun("unittest", (const char *[]){ "python3", "-m", "unittest", "test_units", NULL },
                NULL, "test_units.TestSetupFails.setUpClass",
                "python3 -m unittest test_units -k test_units.TestSetupFails.* -v");
    check_rerun("pytest", (const char *[]){ "pytest", "-k", "not slow", "tests", "-n", "2", NULL },
                NULL, "test_pt.py::test_odd_ids[a b]",
                "pytest -k not slow -n 2 test_pt.py::test_odd_ids[a b] -p no:cacheprovider --verbosity=1");
    check_rerun("go", (const char *[]){ "go", "test", "-tags", "net", "-run", "X", "./...", "-args", "-v", NULL },
                "example.com/corpus", "example.com/corpus TestSub/with_space/deeper",
                "go test -count=1 -json -tags net -run X -run=^TestSub$/^with_space$/^deeper$ example.com/corpus -args -v");
    /* a bare name comes from a run that gave the binary sbx's output: so
     * does its re-run, in the command's one package */
    check_rerun("go", (const char *[]){ "go", "test", "-count=1", "./pkg", NULL }, NULL, "TestA/sub",
                "go test -v -exec " GO_EXEC_WANT " -count=1 ./pkg -run=^TestA$/^sub$");
    check_rerun("node", (const char *[]){ "node", "--test", "t/", NULL }, NULL, "parent > child (1)",
                "node --test --test-reporter=tap --test-name-pattern=^parent$ --test-name-pattern=^child \\(1\\)$ t/");
    check_rerun("prove", (const char *[]){ "prove", "-I", "lib", "-r", "t", NULL }, "t/basic.t", "t/basic.t: fails",
                "prove -v -I lib -r t/basic.t");
    check_rerun("automake", (const char *[]){ "make", "check", "TESTS=a b", NULL }, "basic.t", "basic.t: fails",
                "make check TESTS=basic.t AM_COLOR_TESTS=no");
    struct runner_test t = { "x", NULL, TEST_FAILED };
    ok(!runner_rerun_argv(named("tap"), (char *const[]){ "./t", NULL }, &t), "re-run: a TAP command cannot run one test");
}

/* ---- the parsers on the corpus ---- */

static struct runner_parser *parse_in_pieces(const struct runner *r, const char *text, size_t len,
                                             size_t split, bool killed)
{
    struct runner_parser *p = runner_parser_new(r);
    runner_parser_feed(p, text, split);
    runner_parser_feed(p, text + split, len - split);
    runner_parser_finish(p, killed);
    return p;
}

/* NULL when the parse is the expected list, else what differs. */
static char *difference(struct runner_parser *p, const struct expect *e, size_t ne)
{
    size_t n;
    const struct runner_test *t = runner_parser_tests(p, &n);
    for (size_t i = 0; i < n || i < ne; i++) {
        if (i >= n)
            return xasprintf("missing %s", e[i].id);
        if (i >= ne)
            return xasprintf("unexpected %s (%s)", t[i].id, test_status_name(t[i].status));
        bool unit_same = (!t[i].unit && !e[i].unit) || (t[i].unit && e[i].unit && !strcmp(t[i].unit, e[i].unit));
        if (strcmp(t[i].id, e[i].id) || !unit_same || t[i].status != e[i].status)
            return xasprintf("#%zu is [%s] %s %s, not [%s] %s %s", i, t[i].unit ? t[i].unit : "-", t[i].id,
                             test_status_name(t[i].status), e[i].unit ? e[i].unit : "-", e[i].id,
                             test_status_name(e[i].status));
    }
    return NULL;
}

static void check_corpus(const char *runner, const char *file, bool killed, const struct expect *e, size_t ne)
{
    const struct runner *r = named(runner);
    char *path = xasprintf(CORPUS "%s", file);
    size_t len;
    char *text = read_file_text(path, 1 << 22, &len);
    if (!text)
        bail_out("cannot read the corpus");
    struct runner_parser *p = parse_in_pieces(r, text, len, len, killed);
    char *diff = difference(p, e, ne);
    ok(!diff, "%s: %zu tests as %s reports them%s%s", file, ne, runner, diff ? ": " : "", diff ? diff : "");
    free(diff);
    runner_parser_free(p);

    /* the output cut in two at every byte, and fed one byte at a time */
    char *first = NULL;
    for (size_t split = 0; split <= len && !first; split++) {
        p = parse_in_pieces(r, text, len, split, killed);
        char *d = difference(p, e, ne);
        if (d)
            first = xasprintf("split at %zu: %s", split, d);
        free(d);
        runner_parser_free(p);
    }
    p = runner_parser_new(r);
    for (size_t i = 0; i < len; i++)
        runner_parser_feed(p, text + i, 1);
    runner_parser_finish(p, killed);
    char *d = difference(p, e, ne);
    if (d && !first)
        first = xasprintf("byte by byte: %s", d);
    free(d);
    runner_parser_free(p);
    ok(!first, "%s: the same list cut at each of %zu split points and byte by byte%s%s", file, len + 1,
       first ? ": " : "", first ? first : "");
    free(first);
    free(text);
    free(path);
}

#define CORPUS_CHECK(runner, file, killed, ...)                                                     \
    do {                                                                                            \
        static const struct expect want[] = { __VA_ARGS__ };                                        \
        check_corpus(runner, file, killed, want, sizeof want / sizeof want[0]);                     \
    } while (0)

static void test_corpus(void)
{
    /* libtest on its default parallel threads (results in the order the
     * tests ended), three binaries, should_panic and doc tests */
    CORPUS_CHECK("cargo", "cargo.out", false,
        { "-p runner_corpus --lib", "tests::adds", TEST_PASSED },
        { "-p runner_corpus --lib", "tests::ignored_with_reason", TEST_SKIPPED },
        { "-p runner_corpus --lib", "tests::nested::quick_parallel", TEST_PASSED },
        { "-p runner_corpus --lib", "tests::fails_assert", TEST_FAILED },
        { "-p runner_corpus --lib", "tests::panics", TEST_FAILED },
        { "-p runner_corpus --lib", "tests::should_panic_ok", TEST_PASSED },
        { "-p runner_corpus --lib", "tests::nested::slow_parallel", TEST_PASSED },
        { "--test net", "loopback_bind", TEST_PASSED },
        { "--test net", "adds", TEST_PASSED },
        { "-p runner_corpus --doc", "src/lib.rs - add (line 5)", TEST_PASSED });
    /* docstrings (two lines), output between the name and the result, a
     * subtest failure, setUpClass that prints only "ERROR" */
    CORPUS_CHECK("unittest", "unittest.out", false,
        { NULL, "test_units.TestPlain.test_documented", TEST_PASSED },
        { NULL, "test_units.TestPlain.test_error", TEST_ERRORED },
        { NULL, "test_units.TestPlain.test_expected_failure", TEST_SKIPPED },
        { NULL, "test_units.TestPlain.test_fail", TEST_FAILED },
        { NULL, "test_units.TestPlain.test_noisy", TEST_PASSED },
        { NULL, "test_units.TestPlain.test_pass", TEST_PASSED },
        { NULL, "test_units.TestPlain.test_skipped", TEST_SKIPPED },
        { NULL, "test_units.TestPlain.test_unexpected_success", TEST_FAILED },
        { NULL, "test_units.TestSub.test_subtests", TEST_FAILED },
        { NULL, "test_units.TestSub.test_subtests_pass", TEST_PASSED },
        { NULL, "test_units.TestSetupFails.setUpClass", TEST_ERRORED });
    /* a teardown error after PASSED, parametrized ids with spaces,
     * brackets, a status word and pytest's escaped non-ASCII */
    CORPUS_CHECK("pytest", "pytest.out", false,
        { NULL, "test_pt.py::test_pass", TEST_PASSED },
        { NULL, "test_pt.py::test_fail", TEST_FAILED },
        { NULL, "test_pt.py::test_skip", TEST_SKIPPED },
        { NULL, "test_pt.py::test_marked_skip", TEST_SKIPPED },
        { NULL, "test_pt.py::test_xfail", TEST_SKIPPED },
        { NULL, "test_pt.py::test_xpass", TEST_PASSED },
        { NULL, "test_pt.py::test_fixture_error", TEST_ERRORED },
        { NULL, "test_pt.py::test_teardown_error", TEST_ERRORED },
        { NULL, "test_pt.py::test_param[1]", TEST_PASSED },
        { NULL, "test_pt.py::test_param[2]", TEST_FAILED },
        { NULL, "test_pt.py::test_param[3]", TEST_PASSED },
        { NULL, "test_pt.py::test_odd_ids[a b]", TEST_PASSED },
        { NULL, "test_pt.py::test_odd_ids[x[1]]", TEST_PASSED },
        { NULL, "test_pt.py::test_odd_ids[PASSED]", TEST_PASSED },
        { NULL, "test_pt.py::test_odd_ids[\\xe9]", TEST_PASSED },
        { NULL, "test_pt.py::TestGroup::test_method", TEST_PASSED },
        { NULL, "test_pt.py::TestGroup::test_lenient_bind", TEST_PASSED });
    /* two xdist workers: ids announced, then results out of order (the
     * order of these lists is the captured run's: after gen.sh, follow
     * the new files where the runner runs tests in parallel) */
    CORPUS_CHECK("pytest", "pytest-xdist.out", false,
        { NULL, "test_pt.py::test_pass", TEST_PASSED },
        { NULL, "test_pt.py::test_skip", TEST_SKIPPED },
        { NULL, "test_pt.py::test_marked_skip", TEST_SKIPPED },
        { NULL, "test_pt.py::test_xfail", TEST_SKIPPED },
        { NULL, "test_pt.py::test_fail", TEST_FAILED },
        { NULL, "test_pt.py::test_xpass", TEST_PASSED },
        { NULL, "test_pt.py::test_teardown_error", TEST_ERRORED },
        { NULL, "test_pt.py::test_param[1]", TEST_PASSED },
        { NULL, "test_pt.py::test_param[2]", TEST_FAILED },
        { NULL, "test_pt.py::test_fixture_error", TEST_ERRORED },
        { NULL, "test_pt.py::test_param[3]", TEST_PASSED },
        { NULL, "test_pt.py::test_odd_ids[x[1]]", TEST_PASSED },
        { NULL, "test_pt.py::test_odd_ids[a b]", TEST_PASSED },
        { NULL, "test_pt.py::test_odd_ids[PASSED]", TEST_PASSED },
        { NULL, "test_pt.py::test_odd_ids[\\xe9]", TEST_PASSED },
        { NULL, "test_pt.py::TestGroup::test_method", TEST_PASSED },
        { NULL, "test_pt.py::TestGroup::test_lenient_bind", TEST_PASSED });
    /* killed while a test hangs: the unended last line names it */
    CORPUS_CHECK("pytest", "pytest-killed.out", true,
        { NULL, "test_hang.py::test_before", TEST_PASSED },
        { NULL, "test_hang.py::test_hangs", TEST_TIMED_OUT });
    CORPUS_CHECK("pytest", "pytest-killed.out", false,
        { NULL, "test_hang.py::test_before", TEST_PASSED },
        { NULL, "test_hang.py::test_hangs", TEST_ERRORED });
    /* subtests, parallel tests, a panic in a second package, and a test
     * that prints "--- PASS: TestFake", which go 1.19's test2json turns
     * into a pass event of a test that never ran: not a test */
#define GO_PKG "example.com/corpus"
    CORPUS_CHECK("go", "go.out", false,
        { GO_PKG, GO_PKG " TestPass", TEST_PASSED },
        { GO_PKG, GO_PKG " TestFail", TEST_FAILED },
        { GO_PKG, GO_PKG " TestSkip", TEST_SKIPPED },
        { GO_PKG, GO_PKG " TestSub", TEST_FAILED },
        { GO_PKG, GO_PKG " TestSub/ok", TEST_PASSED },
        { GO_PKG, GO_PKG " TestSub/fails", TEST_FAILED },
        { GO_PKG, GO_PKG " TestSub/with_space", TEST_PASSED },
        { GO_PKG, GO_PKG " TestSub/with_space/deeper", TEST_PASSED },
        { GO_PKG, GO_PKG " TestParallelA", TEST_PASSED },
        { GO_PKG, GO_PKG " TestParallelB", TEST_PASSED },
        { GO_PKG, GO_PKG " TestBind", TEST_PASSED },
        { GO_PKG "/sub", GO_PKG "/sub TestPanics", TEST_FAILED });
    /* -timeout: the binary panics while TestHangs runs */
    CORPUS_CHECK("go", "go-timeout.out", false,
        { GO_PKG "/hang", GO_PKG "/hang TestBefore", TEST_PASSED },
        { GO_PKG "/hang", GO_PKG "/hang TestHangs", TEST_TIMED_OUT });
    /* nested tests and suites, an escaped '#', console output as TAP
     * comments; the two files' "passes" are one name to node 20's TAP */
    CORPUS_CHECK("node", "node.out", false,
        { NULL, "passes", TEST_PASSED },
        { NULL, "fails", TEST_FAILED },
        { NULL, "skipped", TEST_SKIPPED },
        { NULL, "todo", TEST_PASSED },
        { NULL, "throws", TEST_FAILED },
        { NULL, "parent > child ok", TEST_PASSED },
        { NULL, "parent > child fails", TEST_FAILED },
        { NULL, "parent", TEST_FAILED },
        { NULL, "suite > inner # not a directive", TEST_PASSED },
        { NULL, "suite > slow", TEST_PASSED },
        { NULL, "suite", TEST_PASSED },
        { NULL, "concurrent > a", TEST_PASSED },
        { NULL, "concurrent > b", TEST_PASSED },
        { NULL, "concurrent", TEST_PASSED });
    /* SKIP, TODO, Test::More subtests (indented), a plan not completed,
     * a bail out */
    CORPUS_CHECK("prove", "prove.out", false,
        { "t/basic.t", "t/basic.t: passes", TEST_PASSED },
        { "t/basic.t", "t/basic.t: fails", TEST_FAILED },
        { "t/basic.t", "t/basic.t: skipped", TEST_SKIPPED },
        { "t/basic.t", "t/basic.t: todo", TEST_SKIPPED },
        { "t/basic.t", "t/basic.t: hash # in the name", TEST_PASSED },
        { "t/basic.t", "t/basic.t: #6", TEST_PASSED },
        { "t/nested.t", "t/nested.t: outer > inner passes", TEST_PASSED },
        { "t/nested.t", "t/nested.t: outer > deeper > deepest fails", TEST_FAILED },
        { "t/nested.t", "t/nested.t: outer > deeper", TEST_FAILED },
        { "t/nested.t", "t/nested.t: outer", TEST_FAILED },
        { "t/nested.t", "t/nested.t: after", TEST_PASSED },
        { "t/short.t", "t/short.t: only one of three", TEST_PASSED },
        { "t/short.t", "t/short.t", TEST_ERRORED },
        { "t/zbail.t", "t/zbail.t: first", TEST_PASSED },
        { "t/zbail.t", "t/zbail.t", TEST_ERRORED });
    /* a TAP script's results and plain scripts (exit 0, 1, 77, 99, XFAIL) */
    CORPUS_CHECK("automake", "automake.out", false,
        { "basic.t", "basic.t: passes", TEST_PASSED },
        { "basic.t", "basic.t: fails", TEST_FAILED },
        { "basic.t", "basic.t: skipped", TEST_SKIPPED },
        { "basic.t", "basic.t: todo", TEST_SKIPPED },
        { "basic.t", "basic.t: hash # in the name", TEST_PASSED },
        { "basic.t", "basic.t: #6", TEST_PASSED },
        { "pass.sh", "pass.sh", TEST_PASSED },
        { "fail.sh", "fail.sh", TEST_FAILED },
        { "skip.sh", "skip.sh", TEST_SKIPPED },
        { "hard.sh", "hard.sh", TEST_ERRORED },
        { "xfail.sh", "xfail.sh", TEST_SKIPPED });
}

/* ---- what a test can print ---- */

static const struct runner_test *row(struct runner_parser *p, const char *id);

static size_t parse_count(const char *runner, const char *text, enum test_status *first)
{
    struct runner_parser *p = runner_parser_new(named(runner));
    runner_parser_feed(p, text, strlen(text));
    runner_parser_finish(p, false);
    size_t n;
    const struct runner_test *t = runner_parser_tests(p, &n);
    if (first)
        *first = n ? t[0].status : TEST_RUNNING;
    runner_parser_free(p);
    return n;
}

static void test_forged_and_odd(void)
{
    enum test_status st;
    is_int((int)parse_count("cargo", "running 1 tests\ntest a ... FAILED\n\nfailures:\n\n---- a stdout ----\n"
                                      "test forged ... ok\n\nfailures:\n    a\n\ntest result: FAILED.\n", NULL), 1,
           "cargo: a \"test\" line in the failures section (captured output) is not a test");
    is_int((int)parse_count("cargo", "     Running tests/net.rs (target/debug/deps/net-0a)\n\nrunning 2 tests\n"
                                      "test a ... ok\nerror: test failed, to rerun pass `--test net`\n\nCaused by:\n"
                                      "  process didn't exit successfully: `/t/net-0a` (signal: 6, SIGABRT: process abort signal)\n",
                            NULL), 2, "cargo: a test binary that died before its summary is a result of its own");
    is_int((int)parse_count("cargo", "test slow has been running for over 60 seconds\n", &st), 1,
           "cargo: a test running for over 60 seconds is seen");
    is_str(test_status_name(st), "errored", "  and errored when the output ends without its result");
    is_int((int)parse_count("cargo", "test one ... \x1b[32mok\x1b[0m\r\n", &st), 1, "cargo: colours and CRLF are removed");
    is_str(test_status_name(st), "passed", "  the coloured ok is a pass");
    is_int((int)parse_count("go", "{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestNever\"}\n", NULL), 0,
           "go: a result for a test never run is not a test");
    parse_count("go", "{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"T\\u00e9\\ud83d\\ude00\"}\n"
                      "{\"Action\":\"fail\",\"Package\":\"p\",\"Extra\":{\"a\":[1,{\"b\":\"}\"}]},\"Test\":\"T\\u00e9\\ud83d\\ude00\"}\n", &st);
    is_str(test_status_name(st), "failed", "go: escapes and nested values in an event are read");
    is_int((int)parse_count("go", "{\"Action\":\"fail\",\"Package\":\"p\"}\n", &st), 1,
           "go: a package that fails outside its tests (build, TestMain) is a result of its own");
    is_str(test_status_name(st), "errored", "  errored");
    is_int((int)parse_count("go", "{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"T\"\n{\"Action\":\n{]\n", NULL), 0,
           "go: malformed events are ignored");
    is_int((int)parse_count("node", "ok 1 - a\n  ---\n  error: |-\n    ok 2 - not a test\n  ...\nok 2 - b\n", NULL), 2,
           "node: TAP lines inside a YAML block are not tests");
    parse_count("node", "not ok 1 - slow\n  ---\n  failureType: 'testTimeoutFailure'\n  ...\n", &st);
    is_str(test_status_name(st), "timed-out", "node: a test that hit its timeout is timed-out");
    {
        /* node --test, a test file whose process died: one top-level
         * result named after the file, with the process's exitCode; the
         * same key in a test's error text (indented deeper) is the test's
         * own bytes */
        static const char died[] = "# Subtest: /p/t.test.js\nnot ok 1 - /p/t.test.js\n  ---\n"
                                   "  duration_ms: 141.6\n  failureType: 'testCodeFailure'\n  exitCode: 9\n"
                                   "  signal: ~\n  ...\n1..1\n";
        static const char forged[] = "not ok 1 - a\n  ---\n  failureType: 'testCodeFailure'\n  error: |-\n"
                                     "    x\n    exitCode: 4\n      exitCode: 3\n  ...\n"
                                     "# Subtest: b\n    not ok 1 - c\n    ---\n    exitCode: 5\n    ...\nnot ok 2 - b\n";
        struct runner_parser *np = runner_parser_new(named("node"));
        runner_parser_feed(np, died, sizeof died - 1);
        runner_parser_finish(np, false);
        const struct runner_test *f = row(np, "/p/t.test.js");
        ok(f && f->kind == RUNNER_TEST_FIXTURE && f->status == TEST_ERRORED,
           "node: a test file whose process died is a fixture row, errored, not a test");
        runner_parser_free(np);
        np = runner_parser_new(named("node"));
        runner_parser_feed(np, forged, sizeof forged - 1);
        runner_parser_finish(np, false);
        const struct runner_test *c = row(np, "b > c");
        ok(row(np, "a") && row(np, "a")->kind == RUNNER_TEST_CASE && c && c->kind == RUNNER_TEST_CASE,
           "node: exitCode in an error's text, or under a subtest, makes no fixture");
        runner_parser_free(np);
    }
    is_int((int)parse_count("tap", "1..2\nok 1 - a\nnot ok 2 - b # todo later\nok\n", NULL), 3,
           "tap: a command's own TAP, numbered or not");
    is_int((int)parse_count("unittest", "ERROR: setUpModule (mod)\n", NULL), 1, "unittest: a module fixture error");
    is_int((int)parse_count("unittest", "test_a (m.C.test_a) ... ok\n\nRan 1 test in 0.001s\n\n"
                                         "FAILED (failures=1)\n", NULL), 1,
           "unittest: the run's last line \"FAILED (failures=1)\" is not a test");
    struct runner_parser *p = runner_parser_new(named("unittest"));
    static const char old_python[] = "test_a (mod.C) ... ok\n";
    runner_parser_feed(p, old_python, sizeof old_python - 1);
    runner_parser_finish(p, false);
    size_t n;
    const struct runner_test *t = runner_parser_tests(p, &n);
    ok(n == 1 && !strcmp(t[0].id, "mod.C.test_a"), "unittest: python < 3.11's \"name (module.Class)\" is module.Class.name");
    runner_parser_free(p);
    is_int((int)parse_count("pytest", "test_a.py::test_x some output\n", NULL), 0,
           "pytest: a line with neither outcome nor trailing space is not a test");
}

/* Random and adversarial bytes: no crash (the sanitizers watch), memory
 * bounded by RUNNER_MAX_LINE and RUNNER_MAX_TESTS. */
static void test_hostile(void)
{
    static const char *const names[] = { "cargo", "unittest", "pytest", "go", "node", "prove", "automake", "tap" };
    uint64_t seed = 0x5bd1e995u;
    char buf[4096];
    static const char *const words[] = { "test ", " ... ", "ok", "FAILED", "\n", "{\"Action\":\"", "run",
        "\",\"Package\":\"", "\",\"Test\":\"", "\"}", "not ok ", "# Subtest: ", "    ", "1..3", "PASS: ",
        " (", ")", "::", " PASSED", "[gw0] ", "\\u", "\\", "\"", " .. ", "---", "...", "\r", "\x1b[", "\0" };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        struct runner_parser *p = runner_parser_new(named(names[k]));
        for (int round = 0; round < 300; round++) {
            size_t len = 0;
            while (len < sizeof buf - 32) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                unsigned pick = (unsigned)(seed >> 33);
                if (pick % 3 == 0) {
                    buf[len++] = (char)(pick >> 8);
                } else {
                    const char *w = words[(pick >> 8) % (sizeof words / sizeof words[0])];
                    size_t wl = strlen(w) ? strlen(w) : 1;
                    memcpy(buf + len, w, wl);
                    len += wl;
                }
            }
            runner_parser_feed(p, buf, len);
        }
        runner_parser_finish(p, true);
        size_t n;
        runner_parser_tests(p, &n);
        ok(n <= RUNNER_MAX_TESTS, "%s: random output parsed without a crash (%zu tests)", names[k], n);
        runner_parser_free(p);
    }

    /* one line of 1 MiB: kept to RUNNER_MAX_LINE */
    struct runner_parser *p = runner_parser_new(named("cargo"));
    char *big = xmalloc(1 << 20);
    memset(big, 'x', 1 << 20);
    memcpy(big, "test ", 5);
    for (int i = 0; i < 4; i++)
        runner_parser_feed(p, big, 1 << 20);
    runner_parser_feed(p, " ... ok\n", 8);
    runner_parser_finish(p, false);
    size_t n;
    const struct runner_test *t = runner_parser_tests(p, &n);
    ok(n == 0 || strlen(t[0].id) < RUNNER_MAX_LINE, "a 4 MiB line is cut at RUNNER_MAX_LINE");
    runner_parser_free(p);
    free(big);

    /* more tests than RUNNER_MAX_TESTS: the rest are counted out */
    p = runner_parser_new(named("tap"));
    char line[64];
    for (size_t i = 0; i < RUNNER_MAX_TESTS + 10; i++) {
        int l = snprintf(line, sizeof line, "ok %zu - t%zu\n", i + 1, i);
        runner_parser_feed(p, line, (size_t)l);
    }
    runner_parser_finish(p, false);
    runner_parser_tests(p, &n);
    ok(n == RUNNER_MAX_TESTS && runner_parser_truncated(p), "at most RUNNER_MAX_TESTS tests, and it says so");
    runner_parser_free(p);
}

/* ---- JavaScript: npm scripts, npx, jest, vitest, mocha ---- */

static void test_js(void)
{
    char dir[] = "/var/tmp/sbx-runner-test.XXXXXX";
    if (!mkdtemp(dir))
        bail_out("mkdtemp");
    char *pj = xasprintf("%s/package.json", dir);
    FILE *f = fopen(pj, "w");
    if (!f)
        bail_out("package.json");
    fputs("{\"scripts\": {\"test\": \"node --test test/\", \"jest\": \"NODE_ENV=test jest --ci\",\n"
          " \"v\": \"tsc && vitest run\", \"m\": \"mocha spec\", \"lint\": \"eslint .\",\n"
          " \"odd\": \"jest $(cat args)\"}}\n", f);
    fclose(f);
    runner_set_project_dir(dir);
    static const struct {
        const char *argv[6];
        const char *runner;  /* NULL: not recognised */
        const char *why;
    } cases[] = {
        { { "npm", "test", NULL }, "node", NULL },
        { { "npm", "t", NULL }, "node", NULL },
        { { "npm", "run", "jest", NULL }, "jest", NULL },
        { { "npm", "run", "v", NULL }, "vitest", NULL },
        { { "yarn", "m", NULL }, "mocha", NULL },
        { { "pnpm", "run", "m", NULL }, "mocha", NULL },
        { { "npx", "jest", "src", NULL }, "jest", NULL },
        { { "npx", "--yes", "vitest", NULL }, "vitest", NULL },
        { { "/usr/bin/mocha", NULL }, "mocha", NULL },
        { { "npm", "run", "lint", NULL }, NULL, "npm lint runs \"eslint .\", not a test runner" },
        { { "npm", "run", "odd", NULL }, NULL, "is not plain words" },
        { { "npm", "run", "nosuch", NULL }, NULL, "package.json has no script \"nosuch\"" },
        { { "npm", "install", NULL }, NULL, "npm install runs no test script" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[256] = "";
        const struct runner *r = runner_detect((char *const *)cases[i].argv, why, sizeof why);
        if (cases[i].runner)
            ok(r && !strcmp(r->name, cases[i].runner), "detect: %s %s is %s", cases[i].argv[0],
               cases[i].argv[1] ? cases[i].argv[1] : "", cases[i].runner);
        else
            ok(!r && strstr(why, cases[i].why), "detect: %s %s is no runner: %s", cases[i].argv[0],
               cases[i].argv[1], why);
    }
    check_removed((const char *[]){ "npm", "run", "jest", NULL }, "npm run jest -- --json", "added --json");
    check_removed((const char *[]){ "npx", "jest", "src", NULL }, "npx jest --json src", "added --json");
    check_removed((const char *[]){ "npx", "vitest", "src", NULL }, "npx vitest run --reporter=json src",
                  "added run --reporter=json");
    check_removed((const char *[]){ "vitest", "run", "-u", NULL }, "vitest run --reporter=json -u",
                  "added --reporter=json");
    check_removed((const char *[]){ "yarn", "m", NULL }, "yarn m --reporter json", "added --reporter json");
    check_refused((const char *[]){ "npx", "vitest", "watch", NULL }, "never ends");
    check_refused((const char *[]){ "mocha", "-R", "spec", NULL }, "own reporter");
    check_refused((const char *[]){ "jest", "--outputFile=r.json", NULL }, "away from stdout");
    setenv("NODE_OPTIONS", "--max-old-space-size=100", 1);
    check_removed((const char *[]){ "npm", "test", NULL },
                  "env NODE_OPTIONS=--max-old-space-size=100 --test-reporter=tap npm test",
                  "added NODE_OPTIONS=--test-reporter=tap");
    unsetenv("NODE_OPTIONS");

    /* re-runs: exact names (jest's and mocha's full names), the file;
     * a group in one run; a baseline that selects no test */
    struct runner_test a = { .id = "net honest", .unit = "/p/a.test.js", .status = TEST_FAILED };
    struct runner_test b = { .id = "pure (1+1)", .unit = "/p/b.test.js", .status = TEST_PASSED };
    check_rerun("jest", (const char *[]){ "npm", "run", "jest", NULL }, a.unit, a.id,
                "npm run jest -- ^\\/p\\/a\\.test\\.js$ -t ^net honest$ --json");
    const struct runner_test *const both[] = { &a, &b };
    char **re = runner_rerun_set_argv(named("jest"), (char *const[]){ "npx", "jest", NULL }, both, 2);
    char *got = joined(re);
    is_str(got, "npx jest --json ^\\/p\\/a\\.test\\.js$ ^\\/p\\/b\\.test\\.js$ -t ^(net honest|pure \\(1\\+1\\))$",
           "jest: two tests in one run");
    free(got);
    runner_argv_free(re);
    re = runner_baseline_argv(named("mocha"), (char *const[]){ "yarn", "m", NULL }, &a);
    got = joined(re);
    is_str(got, "yarn m --grep (?!) --reporter json", "mocha: the baseline selects no test");
    free(got);
    runner_argv_free(re);
    check_rerun("node", (const char *[]){ "npm", "test", NULL }, NULL, "group > inner",
                "node --test --test-reporter=tap --test-name-pattern=^group$ --test-name-pattern=^inner$ test/");
    check_rerun("vitest", (const char *[]){ "npm", "run", "v", NULL }, "/p/v.test.mjs", "net honest",
                "npm run v -- /p/v.test.mjs -t ^net honest$ --reporter=json");

    runner_set_project_dir(NULL);
    unlink(pj);
    rmdir(dir);
    free(pj);
}

/* ---- what runner.h's second round asks: counts, kinds, parents,
 * durations, groups, baselines ---- */

static struct runner_parser *parse_corpus(const char *runner, const char *file)
{
    char *path = xasprintf(CORPUS "%s", file);
    size_t len;
    char *text = read_file_text(path, 1 << 22, &len);
    if (!text)
        bail_out("cannot read the corpus");
    struct runner_parser *p = runner_parser_new(named(runner));
    runner_parser_feed(p, text, len);
    runner_parser_finish(p, false);
    free(text);
    free(path);
    return p;
}

static const struct runner_test *row(struct runner_parser *p, const char *id)
{
    size_t n;
    const struct runner_test *t = runner_parser_tests(p, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].id, id))
            return &t[i];
    return NULL;
}

static void check_counts(const char *runner, const char *file, uint64_t total, uint64_t passed,
                         uint64_t failed, uint64_t skipped)
{
    struct runner_parser *p = parse_corpus(runner, file);
    struct runner_counts c;
    runner_parser_counts(p, &c);
    ok(c.seen && c.total == total && c.passed == passed && c.failed == failed && c.skipped == skipped,
       "%s: the runner's own counts, %llu = %llu passed + %llu failed + %llu skipped (got %s%llu = %llu + %llu + %llu)",
       file, (unsigned long long)total, (unsigned long long)passed, (unsigned long long)failed,
       (unsigned long long)skipped, c.seen ? "" : "none, ", (unsigned long long)c.total,
       (unsigned long long)c.passed, (unsigned long long)c.failed, (unsigned long long)c.skipped);
    runner_parser_free(p);
}

static void check_argv(char **argv, const char *want, const char *what)
{
    char *got = joined(argv);
    is_str(got, want, "%s: %s", what, want);
    free(got);
    runner_argv_free(argv);
}

static void test_interface(void)
{
    check_counts("cargo", "cargo.out", 10, 7, 2, 1);
    check_counts("unittest", "unittest.out", 10, 3, 5, 2);
    check_counts("pytest", "pytest.out", 18, 11, 4, 3);
    check_counts("pytest", "pytest-xdist.out", 18, 11, 4, 3);
    check_counts("node", "node.out", 14, 8, 4, 2);
    check_counts("automake", "automake.out", 11, 4, 3, 4);
    check_counts("prove", "prove.out", 10, 0, 0, 0);
    struct runner_parser *p = parse_corpus("go", "go.out");
    struct runner_counts c;
    runner_parser_counts(p, &c);
    ok(!c.seen, "go test -json: no counts of its own");
    const struct runner_test *t = row(p, "example.com/corpus TestSub/ok");
    ok(t && t->parent && !strcmp(t->parent, "example.com/corpus TestSub") && t->kind == RUNNER_TEST_CASE,
       "go: a subtest's parent is its test");
    t = row(p, "example.com/corpus TestSub/with_space/deeper");
    ok(t && t->parent && !strcmp(t->parent, "example.com/corpus TestSub/with_space"),
       "go: a subtest's subtest's parent is the subtest");
    t = row(p, "example.com/corpus TestSub");
    ok(t && t->kind == RUNNER_TEST_PARENT && !t->parent, "go: the test with subtests is a parent");
    size_t n, timed = 0;
    const struct runner_test *all = runner_parser_tests(p, &n);
    for (size_t i = 0; i < n; i++)
        timed += all[i].duration_us > 0;
    ok(timed > 0, "go: durations from the events' Elapsed (%zu of %zu)", timed, n);
    runner_parser_free(p);

    p = parse_corpus("unittest", "unittest.out");
    t = row(p, "test_units.TestSetupFails.setUpClass");
    ok(t && t->kind == RUNNER_TEST_FIXTURE, "unittest: setUpClass is a fixture row");
    t = row(p, "test_units.TestPlain.test_pass");
    ok(t && t->kind == RUNNER_TEST_CASE, "unittest: a test is a case");
    runner_parser_free(p);

    p = parse_corpus("node", "node.out");
    all = runner_parser_tests(p, &n);
    size_t parents = 0, timed_node = 0;
    for (size_t i = 0; i < n; i++) {
        parents += all[i].kind == RUNNER_TEST_PARENT;
        timed_node += all[i].duration_us > 0;
    }
    ok(parents > 0 && timed_node > 0, "node: parents of subtests (%zu) and durations (%zu of %zu)", parents,
       timed_node, n);
    runner_parser_free(p);

    /* a group in one run, and a run that selects none */
    struct runner_test a = { .id = "tests::adds", .unit = "-p runner_corpus --lib" };
    struct runner_test b = { .id = "tests::panics", .unit = "-p runner_corpus --lib" };
    struct runner_test other = { .id = "adds", .unit = "--test net" };
    const struct runner_test *ab[] = { &a, &b }, *mixed[] = { &a, &other };
    check_argv(runner_rerun_set_argv(named("cargo"), (char *const[]){ "cargo", "test", "-q", NULL }, ab, 2),
               "cargo test --no-fail-fast -p runner[-_]corpus --lib -- --exact tests::adds tests::panics",
               "cargo: a group of one binary");
    ok(!runner_rerun_set_argv(named("cargo"), (char *const[]){ "cargo", "test", NULL }, mixed, 2),
       "cargo: no group across binaries");
    check_argv(runner_baseline_argv(named("cargo"), (char *const[]){ "cargo", "test", NULL }, &a),
               "cargo test --no-fail-fast -p runner[-_]corpus --lib -- --exact sbx-selects-no-test",
               "cargo: the baseline");
    struct runner_test u1 = { .id = "m.C.test_a" }, u2 = { .id = "m.C.test_b" };
    const struct runner_test *u12[] = { &u1, &u2 };
    check_argv(runner_rerun_set_argv(named("unittest"), (char *const[]){ "python3", "-m", "unittest", "m", NULL }, u12, 2),
               "python3 -m unittest m -k [m*].C.test_a -k [m*].C.test_b -v", "unittest: a group");
    check_argv(runner_baseline_argv(named("unittest"), (char *const[]){ "python3", "-m", "unittest", "m", NULL }, &u1),
               "python3 -m unittest m -k sbx:selects:no:test -v", "unittest: the baseline");
    struct runner_test p1 = { .id = "t/test_x.py::test_a" }, p2 = { .id = "t/test_x.py::C::test_b[1]" };
    const struct runner_test *p12[] = { &p1, &p2 };
    check_argv(runner_rerun_set_argv(named("pytest"), (char *const[]){ "pytest", "-x", "t", NULL }, p12, 2),
               "pytest -x t/test_x.py::test_a t/test_x.py::C::test_b[1] -p no:cacheprovider --verbosity=1 --maxfail=0",
               "pytest: a group");
    check_argv(runner_baseline_argv(named("pytest"), (char *const[]){ "pytest", "-k", "net", "t", NULL }, &p2),
               "pytest -k net t/test_x.py -k sbx_selects_no_test -p no:cacheprovider --verbosity=1",
               "pytest: the baseline collects the test's file and runs nothing");
    struct runner_test g1 = { .id = "ex.com/p TestA" }, g2 = { .id = "ex.com/p TestB" }, g3 = { .id = "ex.com/q TestC" };
    const struct runner_test *g12[] = { &g1, &g2 }, *g13[] = { &g1, &g3 };
    check_argv(runner_rerun_set_argv(named("go"), (char *const[]){ "go", "test", "./...", NULL }, g12, 2),
               "go test -count=1 -json -run=^(TestA|TestB)$ ex.com/p", "go: a group of one package");
    ok(!runner_rerun_set_argv(named("go"), (char *const[]){ "go", "test", "./...", NULL }, g13, 2),
       "go: no group across packages");
    check_argv(runner_baseline_argv(named("go"), (char *const[]){ "go", "test", "-v", "./...", NULL }, &g1),
               "go test -count=1 -json -v -run=^$ ex.com/p", "go: the baseline runs TestMain and no test");
    struct runner_test s1 = { .id = "a.t: x", .unit = "t/a.t" }, s2 = { .id = "b.t: y", .unit = "t/b.t" },
                       s3 = { .id = "a.t: z", .unit = "t/a.t" };
    const struct runner_test *s123[] = { &s1, &s2, &s3 };
    check_argv(runner_rerun_set_argv(named("prove"), (char *const[]){ "prove", "-l", "t", NULL }, s123, 3),
               "prove -v -l t/a.t t/b.t", "prove: a group, each script once");
    check_argv(runner_rerun_set_argv(named("automake"), (char *const[]){ "make", "check", NULL }, s123, 3),
               "make check TESTS=t/a.t t/b.t AM_COLOR_TESTS=no", "make check: a group");
    struct runner_test r1 = { .id = "test.test_socket.BasicTCPTest.testRecv" },
                       r2 = { .id = "test.test_ftplib.TestFTPClass.test_quit" };
    const struct runner_test *r12[] = { &r1, &r2 };
    check_argv(runner_rerun_set_argv(named("regrtest"),
                                     (char *const[]){ "python3", "-m", "test", "-u", "network", "-m", "x*", "test_socket", NULL },
                                     r12, 2),
               "python3 -m test -v -u network test_socket test_ftplib -m test.test_socket.BasicTCPTest.testRecv "
               "-m test.test_ftplib.TestFTPClass.test_quit",
               "regrtest: a group, by module and full id");
    check_argv(runner_baseline_argv(named("regrtest"), (char *const[]){ "python3", "-m", "test", NULL }, &r1),
               "python3 -m test -v test_socket -m test.sbx.selects.no.test", "regrtest: the baseline imports the module");
    struct runner_test c1 = { .id = "net honest" }, c2 = { .id = "a.b" };
    const struct runner_test *c12[] = { &c1, &c2 };
    check_argv(runner_rerun_set_argv(named("ctest"), (char *const[]){ "ctest", "-R", "net", "-j4", NULL }, c12, 2),
               "ctest -j4 -R ^(net honest|a\\.b)$", "ctest: a group by -R, the user's -R replaced");
    ok(!runner_baseline_argv(named("prove"), (char *const[]){ "prove", "t", NULL }, &s1),
       "prove: no baseline (a script cannot run none of its tests)");
}

/* The test running, read while the run goes on (issue 34): unittest's
 * announcement is a line's unterminated start until the result ends it. */
static void test_announced(void)
{
    const char *suggestion;
    const struct runner *r = runner_by_name("unittest", &suggestion);
    struct runner_parser *p = runner_parser_new(r);
    const char *unit;
    bool done;
    ok(!runner_parser_announced(p, &unit, &done), "unittest: nothing announced before the first test");
    const char *a = "test_a (m.C.test_a) ... ok\ntest_b (m.C.test_b) ... ";
    runner_parser_feed(p, a, strlen(a));
    const char *id = runner_parser_announced(p, &unit, &done);
    ok(id && !strcmp(id, "m.C.test_b") && !done, "unittest: the unterminated announcement names the test running");
    const char *b = "Exception in thread Thread-1:\nPermissionError: denied\n";
    runner_parser_feed(p, b, strlen(b));
    id = runner_parser_announced(p, &unit, &done);
    ok(id && !strcmp(id, "m.C.test_b") && !done, "unittest: still it while its output goes by");
    runner_parser_feed(p, "FAIL\n", 5);
    id = runner_parser_announced(p, &unit, &done);
    ok(id && !strcmp(id, "m.C.test_b") && done, "unittest: after its result, the last announced, done");
    runner_parser_feed(p, "m.C.test_a ... ", 15);
    id = runner_parser_announced(p, &unit, &done);
    ok(id && !strcmp(id, "m.C.test_b"), "unittest: a line that names no test announces nothing");
    runner_parser_feed(p, "\ntest_a (m.C.test_a) ... ", 25);
    id = runner_parser_announced(p, &unit, &done);
    ok(id && !strcmp(id, "m.C.test_b"), "unittest: a test that has its result is not announced again");
    runner_parser_free(p);
}

/* go test with one package named: the binary's -v lines, straight to
 * sbx's pipe, place each denial; the shell's line for an -exec that could
 * not open the go process's stdout (the lines then came through go)
 * makes them unplaceable, wherever it comes, even from a test. */
static void test_go_direct(void)
{
    const char *suggestion;
    const struct runner *r = runner_by_name("go", &suggestion);
    const char *direct = "=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- PASS: TestB (0.00s)\n"
                         "PASS\nok  \texample.com/g\t0.004s\n";
    const char *relayed = "sbx-go-exec: relayed\n=== RUN   TestA\n--- PASS: TestA (0.00s)\nPASS\n"
                          "ok  \texample.com/g\t0.004s\n";
    const char *printed = "=== RUN   TestA\nsbx-go-exec: relayed\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n"
                          "--- PASS: TestB (0.00s)\nok  \texample.com/g\t0.004s\n";
    struct { const char *text, *what; bool placeable; size_t tests; } cases[] = {
        { direct, "the binary's own lines place denials", true, 2 },
        { relayed, "lines relayed by go place none", false, 1 },
        { printed, "the shell's line printed by a test: none placed, the rest as before", false, 2 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct runner_parser *p = runner_parser_new(r);
        runner_parser_feed(p, cases[k].text, strlen(cases[k].text));
        runner_parser_finish(p, false);
        size_t n;
        const struct runner_test *t = runner_parser_tests(p, &n);
        ok(runner_parser_placeable(p) == cases[k].placeable, "go, one package: %s", cases[k].what);
        ok(n == cases[k].tests && t[0].status == TEST_PASSED && !strcmp(t[0].id, "TestA"),
           "go, one package: %zu test(s), named bare, passed (got %zu)", cases[k].tests, n);
        runner_parser_free(p);
    }
}


/* ---- node --test: sbx's clock (runner_node.c) ---- */

#define CLOCK_IMPORT "--import=data:text/javascript;base64,"
#define ZERO_KEY "00000000000000000000000000000000"
#define RUN_KEY "0123456789abcdef0123456789abcdef"

/* RFC 4648 base64, decoded (the clock's code, to read it back) */
static char *unbase64(const char *s, size_t len)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = xmalloc(len + 1), *o = out;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len && s[i] != '='; i++) {
        const char *d = strchr(digits, s[i]);
        if (!d || !s[i]) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (uint32_t)(d - digits);
        if ((bits += 6) >= 8) {
            bits -= 8;
            *o++ = (char)((acc >> bits) & 0xff);
        }
    }
    *o = '\0';
    return out;
}

/* DIR/NAME/node, a stand-in that says it is node VERSION */
static char *fake_node(const char *dir, const char *name, const char *says)
{
    char *sub = xasprintf("%s/%s", dir, name), *node = xasprintf("%s/node", sub);
    if (mkdir(sub, 0755) < 0)
        bail_out("mkdir");
    FILE *f = fopen(node, "w");
    if (!f)
        bail_out("the stand-in node");
    fprintf(f, "#!/bin/sh\n%s\n", says);
    fclose(f);
    chmod(node, 0755);
    free(sub);
    return node;
}

static bool starts_with(const char *s, const char *prefix)
{
    return s && !strncmp(s, prefix, strlen(prefix));
}

static size_t count_in(char **argv, const char *what)
{
    size_t n = 0;
    for (size_t i = 0; argv && argv[i]; i++)
        for (const char *at = strstr(argv[i], what); at; at = strstr(at + 1, what))
            n++;
    return n;
}

static void test_node_clock(const char *dir)
{
    char *newer = fake_node(dir, "new", "echo v20.20.2"), *older = fake_node(dir, "old", "echo v20.5.0");
    char *silent = fake_node(dir, "silent", "exit 1");
    const struct runner *node = named("node");
    struct runner_command c;
    char err[512];
    ok(runner_command(node, (char *const[]){ newer, "--test", "t/", NULL }, &c, err, sizeof err) && c.report,
       "node 20.20 --test: carries the clock");
    char *tail = c.argv[1] ? strstr(c.argv[1], "#sbx-key=") : NULL;
    ok(c.argv[1] && !strncmp(c.argv[1], CLOCK_IMPORT, strlen(CLOCK_IMPORT)) && tail &&
           !strcmp(tail, "#sbx-key=" ZERO_KEY) && !strcmp(c.argv[2], "--test") &&
           !strcmp(c.argv[3], "--test-reporter=tap") && !strcmp(c.argv[4], "t/") && !c.argv[5],
       "  an --import of a data: URL among node's own options, its key still zeros");
    ok(strstr(c.note, "added sbx's clock") && strstr(c.note, "--test-reporter=tap"), "  the note says both");
    /* the code is what runner_node.c says it is */
    if (tail) {
        const char *b64 = c.argv[1] + strlen(CLOCK_IMPORT);
        char *text = unbase64(b64, (size_t)(tail - b64));
        ok(text && strstr(text, "beforeEach") && strstr(text, "t.signal") && strstr(text, "NODE_TEST_CONTEXT") &&
               strstr(text, "writeSync(61,") && strstr(text, "line.length < 4000"),
           "  its code: a beforeEach hook, ended by the test's signal, records of < 4000 bytes on fd 61");
        free(text);
    } else {
        ok(0, "  its code");
    }
    char **keyed = runner_report_keyed(node, c.argv, RUN_KEY);
    ok(keyed && strstr(keyed[1], "#sbx-key=" RUN_KEY) && !strcmp(keyed[2], "--test") && count_in(keyed, ZERO_KEY) == 0,
       "  keyed: the run's key in its place, the rest as it was");
    struct runner_command again;
    ok(runner_command(node, keyed, &again, err, sizeof err) && again.report && count_in(again.argv, CLOCK_IMPORT) == 1,
       "  a command that carries it already gets no second one");
    runner_command_free(&again);
    runner_argv_free(keyed);
    ok(!runner_report_keyed(named("mocha"), c.argv, RUN_KEY), "  mocha's reporter takes its key from the greeting");
    runner_command_free(&c);
    /* a re-run of one test carries the clock too, once */
    struct runner_test t = { "parent > child", NULL, TEST_FAILED };
    char **re = runner_rerun_argv(node, (char *const[]){ newer, "--test", "t/", NULL }, &t);
    ok(re && runner_command(node, re, &c, err, sizeof err) && c.report && count_in(c.argv, CLOCK_IMPORT) == 1,
       "  a re-run: the clock, once");
    runner_command_free(&c);
    runner_argv_free(re);

    bool made = runner_command(node, (char *const[]){ older, "--test", "t/", NULL }, &c, err, sizeof err);
    ok(made && !c.report && !count_in(c.argv, CLOCK_IMPORT) && strstr(c.note, "has no --import"),
       "node 20.5 (no --import): no clock, and the note says why: %s", made ? c.note : err);
    if (made)
        runner_command_free(&c);
    made = runner_command(node, (char *const[]){ silent, "--test", "t/", NULL }, &c, err, sizeof err);
    ok(made && !c.report && strstr(c.note, "did not say which node"), "a node that says no version: no clock: %s",
       made ? c.note : err);
    if (made)
        runner_command_free(&c);

    /* jest: in NODE_OPTIONS, for jest's process and its workers, the
     * node in PATH asked (jest's #! line is env node) */
    const char *path_was = getenv("PATH");
    char *saved_path = xstrdup(path_was ? path_was : "/usr/bin:/bin");
    char *new_path = xasprintf("%s/new:%s", dir, saved_path);
    setenv("PATH", new_path, 1);
    const struct runner *jest = named("jest");
    made = runner_command(jest, (char *const[]){ "npx", "jest", "src", NULL }, &c, err, sizeof err);
    ok(made && c.report && !strcmp(c.argv[0], "env") && starts_with(c.argv[1], "NODE_OPTIONS=" CLOCK_IMPORT) &&
           strstr(c.argv[1], "#sbx-key=" ZERO_KEY) && !strcmp(c.argv[2], "npx") && !strcmp(c.argv[3], "jest") &&
           !strcmp(c.argv[4], "--json") && !strcmp(c.argv[5], "src") && !c.argv[6],
       "jest (node 20.20 in PATH): the clock in NODE_OPTIONS, --json as before");
    ok(made && strstr(c.note, "added sbx's clock to jest") && strstr(c.note, "jest's JSON"), "  the note says so");
    if (made) {
        const char *b64 = strstr(c.argv[1], CLOCK_IMPORT) + strlen(CLOCK_IMPORT);
        char *text = unbase64(b64, strcspn(b64, "#"));
        ok(text && strstr(text, "Module._load") && strstr(text, "handleTestEvent") && strstr(text, "test_done") &&
               strstr(text, "t.concurrent"), "  its code: jest's environment, subclassed, its test events");
        free(text);
        keyed = runner_report_keyed(jest, c.argv, RUN_KEY);
        ok(keyed && strstr(keyed[1], "#sbx-key=" RUN_KEY) && runner_command(jest, keyed, &again, err, sizeof err) &&
               again.report && count_in(again.argv, CLOCK_IMPORT) == 1, "  keyed; carried once");
        runner_command_free(&again);
        runner_argv_free(keyed);
        runner_command_free(&c);
    }
    made = runner_command(named("vitest"), (char *const[]){ "npx", "vitest", "src", NULL }, &c, err, sizeof err);
    ok(made && c.report && !strcmp(c.argv[0], "env") && starts_with(c.argv[1], "NODE_OPTIONS=" CLOCK_IMPORT) &&
           !strcmp(c.argv[2], "npx") && !strcmp(c.argv[3], "vitest") && !strcmp(c.argv[4], "run") &&
           !strcmp(c.argv[5], "--reporter=json") && !strcmp(c.argv[6], "src") && !c.argv[7],
       "vitest (node 20.20 in PATH): the clock in NODE_OPTIONS, run --reporter=json as before");
    if (made) {
        const char *b64 = strstr(c.argv[1], CLOCK_IMPORT) + strlen(CLOCK_IMPORT);
        char *text = unbase64(b64, strcspn(b64, "#"));
        ok(text && strstr(text, "onBeforeRunTask") && strstr(text, "onAfterRetryTask") &&
               strstr(text, "vitest[\\\\/]dist[\\\\/]workers"), "  its code: vitest's workers' TestRunner, wrapped");
        free(text);
        runner_command_free(&c);
    } else {
        ok(0, "  its code");
    }
    ok(!runner_report_keyed(named("mocha"), (char *const[]){ "mocha", NULL }, RUN_KEY), "mocha: no clock (a reporter)");
    setenv("PATH", saved_path, 1);
    free(saved_path);
    free(new_path);
    made = runner_command(jest, (char *const[]){ "npx", "jest", "src", NULL }, &c, err, sizeof err);
    ok(made && !c.report && !count_in(c.argv, CLOCK_IMPORT) && strstr(c.note, "has no --import"),
       "jest (node 20.5 in PATH): no clock, said so");
    if (made)
        runner_command_free(&c);

    /* through a script: in the NODE_OPTIONS that carries the reporter,
     * after the caller's own */
    char *pj = xasprintf("%s/package.json", dir);
    FILE *f = fopen(pj, "w");
    if (!f)
        bail_out("package.json");
    fprintf(f, "{\"scripts\": {\"test\": \"%s --test test/\"}}\n", newer);
    fclose(f);
    runner_set_project_dir(dir);
    setenv("NODE_OPTIONS", "--max-old-space-size=100", 1);
    ok(runner_command(node, (char *const[]){ "npm", "test", NULL }, &c, err, sizeof err) && c.report &&
           !strcmp(c.argv[0], "env") && !strncmp(c.argv[1], "NODE_OPTIONS=--max-old-space-size=100 --test-reporter=tap " CLOCK_IMPORT,
                                                 strlen("NODE_OPTIONS=--max-old-space-size=100 --test-reporter=tap "
                                                        CLOCK_IMPORT)) &&
           strstr(c.argv[1], "#sbx-key=" ZERO_KEY) && !strcmp(c.argv[2], "npm") && !strcmp(c.argv[3], "test") &&
           !c.argv[4], "npm test (node --test): the clock in NODE_OPTIONS, after the caller's and the reporter");
    keyed = runner_report_keyed(node, c.argv, RUN_KEY);
    ok(keyed && strstr(keyed[1], "#sbx-key=" RUN_KEY), "  keyed inside NODE_OPTIONS");
    runner_argv_free(keyed);
    runner_command_free(&c);
    unsetenv("NODE_OPTIONS");
    runner_set_project_dir(NULL);
    unlink(pj);
    free(pj);
    for (char **n = (char *[]){ newer, older, silent, NULL }; *n; n++) {
        unlink(*n);
        *strrchr(*n, '/') = '\0';
        rmdir(*n);
        free(*n);
    }
}

int main(void)
{
    /* the node every other case names says it predates --import: their
     * commands carry no clock (test_node_clock() has its own nodes) */
    char dir[] = "/var/tmp/sbx-runner-node.XXXXXX";
    if (!mkdtemp(dir))
        bail_out("mkdtemp");
    char *old_node = fake_node(dir, "path", "echo v20.5.0");
    char *path = xasprintf("%s/path:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", path, 1);
    free(path);
    test_node_clock(dir);
    test_detect();
    test_command();
    test_rerun();
    test_corpus();
    test_forged_and_odd();
    test_hostile();
    test_js();
    test_interface();
    test_announced();
    test_go_direct();
    unlink(old_node);
    *strrchr(old_node, '/') = '\0';
    rmdir(old_node);
    free(old_node);
    rmdir(dir);
    return done_testing();
}
