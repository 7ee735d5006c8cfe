#define _GNU_SOURCE
/* socketcall32: built with -m32 by tests/integration/seccomp-i386.sh (not
 * by make: the toolchain may lack multilib). On x86_64 an i386 process
 * enters the kernel through the i386 table, where socket calls can be
 * multiplexed through socketcall(2) with their arguments in memory, out of
 * BPF's sight. Tries bind(127.0.0.1:0) through socketcall(SYS_BIND) and
 * through the direct i386 bind syscall, and prints each result. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/net.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *result(long rc)
{
    if (rc >= 0)
        return "ok";
    const char *n = strerrorname_np(errno);
    return n ? n : "E?";
}

int main(void)
{
#if !defined(__i386__)
    fprintf(stderr, "socketcall32 must be built with -m32\n");
    return 2;
#else
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = 0 };
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    unsigned long sargs[3] = { AF_INET, SOCK_STREAM, 0 };
    long fd = syscall(SYS_socketcall, SYS_SOCKET, sargs);
    printf("socketcall-socket=%s\n", result(fd));
    if (fd < 0)
        return 1;
    unsigned long bargs[3] = { (unsigned long)fd, (unsigned long)&sin, sizeof sin };
    printf("socketcall-bind=%s\n", result(syscall(SYS_socketcall, SYS_BIND, bargs)));
    printf("direct-bind=%s\n", result(syscall(SYS_bind, (int)fd, &sin, sizeof sin)));
    return 0;
#endif
}
