/* ledger_format_sockaddr() reads bytes another process chose: every
 * length and every byte must give a short printable string, never a read
 * past the input or a write past the output (ASan in CI). */
#include "config.h"

#include "ledger.h"
#include "../tap.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

static char out[64];

static const char *fmt(const void *raw, size_t len, int *family)
{
    *family = ledger_format_sockaddr(raw, len, out, sizeof out);
    return out;
}

/* xorshift: a fixed sequence, so a failure reproduces */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(void)
{
    plan(17);
    int family;

    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(8080) };
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    is_str(fmt(&sin, sizeof sin, &family), "127.0.0.1:8080", "AF_INET");
    is_int(family, AF_INET, "AF_INET family");
    is_str(fmt(&sin, sizeof sin - 1, &family), "", "AF_INET one byte short: no address");

    struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(443) };
    sin6.sin6_addr = in6addr_loopback;
    is_str(fmt(&sin6, sizeof sin6, &family), "[::1]:443", "AF_INET6");

    /* A v4-mapped address is an IPv6 one (the kernel connects it as IPv4
     * on a dual-stack socket, and refuses it on an IPV6_V6ONLY one):
     * printed as such, never as a bare 127.0.0.1. */
    inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6.sin6_addr);
    sin6.sin6_port = htons(25);
    is_str(fmt(&sin6, sizeof sin6, &family), "[::ffff:127.0.0.1]:25", "v4-mapped IPv6 stays IPv6");
    is_int(family, AF_INET6, "v4-mapped: family AF_INET6");
    /* An AF_INET sockaddr is formatted by its own family, whatever the
     * socket it was given to (ledger_format_entry names both). */
    struct sockaddr_in6 v4_in_v6_buffer;
    memset(&v4_in_v6_buffer, 0, sizeof v4_in_v6_buffer);
    memcpy(&v4_in_v6_buffer, &sin, sizeof sin);
    is_int(ledger_format_sockaddr(&v4_in_v6_buffer, sizeof v4_in_v6_buffer, out, sizeof out),
           AF_INET, "an AF_INET sockaddr in an AF_INET6-sized buffer: AF_INET");

    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    strcpy(sun.sun_path, "/run/test.sock");
    is_str(fmt(&sun, offsetof(struct sockaddr_un, sun_path) + 15, &family), "/run/test.sock", "AF_UNIX path");
    is_str(fmt(&sun, offsetof(struct sockaddr_un, sun_path), &family), "unnamed", "AF_UNIX unnamed");
    memcpy(sun.sun_path, "\0abstract", 9);
    is_str(fmt(&sun, offsetof(struct sockaddr_un, sun_path) + 9, &family), "@abstract", "AF_UNIX abstract");
    memset(sun.sun_path, 'x', sizeof sun.sun_path);
    fmt(&sun, sizeof sun, &family);
    ok(strlen(out) < sizeof out, "AF_UNIX path of 108 bytes without NUL: cut, %zu chars", strlen(out));
    memcpy(sun.sun_path, "/a\nb\033c", 7);
    is_str(fmt(&sun, offsetof(struct sockaddr_un, sun_path) + 7, &family), "/a?b?c", "control bytes replaced");

    is_int(ledger_format_sockaddr(&sin, 1, out, sizeof out), -1, "1 byte: no family");
    is_int(ledger_format_sockaddr(&sin, 0, out, sizeof out), -1, "0 bytes: no family");
    is_int(ledger_format_sockaddr(&sin, sizeof sin, out, 0), -1, "no room for the output: nothing written");

    /* 200 000 random inputs; a third with a family we format */
    unsigned char buf[200];
    size_t bad = 0;
    for (int i = 0; i < 200000; i++) {
        size_t len = next_random() % sizeof buf;
        for (size_t k = 0; k < len; k++)
            buf[k] = (unsigned char)next_random();
        if (len >= 2 && i % 3 == 0) {
            sa_family_t f = (sa_family_t)((const int[]){ AF_INET, AF_INET6, AF_UNIX })[next_random() % 3];
            memcpy(buf, &f, sizeof f);
        }
        size_t outlen = 1 + next_random() % sizeof out;
        memset(out, 'Z', sizeof out);
        ledger_format_sockaddr(buf, len, out, outlen);
        size_t n = strnlen(out, outlen);
        if (n >= outlen) {
            bad++;
            continue;
        }
        for (size_t k = 0; k < n; k++)
            if (out[k] < 0x20 || out[k] > 0x7e)
                bad++;
    }
    is_int(bad, 0, "random inputs: always NUL-terminated within the buffer, printable");
    ok(1, "survived 200 000 random inputs");
    return done_testing();
}
