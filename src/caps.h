/* Privileges of the command: capabilities and no_new_privs, with the
 * system calls themselves (capset, prctl), not libcap: see caps.c. */
#ifndef SBX_CAPS_H
#define SBX_CAPS_H

#include "profile.h"

#include <stdbool.h>
#include <stdint.h>

/* Drops every capability not named in p->capabilities from the bounding,
 * ambient, inheritable, permitted and effective sets. Kept capabilities
 * are raised in the ambient set so that they survive execve() for a
 * non-root uid; for uid 0 inside, the bounding set is what limits exec.
 * Then sets no_new_privs when p asks for it. Dies on error. */
void privileges_drop(const struct profile *p);

/* A capability's number from its name as in capabilities(7), in any case,
 * with or without "cap_" ("CAP_NET_RAW", "net_raw"), or a decimal number
 * the table knows; -1 when unknown. */
int capability_from_name(const char *name);

/* "cap_net_raw" for 13; NULL for a number the table does not know. */
const char *capability_name(int cap);

/* True when the calling process has cap in its effective set. */
bool capability_in_effective_set(int cap);

#endif
