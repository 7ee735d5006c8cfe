#include "config.h"

#include "net_families.h"
#include "seccomp.h"

#include "caps.h"
#include "log.h"
#include "ns.h"
#include "seccomp_observe.h"
#include "seccomp_cache.h"
#include "seccomp_packet.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Numbers libseccomp 2.5.4 (Debian 12) may not know. Since Linux 5.1
 * (424) new calls have one number on every architecture; x32 adds
 * __X32_SYSCALL_BIT. */
#define NR_FCHMODAT2 452  /* Linux 6.6 */
#define NR_SETXATTRAT 463 /* Linux 6.13 */
#define X32_SYSCALL_BIT 0x40000000u
#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

/* The unconditional part of the default deny-list (see seccomp.h). */
static const char *const default_denied_calls[] = {
    "keyctl", "add_key", "request_key",
    "bpf", "perf_event_open", "userfaultfd",
    "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module",
    "open_by_handle_at",
};

bool seccomp_syscall_has_family(const char *name)
{
    /* socket/socketpair from their first argument, the others from the
     * socket descriptor they act on */
    return net_call_takes_family(name) || net_call_on_socket(name);
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

/* A filter's rules as data, in the order they are added: what libseccomp
 * compiles (rules_compile) and, for the cache, what the program is keyed
 * by (seccomp_cache.h). */
struct rule {
    uint32_t action;
    int nr;
    unsigned n_args;
    struct scmp_arg_cmp args[2];
    const char *name, *why;  /* for the message of a rule libseccomp refuses */
    bool why_owned;
};
struct rules {
    struct rule *v;
    size_t n, cap;
};

static void rule_add_owned(struct rules *ctx, uint32_t action, const char *name,
                           unsigned n_args, const struct scmp_arg_cmp *args,
                           const char *why, bool own_why)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR)
        die("seccomp: %s: unknown system call '%s'", why, name);
    if (n_args > 2)
        die("seccomp: internal error: a rule with %u comparisons", n_args);
    if (ctx->n == ctx->cap) {
        ctx->cap = ctx->cap ? 2 * ctx->cap : 64;
        ctx->v = xrealloc(ctx->v, ctx->cap * sizeof *ctx->v);
    }
    struct rule *r = &ctx->v[ctx->n++];
    memset(r, 0, sizeof *r);   /* the padding too: the key is these bytes */
    r->action = action;
    r->nr = nr;
    r->n_args = n_args;
    if (n_args)
        memcpy(r->args, args, n_args * sizeof *args);
    r->name = name;
    r->why = own_why ? xstrdup(why) : why;
    r->why_owned = own_why;
}

static void rule_add(struct rules *ctx, uint32_t action, const char *name,
                     unsigned n_args, const struct scmp_arg_cmp *args,
                     const char *why)
{
    rule_add_owned(ctx, action, name, n_args, args, why, false);
}

static void rules_free(struct rules *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        if (rs->v[i].why_owned)
            free((char *)rs->v[i].why);
    free(rs->v);
    memset(rs, 0, sizeof *rs);
}

/* Adds `action` for `name` when arguments `a` and `b` (a < 0: none) both
 * have one of the bits: one rule per (bit of a, bit of b), as a
 * libseccomp rule ANDs its comparisons and rules OR. Only the masked
 * bits are compared, so garbage in an int argument's upper half (the
 * kernel truncates it) cannot hide them. */
static void rule_add_any_bits(struct rules *ctx, uint32_t action, const char *name,
                              int a, const uint64_t *a_bits, size_t na,
                              unsigned b, const uint64_t *b_bits, size_t nb, const char *why)
{
    for (size_t i = 0; i < (a < 0 ? 1 : na); i++)
        for (size_t j = 0; j < nb; j++) {
            struct scmp_arg_cmp cmp[2];
            unsigned n = 0;
            if (a >= 0)
                cmp[n++] = (struct scmp_arg_cmp){ (unsigned)a, SCMP_CMP_MASKED_EQ, a_bits[i], a_bits[i] };
            cmp[n++] = (struct scmp_arg_cmp){ b, SCMP_CMP_MASKED_EQ, b_bits[j], b_bits[j] };
            rule_add(ctx, action, name, n, cmp, why);
        }
}

