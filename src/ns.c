#include "config.h"

#include "ns.h"

#include "apparmor.h"
#include "caps.h"
#include "log.h"
#include "ns_diagnosis.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

int ns_clone_flags(const struct profile *p)
{
    int flags = 0;
    if (p->ns[NS_USER])
        flags |= CLONE_NEWUSER;
    if (p->ns[NS_MOUNT])
        flags |= CLONE_NEWNS;
    if (p->ns[NS_NET] && p->net_mode != NET_HOST)
        flags |= CLONE_NEWNET;
    if (p->ns[NS_PID])
        flags |= CLONE_NEWPID;
    if (p->ns[NS_IPC])
        flags |= CLONE_NEWIPC;
    if (p->ns[NS_UTS])
        flags |= CLONE_NEWUTS;
    return flags;
}

const char *ns_flags_text(int flags, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NS_TYPE_COUNT; i++) {
        if (!(flags & ns_types[i].flag))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? "|" : "", ns_types[i].flag_name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    if (!used)
        snprintf(buf, len, "no new namespace");
    return buf;
}

/* The "Seccomp:" mode of /proc/self/status: 2 means a filter is installed,
 * as in another agent's sandbox or a container runtime. */
static long long seccomp_mode(void)
{
    char *status = read_file_text("/proc/self/status", 1 << 16, NULL);
    if (!status)
        return -1;
    long long mode = -1;
    const char *line = strstr(status, "\nSeccomp:");
    if (line)
        mode = strtoll(line + strlen("\nSeccomp:"), NULL, 10);
    free(status);
    return mode;
}

long long ns_read_sysctl(const char *name)
{
    const char *test = getenv("SBX_TEST_PROC_SYS");
    if (test && *test) {
        char *path = xasprintf("%s/%s", test, name);
        long long v = access(path, F_OK) == 0 ? read_sysctl(path) : -2;
        free(path);
        if (v != -2)
            return v;
    }
    char path[256];
    snprintf(path, sizeof path, "/proc/sys/%s", name);
    return read_sysctl(path);
}

/* Flags the kernel rejects with EINVAL before any namespace, sysctl or LSM
 * check: clone() refuses CLONE_NEWUSER with CLONE_FS (a new user
 * namespace may not share the root directory, copy_process()), unshare()
 * an unknown flag (CLONE_SETTLS means nothing to it, check_unshare_flags()).
 * A seccomp filter looks only at the number and flags, so a filter that
 * refuses CLONE_NEWUSER answers these first, with its errno or by killing. */
#define PROBE_CLONE_FLAGS (CLONE_NEWUSER | CLONE_FS)
#define PROBE_UNSHARE_FLAGS (CLONE_NEWUSER | CLONE_SETTLS)

int ns_seccomp_refuses_userns(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        long r = syscall(SYS_clone, (unsigned long)PROBE_CLONE_FLAGS | SIGCHLD, NULL, NULL, NULL, NULL);
        if (r == 0)
            _exit(3);   /* a kernel that took them: no answer */
        int clone_err = r < 0 ? errno : 0;
        if (r > 0)
            waitpid((pid_t)r, NULL, 0);
        r = syscall(SYS_unshare, (unsigned long)PROBE_UNSHARE_FLAGS);
        int unshare_err = r < 0 ? errno : 0;
        bool refused = clone_err == EPERM || clone_err == EACCES || unshare_err == EPERM ||
                       unshare_err == EACCES;
        bool kernel = clone_err == EINVAL && unshare_err == EINVAL;
        _exit(refused ? 1 : kernel ? 0 : 3);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFSIGNALED(status))
        return 1;   /* SECCOMP_RET_KILL_*: only a filter kills for a syscall */
    if (WIFEXITED(status) && WEXITSTATUS(status) <= 1)
        return WEXITSTATUS(status);
    return -1;
}

