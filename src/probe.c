/* `sbx probe`'s checks: the system calls that find out what the current
 * environment can validate (the verdicts are probe_verdict.c, the command
 * line probe_cmd.c, the namespace diagnosis ns_diagnosis.c).
 *
 * Why each check exists:
 *  - namespaces: sbx needs user, net and mount namespaces; when the kernel
 *    refuses one, the reason is a sysctl, an AppArmor rule or a seccomp
 *    filter inherited from a container runtime, and the fix differs.
 *  - loopback: bind() on 127.0.0.1 succeeds even when lo is down (the
 *    address is local to the namespace either way), so only a connect, an
 *    accept and a byte through the connection prove loopback works.
 *  - RLIMIT_NOFILE: async runtimes fail with EMFILE at a soft limit of 1024.
 *  - seccomp / no_new_privs / container hints: a filter inherited from an
 *    agent sandbox is what turns bind() into EPERM in the first place.
 *
 * Every check records what it tried and the errno, and nothing here turns a
 * refusal into a pass: that is the bug sbx exists to expose. */
#include "config.h"

#include "probe.h"

#include "apparmor.h"
#include "log.h"
#include "ns.h"
#include "ns_diagnosis.h"
#include "probe_verdict.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/landlock.h>

/* How long a loopback connect or accept may take before it counts as
 * failed: a firewall that drops packets on lo would otherwise hang the
 * probe for the kernel's SYN retry time (minutes). */
#define PROBE_CONNECT_TIMEOUT_MS 2000

static const char *const check_names[CHECK_COUNT] = {
    [CHECK_USER_NS] = "user_namespace",
    [CHECK_NET_NS] = "net_namespace",
    [CHECK_MOUNT_NS] = "mount_namespace",
    [CHECK_LO4_BIND] = "loopback_ipv4_bind",
    [CHECK_LO4_CONNECT] = "loopback_ipv4_connect",
    [CHECK_LO6_BIND] = "loopback_ipv6_bind",
    [CHECK_LO6_CONNECT] = "loopback_ipv6_connect",
    [CHECK_UNIX_BIND] = "unix_bind",
    [CHECK_UNIX_CONNECT] = "unix_connect",
    [CHECK_NOFILE_SOFT] = "nofile_soft",
    [CHECK_NOFILE_HARD] = "nofile_hard",
    [CHECK_NR_OPEN] = "nr_open",
    [CHECK_SECCOMP] = "seccomp",
    [CHECK_NO_NEW_PRIVS] = "no_new_privs",
    [CHECK_LANDLOCK] = "landlock",
    [CHECK_CONTAINER] = "container",
    [CHECK_INSIDE_SBX] = "inside_sbx",
    [CHECK_CREDENTIALS] = "credentials",
    [CHECK_PROC_MOUNT] = "proc_mount",
    [CHECK_APPARMOR] = "apparmor",
};

/* ::1 may be absent for reasons that are no policy (IPv6 disabled, as
 * Docker does by default); the IPv4 loopback and AF_UNIX are what network
 * tests need everywhere. Facts (seccomp, landlock, hints) never fail. */
static const bool check_required[CHECK_COUNT] = {
    [CHECK_USER_NS] = true,
    [CHECK_NET_NS] = true,
    [CHECK_MOUNT_NS] = true,
    [CHECK_PROC_MOUNT] = true,
    [CHECK_LO4_BIND] = true,
    [CHECK_LO4_CONNECT] = true,
    [CHECK_UNIX_BIND] = true,
    [CHECK_UNIX_CONNECT] = true,
    [CHECK_NOFILE_SOFT] = true,
    [CHECK_NOFILE_HARD] = true,
};

static void set_detail(struct probe_check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_detail(struct probe_check *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    free(c->detail);
    c->detail = s;
}

static void set_text(struct probe_check *c, char *owned)
{
    free(c->text);
    c->text = owned;
    c->has_number = false;
}

static void set_number(struct probe_check *c, long long v)
{
    free(c->text);
    c->text = NULL;
    c->has_number = true;
    c->number = v;
}

/* A failed system call: status from the errno, detail "CALL: strerror". */
static void set_failed(struct probe_check *c, int errnum, const char *call)
{
    c->status = probe_status_for_errno(errnum);
    c->errnum = errnum;
    set_detail(c, "%s: %s", call, strerror(errnum));
}

/* ---- namespaces ------------------------------------------------------ */

enum { NS_STEP_LEN = 80, NS_STEPS = 4 };

/* What the namespace child reports through its pipe. */
struct ns_outcome {
    int err[NS_STEPS];                 /* user, net, mount, proc: 0 = ok */
    char step[NS_STEPS][NS_STEP_LEN];  /* the call that failed, or what was done */
};

static int write_proc_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t w = write(fd, text, len);
    int e = errno;
    close(fd);
    if (w != (ssize_t)len) {
        errno = w < 0 ? e : EIO;
        return -1;
    }
    return 0;
}

