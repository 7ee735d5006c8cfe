/* `sbx probe`'s pure part: what a check's status means and the three
 * verdicts (network, descriptors, sandbox) drawn from the results. */
#ifndef SBX_PROBE_VERDICT_H
#define SBX_PROBE_VERDICT_H

#include "probe.h"

#include <stdbool.h>

const char *probe_status_name(enum probe_status s);
/* Whether a check counts as passed (--tap "ok", JSON "pass"). */
bool probe_check_passed(const struct probe_check *c);
/* The status of a check whose call failed with errnum: EPERM and EACCES
 * are a policy's refusal, anything else the thing being absent. */
enum probe_status probe_status_for_errno(int errnum);

/* Sets r->network, r->descriptors and r->sandbox from r->checks (replacing
 * what they held). */
void probe_verdicts(struct probe_results *r);

#endif
