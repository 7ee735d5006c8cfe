#include "config.h"

#include "net.h"

#include "log.h"

#ifndef SBX_STATIC_BINARY
#include <dlfcn.h>   /* the dynamic build loads libnl-route-3 itself */
#endif
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <unistd.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

/* lo is created first in every network namespace, so it is always index 1
 * (net/core/dev.c reserves it for the loopback device). Naming it by index
 * saves the RTM_GETLINK round trip a lookup by name would cost. */
#define LOOPBACK_IFINDEX 1

/* In the dynamic build, libnl-route-3 is loaded when lo is brought up,
 * not when sbx starts. Linked, it cost every start of sbx (`--version`,
 * `profile`, `probe`, mode = none) its loading and its constructors, about
 * 0.15 ms and 0.5 MB of RSS; loaded here, in the supervisor after clone(),
 * that time overlaps init's mount work (docs/performance.md). The library
 * is the same one, named by the SONAME configure found; dlopen() follows
 * the usual search (LD_LIBRARY_PATH included, like the dynamic linker
 * would at start). The static build (SBX_STATIC_BINARY) links libnl in,
 * where it costs no loading at all, and fills the same table. */
static struct {
    __typeof__(nl_socket_alloc) *socket_alloc;
    __typeof__(nl_socket_free) *socket_free;
    __typeof__(nl_connect) *connect;
    __typeof__(nl_socket_set_fd) *socket_set_fd;
    __typeof__(nl_geterror) *geterror;
    __typeof__(nl_syserr2nlerr) *syserr2nlerr;
    __typeof__(rtnl_link_alloc) *link_alloc;
    __typeof__(rtnl_link_put) *link_put;
    __typeof__(rtnl_link_set_ifindex) *link_set_ifindex;
    __typeof__(rtnl_link_set_flags) *link_set_flags;
    __typeof__(rtnl_link_change) *link_change;
} nl;

#ifdef SBX_STATIC_BINARY
static void libnl_load(void)
{
    nl.socket_alloc = nl_socket_alloc;
    nl.socket_free = nl_socket_free;
    nl.connect = nl_connect;
    nl.socket_set_fd = nl_socket_set_fd;
    nl.geterror = nl_geterror;
    nl.syserr2nlerr = nl_syserr2nlerr;
    nl.link_alloc = rtnl_link_alloc;
    nl.link_put = rtnl_link_put;
    nl.link_set_ifindex = rtnl_link_set_ifindex;
    nl.link_set_flags = rtnl_link_set_flags;
    nl.link_change = rtnl_link_change;
}
#else
static void *libnl_symbol(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (!f)
        die("bringing up lo: %s has no symbol %s (%s); reinstall the Debian package "
            "libnl-route-3-200", LIBNL_ROUTE_SONAME, name, dlerror());
    return f;
}

static void libnl_load(void)
{
    if (nl.link_change)
        return;
    /* RTLD_LOCAL: nothing else in sbx sees libnl's symbols. Its dependency
     * libnl-3 comes along, and dlsym() on this handle searches it too. */
    void *lib = dlopen(LIBNL_ROUTE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        die("bringing up lo: loading %s failed: %s; install the Debian package libnl-route-3-200",
            LIBNL_ROUTE_SONAME, dlerror());
    /* Assigning a function pointer from dlsym()'s void * is what POSIX
     * specifies for dlsym; C11 does not say, GCC and Clang do it. */
    *(void **)&nl.socket_alloc = libnl_symbol(lib, "nl_socket_alloc");
    *(void **)&nl.socket_free = libnl_symbol(lib, "nl_socket_free");
    *(void **)&nl.connect = libnl_symbol(lib, "nl_connect");
    *(void **)&nl.socket_set_fd = libnl_symbol(lib, "nl_socket_set_fd");
    *(void **)&nl.geterror = libnl_symbol(lib, "nl_geterror");
    *(void **)&nl.syserr2nlerr = libnl_symbol(lib, "nl_syserr2nlerr");
    *(void **)&nl.link_alloc = libnl_symbol(lib, "rtnl_link_alloc");
    *(void **)&nl.link_put = libnl_symbol(lib, "rtnl_link_put");
    *(void **)&nl.link_set_ifindex = libnl_symbol(lib, "rtnl_link_set_ifindex");
    *(void **)&nl.link_set_flags = libnl_symbol(lib, "rtnl_link_set_flags");
    *(void **)&nl.link_change = libnl_symbol(lib, "rtnl_link_change");
    /* Never dlclose()d: the supervisor exits soon, and unloading would run
     * libnl's destructors for nothing. */
}
#endif

/* Every exit frees what libnl allocated first: a die() with the socket
 * still held would be a leak to LeakSanitizer, and would change the exit
 * status under the sanitizer build. fd < 0: a socket of our own. */
static void link_up(int fd)
{
    libnl_load();
    struct nl_sock *sock = nl.socket_alloc();
    struct rtnl_link *orig = nl.link_alloc();
    struct rtnl_link *change = nl.link_alloc();
    const char *step = "allocating a netlink socket and link objects";
    int err = -NLE_NOMEM;
    if (sock && orig && change) {
        if (fd < 0) {
            step = "connecting to rtnetlink";
            err = nl.connect(sock, NETLINK_ROUTE);
        } else {
            step = "adopting the sandbox's rtnetlink socket";
            /* libnl closes the socket it was given: give it a copy */
            int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
            err = copy < 0 ? -nl.syserr2nlerr(errno) : nl.socket_set_fd(sock, NETLINK_ROUTE, copy);
            if (copy >= 0 && err < 0)
                close(copy);
        }
    }
    if (err >= 0) {
        nl.link_set_ifindex(orig, LOOPBACK_IFINDEX);
        nl.link_set_flags(change, IFF_UP);
        /* Setting IFF_UP on a link that is up is a no-op for the kernel,
         * so an lo that is already up needs no special case. */
        step = "RTM_NEWLINK ifindex 1, IFF_UP";
        err = nl.link_change(sock, orig, change, 0);
    }
    if (change)
        nl.link_put(change);
    if (orig)
        nl.link_put(orig);
    if (sock)
        nl.socket_free(sock); /* closes its descriptor: ours, or the caller's dup */
    if (err < 0)
        die("bringing up lo (%s) failed: %s (the sandbox needs CAP_NET_ADMIN in its own network "
            "namespace)", step, nl.geterror(err));
}

void loopback_up(void)
{
    link_up(-1);
}

void loopback_up_through(int sock)
{
    if (sock < 0)
        die("bringing up lo: no rtnetlink socket from the sandbox");
    link_up(sock);
}