static void not_tried(struct ns_outcome *o, int from, int err, const char *why)
{
    for (int i = from; i < NS_STEPS; i++) {
        o->err[i] = err;
        snprintf(o->step[i], NS_STEP_LEN, "not tried: %s", why);
    }
}

/* The fresh /proc sbx mounts for its PID namespace: a new PID namespace,
 * and its first process mounts proc on dir. Returns 0 or the errno. */
static int try_proc_mount(const char *dir)
{
    if (unshare(CLONE_NEWPID) < 0)
        return errno;
    pid_t pid = fork();
    if (pid < 0)
        return errno;
    if (pid == 0) {
        int e = 0;
        if (mount("proc", dir, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
            e = errno;
        _exit(e > 0 && e < 255 ? e : e ? 255 : 0);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return errno;
    return WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
}

/* Runs in the forked child: the same calls sbx makes, in the same order
 * (user namespace first, so it works unprivileged, then maps, then net and
 * mount inside it, then a fresh /proc). Under AppArmor's userns
 * restriction the unshare of the user namespace succeeds but the
 * capabilities in it are gone, so the later steps are what reveal it. */
static noreturn void ns_child(int fd)
{
    struct ns_outcome o;
    memset(&o, 0, sizeof o);
    uid_t uid = geteuid();
    gid_t gid = getegid();
    char map[64];

    if (unshare(CLONE_NEWUSER) < 0) {
        int e = errno;
        not_tried(&o, 1, e, "sbx creates it inside a user namespace");
        o.err[0] = e;
        snprintf(o.step[0], NS_STEP_LEN, "unshare(CLONE_NEWUSER)");
        goto out;
    }
    /* setgroups must be denied before an unprivileged gid_map write
     * (user_namespaces(7), since Linux 3.19 / CVE-2014-8989). */
    const char *failed = NULL;
    if (write_proc_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
        failed = "write /proc/self/setgroups";
    if (!failed) {
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
        if (write_proc_file("/proc/self/uid_map", map) < 0)
            failed = "write /proc/self/uid_map";
    }
    if (!failed) {
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
        if (write_proc_file("/proc/self/gid_map", map) < 0)
            failed = "write /proc/self/gid_map";
    }
    if (failed) {
        int e = errno;
        not_tried(&o, 1, e, "the user namespace has no id map");
        o.err[0] = e;
        snprintf(o.step[0], NS_STEP_LEN, "%s", failed);
        goto out;
    }
    snprintf(o.step[0], NS_STEP_LEN, "unshare(CLONE_NEWUSER), uid and gid maps written");

    if (unshare(CLONE_NEWNET) < 0)
        o.err[1] = errno;
    snprintf(o.step[1], NS_STEP_LEN, "unshare(CLONE_NEWNET)");

    const char *target = NULL;
    if (unshare(CLONE_NEWNS) < 0) {
        o.err[2] = errno;
        snprintf(o.step[2], NS_STEP_LEN, "unshare(CLONE_NEWNS)");
    } else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        /* Private first, so the test mount below cannot propagate out. */
        o.err[2] = errno;
        snprintf(o.step[2], NS_STEP_LEN, "mount(/, MS_REC|MS_PRIVATE)");
    } else {
        struct stat st;
        target = stat("/tmp", &st) == 0 && S_ISDIR(st.st_mode) ? "/tmp" : "/";
        if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k") < 0) {
            o.err[2] = errno;
            snprintf(o.step[2], NS_STEP_LEN, "mount(tmpfs on %s)", target);
            target = NULL;
        } else {
            snprintf(o.step[2], NS_STEP_LEN, "unshare(CLONE_NEWNS), mount(tmpfs on %s)", target);
        }
    }
    if (!target) {
        not_tried(&o, 3, o.err[2], "no mount namespace to mount it in");
        goto out;
    }
    /* On the private tmpfs just mounted: nothing outside sees it. */
    char dir[64];
    snprintf(dir, sizeof dir, "%s/proc", strcmp(target, "/") ? target : "");
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        o.err[3] = errno;
        snprintf(o.step[3], NS_STEP_LEN, "mkdir(%s)", dir);
    } else {
        o.err[3] = try_proc_mount(dir);
        snprintf(o.step[3], NS_STEP_LEN, "unshare(CLONE_NEWPID), mount(proc on %.40s)", dir);
    }
out:
    if (!write_all(fd, &o, sizeof o))
        _exit(2);
    _exit(0);
}

/* The facts behind a refused step, for the diagnosis `sbx run` gives too
 * (ns_diagnosis.h). Step i of the child creates namespace i inside the new
 * user namespace, as sbx does: under AppArmor's restriction that user
 * namespace exists without capabilities, so the later steps are what it
 * refuses. */
static char *userns_hints(int step, int errnum, const char *user_step)
{
    static const int step_flags[NS_STEPS] = { 0, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWNS | CLONE_NEWPID };
    struct ns_facts f;
    ns_read_facts(&f, errnum, CLONE_NEWUSER | step_flags[step]);
    f.uid_map_step = step == 0 && strstr(user_step, "uid_map");
    f.proc_mount_step = step == 3;
    if (step == 0 && !strncmp(user_step, "unshare", 7) && f.seccomp_mode == 2 &&
        (errnum == EPERM || errnum == EACCES))
        f.seccomp_refuses_userns = ns_seccomp_refuses_userns();
    return ns_describe_hints(&f, ns_diagnose(&f));
}

static void check_namespaces(struct probe_results *r)
{
    struct probe_check *c[NS_STEPS] = {
        &r->checks[CHECK_USER_NS], &r->checks[CHECK_NET_NS], &r->checks[CHECK_MOUNT_NS],
        &r->checks[CHECK_PROC_MOUNT],
    };
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0) {
        for (int i = 0; i < NS_STEPS; i++)
            set_failed(c[i], errno, "pipe2");
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pipefd[0]);
        close(pipefd[1]);
        for (int i = 0; i < NS_STEPS; i++)
            set_failed(c[i], e, "fork");
        return;
    }
    if (pid == 0) {
        log_use_underscore_exit = 1;
        die_hook = NULL;
        close(pipefd[0]);
        ns_child(pipefd[1]);
    }
    close(pipefd[1]);
    struct ns_outcome o;
    size_t got = 0;
    while (got < sizeof o) {
        ssize_t n = read(pipefd[0], (char *)&o + got, sizeof o - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(pipefd[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    if (got != sizeof o) {
        /* A seccomp filter with SECCOMP_RET_KILL kills instead of failing. */
        for (int i = 0; i < NS_STEPS; i++) {
            c[i]->status = PROBE_DENIED;
            c[i]->errnum = 0;
            if (WIFSIGNALED(wstatus))
                set_detail(c[i], "the probing child was killed by signal %d (%s) while "
                           "creating namespaces: a seccomp filter that kills?",
                           WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
            else
                set_detail(c[i], "the probing child exited with status %d before reporting",
                           WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
        }
        return;
    }
    for (int i = 0; i < NS_STEPS; i++) {
        o.step[i][NS_STEP_LEN - 1] = '\0';
        if (o.err[i] == 0) {
            c[i]->status = PROBE_OK;
            set_detail(c[i], "%s", o.step[i]);
            continue;
        }
        c[i]->status = probe_status_for_errno(o.err[i]);
        c[i]->errnum = o.err[i];
        if (!strncmp(o.step[i], "not tried", 9)) {
            set_detail(c[i], "%s (%s)", o.step[i], strerror(o.err[i]));
            continue;
        }
        char *hints = userns_hints(i, o.err[i], o.step[0]);
        set_detail(c[i], "%s: %s%s%s", o.step[i], strerror(o.err[i]), *hints ? "; " : "", hints);
        free(hints);
    }
}

/* AppArmor's restriction of user namespaces and sbx's profile for it
 * (apparmor/sbx): a fact, with the fix when the restriction is on and
 * the profile is not what confines sbx. */
static void check_apparmor(struct probe_results *r)
{
    struct probe_check *c = &r->checks[CHECK_APPARMOR];
    char mode[32] = "";
    r->apparmor_sbx_loaded = apparmor_profile_loaded("sbx", mode, sizeof mode);
    apparmor_current_label(r->apparmor_label, sizeof r->apparmor_label);
    bool restricted = r->apparmor_restrict_userns == 1;
    const char *fs = apparmor_fs_dir();
    c->status = PROBE_INFO;
    if (!fs) {
        set_text(c, xstrdup("absent"));
        set_detail(c, "no AppArmor in this kernel (no /sys/kernel/security/apparmor)%s",
                   restricted ? ", yet kernel.apparmor_restrict_unprivileged_userns = 1" : "");
        return;
    }
    const char *loaded = r->apparmor_sbx_loaded == 1 ? "loaded"
                         : r->apparmor_sbx_loaded == 0 ? "not loaded" : "unknown";
    set_text(c, xasprintf("sbx profile %s", loaded));
    if (!restricted) {
        set_detail(c, "kernel.apparmor_restrict_unprivileged_userns is %s: user namespaces need "
                   "no profile; sbx profile %s%s%s%s, this process '%s'",
                   r->apparmor_restrict_userns == 0 ? "0" : "absent", loaded,
                   *mode ? " (" : "", mode, *mode ? ")" : "",
                   *r->apparmor_label ? r->apparmor_label : "unknown");
        return;
    }
    const char *label = r->apparmor_label;
    if (apparmor_label_is_sbx(label)) {
        set_detail(c, "kernel.apparmor_restrict_unprivileged_userns = 1, and this sbx runs under "
                   "sbx's profile ('%s'), which grants it user namespaces", label);
        return;
    }
    struct ns_facts f;
    memset(&f, 0, sizeof f);
    f.err = EPERM;
    f.clone_flags = CLONE_NEWUSER | CLONE_NEWNET;
    f.seccomp_refuses_userns = 0;
    f.uid = f.euid = 1;
    f.apparmor_restrict_userns = 1;
    f.unprivileged_userns_clone = f.seccomp_mode = -1;
    f.apparmor_sbx_loaded = r->apparmor_sbx_loaded;
    f.apparmor_fs = true;
    snprintf(f.apparmor_label, sizeof f.apparmor_label, "%s", r->apparmor_label);
    char why[640];
    ns_describe_refusal(&f, NS_CAUSE_APPARMOR, why, sizeof why);
    c->status = PROBE_DENIED;
    set_detail(c, "sbx run here: %s", why);
}

/* ---- sockets --------------------------------------------------------- */

/* Waits for fd to become ready; 0, or an errno (ETIMEDOUT). */
static int wait_ready(int fd, short events)
{
    struct pollfd p = {.fd = fd, .events = events};
    for (;;) {
        int n = poll(&p, 1, PROBE_CONNECT_TIMEOUT_MS);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        return n == 0 ? ETIMEDOUT : 0;
    }
}

/* Connects cs to addr, accepts on ls and passes one byte: the full path a
 * test's client and server take. On failure sets *call and returns errno. */
static int connect_accept_byte(int family, int ls, const struct sockaddr *addr,
                               socklen_t addrlen, const char **call)
{
    int cs = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (cs < 0) {
        *call = "socket";
        return errno;
    }
    int err = 0;
    int as = -1;
    if (connect(cs, addr, addrlen) < 0) {
        if (errno != EINPROGRESS) {
            err = errno;
            *call = "connect";
            goto out;
        }
        if ((err = wait_ready(cs, POLLOUT))) {
            *call = "connect";
            goto out;
        }
        socklen_t len = sizeof err;
        if (getsockopt(cs, SOL_SOCKET, SO_ERROR, &err, &len) < 0) {
            err = errno;
            *call = "getsockopt(SO_ERROR)";
            goto out;
        }
        if (err) {
            *call = "connect";
            goto out;
        }
    }
    if ((err = wait_ready(ls, POLLIN))) {
        *call = "accept";
        goto out;
    }
    as = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
    if (as < 0) {
        err = errno;
        *call = "accept";
        goto out;
    }
    if (send(cs, "x", 1, MSG_NOSIGNAL) != 1) {
        err = errno ? errno : EIO;
        *call = "send";
        goto out;
    }
    if ((err = wait_ready(as, POLLIN))) {
        *call = "recv";
        goto out;
    }
    char byte = 0;
    ssize_t n = recv(as, &byte, 1, 0);
    if (n != 1 || byte != 'x') {
        err = n < 0 ? errno : EIO;
        *call = "recv";
        goto out;
    }
out:
    if (as >= 0)
        close(as);
    close(cs);
    return err;
}

static void check_loopback(int family, struct probe_check *bc, struct probe_check *cc)
{
    const char *host = family == AF_INET ? "127.0.0.1" : "::1";
    const char *fam = family == AF_INET ? "AF_INET" : "AF_INET6";
    struct sockaddr_storage ss;
    socklen_t len;
    memset(&ss, 0, sizeof ss);
    if (family == AF_INET) {
        struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
        sin->sin_family = AF_INET;
        sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        len = sizeof *sin;
    } else {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
        sin6->sin6_family = AF_INET6;
        sin6->sin6_addr = in6addr_loopback;
        len = sizeof *sin6;
    }

    char call[64];
    int ls = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ls < 0) {
        snprintf(call, sizeof call, "socket(%s, SOCK_STREAM)", fam);
        goto bind_failed;
    }
    if (bind(ls, (struct sockaddr *)&ss, len) < 0) {
        snprintf(call, sizeof call, family == AF_INET ? "bind(%s:0)" : "bind([%s]:0)", host);
        goto bind_failed;
    }
    if (listen(ls, 8) < 0) {
        snprintf(call, sizeof call, "listen");
        goto bind_failed;
    }
    if (getsockname(ls, (struct sockaddr *)&ss, &len) < 0) {
        snprintf(call, sizeof call, "getsockname");
        goto bind_failed;
    }
    unsigned port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                            : ((struct sockaddr_in6 *)&ss)->sin6_port);
    char *where = xasprintf(family == AF_INET ? "%s:%u" : "[%s]:%u", host, port);
    bc->status = PROBE_OK;
    set_text(bc, xstrdup(where));
    set_detail(bc, "socket(%s), bind and listen on %s", fam, where);

    const char *failed_call = NULL;
    int err = connect_accept_byte(family, ls, (struct sockaddr *)&ss, len, &failed_call);
    if (err) {
        cc->status = probe_status_for_errno(err);
        cc->errnum = err;
        set_detail(cc, "%s(%s): %s%s", failed_call, where, strerror(err),
                   err == ENETUNREACH || err == EADDRNOTAVAIL
                       ? " (the loopback interface is down: bind alone succeeded)"
                       : "");
    } else {
        cc->status = PROBE_OK;
        set_text(cc, xstrdup(where));
        set_detail(cc, "connect, accept and one byte through %s", where);
    }
    free(where);
    close(ls);
    return;

bind_failed:;
    int e = errno;
    if (ls >= 0)
        close(ls);
    set_failed(bc, e, call);
    if (e == EADDRNOTAVAIL && family == AF_INET6)
        set_detail(bc, "%s: %s (::1 is not configured: lo down or IPv6 disabled)", call, strerror(e));
    cc->status = bc->status;
    cc->errnum = e;
    set_detail(cc, "not tried: %s failed (%s)", call, strerror(e));
}

static void check_unix(struct probe_check *bc, struct probe_check *cc)
{
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    socklen_t len;
    char *dir = NULL;
    const char *tmp = getenv("TMPDIR");
    const char *bases[] = {tmp && *tmp == '/' ? tmp : NULL, "/tmp", "/dev/shm"};
    for (size_t i = 0; i < sizeof bases / sizeof *bases && !dir; i++) {
        if (!bases[i])
            continue;
        char *tmpl = xasprintf("%s/sbx-probe.XXXXXX", bases[i]);
        /* the socket name must fit sun_path with "/s" and its NUL */
        if (strlen(tmpl) + 3 <= sizeof sun.sun_path && mkdtemp(tmpl)) {
            dir = tmpl;
        } else {
            free(tmpl);
        }
    }
    const char *kind;
    if (dir) {
        snprintf(sun.sun_path, sizeof sun.sun_path, "%s/s", dir);
        len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(sun.sun_path) + 1);
        kind = "path";
    } else {
        /* No writable temporary directory: an abstract name still shows
         * whether AF_UNIX itself works. */
        int n = snprintf(sun.sun_path + 1, sizeof sun.sun_path - 1, "sbx-probe-%ld", (long)getpid());
        len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
        kind = "abstract";
    }
    const char *call;
    int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ls < 0) {
        call = "socket(AF_UNIX, SOCK_STREAM)";
        goto bind_failed;
    }
    if (bind(ls, (struct sockaddr *)&sun, len) < 0) {
        call = "bind";
        goto bind_failed;
    }
    if (listen(ls, 8) < 0) {
        call = "listen";
        goto bind_failed;
    }
    bc->status = PROBE_OK;
    set_text(bc, xstrdup(kind));
    if (dir)
        set_detail(bc, "bind and listen on %s", sun.sun_path);
    else
        set_detail(bc, "bind and listen on an abstract name (no writable TMPDIR, /tmp or /dev/shm)");
    const char *failed_call = NULL;
    int err = connect_accept_byte(AF_UNIX, ls, (struct sockaddr *)&sun, len, &failed_call);
    if (err) {
        set_failed(cc, err, failed_call);
    } else {
        cc->status = PROBE_OK;
        set_text(cc, xstrdup(kind));
        set_detail(cc, "connect, accept and one byte through the socket");
    }
    close(ls);
    goto cleanup;

bind_failed:;
    int e = errno;
    if (ls >= 0)
        close(ls);
    set_failed(bc, e, call);
    cc->status = bc->status;
    cc->errnum = e;
    set_detail(cc, "not tried: %s failed (%s)", call, strerror(e));
cleanup:
    if (dir) {
        unlink(sun.sun_path);
        rmdir(dir);
        free(dir);
    }
}

/* ---- limits and process state ---------------------------------------- */

static void check_nofile(struct probe_results *r)
{
    struct probe_check *soft = &r->checks[CHECK_NOFILE_SOFT];
    struct probe_check *hard = &r->checks[CHECK_NOFILE_HARD];
    struct probe_check *nr = &r->checks[CHECK_NR_OPEN];
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
        set_failed(soft, errno, "getrlimit(RLIMIT_NOFILE)");
        set_failed(hard, soft->errnum, "getrlimit(RLIMIT_NOFILE)");
    } else {
        struct probe_check *pair[2] = {soft, hard};
        rlim_t values[2] = {rl.rlim_cur, rl.rlim_max};
        for (int i = 0; i < 2; i++) {
            bool infinite = values[i] == RLIM_INFINITY;
            if (infinite)
                set_text(pair[i], xstrdup("unlimited"));
            else
                set_number(pair[i], (long long)values[i]);
            pair[i]->status = infinite || values[i] >= PROBE_NOFILE_ENOUGH ? PROBE_OK : PROBE_LOW;
            set_detail(pair[i], "RLIMIT_NOFILE %s limit, at least %d", i ? "hard" : "soft",
                       PROBE_NOFILE_ENOUGH);
        }
        if (soft->status == PROBE_LOW)
            set_detail(soft, "RLIMIT_NOFILE soft limit below %d: async runtimes fail with EMFILE "
                       "(sbx run --nofile max raises it to the hard limit)", PROBE_NOFILE_ENOUGH);
        if (hard->status == PROBE_LOW)
            set_detail(hard, "RLIMIT_NOFILE hard limit below %d: only root can raise it "
                       "(up to fs.nr_open)", PROBE_NOFILE_ENOUGH);
    }
    r->nr_open = read_sysctl("/proc/sys/fs/nr_open");
    if (r->nr_open < 0) {
        set_failed(nr, errno ? errno : ENOENT, "read /proc/sys/fs/nr_open");
        nr->status = PROBE_UNAVAILABLE;
    } else {
        nr->status = PROBE_INFO;
        set_number(nr, r->nr_open);
        set_detail(nr, "fs.nr_open: the most root can raise RLIMIT_NOFILE to");
    }
}

