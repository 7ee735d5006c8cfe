/* A tiny DNS responder over UDP for the outbound DNS tests.
 *
 *   dns-answer ADDR PORT NAME IPV4 READYFILE
 *       answers a query for NAME (case-insensitive) of type A with one
 *       record, IPV4; for NAME of another type with no record (NODATA);
 *       for any other name with NXDOMAIN. Writes READYFILE once bound,
 *       prints "query NAME TYPE" for every query on stdout, until killed.
 * Written for the tests (RFC 1035 sections 4.1.1-4.1.3); no compression
 * in questions, which stub resolvers never send. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

enum { HEADER = 12, TYPE_A = 1, CLASS_IN = 1, RCODE_NXDOMAIN = 3 };

/* The question's name as "a.b.c" and the offset after it, or 0. */
static size_t read_name(const unsigned char *msg, size_t len, char *out, size_t out_len)
{
    size_t pos = HEADER, used = 0;
    for (;;) {
        if (pos >= len)
            return 0;
        size_t label = msg[pos++];
        if (label == 0)
            break;
        if (label > 63 || pos + label > len || used + label + 2 > out_len)
            return 0;
        if (used)
            out[used++] = '.';
        memcpy(out + used, msg + pos, label);
        used += label;
        pos += label;
    }
    out[used] = '\0';
    return pos;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: dns-answer ADDR PORT NAME IPV4 READYFILE\n");
        return 2;
    }
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])) };
    struct in_addr answer;
    if (inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1 || inet_pton(AF_INET, argv[4], &answer) != 1) {
        fprintf(stderr, "dns-answer: bad address\n");
        return 2;
    }
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) < 0) {
        perror("dns-answer: bind");
        return 1;
    }
    FILE *ready = fopen(argv[5], "w");
    if (!ready || fclose(ready) != 0) {
        perror(argv[5]);
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (;;) {
        unsigned char msg[512 + 16];
        struct sockaddr_in peer;
        socklen_t peer_len = sizeof peer;
        ssize_t n = recvfrom(s, msg, 512, 0, (struct sockaddr *)&peer, &peer_len);
        if (n < HEADER)
            continue;
        /* One question, and it is a query (QR 0, opcode 0). */
        if ((msg[2] & 0xf8) != 0 || msg[4] != 0 || msg[5] != 1)
            continue;
        char name[256];
        size_t end = read_name(msg, (size_t)n, name, sizeof name);
        if (!end || end + 4 > (size_t)n)
            continue;
        unsigned type = (unsigned)msg[end] << 8 | msg[end + 1];
        unsigned class = (unsigned)msg[end + 2] << 8 | msg[end + 3];
        end += 4;
        printf("query %s %u\n", name, type);
        bool known = !strcasecmp(name, argv[3]);
        bool answered = known && type == TYPE_A && class == CLASS_IN;
        /* Header: same id, QR and RA set, RD copied; the question kept;
         * nothing in the authority and additional sections. */
        msg[2] = 0x80 | (msg[2] & 0x01);
        msg[3] = 0x80 | (known ? 0 : RCODE_NXDOMAIN);
        memset(msg + 6, 0, 6);
        size_t len = end;
        if (answered) {
            msg[7] = 1;
            static const unsigned char rr[] = {
                0xc0, HEADER,          /* the name: a pointer to the question's */
                0, TYPE_A, 0, CLASS_IN,
                0, 0, 0, 60,           /* TTL */
                0, 4,
            };
            memcpy(msg + len, rr, sizeof rr);
            len += sizeof rr;
            memcpy(msg + len, &answer, 4);
            len += 4;
        }
        sendto(s, msg, len, 0, (struct sockaddr *)&peer, peer_len);
    }
}
