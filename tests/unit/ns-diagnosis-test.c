/* The one diagnosis of a refused namespace, for `sbx run` and `sbx probe`
 * (ns_diagnosis.h), on facts built by hand: each cause under the errno
 * the kernel returns for it, run's sentence (run-refusals.sh and users grep
 * them) and probe's hints from the same set. */
#include "config.h"

#include "ns_diagnosis.h"
#include "util.h"

#include "../tap.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* A non-root caller on a kernel with no restriction: nothing explains a
 * refusal, until a test sets what does. */
static struct ns_facts facts(int err, int flags)
{
    struct ns_facts f;
    memset(&f, 0, sizeof f);
    f.err = err;
    f.clone_flags = flags;
    f.uid = f.euid = 1000;
    f.cap_setfcap = false;
    f.seccomp_mode = 0;
    f.seccomp_refuses_userns = -1;
    f.apparmor_sbx_loaded = -1;
    f.unprivileged_userns_clone = -1;
    f.apparmor_restrict_userns = -1;
    for (int i = 0; i < NS_TYPE_COUNT; i++)
        f.max_namespaces[i] = flags & ns_types[i].flag ? 15000 : -1;
    return f;
}

static char buf[1024];

static const char *run_says(const struct ns_facts *f)
{
    return ns_describe_refusal(f, ns_diagnose(f), buf, sizeof buf);
}

static void probe_says(const struct ns_facts *f, const char *want, const char *what)
{
    char *h = ns_describe_hints(f, ns_diagnose(f));
    is_str(h, want, "probe: %s", what);
    free(h);
}

