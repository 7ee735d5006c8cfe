/* Test runners, for judging a suite test by test (issue 16): which runner
 * a command line starts, the command line to run instead so that it
 * reports every test in a stable form, the parser of that report, and the
 * command line that re-runs exactly one test. Pure: no system calls; the
 * output bytes are untrusted (a test prints what it likes), so parsing
 * never crashes and its memory is bounded (RUNNER_MAX_*).
 *
 * The parsers read the command's stdout and stderr as ONE stream in the
 * order the command wrote them (both descriptors on the same pipe): cargo
 * prints which test binary runs on stderr and the tests on stdout.
 *
 * Where sbx can add a result reporter to the runner itself (python's
 * unittest, CPython's regrtest, python -m pytest: runner_python.c), the
 * results come from that alone, over a channel of its own that the
 * command's output never reaches (runner_report.h): the output is then
 * read only as the fallback for a run whose reporter never spoke. */
#ifndef SBX_RUNNER_H
#define SBX_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum runner_kind {
    RUNNER_CARGO,     /* cargo test: libtest's "test PATH ... ok" lines */
    RUNNER_UNITTEST,  /* python -m unittest -v */
    RUNNER_PYTEST,    /* pytest / python -m pytest, also pytest-xdist */
    RUNNER_REGRTEST,  /* python -m test -v: CPython's own suite */
    RUNNER_GO,        /* go test -json */
    RUNNER_NODE,      /* node --test --test-reporter=tap, also via npm test */
    RUNNER_JEST,      /* jest --json */
    RUNNER_VITEST,    /* vitest run --reporter=json */
    RUNNER_MOCHA,     /* mocha --reporter json */
    RUNNER_PROVE,     /* prove -v: TAP under "t/x.t .. " headers */
    RUNNER_AUTOMAKE,  /* make check: automake's "PASS: name" lines */
    RUNNER_TAP,       /* a command that prints TAP itself (--runner tap) */
    RUNNER_CTEST,     /* ctest: CMake's "N/M Test #K: name ... Passed" */
};
/* (a runner's family, src/runner_FAMILY.c, says more: docs/hacking.md) */

/* How a denial finds its test (the audit's attribution, audit_attrib.h). */
enum runner_attribution {
    /* re-runs of one test (or a group, bisecting) count what each makes */
    RUNNER_ATTRIBUTE_ALONE = 0,
    /* the runner announces each test before it runs, one at a time
     * (unittest): the output's positions place a denial in its test */
    RUNNER_ATTRIBUTE_PLACED,
    /* the runner re-runs a script, not a test (prove, make check): a
     * test's denials are its script's, the one whose process made them
     * (by command line, audit_place_events_by_argv) or its re-run's */
    RUNNER_ATTRIBUTE_UNIT,
    /* the runner runs each test on a thread named after it (libtest):
     * the caller's thread name places a denial in its test
     * (audit_place_events_by_thread) */
    RUNNER_ATTRIBUTE_THREAD,
    /* sbx's reporter bounds each test's run on the result channel (mocha,
     * pytest, regrtest), or the output announces each test, flushed,
     * before it runs (go test -v with no package named): placed as PLACED
     * where runner_parser_placeable() says so, re-runs (ALONE) where not */
    RUNNER_ATTRIBUTE_REPORTED,
};

struct runner_ops;

struct runner {
    enum runner_kind kind;
    const char *name;     /* what --runner takes */
    const char *command;  /* the command it recognises, for messages */
    enum runner_attribution attribution;
    const struct runner_ops *ops;  /* runner_impl.h; NULL only in tests' stand-ins */
};

/* Where the command runs (sbx -C DIR): a package manager's script is
 * read from its package.json (npm test runs what "scripts.test" says).
 * NULL or unset: the current directory. */
void runner_set_project_dir(const char *dir);

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
    /* argv carries sbx's result reporter: run it with the result channel
     * (capture_start_report(), greeting from runner_report_greeting()) at
     * RUNNER_REPORT_FD, and the parser told (runner_parser_expect_report) */
    bool report;
};

/* The result channel: the number the command gets it at (a reporter
 * moves it higher and makes it close-on-exec first thing), and the length
 * of the run's key, in hexadecimal digits. */
#define RUNNER_REPORT_FD 61
#define RUNNER_KEY_LEN 32
/* What is written to the channel before the command starts, for a
 * command with runner_command.report: the reporter's code, which holds
 * the key (RUNNER_KEY_LEN hexadecimal digits, a new one per run). Owned,
 * *len its length; NULL when r has no reporter. */
char *runner_report_greeting(const struct runner *r, const char *key, size_t *len);
/* For a runner whose workers write to the channel themselves (node
 * --test: runner_report.h's worker records), whose reporter cannot read
 * a greeting: argv (a runner_command() made with .report) with the run's
 * key in its place, owned; NULL for every other runner. The key is then
 * on the command line, where the suite's code can read it: it stops a
 * blind write to the channel, not a test that sets out to forge one. */