/* Asking for S_ISUID or S_ISGID (see seccomp.h for why). */
static void add_setid_mode_denials(struct rules *ctx, const struct profile *p)
{
    const uint32_t deny = SCMP_ACT_ERRNO(EPERM);
    const char *why = "default deny-list: set-user/group-ID modes";
    static const uint64_t setid[] = { S_ISUID, S_ISGID };
    static const uint64_t creating[] = { O_CREAT, __O_TMPFILE };
    static const struct { const char *name; unsigned mode_arg; } mode_calls[] = {
        { "chmod", 1 }, { "fchmod", 1 }, { "fchmodat", 2 }, { "fchmodat2", 2 },
        { "creat", 1 }, { "mkdir", 1 }, { "mkdirat", 2 }, { "mknod", 1 }, { "mknodat", 2 },
    };
    for (size_t i = 0; i < sizeof mode_calls / sizeof mode_calls[0]; i++) {
        const char *name = mode_calls[i].name;
        if (deny_rule_names(p, name))
            continue;
        /* A name libseccomp does not know (fchmodat2 before 2.5.5) goes
         * to raw_filter_install(). */
        if (seccomp_syscall_resolve_name(name) == __NR_SCMP_ERROR)
            continue;
        rule_add_any_bits(ctx, deny, name, -1, NULL, 0, mode_calls[i].mode_arg, setid, 2, why);
    }
    /* open/openat take the mode only with O_CREAT or O_TMPFILE (the kernel
     * ignores it otherwise, and a read-only open passes garbage there). */
    if (!deny_rule_names(p, "open"))
        rule_add_any_bits(ctx, deny, "open", 1, creating, 2, 2, setid, 2, why);
    if (!deny_rule_names(p, "openat"))
        rule_add_any_bits(ctx, deny, "openat", 2, creating, 2, 3, setid, 2, why);
    /* openat2's flags and mode are in a struct open_how BPF cannot read:
     * ENOSYS, as for a kernel before 5.6, and callers fall back to openat. */
    if (!deny_rule_names(p, "openat2"))
        rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), "openat2", 0, NULL, why);
}

/* True when the command could write file capabilities the host honours
 * (seccomp.h): its kernel uid is 0 and it holds CAP_SETFCAP in a user
 * namespace that maps kuid 0, by `capabilities =` in sbx's own, or in a
 * nested one whose root it maps to itself (Linux 5.12 made that mapping
 * need CAP_SETFCAP in the parent, commit db2e718a4798). */
static bool can_write_host_file_caps(const struct profile *p, bool caller_is_root)
{
    return caller_is_root &&
           (privileges_keep(p, CAP_SETFCAP) || (p->nested_userns && !kernel_at_least(5, 12)));
}

/* The extended-attribute writes (seccomp.h: file capabilities). */
static void add_xattr_denials(struct rules *ctx, const struct profile *p)
{
    const char *why = "default deny-list: extended attributes for a root caller";
    static const char *const calls[] = { "setxattr", "lsetxattr", "fsetxattr", "setxattrat" };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        if (deny_rule_names(p, calls[i]))
            continue;
        /* setxattrat is unknown to libseccomp 2.5.4: raw_filter_install(). */
        if (seccomp_syscall_resolve_name(calls[i]) != __NR_SCMP_ERROR)
            rule_add(ctx, SCMP_ACT_ERRNO(EPERM), calls[i], 0, NULL, why);
    }
}

static void add_default_deny_list(struct rules *ctx, const struct profile *p, bool caller_is_root)
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

    /* New cgroup namespaces, whatever nested_userns says (seccomp.h). */
    struct scmp_arg_cmp newcgroup = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWCGROUP, CLONE_NEWCGROUP);
    if (!deny_rule_names(p, "unshare"))
        rule_add(ctx, deny, "unshare", 1, &newcgroup, "default deny-list: cgroup namespaces");
    if (!deny_rule_names(p, "clone"))
        rule_add(ctx, deny, "clone", 1, &newcgroup, "default deny-list: cgroup namespaces");
    /* clone3 passes its flags in memory BPF cannot read. ENOSYS makes
     * glibc (and other runtimes) fall back to clone, which we can. */
    if (!deny_rule_names(p, "clone3"))
        rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL, "default deny-list: clone3");

    if (!p->nested_userns) {
        const char *nested = "nested_userns = no";
        struct scmp_arg_cmp newuser = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER);
        if (!deny_rule_names(p, "unshare"))
            rule_add(ctx, deny, "unshare", 1, &newuser, nested);
        if (!deny_rule_names(p, "clone"))
            rule_add(ctx, deny, "clone", 1, &newuser, nested);
    }

    add_setid_mode_denials(ctx, p);
    if (can_write_host_file_caps(p, caller_is_root))
        add_xattr_denials(ctx, p);
}

