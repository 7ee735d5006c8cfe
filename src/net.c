#include "config.h"

#include "net.h"

#include "log.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* lo is created first in every network namespace, so it is always index 1
 * (net/core/dev.c reserves it for the loopback device). Naming it by index
 * saves the RTM_GETLINK round trip a lookup by name would cost. */
#define LOOPBACK_IFINDEX 1

/* Why not libnl-route-3: this one message is all sbx says over netlink,
 * and linking libnl-route-3 cost every run of sbx, even `sbx --version`,
 * about 0.2 ms and 0.9 MB of resident memory at start-up (its
 * constructors register every object type and read /etc/libnl/classid).
 * See docs/performance.md. */
void loopback_up(void)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        die_errno("bringing up lo: socket(AF_NETLINK, NETLINK_ROUTE)");

    /* Setting IFF_UP on a link that is up is a no-op for the kernel, so
     * an lo that is already up needs no special case. */
    struct {
        struct nlmsghdr header;
        struct ifinfomsg link;
    } request = {
        .header = {
            .nlmsg_len = sizeof request,
            .nlmsg_type = RTM_NEWLINK,
            .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
            .nlmsg_seq = 1,
        },
        .link = {
            .ifi_family = AF_UNSPEC,
            .ifi_index = LOOPBACK_IFINDEX,
            .ifi_flags = IFF_UP,
            .ifi_change = IFF_UP,
        },
    };
    struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
    ssize_t n;
    do
        n = sendto(fd, &request, sizeof request, 0, (struct sockaddr *)&kernel, sizeof kernel);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof request)
        die_errno("bringing up lo: sending RTM_NEWLINK (ifindex %d, IFF_UP) to rtnetlink",
                  LOOPBACK_IFINDEX);

    /* The answer is an NLMSG_ERROR: error 0 is the ACK. On failure it
     * quotes our request after the error, hence room for more than one
     * nlmsgerr. */
    union {
        struct nlmsghdr header;
        char bytes[1024];
    } answer;
    do
        n = recv(fd, &answer, sizeof answer, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        die_errno("bringing up lo: reading rtnetlink's answer to RTM_NEWLINK");
    if ((size_t)n < NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
        answer.header.nlmsg_type != NLMSG_ERROR || answer.header.nlmsg_seq != request.header.nlmsg_seq)
        die("bringing up lo: unexpected answer to RTM_NEWLINK from rtnetlink "
            "(type %u, %zd bytes)", (unsigned)answer.header.nlmsg_type, n);
    int error;
    memcpy(&error, NLMSG_DATA(&answer.header), sizeof error); /* nlmsgerr.error */
    if (error < 0)
        die_with_errno(-error, "bringing up lo (RTM_NEWLINK ifindex %d, IFF_UP) failed "
                       "(the sandbox needs CAP_NET_ADMIN in its own network namespace)",
                       LOOPBACK_IFINDEX);
    close(fd);
}
