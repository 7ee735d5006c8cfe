/* What a network test suite does first, shared by the helpers that check
 * it (loopback-echo, loopback-fds): bind a TCP listener on the loopback
 * address of `family` at port 0, connect to it, and pass "ping" through. */
#ifndef SBX_LOOPBACK_ROUNDTRIP_H
#define SBX_LOOPBACK_ROUNDTRIP_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* 0 on success with *port set; -1 with errno kept and *step naming the
 * call that failed ("bind", "connect", ...). */
static inline int loopback_roundtrip(int family, const char **step, int *port)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        len = sizeof *a;
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
        len = sizeof *a;
    }
    int lfd = -1, cfd = -1, afd = -1, result = -1;
    char buf[8] = "";
    *port = 0;
    *step = "socket";
    if ((lfd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        goto out;
    *step = "bind";
    if (bind(lfd, (struct sockaddr *)&ss, len) < 0)
        goto out;
    *step = "listen";
    if (listen(lfd, 1) < 0)
        goto out;
    *step = "getsockname";
    if (getsockname(lfd, (struct sockaddr *)&ss, &len) < 0)
        goto out;
    *port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                    : ((struct sockaddr_in6 *)&ss)->sin6_port);
    *step = "connect";
    if ((cfd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        connect(cfd, (struct sockaddr *)&ss, len) < 0)
        goto out;
    *step = "accept";
    if ((afd = accept(lfd, NULL, NULL)) < 0)
        goto out;
    *step = "send";
    if (write(cfd, "ping", 4) != 4)
        goto out;
    *step = "recv";
    if (read(afd, buf, sizeof buf) != 4 || memcmp(buf, "ping", 4)) {
        if (!errno)
            errno = EIO;
        goto out;
    }
    result = 0;
out:;
    int saved = errno;
    if (afd >= 0)
        close(afd);
    if (cfd >= 0)
        close(cfd);
    if (lfd >= 0)
        close(lfd);
    errno = saved;
    return result;
}

#endif