/* io_uring: its operations (IORING_OP_CONNECT, _OPENAT, _SETXATTR, ...)
 * are performed by the kernel without passing the filter. */
static void add_io_uring_denial(struct rules *ctx, const struct profile *p)
{
    static const char *const calls[] = { "io_uring_setup", "io_uring_enter", "io_uring_register" };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (!deny_rule_names(p, calls[i]))
            rule_add(ctx, SCMP_ACT_ERRNO(EPERM), calls[i], 0, NULL,
                     p->ndeny ? "deny rules: io_uring" : "default deny-list: io_uring");
}

/* Calls of the default deny-list that libseccomp may not know by name,
 * and so cannot put on every ABI (it translates rules through names): the
 * unified number, the mode argument compared (-1: the whole call), and
 * when the entry applies. */
struct unnamed_call {
    const char *name;
    unsigned nr;
    int mode_arg;
    bool file_caps_only;
};
static const struct unnamed_call unnamed_calls[] = {
    { "fchmodat2", NR_FCHMODAT2, 2, false },
    { "setxattrat", NR_SETXATTRAT, -1, true }, /* can_write_host_file_caps() */
};

/* A second, hand-written filter for the unnamed_calls this libseccomp
 * does not know, on x86_64, x32 and i386. The kernel runs every filter
 * and keeps the strictest answer, so this one only adds its denials; a
 * foreign ABI is the first filter's (killed). */
static void raw_filter_build(const struct profile *p, bool caller_is_root, struct sock_fprog *out)
{
    out->len = 0;
    out->filter = NULL;
#if defined(__x86_64__)
    enum { N = sizeof unnamed_calls / sizeof unnamed_calls[0] };
    const struct unnamed_call *todo[N];
    size_t n = 0;
    for (size_t i = 0; i < sizeof unnamed_calls / sizeof unnamed_calls[0]; i++) {
        const struct unnamed_call *c = &unnamed_calls[i];
        if (seccomp_syscall_resolve_name(c->name) == __NR_SCMP_ERROR && !deny_rule_names(p, c->name) &&
            (!c->file_caps_only || can_write_host_file_caps(p, caller_is_root)))
            todo[n++] = c;
    }
    if (!n)
        return;
    /* Layout: arch dispatch (3), the x86_64/x32 block (1 + 2n + 1), the
     * i386 block (1 + n + 1), then per call a checker (2 for a mode, 0 for
     * a whole call, which jumps to DENY), then DENY and ALLOW. */
    struct sock_filter f[3 + (2 + 2 * N) + (2 + N) + 2 * N + 2];
    size_t k = 0;
    const uint32_t deny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
    size_t checks = 3 + (2 + 2 * n) + (2 + n), check_at[N];
    size_t at = checks;
    for (size_t i = 0; i < n; i++) {
        check_at[i] = at;
        at += todo[i]->mode_arg < 0 ? 0 : 2;
    }
    size_t deny_at = at, allow_at = at + 1;
    /* conditional jumps are relative to the next instruction */
#define REL(target) ((uint8_t)((target) - (k + 1)))
#define TARGET(i) (todo[i]->mode_arg < 0 ? deny_at : check_at[i])
    size_t block64 = 3, block32 = 3 + 2 + 2 * n;
    f[k] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)); k++;
    f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, REL(block64), 0); k++;
    f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, REL(block32), REL(allow_at)); k++;
    f[k] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)); k++;
    for (size_t i = 0; i < n; i++) {
        f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, todo[i]->nr, REL(TARGET(i)), 0); k++;
        f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, todo[i]->nr | X32_SYSCALL_BIT,
                                            REL(TARGET(i)), 0); k++;
    }
    f[k] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW); k++;
    f[k] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)); k++;
    for (size_t i = 0; i < n; i++) {
        f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, todo[i]->nr, REL(TARGET(i)), 0); k++;
    }
    f[k] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW); k++;
    for (size_t i = 0; i < n; i++) {
        if (todo[i]->mode_arg < 0)
            continue;
        /* the low word of the argument (little-endian): a mode is 16 bits */
        f[k] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                            offsetof(struct seccomp_data, args) + 8 * (unsigned)todo[i]->mode_arg); k++;
        f[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, S_ISUID | S_ISGID,
                                            REL(deny_at), REL(allow_at)); k++;
    }
    f[k] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, deny); k++;
    f[k] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW); k++;
