#include "config.h"

#include "seccomp_packet.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/net.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif

/* The x86_64 numbers (x32 adds the bit) and the i386 ones, fixed by the
 * ABIs: the filter names them itself, so that no libseccomp translation
 * can turn a family rule on i386 into a rule on every socketcall (which
 * libseccomp does, and which collides with the deny rules' own socket
 * rules: seccomp.c). */
#define X32_SYSCALL_BIT 0x40000000u
#define NR64_SOCKET 41
#define NR64_SOCKETPAIR 53
#define NR32_SOCKETCALL 102
#define NR32_SOCKET 359
#define NR32_SOCKETPAIR 360

bool seccomp_packet_guard_available(void)
{
#if defined(__x86_64__)
    return true;
#else
    return false;
#endif
}

bool seccomp_host_has_vsock(void)
{
    int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;  /* EAFNOSUPPORT: no transport; or refused by a sandbox around sbx */
    close(fd);
    return true;
}

void seccomp_packet_filter_build(bool deny_socketcall, struct sock_fprog *out)
{
    out->len = 0;
    out->filter = NULL;
#if defined(__x86_64__)
    /* Layout: arch dispatch, the x86_64/x32 numbers, the i386 numbers,
     * the family check (socket and socketpair take the family first and
     * the type second on every ABI), the socketcall check, DENY, ALLOW.
     * Jump offsets are computed from the labels after the fact. */
    enum {
        ARCH = 0,                 /* ld arch; jeq x86_64; jeq i386 */
        B64 = ARCH + 3,           /* ld nr; 4 x jeq; ret allow */
        B32 = B64 + 6,            /* ld nr; 3 x jeq; ret allow */
        FAMILY = B32 + 5,         /* ld a0; jeq packet; jeq xdp; jeq vsock; jeq inet; ld a1; and; jeq */
        SOCKETCALL = FAMILY + 8,  /* ld a0; jeq SYS_SOCKET; jeq SYS_SOCKETPAIR */
        DENY = SOCKETCALL + 3,
        ALLOW = DENY + 1,
        LEN = ALLOW + 1,
    };
    struct sock_filter f[LEN];
    size_t k = 0;
#define REL(target) ((uint8_t)((target) - (k + 1)))
#define PUT(insn) (f[k] = (struct sock_filter)insn, k++)
    const unsigned a0 = offsetof(struct seccomp_data, args[0]);
    const unsigned a1 = offsetof(struct seccomp_data, args[1]);
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, REL(B64), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, REL(B32), REL(ALLOW)));
    /* B64 */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SOCKET, REL(FAMILY), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SOCKET | X32_SYSCALL_BIT, REL(FAMILY), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SOCKETPAIR, REL(FAMILY), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SOCKETPAIR | X32_SYSCALL_BIT, REL(FAMILY), 0));
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    /* B32 */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR32_SOCKET, REL(FAMILY), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR32_SOCKETPAIR, REL(FAMILY), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR32_SOCKETCALL,
                 deny_socketcall ? REL(SOCKETCALL) : REL(ALLOW), 0));
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    /* FAMILY: the low word of each argument (little-endian), as the
     * kernel takes an int and ignores the upper half. */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, a0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_PACKET, REL(DENY), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_XDP, REL(DENY), 0));
    /* vsock is not network-namespaced: from any namespace it reaches the
     * hypervisor's services (CID 2) and can bind the ports the host's
     * own vsock services use */
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_VSOCK, REL(DENY), 0));
    /* __sock_create() still turns (PF_INET, SOCK_PACKET) into PF_PACKET
     * for old programs: the type without SOCK_NONBLOCK/SOCK_CLOEXEC is
     * its low four bits (SOCK_TYPE_MASK). */
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 0, REL(ALLOW)));
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, a1));
    PUT(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_PACKET, REL(DENY), REL(ALLOW)));
    /* SOCKETCALL: i386's multiplexer has the family in memory, out of
     * BPF's reach: socket creation through it goes whole. */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, a0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_SOCKET, REL(DENY), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_SOCKETPAIR, REL(DENY), REL(ALLOW)));
    /* DENY, ALLOW */
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
#undef REL
#undef PUT
    if (k != LEN)
        die("seccomp: internal error: the packet-family filter has %zu instructions, not %d",
            k, (int)LEN);
    out->len = (unsigned short)k;
    out->filter = xmalloc(k * sizeof *f);
    memcpy(out->filter, f, k * sizeof *f);
#else
    (void)deny_socketcall;
#endif
}

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#define NR64_SENDTO 44
#define NR64_SENDMSG 46
#define NR64_SENDMMSG 307
#define NR32_SENDTO 369
#define NR32_SENDMSG 370
#define NR32_SENDMMSG 345

/* Metadata calls newer than libseccomp 2.5 knows, so no deny rule can
 * name them (landlock_meta.h checks the older ones): setxattrat,
 * removexattrat (Linux 6.13), file_setattr (6.17); one number on every
 * ABI since 424. */
static const unsigned unnamed_metadata[] = { 463, 466, 469 };

