/* The sandbox's network: a loopback that works. */
#ifndef SBX_NET_H
#define SBX_NET_H

/* Brings `lo` up in the current network namespace with one RTM_NEWLINK
 * over rtnetlink (libnl-route-3). The kernel then gives lo 127.0.0.1/8 and
 * ::1 itself, so no address request is needed. An lo that is already up
 * is fine. Dies naming the step and errno on failure. */
void loopback_up(void);

/* The same through sock, a NETLINK_ROUTE socket opened inside the network
 * namespace (by the sandbox's init) and passed to the caller, which must
 * hold CAP_NET_ADMIN over that namespace: the supervisor does, as owner of
 * the sandbox's user namespace (see sandbox.c). sock stays the caller's. */
void loopback_up_through(int sock);

#endif
