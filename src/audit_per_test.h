/* `sbx audit` test by test, for a command whose runner sbx knows
 * (audit_per_test.c). */
#ifndef SBX_AUDIT_PER_TEST_H
#define SBX_AUDIT_PER_TEST_H

#include "profile.h"
#include "runner.h"

#include <stdbool.h>

/* Runs command under profiles[0] and profiles[1] with r told to report
 * every test, attributes the denials, prints the tests that are not
 * unaffected and the summary line, and with report fills the audit
 * record (report_audit_open() was called). Returns sbx's exit status
 * (sbx(1) AUDIT): 3 when a test is a false green, else 1 when one fails
 * under profiles[0], else 0; 125 when a side could not run. -1, before
 * running anything, with why filled, when the command cannot report per
 * test as given (runner_command(): cargo test -q, pytest --lf): the caller
 * judges the command as a whole. */
int audit_per_test(const struct runner *r, char *const *command, const char *cwd,
                   const struct profile *profiles[2], const char *names[2], bool report,
                   char *why, size_t why_size);

#endif
