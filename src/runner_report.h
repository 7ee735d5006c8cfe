/* The records of a runner's result reporter (issues 25, 34): the one
 * channel a test's result comes from where sbx can add a reporter to the
 * runner (python's unittest, CPython's regrtest, python -m pytest). Pure.
 *
 * The reporter runs inside the runner's process and writes one line per
 * event to the result channel (capture.h, runner.h RUNNER_REPORT_FD),
 * never to the command's output, so nothing a test prints reaches it:
 *
 *   KEY SEQ hello RUNNER serial|parallel
 *   KEY SEQ start ID
 *   KEY SEQ fixture ID      (a fixture's start: a hook's run, the suite's)
 *   KEY SEQ result passed|failed|errored|skipped ID
 *   KEY SEQ stop MICROSECONDS ID
 *   KEY SEQ suite begin|end
 *   KEY SEQ threads TID...
 *   KEY SEQ count RUN FAILED SKIPPED
 *   KEY SEQ ran PID BEGIN END TIDS ID
 *   KEY SEQ span PID BEGIN END
 *   KEY SEQ controller PID
 *   KEY SEQ end
 *
 * KEY is the run's random key (RUNNER_KEY_LEN hexadecimal digits), which
 * the reporter read from the channel before any test code was imported;
 * SEQ counts the records from 0 with no gap; ID is the test's id, bytes
 * 0x20-0x7e but '\' and every byte >= 0x80 as they are, '\' as "\\", any
 * other byte as "\xHH" (so no record holds a newline of its ID's).
 *
 * "suite begin" and "suite end" bracket the suite's own time inside a
 * test's run, in a serial runner: pytest sets up a module-, class-,
 * package- or session-scoped fixture in the setup of the first test that
 * needs it, and tears it down in the teardown of the last; a call made
 * there is the suite's, not that test's (runner_parser_suite_spans()).
 * They do not nest.
 *
 * "threads", right after a start, lists the threads (their ids in the
 * sandbox's PID namespace) alive in the runner's process when the test
 * started, other than the one running it: a server thread an earlier test
 * left behind, a pool. A call one of them makes during the test may not be
 * the test's (runner_parser_inherited()). At most RUNNER_MAX_THREADS.
 *
 * "ran" and "span" come from a parallel runner's workers (pytest-xdist),
 * relayed by the controller's reporter after the fact: a worker (process
 * PID in the sandbox's PID namespace) ran test ID from BEGIN, read before
 * its setup, to END, read after its teardown, both CLOCK_MONOTONIC
 * nanoseconds read in the worker, with the threads TIDS ("-" for none,
 * else comma-separated) alive in it at BEGIN besides the one running the
 * test; a span is the suite's own time in that worker (a broad fixture's
 * setup or teardown). A denied call waits in the kernel until the ledger
 * has read its time (ledger_event.ns), so a call the worker made while
 * the test ran lies between its BEGIN and its END, however late the
 * record arrives (runner_parser_worker_runs()).
 *
 * A runner whose workers cannot be reached by one reporter (node --test:
 * each test file's process is spawned by the runner, which sbx cannot
 * add code to) has its workers write to the channel themselves, each
 * its own sequence (runner_parser_expect_clock()):
 *
 *   KEY PID:SEQ controller PID
 *   KEY PID:SEQ unit UNIT
 *   KEY PID:SEQ ran PID BEGIN END TIDS ID
 *
 * PID is the writer's process, SEQ counts its own records from 0 with no
 * gap, a ran record's PID is the writer's, and every controller record
 * names the same process. A unit record says whose file the writer's
 * next runs are (jest: the test file's path, which jest's JSON names its
 * tests by; encoded as an ID); without one, none. A test may have several ran records (a parent
 * test's stretches around its subtests). The results still come from
 * the output (node's TAP): the records only place denials. Each record
 * is written whole with one write() of less than RUNNER_WORKER_LINE
 * bytes: Linux queues a write that small on an AF_UNIX stream socket as
 * one buffer, so the writers' records do not interleave. */
#define RUNNER_MAX_THREADS 1024
#define RUNNER_WORKER_LINE 4000
#define RUNNER_MAX_WORKERS 4096
#ifndef SBX_RUNNER_REPORT_H
#define SBX_RUNNER_REPORT_H

#include "runner.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum runner_record_verb {
    RECORD_HELLO,
    RECORD_START,
    RECORD_RESULT,
    RECORD_STOP,
    RECORD_COUNT,
    RECORD_END,
    RECORD_SUITE,
    RECORD_THREADS,
    RECORD_RAN,
    RECORD_SPAN,
    RECORD_CONTROLLER,
    RECORD_UNIT,
};

struct runner_record {
    enum runner_record_verb verb;
    uint64_t seq;
    enum test_status status;  /* RECORD_RESULT */
    char *text;               /* START, RESULT, STOP, RAN: the decoded id; UNIT: the unit; HELLO: the
                               * runner's name (owned) */
    bool fixture;             /* RECORD_START: written as "fixture" (a hook's run) */
    bool parallel;            /* RECORD_HELLO: tests may run side by side (pytest-xdist) */
    uint64_t n[3];            /* COUNT: run, failed, skipped; STOP: n[0] the microseconds;
                               * SUITE: n[0] 1 at its begin, 0 at its end;
                               * RAN, SPAN: the worker's pid, begin, end;
                               * CONTROLLER: n[0] its pid */
    int *tids;                /* THREADS, RAN: the thread ids (owned) */
    size_t ntids;
};

/* Parses one record (len bytes, without its newline; NUL bytes are
 * malformed) that must carry `key` and sequence number `seq`. False with
 * why (one line) filled when it does not, or is malformed: r is then
 * left empty. */
bool runner_record_parse(const char *line, size_t len, const char *key, uint64_t seq,
                         struct runner_record *r, char *why, size_t why_size);
/* A worker's record (KEY PID:SEQ ...): only controller, unit and ran
 * records, a ran record for PID itself. *pid the writer, r->seq its number (the
 * caller checks it against the writer's count). */
bool runner_worker_record_parse(const char *line, size_t len, const char *key, int *pid,
                                struct runner_record *r, char *why, size_t why_size);
void runner_record_free(struct runner_record *r);

#endif