void ns_read_facts(struct ns_facts *f, int err, int flags)
{
    int saved = errno;
    memset(f, 0, sizeof *f);
    f->err = err;
    f->clone_flags = flags;
    f->uid = getuid();
    f->euid = geteuid();
    f->cap_setfcap = capability_in_effective_set(CAP_SETFCAP);
    f->cap_sys_admin = capability_in_effective_set(CAP_SYS_ADMIN);
    f->seccomp_mode = seccomp_mode();
    f->seccomp_refuses_userns = -1;
    f->unprivileged_userns_clone = ns_read_sysctl("kernel/unprivileged_userns_clone");
    f->apparmor_restrict_userns = ns_read_sysctl("kernel/apparmor_restrict_unprivileged_userns");
    f->apparmor_sbx_loaded = apparmor_profile_loaded("sbx", NULL, 0);
    f->apparmor_fs = apparmor_fs_dir() != NULL;
    apparmor_current_label(f->apparmor_label, sizeof f->apparmor_label);
    for (int i = 0; i < NS_TYPE_COUNT; i++) {
        f->max_namespaces[i] = -1;
        if (flags & ns_types[i].flag) {
            char name[64];
            snprintf(name, sizeof name, "user/%s", ns_types[i].limit_sysctl);
            f->max_namespaces[i] = ns_read_sysctl(name);
        }
    }
    /* fork and clone say EAGAIN when the caller's user already runs
     * RLIMIT_NPROC processes (or the system is at kernel.threads-max). */
    /* an outer sbx says so in its command's environment (sbx(1)), Codex
     * by its PID 1 */
    const char *profile = getenv("SBX_PROFILE"), *container = getenv("container");
    char *comm = read_file_text("/proc/1/comm", 64, NULL);
    if (profile && *profile && container && !strcmp(container, "sbx")) {
        f->outer = NS_OUTER_SBX;
        snprintf(f->outer_profile, sizeof f->outer_profile, "%s", profile);
    } else if (comm && !strncmp(comm, "codex-linux-san", strlen("codex-linux-san"))) {
        f->outer = NS_OUTER_CODEX;
    }
    free(comm);
    struct rlimit nproc;
    if (getrlimit(RLIMIT_NPROC, &nproc) == 0 && nproc.rlim_cur != RLIM_INFINITY) {
        f->nproc_limited = true;
        f->nproc_limit = (unsigned long long)nproc.rlim_cur;
    }
    errno = saved;
}

/* The facts of a refused clone()/unshare(), the filter measured when one
 * is there to refuse. */
static void read_refusal_facts(struct ns_facts *f, int err, int flags)
{
    ns_read_facts(f, err, flags);
    if ((err == EPERM || err == EACCES) && (flags & CLONE_NEWUSER) && f->seccomp_mode == 2) {
        int saved = errno;
        f->seccomp_refuses_userns = ns_seccomp_refuses_userns();
        errno = saved;
    }
}

const char *ns_explain_failure(int err, int flags, char *buf, size_t len)
{
    struct ns_facts f;
    read_refusal_facts(&f, err, flags);
    return ns_describe_refusal(&f, ns_diagnose(&f), buf, len);
}

enum ns_cause ns_classify_refusal(int err, int flags)
{
    struct ns_facts f;
    read_refusal_facts(&f, err, flags);
    return ns_refusal_class(ns_diagnose(&f));
}

const char *ns_explain_proc_mount_failure(int err, char *buf, size_t len)
{
    struct ns_facts f;
    ns_read_facts(&f, err, CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID);
    f.proc_mount_step = true;
    unsigned causes = ns_diagnose(&f);
    return causes ? ns_describe_refusal(&f, causes, buf, len) : "";
}

pid_t ns_try_clone(int flags)
{
    /* The raw syscall, as bubblewrap does: glibc's clone() wants a stack
     * and a function, while fork semantics (the child continues here with
     * a copy of everything) are what the sandbox's init needs. */
    return (pid_t)syscall(SYS_clone, (unsigned long)flags | SIGCHLD, NULL, NULL, NULL, NULL);
}

pid_t ns_clone(int flags)
{
    pid_t pid = ns_try_clone(flags);
    if (pid < 0) {
        int e = errno;
        char fbuf[160], why[512];
        die_with_errno(e, "creating the sandbox's namespaces (clone %s) failed: %s",
                       ns_flags_text(flags, fbuf, sizeof fbuf),
                       ns_explain_failure(e, flags, why, sizeof why));
    }
    return pid;
}

bool kernel_at_least(int major, int minor)
{
    struct utsname u;
    int ma = 0, mi = 0;
    if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
        return true; /* unknown: assume the newer rules */
    return ma > major || (ma == major && mi >= minor);
}

