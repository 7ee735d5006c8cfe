#include "config.h"

#include "tier.h"

#include "caps.h"
#include "landlock.h"
#include "log.h"
#include "mount-plan.h"
#include "ns.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

const char *tier_name(enum sandbox_tier tier)
{
    return tier == TIER_LANDLOCK ? "landlock" : "namespaces";
}

/* Ubuntu's rule (kernel.apparmor_restrict_unprivileged_userns = 1): a
 * process without CAP_SYS_ADMIN whose AppArmor profile does not grant
 * `userns` (an unconfined one) still gets its user namespace from
 * clone(), but without any capability in it, so init's mounts fail
 * later, inside. Known beforehand from the sysctl and our own label. */
static bool apparmor_restricts_us(void)
{
    if (read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") != 1 ||
        capability_in_effective_set(CAP_SYS_ADMIN))
        return false;
    char *label = read_file_text("/proc/self/attr/apparmor/current", 4096, NULL);
    if (!label)
        label = read_file_text("/proc/self/attr/current", 4096, NULL);
    bool unconfined = label && !strncmp(label, "unconfined", strlen("unconfined"));
    free(label);
    return unconfined;
}

bool tier_userns_refused_before_clone(uid_t outer_uid, char *why, size_t len)
{
    if (outer_uid == 0 && kernel_at_least(5, 12) && !capability_in_effective_set(CAP_SETFCAP)) {
        snprintf(why, len, "mapping uid 0 into a user namespace takes CAP_SETFCAP since Linux "
                 "5.12, which this uid 0 lacks");
        return true;
    }
    if (apparmor_restricts_us()) {
        snprintf(why, len, "AppArmor restricts unprivileged user namespaces "
                 "(kernel.apparmor_restrict_unprivileged_userns = 1) and sbx runs unconfined: "
                 "its namespaces would hold no capability");
        return true;
    }
    return false;
}

static pid_t clone_raw(int flags)
{
    /* fork() semantics, as ns_clone() (ns.c says why) */
    return (pid_t)syscall(SYS_clone, (unsigned long)flags | SIGCHLD, NULL, NULL, NULL, NULL);
}

/* clone() failed for the plan's flags: was it the user namespace? A
 * child in a user namespace alone tells (it exits at once): when it can
 * be had, another namespace was refused, which the Landlock tier is not
 * for. */
static bool user_namespace_refused(void)
{
    pid_t child = clone_raw(CLONE_NEWUSER);
    if (child < 0)
        return true;
    if (child == 0)
        _exit(0);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    return false;
}

static void become_landlock(struct sandbox_plan *plan, struct sandbox_result *res,
                            const char *why)
{
    const struct profile *p = plan->profile;
    char at[512];
    log_prefix = "sbx[landlock]: ";
    record_step("landlock tier");
    /* a warning, not a notice: --quiet keeps it */
    warn("user namespaces are refused here (%s); %s asks for fallback = landlock: the "
         "command runs in the Landlock tier, not in namespaces",
         why, origin_format(&p->at[K_SANDBOX_FALLBACK], at, sizeof at));
    res->tier = TIER_LANDLOCK;
    snprintf(res->userns_refusal, sizeof res->userns_refusal, "%s", why);
    plan->clone_flags = 0;
    plan->loopback = false;
    /* cap_net_raw was planned for a network namespace of the sandbox's
     * own (caps.c); here the command shares the host's, where it would
     * be the host's raw sockets. Kept capabilities are refused in this
     * tier (landlock.c), so nothing else is in the mask. */
    plan->caps_kept = 0;
    if (plan->has_mounts) {
        mount_plan_free(&plan->mounts);
        plan->has_mounts = false;
    }
    landlock_plan_prepare(&plan->landlock, p, plan->home);
    res->landlock_abi = plan->landlock.abi;
    plan->tier = TIER_LANDLOCK;
}

pid_t tier_clone(struct sandbox_plan *plan, struct sandbox_result *res)
{
    char why[768];
    if (plan->userns_refused[0]) {
        snprintf(why, sizeof why, "%s", plan->userns_refused);
    } else {
        pid_t pid = clone_raw(plan->clone_flags);
        if (pid >= 0)
            return pid;
        int e = errno;
        if (!(plan->clone_flags & CLONE_NEWUSER) || !user_namespace_refused())
            return ns_clone(plan->clone_flags); /* fails again, and says why */
        char cause[640], flags[160];
        snprintf(why, sizeof why, "clone %s: %s: %s",
                 ns_flags_text(plan->clone_flags, flags, sizeof flags), strerror(e),
                 ns_explain_failure(e, plan->clone_flags, cause, sizeof cause));
    }
    become_landlock(plan, res, why);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = clone_raw(0);
    if (pid < 0)
        die_errno("starting the Landlock tier's init (fork)");
    return pid;
}