#undef REL
#undef TARGET
    out->len = (unsigned short)k;
    out->filter = xmalloc(k * sizeof *f);
    memcpy(out->filter, f, k * sizeof *f);
#else
    (void)p;
    (void)caller_is_root;
#endif
}

static char *deny_rule_label(const struct deny_rule *r)
{
    return r->at.file ? xasprintf("%s:%u: deny = %s", r->at.file, r->at.line,
                                  r->text ? r->text : r->syscall)
                      : xasprintf("deny = %s", r->text ? r->text : r->syscall);
}

void seccomp_check(const struct profile *p)
{
    if (seccomp_needs_listener(p) && p->io_uring)
        die("seccomp: io_uring = yes with %zu deny rule(s): io_uring operations bypass them; "
            "drop io_uring = yes or the deny rules", p->ndeny);
    for (size_t i = 0; i < p->ndeny; i++) {
        const struct deny_rule *r = &p->deny[i];
        if (r->errnum <= 0 || r->errnum > 4095) {
            autofree char *why = deny_rule_label(r);
            die("seccomp: %s: errno %d is not an error number", why, r->errnum);
        }
        if (r->families && !seccomp_syscall_has_family(r->syscall)) {
            autofree char *why = deny_rule_label(r);
            die("seccomp: %s: address families apply to socket calls only "
                "(socket, bind, connect, sendto, ...), not to %s", why, r->syscall);
        }
    }
}

static void add_deny_rules(struct rules *ctx, const struct profile *p, int handoff_sock,
                           const struct msghdr *handoff_msg)
{
    for (size_t i = 0; i < p->ndeny; i++) {
        const struct deny_rule *r = &p->deny[i];
        char *why = deny_rule_label(r);
        if (r->families && net_call_takes_family(r->syscall)) {
            /* BPF sees the family: only those calls wake the supervisor. */
            for (int family = 0; family < 64; family++) {
                if (!(r->families & (UINT64_C(1) << family)))
                    continue;
                struct scmp_arg_cmp arg = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)family);
                rule_add_owned(ctx, SCMP_ACT_NOTIFY, r->syscall, 1, &arg, why, true);
            }
        } else if (r->with_address && strcmp(r->syscall, "sendto") == 0) {
            struct scmp_arg_cmp named = SCMP_A4(SCMP_CMP_NE, 0);
            rule_add_owned(ctx, SCMP_ACT_NOTIFY, r->syscall, 1, &named, why, true);
        } else if (strcmp(r->syscall, "sendmsg") == 0) {
            /* The listener itself travels by sendmsg() after the filter is
             * loaded: notifying that call would wait forever for a
             * supervisor that does not have the listener yet. Only the
             * exact call is let through: this fd *and* this msghdr, at a
             * random address the exec'd command cannot search for
             * (struct handoff below), so its own sendmsg on a socket that
             * happens to get the same fd number is still notified. */
            struct scmp_arg_cmp other_fd = SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)handoff_sock);
            struct scmp_arg_cmp same_fd[2] = {
                SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)handoff_sock),
                SCMP_A1(SCMP_CMP_NE, (scmp_datum_t)(uintptr_t)handoff_msg),
            };
            rule_add_owned(ctx, SCMP_ACT_NOTIFY, r->syscall, 1, &other_fd, why, true);
            rule_add_owned(ctx, SCMP_ACT_NOTIFY, r->syscall, 2, same_fd, why, true);
        } else {
            rule_add_owned(ctx, SCMP_ACT_NOTIFY, r->syscall, 0, NULL, why, true);
        }
        free(why);
    }
}

