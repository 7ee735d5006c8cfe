/* The quick start's demo and a test helper: does what an async test suite
 * needs from its sandbox, and says exactly what failed.
 *   loopback-fds [NFILES]
 * binds 127.0.0.1:0 and [::1]:0, connects to each and echoes a byte, then
 * opens NFILES (default 2000) descriptors. Exit 0 only if all of it works. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static int failures;

static void fail(const char *what, int err)
{
    fprintf(stderr, "loopback-fds: %s: %s (errno %d)\n", what, strerror(err), err);
    failures++;
}

static void roundtrip(int family, const char *label)
{
    struct sockaddr_storage ss;
    socklen_t len;
    memset(&ss, 0, sizeof ss);
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
    char what[128];
    int srv = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (srv < 0) {
        snprintf(what, sizeof what, "socket(%s)", label);
        fail(what, errno);
        return;
    }
    if (bind(srv, (struct sockaddr *)&ss, len) < 0) {
        snprintf(what, sizeof what, "bind(%s:0)", label);
        fail(what, errno);
        close(srv);
        return;
    }
    listen(srv, 1);
    getsockname(srv, (struct sockaddr *)&ss, &len);
    int port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                       : ((struct sockaddr_in6 *)&ss)->sin6_port);
    int cli = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (cli < 0 || connect(cli, (struct sockaddr *)&ss, len) < 0) {
        snprintf(what, sizeof what, "connect(%s:%d)", label, port);
        fail(what, errno);
        close(srv);
        if (cli >= 0)
            close(cli);
        return;
    }
    int conn = accept(srv, NULL, NULL);
    char c = 'x', back = 0;
    if (conn < 0 || write(cli, &c, 1) != 1 || read(conn, &back, 1) != 1 || back != 'x') {
        snprintf(what, sizeof what, "echo over %s:%d", label, port);
        fail(what, errno ? errno : EIO);
    } else {
        printf("loopback %s: bind, connect and echo on port %d work\n", label, port);
    }
    if (conn >= 0)
        close(conn);
    close(cli);
    close(srv);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
    roundtrip(AF_INET, "127.0.0.1");
    roundtrip(AF_INET6, "[::1]");
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    long opened = 0;
    for (; opened < n; opened++) {
        if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0) {
            char what[128];
            snprintf(what, sizeof what, "open() number %ld of %ld (RLIMIT_NOFILE soft %llu)", opened + 1, n,
                     (unsigned long long)rl.rlim_cur);
            fail(what, errno);
            break;
        }
    }
    if (opened == n)
        printf("descriptors: opened %ld files (RLIMIT_NOFILE soft %llu, hard %llu)\n", n,
               (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
    if (failures)
        fprintf(stderr, "loopback-fds: %d check%s failed\n", failures, failures == 1 ? "" : "s");
    else
        printf("all good: this sandbox can run network tests\n");
    return failures ? 1 : 0;
}