/* Seccomp and NoNewPrivs lines of /proc/self/status. */
static void check_process_status(struct probe_results *r)
{
    struct probe_check *sc = &r->checks[CHECK_SECCOMP];
    struct probe_check *nnp = &r->checks[CHECK_NO_NEW_PRIVS];
    char *status = read_file_text("/proc/self/status", 1 << 20, NULL);
    if (!status) {
        set_failed(sc, errno, "read /proc/self/status");
        set_failed(nnp, sc->errnum, "read /proc/self/status");
        sc->status = nnp->status = PROBE_UNAVAILABLE;
        return;
    }
    long long mode = -1, filters = -1, no_new_privs = -1;
    for (char *line = strtok(status, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "Seccomp:", 8))
            mode = strtoll(line + 8, NULL, 10);
        else if (!strncmp(line, "Seccomp_filters:", 16))
            filters = strtoll(line + 16, NULL, 10);
        else if (!strncmp(line, "NoNewPrivs:", 11))
            no_new_privs = strtoll(line + 11, NULL, 10);
    }
    free(status);
    if (mode < 0) {
        sc->status = PROBE_UNAVAILABLE;
        set_detail(sc, "no Seccomp line in /proc/self/status (kernel without CONFIG_SECCOMP)");
    } else {
        sc->status = PROBE_INFO;
        set_text(sc, xstrdup(mode == 0 ? "none" : mode == 1 ? "strict" : "filter"));
        if (mode == 2 && filters >= 0)
            set_detail(sc, "%lld seccomp filter%s inherited: it may deny socket, bind or unshare "
                       "with EPERM", filters, filters == 1 ? "" : "s");
        else if (mode == 2)
            set_detail(sc, "a seccomp filter is inherited: it may deny socket, bind or unshare");
        else
            set_detail(sc, "no seccomp filter inherited");
    }
    if (no_new_privs < 0) {
        nnp->status = PROBE_UNAVAILABLE;
        set_detail(nnp, "no NoNewPrivs line in /proc/self/status (kernel before 4.10)");
    } else {
        nnp->status = PROBE_INFO;
        set_number(nnp, no_new_privs);
        set_detail(nnp, no_new_privs ? "no_new_privs is set: setuid binaries do not gain privileges"
                                     : "no_new_privs is not set");
    }
}

