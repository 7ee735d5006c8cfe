/* See net_families.h. */
#include "config.h"

#include "net_families.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#ifndef AF_MCTP
#define AF_MCTP 45 /* Linux 5.15; glibc 2.36 has it, older headers do not */
#endif

static const struct {
    int family;
    const char *rule; /* the name in a profile's deny rule */
    const char *name; /* what the ledger and the record print */
} families[] = {
    { AF_UNSPEC, NULL, "AF_UNSPEC" },
    { AF_UNIX, "unix", "AF_UNIX" },       { AF_UNIX, "local", "AF_UNIX" },
    { AF_INET, "inet", "AF_INET" },       { AF_INET6, "inet6", "AF_INET6" },
    { AF_NETLINK, "netlink", "AF_NETLINK" }, { AF_PACKET, "packet", "AF_PACKET" },
    { AF_VSOCK, "vsock", "AF_VSOCK" },    { AF_BLUETOOTH, "bluetooth", "AF_BLUETOOTH" },
    { AF_ALG, "alg", "AF_ALG" },          { AF_CAN, "can", "AF_CAN" },
    { AF_XDP, "xdp", "AF_XDP" },          { AF_TIPC, "tipc", "AF_TIPC" },
    { AF_KEY, "key", "AF_KEY" },          { AF_APPLETALK, "appletalk", "AF_APPLETALK" },
    { AF_AX25, "ax25", "AF_AX25" },       { AF_X25, "x25", "AF_X25" },
    { AF_IPX, "ipx", "AF_IPX" },          { AF_RDS, "rds", "AF_RDS" },
    { AF_QIPCRTR, "qipcrtr", "AF_QIPCRTR" }, { AF_SMC, "smc", "AF_SMC" },
    { AF_MCTP, "mctp", "AF_MCTP" },
};

int net_family_from_rule_name(const char *name)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i].rule && !strcmp(families[i].rule, name))
            return families[i].family;
    return -1;
}

const char *net_family_name(int family, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i].family == family)
            return families[i].name;
    snprintf(buf, len, "AF_%d", family);
    return buf;
}

static bool in(const char *call, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(call, list[i]))
            return true;
    return false;
}

static const char *const takes_family[] = { "socket", "socketpair" };
static const char *const on_socket[] = {
    "bind", "connect", "listen", "accept", "accept4", "sendto", "sendmsg",
    "sendmmsg", "recvfrom", "recvmsg", "recvmmsg", "getsockname",
    "getpeername", "setsockopt", "getsockopt", "shutdown",
};

bool net_call_takes_family(const char *call)
{
    return in(call, takes_family, sizeof takes_family / sizeof takes_family[0]);
}

bool net_call_on_socket(const char *call)
{
    return in(call, on_socket, sizeof on_socket / sizeof on_socket[0]);
}