/* The write observer's calls (seccomp_observe.h), in the deny rules'
 * filter that holds the listener; a call a deny rule names is that
 * rule's already. */
static void add_observer_rules(struct rules *ctx, const struct profile *p)
{
    static const uint64_t write_flags[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, __O_TMPFILE };
    const char *why = "observe_writes";
    size_t n;
    const struct observe_call *calls = seccomp_observe_calls(&n);
    for (size_t i = 0; i < n; i++) {
        const struct observe_call *c = &calls[i];
        if (deny_rule_names(p, c->name) || seccomp_syscall_resolve_name(c->name) == __NR_SCMP_ERROR)
            continue;
        if (c->op == OBSERVE_OPEN && c->flags >= 0) {
            rule_add_any_bits(ctx, SCMP_ACT_NOTIFY, c->name, -1, NULL, 0, (unsigned)c->flags,
                              write_flags, sizeof write_flags / sizeof write_flags[0], why);
        } else if (c->nonnull >= 0) {
            struct scmp_arg_cmp path = { (unsigned)c->nonnull, SCMP_CMP_NE, 0, 0 };
            rule_add(ctx, SCMP_ACT_NOTIFY, c->name, 1, &path, why);
        } else {
            rule_add(ctx, SCMP_ACT_NOTIFY, c->name, 0, NULL, why);
        }
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
 * can name its address (see add_deny_rules). The supervisor compiles the
 * filter before clone(), and the command, a copy of that address space
 * (clone, then vfork), sends it from the same address.
 *
 * That address is the only thing that tells sbx's one sendmsg() from the
 * command's own after exec: a command that put a msghdr at the same
 * address and sent it on a socket with the channel's fd number would not
 * be stopped by a deny rule on sendmsg. So the address must be a secret
 * the command cannot search: a page at a random address of the whole
 * user range (about 35 bits on x86_64) and a random offset in it, not the
 * heap (brk is randomised over 32 MB: 13 bits, searched in a moment) nor
 * the stack (about 30 bits). */
struct handoff {
    struct msghdr msg;
    struct iovec iov;
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    size_t len;
    char message[64];
    void *page;            /* the mapping holding this struct */
};

#define HANDOFF_PAGE 4096u

static void *random_page(void)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
            break;
        /* within [2^40, 2^46): clear of the low mappings and the top of
         * the 47-bit user range where the stack and mmap base live */
        uintptr_t addr = (uintptr_t)((UINT64_C(1) << 40) + (r % ((UINT64_C(1) << 46) - (UINT64_C(1) << 40))));
        addr &= ~(uintptr_t)(HANDOFF_PAGE - 1);
        void *p = mmap((void *)addr, HANDOFF_PAGE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == (void *)addr)
            return p;
        if (p != MAP_FAILED)
            munmap(p, HANDOFF_PAGE); /* a kernel that ignored the flag put it elsewhere */
    }
    /* ordinary mmap randomisation (28 bits) rather than nothing */
    void *p = mmap(NULL, HANDOFF_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        die_errno("seccomp: mapping the page for the listener's handoff");
    return p;
}

static struct handoff *handoff_new(const void *message, size_t len)
{
    if (len > sizeof ((struct handoff *)0)->message)
        die("seccomp: internal error: a handoff message of %zu bytes", len);
    void *page = random_page();
    uint32_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        r = 0;
    size_t slots = (HANDOFF_PAGE - sizeof(struct handoff)) / 16 + 1;
    struct handoff *h = (struct handoff *)((char *)page + (r % slots) * 16);
    memset(h, 0, sizeof *h);
    h->page = page;
    memcpy(h->message, message, len);
    h->len = len;
    h->iov.iov_base = h->message;
    h->iov.iov_len = len;
    h->msg.msg_iov = &h->iov;
    h->msg.msg_iovlen = 1;
    h->msg.msg_control = h->control.buf;
    h->msg.msg_controllen = sizeof h->control.buf;
    return h;
}

const void *seccomp_program_handoff(const struct seccomp_program *prog)
{
    return prog->handoff ? (const void *)&prog->handoff->msg : NULL;
}

static void handoff_free(struct handoff *h)
{
    if (h)
        munmap(h->page, HANDOFF_PAGE);
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

/* libseccomp 2.5 exports a program to a descriptor only: a memfd, read
 * back. */
static void export_program(scmp_filter_ctx ctx, struct sock_fprog *out)
{
    autoclose int fd = memfd_create("sbx-seccomp", MFD_CLOEXEC);
    if (fd < 0)
        die_errno("seccomp: memfd_create for the compiled filter");
    int rc = seccomp_export_bpf(ctx, fd);
    if (rc < 0)
        die_with_errno(-rc, "seccomp: compiling the filter failed (libseccomp seccomp_export_bpf)");
    off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0 || size % (off_t)sizeof(struct sock_filter) ||
        size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
        die("seccomp: the compiled filter has %lld bytes, not a program the kernel takes",
            (long long)size);
    out->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
    out->filter = xmalloc((size_t)size);
    if (pread(fd, out->filter, (size_t)size, 0) != (ssize_t)size)
        die_errno("seccomp: reading the compiled filter back");
}

static scmp_filter_ctx new_filter(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        die("seccomp: creating the filter failed (libseccomp seccomp_init)");
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    if (rc < 0)
        die_with_errno(-rc, "seccomp: setting the foreign-architecture action failed");
    add_architectures(ctx);
    return ctx;
}

/* libseccomp compiles the rules: the program, exported. */
static void rules_compile(const struct rules *rs, struct sock_fprog *out)
{
    scmp_filter_ctx ctx = new_filter();
    for (size_t i = 0; i < rs->n; i++) {
        const struct rule *r = &rs->v[i];
        int rc = seccomp_rule_add_array(ctx, r->action, r->nr, r->n_args, r->args);
        /* EEXIST: an identical rule is already there (two deny lines naming
         * the same call and family), which is what we want. */
        if (rc < 0 && rc != -EEXIST)
            die_with_errno(-rc, "seccomp: %s: adding the rule for %s failed", r->why, r->name);
    }
    export_program(ctx, out);
    seccomp_release(ctx);
}

/* The GNU build-id note of the running binary (the linker's hash of its
 * code and data), which stands for everything in sbx that shapes a
 * program beyond the rules (new_filter's attributes, add_architectures).
 * 0 bytes: none, and nothing is cached. */
struct build_id {
    unsigned char id[64];
    size_t len;
};
static int find_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct build_id *b = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        size_t left = ph->p_memsz;
        while (left >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            size_t name = (nh->n_namesz + 3u) & ~3u, desc = (nh->n_descsz + 3u) & ~3u;
            size_t all = sizeof *nh + name + desc;
            if (all > left)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                !memcmp(p + sizeof *nh, "GNU", 4) && nh->n_descsz <= sizeof b->id) {
                memcpy(b->id, p + sizeof *nh + name, nh->n_descsz);
                b->len = nh->n_descsz;
                return 1;
            }
            p += all;
            left -= all;
        }
    }
    return 1; /* the first object is the program itself: only it counts */
}

