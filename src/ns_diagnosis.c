#include "config.h"

#include "ns_diagnosis.h"

#include "apparmor.h"
#include "util.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct ns_type ns_types[NS_TYPE_COUNT] = {
    { CLONE_NEWUSER, "CLONE_NEWUSER", "max_user_namespaces" },
    { CLONE_NEWNS, "CLONE_NEWNS", "max_mnt_namespaces" },
    { CLONE_NEWNET, "CLONE_NEWNET", "max_net_namespaces" },
    { CLONE_NEWPID, "CLONE_NEWPID", "max_pid_namespaces" },
    { CLONE_NEWIPC, "CLONE_NEWIPC", "max_ipc_namespaces" },
    { CLONE_NEWUTS, "CLONE_NEWUTS", "max_uts_namespaces" },
};

/* The first type asked for whose limit is 0, or -1. */
static int zero_limit(const struct ns_facts *f)
{
    for (int i = 0; i < NS_TYPE_COUNT; i++)
        if ((f->clone_flags & ns_types[i].flag) && f->max_namespaces[i] == 0)
            return i;
    return -1;
}

/* A filter's refusal is measured when ns_read_facts() could (a probe the
 * kernel alone would answer with EINVAL); presumed from Seccomp: 2 only
 * when it could not. */
static bool seccomp_refuses(const struct ns_facts *f)
{
    if (f->seccomp_refuses_userns >= 0)
        return f->seccomp_refuses_userns == 1;
    return f->seccomp_mode == 2;
}

static bool confined_by_sbx_profile(const struct ns_facts *f)
{
    return apparmor_label_is_sbx(f->apparmor_label);
}

/* Since Linux 5.12 mapping uid 0 of the parent namespace takes
 * CAP_SETFCAP there; the outer sandbox named where it says who it is,
 * with the one change that makes the namespaces work. */
static const char *describe_setfcap(const struct ns_facts *f, char *buf, size_t len)
{
    if (f->outer == NS_OUTER_SBX)
        snprintf(buf, len, NS_SETFCAP_RULE ", and the sbx session this runs in (profile %s, run as root) gives its command "
                 "uid 0 without capabilities; add uid = 1000 and gid = 1000 to [namespaces] of "
                 "the session's profile, or run the session as a normal user (docs/agents.md)",
                 f->outer_profile);
    else if (f->outer == NS_OUTER_CODEX)
        snprintf(buf, len, NS_SETFCAP_RULE ", and Codex's sandbox (codex sandbox, PID 1 codex-linux-sandbox) runs its command "
                 "as uid 0 without capabilities; run Codex as a normal user");
    else
        snprintf(buf, len, NS_SETFCAP_RULE ", which this uid 0 lacks (sbx runs inside another sandbox or a container that "
                 "dropped it); run the outer sandbox as a non-root uid, or keep CAP_SETFCAP there "
                 "(for an outer sbx: capabilities = cap_setfcap)");
    return buf;
}

unsigned ns_diagnose(const struct ns_facts *f)
{
    bool userns = f->clone_flags & CLONE_NEWUSER;
    bool root = f->euid == 0;
    if (f->proc_mount_step)
        return f->err == EPERM || f->err == EACCES ? NS_CAUSE_PROC_HIDDEN : 0;
    switch (f->err) {
    case ENOSPC:
        return zero_limit(f) >= 0 ? NS_CAUSE_LIMIT_ZERO : NS_CAUSE_LIMIT_REACHED;
    case EUSERS:
        return NS_CAUSE_TOO_DEEP;
    case EINVAL:
        return NS_CAUSE_NO_KERNEL_SUPPORT;
    case EAGAIN:
        return NS_CAUSE_NPROC;
    case EPERM:
    case EACCES: {
        unsigned c = 0;
        /* a refused id map comes after clone(), which passed any filter */
        if (seccomp_refuses(f) && !f->uid_map_step)
            c |= NS_CAUSE_SECCOMP;
        if (!userns && !root)
            c |= NS_CAUSE_NEEDS_USERNS;
        if (userns && !root && f->unprivileged_userns_clone == 0)
            c |= NS_CAUSE_USERNS_CLONE_OFF;
        if (userns && f->apparmor_restrict_userns == 1 && !f->cap_sys_admin)
            c |= NS_CAUSE_APPARMOR;
        if (f->err == EPERM && f->uid_map_step && root && !f->cap_setfcap)
            c |= NS_CAUSE_UID0_SETFCAP;
        return c ? c : NS_CAUSE_REFUSED;
    }
    }
    return 0;
}

