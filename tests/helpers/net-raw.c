/* Test helper for raw, ping and packet sockets (tests/integration/
 * escape-netraw.sh). Prints one line per attempt, "OP ARGS: ok" or
 * "OP ARGS: ERRNO-NAME"; exit status 0 when the attempt was made, 2 on bad
 * usage.
 *
 *   net-raw socket FAMILY TYPE PROTO   socket(); FAMILY inet|inet6|packet|xdp,
 *                                      TYPE raw|dgram|packet, PROTO icmp|icmpv6|udp|N
 *   net-raw ping ADDR                  an ICMP echo through an ICMP datagram
 *                                      ("ping") socket; "ok" on the reply
 *   net-raw raw-ping ADDR              the same through a raw ICMP socket
 *   net-raw send-udp ADDR PORT TEXT N  N datagrams holding TEXT, 20 ms apart
 *   net-raw sniff SECONDS TEXT...      a raw IPPROTO_UDP socket, which gets a
 *                                      copy of every UDP datagram of its
 *                                      network namespace; prints "listening",
 *                                      then "seen TEXT COUNT" for each TEXT
 *
 * --nested first: the attempt is made from a new user + network namespace
 * of the helper's own, where it holds every capability (as a command of a
 * sandbox with nested_userns = yes can); it prints "nested: ok" or the
 * errno of unshare(). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif

static int report(const char *what, int rc)
{
    printf("%s: %s\n", what, rc >= 0 ? "ok" : strerrorname_np(errno));
    fflush(stdout);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: net-raw [--nested] socket|ping|raw-ping|send-udp|sniff ARGS...\n");
    return 2;
}

static int word(const char *s, const char *const *names, const int *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return values[i];
    return atoi(s);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void nested(void)
{
    uid_t uid = geteuid();
    gid_t gid = getegid();
    int rc = unshare(CLONE_NEWUSER | CLONE_NEWNET);
    if (rc == 0) {
        char map[64];
        write_file("/proc/self/setgroups", "deny");
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
        rc = write_file("/proc/self/uid_map", map);
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
        if (rc == 0)
            rc = write_file("/proc/self/gid_map", map);
    }
    report("nested", rc);
    if (rc < 0)
        exit(0);
}

static unsigned short checksum(const void *data, size_t len)
{
    const unsigned char *p = data;
    unsigned long sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2)
        sum += (unsigned)(p[i] << 8 | p[i + 1]);
    if (len & 1)
        sum += (unsigned)(p[len - 1] << 8);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return htons((unsigned short)~sum);
}

/* One echo request to addr on fd, then a reply within a second: a raw
 * socket gets the IP header first, a ping socket does not. */
static int echo(int fd, const char *addr, bool raw)
{
    struct sockaddr_in to = { .sin_family = AF_INET };
    if (inet_pton(AF_INET, addr, &to.sin_addr) != 1) {
        errno = EINVAL;
        return -1;
    }
    struct icmphdr req = { .type = ICMP_ECHO };
    req.un.echo.id = htons(0x5b5b);
    req.un.echo.sequence = htons(1);
    req.checksum = checksum(&req, sizeof req);
    if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&to, sizeof to) < 0)
        return -1;
    for (int tries = 0; tries < 10; tries++) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        if (poll(&pfd, 1, 1000) <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        unsigned char buf[1500];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0)
            return -1;
        size_t off = raw ? (size_t)(buf[0] & 0xf) * 4 : 0;
        if ((size_t)n >= off + sizeof(struct icmphdr) &&
            ((struct icmphdr *)(buf + off))->type == ICMP_ECHOREPLY)
            return 0;
    }
    errno = ENOMSG;
    return -1;
}

static int sniff(int argc, char **argv)
{
    int seconds = atoi(argv[2]);
    int n = argc - 3;
    long counts[16] = { 0 };
    if (n < 1 || n > 16)
        return usage();
    int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_UDP);
    if (fd < 0)
        return report("sniff", -1);
    printf("listening\n");
    fflush(stdout);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = seconds * 1000L - ((now.tv_sec - start.tv_sec) * 1000L +
                                       (now.tv_nsec - start.tv_nsec) / 1000000L);
        if (left <= 0)
            break;
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        if (poll(&pfd, 1, (int)left) <= 0)
            continue;
        char buf[2048];
        ssize_t got = recv(fd, buf, sizeof buf - 1, 0);
        if (got <= 0)
            continue;
        for (int i = 0; i < n; i++)
            if (memmem(buf, (size_t)got, argv[3 + i], strlen(argv[3 + i])))
                counts[i]++;
    }
    for (int i = 0; i < n; i++)
        printf("seen %s %ld\n", argv[3 + i], counts[i]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--nested")) {
        nested();
        argv++;
        argc--;
    }
    if (argc < 2)
        return usage();
    const char *op = argv[1];
    char what[256];
    if (!strcmp(op, "socket") && argc == 5) {
        static const char *const fnames[] = { "inet", "inet6", "packet", "xdp" };
        static const int fvalues[] = { AF_INET, AF_INET6, AF_PACKET, AF_XDP };
        static const char *const tnames[] = { "raw", "dgram", "packet" };
        static const int tvalues[] = { SOCK_RAW, SOCK_DGRAM, SOCK_PACKET };
        static const char *const pnames[] = { "icmp", "icmpv6", "udp" };
        static const int pvalues[] = { IPPROTO_ICMP, IPPROTO_ICMPV6, IPPROTO_UDP };
        int fd = socket(word(argv[2], fnames, fvalues, 4), word(argv[3], tnames, tvalues, 3),
                        word(argv[4], pnames, pvalues, 3));
        snprintf(what, sizeof what, "socket %s %s %s", argv[2], argv[3], argv[4]);
        return report(what, fd);
    }
    if ((!strcmp(op, "ping") || !strcmp(op, "raw-ping")) && argc == 3) {
        bool raw = !strcmp(op, "raw-ping");
        int fd = socket(AF_INET, (raw ? SOCK_RAW : SOCK_DGRAM) | SOCK_CLOEXEC, IPPROTO_ICMP);
        snprintf(what, sizeof what, "%s %s", op, argv[2]);
        return report(what, fd < 0 ? -1 : echo(fd, argv[2], raw));
    }
    if (!strcmp(op, "send-udp") && argc == 6) {
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[3])) };
        inet_pton(AF_INET, argv[2], &to.sin_addr);
        int rc = fd;
        for (int i = 0; rc >= 0 && i < atoi(argv[5]); i++) {
            rc = (int)sendto(fd, argv[4], strlen(argv[4]), 0, (struct sockaddr *)&to, sizeof to);
            usleep(20000);
        }
        snprintf(what, sizeof what, "send-udp %s", argv[4]);
        return report(what, rc);
    }
    if (!strcmp(op, "sniff") && argc >= 4)
        return sniff(argc, argv);
    return usage();
}
