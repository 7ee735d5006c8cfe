#include "config.h"

#include "net.h"

#include "log.h"

#include <net/if.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

/* lo is created first in every network namespace, so it is always index 1
 * (net/core/dev.c reserves it for the loopback device). Naming it by index
 * saves the RTM_GETLINK round trip a lookup by name would cost. */
#define LOOPBACK_IFINDEX 1

/* Every exit frees what libnl allocated first: a die() with the socket
 * still held would be a leak to LeakSanitizer, and would change the exit
 * status under the sanitizer build. */
void loopback_up(void)
{
    struct nl_sock *sock = nl_socket_alloc();
    struct rtnl_link *orig = rtnl_link_alloc();
    struct rtnl_link *change = rtnl_link_alloc();
    const char *step = "allocating a netlink socket and link objects";
    int err = -NLE_NOMEM;
    if (sock && orig && change) {
        step = "connecting to rtnetlink";
        err = nl_connect(sock, NETLINK_ROUTE);
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
        nl_socket_free(sock);
    if (err < 0)
        die("bringing up lo (%s) failed: %s (the sandbox needs CAP_NET_ADMIN in its own network "
            "namespace)", step, nl_geterror(err));
}
