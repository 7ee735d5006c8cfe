#include "config.h"

#include "seccomp.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Calls whose family the supervisor can learn: socket/socketpair from
 * their first argument, the others from the socket fd they act on. */
static const char *const socket_calls_with_family_arg[] = { "socket", "socketpair" };
static const char *const socket_calls_on_fd[] = {
    "bind", "connect", "listen", "accept", "accept4", "sendto", "sendmsg",
    "sendmmsg", "recvfrom", "recvmsg", "recvmmsg", "getsockname",
    "getpeername", "setsockopt", "getsockopt", "shutdown",
};

/* The unconditional part of the default deny-list (see seccomp.h). */
static const char *const default_denied_calls[] = {
    "keyctl", "add_key", "request_key",
    "bpf", "perf_event_open", "userfaultfd",
    "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module",
    "open_by_handle_at",
};

static bool name_in(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0)
            return true;
    return false;
}

#define NAME_IN(name, list) name_in(name, list, sizeof(list) / sizeof((list)[0]))

bool seccomp_syscall_has_family(const char *name)
{
    return NAME_IN(name, socket_calls_with_family_arg) || NAME_IN(name, socket_calls_on_fd);
}

int seccomp_syscall_number(const char *name)
{
    int nr = seccomp_syscall_resolve_name(name);
    return nr < 0 ? -1 : nr;
}

bool seccomp_needs_listener(const struct profile *p)
{
    return p->ndeny > 0;
}

static bool deny_rule_names(const struct profile *p, const char *name)
{
    for (size_t i = 0; i < p->ndeny; i++)
        if (strcmp(p->deny[i].syscall, name) == 0)
            return true;
    return false;
}

static void rule_add(scmp_filter_ctx ctx, uint32_t action, const char *name,
                     unsigned n_args, const struct scmp_arg_cmp *args,
                     const char *why)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR)
        die("seccomp: %s: unknown system call '%s'", why, name);
    int rc = seccomp_rule_add_array(ctx, action, nr, n_args, args);
    /* EEXIST: an identical rule is already there (two deny lines naming the
     * same call and family), which is what we want. */
    if (rc < 0 && rc != -EEXIST)
        die_with_errno(-rc, "seccomp: %s: adding the rule for %s failed", why, name);
}

static void add_default_deny_list(scmp_filter_ctx ctx, const struct profile *p)
{
    const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
    const char *why = "default deny-list";

    /* A deny rule naming the same call denies all of it already (and would
     * conflict with a second action for that call in libseccomp). */
    for (size_t i = 0; i < sizeof default_denied_calls / sizeof default_denied_calls[0]; i++)
        if (!deny_rule_names(p, default_denied_calls[i]))
            rule_add(ctx, deny, default_denied_calls[i], 0, NULL, why);

    /* ioctl's request is an unsigned int in the kernel: compare the low 32
     * bits only, or TIOCSTI | (1 << 32) would slip past a 64-bit compare. */
    if (!deny_rule_names(p, "ioctl")) {
        struct scmp_arg_cmp sti = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI);
        struct scmp_arg_cmp linux_ioctl = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX);
        rule_add(ctx, deny, "ioctl", 1, &sti, why);
        rule_add(ctx, deny, "ioctl", 1, &linux_ioctl, why);
    }

    if (!p->nested_userns) {
        const char *nested = "nested_userns = no";
        struct scmp_arg_cmp newuser = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER);
        if (!deny_rule_names(p, "unshare"))
            rule_add(ctx, deny, "unshare", 1, &newuser, nested);
        if (!deny_rule_names(p, "clone"))
            rule_add(ctx, deny, "clone", 1, &newuser, nested);
        /* clone3 passes its flags in memory BPF cannot read. ENOSYS makes
         * glibc (and other runtimes) fall back to clone, which we can. */
        if (!deny_rule_names(p, "clone3"))
            rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL, nested);
    }
}

static void add_deny_rules(scmp_filter_ctx ctx, const struct profile *p, int handoff_sock,
                           const struct msghdr *handoff_msg)
{
    for (size_t i = 0; i < p->ndeny; i++) {
        const struct deny_rule *r = &p->deny[i];
        char *why = r->at.file ? xasprintf("%s:%u: deny = %s", r->at.file, r->at.line,
                                           r->text ? r->text : r->syscall)
                               : xasprintf("deny = %s", r->text ? r->text : r->syscall);

        if (r->errnum <= 0 || r->errnum > 4095)
            die("seccomp: %s: errno %d is not an error number", why, r->errnum);
        if (r->families && !seccomp_syscall_has_family(r->syscall))
            die("seccomp: %s: address families apply to socket calls only "
                "(socket, bind, connect, sendto, ...), not to %s", why, r->syscall);

        if (r->families && NAME_IN(r->syscall, socket_calls_with_family_arg)) {
            /* BPF sees the family: only those calls wake the supervisor. */
            for (int family = 0; family < 64; family++) {
                if (!(r->families & (UINT64_C(1) << family)))
                    continue;
                struct scmp_arg_cmp arg = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)family);
                rule_add(ctx, SCMP_ACT_NOTIFY, r->syscall, 1, &arg, why);
            }
        } else if (strcmp(r->syscall, "sendmsg") == 0) {
            /* The listener itself travels by sendmsg() after the filter is
             * loaded: notifying that call would wait forever for a
             * supervisor that does not have the listener yet. Only the
             * exact call is let through: this fd *and* this msghdr, an
             * address on our stack that the exec'd command cannot
             * meaningfully reuse (ASLR), so its own sendmsg on a socket
             * that happens to get the same fd number is still notified. */
            struct scmp_arg_cmp other_fd = SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)handoff_sock);
            struct scmp_arg_cmp same_fd[2] = {
                SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)handoff_sock),
                SCMP_A1(SCMP_CMP_NE, (scmp_datum_t)(uintptr_t)handoff_msg),
            };
            rule_add(ctx, SCMP_ACT_NOTIFY, r->syscall, 1, &other_fd, why);
            rule_add(ctx, SCMP_ACT_NOTIFY, r->syscall, 2, same_fd, why);
        } else {
            rule_add(ctx, SCMP_ACT_NOTIFY, r->syscall, 0, NULL, why);
        }
        free(why);
    }
}

