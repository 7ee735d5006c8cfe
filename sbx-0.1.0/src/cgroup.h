/* The sandbox's process limit ([limits] nproc) where RLIMIT_NPROC cannot
 * hold it: a pids cgroup made for the sandbox.
 *
 * RLIMIT_NPROC is counted per (user namespace, uid) since Linux 5.14
 * (ucounts; is_rlimit_overlimit() checks every level up to the initial
 * namespace), so in the sandbox's fresh user namespace `nproc = N` counts
 * the sandbox's processes only, nested user namespaces included. But
 * copy_process() exempts the initial namespace's root user
 * (`real_cred->user != INIT_USER`): a command started by root is kernel
 * uid 0 whatever its uid inside, and forks without limit. For a root
 * caller sbx therefore creates a pids cgroup below (v2: possibly next
 * to) its own, writes pids.max = N, moves init into it before init can
 * fork (init waits for CHANNEL_CGROUP_ENTERED), and removes it once the
 * sandbox is gone.
 *
 * When no such cgroup can be had (no pids controller, a read-only
 * cgroupfs in a container, cgroup v2 without pids delegated), sbx warns
 * once with the reason and the fix, records "enforced": false in the run
 * record and runs the command: the shipped profiles set nproc for every
 * caller, and refusing would stop root in most containers. */
#ifndef SBX_CGROUP_H
#define SBX_CGROUP_H

#include "profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sandbox_cgroup {
    char *dir;          /* the sandbox's cgroup directory; NULL: none */
    pid_t init_pid;     /* moved into it (0: not yet) */
};

/* In the supervisor, before clone(): decides how p's nproc is enforced
 * for a caller whose kernel uid is outer_uid, creates the cgroup when it
 * is needed, records the decision (record_nproc_enforcement()) and warns
 * when the limit cannot be enforced. True when cg->dir was created and
 * init must be moved into it. */
bool sandbox_cgroup_prepare(struct sandbox_cgroup *cg, const struct profile *p, uid_t outer_uid);

/* Moves init (pid) into cg; dies naming the file on failure. */
void sandbox_cgroup_enter(struct sandbox_cgroup *cg, pid_t pid);

/* Once init has been reaped (or the supervisor is dying): kills whatever
 * is still in the cgroup, removes it and frees cg. Warns naming the
 * directory when it cannot be removed. */
void sandbox_cgroup_remove(struct sandbox_cgroup *cg);

/* The directory of the caller's own pids cgroup, found from the texts of
 * /proc/self/mountinfo and /proc/self/cgroup: a v1 hierarchy with the
 * pids controller, else the v2 one. NULL with why filled when there is
 * none. *v2 tells which. (For unit tests.) */
char *cgroup_pids_home(const char *mountinfo, const char *self_cgroup, bool *v2, char *why,
                       size_t whylen);

#endif
