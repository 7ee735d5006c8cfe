/* Test runners, for judging a suite test by test (issue 16): which runner
 * a command line starts, the command line to run instead so that it
 * reports every test in a stable form, the parser of that report, and the
 * command line that re-runs exactly one test. Pure: no system calls; the
 * output bytes are untrusted (a test prints what it likes), so parsing
 * never crashes and its memory is bounded (RUNNER_MAX_*).
 *
 * The parsers read the command's stdout and stderr as ONE stream in the
 * order the command wrote them (both descriptors on the same pipe): cargo
 * prints which test binary runs on stderr and the tests on stdout, python's
 * unittest its results on stderr. */
#ifndef SBX_RUNNER_H
#define SBX_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

enum runner_kind {
    RUNNER_CARGO,     /* cargo test: libtest's "test PATH ... ok" lines */
    RUNNER_UNITTEST,  /* python -m unittest -v */
    RUNNER_PYTEST,    /* pytest / python -m pytest, also pytest-xdist */
    RUNNER_GO,        /* go test -json */
    RUNNER_NODE,      /* node --test --test-reporter=tap */
    RUNNER_PROVE,     /* prove -v: TAP under "t/x.t .. " headers */
    RUNNER_AUTOMAKE,  /* make check: automake's "PASS: name" lines */
    RUNNER_TAP,       /* a command that prints TAP itself (--runner tap) */
};

struct runner {
    enum runner_kind kind;
    const char *name;     /* what --runner takes */
    const char *command;  /* the command it recognises, for messages */
};

/* The runner `argv` starts, or NULL with why (one line, no "sbx:") filled
 * for the fallback message "sbx could not see individual tests: WHY". */
const struct runner *runner_detect(char *const argv[], char *why, size_t why_size);
/* The runner --runner NAME names; NULL when none, *suggestion then the
 * nearest name (a typo's fix) or NULL. */
const struct runner *runner_by_name(const char *name, const char **suggestion);
/* "cargo, unittest, ..." for --runner's error message. */
const char *runner_names(void);

/* What sbx runs instead of argv: the user's arguments in their order, with
 * what the runner needs inserted where the runner takes it. */
struct runner_command {
    char **argv;  /* NULL-terminated, owned */
    char *note;   /* one human line ("added -count=1: go test caches
                   * results"); "" when nothing was added */
};
/* False with err filled when the command cannot report per test as given
 * (an argument that hides the per-test lines or replays a previous run,
 * such as cargo test -q or pytest --lf). A runner named with --runner
 * whose command does not have the runner's shape (a wrapper script) is
 * run unchanged, the note saying what it must print. */
bool runner_command(const struct runner *r, char *const argv[], struct runner_command *out,
                    char *err, size_t err_size);
void runner_command_free(struct runner_command *c);

enum test_status {
    TEST_RUNNING,    /* started, no result yet (while parsing) */
    TEST_PASSED,
    TEST_SKIPPED,    /* by the test itself; also expected failures
                      * (pytest xfail, unittest expectedFailure, TAP TODO),
                      * which pytest itself counts as skipped */
    TEST_FAILED,
    TEST_ERRORED,    /* outside the test's assertions: a fixture, setUpClass,
                      * a crash of the binary that ran it, a build failure */
    TEST_TIMED_OUT,  /* still running when the run was stopped */
};
/* "running", "passed", "skipped", "failed", "errored", "timed-out". */
const char *test_status_name(enum test_status s);

struct runner_test {
    /* The name the runner gives the test, exactly: cargo the test path
     * (tests::nested::name), unittest module.Class.method, pytest the node
     * id, go the package, a space and the test (TestX/sub_test), node the
     * names from the outermost test joined with " > ", TAP "script: the
     * description" (or "script: #N" without one). */
    char *id;
    /* What contains it where the id alone is ambiguous, or NULL: cargo the
     * target option ("--lib", "--test net", "--doc"), go the package,
     * prove and automake the test script. */
    char *unit;
    enum test_status status;
};

/* Bounds on untrusted output: longer lines are cut, tests beyond the count
 * are not recorded (runner_parser_truncated() says so). */
#define RUNNER_MAX_LINE 65536
#define RUNNER_MAX_TESTS 200000

struct runner_parser;
struct runner_parser *runner_parser_new(const struct runner *r);
/* Feeds output as it arrives; a line may be split across calls. */
void runner_parser_feed(struct runner_parser *p, const void *bytes, size_t len);
/* End of output. Tests still running become timed-out when the run was
 * stopped (killed), errored otherwise (the process that ran them ended
 * without a result: a crash). */
void runner_parser_finish(struct runner_parser *p, bool killed);
/* The tests seen so far, in the order they were first seen. A test reported
 * twice (pytest's teardown error after PASSED) keeps the worst status. */
const struct runner_test *runner_parser_tests(const struct runner_parser *p, size_t *n);
bool runner_parser_truncated(const struct runner_parser *p);
void runner_parser_free(struct runner_parser *p);

/* The command that runs exactly test t of the run of argv (the user's
 * command, before runner_command()), reporting flags included; NULL when
 * the runner cannot run one test (--runner tap). Where the runner can only
 * select by name the choice is as exact as the runner allows (see the
 * comments in runner.c). */
char **runner_rerun_argv(const struct runner *r, char *const argv[], const struct runner_test *t);
void runner_argv_free(char **argv);

#endif