/* The key of a program: every input that shapes what libseccomp exports
 * (seccomp_cache.h). False when one is unknown: then nothing is cached. */
static bool program_key(const struct rules *rs, struct seccomp_cache_key *k)
{
    static const char tag[] = "sbx seccomp filter v1";
    struct build_id b = { .len = 0 };
    dl_iterate_phdr(find_build_id, &b);
    if (!b.len)
        return false;
    const struct scmp_version *v = seccomp_version();
    struct utsname u;
    memset(&u, 0, sizeof u); /* the key holds the fields whole */
    if (!v || uname(&u) < 0)
        return false;
    uint32_t header[6] = { (uint32_t)b.len, v->major, v->minor, v->micro, seccomp_api_get(),
                           seccomp_arch_native() };
    seccomp_cache_key_add(k, tag, sizeof tag);
    seccomp_cache_key_add(k, header, sizeof header);
    seccomp_cache_key_add(k, b.id, b.len);
    seccomp_cache_key_add(k, u.machine, sizeof u.machine);
    seccomp_cache_key_add(k, u.release, sizeof u.release);
    /* the rules as data: action, number, comparisons (zeroed padding:
     * rule_add_owned), never the messages */
    for (size_t i = 0; i < rs->n; i++) {
        const struct rule *r = &rs->v[i];
        uint32_t head[3] = { r->action, (uint32_t)r->nr, r->n_args };
        seccomp_cache_key_add(k, head, sizeof head);
        for (unsigned j = 0; j < 2; j++) {
            uint64_t cmp[4] = { r->args[j].arg, r->args[j].op, r->args[j].datum_a, r->args[j].datum_b };
            seccomp_cache_key_add(k, cmp, sizeof cmp);
        }
    }
    return !k->too_long;
}

