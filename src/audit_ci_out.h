/* The CI reports of `sbx audit` written out (audit_ci_out.c). */
#ifndef SBX_AUDIT_CI_OUT_H
#define SBX_AUDIT_CI_OUT_H

#include "audit_ci.h"

#include <stdbool.h>
#include <stddef.h>

struct output_file;
struct audit_ci_outputs {
    struct output_file *junit, *tap, *step_summary; /* NULL: not asked for */
};

/* Writes each asked for; false (after a warning naming the file) when one
 * could not be written: the evidence asked for is missing. */
bool audit_ci_write(const struct audit_ci_outputs *o, const char *suite, const char *summary,
                    const struct audit_ci_row *rows, size_t n);

#endif
