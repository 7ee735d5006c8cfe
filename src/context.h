/* What the supervisor prepares before clone() and the processes inside the
 * sandbox (init, then the command) read from their copy of memory. Built
 * once in sandbox.c so that no decision is taken twice, and so that every
 * refusal the supervisor can see (a limit above the hard limit, a bad
 * environment entry) is reported before anything is created. */
#ifndef SBX_CONTEXT_H
#define SBX_CONTEXT_H

#include "rlimits.h"
#include "profile.h"
#include "protect.h"

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct sandbox_context {
    const struct profile *profile;
    char *const *argv;
    const char *cwd;
    char **envp;               /* the command's environment (env_build) */
    struct limits_plan limits; /* checked by limits_prepare() */
    int clone_flags;           /* CLONE_NEW* from ns_clone_flags() */
    uid_t outer_uid;
    gid_t outer_gid;
    int channel_fd;            /* inside end of the supervisor's socketpair */
    sigset_t caller_mask;      /* restored in the command before exec */
    struct rlimit caller_nofile; /* restored in the command before limits_apply() */
    const char *resolv_conf;   /* outbound DNS: the sandbox's /etc/resolv.conf, or NULL */
    const char *home;          /* the caller's $HOME (profile variable ${HOME}), or NULL */
    struct protect_list protect; /* what stays read-only inside (protect.h) */
    bool await_cgroup;         /* init waits for CHANNEL_CGROUP_ENTERED first */
};

#endif
