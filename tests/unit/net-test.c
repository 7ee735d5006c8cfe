/* loopback_up() speaks rtnetlink itself (no libnl): lo really comes up in
 * a new network namespace, a second call on an lo that is up is fine, and
 * the kernel's refusal, which arrives inside the ACK rather than as the
 * return value of a system call, becomes exit 125 with the errno named. */
#include "config.h"

#include "../tap.h"

#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
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

int main(void)
{
    plan(5);
    char err[2048];

    int st = in_child(up_in_own_netns, err, sizeof err);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 10) {
        skip("unshare(CLONE_NEWUSER | CLONE_NEWNET) is refused here: no user namespaces");
        skip("(same)");
        skip("(same)");
        skip("(same)");
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
    return done_testing();
}
