/* Binds a TCP listener on 127.0.0.1:0 and [::1]:0, connects to it, and
 * sends a message through: what a network test suite does first. Prints
 * one line per address ("127.0.0.1 ok" or "127.0.0.1 bind: <error>") and
 * exits 0 only when every address worked. Usage: loopback-echo [4] [6] */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int try_family(int family)
{
    const char *name = family == AF_INET ? "127.0.0.1" : "::1";
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
    const char *step = "socket";
    int lfd = socket(family, SOCK_STREAM, 0), cfd = -1, afd = -1;
    if (lfd < 0)
        goto fail;
    step = "bind";
    if (bind(lfd, (struct sockaddr *)&ss, len) < 0)
        goto fail;
    step = "listen";
    if (listen(lfd, 1) < 0)
        goto fail;
    step = "getsockname";
    if (getsockname(lfd, (struct sockaddr *)&ss, &len) < 0)
        goto fail;
    step = "connect";
    cfd = socket(family, SOCK_STREAM, 0);
    if (cfd < 0 || connect(cfd, (struct sockaddr *)&ss, len) < 0)
        goto fail;
    step = "accept";
    afd = accept(lfd, NULL, NULL);
    if (afd < 0)
        goto fail;
    step = "send";
    if (write(cfd, "ping", 4) != 4)
        goto fail;
    char buf[8] = "";
    step = "recv";
    if (read(afd, buf, sizeof buf) != 4 || memcmp(buf, "ping", 4))
        goto fail;
    printf("%s ok\n", name);
    close(afd);
    close(cfd);
    close(lfd);
    return 0;
fail:
    printf("%s %s: %s\n", name, step, strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    int failed = 0;
    if (argc < 2) {
        failed += try_family(AF_INET);
        failed += try_family(AF_INET6);
    }
    for (int i = 1; i < argc; i++)
        failed += try_family(!strcmp(argv[i], "6") ? AF_INET6 : AF_INET);
    fflush(stdout);
    return failed ? 1 : 0;
}
