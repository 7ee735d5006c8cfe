/* Address families and socket calls: one table for the names a profile's
 * deny rule uses ("socket:tipc"), the names the ledger and the record
 * print ("AF_TIPC"), and the calls that act on a family. Pure data, no
 * side effects (net_families.c). Before this file the profile parser and
 * the ledger each had a table, and they disagreed: a denied
 * "socket:tipc" was printed as "AF_30". */
#ifndef SBX_NET_FAMILIES_H
#define SBX_NET_FAMILIES_H

#include <stdbool.h>
#include <stddef.h>

/* The family a deny rule's name stands for ("inet6", "local" = "unix"),
 * or -1 for a name not in the table. */
int net_family_from_rule_name(const char *name);

/* "AF_INET6" for AF_INET6; a family not in the table as "AF_<number>" in
 * buf (len bytes), which is then returned. */
const char *net_family_name(int family, char *buf, size_t len);

/* socket and socketpair: the family is their first argument. */
bool net_call_takes_family(const char *call);
/* The calls that act on a socket's descriptor (bind, connect, sendto,
 * ...): the family is the socket's. */
bool net_call_on_socket(const char *call);

#endif
