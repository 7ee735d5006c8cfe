/* The egress proxy of `[network] allow` (allowlist.h): the only way out of
 * a sandbox that has its own network namespace and no route.
 *
 * init opens two sockets on the sandbox's own loopback before the command
 * starts, a TCP listener on EGRESS_PROXY_ADDR:EGRESS_PROXY_PORT and a UDP
 * socket on EGRESS_PROXY_ADDR:53, and passes them to the supervisor over
 * the channel (SCM_RIGHTS): they are listening before the command runs,
 * with no helper process in between. The supervisor serves them from
 * threads of its own, in the host's network namespace:
 *   - one port speaks HTTP CONNECT, plain HTTP (absolute-URI requests,
 *     the Host header checked against the URI) and SOCKS5 (told apart by
 *     the first byte);
 *   - every destination is checked against the list by name and port,
 *     then resolved by sbx itself and its addresses checked (no loopback,
 *     private, link-local or host address unless an address entry lists
 *     it); the connection goes to an address that was checked, never
 *     resolved again;
 *   - the DNS stub answers A queries for listed names with the checked
 *     addresses, other types of listed names with no record, and any
 *     other name with NXDOMAIN, forwarding nothing.
 * Every refusal is a row (name, port, way, why) printed at the end, in
 * the run record and counted by --strict: the first 512 distinct rows and
 * the latest 512 after them are kept, rows pushed out between them are
 * counted, and names are escaped (a NUL never cuts one).
 *
 * A tunnel (CONNECT, SOCKS5) to a name carries a TLS hello naming that
 * name readably (no ECH, ESNI or nameless hello), or HTTP/1.x whose every
 * request's Host names it; on ports an entry lists explicitly (not 80 or
 * 443) other protocols pass. Request bodies are framed as RFC 9112 says,
 * ambiguous framing is refused, and nothing after a request that fails a
 * check reaches the server. The host's connected subnets (rtnetlink) are
 * local like the registry's special ranges. */
#ifndef SBX_EGRESS_H
#define SBX_EGRESS_H

#include "profile.h"
#include "util.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define EGRESS_PROXY_ADDR "127.0.0.1"
#define EGRESS_PROXY_PORT 3128

enum egress_socket {
    EGRESS_SOCKET_PROXY, EGRESS_SOCKET_DNS, EGRESS_SOCKET_ROUTE, EGRESS_SOCKET_DIRECT80,
    EGRESS_SOCKET_DIRECT443,
};

struct egress;
struct json_object;

/* Before clone(): NULL unless the profile has allow entries and the
 * sandbox its own network namespace. Finds the resolver sbx asks (the
 * first nameserver of the host's /etc/resolv.conf, or SBX_TEST_RESOLVER,
 * ADDR:PORT, for the test suite only) and the host's own addresses; warns
 * when there is no resolver (names are then refused, saying so). */
struct egress *egress_prepare(const struct profile *p, int clone_flags);

/* The Landlock tier (landlock.h), which has no network namespace: NULL
 * unless the profile has allow entries; else the proxy's listener on the
 * host's loopback, EGRESS_PROXY_ADDR and a port the kernel picks (*port),
 * open and listening but not yet served, so that nothing of the proxy's
 * runs while the tier forks. No DNS stub (port 53 and /etc/resolv.conf
 * are the host's) and no transparent egress (no routing table of the
 * sandbox's): names are the proxy's to resolve. */
struct egress *egress_prepare_host_loopback(const struct profile *p, uint16_t *port);
/* In the supervisor once the tier has started: serves that listener.
 * The host's loopback is everyone's: the proxy serves only connections
 * the supervisor made for the command (egress_before_connect()), and
 * refuses, counting it, any other. */
void egress_start_host_loopback(struct egress *e);
/* A ledger_connect_hook (ledger.h): before the supervisor connects the
 * command's socket to addr, when addr is that proxy, the socket's own
 * address is made known (bound to 127.0.0.1 first if it is not yet, so
 * that it is known before the connection can be accepted). */
void egress_before_connect(void *egress, int sock, const void *addr, size_t len);

/* The sandbox's /etc/resolv.conf: the stub on its loopback. */
const char *egress_resolv_conf(void);

/* HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY and their lower-case forms,
 * and NODE_USE_ENV_PROXY=1, into env (replacing the caller's), pointing
 * at the proxy on EGRESS_PROXY_ADDR:port; their names into names when not
 * NULL (the run record's environment.changed_by_sbx). */
void egress_set_env(struct strv *env, struct strv *names, uint16_t port);

/* In init, once lo is up: opens and binds the two sockets and sends them
 * over channel_fd. Dies naming the step. */
void egress_open_sockets(int channel_fd);

/* In the supervisor: takes a socket init sent (owned from now on) and
 * starts serving it. */
void egress_adopt(struct egress *e, int kind, int fd);

/* Stops the threads (open connections are cut); counts are final after. */
void egress_stop(struct egress *e);
void egress_free(struct egress *e);

/* Refused destinations (every one, not only the rows kept). */
uint64_t egress_refused(const struct egress *e);
uint64_t egress_allowed(const struct egress *e);

/* "sbx: 2 destinations refused by [network] allow: evil.test:443 (CONNECT)
 * x1: not in allow", one line a row after the first: the first five rows
 * and the last five, with a count of those between. Nothing when none. */
void egress_print_summary(const struct egress *e, FILE *out);

/* {"allowed": N, "refused": N, "dns_answered": N, "refusals": [{"name",
 * "port", "via", "why", "count"}], "refusals_not_kept": N,
 * "refusal_rows_not_kept": N}; NULL e: zeros. */
struct json_object *egress_to_json(const struct egress *e);

/* The name the DNS stub answered with address ("198.51.100.7:443", the
 * ledger's form) into out; false when it handed that address out for no
 * name. A ledger_address_namer (ledger.h). */
bool egress_name_of(void *egress, const char *address, char *out, size_t len);

/* Whether a connect() to address ("198.51.100.7:443") goes to the
 * supervisor's transparent listeners: the stub handed the address out and
 * made it local in the sandbox, and the port is 80 or 443. The ledger
 * lets such a call through ([network] allow's no-route rule). */
bool egress_direct_passes(void *egress, const char *address);

/* For tests without a sandbox: the decision on one destination as the
 * proxy makes it (resolving through the resolver found above). Returns
 * NULL and the address to connect to in *addr (host order), or why not. */
const char *egress_decide(struct egress *e, const char *host, size_t len, uint16_t port,
                          uint32_t *addr, char *why, size_t why_len);

#endif
