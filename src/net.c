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

void loopback_up(void)
{
    struct nl_sock *sock = nl_socket_alloc();
    if (!sock)
        die("bringing up lo: nl_socket_alloc: out of memory");
    int err = nl_connect(sock, NETLINK_ROUTE);
    if (err < 0)
        die("bringing up lo: connecting to rtnetlink failed: %s", nl_geterror(err));

    struct rtnl_link *orig = rtnl_link_alloc();
    struct rtnl_link *change = rtnl_link_alloc();
    if (!orig || !change)
        die("bringing up lo: rtnl_link_alloc: out of memory");
    rtnl_link_set_ifindex(orig, LOOPBACK_IFINDEX);
    rtnl_link_set_flags(change, IFF_UP);

    /* Setting IFF_UP on a link that is up is a no-op for the kernel, so
     * an lo that is already up needs no special case. */
    err = rtnl_link_change(sock, orig, change, 0);
    if (err < 0)
        die("bringing up lo (RTM_NEWLINK ifindex %d, IFF_UP) failed: %s "
            "(the sandbox needs CAP_NET_ADMIN in its own network namespace)",
            LOOPBACK_IFINDEX, nl_geterror(err));

    rtnl_link_put(change);
    rtnl_link_put(orig);
    nl_socket_free(sock);
}
