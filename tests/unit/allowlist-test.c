/* Unit test of [network] allow (allowlist.c): entries as the profile
 * engine checks them, names as clients send them, the match rules
 * ("*." is subdomains only, ports 80 and 443 by default) and the
 * addresses the proxy never connects to unless listed. */
#include "config.h"

#include "../tap.h"

#include "allowlist.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

static const char *norm(const char *w)
{
    static char buf[300];
    char *out = NULL;
    const char *err = allow_entry_normalize(w, &out);
    if (err)
        return "ERR";
    snprintf(buf, sizeof buf, "%s", out);
    free(out);
    return buf;
}

static const char *name(const char *w)
{
    static char buf[ALLOW_NAME_MAX + 1];
    return allow_name_normalize(w, strlen(w), buf) ? buf : "REFUSED";
}

static uint32_t ip(const char *s)
{
    struct in_addr a;
    inet_pton(AF_INET, s, &a);
    return ntohl(a.s_addr);
}

int main(void)
{
    is_str(norm("Crates.IO."), "crates.io", "entry: lower case, trailing dot dropped");
    is_str(norm("*.NPMjs.org:8443"), "*.npmjs.org:8443", "entry: wildcard with a port");
    is_str(norm("10.1.2.3/16"), "10.1.0.0/16", "entry: a range is written as its network");
    is_str(norm("203.0.113.5"), "203.0.113.5", "entry: one address");
    is_str(norm("@crates"), "@crates", "entry: a preset");
    const char *bad[] = {"", "@nope", "a*.b", "*", "*.", "foo..bar", "-", "[::1]", "::1",
                         "127.1", "1.2.3.4/33", "x.com:0", "x.com:65536", "x.com:", "x.com:8a",
                         "caf\xc3\xa9.com", "a_b.com", "1.2.3", "a.b/8", NULL};
    for (int i = 0; bad[i]; i++)
        is_str(norm(bad[i]), "ERR", "entry refused: '%s'", bad[i]);
    char longlabel[80];
    memset(longlabel, 'a', 64);
    strcpy(longlabel + 64, ".com");
    is_str(norm(longlabel), "ERR", "entry refused: a 64-byte label");

    is_str(name("Example.COM."), "example.com", "name: case and trailing dot");
    is_str(name("example.com.."), "REFUSED", "name: two trailing dots");
    is_str(name("127.1"), "REFUSED", "name: an address in shorthand is not a name");
    is_str(name("2130706433"), "REFUSED", "name: an address as one number is not a name");
    is_str(name("0x7f.1"), "REFUSED", "name: hexadecimal shorthand is not a name");
    is_str(name("xn--caf-dma.com"), "xn--caf-dma.com", "name: IDNA's ASCII form");
    is_str(name("caf\xc3\xa9.com"), "REFUSED", "name: raw UTF-8 is refused");
    is_str(name("evil.com\0.allowed.com"), "evil.com", "name: C string stops at NUL (caller passes len)");
    ok(!allow_name_normalize("evil.com\0x", 10, (char[ALLOW_NAME_MAX + 1]){0}),
       "name: a NUL inside the bytes is refused");

    const char *entries[] = {"crates.io", "*.npmjs.org", "pkg.test:8080", "@pypi",
                             "10.9.0.0/16", "203.0.113.7:22"};
    struct allowlist a;
    allowlist_build(&a, entries, 6);
    ok(allowlist_name_allowed(&a, "crates.io", 443), "match: exact name on 443");
    ok(allowlist_name_allowed(&a, "crates.io", 80), "match: exact name on 80");
    ok(!allowlist_name_allowed(&a, "crates.io", 22), "match: not another port");
    ok(!allowlist_name_allowed(&a, "sub.crates.io", 443), "match: an exact name has no subdomains");
    ok(!allowlist_name_allowed(&a, "evilcrates.io", 443), "match: not a longer name ending the same");
    ok(allowlist_name_allowed(&a, "registry.npmjs.org", 443), "match: *. matches a subdomain");
    ok(allowlist_name_allowed(&a, "a.b.npmjs.org", 443), "match: *. matches deeper subdomains");
    ok(!allowlist_name_allowed(&a, "npmjs.org", 443), "match: *. does not match the name itself");
    ok(!allowlist_name_allowed(&a, "evilnpmjs.org", 443), "match: *. needs the dot");
    ok(allowlist_name_allowed(&a, "pkg.test", 8080), "match: the listed port");
    ok(!allowlist_name_allowed(&a, "pkg.test", 443), "match: a listed port replaces 80 and 443");
    ok(allowlist_name_allowed(&a, "files.pythonhosted.org", 443), "match: a preset is expanded");
    ok(allowlist_name_known(&a, "pkg.test"), "known: a name on any port (the DNS stub)");
    ok(!allowlist_name_known(&a, "other.test"), "known: not an unlisted one");
    ok(allowlist_address_allowed(&a, ip("10.9.3.4"), 443), "address: in a listed range");
    ok(!allowlist_address_allowed(&a, ip("10.8.3.4"), 443), "address: outside it");
    ok(allowlist_address_allowed(&a, ip("203.0.113.7"), 22), "address: its port");
    ok(!allowlist_address_allowed(&a, ip("203.0.113.7"), 443), "address: not another");
    ok(allowlist_address_allowed(&a, ip("203.0.113.7"), 0), "address: port 0 asks for any port");
    allowlist_free(&a);

    ok(allow_address_special(ip("127.0.0.1")) != NULL, "special: loopback");
    ok(allow_address_special(ip("127.255.0.9")) != NULL, "special: all of 127/8");
    ok(allow_address_special(ip("10.0.0.1")) != NULL, "special: 10/8");
    ok(allow_address_special(ip("172.31.0.1")) != NULL, "special: 172.16/12");
    ok(allow_address_special(ip("172.32.0.1")) == NULL, "special: not 172.32");
    ok(allow_address_special(ip("192.168.1.1")) != NULL, "special: 192.168/16");
    ok(allow_address_special(ip("169.254.169.254")) != NULL, "special: link-local (cloud metadata)");
    ok(allow_address_special(ip("100.64.0.1")) != NULL, "special: CGNAT");
    ok(allow_address_special(ip("0.0.0.0")) != NULL, "special: 0.0.0.0");
    ok(allow_address_special(ip("224.0.0.1")) != NULL, "special: multicast");
    ok(allow_address_special(ip("255.255.255.255")) != NULL, "special: broadcast");
    ok(allow_address_special(ip("198.18.0.2")) != NULL, "special: the benchmarking range");
    ok(allow_address_special(ip("198.19.255.1")) != NULL, "special: all of 198.18/15");
    ok(allow_address_special(ip("198.20.0.1")) == NULL, "special: not 198.20");
    ok(allow_address_special(ip("192.0.2.7")) != NULL, "special: TEST-NET-1");
    ok(allow_address_special(ip("198.51.100.7")) != NULL, "special: TEST-NET-2");
    ok(allow_address_special(ip("203.0.113.7")) != NULL, "special: TEST-NET-3");
    ok(allow_address_special(ip("240.0.0.1")) != NULL, "special: 240/4");
    ok(allow_address_special(ip("8.8.8.8")) == NULL, "special: not a public address");
    ok(allow_address_special(ip("151.101.1.1")) == NULL, "special: an internet address");
    return done_testing();
}
