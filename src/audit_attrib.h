/* Attributing the denials of a run to its tests, fast and still exact
 * (issue 16): pure helpers, apart from the runs (audit_per_test.c).
 *
 * Re-running every test alone is exact and costs one sandbox and one
 * runner start per test: 200 tests, 200 runs. Most tests make no denied
 * call, and the run itself says which could have: a test reports its
 * result only after the calls it made returned, and a denied call waits
 * in the kernel until the ledger answered it (ledger_event.ns). So the
 * test that made a denial is among the first to report after it, and
 * "after" is exact in bytes, not in time: the ledger reads how much
 * output the command had written while the caller waits in the call
 * (capture_position()), and the parser knows where each result line
 * ends. For a serial runner whose output is not buffered, the first to
 * report after a denial is the test that made it; a parallel runner
 * reports the tests running beside it first, a buffered one tests that
 * ended before it.
 *
 * Those suspects are re-run alone, the first after each denial, then the
 * second after each denial not accounted for yet, and so on. When their own runs together account
 * for every denial of the whole run, call by call (denial_tally_equal),
 * no other test made one: they are not re-run. When they do not (a test
 * that reported long after its call, a runner's own call at start-up, a
 * result line never read), every other test is re-run alone too, as
 * before. The hint is never trusted: only the runs alone count.
 *
 * One runner needs no re-run: unittest runs one test at a time and
 * announces each, flushed, before it runs (audit_place_events). A call
 * made by a thread or process that an earlier test left running counts
 * for the test running when it is made (a run of the earlier test alone
 * may end before the call and miss it). */
#ifndef SBX_AUDIT_ATTRIB_H
#define SBX_AUDIT_ATTRIB_H

#include "ledger.h"
#include "runner.h"

#include <stdbool.h>
#include <stddef.h>

/* For each event not yet accounted for (done[row] false; done NULL:
 * none is), marks suspect[i] for the test of tests[0..n) that is the
 * tier-th (from 0) to report after it: whose result line ends past the
 * event's output_pos. An event without a position marks none. Returns
 * how many tests it marked that were not marked yet. */
size_t audit_suspects(const struct ledger_event *events, size_t nevents, const bool *done,
                      const struct runner_test *tests, size_t n, size_t tier, bool *suspect);

/* Places each event in the run of one test, from the output alone: the
 * one test announced at or before the event's position whose result line
 * ends after it (announced_pos <= output_pos < reported_pos). For a
 * runner that runs one test at a time and flushes its announcement
 * before the test and its result after it (unittest), that test was the
 * one running when the call was made. owner[e] is its index. False when
 * some event has no position, or is in no test's run (a class fixture,
 * module import: the runner's own time) or in more than one. */
bool audit_place_events(const struct ledger_event *events, size_t nevents,
                        const struct runner_test *tests, size_t n, size_t *owner);

/* As audit_place_events(), but a call outside every test's run is the
 * suite's, not a failure (issue 33): owner[e] is AUDIT_OWNER_STARTUP
 * before the first test was announced (the runner's start, the imports,
 * collection: CPython's test.support binds [::1]:0 at import in every
 * process), AUDIT_OWNER_BETWEEN between two runs (a class or module
 * fixture), or inside one of spans[0..nspans) (the suite's own time
 * inside a test's run: pytest sets a module's fixture up in the setup of
 * its first test). With leftover (nevents of them), leftover[e] is true
 * for a call placed in a test's run but made by a thread of
 * inherited[0..ninh) for that test: alive before it started, so the call
 * may be an earlier test's leftover (a server thread still binding) or a
 * pool's doing the test's work; only a run of the test alone can tell.
 * False only when some call has no position or two runs overlap. */
#define AUDIT_OWNER_STARTUP ((size_t)-1)
#define AUDIT_OWNER_BETWEEN ((size_t)-2)
bool audit_place_events_suite(const struct ledger_event *events, size_t nevents,
                              const struct runner_test *tests, size_t n, const struct runner_span *spans,
                              size_t nspans, const struct runner_inherited *inherited, size_t ninh,
                              size_t *owner, bool *leftover);

/* Places each event in the test whose thread made it, by the thread's
 * name: libtest (cargo test) runs every test on a thread of its own named
 * after the test, in parallel or with --test-threads=1 alike, and threads
 * a test starts inherit the name (the kernel copies comm at clone). The
 * kernel keeps 15 bytes of it (TASK_COMM_LEN), so a name of 15 is a
 * prefix. owner[e] is the index of the one test of tests[0..n) (of kind
 * RUNNER_TEST_CASE) so named. False when some event's thread names no
 * test or more than one (two tests alike in their first 15 bytes, the
 * same name in two test binaries, a process the test started: it execs
 * under its own name), or its name is empty, or the call came after the
 * test's result line (a thread the test left behind, such as a pool it
 * started that later tests use): then nothing is placed.
 * Limit: a test that renames its thread (prctl PR_SET_NAME) to another
 * test's name has its calls charged to that test. */
bool audit_place_events_by_thread(const struct ledger_event *events, size_t nevents,
                                  const struct runner_test *tests, size_t n, size_t *owner);

