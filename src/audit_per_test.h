/* `sbx audit` test by test, for a command whose runner sbx knows
 * (audit_per_test.c). */
#ifndef SBX_AUDIT_PER_TEST_H
#define SBX_AUDIT_PER_TEST_H

#include "audit_ci_out.h"
#include "profile.h"
#include "runner.h"

#include <stdbool.h>
#include <stdint.h>

/* Runs command under profiles[0] and profiles[1] with r told to report
 * every test, attributes the denials, prints the tests that are not
 * unaffected and the summary line, and with o->report fills the audit
 * record (report_audit_open() was called). The run under profiles[1] is
 * bounded as the command-level audit's second run is
 * (audit_against_bound()), each re-run by its test's own time, all of them
 * together by a multiple of the two runs; a stop signal ends it all at
 * once (audit_signals.h). Returns sbx's exit status (sbx(1) AUDIT): 3
 * when a test is a false green, else 4 when the evidence is incomplete
 * (a test not observed, a denial no test made, the runner's own count
 * disagreeing), else 1 when one fails under profiles[0], else 0; 128+N
 * after signal N; 125 when a side could not run or a --junit, --tap or
 * step summary file could not be written. -1, before
 * running anything, with why filled, when the command cannot report per
 * test as given (runner_command(): cargo test -q, pytest --lf): the caller
 * judges the command as a whole. */
struct audit_per_test_options {
    bool report;                 /* --report: the audit record is open */
    /* opened before anything ran (output_file.h): --junit FILE, --tap
     * FILE, $GITHUB_STEP_SUMMARY (appended to) */
    struct audit_ci_outputs ci;
    bool against_timeout_set;    /* --against-timeout (audit.h audit_against_bound()) */
    uint64_t against_timeout_ms;
};

int audit_per_test(const struct runner *r, char *const *command, const char *cwd,
                   const struct profile *profiles[2], const char *names[2],
                   const struct audit_per_test_options *o, char *why, size_t why_size);

#endif