static void add_architectures(scmp_filter_ctx ctx)
{
    /* The native ABI is in the context already. Every other ABI this
     * kernel can be entered through must be filtered too, or a 32-bit
     * `int 0x80` would bypass the rules written for the native numbers. */
#if defined(__x86_64__)
    static const uint32_t extra[] = { SCMP_ARCH_X86, SCMP_ARCH_X32 };
#elif defined(__aarch64__)
    static const uint32_t extra[] = { SCMP_ARCH_ARM };
#else
    static const uint32_t extra[] = { 0 };
#endif
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        if (!extra[i])
            continue;
        int rc = seccomp_arch_add(ctx, extra[i]);
        if (rc < 0 && rc != -EEXIST)
            die_with_errno(-rc, "seccomp: adding architecture 0x%x to the filter failed", extra[i]);
    }
}

/* The handoff message, laid out before the filter is built so the filter
 * can name its address (see add_deny_rules). */
struct handoff {
    struct msghdr msg;
    struct iovec iov;
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
};

static void handoff_prepare(struct handoff *h, const void *message, size_t len)
{
    memset(h, 0, sizeof *h);
    h->iov.iov_base = (void *)message;
    h->iov.iov_len = len;
    h->msg.msg_iov = &h->iov;
    h->msg.msg_iovlen = 1;
    h->msg.msg_control = h->control.buf;
    h->msg.msg_controllen = sizeof h->control.buf;
}

static void handoff_send(struct handoff *h, int sock, int listener)
{
    struct cmsghdr *c = CMSG_FIRSTHDR(&h->msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &listener, sizeof(int));
    ssize_t n;
    do
        n = sendmsg(sock, &h->msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)h->iov.iov_len)
        die_errno("seccomp: sending the notification listener to the supervisor failed");
}

int seccomp_listener_receive(int sock)
{
    char data[64];
    struct iovec iov = { .iov_base = data, .iov_len = sizeof data };
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1,
        .msg_control = control.buf, .msg_controllen = sizeof control.buf,
    };
    ssize_t n;
    do
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (n == 0 || !c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(sizeof(int))) {
        errno = ECONNRESET;
        return -1;
    }
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

bool seccomp_install(const struct profile *p, int handoff_sock, const void *message, size_t len)
{
    bool notify = seccomp_needs_listener(p);
    if (p->seccomp == SECCOMP_NONE && !notify)
        return false;
    if (notify && (handoff_sock < 0 || !message || !len))
        die("seccomp: internal error: deny rules without a supervisor socket");
    struct handoff handoff;
    handoff_prepare(&handoff, message, len);

    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        die("seccomp: creating the filter failed (libseccomp seccomp_init)");
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    if (rc < 0)
        die_with_errno(-rc, "seccomp: setting the foreign-architecture action failed");
    /* The kernel's own errno from seccomp_load (EBUSY, EINVAL), not
     * libseccomp's catch-all ECANCELED, so the diagnosis can be right. */
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
    if (rc < 0)
        die_with_errno(-rc, "seccomp: asking libseccomp for raw kernel errors failed");
    add_architectures(ctx);
    if (notify)
        add_deny_rules(ctx, p, handoff_sock, &handoff.msg);
    if (p->seccomp == SECCOMP_DEFAULT)
        add_default_deny_list(ctx, p);

    verbose_step("seccomp: %s%s%zu deny rule(s) through the supervisor",
                 p->seccomp == SECCOMP_DEFAULT ? "default deny-list" : "no deny-list",
                 p->nested_userns ? ", " : " (no nested user namespaces), ", p->ndeny);
    errno = 0;
    rc = seccomp_load(ctx);
    /* libseccomp 2.5.4 can return a stale code (EFAULT from its API probe)
     * when the load itself failed; errno still holds the kernel's answer. */
    int load_errno = errno;
    if (rc < 0 && load_errno > 0 && load_errno != -rc)
        rc = -load_errno;
    if (rc < 0) {
        if (notify && rc == -EINVAL)
            die_with_errno(-rc, "seccomp: loading the filter with %zu deny rule(s) failed "
                           "(deny rules need seccomp user notification, Linux 5.5 or later)",
                           p->ndeny);
        if (notify && rc == -EBUSY)
            die_with_errno(-rc, "seccomp: loading the filter with %zu deny rule(s) failed: an outer "
                           "seccomp filter already has a notification listener (sbx inside sbx with "
                           "deny rules?); the kernel allows one per process: drop the inner deny rules",
                           p->ndeny);
        die_with_errno(-rc, "seccomp: loading the filter failed%s",
                       rc == -EACCES ? " (no_new_privs is not set and the process lacks CAP_SYS_ADMIN)" : "");
    }
    if (notify) {
        int listener = seccomp_notify_fd(ctx);
        if (listener < 0)
            die_with_errno(-listener, "seccomp: the kernel returned no notification listener");
        handoff_send(&handoff, handoff_sock, listener);
        close(listener);
    }
    seccomp_release(ctx);
    return notify;
}
