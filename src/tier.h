/* Which tier runs the command (sbx(1) TIERS): the namespaces, or, where
 * the kernel refuses a user namespace and only when the profile asks for
 * it ([sandbox] fallback = landlock, --fallback landlock), the Landlock
 * tier (landlock.h). Never silently: the run says why the namespaces
 * could not be had, and which tier ran. */
#ifndef SBX_TIER_H
#define SBX_TIER_H

#include "plan.h"
#include "sandbox.h"

#include <stdbool.h>
#include <sys/types.h>

/* "namespaces" or "landlock". */
const char *tier_name(enum sandbox_tier tier);

/* In the supervisor, before clone(), with fallback = landlock: true, with
 * the reason in why, when a user namespace is known to be unusable before
 * clone() would say so: uid 0 without CAP_SETFCAP since Linux 5.12 (the
 * rule of ns_check_uid_map_allowed()), or AppArmor's restriction of an
 * unconfined caller (clone() succeeds there, the mounts inside fail). */
bool tier_userns_refused_before_clone(uid_t outer_uid, char *why, size_t len);

/* In place of ns_clone() under fallback = landlock: clones into the
 * plan's namespaces; when the kernel refuses the user namespace (or
 * plan->userns_refused says it will), turns the plan into the Landlock
 * tier's (refusing at start what it cannot express) and forks init
 * without namespaces. Any other failure dies with ns_clone()'s diagnosis.
 * Sets res->tier and res->userns_refusal. */
pid_t tier_clone(struct sandbox_plan *plan, struct sandbox_result *res);

#endif
