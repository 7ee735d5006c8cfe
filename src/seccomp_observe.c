#include "config.h"

#include "seccomp_observe.h"

#include "log.h"
#include "util.h"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <string.h>

#define X32_SYSCALL_BIT 0x40000000u

static const struct observe_call calls[] = {
    { "open", OBSERVE_OPEN, -1, 0, -1, -1, 1, -1 },
    { "openat", OBSERVE_OPEN, 0, 1, -1, -1, 2, -1 },
    { "creat", OBSERVE_OPEN, -1, 0, -1, -1, -1, -1 },
    { "mkdir", OBSERVE_CREATE, -1, 0, -1, -1, -1, -1 },
    { "mkdirat", OBSERVE_CREATE, 0, 1, -1, -1, -1, -1 },
    { "mknod", OBSERVE_CREATE, -1, 0, -1, -1, -1, -1 },
    { "mknodat", OBSERVE_CREATE, 0, 1, -1, -1, -1, -1 },
    /* symlink(target, linkpath): the target is the link's content, not a path written */
    { "symlink", OBSERVE_CREATE, -1, 1, -1, -1, -1, -1 },
    { "symlinkat", OBSERVE_CREATE, 1, 2, -1, -1, -1, -1 },
    { "unlink", OBSERVE_REMOVE, -1, 0, -1, -1, -1, -1 },
    { "unlinkat", OBSERVE_REMOVE, 0, 1, -1, -1, -1, -1 },
    { "rmdir", OBSERVE_REMOVE, -1, 0, -1, -1, -1, -1 },
    { "rename", OBSERVE_RENAME, -1, 0, -1, 1, -1, -1 },
    { "renameat", OBSERVE_RENAME, 0, 1, 2, 3, -1, -1 },
    { "renameat2", OBSERVE_RENAME, 0, 1, 2, 3, -1, -1 },
    { "link", OBSERVE_LINK, -1, 0, -1, 1, -1, -1 },
    { "linkat", OBSERVE_LINK, 0, 1, 2, 3, -1, -1 },
    { "truncate", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "truncate64", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "chmod", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "fchmodat", OBSERVE_CHANGE, 0, 1, -1, -1, -1, -1 },
    { "chown", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "lchown", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "chown32", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "lchown32", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "fchownat", OBSERVE_CHANGE, 0, 1, -1, -1, -1, -1 },
    { "utime", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "utimes", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "futimesat", OBSERVE_CHANGE, 0, 1, -1, -1, -1, -1 },
    /* utimensat(fd, NULL, ...) is futimens(): a descriptor, not a path */
    { "utimensat", OBSERVE_CHANGE, 0, 1, -1, -1, -1, 1 },
    { "utimensat_time64", OBSERVE_CHANGE, 0, 1, -1, -1, -1, 1 },
    { "setxattr", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "lsetxattr", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "removexattr", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
    { "lremovexattr", OBSERVE_CHANGE, -1, 0, -1, -1, -1, -1 },
};
#define NCALLS (sizeof calls / sizeof calls[0])

const struct observe_call *seccomp_observe_calls(size_t *n)
{
    *n = NCALLS;
    return calls;
}

const struct observe_call *seccomp_observe_call(const char *name)
{
    for (size_t i = 0; i < NCALLS; i++)
        if (!strcmp(calls[i].name, name))
            return &calls[i];
    return NULL;
}

/* A program with symbolic jump targets, resolved once laid out. */
enum target { T_NEXT, T_ALLOW, T_NOTIFY, T_FLAGS1, T_FLAGS2, T_NONNULL1, T_B64, T_B32, T_COUNT };

struct emitter {
    struct sock_filter f[256];
    enum target jt[256], jf[256];
    size_t at[T_COUNT];
    size_t k;
};

static void emit(struct emitter *e, struct sock_filter ins, enum target jt, enum target jf)
{
    if (e->k == sizeof e->f / sizeof e->f[0])
        die("seccomp: internal error: the write observer's filter is too long");
    e->f[e->k] = ins;
    e->jt[e->k] = jt;
    e->jf[e->k] = jf;
    e->k++;
}

static void label(struct emitter *e, enum target t) { e->at[t] = e->k; }

static void arch_block(struct emitter *e, uint32_t arch, bool x32)
{
    emit(e, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
         T_NEXT, T_NEXT);
    /* x32 shares these calls' numbers, with the ABI's bit set */
    if (x32)
        emit(e, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~X32_SYSCALL_BIT), T_NEXT,
             T_NEXT);
    for (size_t i = 0; i < NCALLS; i++) {
        int nr = seccomp_syscall_resolve_name_arch(arch, calls[i].name);
        if (nr < 0)
            continue;  /* not a call of this ABI, or unknown to this libseccomp */
        enum target t = calls[i].nonnull == 1 ? T_NONNULL1
                        : calls[i].flags == 1 ? T_FLAGS1
                        : calls[i].flags == 2 ? T_FLAGS2
                                              : T_NOTIFY;
        emit(e, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 0), t,
             T_NEXT);
    }
    emit(e, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW), T_NEXT, T_NEXT);
}