static char *cache_dir;   /* seccomp_use_cache(); NULL: every program compiled */

void seccomp_use_cache(const char *dir)
{
    free(cache_dir);
    cache_dir = dir ? xstrdup(dir) : NULL;
}

/* The program of rs: from the cache when an entry verifies, else compiled
 * by libseccomp and kept for the next run. note says which, and why. */
static void rules_program(const struct rules *rs, struct sock_fprog *out, char *note, size_t size)
{
    snprintf(note, size, "compiled");
    struct seccomp_cache_key k = { 0 };
    int dirfd = -1;
    const char *why = NULL;
    if (cache_dir && program_key(rs, &k)) {
        dirfd = seccomp_cache_open_dir(cache_dir, true, &why);
        if (dirfd < 0)
            snprintf(note, size, "compiled: the cache directory %s is not used: %s", cache_dir, why);
    }
    if (dirfd >= 0 && seccomp_cache_load(dirfd, &k, out, &why)) {
        snprintf(note, size, "from the cache");
    } else {
        if (dirfd >= 0)
            snprintf(note, size, strcmp(why, "no entry") ? "compiled: the cached one (%s) was rewritten"
                                                         : "compiled, and cached", why);
        rules_compile(rs, out);
        if (dirfd >= 0 && !seccomp_cache_store(dirfd, &k, out, &why))
            snprintf(note, size, "compiled: writing the cache in %s failed: %s", cache_dir, why);
    }
    if (dirfd >= 0)
        close(dirfd);
    seccomp_cache_key_free(&k);
}

void seccomp_compile(const struct profile *p, bool caller_is_root, int handoff_sock,
                     const void *message, size_t len, struct seccomp_program *out)
{
    seccomp_compile_observing(p, caller_is_root, handoff_sock, message, len, false, out);
}

void seccomp_compile_observing(const struct profile *p, bool caller_is_root, int handoff_sock,
                               const void *message, size_t len, bool observe,
                               struct seccomp_program *out)
{
    memset(out, 0, sizeof *out);
    bool notify = seccomp_needs_listener(p);
    if (p->seccomp == SECCOMP_NONE && !notify)
        return;
    seccomp_check(p);
    if (notify && (handoff_sock < 0 || !message || !len))
        die("seccomp: internal error: deny rules without a supervisor socket");
    out->active = true;
    out->notify = notify;
    out->ndeny = p->ndeny;
    if (notify)
        out->handoff = handoff_new(message, len);

    /* The deny rules in a filter of their own, which holds the listener:
     * the write observer's rules can join them there, and the default
     * deny-list's answers (EPERM) outrank their notifications whatever
     * filter they are in (the kernel keeps the strictest action). The
     * deny-list leaves out the calls a deny rule names, as before. */
    if (notify) {
        /* Never cached: it names the handoff socket and the handoff's
         * random address, which are this run's alone. */
        struct rules rules = { 0 };
        add_deny_rules(&rules, p, handoff_sock, &out->handoff->msg);
        if (observe && p->seccomp == SECCOMP_DEFAULT) {
            add_observer_rules(&rules, p);
            out->observing = true;
        }
        rules_compile(&rules, &out->listening);
        rules_free(&rules);
    }
    struct rules ctx = { 0 };
    if (p->seccomp == SECCOMP_DEFAULT)
        add_default_deny_list(&ctx, p, caller_is_root);
    /* Deny rules deny io_uring even under seccomp = none, or the ledger
     * would miss what goes through it. */
    if ((p->seccomp == SECCOMP_DEFAULT && !p->io_uring) || notify)
        add_io_uring_denial(&ctx, p);
    rules_program(&ctx, &out->filter, out->origin, sizeof out->origin);
    rules_free(&ctx);
    if (p->seccomp == SECCOMP_DEFAULT) {
        raw_filter_build(p, caller_is_root, &out->extra);
        seccomp_packet_filter_build(privileges_keep_net_raw(p, caller_is_root) ||
                                        seccomp_host_has_vsock(),
                                    &out->packet);
    }
    snprintf(out->summary, sizeof out->summary, "seccomp: %s%s%zu deny rule(s) through the supervisor",
             p->seccomp == SECCOMP_DEFAULT ? "default deny-list" : "no deny-list",
             p->nested_userns ? ", " : " (no nested user namespaces), ", p->ndeny);
}

