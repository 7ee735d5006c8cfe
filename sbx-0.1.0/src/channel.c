#include "config.h"

#include "channel.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

bool channel_send(int sock, int type, int value, int pass_fd)
{
    struct channel_msg msg = { .type = type, .value = value };
    struct iovec iov = { .iov_base = &msg, .iov_len = sizeof msg };
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

    if (pass_fd >= 0) {
        memset(&control, 0, sizeof control);
        mh.msg_control = control.buf;
        mh.msg_controllen = sizeof control.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
    }
    for (;;) {
        /* MSG_NOSIGNAL: a dead supervisor must not kill us with SIGPIPE
         * before we can report it. */
        ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        if (n == (ssize_t)sizeof msg)
            return true;
        if (n < 0 && errno == EINTR)
            continue;
        if (n >= 0)
            errno = EMSGSIZE;
        return false;
    }
}

int channel_recv(int sock, struct channel_msg *msg, int *fd_out, bool nonblock)
{
    struct iovec iov = { .iov_base = msg, .iov_len = sizeof *msg };
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr mh = {
        .msg_iov = &iov,
        .msg_iovlen = 1,
        .msg_control = control.buf,
        .msg_controllen = sizeof control.buf,
    };
    *fd_out = -1;
    ssize_t n;
    do
        n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | (nonblock ? MSG_DONTWAIT : 0));
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len >= CMSG_LEN(sizeof(int))) {
            /* Only one fd is ever sent; close any extra a confused sender
             * attached so it cannot leak into the supervisor. */
            size_t nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < nfds; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (*fd_out < 0)
                    *fd_out = fd;
                else
                    close(fd);
            }
        }
    }
    if (n == 0)
        return 0;
    if ((size_t)n != sizeof *msg || (mh.msg_flags & MSG_TRUNC)) {
        if (*fd_out >= 0)
            close(*fd_out);
        *fd_out = -1;
        errno = EPROTO;
        return -1;
    }
    return 1;
}