/* Most specific first: a measured filter before the sysctls that would
 * also refuse, the sysctls before the generic refusal. */
static const struct {
    enum ns_cause cause;
    const char *name;
} cause_order[] = {
    { NS_CAUSE_LIMIT_ZERO, "max_namespaces" },
    { NS_CAUSE_LIMIT_REACHED, "namespace_limit_reached" },
    { NS_CAUSE_TOO_DEEP, "too_deep" },
    { NS_CAUSE_NO_KERNEL_SUPPORT, "no_kernel_support" },
    { NS_CAUSE_SECCOMP, "seccomp" },
    { NS_CAUSE_NEEDS_USERNS, "needs_userns" },
    { NS_CAUSE_USERNS_CLONE_OFF, "unprivileged_userns_clone" },
    { NS_CAUSE_APPARMOR, "apparmor" },
    { NS_CAUSE_UID0_SETFCAP, "setfcap" },
    { NS_CAUSE_PROC_HIDDEN, "proc_hidden" },
    { NS_CAUSE_REFUSED, "refused" },
    { NS_CAUSE_NPROC, "nproc" },
};

enum ns_cause ns_refusal_class(unsigned causes)
{
    for (size_t i = 0; i < sizeof cause_order / sizeof *cause_order; i++)
        if (causes & cause_order[i].cause)
            return cause_order[i].cause;
    return 0;
}

const char *ns_cause_name(enum ns_cause cause)
{
    for (size_t i = 0; i < sizeof cause_order / sizeof *cause_order; i++)
        if (cause == cause_order[i].cause)
            return cause_order[i].name;
    return "none";
}

/* AppArmor's restriction, said for what is known of sbx's profile. */
static void describe_apparmor(const struct ns_facts *f, char *buf, size_t len)
{
    const char *label = *f->apparmor_label ? f->apparmor_label : "unknown";
    if (strstr(f->apparmor_label, "sbx_command"))
        snprintf(buf, len,
                 "this sbx runs inside another sbx's sandbox, confined by AppArmor as '%s': "
                 "sbx's profile denies what sbx runs every capability, so sbx cannot nest "
                 "where AppArmor restricts user namespaces; run it outside the other sandbox",
                 label);
    else if (confined_by_sbx_profile(f))
        snprintf(buf, len,
                 "AppArmor refuses it although this sbx runs under the sbx profile ('%s'); "
                 "the denial is in the kernel log (`journalctl -k | grep apparmor`): a local "
                 "rule in /etc/apparmor.d/local/sbx may take away what sbx needs",
                 label);
    else if (f->apparmor_sbx_loaded == 1)
        snprintf(buf, len,
                 "AppArmor restricts unprivileged user namespaces "
                 "(kernel.apparmor_restrict_unprivileged_userns = 1) and this sbx runs as '%s', "
                 "not under the sbx profile, which is loaded but attaches to /usr/bin/sbx and "
                 "/usr/local/bin/sbx only; run the installed sbx, or give this path a copy of "
                 "/etc/apparmor.d/sbx",
                 label);
    else
        snprintf(buf, len,
                 "AppArmor restricts unprivileged user namespaces "
                 "(kernel.apparmor_restrict_unprivileged_userns = 1) and sbx's AppArmor profile "
                 "%s; load it with `sudo apparmor_parser -r /etc/apparmor.d/sbx` (installed by the "
                 "Debian package; in the source: apparmor/sbx), or lift the restriction with "
                 "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`",
                 f->apparmor_sbx_loaded == 0 ? "is not loaded"
                 : f->apparmor_fs
                     ? "may not be loaded (the list of loaded profiles is readable by root only: "
                       "`sudo aa-status | grep sbx`)"
                     : "may not be loaded (AppArmor's /sys/kernel/security/apparmor is not "
                       "visible here)");
}

