#include "config.h"

#include "net.h"

#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <net/if.h>
#include <unistd.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

/* lo is created first in every network namespace, so it is always index 1
 * (net/core/dev.c reserves it for the loopback device). Naming it by index
 * saves the RTM_GETLINK round trip a lookup by name would cost. */
#define LOOPBACK_IFINDEX 1

/* libnl-route-3 is linked in every build, by the same calls: from its
 * archive into the static PIE, as a shared library into a dynamic sbx
 * (docs/performance.md, "What each build costs"). */

/* Every exit frees what libnl allocated first: a die() with the socket
 * still held would be a leak to LeakSanitizer, and would change the exit
 * status under the sanitizer build. fd < 0: a socket of our own. */
static void link_up(int fd)
{
    struct nl_sock *sock = nl_socket_alloc();
    struct rtnl_link *orig = rtnl_link_alloc();
    struct rtnl_link *change = rtnl_link_alloc();
    const char *step = "allocating a netlink socket and link objects";
    int err = -NLE_NOMEM;
    if (sock && orig && change) {
        if (fd < 0) {
            step = "connecting to rtnetlink";
            err = nl_connect(sock, NETLINK_ROUTE);
        } else {
            step = "adopting the sandbox's rtnetlink socket";
            /* libnl closes the socket it was given: give it a copy */
            int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
            err = copy < 0 ? -nl_syserr2nlerr(errno) : nl_socket_set_fd(sock, NETLINK_ROUTE, copy);
            if (copy >= 0 && err < 0)
                close(copy);
        }
    }
    if (err >= 0) {
        rtnl_link_set_ifindex(orig, LOOPBACK_IFINDEX);
        rtnl_link_set_flags(change, IFF_UP);
        /* Setting IFF_UP on a link that is up is a no-op for the kernel,
         * so an lo that is already up needs no special case. */
        step = "RTM_NEWLINK ifindex 1, IFF_UP";
        err = rtnl_link_change(sock, orig, change, 0);
    }
    if (change)
        rtnl_link_put(change);
    if (orig)
        rtnl_link_put(orig);
    if (sock)
        nl_socket_free(sock); /* closes its descriptor: ours, or the caller's dup */
    if (err < 0)
        die("bringing up lo (%s) failed: %s (the sandbox needs CAP_NET_ADMIN in its own network "
            "namespace)", step, nl_geterror(err));
}

void loopback_up(void)
{
    link_up(-1);
}

void loopback_up_through(int sock)
{
    if (sock < 0)
        die("bringing up lo: no rtnetlink socket from the sandbox");
    link_up(sock);
}

/* net.ipv4.ping_group_range is per network namespace
 * (net->ipv4.ping_group_range, read by ping_init_sock() for IPv4 and IPv6
 * ping sockets alike), and a new namespace starts at "1 0": nobody. The
 * write converts both bounds with make_kgid(current_user_ns(), ...)
 * (ipv4_ping_group_range()), so only gids mapped in our user namespace
 * can be named: with one gid mapped, that one, which is the command's.
 * Writing takes CAP_NET_ADMIN over the namespace's owner
 * (net_ctl_permissions()): init holds it in the user namespace it was
 * created in. The file is reached through the host's /proc, before the
 * mounts, because the sandbox's /proc/sys is read-only (mount.c); which
 * namespace a /proc/sys/net file acts on is the writer's, not the
 * procfs mount's (net_ctl_header_lookup()). */
void ping_sockets_allow(gid_t command_gid, bool own_userns)
{
    static const char path[] = "/proc/sys/net/ipv4/ping_group_range";
    char range[64];
    if (own_userns)
        snprintf(range, sizeof range, "%u %u\n", (unsigned)command_gid, (unsigned)command_gid);
    else
        snprintf(range, sizeof range, "0 2147483647\n");
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    int err = fd < 0 ? errno : 0;
    if (fd >= 0) {
        ssize_t n = write(fd, range, strlen(range));
        err = n < 0 ? errno : (size_t)n != strlen(range) ? EIO : 0;
        close(fd);
    }
    if (err) {
        range[strcspn(range, "\n")] = '\0';
        warn("warning: writing '%s' to %s in the sandbox's network namespace failed: %s; "
             "ICMP datagram (ping) sockets will fail with EACCES inside", range, path,
             strerror(err));
    }
}