static void check_landlock(struct probe_check *c)
{
#ifdef SYS_landlock_create_ruleset
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
#else
    long abi = -1;
    errno = ENOSYS;
#endif
    if (abi < 0) {
        int e = errno;
        set_failed(c, e, "landlock_create_ruleset(LANDLOCK_CREATE_RULESET_VERSION)");
        if (e == EOPNOTSUPP)
            set_detail(c, "Landlock is built in but disabled at boot (add landlock to lsm=)");
        else if (e == ENOSYS)
            set_detail(c, "the kernel has no Landlock (before 5.13 or CONFIG_SECURITY_LANDLOCK off)");
        return;
    }
    c->status = PROBE_OK;
    set_number(c, abi);
    set_detail(c, "Landlock ABI version %ld", abi);
}

/* Strips a trailing newline in place. */
static char *chomp(char *s)
{
    if (s) {
        size_t n = strlen(s);
        while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
            s[--n] = '\0';
    }
    return s;
}

static void check_hints(struct probe_results *r)
{
    struct probe_check *ct = &r->checks[CHECK_CONTAINER];
    struct probe_check *in = &r->checks[CHECK_INSIDE_SBX];
    r->dockerenv = access("/.dockerenv", F_OK) == 0;
    bool containerenv = access("/run/.containerenv", F_OK) == 0;
    const char *env = getenv("container");
    if (env && *env)
        r->container_env = xstrdup(env);
    else {
        /* PID 1's environment is readable only to root of its namespace;
         * container= is set there by systemd-nspawn, podman and LXC. */
        size_t len;
        char *environ1 = read_file_text("/proc/1/environ", 1 << 20, &len);
        for (size_t i = 0; environ1 && i < len; i += strlen(environ1 + i) + 1)
            if (!strncmp(environ1 + i, "container=", 10) && environ1[i + 10]) {
                r->container_env = xstrdup(environ1 + i + 10);
                break;
            }
        free(environ1);
    }
    r->pid1_comm = chomp(read_file_text("/proc/1/comm", 4096, NULL));
    const char *profile = getenv("SBX_PROFILE");
    if (profile && *profile)
        r->sbx_profile = xstrdup(profile);

    char *found = xstrdup("");
#define ADD_FOUND(...)                                                       \
    do {                                                                     \
        char *f_ = xasprintf(__VA_ARGS__);                                   \
        char *n_ = xasprintf("%s%s%s", found, *found ? ", " : "", f_);       \
        free(f_);                                                            \
        free(found);                                                         \
        found = n_;                                                          \
    } while (0)
    if (r->dockerenv)
        ADD_FOUND("docker (/.dockerenv)");
    if (containerenv)
        ADD_FOUND("podman (/run/.containerenv)");
    if (r->container_env)
        ADD_FOUND("container=%s", r->container_env);
#undef ADD_FOUND
    ct->status = PROBE_INFO;
    set_text(ct, *found ? xstrdup(found) : xstrdup("none"));
    set_detail(ct, "%s%sPID 1 is \"%s\"", *found ? found : "no container marker found",
               "; ", r->pid1_comm ? r->pid1_comm : "(unreadable)");
    free(found);

    /* sbx sets container=sbx and SBX_PROFILE inside every sandbox; outside,
     * SBX_PROFILE alone may just name the default profile for sbx run. */
    in->status = PROBE_INFO;
    bool sbx_container = r->container_env && !strcmp(r->container_env, "sbx");
    if (sbx_container) {
        set_text(in, xstrdup(r->sbx_profile ? r->sbx_profile : "unknown"));
        set_detail(in, "container=sbx: inside sbx, profile %s",
                   r->sbx_profile ? r->sbx_profile : "not named (SBX_PROFILE unset)");
    } else if (r->sbx_profile) {
        set_detail(in, "not inside sbx (no container=sbx); SBX_PROFILE=%s names the default "
                   "profile for sbx run", r->sbx_profile);
    } else {
        set_detail(in, "not inside sbx: no container=sbx, no SBX_PROFILE");
    }
}