char **runner_report_keyed(const struct runner *r, char *const argv[], const char *key);
/* Whether sbx has a result reporter for r at all (where runner_command()
 * could not add it, the output is the fallback); not node --test's clock,
 * which only says when each test ran. */
bool runner_has_reporter(const struct runner *r);
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

/* What a row of a run is (issue 34): only cases are tests; a fixture
 * (setUpClass, setUpModule, a module that failed to import, TestMain,
 * a describe's before hook) is the suite's, and a parent takes its verdict
 * from its subtests. */
enum runner_test_kind {
    RUNNER_TEST_CASE = 0,
    RUNNER_TEST_FIXTURE,
    RUNNER_TEST_PARENT,
};

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
    /* Where the line that gave its result ends in the output fed (bytes
     * from the start; UINT64_MAX: it ended with the run, unreported; 0:
     * no result). The test had ended once those bytes were written, so a
     * denial made later, at a greater ledger_event.output_pos, was
     * another's (audit_attrib.h). */
    uint64_t reported_pos;
    /* Where the runner's announcement of its start ends in the output,
     * exactly, where it writes and flushes one before the test runs
     * (unittest's "name (id) ... "); 0: none. */
    uint64_t announced_pos;
    enum runner_test_kind kind;
    /* The id of the test whose subtest this is (go TestX for TestX/sub,
     * node "a" for "a > b"), or NULL. */
    char *parent;
    /* How long it ran, as the runner reported (go's Elapsed, libtest's
     * exec_time, a JUnit time); 0: not reported. A re-run of this test
     * alone is bounded in proportion (issue 34). */
    uint64_t duration_us;
};

/* Bounds on untrusted output: longer lines are cut (a runner that writes
 * its report on one line, jest, has a larger bound of its own), tests beyond the count
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
/* The id (and *unit) of the test announced last, *done when it has its
 * result: for a serial runner that announces each test before it runs
 * (unittest, whose announcement is a line's unterminated start), the one
 * running now or the last to run, read while the run goes on (sbx audit
 * bounds each test's time within a run: issue 34). NULL before the
 * first announcement. Valid until the next feed. */
const char *runner_parser_announced(const struct runner_parser *p, const char **unit, bool *done);
/* The index in runner_parser_tests() of the test (unit, id); SIZE_MAX: none. */
size_t runner_parser_index(const struct runner_parser *p, const char *unit, const char *id);
/* What the runner itself said it ran, from its own closing lines
 * ("Ran 12 tests", "test result: ok. 3 passed; 1 failed", "# pass 4"),
 * summed over every such summary in the run; seen false when it printed
 * none. An audit whose parsed tests disagree with it never ends
 * "trustworthy" (issue 25). */
struct runner_counts {
    bool seen;
    uint64_t total;  /* every test it counted, whatever the result */
    /* its breakdown, where it gives one (prove gives only a total):
     * failed holds errors too, skipped expected failures and TODOs;
     * total may exceed their sum (libtest's "measured") */
    uint64_t passed, failed, skipped;
};
/* Where each runner's counts come from: cargo "test result:" per binary;
 * unittest "Ran N tests" and its "OK"/"FAILED (...)"; pytest its closing
 * "=== ... in 0.1s ===" line; node --test its "# pass N" comments; jest,
 * vitest and mocha their report's totals; prove "Files=, Tests="; make
 * check automake's "# PASS:" lines; go test -json gives none (seen stays
 * false). A test can print lines that look like unittest's or pytest's
 * (their output is unframed): counts are summed, so a forged summary can
 * only make them disagree, never hide a test. */
void runner_parser_counts(const struct runner_parser *p, struct runner_counts *c);
void runner_parser_free(struct runner_parser *p);

/* The run carries a reporter (runner_command.report) whose records carry
 * `key`: its results come from runner_parser_feed_report() only, and the
 * output fed is kept for the fallback. Called before anything is fed. */
void runner_parser_expect_report(struct runner_parser *p, const char *key);
/* The run's workers write their runs' times to the channel (a runner
 * with runner_report_keyed()): the results still come from the output;
 * the channel's worker records only give runner_parser_worker_runs()
 * and the controller, once runner_parser_finish() has read the table,
 * and placement is off where one is missing, malformed or names a test
 * the output does not. Called before anything is fed. */
