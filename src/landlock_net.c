#include "config.h"

#include "landlock_net.h"

#include "ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

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

/* The most a datagram can carry (IPv4, IPv6 without jumbograms, UDP GSO's
 * whole), and the ancillary data the kernel takes by default (optmem_max):
 * more is refused as the kernel would refuse it. */
#define SEND_MAX 65536
#define CONTROL_MAX 20480
#define IOV_MAX_KERNEL 1024

/* One message, as read: the address (raw, checked by the caller), the
 * data gathered into one buffer, the ancillary data. */
struct read_msg {
    unsigned char name[sizeof(struct sockaddr_storage)];
    size_t namelen;
    bool named;
    unsigned char *data;
    size_t len;
    unsigned char *control;
    size_t controllen;
};

static void read_msg_free(struct read_msg *m)
{
    free(m->data);
    free(m->control);
}

static int read_name(pid_t tid, uint64_t addr, uint64_t len, struct read_msg *m)
{
    m->named = addr != 0;
    if (!addr)
        return 0;
    if (len > sizeof m->name || len < sizeof(sa_family_t))
        return EINVAL;
    if (!ledger_read_target(tid, addr, m->name, (size_t)len))
        return EFAULT;
    m->namelen = (size_t)len;
    return 0;
}

/* struct msghdr of the command's, native or i386 (32-bit words). */
static int read_msghdr(pid_t tid, uint64_t at, bool compat, struct read_msg *m)
{
    uint64_t name, namelen, iov, iovlen, control, controllen;
    if (compat) {
        uint32_t w[7];
        if (!ledger_read_target(tid, at, w, sizeof w))
            return EFAULT;
        name = w[0], namelen = w[1], iov = w[2], iovlen = w[3], control = w[4], controllen = w[5];
        /* i386's cmsg headers are not ours: not sent on its behalf */
        if (controllen)
            return EOPNOTSUPP;
    } else {
        struct msghdr h;
        if (!ledger_read_target(tid, at, &h, sizeof h))
            return EFAULT;
        name = (uintptr_t)h.msg_name, namelen = h.msg_namelen, iov = (uintptr_t)h.msg_iov;
        iovlen = h.msg_iovlen, control = (uintptr_t)h.msg_control, controllen = h.msg_controllen;
    }
    int e = read_name(tid, name, namelen, m);
    if (e)
        return e;
    if (iovlen > IOV_MAX_KERNEL)
        return EMSGSIZE;
    if (controllen > CONTROL_MAX)
        return ENOBUFS;
    m->data = malloc(SEND_MAX);
    if (!m->data)
        return ENOMEM;
    for (uint64_t i = 0; i < iovlen; i++) {
        uint64_t base, len;
        if (compat) {
            uint32_t v[2];
            if (!ledger_read_target(tid, iov + i * sizeof v, v, sizeof v))
                return EFAULT;
            base = v[0], len = v[1];
        } else {
            struct iovec v;
            if (!ledger_read_target(tid, iov + i * sizeof v, &v, sizeof v))
                return EFAULT;
            base = (uintptr_t)v.iov_base, len = v.iov_len;
        }
        if (len > SEND_MAX - m->len)
            return EMSGSIZE;
        if (len && !ledger_read_target(tid, base, m->data + m->len, (size_t)len))
            return EFAULT;
        m->len += (size_t)len;
    }
    if (controllen) {
        m->control = malloc((size_t)controllen);
        if (!m->control)
            return ENOMEM;
        if (!ledger_read_target(tid, control, m->control, (size_t)controllen))
            return EFAULT;
        m->controllen = (size_t)controllen;
    }
    return 0;
}

static bool send_name_allowed(const struct read_msg *m)
{
    return !m->named || landlock_net_is_loopback(m->name, m->namelen);
}

static bool datagram_socket(int sock)
{
    int type = 0;
    socklen_t len = sizeof type;
    return getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type != SOCK_STREAM;
}

/* A sendmmsg whose every message (as read now) stays on the loopback. */
static bool mmsg_all_loopback(pid_t tid, uint64_t vec, uint64_t vlen, bool compat)
{
    size_t stride = compat ? 32 : sizeof(struct mmsghdr);
    if (vlen > IOV_MAX_KERNEL)
        vlen = IOV_MAX_KERNEL;
    for (uint64_t i = 0; i < vlen; i++) {
        uint64_t name, namelen;
        if (compat) {
            uint32_t w[2];
            if (!ledger_read_target(tid, vec + i * stride, w, sizeof w))
                return true; /* unreadable: the kernel says EFAULT */
            name = w[0], namelen = w[1];
        } else {
            struct msghdr h;
            if (!ledger_read_target(tid, vec + i * stride, &h, sizeof h))
                return true;
            name = (uintptr_t)h.msg_name, namelen = h.msg_namelen;
        }
        struct read_msg m = { 0 };
        if (read_name(tid, name, namelen, &m) == 0 && !send_name_allowed(&m))
            return false;
    }
    return true;
}