/* What a command run here can read. Outside sbx: everything a command run
 * without a sandbox would get; inside (probe --profile P): what P leaves. */
static void check_credentials(struct probe_results *r, const char *scan_cwd)
{
    struct probe_check *c = &r->checks[CHECK_CREDENTIALS];
    char cwd[4096];
    if (!scan_cwd)
        scan_cwd = getcwd(cwd, sizeof cwd);
    /* "/" would walk /proc and /sys into the bounds and find nothing */
    if (scan_cwd && !strcmp(scan_cwd, "/"))
        scan_cwd = NULL;
    cred_scan_run(&r->creds, getenv("HOME"), scan_cwd);
    const struct cred_scan *s = &r->creds;
    set_number(c, (long long)s->n);
    bool inside = r->checks[CHECK_INSIDE_SBX].text != NULL;
    char *bound = s->complete ? xstrdup("")
                              : xasprintf("; the walk stopped at %s, more may be readable", s->stopped_by);
    if (!s->n) {
        c->status = PROBE_OK;
        set_detail(c, "no credential-like file readable under $HOME%s or the known stores%s",
                   s->roots[1] ? ", the working directory" : "", bound);
    } else {
        c->status = PROBE_EXPOSED;
        set_detail(c, "%zu credential-like file%s readable %s%s", s->n, s->n == 1 ? "" : "s",
                   inside ? "inside this sandbox: hide them in the profile (hide? = PATH)"
                          : "here: a command run without a sandbox reads them "
                            "(sbx probe --profile P lists what P leaves)",
                   bound);
    }
    free(bound);
}

