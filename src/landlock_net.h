/* The Landlock tier's inet network, kept by the supervisor (sbx(1)
 * TIERS): Landlock can refuse TCP by port, never by address, so bind,
 * connect and listen on inet sockets stop in the kernel (deny rules of
 * sbx's own, plan.c) and the ledger's thread hands them here. The call is
 * made by the supervisor, on its duplicate of the command's socket
 * (pidfd_getfd), with the address it read once from the command's memory
 * and checked: the kernel never reads that memory again, so nothing the
 * command writes there after the check changes what is bound or reached
 * (no SECCOMP_USER_NOTIF_FLAG_CONTINUE). Landlock still refuses the
 * command every TCP bind and connect of its own; the supervisor is not
 * under Landlock. A call on another socket (AF_UNIX) is continued, as the
 * kernel must resolve its path as the command: a descriptor swapped for an
 * inet one in between meets Landlock alone, which refuses TCP; UDP, which
 * this tier does not restrict anyway (sendto), is what it could reach. */
#ifndef SBX_LANDLOCK_NET_H
#define SBX_LANDLOCK_NET_H

#include <stdbool.h>
#include <stddef.h>

/* Pure: whether the address (raw bytes, len of them) is on the loopback
 * (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104), and whether it is the
 * wildcard (0.0.0.0, ::). */
bool landlock_net_is_loopback(const void *addr, size_t len);
bool landlock_net_is_wildcard(const void *addr, size_t len);

/* call is "bind", "connect" or "listen"; sock our duplicate of the
 * command's socket, domain its family (AF_INET, AF_INET6); addr/len the
 * address read (bind, connect), backlog listen's. A bind on the wildcard
 * is made on the loopback of its family; a listen on an unbound socket
 * binds it to the loopback first (the kernel would bind the wildcard).
 * True when the call was made, *err the errno the command gets (0 for
 * success); false when it is refused (not loopback). */
bool landlock_net_make_call(const char *call, int sock, int domain, const void *addr,
                            size_t len, int backlog, int *err);

#endif