int main(void)
{
    const int all = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC |
                    CLONE_NEWUTS;
    struct ns_facts f;

    /* ENOSPC */
    f = facts(ENOSPC, all);
    f.max_namespaces[0] = 0;
    is_int((int)ns_diagnose(&f), NS_CAUSE_LIMIT_ZERO, "ENOSPC with user.max_user_namespaces = 0");
    is_str(run_says(&f), "user namespaces are disabled (user.max_user_namespaces = 0); enable them "
           "with `sysctl -w user.max_user_namespaces=15000` as root (in a container: on the host); "
           "the limit is per user namespace, so it is lifted where it was set to 0",
           "run: names the sysctl and the fix");
    is_str(ns_cause_name(ns_refusal_class(ns_diagnose(&f))), "max_namespaces", "class: max_namespaces");
    probe_says(&f, "user.max_user_namespaces = 0 (sysctl -w user.max_user_namespaces=15000)",
               "the same sysctl");
    f = facts(ENOSPC, all);
    f.max_namespaces[2] = 0;
    like_str(run_says(&f), "these namespaces are disabled (user.max_net_namespaces = 0)",
             "run: another type's zero limit is named");
    f = facts(ENOSPC, CLONE_NEWUSER);
    f.max_namespaces[2] = 0;   /* not asked for: not the cause */
    is_int((int)ns_diagnose(&f), NS_CAUSE_LIMIT_REACHED, "a zero limit of a type not asked for is no cause");
    like_str(run_says(&f), "a namespace limit is reached", "run: a limit is reached");
    probe_says(&f, "user.max_user_namespaces (15000) reached, or 32 nested user namespaces",
               "the limit and its value");

    /* EUSERS, EINVAL */
    f = facts(EUSERS, CLONE_NEWUSER);
    is_int((int)ns_diagnose(&f), NS_CAUSE_TOO_DEEP, "EUSERS: nesting depth");
    like_str(run_says(&f), "32 levels", "run: EUSERS is explained as nesting depth");
    probe_says(&f, "user.max_user_namespaces (15000) reached, or 32 nested user namespaces",
               "EUSERS shares the limit's hint");
    f = facts(EINVAL, CLONE_NEWUSER);
    is_int((int)ns_diagnose(&f), NS_CAUSE_NO_KERNEL_SUPPORT, "EINVAL: kernel support");
    like_str(run_says(&f), "CONFIG_USER_NS", "run: EINVAL is a missing kernel feature");
    probe_says(&f, "the kernel lacks CONFIG_USER_NS", "CONFIG_USER_NS");

    /* EPERM: the seccomp filter first, as the most specific */
    f = facts(EPERM, all);
    f.seccomp_mode = 2;
    f.apparmor_restrict_userns = 1;
    is_int((int)ns_diagnose(&f), NS_CAUSE_SECCOMP | NS_CAUSE_APPARMOR, "EPERM: both policies are causes");
    like_str(run_says(&f), "a seccomp filter around sbx (Seccomp: 2 in /proc/self/status",
             "run: the seccomp filter is named first");
    {
        char *h = ns_describe_hints(&f, ns_diagnose(&f));
        like_str(h, "AppArmor restricts unprivileged user namespaces "
                 "(kernel.apparmor_restrict_unprivileged_userns = 1)", "probe: AppArmor first");
        like_str(h, "; an inherited seccomp filter may deny unshare (container runtimes do; "
                 "docker: --security-opt seccomp=unconfined)", "probe: then the presumed filter");
        free(h);
    }
    is_str(ns_cause_name(ns_refusal_class(ns_diagnose(&f))), "seccomp", "class: seccomp first");

    /* the filter measured: it answered for flags the kernel rejects */
    f.seccomp_refuses_userns = 1;
    like_str(run_says(&f), "a seccomp filter around sbx refuses CLONE_NEWUSER: it answered for "
             "clone/unshare flags the kernel itself rejects with EINVAL", "run: a measured filter");
    like_str(run_says(&f), "Docker's default profile", "run: names Docker's profile");
    like_str(run_says(&f), "--security-opt seccomp=unconfined", "run: and its fix");
    /* measured not to refuse: a filter that is there is no cause */
    f.seccomp_refuses_userns = 0;
    is_int((int)ns_diagnose(&f), NS_CAUSE_APPARMOR, "a filter measured not to refuse is no cause");
    is_str(ns_cause_name(ns_refusal_class(ns_diagnose(&f))), "apparmor", "class: apparmor");
    f.err = ENOSPC;
    ok(!(ns_diagnose(&f) & NS_CAUSE_SECCOMP), "a filter is no cause of ENOSPC (filters say EPERM)");

    f = facts(EPERM, CLONE_NEWNET | CLONE_NEWNS);
    is_int((int)ns_diagnose(&f), NS_CAUSE_NEEDS_USERNS, "not root, no user namespace: needs one");
    like_str(run_says(&f), "need CAP_SYS_ADMIN without a user namespace; set user = yes",
             "run: says to ask for a user namespace");
    f.euid = 0;
    is_int((int)ns_diagnose(&f), NS_CAUSE_REFUSED, "root needs no user namespace");

    f = facts(EPERM, all);
    f.unprivileged_userns_clone = 0;
    is_int((int)ns_diagnose(&f), NS_CAUSE_USERNS_CLONE_OFF, "kernel.unprivileged_userns_clone = 0");
    like_str(run_says(&f), "`sysctl -w kernel.unprivileged_userns_clone=1` as root",
             "run: names the fix");
    probe_says(&f, "kernel.unprivileged_userns_clone = 0 (sysctl -w kernel.unprivileged_userns_clone=1)",
               "the sysctl");
    f.euid = 0;
    is_int((int)ns_diagnose(&f), NS_CAUSE_REFUSED, "the sysctl does not bind root");

    f = facts(EACCES, all);
    f.apparmor_restrict_userns = 1;
    is_int((int)ns_diagnose(&f), NS_CAUSE_APPARMOR, "EACCES under AppArmor's restriction");
    like_str(run_says(&f), "may not be loaded (AppArmor's /sys/kernel/security/apparmor is not visible",
             "run: no AppArmor securityfs to tell whether sbx's profile is loaded");
    f.apparmor_fs = true;
    like_str(run_says(&f), "may not be loaded (the list of loaded profiles is readable by root only",
             "run: unknown whether sbx's profile is loaded");
    like_str(run_says(&f), "`sudo apparmor_parser -r /etc/apparmor.d/sbx`", "run: names the fix");
    like_str(run_says(&f), "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`",
             "run: and the other fix");
    f.apparmor_sbx_loaded = 0;
    like_str(run_says(&f), "and sbx's AppArmor profile is not loaded; load it with", "run: not loaded");
    f.apparmor_sbx_loaded = 1;
    snprintf(f.apparmor_label, sizeof f.apparmor_label, "unconfined");
    like_str(run_says(&f), "this sbx runs as 'unconfined', not under the sbx profile, which is "
             "loaded but attaches to /usr/bin/sbx and /usr/local/bin/sbx only", "run: loaded, not attached");
    snprintf(f.apparmor_label, sizeof f.apparmor_label, "sbx (enforce)");
    like_str(run_says(&f), "AppArmor refuses it although this sbx runs under the sbx profile "
             "('sbx (enforce)')", "run: confined by sbx's profile and still refused");
    snprintf(f.apparmor_label, sizeof f.apparmor_label, "sbx//&sbx_command (enforce)");
    like_str(run_says(&f), "this sbx runs inside another sbx's sandbox, confined by AppArmor as "
             "'sbx//&sbx_command (enforce)'", "run: nested under sbx's profile: cannot nest");
    snprintf(f.apparmor_label, sizeof f.apparmor_label, "sbxfoo (enforce)");
    like_str(run_says(&f), "not under the sbx profile", "a profile named sbxfoo is not sbx's");
    f.cap_sys_admin = true;
    is_int((int)ns_diagnose(&f), NS_CAUSE_REFUSED, "CAP_SYS_ADMIN: AppArmor's restriction spares it");

    /* a fresh /proc refused */
    f = facts(EPERM, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID);
    f.proc_mount_step = true;
    f.seccomp_mode = 2;
    f.apparmor_restrict_userns = 1;
    is_int((int)ns_diagnose(&f), NS_CAUSE_PROC_HIDDEN, "EPERM mounting /proc: only the /proc cause");
    like_str(run_says(&f), "fully visible (mount_too_revealing())", "run: the kernel rule");
    like_str(run_says(&f), "set proc = no in [filesystem]", "run: the fix");
    is_str(ns_cause_name(ns_refusal_class(ns_diagnose(&f))), "proc_hidden", "class: proc_hidden");
    f.err = ENODEV;
    is_int((int)ns_diagnose(&f), 0, "another errno mounting /proc: no known cause");
    is_str(ns_cause_name(ns_refusal_class(0)), "none", "class of nothing: none");

    /* probe's uid_map step as root without CAP_SETFCAP, inside a sandbox
     * with a filter: what `sbx probe --profile qa` says as root */
    f = facts(EPERM, CLONE_NEWUSER);
    f.uid = f.euid = 0;
    f.seccomp_mode = 2;
    f.uid_map_step = true;
    /* the id map is written after clone(), which passed the filter: the
     * filter is no cause of it */
    is_int((int)ns_diagnose(&f), NS_CAUSE_UID0_SETFCAP, "uid_map as root without CAP_SETFCAP");
    probe_says(&f, "mapping uid 0 of the parent namespace needs CAP_SETFCAP there (Linux >= "
               "5.12), which this uid 0 lacks (sbx runs inside another sandbox or a container "
               "that dropped it); run the outer sandbox as a non-root uid, or keep CAP_SETFCAP "
               "there (for an outer sbx: capabilities = cap_setfcap)", "CAP_SETFCAP, not the filter");
    f.outer = NS_OUTER_SBX;
    snprintf(f.outer_profile, sizeof f.outer_profile, "qa-session");
    like_str(run_says(&f), "the sbx session this runs in (profile qa-session, run as root)",
             "inside an sbx session: named, with its profile");
    like_str(run_says(&f), "add uid = 1000 and gid = 1000 to [namespaces] of the session's profile",
             "... and the fix docs/agents.md gives");
    f.outer = NS_OUTER_CODEX;
    like_str(run_says(&f), "Codex's sandbox (codex sandbox, PID 1 codex-linux-sandbox) runs its "
             "command as uid 0 without capabilities; run Codex as a normal user",
             "inside Codex's sandbox: named, with the change");
    f.outer = NS_OUTER_UNKNOWN;
    f.seccomp_mode = 0;
    like_str(run_says(&f), "needs CAP_SETFCAP there (Linux >= 5.12)", "run: the CAP_SETFCAP rule");
    f.cap_setfcap = true;
    is_int((int)ns_diagnose(&f), NS_CAUSE_REFUSED, "with CAP_SETFCAP that rule is no cause");
    f.cap_setfcap = false;
    f.uid_map_step = false;
    is_int((int)ns_diagnose(&f), NS_CAUSE_REFUSED, "only the uid_map write is bound by it");

    f = facts(EPERM, all);
    is_int((int)ns_diagnose(&f), NS_CAUSE_REFUSED, "EPERM with nothing known: refused");
    like_str(run_says(&f), "refuses namespace creation here", "run: the generic refusal");
    like_str(run_says(&f), "run `sbx probe` for details", "run: points at sbx probe");
    probe_says(&f, "refused by the kernel or an LSM (inside a chroot, or a sandbox that forbids nesting?)",
               "the generic refusal");

    /* EAGAIN */
    f = facts(EAGAIN, 0);
    f.nproc_limited = true;
    f.nproc_limit = 64;
    is_int((int)ns_diagnose(&f), NS_CAUSE_NPROC, "EAGAIN: the process limit");
    is_str(run_says(&f), "too many processes: uid 1000 may run 64 (RLIMIT_NPROC, `ulimit -u`) and no "
           "more can be created; end some, or raise the limit", "run: the uid and its limit");
    f.nproc_limited = false;
    like_str(run_says(&f), "kernel.threads-max or pid_max reached", "run: unlimited: the system's limit");
    probe_says(&f, "", "EAGAIN: no hint (probe has none for it)");

    f = facts(ENOMEM, all);
    is_int((int)ns_diagnose(&f), 0, "ENOMEM: no cause known");
    is_str(run_says(&f), "unexpected error", "run: unexpected error");
    return done_testing();
}