const char *ns_describe_refusal(const struct ns_facts *f, unsigned causes, char *buf, size_t len)
{
    int zero = zero_limit(f);
    enum ns_cause class = ns_refusal_class(causes);
    causes = class;
    if ((causes & NS_CAUSE_LIMIT_ZERO) && zero >= 0)
        snprintf(buf, len,
                 "%s are disabled (user.%s = 0); enable them with "
                 "`sysctl -w user.%s=15000` as root (in a container: on the host)"
                 "; the limit is per user namespace, so it is lifted where it was set to 0",
                 zero == 0 ? "user namespaces" : "these namespaces", ns_types[zero].limit_sysctl,
                 ns_types[zero].limit_sysctl);
    else if (causes & (NS_CAUSE_LIMIT_ZERO | NS_CAUSE_LIMIT_REACHED))
        snprintf(buf, len,
                 "a namespace limit is reached (see /proc/sys/user/max_*_namespaces); "
                 "raise it with sysctl, or end other sandboxes");
    else if (causes & NS_CAUSE_TOO_DEEP)
        snprintf(buf, len, "namespaces are nested too deeply (the kernel allows 32 levels)");
    else if (causes & NS_CAUSE_NO_KERNEL_SUPPORT)
        snprintf(buf, len,
                 "the kernel lacks one of these namespace types (CONFIG_USER_NS, CONFIG_NET_NS, ...); "
                 "disable it in the profile's [namespaces]");
    else if ((causes & NS_CAUSE_SECCOMP) && f->seccomp_refuses_userns == 1)
        snprintf(buf, len,
                 "a seccomp filter around sbx refuses CLONE_NEWUSER: it answered for clone/unshare "
                 "flags the kernel itself rejects with EINVAL (Docker's default profile does so, "
                 "as do agent sandboxes and an outer sbx with nested_userns = no); run sbx "
                 "outside that sandbox or let its policy create user namespaces (docker run "
                 "--security-opt seccomp=unconfined, or a profile that allows clone and unshare)");
    else if (causes & NS_CAUSE_SECCOMP)
        snprintf(buf, len,
                 "a seccomp filter around sbx (Seccomp: 2 in /proc/self/status: another "
                 "sandbox or a container runtime) refuses clone/unshare; run sbx outside that "
                 "sandbox or allow namespace creation in its policy");
    else if (causes & NS_CAUSE_NEEDS_USERNS)
        snprintf(buf, len,
                 "these namespaces need CAP_SYS_ADMIN without a user namespace; "
                 "set user = yes in [namespaces]");
    else if (causes & NS_CAUSE_USERNS_CLONE_OFF)
        snprintf(buf, len,
                 "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone "
                 "= 0); enable them with `sysctl -w kernel.unprivileged_userns_clone=1` as root");
    else if (causes & NS_CAUSE_APPARMOR)
        describe_apparmor(f, buf, len);
    else if (causes & NS_CAUSE_UID0_SETFCAP)
        describe_setfcap(f, buf, len);
    else if (causes & NS_CAUSE_PROC_HIDDEN)
        snprintf(buf, len,
                 "the kernel allows a fresh /proc in a user namespace only where the /proc sbx "
                 "started with is fully visible (mount_too_revealing()), and parts of it are "
                 "overmounted here, as container runtimes do (Docker masks /proc/kcore, "
                 "/proc/keys, ...); run sbx where /proc is not overmounted (docker: "
                 "--security-opt systempaths=unconfined), or set proc = no in [filesystem]");
    else if (causes & NS_CAUSE_REFUSED)
        snprintf(buf, len,
                 "the kernel or a security module refuses namespace creation here "
                 "(a chroot, a container without user namespaces, or a Linux security module); "
                 "run `sbx probe` for details");
    else if ((causes & NS_CAUSE_NPROC) && f->nproc_limited)
        snprintf(buf, len,
                 "too many processes: uid %u may run %llu (RLIMIT_NPROC, `ulimit -u`) and "
                 "no more can be created; end some, or raise the limit",
                 (unsigned)f->uid, f->nproc_limit);
    else if (causes & NS_CAUSE_NPROC)
        snprintf(buf, len,
                 "no more processes can be created (kernel.threads-max or pid_max reached)");
    else
        snprintf(buf, len, "unexpected error");
    return buf;
}

