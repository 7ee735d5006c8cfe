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

/* Why sbx adds CAP_NET_RAW to what `capabilities =` keeps, or does not. */
enum net_raw_grant {
    NET_RAW_GRANTED,          /* uid 0 inside, own netns, the seccomp guard on */
    NET_RAW_NOT_ROOT,         /* the command is not uid 0 inside: no host root has it either */
    NET_RAW_PROFILE_NO,       /* net_raw = no: reproducing a sandbox that gives root none */
    NET_RAW_HOST_NETNS,       /* no network namespace owned by the sandbox's user namespace */
    NET_RAW_UNGUARDED,        /* seccomp = none, io_uring = yes, or no guard on this arch */
};

/* Whether the command gets CAP_NET_RAW from sbx itself (caps.c says
 * which kernel rule makes that safe). caller_is_root: sbx runs as uid 0. */
enum net_raw_grant privileges_net_raw_grant(const struct profile *p, bool caller_is_root);

/* True when the command will hold CAP_NET_RAW: granted above, or named
 * by `capabilities =`. */
bool privileges_keep_net_raw(const struct profile *p, bool caller_is_root);

#endif
