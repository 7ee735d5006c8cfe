/* Which tier runs the command (sbx(1) TIERS): the namespaces, or, where
 * the kernel refuses a user namespace (or a fresh /proc in one) and only
 * when the profile asks for it ([sandbox] fallback = landlock, --fallback
 * landlock), the Landlock tier (landlock.h). Never silently: the run says
 * why the namespaces could not be had, and which tier ran. */
#ifndef SBX_TIER_H
#define SBX_TIER_H

#include "profile.h"
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

/* Chosen first, before anything is planned, so that no decision of one
 * tier reaches the other: the namespaces, unless the profile asks for
 * fallback = landlock and the user namespace is refused (known before
 * clone(), or by the one-child probe: a child in a user namespace of its
 * own), or a fresh /proc would be (parts of this one overmounted, read
 * from mountinfo). The Landlock tier is said (a warning, with why), and
 * why holds the reason for the record. */
enum sandbox_tier tier_choose(const struct profile *p, uid_t outer_uid, char *why, size_t len);

/* The backend's spawn, once its own clone() or fork() is made: reaps
 * the one-child probe's child, long gone by then. */
void tier_reap_probe(void);

/* Whether a seccomp filter around sbx already has a notification
 * listener, which the kernel allows once per filter chain: a child tries
 * to install one. For the Landlock tier, whose checks need a listener. */
bool tier_outer_listener(void);

#endif
