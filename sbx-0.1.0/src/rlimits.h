/* Resource limits of [limits]: checked in the supervisor before clone(),
 * applied in the command's process just before exec. (Named rlimits.h: a
 * src/limits.h would shadow the system <limits.h> under -Isrc.)
 *
 * Raising a hard limit needs CAP_SYS_RESOURCE in the initial user
 * namespace, which nothing inside the sandbox has: so as root the
 * supervisor raises the hard limit it needs before creating the user
 * namespace, and everything inside only lowers or moves the soft limit. */
#ifndef SBX_RLIMITS_H
#define SBX_RLIMITS_H

#include "profile.h"

#include <stdbool.h>
#include <sys/resource.h>

struct limit_target {
    bool set;
    struct rlimit want;     /* what the command gets */
};

struct limits_plan {
    struct limit_target target[LIMIT_COUNT];
};

/* Computes every limit of p, raising hard limits of the calling process
 * where that is needed and allowed (root). A value that cannot be had dies
 * with a message naming the limit, the value, the hard limit and the fix.
 * Never clamps. */
void limits_prepare(const struct profile *p, struct limits_plan *plan);

/* What the process has after limits_apply(): getrlimit() of each limit
 * it set, for the run record. */
struct limits_applied {
    struct {
        bool set;
        struct rlimit now;
    } limit[LIMIT_COUNT];
};

/* setrlimit() for every planned limit; dies naming the limit on error.
 * Into applied: what getrlimit() says afterwards. */
void limits_apply(const struct limits_plan *plan, struct limits_applied *applied);

/* fs.nr_open, the kernel's ceiling for RLIMIT_NOFILE; 0 if unreadable. */
rlim_t limits_nr_open(void);

#endif
