#include "config.h"

#include "landlock_net.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

static bool v4_loopback(const struct in_addr *a)
{
    return (ntohl(a->s_addr) >> 24) == 127;
}

static bool v6_loopback(const struct in6_addr *a)
{
    if (IN6_IS_ADDR_LOOPBACK(a))
        return true;
    /* ::ffff:127.x.y.z, which an AF_INET6 socket without IPV6_V6ONLY
     * reaches the IPv4 loopback through */
    return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
}

enum address_kind { ADDRESS_OTHER, ADDRESS_LOOPBACK, ADDRESS_WILDCARD };

static enum address_kind address_kind(const void *addr, size_t len)
{
    sa_family_t family;
    if (len < sizeof family)
        return ADDRESS_OTHER;
    memcpy(&family, addr, sizeof family);
    if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        struct sockaddr_in sin;
        memcpy(&sin, addr, sizeof sin);
        return v4_loopback(&sin.sin_addr) ? ADDRESS_LOOPBACK
               : sin.sin_addr.s_addr == htonl(INADDR_ANY) ? ADDRESS_WILDCARD
                                                          : ADDRESS_OTHER;
    }
    if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 sin6;
        memcpy(&sin6, addr, sizeof sin6);
        return v6_loopback(&sin6.sin6_addr) ? ADDRESS_LOOPBACK
               : IN6_IS_ADDR_UNSPECIFIED(&sin6.sin6_addr) ? ADDRESS_WILDCARD
                                                          : ADDRESS_OTHER;
    }
    return ADDRESS_OTHER;
}

bool landlock_net_is_loopback(const void *addr, size_t len)
{
    return address_kind(addr, len) == ADDRESS_LOOPBACK;
}

bool landlock_net_is_wildcard(const void *addr, size_t len)
{
    return address_kind(addr, len) == ADDRESS_WILDCARD;
}

/* The wildcard of addr's family turned into that family's loopback, the
 * port kept: a test server that binds 0.0.0.0 (most do) is reached on
 * 127.0.0.1 as in the namespace tier's network, and on nothing else. */
static void wildcard_to_loopback(struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        ((struct sockaddr_in *)ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    else if (ss->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
}

static bool bound_to_loopback(int sock, bool *unbound)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    *unbound = false;
    if (getsockname(sock, (struct sockaddr *)&ss, &len) < 0)
        return false;
    uint16_t port = ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                    : ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : 0;
    if (port == 0 && landlock_net_is_wildcard(&ss, len)) {
        *unbound = true;
        return false;
    }
    return landlock_net_is_loopback(&ss, len);
}

bool landlock_net_make_call(const char *call, int sock, int domain, const void *addr,
                            size_t len, int backlog, int *err)
{
    *err = 0;
    if (domain != AF_INET && domain != AF_INET6)
        return false;
    if (!strcmp(call, "listen")) {
        bool unbound;
        if (!bound_to_loopback(sock, &unbound)) {
            if (!unbound)
                return false;
            struct sockaddr_storage lo = { .ss_family = (sa_family_t)domain };
            wildcard_to_loopback(&lo);
            socklen_t lolen = domain == AF_INET ? sizeof(struct sockaddr_in)
                                                : sizeof(struct sockaddr_in6);
            if (bind(sock, (struct sockaddr *)&lo, lolen) < 0) {
                *err = errno;
                return true;
            }
        }
        if (listen(sock, backlog) < 0)
            *err = errno;
        return true;
    }
    if (len > sizeof(struct sockaddr_storage) || len < sizeof(sa_family_t))
        return false;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    memcpy(&ss, addr, len);
    bool is_bind = !strcmp(call, "bind");
    /* connect(AF_UNSPEC) dissolves an association: it reaches nothing */
    bool dissolve = !is_bind && ss.ss_family == AF_UNSPEC;
    if (is_bind && landlock_net_is_wildcard(&ss, len))
        wildcard_to_loopback(&ss);
    if (!dissolve && !landlock_net_is_loopback(&ss, len))
        return false;
    int rc = is_bind ? bind(sock, (struct sockaddr *)&ss, (socklen_t)len)
                     : connect(sock, (struct sockaddr *)&ss, (socklen_t)len);
    if (rc < 0)
        *err = errno;
    return true;
}