enum landlock_send landlock_net_make_send(const char *call, int sock, const uint64_t args[6],
                                          bool compat, pid_t tid, long *val, int *err)
{
    *val = 0;
    *err = 0;
    if (!datagram_socket(sock))
        return LANDLOCK_SEND_CONTINUE;
    if (!strcmp(call, "sendmmsg")) {
        if (!mmsg_all_loopback(tid, args[1], args[2], compat))
            return LANDLOCK_SEND_REFUSED;
        *err = ENOSYS;
        return LANDLOCK_SEND_MADE;
    }
    struct read_msg m = { 0 };
    int flags = (int)args[strcmp(call, "sendto") ? 2 : 3];
    int e;
    if (!strcmp(call, "sendto")) {
        e = read_name(tid, args[4], args[5], &m);
        if (!e && args[2] > SEND_MAX)
            e = EMSGSIZE;
        if (!e && !(m.data = malloc(args[2] ? (size_t)args[2] : 1)))
            e = ENOMEM;
        if (!e && args[2] && !ledger_read_target(tid, args[1], m.data, (size_t)args[2]))
            e = EFAULT;
        if (!e)
            m.len = (size_t)args[2];
    } else {
        e = read_msghdr(tid, args[1], compat, &m);
    }
    /* what could not be read is not sent; an address is checked first,
     * so that a refusal is one whatever else was wrong */
    if (m.named && !send_name_allowed(&m)) {
        read_msg_free(&m);
        return LANDLOCK_SEND_REFUSED;
    }
    if (e) {
        read_msg_free(&m);
        *err = e;
        return LANDLOCK_SEND_MADE;
    }
    struct iovec one = { .iov_base = m.data, .iov_len = m.len };
    struct msghdr h = {
        .msg_name = m.named ? m.name : NULL, .msg_namelen = (socklen_t)m.namelen,
        .msg_iov = &one, .msg_iovlen = 1,
        .msg_control = m.control, .msg_controllen = m.controllen,
    };
    ssize_t n = sendmsg(sock, &h, flags | MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0)
        *err = errno;
    else
        *val = (long)n;
    read_msg_free(&m);
    return LANDLOCK_SEND_MADE;
}

enum landlock_send landlock_net_make_socket(int notify_fd, uint64_t id, const uint64_t args[6],
                                            long *val, int *err)
{
    *val = 0;
    *err = 0;
    int domain = (int)(uint32_t)args[0], type = (int)(uint32_t)args[1];
    int protocol = (int)(uint32_t)args[2];
    /* a stream socket meets Landlock's TCP rules, and the supervisor's
     * bind, connect and listen: the command's own, continued */
    if ((domain != AF_INET && domain != AF_INET6) ||
        (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_DGRAM)
        return LANDLOCK_SEND_CONTINUE;
    int sock = socket(domain, type | SOCK_CLOEXEC, protocol);
    if (sock < 0) {
        *err = errno;
        return LANDLOCK_SEND_MADE;
    }
    /* The kernel lets a process without CAP_NET_RAW bind a socket to a
     * device once, and never unbind it or bind it elsewhere (Linux 5.7,
     * sock_bindtoindex_locked()): the command, which has no capability in
     * this tier, cannot undo it. Without it, no datagram socket. */
    static const char lo[] = "lo";
    if (setsockopt(sock, SOL_SOCKET, SO_BINDTODEVICE, lo, sizeof lo) < 0) {
        *err = errno == EPERM ? EACCES : errno;
        close(sock);
        return LANDLOCK_SEND_MADE;
    }
    /* Installed in the command's table and answered in one ioctl (Linux
     * 5.14): the call returns the number it was installed at. */
    struct seccomp_notif_addfd add = {
        .id = id, .flags = SECCOMP_ADDFD_FLAG_SEND, .srcfd = (uint32_t)sock,
        .newfd_flags = type & SOCK_CLOEXEC ? O_CLOEXEC : 0,
    };
    int fd = ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
    *err = fd < 0 ? errno : 0;
    close(sock);
    if (fd < 0 && (*err == ENOENT || *err == EINPROGRESS))
        return LANDLOCK_SEND_ANSWERED; /* the caller is gone, or was answered */
    if (fd < 0)
        return LANDLOCK_SEND_MADE;
    *val = fd;
    return LANDLOCK_SEND_ANSWERED;
}