void ns_check_uid_map_allowed(uid_t outer_uid)
{
    if (outer_uid != 0 || !kernel_at_least(5, 12))
        return;
    if (capability_in_effective_set(CAP_SETFCAP))
        return;
    struct ns_facts f;
    ns_read_facts(&f, EPERM, CLONE_NEWUSER);
    char why[512];
    const char *who = ns_describe_refusal(&f, NS_CAUSE_UID0_SETFCAP, why, sizeof why);
    if (!strncmp(who, NS_SETFCAP_RULE ", ", strlen(NS_SETFCAP_RULE ", ")))
        who += strlen(NS_SETFCAP_RULE ", ");
    die("cannot map uid 0 into the sandbox's user namespace: since Linux 5.12 that takes "
        "CAP_SETFCAP, %s; or set fallback = landlock in [sandbox] of this profile for the "
        "Landlock tier (qa has it)", who);
}

uid_t ns_inside_uid(const struct profile *p, uid_t outer_uid)
{
    return p->uid.current ? outer_uid : (uid_t)p->uid.value;
}

gid_t ns_inside_gid(const struct profile *p, gid_t outer_gid)
{
    return p->gid.current ? outer_gid : (gid_t)p->gid.value;
}

/* Returns 0 or an errno. */
static int write_proc_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int e = 0;
    ssize_t n = write(fd, text, strlen(text));
    if (n < 0)
        e = errno;
    else if ((size_t)n != strlen(text))
        e = EIO;
    close(fd);
    return e;
}

static noreturn void die_map(int e, const char *path, const char *text)
{
    /* Not ns_explain_failure(): clone() already succeeded, so an outer
     * seccomp filter or a disabled sysctl is not the cause here. */
    const char *why = "";
    char aa[640];
    struct ns_facts f;
    ns_read_facts(&f, e, CLONE_NEWUSER);
    f.seccomp_mode = 0;   /* clone() passed any filter */
    f.seccomp_refuses_userns = 0;
    f.cap_setfcap = true; /* checked before clone(): ns_check_uid_map_allowed() */
    f.cap_sys_admin = false; /* what AppArmor left of the new namespace's */
    f.uid_map_step = true;
    if (ns_refusal_class(ns_diagnose(&f)) == NS_CAUSE_APPARMOR)
        why = ns_describe_refusal(&f, NS_CAUSE_APPARMOR, aa, sizeof aa);
    else if (e == EPERM || e == EACCES)
        why = "the kernel or a security module refused a one-line mapping of the caller's own "
              "id, which user_namespaces(7) allows; run `sbx probe` for details";
    char line[64];
    snprintf(line, sizeof line, "%s", text);
    line[strcspn(line, "\n")] = '\0';
    die_with_errno(e, "writing '%s' to %s failed%s%s", line, path, *why ? ": " : "", why);
}

void ns_write_id_maps(const struct profile *p, uid_t outer_uid, gid_t outer_gid,
                      struct ns_id_maps *written)
{
    char text[64];
    /* Kernels before 3.19 have no setgroups file and need none. */
    int e = write_proc_file("/proc/self/setgroups", "deny");
    if (e && e != ENOENT)
        die_map(e, "/proc/self/setgroups", "deny");

    struct ns_id_map_line uid = { ns_inside_uid(p, outer_uid), outer_uid, 1 };
    snprintf(text, sizeof text, "%u %u %u\n", (unsigned)uid.inside, (unsigned)uid.outside,
             (unsigned)uid.count);
    if ((e = write_proc_file("/proc/self/uid_map", text)))
        die_map(e, "/proc/self/uid_map", text);

    struct ns_id_map_line gid = { ns_inside_gid(p, outer_gid), outer_gid, 1 };
    snprintf(text, sizeof text, "%u %u %u\n", (unsigned)gid.inside, (unsigned)gid.outside,
             (unsigned)gid.count);
    if ((e = write_proc_file("/proc/self/gid_map", text)))
        die_map(e, "/proc/self/gid_map", text);
    written->uid = uid;
    written->gid = gid;
}

void ns_set_hostname(const struct profile *p)
{
    if (!p->hostname || !*p->hostname)
        return;
    if (sethostname(p->hostname, strlen(p->hostname)) < 0)
        die_errno("sethostname('%s') in the new UTS namespace", p->hostname);
}
