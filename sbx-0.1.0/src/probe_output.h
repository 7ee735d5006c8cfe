/* The output formats of `sbx probe` (probe_output.c). */
#ifndef SBX_PROBE_OUTPUT_H
#define SBX_PROBE_OUTPUT_H

#include "probe.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

/* colour: ANSI colours in the table (the caller decides: a terminal,
 * NO_COLOR unset, TERM not dumb). */
void probe_print_table(const struct probe_results *r, FILE *out, bool colour);
/* TAP version 13: one test per check, then the three verdicts. */
void probe_print_tap(const struct probe_results *r, FILE *out);
/* One JSON object; the caller puts it. */
struct json_object *probe_to_json(const struct probe_results *r);

#endif