bool seccomp_program_install(const struct seccomp_program *prog, int handoff_sock)
{
    if (!prog->active)
        return false;
    verbose_step("%s", prog->summary);
    /* As libseccomp's seccomp_load() does (SCMP_FLTATR_CTL_NNP): without
     * CAP_SYS_ADMIN the kernel takes a filter only under no_new_privs. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        die_errno("seccomp: prctl(PR_SET_NO_NEW_PRIVS) before loading the filter");
    long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog->filter);
    if (rc < 0) {
        int e = errno;
        die_with_errno(e, "seccomp: loading the filter failed%s",
                       e == EACCES ? " (no_new_privs is not set and the process lacks "
                                     "CAP_SYS_ADMIN)" : "");
    }
    if (prog->notify)
        rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                     &prog->listening);
    if (rc < 0) {
        int e = errno;
        if (prog->notify && e == EINVAL)
            die_with_errno(e, "seccomp: loading the filter with %zu deny rule(s) failed "
                           "(deny rules need seccomp user notification, Linux 5.5 or later)",
                           prog->ndeny);
        if (prog->notify && e == EBUSY)
            die_with_errno(e, "seccomp: loading the filter with %zu deny rule(s) failed: an outer "
                           "seccomp filter already has a notification listener (sbx inside sbx with "
                           "deny rules, [network] allow, or observe_writes?); the kernel allows one "
                           "per process: drop the inner deny rules, or set observe_writes = no in "
                           "[filesystem] of the outer profile when it has neither",
                           prog->ndeny);
        die_with_errno(e, "seccomp: loading the filter failed%s",
                       e == EACCES ? " (no_new_privs is not set and the process lacks CAP_SYS_ADMIN)" : "");
    }
    if (prog->notify) {
        int listener = (int)rc;
        handoff_send(prog->handoff, handoff_sock, listener);
        close(listener);
    }
    if (prog->extra.len &&
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog->extra) < 0)
        die_errno("seccomp: loading the filter for the calls libseccomp does not name failed");
    if (prog->packet.len &&
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog->packet) < 0)
        die_errno("seccomp: loading the filter for AF_PACKET and AF_XDP sockets failed");
    if (prog->inet.len &&
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog->inet) < 0)
        die_errno("seccomp: loading the filter for the Landlock tier's inet protocols failed");
    if (prog->observe.len) {
        long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                          &prog->observe);
        if (fd < 0 && errno != EBUSY && errno != EINVAL)
            die_errno("seccomp: loading the write observer's filter failed");
        if (fd >= 0) {
            handoff_send(prog->handoff, handoff_sock, (int)fd);
            close((int)fd);
            return true;
        }
    }
    return prog->notify;
}

bool seccomp_program_observe(struct seccomp_program *prog, int handoff_sock, const void *message,
                             size_t len)
{
    if (!prog->active || prog->notify || handoff_sock < 0 || !message || !len)
        return false;
    seccomp_observe_filter_build(&prog->observe);
    if (!prog->observe.len)
        return false;
    prog->handoff = handoff_new(message, len);
    return true;
}

void seccomp_program_free(struct seccomp_program *prog)
{
    free(prog->filter.filter);
    free(prog->listening.filter);
    free(prog->extra.filter);
    free(prog->packet.filter);
    free(prog->inet.filter);
    free(prog->observe.filter);
    handoff_free(prog->handoff);
    memset(prog, 0, sizeof *prog);
}

bool seccomp_install(const struct profile *p, bool caller_is_root, int handoff_sock,
                     const void *message, size_t len)
{
    struct seccomp_program prog;
    seccomp_compile(p, caller_is_root, handoff_sock, message, len, &prog);
    bool notify = seccomp_program_install(&prog, handoff_sock);
    seccomp_program_free(&prog);
    return notify;
}
