/* Unit test of the sandbox's /etc/resolv.conf made from the host's bytes
 * (resolv.c): the nameservers replaced by pasta's forwarding address, the
 * search and options lines kept, everything else dropped, and the
 * upstream pasta forwards to found as pasta finds it. */
#include "config.h"

#include "../tap.h"

#include "resolv.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define FWD RESOLV_FORWARD_ADDRESS
#define HEAD "# Made by sbx: DNS queries to " FWD " go through pasta to the host's resolver.\n" \
             "nameserver " FWD "\n"

static char upstream[16];

static char *gen(const char *host, size_t len)
{
    return resolv_conf_generate(host, len, FWD, upstream, sizeof upstream);
}

static void check(const char *host, const char *want, const char *want_upstream, const char *what)
{
    char *got = gen(host, strlen(host));
    is_str(got, want, "%s: the file", what);
    is_str(upstream, want_upstream, "%s: the upstream", what);
    free(got);
}

int main(void)
{
    plan(21);
    check("nameserver 127.0.0.53\noptions edns0 trust-ad\nsearch example.org\n",
          HEAD "options edns0 trust-ad\nsearch example.org\n", "127.0.0.53",
          "systemd-resolved's stub file");
    check("# comment\n; comment\nnameserver 10.0.0.1\nnameserver 10.0.0.2\ndomain lan\n",
          HEAD "domain lan\n", "10.0.0.1", "two nameservers: pasta forwards to the first");
    check("nameserver fe80::1%eth0\nnameserver\tfd00::1\nnameserver 192.168.1.1\n",
          HEAD, "192.168.1.1", "IPv6 nameservers are skipped, the first IPv4 one is used");
    check("nameserver ::1\n", HEAD, "", "only IPv6: no upstream");
    check("", HEAD, "", "an empty file: no upstream");
    check(" nameserver 10.0.0.9\nnameserver10.0.0.8\nsearchfoo\n  search x\nsortlist 10.0.0.0\n"
          "nameserver 999.1.1.1\nnameserver 10.0.0.7 junk\nnameserver\t10.0.0.5\n"
          "nameserver   10.0.0.6%x\n",
          HEAD, "10.0.0.6",
          "garbage: indented keywords, keywords without a blank, bad addresses are dropped");
    check("nameserver 10.0.0.1\r\nnameserver 10.0.0.2\n", HEAD, "10.0.0.2",
          "as pasta reads it: a CR after the address makes it no address");
    check("search a b\r\noptions ndots:2", HEAD "search a b\r\noptions ndots:2\n", "",
          "CR kept as the host has it, a last line without newline ends with one");

    /* Bytes a C string would cut: a NUL inside a line drops that line only. */
    static const char with_nul[] = "search ev\0il\nnameserver 10.1.2.3\noptions rotate\n";
    char *got = gen(with_nul, sizeof with_nul - 1);
    is_str(got, HEAD "options rotate\n", "a line with a NUL byte is dropped");
    is_str(upstream, "10.1.2.3", "and the lines after it still count");
    free(got);

    /* 4 MiB of garbage and one kept line: the output stays small. */
    size_t big = 4u << 20;
    char *huge = xmalloc(big);
    memset(huge, 'x', big);
    for (size_t i = 80; i < big; i += 81)
        huge[i] = '\n';
    memcpy(huge + big / 2 - (big / 2) % 81, "search deep.example\n", 20);
    got = gen(huge, big);
    is_str(got, HEAD "search deep.example\n", "4 MiB of garbage: only the valid line is kept");
    free(got);
    /* One 4 MiB line of "options": kept whole, as glibc would read it. */
    memcpy(huge, "options ", 8);
    memset(huge + 8, 'y', big - 8);
    got = gen(huge, big);
    ok(got && strlen(got) == strlen(HEAD) + big + 1, "a 4 MiB options line is copied whole");
    free(got);
    free(huge);

    got = resolv_conf_generate("nameserver 10.9.9.9\n", 20, FWD, NULL, 0);
    is_str(got, HEAD, "no upstream buffer: the file alone");
    free(got);
    return done_testing();
}