static void low_word(struct emitter *e, unsigned arg)
{
    emit(e, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                         offsetof(struct seccomp_data, args) + 8 * arg),
         T_NEXT, T_NEXT);
}

void seccomp_observe_filter_build(struct sock_fprog *out)
{
    out->len = 0;
    out->filter = NULL;
#if defined(__x86_64__)
    struct emitter e = { .k = 0 };
    emit(&e, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
         T_NEXT, T_NEXT);
    emit(&e, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 0), T_B64,
         T_NEXT);
    emit(&e, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, 0), T_B32,
         T_ALLOW);
    label(&e, T_B64);
    arch_block(&e, SCMP_ARCH_X86_64, true);
    label(&e, T_B32);
    arch_block(&e, SCMP_ARCH_X86, false);
    /* The flags are an int: the low word alone is what the kernel reads. */
    label(&e, T_FLAGS1);
    low_word(&e, 1);
    emit(&e, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, OBSERVE_OPEN_WRITE_FLAGS, 0, 0),
         T_NOTIFY, T_ALLOW);
    label(&e, T_FLAGS2);
    low_word(&e, 2);
    emit(&e, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, OBSERVE_OPEN_WRITE_FLAGS, 0, 0),
         T_NOTIFY, T_ALLOW);
    /* A pointer: both words (an i386 caller's high word is 0) */
    label(&e, T_NONNULL1);
    low_word(&e, 1);
    emit(&e, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0), T_NEXT, T_NOTIFY);
    emit(&e, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                          offsetof(struct seccomp_data, args) + 8 + 4),
         T_NEXT, T_NEXT);
    emit(&e, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0), T_ALLOW, T_NOTIFY);
    label(&e, T_NOTIFY);
    emit(&e, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF), T_NEXT, T_NEXT);
    label(&e, T_ALLOW);
    emit(&e, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW), T_NEXT, T_NEXT);
    for (size_t i = 0; i < e.k; i++) {
        if (BPF_CLASS(e.f[i].code) != BPF_JMP)
            continue;
        size_t t = e.jt[i] == T_NEXT ? i + 1 : e.at[e.jt[i]];
        size_t f = e.jf[i] == T_NEXT ? i + 1 : e.at[e.jf[i]];
        /* jumps are forward and relative to the next instruction */
        if (t <= i || f <= i || t - i - 1 > 255 || f - i - 1 > 255)
            die("seccomp: internal error: a jump of the write observer's filter is out of range");
        e.f[i].jt = (uint8_t)(t - i - 1);
        e.f[i].jf = (uint8_t)(f - i - 1);
    }
    out->len = (unsigned short)e.k;
    out->filter = xmalloc(e.k * sizeof *e.f);
    memcpy(out->filter, e.f, e.k * sizeof *e.f);
#endif
}
