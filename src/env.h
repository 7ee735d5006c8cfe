/* The command's environment per [environment]. Pure: builds a new vector
 * from a base (the caller's environ) without touching the process. */
#ifndef SBX_ENV_H
#define SBX_ENV_H

#include "profile.h"
#include "util.h"

/* Into out (empty on entry): with clear = yes only the `keep` names of
 * base, otherwise all of base; then `unset` removed, `set` applied (a later
 * set of a name wins), and last container=sbx and SBX_PROFILE=<p->name>,
 * which always hold inside. keep and unset entries may list several names
 * separated by spaces. Dies on a `set` entry without '='. */
void env_build(const struct profile *p, char *const *base, struct strv *out);

#endif