void runner_parser_expect_clock(struct runner_parser *p, const char *key);
/* The result channel's bytes (capture.h stream 3), as they arrive. */
void runner_parser_feed_report(struct runner_parser *p, const void *bytes, size_t len);
/* Where the results came from, after runner_parser_finish(). */
enum runner_channel {
    /* the runner's own report in the output (no reporter can be added:
     * go test -json, jest's JSON, TAP, libtest's lines) */
    RUNNER_CHANNEL_OUTPUT,
    /* sbx's reporter, every record verified */
    RUNNER_CHANNEL_REPORT,
    /* a reporter was added but never spoke (the command is not the python
     * sbx expected, it died first): read from the interleaved output, as
     * a fallback a test's printed line can fool */
    RUNNER_CHANNEL_FALLBACK,
    /* a record without the run's key, out of sequence, malformed or out
     * of order (something in the run wrote to the channel): the records
     * after it are ignored, and the audit never ends trustworthy */
    RUNNER_CHANNEL_FORGED,
};
/* why: one line on FALLBACK and FORGED, else NULL. */
enum runner_channel runner_parser_channel(const struct runner_parser *p, const char **why);
/* Whether each test's start is known at a position written before the
 * test ran, one test at a time: a reporter's records, every one verified,
 * of a serial runner (unittest; pytest without xdist), or, without one,
 * an output whose runner announces each test, flushed, before it runs (go
 * test -v streamed). The positions then place a denial in its test
 * (audit_attrib.h), unless runs overlap. */
bool runner_parser_placeable(const struct runner_parser *p);
/* ... or a parallel runner's verified channel that gave a worker's run of
 * every test it started (runner_parser_worker_runs()): then the workers'
 * clocks place a denial (audit_place_events_by_worker()), not positions. */
/* Positions of the result channel, [begin, end). */
struct runner_span {
    uint64_t begin, end;
};
/* The suite's own time inside tests' runs (runner_report.h's suite
 * records: a broad fixture set up or torn down), in the order recorded;
 * an end of UINT64_MAX: it never ended. */
const struct runner_span *runner_parser_suite_spans(const struct runner_parser *p, size_t *n);
/* A thread alive in the runner's process when a test started, other than
 * the one running it (runner_report.h's threads records). */
struct runner_inherited {
    size_t test;  /* its index in runner_parser_tests() */
    int tid;      /* in the sandbox's PID namespace (ledger_caller.tid) */
};
const struct runner_inherited *runner_parser_inherited(const struct runner_parser *p, size_t *n);
/* A parallel runner's workers (pytest-xdist): each test's run in one, by
 * the worker's own clock (runner_report.h's ran records), and the suite's
 * own time there (its span records). The threads alive in the worker at
 * a run's begin are runner_parser_inherited()'s, under the run's test. */
struct runner_worker_run {
    size_t test;                /* its index in runner_parser_tests() */
    int pid;                    /* the worker (ledger_caller.tgid) */
    uint64_t begin_ns, end_ns;  /* CLOCK_MONOTONIC, as ledger_event.ns */
};
struct runner_worker_span {
    int pid;
    uint64_t begin_ns, end_ns;
};
const struct runner_worker_run *runner_parser_worker_runs(const struct runner_parser *p, size_t *n);
const struct runner_worker_span *runner_parser_worker_spans(const struct runner_parser *p, size_t *n);
/* The process that hands the tests to the workers and runs none (xdist's
 * controller: runner_report.h's controller record); 0 when not said. */
int runner_parser_controller(const struct runner_parser *p);

/* The command that runs exactly test t of the run of argv (the user's
 * command, before runner_command()), reporting flags included; NULL when
 * the runner cannot run one test (--runner tap). Where the runner can only
 * select by name the choice is as exact as the runner allows (see the
 * comments in runner.c). */
char **runner_rerun_argv(const struct runner *r, char *const argv[], const struct runner_test *t);
/* One run of exactly tests[0..n) (a group, for bisection when many tests
 * were denied: issue 25); NULL when the runner cannot select that set in
 * one run. With n == 1, what runner_rerun_argv() gives. What each allows:
 * cargo a group of one test binary (unit); go one package and one subtest
 * depth (subtests of different parents run their cross product: more
 * than asked, never less); prove and make check the groups' scripts, each
 * once; unittest, pytest, regrtest, node, jest, vitest, mocha, ctest any
 * group; --runner tap none. */
char **runner_rerun_set_argv(const struct runner *r, char *const argv[],
                             const struct runner_test *const tests[], size_t n);
/* The run that starts as test t's re-run would (the interpreter, the
 * imports, the collection, t's module and class set up where the runner
 * allows selecting that and no test) and runs no test: what it has
 * denied is the suite's start-up's, not t's (issue 33). NULL when the
 * runner cannot select nothing (prove, make check, ctest, --runner tap).
 * cargo: t's binary with a filter no test path matches; unittest and
 * regrtest: a pattern no test id matches (the modules are imported, no
 * setUpModule runs); pytest: t's file collected, every test deselected
 * (pytest exits 5); go: -run=^$ (init and TestMain run); node, jest,
 * vitest, mocha: a name pattern that matches nothing (the files load). */
char **runner_baseline_argv(const struct runner *r, char *const argv[], const struct runner_test *t);
void runner_argv_free(char **argv);

#endif
