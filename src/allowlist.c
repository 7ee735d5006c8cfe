#include "config.h"

#include "allowlist.h"

#include "util.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The presets: what each ecosystem's client fetches from, as its own
 * documentation names it. docs/sbx-profile.5 lists them; a profile
 * extends one by adding entries beside it. */
static const char *const preset_crates[] = {
    "crates.io", "index.crates.io", "static.crates.io", NULL};
static const char *const preset_npm[] = {
    "registry.npmjs.org", "registry.yarnpkg.com", NULL};
static const char *const preset_pypi[] = {
    "pypi.org", "files.pythonhosted.org", NULL};
static const char *const preset_github[] = {
    "github.com", "api.github.com", "codeload.github.com", "objects.githubusercontent.com",
    "raw.githubusercontent.com", "release-assets.githubusercontent.com", NULL};
static const char *const preset_anthropic[] = {
    "api.anthropic.com", "statsig.anthropic.com", NULL};
static const char *const preset_openai[] = {
    "api.openai.com", "auth.openai.com", "chatgpt.com", NULL};

const char *const allow_preset_names[] = {
    "@crates", "@npm", "@pypi", "@github", "@anthropic", "@openai", NULL};
static const char *const *const preset_lists[] = {
    preset_crates, preset_npm, preset_pypi, preset_github, preset_anthropic, preset_openai};

const char *const *allow_preset(const char *name)
{
    for (size_t i = 0; allow_preset_names[i]; i++)
        if (!strcmp(allow_preset_names[i], name))
            return preset_lists[i];
    return NULL;
}

static bool is_ldh(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

bool allow_name_normalize(const char *in, size_t len, char out[ALLOW_NAME_MAX + 1])
{
    /* "example.com." is the same name, absolute; "example.com.." is not one */
    if (len && in[len - 1] == '.')
        len--;
    if (!len || len > ALLOW_NAME_MAX)
        return false;
    size_t label = 0, last_start = 0;
    bool last_digits = true;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        out[i] = c;
        if (c == '.') {
            /* RFC 1123 2.1: a label neither starts nor ends with '-' */
            if (!label || out[i - 1] == '-')
                return false;
            label = 0;
            last_start = i + 1;
            last_digits = true;
            continue;
        }
        /* Any other byte (NUL, '%', '@', ':', '/', UTF-8) is refused: a
         * name the list was not written in is not on it, and a proxy and
         * a resolver that read such a name differently are how a check
         * is walked around. */
        if (!is_ldh(c) || ++label > 63 || (label == 1 && c == '-'))
            return false;
        if (c < '0' || c > '9')
            last_digits = false;
    }
    if (!label || out[len - 1] == '-')
        return false;
    (void)last_start;
    out[len] = '\0';
    /* inet_aton() and browsers read "127.1", "0x7f.1" and "2130706433"
     * as addresses: a name whose last label is all digits is one. */
    return !last_digits;
}

/* ":PORT" at the end of word (a decimal 1-65535), taken off. */
static bool split_port(char *word, uint16_t *port, bool *bad)
{
    *port = 0;
    *bad = false;
    char *colon = strrchr(word, ':');
    if (!colon)
        return true;
    char *end;
    unsigned long v = strtoul(colon + 1, &end, 10);
    if (!colon[1] || *end || v == 0 || v > 65535 || colon[1] < '0' || colon[1] > '9') {
        *bad = true;
        return false;
    }
    *port = (uint16_t)v;
    *colon = '\0';
    return true;
}

/* "A.B.C.D" or "A.B.C.D/N", strictly dotted-quad (inet_pton, not
 * inet_aton's shorthands). */
static bool parse_cidr(const char *s, uint32_t *net, uint32_t *mask)
{
    char buf[INET_ADDRSTRLEN + 4];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    unsigned bits = 32;
    char *slash = strchr(buf, '/');
    if (slash) {
        char *end;
        unsigned long v = strtoul(slash + 1, &end, 10);
        if (!slash[1] || *end || v > 32 || slash[1] < '0' || slash[1] > '9')
            return false;
        bits = (unsigned)v;
        *slash = '\0';
    }
    struct in_addr a;
    if (inet_pton(AF_INET, buf, &a) != 1)
        return false;
    *mask = bits ? ~0u << (32 - bits) : 0;
    *net = ntohl(a.s_addr) & *mask;
    return true;
}

static bool looks_like_address(const char *s)
{
    return *s && strspn(s, "0123456789./") == strlen(s);
}

/* Parses a canonical or as-written entry; returns an error or NULL. */
static const char *parse_rule(const char *word, struct allow_rule *r)
{
    memset(r, 0, sizeof *r);
    size_t wl = strlen(word);
    if (!wl)
        return "empty entry";
    if (wl > ALLOW_NAME_MAX + 8)
        return "longer than a host name can be (253 bytes)";
    char buf[ALLOW_NAME_MAX + 16];
    strcpy(buf, word);
    if (strchr(buf, '[') || strchr(buf, ']') || strchr(buf, ':') != strrchr(buf, ':'))
        return "IPv6 addresses are not supported in allow (IPv4 only)";
    bool bad;
    if (!split_port(buf, &r->port, &bad))
        return "the port after ':' is not a number from 1 to 65535";
    (void)bad;
    if (looks_like_address(buf)) {
        if (!parse_cidr(buf, &r->net, &r->mask))
            return "not an IPv4 address or A.B.C.D/N range (dotted quad, prefix 0-32)";
        r->cidr = true;
        return NULL;
    }
    const char *name = buf;
    if (!strncmp(buf, "*.", 2)) {
        r->suffix = true;
        name += 2;
    } else if (strchr(buf, '*')) {
        return "'*' is allowed only as a whole first label ('*.example.com')";
    }
    if (!allow_name_normalize(name, strlen(name), r->name))
        return "not a host name (letters, digits, '-' and '.'; labels of 1-63 bytes; "
               "international names in their xn-- form; an address as A.B.C.D)";
    return NULL;
}

