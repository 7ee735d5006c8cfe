/* loopback_up() (libnl-route-3, linked in every build): lo really comes up in
 * a new network namespace, a second call on an lo that is up is fine, and
 * the kernel's refusal, which arrives inside the ACK rather than as the
 * return value of a system call, becomes exit 125 with the errno named.
 * loopback_up_through(): the same through a socket opened in the sandbox's
 * namespaces and passed out, as init passes it to the supervisor. */
#include "config.h"

#include "../tap.h"

#include "channel.h"
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn in a child with stderr captured; returns the wait status. */
static int in_child(void (*fn)(void), char *err, size_t errlen)
{
    char path[] = "/tmp/sbx-net-test.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        bail_out("mkstemp");
    unlink(path);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        bail_out("fork");
    if (pid == 0) {
        dup2(fd, 2);
        fn();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    ssize_t n = pread(fd, err, errlen - 1, 0);
    err[n > 0 ? n : 0] = '\0';
    close(fd);
    return st;
}

static int lo_flags(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr = { 0 };
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    int r = s >= 0 ? ioctl(s, SIOCGIFFLAGS, &ifr) : -1;
    if (s >= 0)
        close(s);
    return r < 0 ? -1 : ifr.ifr_flags;
}

/* Exit codes say what the child saw: 10 no namespace, 11 lo already up
 * before, 12 lo still down after, 0 up. */
static void up_in_own_netns(void)
{
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
        _exit(10);
    if (lo_flags() < 0 || (lo_flags() & IFF_UP))
        _exit(11);
    loopback_up();
    if (!(lo_flags() & IFF_UP))
        _exit(12);
    loopback_up(); /* already up: a no-op, not an error */
    _exit((lo_flags() & IFF_UP) ? 0 : 12);
}

/* A user namespace alone: its CAP_NET_ADMIN does not reach the network
 * namespace the host's user namespace owns, so the kernel answers EPERM. */
static void up_in_foreign_netns(void)
{
    if (unshare(CLONE_NEWUSER) < 0)
        _exit(10);
    loopback_up();
}

/* A process in namespaces of its own (through_flags) opens an rtnetlink
 * socket and passes it to us on a channel, as the sandbox's init does; we bring lo up
 * through it; it reports whether lo is up where it is. Exit codes: 20 the
 * namespaces were refused, 21 lo still down, 0 up. (Only ever a network
 * namespace of its own: the host's lo is never touched.) */
static int through_flags;

static void up_through_passed_socket(void)
{
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
        _exit(23);
    pid_t inside = fork();
    if (inside < 0)
        _exit(23);
    if (inside == 0) {
        if (unshare(through_flags) < 0)
            _exit(20);
        int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        if (nl < 0)
            _exit(23);
        if (!channel_send(sp[1], CHANNEL_NETLINK_FD, 0, nl))
            _exit(22);
        char go;
        if (read(sp[1], &go, 1) != 1) /* our parent died: it said why */
            _exit(24);
        _exit((lo_flags() & IFF_UP) ? 0 : 21);
    }
    struct channel_msg m;
    int fd = -1;
    if (channel_recv(sp[0], &m, &fd, false) != 1 || fd < 0) {
        int st;
        waitpid(inside, &st, 0);
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 23);
    }
    loopback_up_through(fd);
    close(fd);
    if (write(sp[0], "g", 1) != 1)
        _exit(23);
    int st;
    waitpid(inside, &st, 0);
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 23);
}

static void up_through_a_pipe(void)
{
    int p[2];
    if (pipe(p) < 0)
        _exit(23);
    loopback_up_through(p[0]);
}

int main(void)
{
    plan(9);
    char err[2048];

    int st = in_child(up_in_own_netns, err, sizeof err);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 10) {
        skip("unshare(CLONE_NEWUSER | CLONE_NEWNET) is refused here: no user namespaces");
        skip("(same)");
        skip("(same)");
        skip("(same)");
        skip("(same)");
        for (int i = 0; i < 4; i++)
            skip("(same)");
        return done_testing();
    }
    is_int(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 0,
           "lo is down in a new network namespace, up after loopback_up(), and a second call is fine");
    is_str(err, "", "nothing on stderr when it works");

    st = in_child(up_in_foreign_netns, err, sizeof err);
    is_int(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 125,
           "without CAP_NET_ADMIN over the network namespace: exit 125");
    like_str(err, "sbx: bringing up lo (RTM_NEWLINK ifindex 1, IFF_UP) failed",
             "the message names the request");
    like_str(err, strerror(EPERM), "and the kernel's errno from the ACK");

    /* As root and as any user: the owner of a user namespace holds
     * CAP_NET_ADMIN in it, which rtnetlink checks on the sender. */
    through_flags = CLONE_NEWUSER | CLONE_NEWNET;
    st = in_child(up_through_passed_socket, err, sizeof err);
    is_int(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 0,
           "through a socket opened in a new user+network namespace and passed out, lo comes up there");
    is_str(err, "", "nothing on stderr when it works");

    st = in_child(up_through_a_pipe, err, sizeof err);
    is_int(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 125, "a descriptor that is no netlink socket: exit 125");
    like_str(err, "adopting the sandbox's rtnetlink socket", "naming the step that failed");
    return done_testing();
}
