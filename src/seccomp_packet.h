/* The part of the default deny-list that guards what CAP_NET_RAW opens
 * besides raw IP sockets: socket() and socketpair() for AF_PACKET and
 * AF_XDP, and for (AF_INET, SOCK_PACKET), which the kernel makes an
 * AF_PACKET socket, fail with EPERM. Packet sockets are where
 * CVE-2020-14386 (tpacket_rcv overflow), CVE-2017-7308 (packet_set_ring)
 * and CVE-2016-8655 (packet_set_ring race) were reached, each from a user
 * and network namespace of the attacker's own, which nested_userns = yes
 * allows every command: the rule holds whether or not sbx kept
 * CAP_NET_RAW (caps.h). AF_VSOCK too, for every command: vsock has no
 * network namespace, so a sandbox's socket reaches the hypervisor's
 * services and the host's vsock ports as the host's would.
 *
 * A filter of its own, not libseccomp rules: libseccomp turns a family
 * rule on i386 into one on every socketcall(SYS_SOCKET), which would both
 * take socket() from every i386 program and collide with a deny rule on
 * socket (seccomp.c). The kernel runs every filter and keeps the
 * strictest answer, so EPERM here wins over a deny rule's notification.
 * i386 socketcall(SYS_SOCKET, SYS_SOCKETPAIR) carries the family in
 * memory BPF cannot read: it is denied whole only when deny_socketcall
 * (the command keeps CAP_NET_RAW, so that AF_PACKET would otherwise be
 * one call away, or the host has a vsock transport,
 * seccomp_host_has_vsock()); glibc's i386 socket() uses the direct call,
 * Go's 386 port and musl use socketcall. */
#ifndef SBX_SECCOMP_PACKET_H
#define SBX_SECCOMP_PACKET_H

#include <stdbool.h>
#include <linux/filter.h>

/* True when this build can install the filter (x86_64: its three ABIs). */
bool seccomp_packet_guard_available(void);

/* Whether socket(AF_VSOCK) works here, on the host: then a command
 * could reach vsock through i386 socketcall, and it goes whole. */
bool seccomp_host_has_vsock(void);

/* The program, or len 0 where not available. */
void seccomp_packet_filter_build(bool deny_socketcall, struct sock_fprog *out);

/* The Landlock tier's inet sockets (sbx(1) TIERS): socket() of AF_INET
 * and AF_INET6 only as TCP (SOCK_STREAM, protocol 0 or IPPROTO_TCP), UDP
 * and ping (SOCK_DGRAM, 0, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_ICMPV6);
 * MPTCP, SCTP, UDP-Lite, raw sockets fail with EACCES. So do sendto,
 * sendmsg and sendmmsg with MSG_FASTOPEN, a TCP connect that neither
 * connect() nor Landlock sees, and on i386 socketcall's SOCKET, SENDTO,
 * SENDMSG and SENDMMSG, whose arguments BPF cannot read. And the
 * metadata calls libseccomp cannot name (setxattrat, removexattrat,
 * file_setattr) fail with ENOSYS. len 0 where not available (not
 * x86_64). */
void seccomp_inet_filter_build(struct sock_fprog *out);

#endif