/* A parallel runner's workers (pytest-xdist): each event in the run,
 * by the worker's own clock (runner_parser_worker_runs()), that the
 * worker whose process made the call, or whose child did, ran when the
 * call was made (begin <= event ns <= end: the call came after the
 * worker read begin and was answered before it read end). owner[e] as
 * audit_place_events_suite(): the test's index, AUDIT_OWNER_STARTUP
 * before the worker's first run (its collection), AUDIT_OWNER_BETWEEN
 * between two runs or in one of the worker's spans (a broad fixture).
 * leftover[e] for a call of one of the threads alive in the worker at the
 * run's begin (inherited, by the run's test). A call of the controller
 * (its pid, 0: none; it runs no test) is the start-up's before the first
 * run of any worker began, else the suite's. False, and nothing placed,
 * when a call's process and its parent are no worker and not the
 * controller (a grandchild's) or one worker's runs overlap. */
bool audit_place_events_by_worker(const struct ledger_event *events, size_t nevents,
                                  const struct runner_worker_run *runs, size_t nruns,
                                  const struct runner_worker_span *spans, size_t nspans,
                                  const struct runner_inherited *inherited, size_t ninh,
                                  int controller, size_t *owner, bool *leftover);

/* prove and make check run each script in a process of its own: perl
 * t/a.t, or the script itself (the kernel makes its #! line "sh t/a.t",
 * a binary is argv[0]), and what the script starts is its child. With
 * the callers' command lines recorded (ledger_set_record_argv()),
 * unit_of[e] is the index in units[0..nunits) of the script that the
 * caller's process runs, or else the one its parent runs.
 * audit_argv_runs() says what "runs" is. False when some event's caller
 * and its parent run none, or when one runs more than one (a unit "a.t"
 * and a unit "t/a.t" for "/x/t/a.t"): then nothing is placed. Limit: the
 * command line is what a process says it runs (it can rewrite it), so a
 * script that makes its process name another script has its calls
 * charged to that one. */
bool audit_place_events_by_argv(const struct ledger_event *events, size_t nevents,
                                const char *(*argv_of)(const void *data, uint16_t idx, size_t *len),
                                const void *data, const char *const *units, size_t nunits,
                                size_t *unit_of);
/* Whether the command line argv[0..len) (NUL-ended arguments) runs unit:
 * it names it with "--test-name" (automake's harness gives it to the
 * driver that runs each test: the test's command may exec another
 * program, whose parent the driver is), else its program (argv[0]) is
 * it, or its first operand (the first argument after argv[0] that is not
 * an option: perl's, sh's script) is; "./" in front does not count, and
 * an absolute or longer path counts when it ends in "/UNIT" (make check
 * in a VPATH build runs $(srcdir)/t/a.t). */
bool audit_argv_runs(const char *argv, size_t len, const char *unit);

/* Where the tests of a run begin in its output: the first announcement
 * when every test that reported was announced (*certain: a call before it
 * was made before any test ran), else the first result line (*certain
 * false: the first test may have made a call before it too). UINT64_MAX
 * when no test reported. */
uint64_t audit_tests_begin(const struct runner_test *tests, size_t n, bool *certain);

/* Denials counted by what was denied (call, families, address, errno),
 * not by who: the same call made alone and in the whole run. */
struct denial_tally;
struct denial_tally *denial_tally_new(void);
/* Adds l's rows. False when some of l's denials are in no row (its table
 * was full): then nothing can be accounted for exactly. */
bool denial_tally_add(struct denial_tally *t, const struct ledger *l);
bool denial_tally_equal(const struct denial_tally *a, const struct denial_tally *b);
/* done[id] for each row of l (LEDGER_MAX_ROW_IDS of them): true when
 * t holds at least as many denials of that row's kind as l does. */
void denial_tally_rows_done(const struct denial_tally *t, const struct ledger *l, bool *done);
uint64_t denial_tally_total(const struct denial_tally *t);
/* count more denials of e's kind. */
void denial_tally_add_entry(struct denial_tally *t, const struct ledger_entry *e, uint64_t count);
/* l's events made before output position pos (pos UINT64_MAX: all that
 * have one), by the kinds of l's rows: a run's start-up. */
void denial_tally_add_before(struct denial_tally *t, const struct ledger *l, uint64_t pos);
void denial_tally_add_tally(struct denial_tally *t, const struct denial_tally *o);
/* How many of a's denials b does not hold (kind by kind, a's count less
 * b's); with out, those are added to it: a test's run less its start-up. */
uint64_t denial_tally_excess(const struct denial_tally *a, const struct denial_tally *b,
                             struct denial_tally *out);
/* A new tally of what both hold (the smaller count of each kind). */
struct denial_tally *denial_tally_common(const struct denial_tally *a, const struct denial_tally *b);
/* "bind(AF_INET 127.0.0.1:0) x1 -> EPERM; ..." into buf, cut to fit. */
void denial_tally_describe(const struct denial_tally *t, char *buf, size_t len);
void denial_tally_free(struct denial_tally *t);

#endif
