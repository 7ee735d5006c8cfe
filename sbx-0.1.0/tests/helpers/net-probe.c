/* A tiny TCP and UDP server and client for the outbound network tests.
 *
 *   net-probe serve ADDR PORT MARKER PORTFILE
 *       listens on ADDR:PORT with TCP and UDP (PORT 0: an ephemeral port,
 *       the same for both), writes the port to PORTFILE once listening,
 *       and answers every TCP connection and every UDP datagram with
 *       "MARKER\n", until killed.
 *   net-probe tcp ADDR PORT
 *   net-probe udp ADDR PORT
 *       connects (or sends one datagram) and prints "reply MARKER", or
 *       "STEP: <strerror>" / "udp: no reply"; exits 0 only on a reply.
 *       Gives up after 3 s.
 * IPv4 addresses only: the tests use 127.0.0.1 and a private /30. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int usage(void)
{
    fprintf(stderr, "usage: net-probe serve ADDR PORT MARKER PORTFILE | tcp ADDR PORT | udp ADDR PORT\n");
    return 2;
}

static int parse_addr(const char *addr, const char *port, struct sockaddr_in *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)atoi(port));
    return inet_pton(AF_INET, addr, &sa->sin_addr) == 1 ? 0 : -1;
}

static void fail(const char *step)
{
    printf("%s: %s\n", step, strerror(errno));
    exit(1);
}

static _Noreturn void serve(struct sockaddr_in *sa, const char *marker, const char *portfile)
{
    int t = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (t < 0 || bind(t, (struct sockaddr *)sa, sizeof *sa) < 0 || listen(t, 16) < 0)
        fail("tcp bind");
    socklen_t len = sizeof *sa;
    getsockname(t, (struct sockaddr *)sa, &len);
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    if (u < 0 || bind(u, (struct sockaddr *)sa, sizeof *sa) < 0)
        fail("udp bind");

    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", portfile);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%u\n", ntohs(sa->sin_port)) < 0 || fclose(f) != 0 || rename(tmp, portfile) < 0)
        fail("writing the port file");

    char reply[256];
    snprintf(reply, sizeof reply, "%s\n", marker);
    for (;;) {
        struct pollfd pfd[2] = { { .fd = t, .events = POLLIN }, { .fd = u, .events = POLLIN } };
        if (poll(pfd, 2, -1) < 0)
            continue;
        if (pfd[0].revents & POLLIN) {
            int c = accept(t, NULL, NULL);
            if (c >= 0) {
                if (write(c, reply, strlen(reply)) < 0)
                    perror("write");
                close(c);
            }
        }
        if (pfd[1].revents & POLLIN) {
            struct sockaddr_in from;
            socklen_t flen = sizeof from;
            char buf[512];
            if (recvfrom(u, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen) >= 0)
                sendto(u, reply, strlen(reply), 0, (struct sockaddr *)&from, flen);
        }
    }
}

static int print_reply(const char *buf, ssize_t n)
{
    if (n <= 0) {
        printf("no reply\n");
        return 1;
    }
    printf("reply %.*s", (int)n, buf);
    if (buf[n - 1] != '\n')
        printf("\n");
    return 0;
}

static int client(struct sockaddr_in *sa, int type)
{
    int s = socket(AF_INET, type, 0);
    if (s < 0)
        fail("socket");
    struct timeval tv = { 3, 0 };
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(s, (struct sockaddr *)sa, sizeof *sa) < 0)
        fail("connect");
    char buf[256];
    if (type == SOCK_DGRAM && send(s, "?", 1, 0) < 0)
        fail("send");
    ssize_t n = recv(s, buf, sizeof buf, 0);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        fail("recv");
    return print_reply(buf, n);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    struct sockaddr_in sa;
    if (argc == 6 && !strcmp(argv[1], "serve")) {
        if (parse_addr(argv[2], argv[3], &sa) < 0)
            return usage();
        serve(&sa, argv[4], argv[5]);
    }
    if (argc == 4 && (!strcmp(argv[1], "tcp") || !strcmp(argv[1], "udp"))) {
        if (parse_addr(argv[2], argv[3], &sa) < 0)
            return usage();
        return client(&sa, !strcmp(argv[1], "tcp") ? SOCK_STREAM : SOCK_DGRAM);
    }
    return usage();
}