void probe_run(struct probe_results *r, const char *scan_cwd)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < CHECK_COUNT; i++) {
        r->checks[i].name = check_names[i];
        r->checks[i].required = check_required[i];
        r->checks[i].status = PROBE_UNAVAILABLE;
    }
    r->unprivileged_userns_clone = ns_read_sysctl("kernel/unprivileged_userns_clone");
    r->max_user_namespaces = ns_read_sysctl("user/max_user_namespaces");
    r->apparmor_restrict_userns = ns_read_sysctl("kernel/apparmor_restrict_unprivileged_userns");

    check_process_status(r);
    check_namespaces(r);
    check_apparmor(r);
    check_loopback(AF_INET, &r->checks[CHECK_LO4_BIND], &r->checks[CHECK_LO4_CONNECT]);
    check_loopback(AF_INET6, &r->checks[CHECK_LO6_BIND], &r->checks[CHECK_LO6_CONNECT]);
    check_unix(&r->checks[CHECK_UNIX_BIND], &r->checks[CHECK_UNIX_CONNECT]);
    check_nofile(r);
    check_landlock(&r->checks[CHECK_LANDLOCK]);
    check_hints(r);
    check_credentials(r, scan_cwd);

    probe_verdicts(r);
}

void probe_results_free(struct probe_results *r)
{
    for (int i = 0; i < CHECK_COUNT; i++) {
        free(r->checks[i].text);
        free(r->checks[i].detail);
    }
    free(r->container_env);
    free(r->pid1_comm);
    free(r->sbx_profile);
    free(r->network.reason);
    free(r->descriptors.reason);
    free(r->sandbox.reason);
    cred_scan_free(&r->creds);
    memset(r, 0, sizeof *r);
}
