#include "config.h"

#include "net.h"

#include "log.h"

#include <errno.h>
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
