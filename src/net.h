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

#include <stdbool.h>
#include <sys/types.h>

/* Lets the command open ICMP datagram ("ping") sockets in the current
 * network namespace, the sandbox's own: sets net.ipv4.ping_group_range
 * to the command's gid inside (own_userns), or to every gid. Run by the
 * sandbox's init after the id maps are written and before the mounts
 * (net.c says why). A refusal is a warning: ping sockets are a
 * convenience, not a protection. */
void ping_sockets_allow(gid_t command_gid, bool own_userns);

#endif
