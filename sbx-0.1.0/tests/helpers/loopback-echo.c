/* Binds a TCP listener on 127.0.0.1:0 and [::1]:0, connects to it, and
 * sends a message through: what a network test suite does first. Prints
 * one line per address ("127.0.0.1 ok" or "127.0.0.1 bind: <error>") and
 * exits 0 only when every address worked. Usage: loopback-echo [4] [6] */
#include "loopback-roundtrip.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static int try_family(int family)
{
    const char *name = family == AF_INET ? "127.0.0.1" : "::1";
    const char *step;
    int port;
    if (loopback_roundtrip(family, &step, &port) == 0) {
        printf("%s ok\n", name);
        return 0;
    }
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
