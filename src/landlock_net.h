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
 * under Landlock. A call on another socket (AF_UNIX), or a send on a TCP
 * one, is continued (the kernel must resolve a unix path as the command;
 * a stream socket ignores the address), and the kernel then acts on
 * whatever the number names by then: another thread may have dup2()ed an
 * inet datagram socket over it, and the address in memory may have
 * changed. So no inet datagram socket of the command is unconfined: each
 * is made by the supervisor (landlock_net_make_socket()) and bound to the
 * loopback device, which the command cannot undo, and whatever a race
 * hands the kernel never leaves the host (through lo, it reaches the
 * host's own addresses at most). */
#ifndef SBX_LANDLOCK_NET_H
#define SBX_LANDLOCK_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

/* sendto, sendmsg and sendmmsg on the Landlock tier's inet sockets, which
 * Landlock does not restrict at all for UDP and ping (ICMP) sockets: the
 * address, the data and the ancillary data are read once from the
 * command's memory (tid's), the address checked, and the call made by the
 * supervisor on sock, its duplicate of the command's socket, so nothing
 * the command writes after the check is sent. A stream socket (TCP) is
 * continued: its address is ignored by the kernel once connected, and
 * TCP Fast Open, the one way it is not, is refused by the seccomp filter
 * (MSG_FASTOPEN). sendmmsg on a datagram socket is answered ENOSYS, as an
 * old kernel would (glibc's resolver then sends its queries one by one),
 * unless one of its messages names an address off the loopback: refused.
 * MSG_DONTWAIT is added: the ledger's thread must never wait on a full
 * send buffer (a blocking socket of the command's may then see EAGAIN). */
enum landlock_send { LANDLOCK_SEND_CONTINUE, LANDLOCK_SEND_MADE, LANDLOCK_SEND_REFUSED,
                     LANDLOCK_SEND_ANSWERED };
enum landlock_send landlock_net_make_send(const char *call, int sock, const uint64_t args[6],
                                          bool compat, pid_t tid, long *val, int *err);

/* socket() for AF_INET and AF_INET6 (args: the command's, in registers
 * or read from socketcall's memory): a datagram socket (UDP, ping) is made
 * by the supervisor, with SO_BINDTODEVICE "lo", and installed in the
 * command's table with the answer (SECCOMP_ADDFD_FLAG_SEND on notify_fd,
 * notification id): LANDLOCK_SEND_ANSWERED, *val its number there. Routed
 * through lo, a datagram to an address off the host is looped back and
 * dropped, never sent out (for IPv6: ENETUNREACH; IP_PKTINFO and
 * IP_UNICAST_IF do not move it to another device), whether the
 * supervisor checked it or a race made the kernel send it. Any other
 * socket is continued (LANDLOCK_SEND_CONTINUE); MADE: not made, *err the
 * errno the command gets. */
enum landlock_send landlock_net_make_socket(int notify_fd, uint64_t id, const uint64_t args[6],
                                            long *val, int *err);

#endif
