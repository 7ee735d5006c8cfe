/* The Landlock tier's address checks (landlock_net.h): what the
 * supervisor makes for the command on the host's network is decided by
 * these from bytes the command chose, so every length and family is
 * tried, and what counts as loopback is exactly 127/8, ::1 and
 * ::ffff:127/104. */
#include "config.h"

#include "landlock_net.h"
#include "../tap.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

static struct sockaddr_in v4(const char *ip)
{
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(80) };
    inet_pton(AF_INET, ip, &sin.sin_addr);
    return sin;
}

static struct sockaddr_in6 v6(const char *ip)
{
    struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(80) };
    inet_pton(AF_INET6, ip, &sin6.sin6_addr);
    return sin6;
}

int main(void)
{
    plan(16);
    struct sockaddr_in a = v4("127.0.0.1");
    ok(landlock_net_is_loopback(&a, sizeof a), "127.0.0.1 is loopback");
    a = v4("127.255.3.4");
    ok(landlock_net_is_loopback(&a, sizeof a), "127.255.3.4 is loopback (127/8)");
    a = v4("128.0.0.1");
    ok(!landlock_net_is_loopback(&a, sizeof a), "128.0.0.1 is not");
    a = v4("10.0.0.1");
    ok(!landlock_net_is_loopback(&a, sizeof a), "10.0.0.1 is not");
    a = v4("0.0.0.0");
    ok(!landlock_net_is_loopback(&a, sizeof a) && landlock_net_is_wildcard(&a, sizeof a),
       "0.0.0.0 is the wildcard, not loopback");
    a = v4("127.0.0.1");
    ok(!landlock_net_is_loopback(&a, sizeof a - 1), "an AF_INET address one byte short is nothing");
    ok(!landlock_net_is_loopback(&a, 1) && !landlock_net_is_wildcard(&a, 0), "1 and 0 bytes: nothing");

    struct sockaddr_in6 b = v6("::1");
    ok(landlock_net_is_loopback(&b, sizeof b), "::1 is loopback");
    b = v6("::ffff:127.0.0.1");
    ok(landlock_net_is_loopback(&b, sizeof b), "::ffff:127.0.0.1 is loopback (v4-mapped)");
    b = v6("::ffff:10.0.0.1");
    ok(!landlock_net_is_loopback(&b, sizeof b), "::ffff:10.0.0.1 is not");
    b = v6("::127.0.0.1");
    ok(!landlock_net_is_loopback(&b, sizeof b), "::127.0.0.1 (v4-compatible) is not");
    b = v6("fe80::1");
    ok(!landlock_net_is_loopback(&b, sizeof b), "fe80::1 is not");
    b = v6("::");
    ok(landlock_net_is_wildcard(&b, sizeof b) && !landlock_net_is_loopback(&b, sizeof b),
       ":: is the wildcard, not loopback");
    b = v6("::1");
    ok(!landlock_net_is_loopback(&b, sizeof b - 1), "an AF_INET6 address one byte short is nothing");

    /* an AF_INET address in an AF_INET6-sized buffer is judged by its own family */
    struct sockaddr_in6 big;
    memset(&big, 0, sizeof big);
    a = v4("127.0.0.1");
    memcpy(&big, &a, sizeof a);
    ok(landlock_net_is_loopback(&big, sizeof big), "AF_INET in a larger buffer: by its family");

    struct sockaddr_un un = { .sun_family = AF_UNIX };
    strcpy(un.sun_path, "127.0.0.1");
    ok(!landlock_net_is_loopback(&un, sizeof un), "an AF_UNIX address is never loopback");
    return done_testing();
}
