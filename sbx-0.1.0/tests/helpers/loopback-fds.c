/* The quick start's demo and a test helper: does what an async test suite
 * needs from its sandbox, and says exactly what failed.
 *   loopback-fds [NFILES]
 * binds 127.0.0.1:0 and [::1]:0, connects to each and echoes a byte, then
 * opens NFILES (default 2000) descriptors. Exit 0 only if all of it works. */
#include "loopback-roundtrip.h"

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
    const char *step;
    int port;
    if (loopback_roundtrip(family, &step, &port) == 0) {
        printf("loopback %s: bind, connect and echo on port %d work\n", label, port);
        return;
    }
    char what[128];
    snprintf(what, sizeof what, "%s(%s:%d)", step, label, port);
    fail(what, errno);
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
