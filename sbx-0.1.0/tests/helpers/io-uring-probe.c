/* io-uring-probe CHECK: what a command reaches through io_uring, whose
 * operations the kernel runs without passing the seccomp filter.
 *
 *   setup     io_uring_setup(): "io_uring_setup=ok" or its errno name
 *   connect   listens on 127.0.0.1:0 (plain bind/listen), then connects to
 *             it twice: with connect(2), "connect=ok|ERRNO", and with an
 *             IORING_OP_CONNECT, "uring-connect=ok|ERRNO" (or the errno of
 *             io_uring_setup, "uring-connect=setup-ERRNO"); "accepted=N"
 *             counts the connections the listener got.
 * Raw system calls, no liburing: Debian 12 has Linux's header only. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *errname(int e)
{
    const char *n = strerrorname_np(e);
    return n ? n : "E?";
}

/* One IORING_OP_CONNECT of sock to addr; returns the CQE's result (0 or
 * -errno), or 1 with *setup_errno set when the ring cannot be made. */
static int uring_connect(int sock, const struct sockaddr_in *addr, int *setup_errno)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    int ring = (int)syscall(SYS_io_uring_setup, 4, &p);
    if (ring < 0) {
        *setup_errno = errno;
        return 1;
    }
    size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    if (p.features & IORING_FEAT_SINGLE_MMAP)
        sq_len = cq_len = sq_len > cq_len ? sq_len : cq_len;
    char *sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
    char *cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? sq
               : mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
    struct io_uring_sqe *sqes = mmap(NULL, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE,
                                     MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
        *setup_errno = errno;
        return 1;
    }
    unsigned *sq_tail = (unsigned *)(sq + p.sq_off.tail);
    unsigned *sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
    unsigned *sq_array = (unsigned *)(sq + p.sq_off.array);
    unsigned *cq_head = (unsigned *)(cq + p.cq_off.head);
    unsigned *cq_tail = (unsigned *)(cq + p.cq_off.tail);
    unsigned *cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
    struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);

    unsigned tail = *sq_tail, idx = tail & *sq_mask;
    struct io_uring_sqe *sqe = &sqes[idx];
    memset(sqe, 0, sizeof *sqe);
    sqe->opcode = IORING_OP_CONNECT;
    sqe->fd = sock;
    sqe->addr = (unsigned long)addr;
    sqe->off = sizeof *addr; /* the address length */
    sq_array[idx] = idx;
    atomic_store_explicit((_Atomic unsigned *)sq_tail, tail + 1, memory_order_release);
    if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
        *setup_errno = errno;
        return 1;
    }
    unsigned head = atomic_load_explicit((_Atomic unsigned *)cq_head, memory_order_acquire);
    if (head == atomic_load_explicit((_Atomic unsigned *)cq_tail, memory_order_acquire)) {
        *setup_errno = EAGAIN;
        return 1;
    }
    int res = cqes[head & *cq_mask].res;
    atomic_store_explicit((_Atomic unsigned *)cq_head, head + 1, memory_order_release);
    close(ring);
    return res;
}

static int count_accepted(int listener)
{
    int n = 0;
    struct pollfd pfd = { .fd = listener, .events = POLLIN };
    while (poll(&pfd, 1, 200) > 0) {
        int c = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            break;
        close(c);
        n++;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: io-uring-probe setup|connect\n");
        return 2;
    }
    if (!strcmp(argv[1], "setup")) {
        struct io_uring_params p;
        memset(&p, 0, sizeof p);
        int ring = (int)syscall(SYS_io_uring_setup, 4, &p);
        printf("io_uring_setup=%s\n", ring < 0 ? errname(errno) : "ok");
        return 0;
    }
    if (strcmp(argv[1], "connect")) {
        fprintf(stderr, "io-uring-probe: unknown check %s\n", argv[1]);
        return 2;
    }
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof addr;
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 ||
        listen(listener, 8) < 0 || getsockname(listener, (struct sockaddr *)&addr, &len) < 0) {
        printf("listener=%s\n", errname(errno));
        return 1;
    }
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    printf("connect=%s\n", connect(s, (struct sockaddr *)&addr, sizeof addr) < 0 ? errname(errno) : "ok");
    close(s);
    s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int setup_errno = 0;
    int res = uring_connect(s, &addr, &setup_errno);
    if (res == 1)
        printf("uring-connect=setup-%s\n", errname(setup_errno));
    else
        printf("uring-connect=%s\n", res < 0 ? errname(-res) : "ok");
    close(s);
    printf("accepted=%d\n", count_accepted(listener));
    return 0;
}
