/* Why the kernel refused a namespace: one diagnosis for `sbx run` (clone()
 * in ns.c, the command's clone in init.c) and `sbx probe` (its namespace
 * checks). ns_read_facts() (ns.c) reads what can refuse; everything
 * declared here is a pure function of those facts, so each cause and each
 * sentence is unit-tested (tests/unit/ns-diagnosis-test.c). */
#ifndef SBX_NS_DIAGNOSIS_H
#define SBX_NS_DIAGNOSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The namespace types sbx creates, in the order messages name them, with
 * the per-type limit the kernel keeps in /proc/sys/user. */
enum { NS_TYPE_COUNT = 6 };
struct ns_type {
    int flag;                 /* CLONE_NEW* */
    const char *flag_name;    /* "CLONE_NEWUSER" */
    const char *limit_sysctl; /* "max_user_namespaces" */
};
extern const struct ns_type ns_types[NS_TYPE_COUNT];

/* Everything that can refuse a namespace, as read just after the refusal. */
/* The kernel rule NS_CAUSE_UID0_SETFCAP's description starts with. */
#define NS_SETFCAP_RULE \
    "mapping uid 0 of the parent namespace needs CAP_SETFCAP there (Linux >= 5.12)"

struct ns_facts {
    int err;                  /* errno of the refused step */
    int clone_flags;          /* the namespaces asked for (CLONE_NEW*) */
    bool uid_map_step;        /* the refused step was the write of /proc/self/uid_map */
    uid_t uid, euid;
    bool cap_setfcap;         /* CAP_SETFCAP in the effective set */
    /* CAP_SYS_ADMIN in the effective set: AppArmor's restriction spares
     * a process that has it in its user namespace */
    bool cap_sys_admin;
    long long seccomp_mode;   /* "Seccomp:" of /proc/self/status, 2 = a filter; -1 unknown */
    /* 1 when a seccomp filter answers clone/unshare with CLONE_NEWUSER
     * before the kernel does (ns_seccomp_refuses_userns(), ns.h); 0 when
     * the kernel answered; -1 not measured */
    int seccomp_refuses_userns;
    bool proc_mount_step;     /* the refused step was mounting a fresh /proc */
    /* -1 when the sysctl does not exist on this kernel (or was not read) */
    long long unprivileged_userns_clone;   /* kernel. (Debian's patch) */
    long long apparmor_restrict_userns;    /* kernel.apparmor_restrict_unprivileged_userns */
    /* Whether sbx's AppArmor profile is loaded: 1, 0, -1 unknown (no
     * AppArmor, or its profile list is readable by root only) */
    int apparmor_sbx_loaded;
    bool apparmor_fs;         /* /sys/kernel/security/apparmor is there */
    char apparmor_label[96];  /* this process's confinement ("unconfined"); "" unknown */
    long long max_namespaces[NS_TYPE_COUNT]; /* user.max_*_namespaces, read for types asked for */
    bool nproc_limited;       /* RLIMIT_NPROC is not unlimited */
    unsigned long long nproc_limit;
    /* The sandbox sbx runs in, where it says so (ns_read_facts()): an sbx
     * session (container=sbx, SBX_PROFILE), Codex's (PID 1
     * codex-linux-sandbox); outer_profile: the session's profile */
    enum ns_outer { NS_OUTER_UNKNOWN, NS_OUTER_SBX, NS_OUTER_CODEX } outer;
    char outer_profile[64];
};

/* The causes consistent with the facts: each one's condition is here and
 * only here. The errno says which kernel check refused, so a cause is only
 * considered for the errno that check returns. */
enum ns_cause {
    /* ENOSPC: user.max_*_namespaces of a type asked for is 0 */
    NS_CAUSE_LIMIT_ZERO = 1 << 0,
    /* ENOSPC otherwise: a namespace limit is reached */
    NS_CAUSE_LIMIT_REACHED = 1 << 1,
    /* EUSERS: 32 nested user namespaces (user_namespaces(7)) */
    NS_CAUSE_TOO_DEEP = 1 << 2,
    /* EINVAL: the kernel is built without a type asked for */
    NS_CAUSE_NO_KERNEL_SUPPORT = 1 << 3,
    /* EPERM/EACCES from an inherited seccomp filter (Docker's default
     * profile, another agent's sandbox, an outer sbx): measured when
     * possible (seccomp_refuses_userns), else presumed from Seccomp: 2 */
    NS_CAUSE_SECCOMP = 1 << 4,
    /* EPERM/EACCES: not root, and no user namespace asked for to give
     * CAP_SYS_ADMIN over the others */
    NS_CAUSE_NEEDS_USERNS = 1 << 5,
    /* EPERM/EACCES: not root and kernel.unprivileged_userns_clone = 0 */
    NS_CAUSE_USERNS_CLONE_OFF = 1 << 6,
    /* EPERM/EACCES: kernel.apparmor_restrict_unprivileged_userns = 1 and
     * no `userns` rule in this process's profile (the user namespace is
     * created without capabilities in it, so what needs them fails) */
    NS_CAUSE_APPARMOR = 1 << 7,
    /* EPERM writing uid_map: since Linux 5.12 (commit db2e718a4798)
     * mapping uid 0 of the parent namespace needs CAP_SETFCAP there */
    NS_CAUSE_UID0_SETFCAP = 1 << 8,
    /* EPERM/EACCES and none of the above: a chroot, a container, an LSM */
    NS_CAUSE_REFUSED = 1 << 9,
    /* EAGAIN: RLIMIT_NPROC, kernel.threads-max or pid_max */
    NS_CAUSE_NPROC = 1 << 10,
    /* EPERM/EACCES mounting a fresh /proc in the new namespaces: the
     * kernel's mount_too_revealing() wants the /proc sbx started with to be
     * fully visible, and container runtimes overmount parts of it */
    NS_CAUSE_PROC_HIDDEN = 1 << 11,
};

/* The set of enum ns_cause that apply; 0 when none explains f->err. */
unsigned ns_diagnose(const struct ns_facts *f);

/* The class of a refusal: the one cause `sbx run` names, the most
 * specific of the set (0 for none). For callers that act on a refusal
 * rather than print it (a fallback tier that must name why it runs). */
enum ns_cause ns_refusal_class(unsigned causes);

/* A cause's stable name, for messages, --report and probe's JSON:
 * "apparmor", "seccomp", "max_namespaces", "setfcap", "proc_hidden", ...
 * ("none" for 0). */
const char *ns_cause_name(enum ns_cause cause);

/* `sbx run`'s sentence: the class of the set (ns_refusal_class), with its
 * fix, into buf ("unexpected error" for none). */
const char *ns_describe_refusal(const struct ns_facts *f, unsigned causes, char *buf,
                                size_t len);

/* `sbx probe`'s hints: every cause of the set, "; "-separated (owned; ""
 * for none). */
char *ns_describe_hints(const struct ns_facts *f, unsigned causes);

#endif
