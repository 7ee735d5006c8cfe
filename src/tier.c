#include "config.h"

#include "tier.h"

#include "backend.h"
#include "caps.h"
#include "log.h"
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
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

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

/* The probe's child, reaped by the backend's spawn (tier_reap_probe()),
 * once the sandbox's own clone() is made: by then it has long exited. */
static pid_t probe_child = -1;
/* the child's stack: it only returns (glibc's clone() then calls exit) */
static char probe_stack[16384] __attribute__((aligned(16)));

static int probe_exit(void *arg)
{
    (void)arg;
    return 0;
}

void tier_reap_probe(void)
{
    if (probe_child <= 0)
        return;
    while (waitpid(probe_child, NULL, __WCLONE) < 0 && errno == EINTR)
        ;
    probe_child = -1;
}

/* The one-child probe: a child in a user namespace alone. The kernel
 * makes the namespace in clone() itself (copy_creds()), in this process:
 * its return says whether one can be had, before the child ever runs.
 * So the child shares this memory (CLONE_VM: no page tables copied),
 * sends no SIGCHLD, and is not waited for here: on a loaded machine that
 * wait was a scheduling round trip, 10-40 ms at a load of 10 on 2 cores
 * (issue 30). 0 when one could be had, else the errno of the refusal. */
static int user_namespace_refusal(void)
{
    tier_reap_probe();   /* the stack is the last probe's until it is reaped */
    pid_t child = clone(probe_exit, probe_stack + sizeof probe_stack, CLONE_VM | CLONE_NEWUSER,
                        NULL);
    if (child < 0)
        return errno ? errno : EPERM;
    probe_child = child;
    return 0;
}

/* Mounts the kernel does not mind below /proc: on an empty directory
 * (mnt_already_visible() wants every mount on a child of /proc to sit on
 * one). */
static bool on_empty_proc_dir(const char *at)
{
    return !strcmp(at, "/proc/sys/fs/binfmt_misc") || !strcmp(at, "/proc/fs/nfsd");
}

/* Whether a fresh /proc will be refused in a user namespace: something
 * is mounted over a part of the /proc we see (bubblewrap as root covers
 * /proc/irq and /proc/bus, Docker masks /proc/kcore, an outer sbx as root
 * /proc/sys), which the kernel takes as hiding that the new one would
 * reveal (mount_too_revealing()). Read from mountinfo; the first such
 * mount into what. */
static bool proc_overmounted(char *what, size_t len)
{
    char *info = read_file_text("/proc/self/mountinfo", 1 << 20, NULL);
    if (!info)
        return false;
    bool found = false;
    for (char *line = strtok(info, "\n"); line && !found; line = strtok(NULL, "\n")) {
        char at[512];
        /* ID PARENT MAJ:MIN ROOT MOUNT-POINT ... */
        if (sscanf(line, "%*s %*s %*s %*s %511s", at) != 1 || strncmp(at, "/proc/", 6) ||
            on_empty_proc_dir(at))
            continue;
        snprintf(what, len, "%s", at);
        found = true;
    }
    free(info);
    return found;
}

enum sandbox_tier tier_choose(const struct profile *p, uid_t outer_uid, char *why, size_t len)
{
    why[0] = '\0';
    if (p->fallback != FALLBACK_LANDLOCK || !(ns_clone_flags(p) & CLONE_NEWUSER))
        return TIER_NAMESPACES;
    if (!tier_userns_refused_before_clone(outer_uid, why, len)) {
        int e = user_namespace_refusal();
        char over[512];
        if (!e && !(p->proc && p->ns[NS_PID] && p->ns[NS_MOUNT] &&
                    proc_overmounted(over, sizeof over)))
            return TIER_NAMESPACES;
        char cause[640];
        if (e)
            snprintf(why, len, "clone CLONE_NEWUSER: %s: %s", strerror(e),
                     ns_explain_failure(e, CLONE_NEWUSER, cause, sizeof cause));
        else
            snprintf(why, len, "a fresh /proc: the kernel refuses one in a user namespace where "
                     "part of this one is overmounted (%s, as bubblewrap does as root, and "
                     "containers): set proc = no to keep the namespaces", over);
    }
    char at[512];
    log_prefix = "sbx[landlock]: ";
    record_step("landlock tier");
    /* a warning, not a notice: --quiet keeps it */
    bool proc = !strncmp(why, "a fresh /proc", strlen("a fresh /proc"));
    warn("%s are refused here (%s); %s asks for fallback = landlock: the command runs in "
         "the Landlock tier, not in namespaces", proc ? "the namespaces" : "user namespaces",
         why, origin_format(&p->at[K_SANDBOX_FALLBACK], at, sizeof at));
    return TIER_LANDLOCK;
}

/* A child installs an allow-all filter with a listener: the kernel
 * refuses a second listener in one filter chain (EBUSY), so that says an
 * outer sandbox holds one (an outer sbx with deny rules or an allowlist). */
bool tier_outer_listener(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        struct sock_fprog prog = { .len = 1, .filter = &allow };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
            _exit(0);
        long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                          &prog);
        _exit(rc < 0 && errno == EBUSY ? 1 : 0);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

const struct backend *backend_of(enum sandbox_tier tier)
{
    return tier == TIER_LANDLOCK ? &backend_landlock : &backend_namespaces;
}
