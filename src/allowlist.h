/* [network] allow: which destinations the egress proxy lets through (pure:
 * no syscalls, for the profile engine, the proxy and the unit tests).
 *
 * An entry is one of
 *   NAME[:PORT]        exactly that host name ("crates.io")
 *   *.NAME[:PORT]      any name under NAME, never NAME itself
 *   A.B.C.D[/N][:PORT] IPv4 addresses: as a destination (an IP literal in
 *                      CONNECT or SOCKS), and as the answer of an allowed
 *                      name that is loopback, private or the host's own
 *   @PRESET            a list shipped with sbx (allow_preset())
 * Without a port an entry opens 80 and 443 only: an allowed name is not a
 * way to any service that host runs. Names are compared in their ASCII
 * (IDNA "xn--") form, lower case, without a trailing dot. */
#ifndef SBX_ALLOWLIST_H
#define SBX_ALLOWLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest name DNS can carry (RFC 1035 2.3.4), as text. */
#define ALLOW_NAME_MAX 253

/* Checks one entry as written and returns its canonical form (malloc'd,
 * lower case, trailing dot gone) in *out, or returns a message saying
 * what is wrong (static, *out untouched). */
const char *allow_entry_normalize(const char *word, char **out);

/* The entries of preset NAME ("@crates"), NULL-terminated, or NULL. */
const char *const *allow_preset(const char *name);
/* Every preset name, NULL-terminated (for messages and the docs test). */
extern const char *const allow_preset_names[];

/* A name as a client sent it (len bytes, not NUL-terminated) into out:
 * lower case, one trailing dot dropped. false when it is not a host name
 * sbx resolves: empty, too long, a byte outside [A-Za-z0-9-.] (UTF-8
 * names must come in their xn-- form), an empty or 64-byte label, or a
 * last label of digits only (an IPv4 address in some other spelling:
 * "127.1", "2130706433"). */
bool allow_name_normalize(const char *in, size_t len, char out[ALLOW_NAME_MAX + 1]);

/* The allowlist the proxy uses: presets expanded, each entry parsed. */
struct allow_rule {
    bool suffix;        /* "*.NAME" */
    bool cidr;          /* an IPv4 range */
    char name[ALLOW_NAME_MAX + 1];
    uint32_t net, mask; /* host byte order, for cidr */
    uint16_t port;      /* 0: 80 and 443 */
};

struct allowlist {
    struct allow_rule *rule;
    size_t n;
};

/* Builds the list from canonical entries (as allow_entry_normalize()
 * made them). Entries that do not parse are skipped: the profile engine
 * refused them already. */
void allowlist_build(struct allowlist *a, const char *const *entries, size_t n);
void allowlist_free(struct allowlist *a);

/* Name (normalized) on port: listed? */
bool allowlist_name_allowed(const struct allowlist *a, const char *name, uint16_t port);
/* Name listed on some port (the DNS stub answers those). */
bool allowlist_name_known(const struct allowlist *a, const char *name);
/* IPv4 address (host byte order) on port listed by an address entry
 * (port 0: on some port, for the DNS stub's answers; the connection is
 * checked on its own port). */
bool allowlist_address_allowed(const struct allowlist *a, uint32_t addr, uint16_t port);

/* Why the proxy never connects to addr (host order) unless an address
 * entry lists it: "loopback", "private", "link-local", "this network",
 * "shared address space", "documentation", "benchmarking", "multicast",
 * "reserved" ... or NULL for an address of the internet at large (the
 * host's own and connected subnets are egress.c's to add). */
const char *allow_address_special(uint32_t addr);

#endif
