/* Privileges of the command: capabilities (libcap) and no_new_privs. */
#ifndef SBX_CAPS_H
#define SBX_CAPS_H

#include "profile.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/capability.h>

/* The capabilities `capabilities =` keeps, as a bit mask (the kernel has
 * fewer than 64): computed for the plan, before clone(). Dies naming an
 * unknown capability. */
uint64_t privileges_kept_mask(const struct profile *p);

/* Drops every capability not in `kept` from the bounding, ambient,
 * inheritable, permitted and effective sets. Kept capabilities are raised
 * in the ambient set so that they survive execve() for a non-root uid; for
 * uid 0 inside, the bounding set is what limits exec. Then sets
 * no_new_privs when asked. Dies on error. */
void privileges_drop(uint64_t kept, bool no_new_privs);

/* True when the calling process holds `cap` in its effective set. */
bool capability_in_effective_set(cap_value_t cap);

/* True when `capabilities =` keeps cap for the command. */
bool privileges_keep(const struct profile *p, cap_value_t cap);

#endif