const char *allow_entry_normalize(const char *word, char **out)
{
    if (word[0] == '@') {
        if (!allow_preset(word))
            return "no such preset (sbx ships @crates, @npm, @pypi, @github, @anthropic, "
                   "@openai)";
        *out = xstrdup(word);
        return NULL;
    }
    struct allow_rule r;
    const char *err = parse_rule(word, &r);
    if (err)
        return err;
    char port[8] = "";
    if (r.port)
        snprintf(port, sizeof port, ":%u", r.port);
    if (r.cidr) {
        struct in_addr a = { htonl(r.net) };
        char addr[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &a, addr, sizeof addr);
        unsigned bits = (unsigned)__builtin_popcount(r.mask);
        *out = bits == 32 ? xasprintf("%s%s", addr, port) : xasprintf("%s/%u%s", addr, bits, port);
    } else {
        *out = xasprintf("%s%s%s", r.suffix ? "*." : "", r.name, port);
    }
    return NULL;
}

static void push_rule(struct allowlist *a, size_t *cap, const char *word)
{
    struct allow_rule r;
    if (parse_rule(word, &r))
        return;
    xgrow((void **)&a->rule, cap, a->n + 1, sizeof *a->rule);
    a->rule[a->n++] = r;
}

void allowlist_build(struct allowlist *a, const char *const *entries, size_t n)
{
    size_t cap = 0;
    a->rule = NULL;
    a->n = 0;
    for (size_t i = 0; i < n; i++) {
        const char *const *preset = entries[i][0] == '@' ? allow_preset(entries[i]) : NULL;
        if (preset) {
            for (; *preset; preset++)
                push_rule(a, &cap, *preset);
        } else {
            push_rule(a, &cap, entries[i]);
        }
    }
}

void allowlist_free(struct allowlist *a)
{
    free(a->rule);
    a->rule = NULL;
    a->n = 0;
}

static bool port_ok(const struct allow_rule *r, uint16_t port)
{
    return r->port ? r->port == port : port == 80 || port == 443;
}

static bool name_matches(const struct allow_rule *r, const char *name)
{
    if (r->cidr)
        return false;
    if (!r->suffix)
        return !strcmp(r->name, name);
    /* "*.example.com": "a.example.com" and "a.b.example.com", not
     * "example.com" and not "badexample.com" */
    size_t nl = strlen(name), rl = strlen(r->name);
    return nl > rl + 1 && name[nl - rl - 1] == '.' && !strcmp(name + nl - rl, r->name);
}

bool allowlist_name_allowed(const struct allowlist *a, const char *name, uint16_t port)
{
    for (size_t i = 0; i < a->n; i++)
        if (name_matches(&a->rule[i], name) && port_ok(&a->rule[i], port))
            return true;
    return false;
}

bool allowlist_name_known(const struct allowlist *a, const char *name)
{
    for (size_t i = 0; i < a->n; i++)
        if (name_matches(&a->rule[i], name))
            return true;
    return false;
}

bool allowlist_address_allowed(const struct allowlist *a, uint32_t addr, uint16_t port)
{
    for (size_t i = 0; i < a->n; i++) {
        const struct allow_rule *r = &a->rule[i];
        if (r->cidr && (addr & r->mask) == r->net && (!port || port_ok(r, port)))
            return true;
    }
    return false;
}

const char *allow_address_special(uint32_t addr)
{
    /* IANA's IPv4 special-purpose registry (RFC 6890) and the ranges no
     * host on the internet at large has: each leads to this machine, its
     * neighbours or a network someone set up locally (documentation and
     * benchmarking ranges are routinely used for labs, VPNs and test
     * beds), so none is a public destination. */
    static const struct { uint32_t net; unsigned bits; const char *why; } special[] = {
        {0x00000000, 8, "this network (0.0.0.0/8)"},
        {0x7f000000, 8, "loopback"},
        {0x0a000000, 8, "private (10.0.0.0/8)"},
        {0xac100000, 12, "private (172.16.0.0/12)"},
        {0xc0a80000, 16, "private (192.168.0.0/16)"},
        {0x64400000, 10, "shared address space (100.64.0.0/10)"},
        {0xa9fe0000, 16, "link-local (169.254.0.0/16)"},
        {0xc0000000, 24, "IETF protocol assignments (192.0.0.0/24)"},
        {0xc0000200, 24, "documentation (192.0.2.0/24)"},
        {0xc6336400, 24, "documentation (198.51.100.0/24)"},
        {0xcb007100, 24, "documentation (203.0.113.0/24)"},
        {0xc6120000, 15, "benchmarking (198.18.0.0/15)"},
        {0xc0586300, 24, "6to4 relay anycast (192.88.99.0/24)"},
        {0xe0000000, 4, "multicast"},
        {0xf0000000, 4, "reserved (240.0.0.0/4)"},
    };
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
        uint32_t mask = ~0u << (32 - special[i].bits);
        if ((addr & mask) == special[i].net)
            return special[i].why;
    }
    return NULL;
}