void seccomp_inet_filter_build(struct sock_fprog *out)
{
    out->len = 0;
    out->filter = NULL;
#if defined(__x86_64__)
    enum {
        ARCH = 0,                  /* ld arch; jeq x86_64; jeq i386 */
        B64 = ARCH + 3,            /* ld nr; 14 x jeq; ret allow */
        B32 = B64 + 16,            /* ld nr; 8 x jeq; ret allow */
        SOCK = B32 + 10,           /* ld a0; jeq inet; jeq inet6; ret allow */
        TYPE = SOCK + 4,           /* ld a1; and; jeq stream; jeq dgram; ret deny */
        STREAM = TYPE + 5,         /* ld a2; jeq 0; jeq tcp; ret deny */
        DGRAM = STREAM + 4,        /* ld a2; jeq 0; jeq udp; jeq icmp; jeq icmpv6 */
        FLAGS3 = DGRAM + 5,        /* ld a3; jset fastopen */
        FLAGS2 = FLAGS3 + 2,       /* ld a2; jset fastopen */
        SOCKETCALL = FLAGS2 + 2,   /* ld a0; 4 x jeq */
        DENY = SOCKETCALL + 5,
        ALLOW = DENY + 1,
        NOSYS = ALLOW + 1,
        LEN = NOSYS + 1,
    };
    struct sock_filter f[LEN];
    size_t k = 0;
#define REL(target) ((uint8_t)((target) - (k + 1)))
#define PUT(insn) (f[k] = (struct sock_filter)insn, k++)
#define ARG(n) offsetof(struct seccomp_data, args[n])
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, REL(B64), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, REL(B32), REL(ALLOW)));
    /* B64 */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SOCKET, REL(SOCK), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SOCKET | X32_SYSCALL_BIT, REL(SOCK), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SENDTO, REL(FLAGS3), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SENDTO | X32_SYSCALL_BIT, REL(FLAGS3), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SENDMSG, REL(FLAGS2), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SENDMSG | X32_SYSCALL_BIT, REL(FLAGS2), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SENDMMSG, REL(FLAGS3), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR64_SENDMMSG | X32_SYSCALL_BIT, REL(FLAGS3), 0));
    for (size_t i = 0; i < sizeof unnamed_metadata / sizeof unnamed_metadata[0]; i++) {
        PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, unnamed_metadata[i], REL(NOSYS), 0));
        PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, unnamed_metadata[i] | X32_SYSCALL_BIT, REL(NOSYS), 0));
    }
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    /* B32 */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR32_SOCKET, REL(SOCK), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR32_SENDTO, REL(FLAGS3), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR32_SENDMSG, REL(FLAGS2), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR32_SENDMMSG, REL(FLAGS3), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR32_SOCKETCALL, REL(SOCKETCALL), 0));
    for (size_t i = 0; i < sizeof unnamed_metadata / sizeof unnamed_metadata[0]; i++)
        PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, unnamed_metadata[i], REL(NOSYS), 0));
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    /* SOCK: the family, the low word as the kernel takes an int */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(0)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, REL(TYPE), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, REL(TYPE), 0));
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    /* TYPE: SOCK_TYPE_MASK; raw, SOCK_SEQPACKET (SCTP), SOCK_PACKET go */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(1)));
    PUT(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, REL(STREAM), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_DGRAM, REL(DGRAM), 0));
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)));
    /* STREAM: TCP only; IPPROTO_MPTCP (262) and SCTP's one-to-one style
     * go, which Landlock's TCP rights do not cover */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(2)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, REL(ALLOW), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, REL(ALLOW), 0));
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)));
    /* DGRAM: UDP and ping sockets; UDP-Lite and the rest go */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(2)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, REL(ALLOW), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, REL(ALLOW), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_ICMP, REL(ALLOW), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_ICMPV6, REL(ALLOW), REL(DENY)));
    /* FLAGS3, FLAGS2: TCP Fast Open connects from sendto/sendmsg
     * without the connect() that the supervisor checks, and Landlock's
     * connect right does not see it (tcp_sendmsg_fastopen) */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(3)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MSG_FASTOPEN, REL(DENY), REL(ALLOW)));
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(2)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MSG_FASTOPEN, REL(DENY), REL(ALLOW)));
    /* SOCKETCALL: i386's multiplexer has the arguments in memory, out of
     * BPF's reach: socket creation and sending through it go */
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(0)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_SOCKET, REL(DENY), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_SENDTO, REL(DENY), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_SENDMSG, REL(DENY), 0));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_SENDMMSG, REL(DENY), REL(ALLOW)));
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)));
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    /* NOSYS: as an older kernel would say, so that libc falls back to
     * the calls the supervisor checks */
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)));
#undef ARG
#undef REL
#undef PUT
    if (k != LEN)
        die("seccomp: internal error: the inet-protocol filter has %zu instructions, not %d",
            k, (int)LEN);
    out->len = (unsigned short)k;
    out->filter = xmalloc(k * sizeof *f);
    memcpy(out->filter, f, k * sizeof *f);
#endif
}