static void add_hint(char **hints, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_hint(char **hints, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *h = xvasprintf(fmt, ap);
    va_end(ap);
    char *next = xasprintf("%s%s%s", *hints, **hints ? "; " : "", h);
    free(h);
    free(*hints);
    *hints = next;
}

char *ns_describe_hints(const struct ns_facts *f, unsigned causes)
{
    char *hints = xstrdup("");
    int zero = zero_limit(f);
    if (causes & NS_CAUSE_USERNS_CLONE_OFF)
        add_hint(&hints, "kernel.unprivileged_userns_clone = 0 (sysctl -w kernel.unprivileged_userns_clone=1)");
    if ((causes & NS_CAUSE_LIMIT_ZERO) && zero >= 0)
        add_hint(&hints, "user.%s = 0 (sysctl -w user.%s=15000)", ns_types[zero].limit_sysctl,
                 ns_types[zero].limit_sysctl);
    else if (causes & (NS_CAUSE_LIMIT_ZERO | NS_CAUSE_LIMIT_REACHED | NS_CAUSE_TOO_DEEP))
        add_hint(&hints, "user.max_user_namespaces (%lld) reached, or 32 nested user namespaces",
                 f->max_namespaces[0]);
    if (causes & NS_CAUSE_APPARMOR) {
        char aa[640];
        describe_apparmor(f, aa, sizeof aa);
        add_hint(&hints, "%s", aa);
    }
    if ((causes & NS_CAUSE_SECCOMP) && f->seccomp_refuses_userns == 1)
        add_hint(&hints, "an inherited seccomp filter refuses CLONE_NEWUSER (it answers for flags "
                 "the kernel rejects with EINVAL): Docker's default profile, an agent's sandbox "
                 "or an outer sbx (docker: --security-opt seccomp=unconfined)");
    else if (causes & NS_CAUSE_SECCOMP)
        add_hint(&hints, "an inherited seccomp filter may deny unshare (container runtimes do; "
                 "docker: --security-opt seccomp=unconfined)");
    if (causes & NS_CAUSE_NO_KERNEL_SUPPORT)
        add_hint(&hints, "the kernel lacks CONFIG_USER_NS");
    if (causes & NS_CAUSE_UID0_SETFCAP) {
        char why[512];
        add_hint(&hints, "%s", describe_setfcap(f, why, sizeof why));
    }
    if (causes & NS_CAUSE_PROC_HIDDEN)
        add_hint(&hints, "a fresh /proc is refused: parts of this /proc are overmounted (a "
                 "container's masked paths) and the kernel wants it fully visible; set proc = no "
                 "in [filesystem], or run where /proc is not masked");
    if (causes & NS_CAUSE_REFUSED)
        add_hint(&hints, "refused by the kernel or an LSM (inside a chroot, or a sandbox that forbids nesting?)");
    return hints;
}
