/* The hang of issue 16 (CPython's test_httpservers under restrictive), in
 * small: binds a TCP socket on 127.0.0.1 and exits 0 ("bound"); when bind()
 * fails, prints "bind failed: EPERM" and waits until a signal kills it, as
 * a test waiting for a server that never started does. */
#define _GNU_SOURCE
#include "helper-util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

int main(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int rc = s < 0 ? -1 : bind(s, (struct sockaddr *)&a, sizeof a);
    if (rc == 0) {
        printf("bound\n");
        return 0;
    }
    printf("bind failed: %s\n", errno_result(rc, errno));
    fflush(stdout);
    for (;;)
        pause();
}
