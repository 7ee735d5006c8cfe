/* The sandbox plan: everything the sandbox will be, decided and checked
 * by the supervisor before clone() (plan.c), so that every refusal that
 * can be known (a limit above the hard limit, a bad environment entry, a
 * mount rule on a missing path or through a planted symlink, a deny rule
 * the filter cannot express) is reported before anything is created, and
 * no decision is taken twice. The processes inside (init, then the
 * command) read their copy of it and only make system calls from it:
 * init writes the id maps, applies the mount plan and waits for the
 * network; the command sets the limits, drops privileges, installs the
 * compiled filter and execs.
 *
 * Each backend (backend.h: the namespaces, the Landlock tier) prepares,
 * spawns and applies from it: the part every backend reads here, and a
 * part of its own. */
#ifndef SBX_PLAN_H
#define SBX_PLAN_H

#include "egress.h"
#include "env.h"
#include "foreign_owner.h"
#include "profile.h"
#include "rlimits.h"
#include "sandbox.h"
#include "seccomp.h"

struct project;
struct protect_list;

/* What stays read-only inside whatever the profile makes writable
 * (protect.h), for this caller (its environment, sbx's own files) and
 * this project (its git directories outside the work tree). Both tiers
 * keep it: the namespaces tier binds it read-only, the Landlock tier
 * refuses an rw rule that holds one. */
void plan_protect_list(struct protect_list *list, const char *home, const struct project *project);

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct backend;
struct filter_job;

/* The part every backend reads (backend.h); `part` is the chosen
 * backend's own, whose type only its file defines. */
struct sandbox_plan {
    const struct profile *profile;
    char *const *argv;
    const char *cwd;
    uid_t outer_uid;
    gid_t outer_gid;
    const char *home;          /* the caller's $HOME (profile variable ${HOME}), or NULL */

    const struct backend *backend; /* chosen first (tier_choose()) */
    void *part;                /* the backend's part, backend->part_size bytes */
    bool pid_namespace;        /* the command is not torn down with init otherwise */

    struct strv env;           /* the command's environment (env_build) */
    struct limits_plan limits; /* checked by limits_prepare() */
    struct rlimit caller_nofile; /* restored in the command before limits_apply() */
    struct egress *egress;     /* [network] allow's proxy (egress.h); NULL: none */
    /* The profile plus the rules of sbx's own a backend adds
     * (plan_with_rules()), which `profile` then points to; its deny array
     * is ours */
    struct profile with_rules;
    struct deny_rule *own_rules;
    struct seccomp_program seccomp; /* compiled; installed by the command */
    struct foreign_owner foreign;   /* a root caller's: what its command cannot write (foreign_owner.h) */
    struct filter_job *compiling;   /* the compile under way, until sandbox_plan_finish() */

    /* Handles the run made before clone(), which the children use. */
    int channel_fd;            /* inside end of the supervisor's socketpair */
    sigset_t caller_mask;      /* restored in the command before exec */
    bool await_cgroup;         /* init waits for CHANNEL_CGROUP_ENTERED first */
    int terminal;              /* enum terminal_mode: TERMINAL_NONE, or a pty (terminal.h) */
    int terminal_slave;        /* its slave, opened by init; -1 before, or without */
    int report_fd;             /* sandbox_request.report_fd, or -1 */
    int report_fd_at;          /* the number the command gets it at */
};

/* The profile plus rules of sbx's own (never read from a profile), for a
 * backend's `rules`: a shallow copy, every pointer but deny the caller's. */
const struct profile *plan_with_rules(struct sandbox_plan *plan, const struct profile *p,
                                      const struct deny_rule *extra, size_t nextra);

/* Builds and checks the plan for req; channel_fd is the socket the
 * children will talk to the supervisor through (the filter names it).
 * Dies (exit 125) with the reason on any refusal; nothing but the
 * protections' placeholders on the host (mount-plan.h) exists yet. The
 * seccomp filter may still be compiling in a thread of ours when it
 * returns: sandbox_plan_finish() waits for it, and must be called before
 * clone() (which copies only the calling thread). */
void sandbox_plan_build(struct sandbox_plan *plan, const struct sandbox_request *req,
                        struct rlimit caller_nofile, int channel_fd);
void sandbox_plan_finish(struct sandbox_plan *plan);
void sandbox_plan_free(struct sandbox_plan *plan);

#endif
