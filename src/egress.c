#include "config.h"

#include "egress.h"
#include "fix.h"

#include "allowlist.h"
#include "channel.h"
#include "egress_wire.h"
#include "json_bytes.h"
#include "log.h"
#include "report.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <json-c/json.h>
#include <linux/rtnetlink.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/route.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* A request's head (request line and headers, or a SOCKS5 request) is
 * at most this long: longer is refused, never cut and passed on. */
#define HEAD_MAX 16384
/* Header phase and connect: a client or server slower than this is gone. */
#define HEAD_TIMEOUT_MS 30000
#define CONNECT_TIMEOUT_MS 10000
#define DNS_TRY_MS 1500
#define DNS_TRIES 2
#define MAX_ADDRS 16
/* the TTL of the stub's answers, and how long sbx keeps the resolver's */
#define DNS_CACHE_S 30
#define RELAY_CHUNK (1 << 16)
/* Connections served at once, a thread each: a command that opens more
 * waits in the listen queue, never makes sbx run out of memory. */
#define MAX_ACTIVE 512

/* Refusal rows: the first ROWS_FIRST distinct ones and the latest
 * ROWS_LAST after them, so a flood of junk names neither hides the first
 * attempts nor the real target after them; rows pushed out of the second
 * window are counted (refusals_not_kept). */
#define ROWS_FIRST 512
#define ROWS_LAST 512
/* A name longer than this (no host name is) is shown to here, with the
 * number of bytes left out said in the row. */
#define ROW_NAME_MAX 1024

struct refusal_row {
    char *name;         /* escaped (wire_escape()) */
    uint16_t port;
    const char *via;
    char *why;
    uint64_t count;
};

struct subnet {
    uint32_t net, mask;
};

struct conn {
    int fd;
    struct conn *next;
};

struct egress {
    struct allowlist list;
    struct sockaddr_storage resolver;
    socklen_t resolver_len;
    char resolver_text[64];
    uint32_t *host_addrs;
    size_t nhost;
    struct subnet *connected;   /* the host's on-link subnets */
    size_t nconnected;
    struct subnet test_public;  /* SBX_TEST_PUBLIC; mask 0: none */

    int proxy_fd, dns_fd, stop_fd;
    int host_proxy_fd;          /* the Landlock tier's, until started */
    uint16_t host_port;
    bool host_mode;             /* the Landlock tier's proxy: clients checked */
    /* the local ports of the connections the supervisor made to it for
     * the command (egress_before_connect), each served once; a ring */
    uint16_t expected[256];
    size_t nexpected;
    pthread_t proxy_thread, dns_thread;
    bool proxy_started, dns_started, stopped;
    /* transparent egress: listeners on the sandbox's 0.0.0.0:80 and :443,
     * and an rtnetlink socket of the sandbox's network namespace that
     * makes each address the stub hands out local there */
    int direct_fd[2], route_fd;
    pthread_t direct_thread[2];
    bool direct_started[2];
    pthread_mutex_t route_lock;
    uint32_t routed[256];
    size_t nrouted;
    bool routes_full;

    pthread_mutex_t lock;
    pthread_cond_t idle;
    unsigned active;
    struct conn *conns;     /* client sockets of running connections */
    uint64_t allowed, refused, dns_answered;
    /* what the stub answered, newest last: for a tool that then connects
     * to the address directly (egress_name_of) */
    struct { uint32_t addr; char name[ALLOW_NAME_MAX + 1]; } answers[64];
    size_t nanswers;
    /* answers of the resolver, kept as long as the stub tells clients to
     * (DNS_CACHE_S): the stub's lookup and the connection that follows it
     * ask once */
    struct {
        char name[ALLOW_NAME_MAX + 1];
        uint32_t addr[MAX_ADDRS];
        int n;
        time_t until;
    } cache[64];
    size_t ncache;
    struct refusal_row first[ROWS_FIRST], last[ROWS_LAST];
    size_t nfirst;
    uint64_t nlast;             /* rows ever put in last[] (a ring) */
    uint64_t not_kept, rows_not_kept;
};

/* ---- Refusals ----------------------------------------------------------- */

static bool row_is(const struct refusal_row *r, const char *name, uint16_t port,
                   const char *via, const char *why)
{
    return r->name && r->port == port && r->via == via && !strcmp(r->name, name) &&
           !strcmp(r->why, why);
}

/* name: len bytes as the command sent them, escaped here: a NUL or a
 * control byte never cuts or hides the rest of it. */
static void refuse(struct egress *e, const char *raw, size_t len, uint16_t port, const char *via,
                   const char *why)
{
    size_t shown = len > ROW_NAME_MAX ? ROW_NAME_MAX : len;
    char *name = xmalloc(4 * shown + 48);
    wire_escape(raw, shown, name);
    if (shown < len)
        sprintf(name + strlen(name), "...(%zu bytes more)", len - shown);
    pthread_mutex_lock(&e->lock);
    e->refused++;
    struct refusal_row *row = NULL;
    for (size_t i = 0; i < e->nfirst && !row; i++)
        if (row_is(&e->first[i], name, port, via, why))
            row = &e->first[i];
    for (size_t i = 0; i < ROWS_LAST && !row; i++)
        if (row_is(&e->last[i], name, port, via, why))
            row = &e->last[i];
    if (!row) {
        if (e->nfirst < ROWS_FIRST) {
            row = &e->first[e->nfirst++];
        } else {
            row = &e->last[e->nlast++ % ROWS_LAST];
            if (row->name) {
                e->not_kept += row->count;
                e->rows_not_kept++;
                free(row->name);
                free(row->why);
            }
        }
        row->name = name;
        name = NULL;
        row->port = port;
        row->via = via;
        row->why = xstrdup(why);
        row->count = 0;
    }
    row->count++;
    pthread_mutex_unlock(&e->lock);
    free(name);
}

static void refuse_str(struct egress *e, const char *name, uint16_t port, const char *via,
                       const char *why)
{
    refuse(e, name, strlen(name), port, via, why);
}

/* The kept rows in order: the first ones, then the ring oldest first. */
static size_t nrows(const struct egress *e)
{
    return e->nfirst + (size_t)(e->nlast < ROWS_LAST ? e->nlast : ROWS_LAST);
}

static const struct refusal_row *row_at(const struct egress *e, size_t i)
{
    if (i < e->nfirst)
        return &e->first[i];
    i -= e->nfirst;
    uint64_t oldest = e->nlast < ROWS_LAST ? 0 : e->nlast - ROWS_LAST;
    return &e->last[(oldest + i) % ROWS_LAST];
}

uint64_t egress_refused(const struct egress *e)
{
    return e ? e->refused : 0;
}

uint64_t egress_allowed(const struct egress *e)
{
    return e ? e->allowed : 0;
}

static void format_row(const struct refusal_row *r, char *buf, size_t len)
{
    /* the name is escaped already: printable ASCII only */
    if (r->port)
        snprintf(buf, len, "%s:%u (%s) x%llu: %s", r->name, r->port, r->via,
                 (unsigned long long)r->count, r->why);
    else
        snprintf(buf, len, "%s (%s) x%llu: %s", r->name, r->via, (unsigned long long)r->count,
                 r->why);
}

/* The first rows and the last ones: the first attempts and, after a
 * flood, what came at the end (the real target hides there). */
#define SUMMARY_HEAD 5
#define SUMMARY_TAIL 5

void egress_print_summary(const struct egress *e, FILE *out)
{
    if (!e || !e->refused)
        return;
    size_t n = nrows(e);
    char *line = xmalloc(4 * ROW_NAME_MAX + 600);
    for (size_t i = 0; i < n; i++) {
        if (i == SUMMARY_HEAD && n > SUMMARY_HEAD + SUMMARY_TAIL) {
            uint64_t between = e->not_kept;
            for (size_t k = i; k < n - SUMMARY_TAIL; k++)
                between += row_at(e, k)->count;
            fprintf(out, "sbx:   ... %llu more refused destination%s (see --report), then:\n",
                    (unsigned long long)between, between == 1 ? "" : "s");
            i = n - SUMMARY_TAIL - 1;
            continue;
        }
        const struct refusal_row *r = row_at(e, i);
        format_row(r, line, 4 * ROW_NAME_MAX + 600);
        if (!i)
            fprintf(out, "sbx: %llu destination%s refused by [network] allow: %s\n",
                    (unsigned long long)e->refused, e->refused == 1 ? "" : "s", line);
        else
            fprintf(out, "sbx:   %s\n", line);
    }
    /* One fix per distinct destination shown (rows differ by reason too). */
    size_t fixes = 0;
    for (size_t i = 0; i < n && fixes < 10; i++) {
        bool shown = n <= SUMMARY_HEAD + SUMMARY_TAIL || i < SUMMARY_HEAD || i >= n - SUMMARY_TAIL;
        if (!shown)
            continue;
        const struct refusal_row *r = row_at(e, i);
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = !strcmp(row_at(e, j)->name, r->name) && row_at(e, j)->port == r->port;
        struct fix fx;
        fix_for_destination(r->name, r->port, &fx);
        if (dup || !fx.section)
            continue;
        fix_format(&fx, line, 4 * ROW_NAME_MAX + 600);
        fprintf(out, "sbx: fix: %s\n", line);
        fixes++;
    }
    free(line);
    fflush(out);
}

struct json_object *egress_to_json(const struct egress *e)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "allowed", json_object_new_int64(e ? (int64_t)e->allowed : 0));
    json_object_object_add(o, "refused", json_object_new_int64(e ? (int64_t)e->refused : 0));
    json_object_object_add(o, "dns_answered",
                           json_object_new_int64(e ? (int64_t)e->dns_answered : 0));
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; e && i < nrows(e); i++) {
        const struct refusal_row *r = row_at(e, i);
        struct json_object *row = json_object_new_object();
        json_object_object_add(row, "name", json_bytes_new(r->name, strlen(r->name)));
        json_object_object_add(row, "port", r->port ? json_object_new_int(r->port) : NULL);
        json_object_object_add(row, "via", json_object_new_string(r->via));
        json_object_object_add(row, "why", json_bytes_new(r->why, strlen(r->why)));
        json_object_object_add(row, "count", json_object_new_int64((int64_t)r->count));
        struct fix fx;
        fix_for_destination(r->name, r->port, &fx);
        json_object_object_add(row, "fix", fix_to_json(&fx));
        json_object_array_add(a, row);
    }
    json_object_object_add(o, "refusals", a);
    /* refusals whose rows the ring pushed out, between the first rows and
     * the last: counted, never silently gone */
    json_object_object_add(o, "refusals_not_kept",
                           json_object_new_int64(e ? (int64_t)e->not_kept : 0));
    json_object_object_add(o, "refusal_rows_not_kept",
                           json_object_new_int64(e ? (int64_t)e->rows_not_kept : 0));
    return o;
}

/* ---- Preparing ------------------------------------------------------------ */

static bool parse_resolver(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
    char host[64];
    unsigned port = 53;
    const char *colon = strrchr(text, ':');
    size_t hl = colon && !strchr(text, '[') ? (size_t)(colon - text) : strlen(text);
    if (hl >= sizeof host)
        return false;
    memcpy(host, text, hl);
    host[hl] = '\0';
    if (colon && !strchr(text, '[')) {
        char *end;
        unsigned long v = strtoul(colon + 1, &end, 10);
        if (*end || !v || v > 65535)
            return false;
        port = (unsigned)v;
    }
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *in = (struct sockaddr_in *)ss;
    if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)port);
        *len = sizeof *in;
        return true;
    }
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        *len = sizeof *in6;
        return true;
    }
    return false;
}

/* The first nameserver line of the host's /etc/resolv.conf, as glibc
 * reads it (the keyword, blanks, the address). */
static bool host_resolver(char *out, size_t len)
{
    char *text = read_file_text("/etc/resolv.conf", 1 << 20, NULL);
    if (!text)
        return false;
    bool found = false;
    for (char *line = strtok(text, "\n"); line && !found; line = strtok(NULL, "\n")) {
        if (strncmp(line, "nameserver", 10) || (line[10] != ' ' && line[10] != '\t'))
            continue;
        char *a = line + 10;
        a += strspn(a, " \t");
        size_t al = strcspn(a, " \t%");
        if (al && al < len) {
            memcpy(out, a, al);
            out[al] = '\0';
            found = true;
        }
    }
    free(text);
    return found;
}

static void add_subnet(struct egress *e, size_t *cap, uint32_t addr, unsigned bits)
{
    /* a default route is no subnet */
    if (!bits || bits > 32)
        return;
    uint32_t mask = ~0u << (32 - bits);
    for (size_t i = 0; i < e->nconnected; i++)
        if (e->connected[i].net == (addr & mask) && e->connected[i].mask == mask)
            return;
    xgrow((void **)&e->connected, cap, e->nconnected + 1, sizeof *e->connected);
    e->connected[e->nconnected++] = (struct subnet){ addr & mask, mask };
}

static uint32_t nl_ipv4(struct nl_addr *a)
{
    uint32_t v;
    memcpy(&v, nl_addr_get_binary_addr(a), 4);
    return ntohl(v);
}

/* The subnets the host reaches without a gateway, read from the kernel
 * (rtnetlink): each IPv4 address's prefix and each on-link route of the
 * main table (scope link: a bridge, a VPN's peer network). Their hosts
 * are the host's neighbours (a router's admin page, a printer, another
 * container), reachable from where sbx runs but not from the internet. */
static void read_connected(struct egress *e)
{
    struct nl_sock *sock = nl_socket_alloc();
    size_t cap = 0;
    if (!sock || nl_connect(sock, NETLINK_ROUTE) < 0) {
        if (sock)
            nl_socket_free(sock);
        warn("warning: [network] allow: cannot read the host's routes (rtnetlink): only the "
             "registry's special ranges and the host's addresses count as local");
        return;
    }
    struct nl_cache *addrs = NULL, *routes = NULL;
    if (rtnl_addr_alloc_cache(sock, &addrs) == 0) {
        for (struct nl_object *o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
            struct rtnl_addr *a = (struct rtnl_addr *)o;
            struct nl_addr *local = rtnl_addr_get_local(a);
            if (rtnl_addr_get_family(a) == AF_INET && local && nl_addr_get_len(local) == 4)
                add_subnet(e, &cap, nl_ipv4(local), (unsigned)rtnl_addr_get_prefixlen(a));
        }
        nl_cache_free(addrs);
    }
    if (rtnl_route_alloc_cache(sock, AF_INET, 0, &routes) == 0) {
        for (struct nl_object *o = nl_cache_get_first(routes); o; o = nl_cache_get_next(o)) {
            struct rtnl_route *r = (struct rtnl_route *)o;
            struct nl_addr *dst = rtnl_route_get_dst(r);
            if (rtnl_route_get_table(r) == RT_TABLE_MAIN &&
                rtnl_route_get_scope(r) == RT_SCOPE_LINK && rtnl_route_get_type(r) == RTN_UNICAST &&
                dst && nl_addr_get_len(dst) == 4)
                add_subnet(e, &cap, nl_ipv4(dst), nl_addr_get_prefixlen(dst));
        }
        nl_cache_free(routes);
    }
    nl_socket_free(sock);
}

static struct egress *prepare(const struct profile *p)
{
    struct egress *e = xcalloc(1, sizeof *e);
    const char **entries = xcalloc(p->allow.n, sizeof *entries);
    for (size_t i = 0; i < p->allow.n; i++)
        entries[i] = p->allow.v[i].value;
    allowlist_build(&e->list, entries, p->allow.n);
    free(entries);
    e->proxy_fd = e->dns_fd = e->stop_fd = e->host_proxy_fd = -1;
    e->direct_fd[0] = e->direct_fd[1] = e->route_fd = -1;
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_init(&e->route_lock, NULL);
    pthread_cond_init(&e->idle, NULL);

    /* For the test suite only (docs/sbx-profile.5): the resolver the
     * proxy asks, so that tests serve their own names. */
    const char *test = getenv("SBX_TEST_RESOLVER");
    char text[64];
    if (test && *test) {
        if (!parse_resolver(test, &e->resolver, &e->resolver_len))
            die("SBX_TEST_RESOLVER='%s' is not ADDR or ADDR:PORT (an IPv4 or IPv6 address)", test);
        snprintf(e->resolver_text, sizeof e->resolver_text, "%s (SBX_TEST_RESOLVER)", test);
    } else if (host_resolver(text, sizeof text) &&
               parse_resolver(text, &e->resolver, &e->resolver_len)) {
        snprintf(e->resolver_text, sizeof e->resolver_text, "%s", text);
    } else {
        /* The command still runs: address entries work without DNS, and
         * each name refused says why. */
        warn("warning: [network] allow: the host's /etc/resolv.conf names no nameserver: "
             "allowed names will not resolve (address entries still work)");
        snprintf(e->resolver_text, sizeof e->resolver_text, "(none)");
    }

    /* For the test suite only (docs/sbx-profile.5): a special range that
     * counts as the internet at large, where the tests' namespaces serve
     * their own "public" hosts. The host's own and connected addresses
     * stay local all the same. */
    const char *pub = getenv("SBX_TEST_PUBLIC");
    if (pub && *pub) {
        struct allowlist one;
        const char *const ent[] = {pub};
        allowlist_build(&one, ent, 1);
        if (one.n != 1 || !one.rule[0].cidr || one.rule[0].port)
            die("SBX_TEST_PUBLIC='%s' is not an A.B.C.D/N range", pub);
        e->test_public = (struct subnet){ one.rule[0].net, one.rule[0].mask };
        allowlist_free(&one);
    }
    read_connected(e);

    /* The host's own addresses: a name that resolves to one of them would
     * reach the host's services through the proxy. */
    struct ifaddrs *ifa = NULL;
    if (getifaddrs(&ifa) == 0) {
        size_t cap = 0;
        for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
                continue;
            xgrow((void **)&e->host_addrs, &cap, e->nhost + 1, sizeof *e->host_addrs);
            e->host_addrs[e->nhost++] = ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr);
        }
        freeifaddrs(ifa);
    }
    return e;
}

struct egress *egress_prepare(const struct profile *p, int clone_flags)
{
    if (!p->allow.n || !(clone_flags & CLONE_NEWNET))
        return NULL;
    return prepare(p);
}

struct egress *egress_prepare_host_loopback(const struct profile *p, uint16_t *port)
{
    if (!p->allow.n)
        return NULL;
    struct egress *e = prepare(p);
    /* Port 0: the kernel's pick, free now and ours for the run; a fixed
     * port (3128) may be another program's on a shared loopback. */
    struct sockaddr_in a = { .sin_family = AF_INET };
    inet_pton(AF_INET, EGRESS_PROXY_ADDR, &a.sin_addr);
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 256) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0)
        die_errno("[network] allow: the proxy's socket on the host's loopback %s (the Landlock "
                  "tier)", EGRESS_PROXY_ADDR);
    e->host_proxy_fd = fd;
    e->host_mode = true;
    e->host_port = ntohs(a.sin_port);
    *port = e->host_port;
    return e;
}

void egress_start_host_loopback(struct egress *e)
{
    if (!e || e->host_proxy_fd < 0)
        return;
    int fd = e->host_proxy_fd;
    e->host_proxy_fd = -1;
    egress_adopt(e, EGRESS_SOCKET_PROXY, fd);
    char *fact = xasprintf("proxy on the host's loopback %s:%u (HTTP CONNECT, HTTP, SOCKS5; the "
                           "Landlock tier); names resolved by %s; no DNS stub and no transparent "
                           "egress", EGRESS_PROXY_ADDR, (unsigned)e->host_port, e->resolver_text);
    record_network("allow", fact);
    verbose_step("[network] allow: %s", fact);
    free(fact);
}

void egress_before_connect(void *egress, int sock, const void *addr, size_t len)
{
    struct egress *e = egress;
    struct sockaddr_in to;
    struct sockaddr_in6 to6;
    uint16_t port = 0;
    bool proxy = false;
    if (!e || !e->host_mode || len < sizeof(sa_family_t))
        return;
    sa_family_t family;
    memcpy(&family, addr, sizeof family);
    if (family == AF_INET && len >= sizeof to) {
        memcpy(&to, addr, sizeof to);
        port = ntohs(to.sin_port);
        proxy = ntohl(to.sin_addr.s_addr) == INADDR_LOOPBACK;
    } else if (family == AF_INET6 && len >= sizeof to6) {
        memcpy(&to6, addr, sizeof to6);
        port = ntohs(to6.sin6_port);
        proxy = IN6_IS_ADDR_V4MAPPED(&to6.sin6_addr) &&
                !memcmp(to6.sin6_addr.s6_addr + 12, "\x7f\0\0\1", 4);
    }
    if (!proxy || port != e->host_port)
        return;
    struct sockaddr_storage own;
    socklen_t ol = sizeof own;
    if (getsockname(sock, (struct sockaddr *)&own, &ol) < 0)
        return;
    uint16_t local = own.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&own)->sin_port)
                     : own.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&own)->sin6_port)
                                                 : 0;
    if (!local) {
        /* Bound here, before the connect that the listener may accept at
         * once; without SO_REUSEADDR, so that no other socket of the
         * host's can share the port and pass for this one. */
        int zero = 0;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &zero, sizeof zero);
        struct sockaddr_storage lo = { .ss_family = family };
        socklen_t lolen;
        if (family == AF_INET) {
            ((struct sockaddr_in *)&lo)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            lolen = sizeof(struct sockaddr_in);
        } else {
            inet_pton(AF_INET6, "::ffff:127.0.0.1", &((struct sockaddr_in6 *)&lo)->sin6_addr);
            lolen = sizeof(struct sockaddr_in6);
        }
        ol = sizeof own;
        if (bind(sock, (struct sockaddr *)&lo, lolen) < 0 ||
            getsockname(sock, (struct sockaddr *)&own, &ol) < 0)
            return;
        local = own.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&own)->sin_port)
                                         : ntohs(((struct sockaddr_in6 *)&own)->sin6_port);
    }
    pthread_mutex_lock(&e->lock);
    e->expected[e->nexpected++ % (sizeof e->expected / sizeof e->expected[0])] = local;
    pthread_mutex_unlock(&e->lock);
}

/* The Landlock tier's proxy: whether fd, just accepted, is a connection
 * the supervisor made for the command (its peer port announced, once). */
static bool host_client_expected(struct egress *e, int fd, uint16_t *peer_port)
{
    struct sockaddr_storage peer;
    socklen_t pl = sizeof peer;
    *peer_port = 0;
    if (getpeername(fd, (struct sockaddr *)&peer, &pl) < 0 || peer.ss_family != AF_INET ||
        ntohl(((struct sockaddr_in *)&peer)->sin_addr.s_addr) != INADDR_LOOPBACK)
        return false;
    *peer_port = ntohs(((struct sockaddr_in *)&peer)->sin_port);
    const size_t cap = sizeof e->expected / sizeof e->expected[0];
    bool found = false;
    pthread_mutex_lock(&e->lock);
    size_t n = e->nexpected < cap ? e->nexpected : cap;
    for (size_t i = 0; i < n && !found; i++)
        if (e->expected[i] == *peer_port) {
            e->expected[i] = 0;
            found = true;
        }
    pthread_mutex_unlock(&e->lock);
    return found;
}

const char *egress_resolv_conf(void)
{
    return "# Made by sbx: [network] allow. This stub answers the allowed names only.\n"
           "nameserver " EGRESS_PROXY_ADDR "\n";
}

void egress_set_env(struct strv *env, struct strv *recorded, uint16_t port)
{
    /* NODE_USE_ENV_PROXY=1: node's own fetch() (undici) and http read
     * the variables above only when told to (node 24, 22.21); older nodes
     * reach allowed names through transparent egress instead. Java is
     * left alone: JAVA_TOOL_OPTIONS would replace the caller's and make
     * every JVM print that it picked it up, and transparent egress serves
     * its HttpClient as it is. */
    static const char *const names[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
                                        "http_proxy", "https_proxy", "all_proxy", "no_proxy",
                                        "NODE_USE_ENV_PROXY"};
    const size_t nnames = sizeof names / sizeof names[0];
    /* drop the caller's own values of these */
    size_t w = 0;
    for (size_t i = 0; i < env->n; i++) {
        bool ours = false;
        for (size_t k = 0; k < nnames && !ours; k++) {
            size_t nl = strlen(names[k]);
            ours = !strncmp(env->v[i], names[k], nl) && env->v[i][nl] == '=';
        }
        if (ours)
            free(env->v[i]);
        else
            env->v[w++] = env->v[i];
    }
    env->n = w;
    env->v[w] = NULL;
    char url[64], socks[64];
    snprintf(url, sizeof url, "http://%s:%u", EGRESS_PROXY_ADDR, (unsigned)port);
    /* socks5h: the name goes to the proxy, which resolves it itself */
    snprintf(socks, sizeof socks, "socks5h://%s:%u", EGRESS_PROXY_ADDR, (unsigned)port);
    const char *values[] = {url, url, socks, "localhost,127.0.0.1,::1"};
    for (size_t k = 0; k < nnames; k++) {
        strv_push(env, xasprintf("%s=%s", names[k], k < 8 ? values[k % 4] : "1"));
        if (recorded)
            strv_push(recorded, xstrdup(names[k]));
    }
}

/* ---- init's side ---------------------------------------------------------- */

void egress_open_sockets(int channel_fd)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(EGRESS_PROXY_PORT) };
    inet_pton(AF_INET, EGRESS_PROXY_ADDR, &a.sin_addr);
    int tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (tcp < 0 || setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(tcp, (struct sockaddr *)&a, sizeof a) < 0 || listen(tcp, 256) < 0)
        die_errno("[network] allow: the proxy's socket on the sandbox's %s:%d",
                  EGRESS_PROXY_ADDR, EGRESS_PROXY_PORT);
    a.sin_port = htons(53);
    int udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (udp < 0 || bind(udp, (struct sockaddr *)&a, sizeof a) < 0)
        die_errno("[network] allow: the DNS stub's socket on the sandbox's %s:53",
                  EGRESS_PROXY_ADDR);
    /* Transparent egress: the ports of the web on every address of the
     * sandbox (the command, without capabilities, cannot bind them), and
     * the sandbox's routing table, in which the supervisor makes each
     * address the stub hands out local. The route socket goes first: the
     * channel is read in order, so it is there before the stub answers. */
    int route = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    int direct[2] = {-1, -1};
    static const uint16_t direct_port[2] = {80, 443};
    const char *failed = route < 0 ? "a route socket" : NULL;
    int err = errno;
    for (int i = 0; i < 2 && !failed; i++) {
        struct sockaddr_in any = { .sin_family = AF_INET, .sin_port = htons(direct_port[i]) };
        direct[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (direct[i] < 0 ||
            setsockopt(direct[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
            bind(direct[i], (struct sockaddr *)&any, sizeof any) < 0 || listen(direct[i], 256) < 0) {
            failed = i ? "a listener on port 443" : "a listener on port 80";
            err = errno;
        }
    }
    /* the proxy still works without them: said, not silent */
    if (failed)
        warn("warning: [network] allow: transparent egress is off (%s in the sandbox: %s): "
             "tools that ignore the proxy variables get ENETUNREACH", failed, strerror(err));
    bool sent = failed ||
                (channel_send(channel_fd, CHANNEL_EGRESS_FD, EGRESS_SOCKET_ROUTE, route) &&
                 channel_send(channel_fd, CHANNEL_EGRESS_FD, EGRESS_SOCKET_DIRECT80, direct[0]) &&
                 channel_send(channel_fd, CHANNEL_EGRESS_FD, EGRESS_SOCKET_DIRECT443, direct[1]));
    if (!sent || !channel_send(channel_fd, CHANNEL_EGRESS_FD, EGRESS_SOCKET_PROXY, tcp) ||
        !channel_send(channel_fd, CHANNEL_EGRESS_FD, EGRESS_SOCKET_DNS, udp))
        die_errno("[network] allow: passing the proxy's sockets to the supervisor");
    close(tcp);
    close(udp);
    if (route >= 0)
        close(route);
    for (int i = 0; i < 2; i++)
        if (direct[i] >= 0)
            close(direct[i]);
}

/* ---- Resolving ------------------------------------------------------------ */

static size_t put_name(unsigned char *q, const char *name)
{
    size_t pos = 0;
    for (const char *s = name; *s;) {
        size_t l = strcspn(s, ".");
        q[pos++] = (unsigned char)l;
        memcpy(q + pos, s, l);
        pos += l;
        s += l;
        if (*s == '.')
            s++;
    }
    q[pos++] = 0;
    return pos;
}

/* Skips a (possibly compressed) name at msg[pos]; 0 when malformed. */
static size_t skip_name(const unsigned char *msg, size_t len, size_t pos)
{
    for (int guard = 0; guard < 128; guard++) {
        if (pos >= len)
            return 0;
        unsigned l = msg[pos];
        if (l == 0)
            return pos + 1;
        if ((l & 0xc0) == 0xc0)
            return pos + 2 <= len ? pos + 2 : 0;
        if (l & 0xc0)
            return 0;
        pos += 1 + l;
    }
    return 0;
}

/* A records of name from the resolver; returns how many (<= max), or -1
 * with why. Each try uses a new socket connected to the resolver and a
 * random id, and an answer must echo the question: a spoofed datagram
 * from elsewhere is never read, a stale one never matches. */
static int resolve_a(struct egress *e, const char *name, uint32_t *out, int max, char *why,
                     size_t wl)
{
    unsigned char q[300], r[4096];
    uint16_t id;
    if (getrandom(&id, sizeof id, 0) != sizeof id)
        id = (uint16_t)time(NULL);
    memset(q, 0, 12);
    q[0] = (unsigned char)(id >> 8);
    q[1] = (unsigned char)id;
    q[2] = 0x01; /* RD */
    q[5] = 1;    /* QDCOUNT */
    size_t ql = 12 + put_name(q + 12, name);
    size_t qend = ql;
    q[ql++] = 0; q[ql++] = 1; /* A */
    q[ql++] = 0; q[ql++] = 1; /* IN */
    snprintf(why, wl, "no answer from the resolver %s", e->resolver_text);
    if (!e->resolver_len) {
        snprintf(why, wl, "the host's /etc/resolv.conf names no nameserver");
        return -1;
    }
    for (int t = 0; t < DNS_TRIES; t++) {
        int s = socket(e->resolver.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (s < 0 || connect(s, (struct sockaddr *)&e->resolver, e->resolver_len) < 0 ||
            send(s, q, ql, 0) != (ssize_t)ql) {
            snprintf(why, wl, "asking the resolver %s: %s", e->resolver_text, strerror(errno));
            if (s >= 0)
                close(s);
            return -1;
        }
        struct pollfd pfd = { .fd = s, .events = POLLIN };
        ssize_t n = -1;
        bool unreachable = false;
        while (poll(&pfd, 1, DNS_TRY_MS) > 0) {
            n = recv(s, r, sizeof r, 0);
            /* ICMP port unreachable: nobody serves DNS there */
            if (n < 0 && errno == ECONNREFUSED) {
                unreachable = true;
                break;
            }
            if (n >= (ssize_t)ql && r[0] == q[0] && r[1] == q[1] && (r[2] & 0x80) &&
                !strncasecmp((char *)r + 12, (char *)q + 12, qend - 12) &&
                !memcmp(r + qend, q + qend, 4))
                break;
            n = -1;
        }
        close(s);
        if (unreachable) {
            snprintf(why, wl, "no resolver listens at %s", e->resolver_text);
            return -1;
        }
        if (n < 0)
            continue;
        unsigned rcode = r[3] & 0x0f;
        if (rcode) {
            snprintf(why, wl, "the resolver answered %s", rcode == 3 ? "NXDOMAIN" :
                     rcode == 2 ? "SERVFAIL" : rcode == 5 ? "REFUSED" : "an error");
            return -1;
        }
        unsigned an = (unsigned)r[6] << 8 | r[7];
        size_t pos = ql;
        int got = 0;
        for (unsigned i = 0; i < an && got < max; i++) {
            pos = skip_name(r, (size_t)n, pos);
            if (!pos || pos + 10 > (size_t)n)
                break;
            unsigned type = (unsigned)r[pos] << 8 | r[pos + 1];
            unsigned cls = (unsigned)r[pos + 2] << 8 | r[pos + 3];
            unsigned rdl = (unsigned)r[pos + 8] << 8 | r[pos + 9];
            pos += 10;
            if (pos + rdl > (size_t)n)
                break;
            if (type == 1 && cls == 1 && rdl == 4)
                out[got++] = (uint32_t)r[pos] << 24 | (uint32_t)r[pos + 1] << 16 |
                             (uint32_t)r[pos + 2] << 8 | r[pos + 3];
            pos += rdl;
        }
        if (!got)
            snprintf(why, wl, "no IPv4 address (A record) for it");
        return got ? got : -1;
    }
    return -1;
}

/* resolve_a() with the answers of the last DNS_CACHE_S seconds kept (the
 * addresses are checked again on every use, by keep_public()). */
static int resolve_cached(struct egress *e, const char *name, uint32_t *out, int max, char *why,
                          size_t wl)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    size_t cap = sizeof e->cache / sizeof e->cache[0];
    pthread_mutex_lock(&e->lock);
    for (size_t i = 0; i < cap && i < e->ncache; i++) {
        if (e->cache[i].until > now.tv_sec && !strcmp(e->cache[i].name, name)) {
            int n = e->cache[i].n < max ? e->cache[i].n : max;
            memcpy(out, e->cache[i].addr, (size_t)n * sizeof *out);
            pthread_mutex_unlock(&e->lock);
            return n;
        }
    }
    pthread_mutex_unlock(&e->lock);
    int n = resolve_a(e, name, out, max, why, wl);
    if (n > 0) {
        pthread_mutex_lock(&e->lock);
        size_t slot = e->ncache++ % cap;
        snprintf(e->cache[slot].name, sizeof e->cache[slot].name, "%s", name);
        e->cache[slot].n = n < MAX_ADDRS ? n : MAX_ADDRS;
        memcpy(e->cache[slot].addr, out, (size_t)e->cache[slot].n * sizeof *out);
        e->cache[slot].until = now.tv_sec + DNS_CACHE_S;
        pthread_mutex_unlock(&e->lock);
    }
    return n;
}

static bool host_own(const struct egress *e, uint32_t a)
{
    for (size_t i = 0; i < e->nhost; i++)
        if (e->host_addrs[i] == a)
            return true;
    return false;
}

static const char *addr_text(uint32_t a, char buf[INET_ADDRSTRLEN])
{
    struct in_addr in = { htonl(a) };
    return inet_ntop(AF_INET, &in, buf, INET_ADDRSTRLEN);
}

/* Why addr is no public destination, or NULL; text (for a connected
 * subnet) holds the words. */
static const char *address_local(const struct egress *e, uint32_t a, char *text, size_t tl)
{
    const char *special = allow_address_special(a);
    if (special && e->test_public.mask && (a & e->test_public.mask) == e->test_public.net)
        special = NULL;
    if (!special && host_own(e, a))
        special = "an address of the host";
    for (size_t i = 0; !special && i < e->nconnected; i++) {
        if ((a & e->connected[i].mask) == e->connected[i].net) {
            char t[INET_ADDRSTRLEN];
            snprintf(text, tl, "on %s/%d, a subnet the host is connected to",
                     addr_text(e->connected[i].net, t), __builtin_popcount(e->connected[i].mask));
            special = text;
        }
    }
    return special;
}

/* Of the resolved addresses, those the proxy may connect to on port (0:
 * the DNS stub's answer, on some port) (in place). An address entry for
 * a local address opens it on its own port only: `allow = local.test
 * 127.0.0.1:9999` is no way to port 80 of 127.0.0.1. */
static int keep_public(const struct egress *e, uint32_t *a, int n, uint16_t port, char *why,
                       size_t wl, const char *name)
{
    int w = 0;
    for (int i = 0; i < n; i++) {
        char text[80];
        const char *special = address_local(e, a[i], text, sizeof text);
        if (special && !allowlist_address_allowed(&e->list, a[i], port)) {
            char t[INET_ADDRSTRLEN], on[24] = "";
            if (port)
                snprintf(on, sizeof on, " on port %u", port);
            snprintf(why, wl, "%s resolves to %s (%s), which no address entry of allow lists%s",
                     name, addr_text(a[i], t), special, on);
            continue;
        }
        a[w++] = a[i];
    }
    return w;
}

const char *egress_decide(struct egress *e, const char *host, size_t len, uint16_t port,
                          uint32_t *addrs_out, char *why, size_t wl)
{
    char name[ALLOW_NAME_MAX + 1];
    struct in_addr lit;
    char buf[64];
    if (len < sizeof buf) {
        memcpy(buf, host, len);
        buf[len] = '\0';
        if (inet_pton(AF_INET, buf, &lit) == 1) {
            if (!allowlist_address_allowed(&e->list, ntohl(lit.s_addr), port)) {
                snprintf(why, wl, "an IP literal, and no address entry of allow lists it on port %u",
                         port);
                return why;
            }
            addrs_out[0] = ntohl(lit.s_addr);
            return NULL;
        }
        struct in6_addr lit6;
        if (inet_pton(AF_INET6, buf, &lit6) == 1) {
            snprintf(why, wl, "an IPv6 literal (allow lists IPv4 only)");
            return why;
        }
    }
    if (!allow_name_normalize(host, len, name)) {
        snprintf(why, wl, "not a host name sbx resolves (letters, digits, '-' and '.'; "
                 "international names in their xn-- form; addresses as A.B.C.D)");
        return why;
    }
    if (!allowlist_name_allowed(&e->list, name, port)) {
        if (allowlist_name_known(&e->list, name))
            snprintf(why, wl, "allow lists %s, but not on port %u", name, port);
        else
            snprintf(why, wl, "not in [network] allow");
        return why;
    }
    uint32_t a[MAX_ADDRS];
    int n = resolve_cached(e, name, a, MAX_ADDRS, why, wl);
    if (n <= 0)
        return why;
    n = keep_public(e, a, n, port, why, wl, name);
    if (!n)
        return why;
    addrs_out[0] = a[0];
    return NULL;
}

/* ---- Connections ---------------------------------------------------------- */

static void conn_track(struct egress *e, int fd, bool add)
{
    pthread_mutex_lock(&e->lock);
    if (add) {
        struct conn *c = xcalloc(1, sizeof *c);
        c->fd = fd;
        c->next = e->conns;
        e->conns = c;
        e->active++;
    } else {
        for (struct conn **c = &e->conns; *c; c = &(*c)->next) {
            if ((*c)->fd == fd) {
                struct conn *dead = *c;
                *c = dead->next;
                free(dead);
                break;
            }
        }
        e->active--;
        pthread_cond_broadcast(&e->idle);
    }
    pthread_mutex_unlock(&e->lock);
}

static bool send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* Reads at least want bytes into buf (have already there); false on EOF,
 * error, timeout or overflow. */
static bool read_more(int fd, char *buf, size_t *have, size_t want, size_t cap)
{
    while (*have < want) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        if (poll(&pfd, 1, HEAD_TIMEOUT_MS) <= 0)
            return false;
        ssize_t n = recv(fd, buf + *have, cap - *have, 0);
        if (n <= 0)
            return false;
        *have += (size_t)n;
    }
    return true;
}

static int connect_to(uint32_t addr, uint16_t port)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return -1;
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
                              .sin_addr.s_addr = htonl(addr) };
    if (connect(s, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS) {
        int e = errno;
        close(s);
        errno = e;
        return -1;
    }
    struct pollfd pfd = { .fd = s, .events = POLLOUT };
    int err = 0;
    socklen_t el = sizeof err;
    if (poll(&pfd, 1, CONNECT_TIMEOUT_MS) <= 0) {
        err = ETIMEDOUT;
    } else if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) < 0) {
        err = errno;
    }
    if (err) {
        close(s);
        errno = err;
        return -1;
    }
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* blocking from here: send_all() waits for a slow server rather than
     * failing at EAGAIN (relay() sets its own mode) */
    fcntl(s, F_SETFL, fcntl(s, F_GETFL) & ~O_NONBLOCK);
    return s;
}

/* Both directions through pipes with splice(): the bytes never enter
 * sbx's memory. A direction that reads EOF shuts down the other side's
 * write half, so half-closed protocols keep working. */
static void relay(int a, int b)
{
    struct {
        int from, to, pipe[2];
        size_t pending;
        bool eof, done;
    } d[2] = { { a, b, {-1, -1}, 0, false, false }, { b, a, {-1, -1}, 0, false, false } };
    fcntl(a, F_SETFL, fcntl(a, F_GETFL) | O_NONBLOCK);
    fcntl(b, F_SETFL, fcntl(b, F_GETFL) | O_NONBLOCK);
    for (int i = 0; i < 2; i++)
        if (pipe2(d[i].pipe, O_CLOEXEC | O_NONBLOCK) < 0)
            goto out;
    while (!d[0].done || !d[1].done) {
        struct pollfd pfd[4];
        int np = 0, idx[4];
        bool progress = false;
        for (int i = 0; i < 2; i++) {
            if (d[i].done)
                continue;
            if (!d[i].eof && !d[i].pending) {
                ssize_t n = splice(d[i].from, NULL, d[i].pipe[1], NULL, RELAY_CHUNK,
                                   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                if (n > 0) {
                    d[i].pending = (size_t)n;
                    progress = true;
                } else if (n == 0) {
                    d[i].eof = true;
                    progress = true;
                } else if (errno != EAGAIN && errno != EINTR) {
                    goto out;
                }
            }
            if (d[i].pending) {
                ssize_t n = splice(d[i].pipe[0], NULL, d[i].to, NULL, d[i].pending,
                                   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
                if (n > 0) {
                    d[i].pending -= (size_t)n;
                    progress = true;
                } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                    goto out;
                }
            }
            if (d[i].eof && !d[i].pending) {
                shutdown(d[i].to, SHUT_WR);
                d[i].done = true;
                progress = true;
            }
        }
        if (progress)
            continue;
        for (int i = 0; i < 2; i++) {
            if (d[i].done)
                continue;
            if (d[i].pending) {
                pfd[np] = (struct pollfd){ .fd = d[i].to, .events = POLLOUT };
            } else {
                pfd[np] = (struct pollfd){ .fd = d[i].from, .events = POLLIN };
            }
            idx[np++] = i;
        }
        (void)idx;
        if (poll(pfd, (nfds_t)np, -1) < 0 && errno != EINTR)
            goto out;
        for (int k = 0; k < np; k++)
            if (pfd[k].revents & (POLLERR | POLLNVAL))
                goto out;
    }
out:
    for (int i = 0; i < 2; i++) {
        if (d[i].pipe[0] >= 0)
            close(d[i].pipe[0]);
        if (d[i].pipe[1] >= 0)
            close(d[i].pipe[1]);
    }
}

static void http_error(int fd, int code, const char *reason, const char *why)
{
    char body[400];
    int bl = snprintf(body, sizeof body, "sbx: %s\n", why);
    char head[600];
    int hl = snprintf(head, sizeof head,
                      "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
                      "Connection: close\r\n\r\n%s", code, reason, bl, body);
    send_all(fd, head, (size_t)hl);
}

static bool is_literal(const char *host, size_t hl)
{
    char lb[INET_ADDRSTRLEN];
    struct in_addr lit;
    if (hl >= sizeof lb)
        return false;
    memcpy(lb, host, hl);
    lb[hl] = '\0';
    return inet_pton(AF_INET, lb, &lit) == 1;
}

/* The ports an entry without a port opens: there a tunnel must carry a
 * TLS hello naming the host or HTTP whose every request does. */
static bool web_port(uint16_t port)
{
    return port == 80 || port == 443;
}

/* The start of an HTTP/1.x request line: a method of capital letters and
 * a blank (1), not one (0), or too few bytes to tell (-1). */
static int looks_like_http(const char *b, size_t n)
{
    for (size_t i = 0; i < n && i < 24; i++) {
        if (b[i] == ' ')
            return i > 0;
        if (b[i] < 'A' || b[i] > 'Z')
            return 0;
    }
    return n < 24 ? -1 : 0;
}

enum tunnel_kind { TUNNEL_REFUSED, TUNNEL_OPAQUE, TUNNEL_HTTP };

/* After a tunnel to a name opens: what the client's first bytes are. A
 * TLS hello must ask for the name that was checked (CDNs route by it, so
 * CONNECT to a listed name's address with another name in the hello would
 * reach any site they serve), and name it readably: a hello with ECH or
 * ESNI routes by a name sbx cannot read, one with no name by the
 * server's default site. HTTP is checked request by request
 * (http_stream). Anything else passes only on a port an entry lists
 * explicitly (a database, ssh): on 80 and 443 it is refused, as is a
 * server that speaks first there. An address entry lists the address,
 * whatever it serves. buf holds what the client sent already (*have
 * bytes, cap at most). */
static enum tunnel_kind tunnel_start(struct egress *e, int client, int up, char *buf,
                                     size_t *have, size_t cap, const char *host, size_t hl,
                                     uint16_t port, const char *via)
{
    char want[ALLOW_NAME_MAX + 1], sni[ALLOW_NAME_MAX + 8], got[ALLOW_NAME_MAX + 1];
    if (is_literal(host, hl))
        return TUNNEL_OPAQUE;
    if (!allow_name_normalize(host, hl, want))
        return TUNNEL_REFUSED;
    for (;;) {
        const char *why = NULL;
        char text[ALLOW_NAME_MAX * 5 + 80];
        int r = *have ? wire_tls_server_name((unsigned char *)buf, *have, sni, sizeof sni)
                      : WIRE_TLS_MORE;
        if (r == WIRE_TLS_NOT) {
            int http = looks_like_http(buf, *have);
            if (http > 0)
                return TUNNEL_HTTP;
            if (!http && !web_port(port))
                return TUNNEL_OPAQUE;
            if (!http)
                why = "neither a TLS hello nor an HTTP request";
        } else if (r == WIRE_TLS_NAME) {
            if (allow_name_normalize(sni, strlen(sni), got) && !strcmp(got, want))
                return TUNNEL_OPAQUE;
            char shown[sizeof sni * 4];
            wire_escape(sni, strlen(sni), shown);
            snprintf(text, sizeof text, "the TLS hello asks for %s, not %s", shown, want);
            why = text;
        } else if (r == WIRE_TLS_NO_NAME) {
            why = "a TLS hello that names no server (server_name)";
        } else if (r == WIRE_TLS_HIDDEN) {
            why = "a TLS hello with an encrypted name (ECH or ESNI) the check cannot read";
        } else if (r == WIRE_TLS_BAD) {
            why = "a TLS hello that is malformed or split over records";
        }
        if (!why && *have >= cap)
            why = r == WIRE_TLS_MORE ? "a TLS hello longer than 16 KiB" : "no request line in 16 KiB";
        if (why) {
            refuse_str(e, want, port, via, why);
            return TUNNEL_REFUSED;
        }
        struct pollfd pfd[2] = { { .fd = client, .events = POLLIN }, { .fd = up, .events = POLLIN } };
        if (poll(pfd, 2, HEAD_TIMEOUT_MS) <= 0)
            return TUNNEL_REFUSED;
        if (pfd[0].revents & (POLLIN | POLLHUP)) {
            ssize_t n = recv(client, buf + *have, cap - *have, 0);
            if (n < 0)
                return TUNNEL_REFUSED;
            if (n == 0)
                return *have && !web_port(port) ? TUNNEL_OPAQUE : TUNNEL_REFUSED;
            *have += (size_t)n;
        } else if (pfd[1].revents) {
            /* the server spoke first: no TLS or HTTP client's protocol */
            if (!*have && !web_port(port))
                return TUNNEL_OPAQUE;
            refuse_str(e, want, port, via, "the server spoke first: neither TLS nor HTTP");
            return TUNNEL_REFUSED;
        }
    }
}

/* Drops n bytes from the front of buf. */
static void consume(char *buf, size_t *have, size_t n)
{
    memmove(buf, buf + n, *have - n);
    *have -= n;
}

/* n body bytes from the client to the server: those in buf first. */
static bool forward_n(int fd, int up, char *buf, size_t *have, uint64_t n)
{
    size_t take = *have < n ? *have : (size_t)n;
    if (take && !send_all(up, buf, take))
        return false;
    consume(buf, have, take);
    n -= take;
    while (n) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        if (poll(&pfd, 1, HEAD_TIMEOUT_MS) <= 0)
            return false;
        ssize_t r = recv(fd, buf, n < HEAD_MAX ? (size_t)n : HEAD_MAX, 0);
        if (r <= 0 || !send_all(up, buf, (size_t)r))
            return false;
        n -= (uint64_t)r;
    }
    return true;
}

/* A chunked body (RFC 9112 7.1), chunk by chunk as its sizes frame it,
 * with its trailer section; false (and nothing more forwarded) at the
 * first byte that does not fit. */
static bool forward_chunked(int fd, int up, char *buf, size_t *have)
{
    for (;;) {
        size_t ll;
        uint64_t size;
        int r;
        while ((r = wire_chunk_line(buf, *have, &ll, &size)) == 0)
            if (*have >= HEAD_MAX || !read_more(fd, buf, have, *have + 1, HEAD_MAX))
                return false;
        if (r < 0 || !forward_n(fd, up, buf, have, ll))
            return false;
        if (!size)
            break;
        if (!forward_n(fd, up, buf, have, size) || !read_more(fd, buf, have, 2, HEAD_MAX) ||
            buf[0] != '\r' || buf[1] != '\n' || !forward_n(fd, up, buf, have, 2))
            return false;
    }
    /* trailer fields, then the empty line */
    for (;;) {
        char *le;
        while (!(le = memmem(buf, *have, "\r\n", 2)))
            if (*have >= HEAD_MAX || !read_more(fd, buf, have, *have + 1, HEAD_MAX))
                return false;
        size_t l = (size_t)(le - buf);
        char *colon = memchr(buf, ':', l);
        if (l && (!colon || colon == buf || memchr(buf, '\0', l) || memchr(buf, '\n', l) ||
                  memchr(buf, '\r', l)))
            return false;
        for (char *c = buf; l && c < colon; c++)
            if (!wire_token_char(*c))
                return false;
        if (!forward_n(fd, up, buf, have, l + 2))
            return false;
        if (!l)
            return true;
    }
}

/* The server's side of an HTTP stream: everything it sends goes to the
 * client as it comes; ends at the server's EOF or when the client's
 * socket is shut down (egress_stop). */
struct pump {
    int from, to;
};

static void *pump_run(void *arg)
{
    struct pump *p = arg;
    /* through a pipe with splice(), as relay(): the bytes never enter
     * sbx's memory, and a download keeps the relay's speed */
    int pp[2];
    if (pipe2(pp, O_CLOEXEC) < 0) {
        shutdown(p->to, SHUT_WR);
        return NULL;
    }
    for (;;) {
        struct pollfd pfd[2] = { { .fd = p->from, .events = POLLIN }, { .fd = p->to, .events = 0 } };
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pfd[1].revents & (POLLHUP | POLLERR | POLLNVAL))
            break;
        if (!pfd[0].revents)
            continue;
        ssize_t n = splice(p->from, NULL, pp[1], NULL, RELAY_CHUNK,
                           SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n <= 0)
            break;
        bool sent = true;
        while (n > 0 && sent) {
            ssize_t m = splice(pp[0], NULL, p->to, NULL, (size_t)n, SPLICE_F_MOVE);
            if (m < 0 && errno == EINTR)
                continue;
            sent = m > 0;
            n -= m;
        }
        if (!sent)
            break;
    }
    shutdown(p->to, SHUT_WR);
    close(pp[0]);
    close(pp[1]);
    return NULL;
}

enum stream_mode { STREAM_PROXY, STREAM_TUNNEL };

/* Whether the request in a tunnel to want:port names that host: its Host
 * field (one, the same name, the same port if it gives one) and its
 * target (origin form, "*", or an absolute URI of that authority). */
static bool tunnel_request_ok(const struct wire_head *h, const char *want, uint16_t port,
                              char *why, size_t wl)
{
    const char *hh;
    size_t hhl;
    uint16_t hp;
    char got[ALLOW_NAME_MAX + 1];
    if (h->nhost != 1) {
        snprintf(why, wl, "a request in the tunnel with %s Host header", h->nhost ? "more than one" : "no");
        return false;
    }
    bool parsed = wire_split_authority(h->host, h->host_len, &hh, &hhl, &hp, port) &&
                  allow_name_normalize(hh, hhl, got);
    if (!parsed || strcmp(got, want) || hp != port) {
        char shown[4 * 200 + 1];
        size_t sl = h->host_len < 200 ? h->host_len : 200;
        wire_escape(h->host, sl, shown);
        snprintf(why, wl, "the request in the tunnel names %s%s, not %s", shown,
                 sl < h->host_len ? "..." : "", want);
        return false;
    }
    const char *t = h->target;
    size_t tl = h->target_len;
    if (t[0] == '/' || (tl == 1 && t[0] == '*'))
        return true;
    if (tl > 7 && !strncasecmp(t, "http://", 7)) {
        size_t al = strcspn(t + 7, "/?#");
        if (7 + al > tl)
            al = tl - 7;
        if (!memchr(t + 7, '@', al) && !memchr(t + 7, '%', al) &&
            wire_split_authority(t + 7, al, &hh, &hhl, &hp, 80) &&
            allow_name_normalize(hh, hhl, got) && !strcmp(got, want) && hp == port)
            return true;
    }
    snprintf(why, wl, "a request in the tunnel whose target is not a path on %s", want);
    return false;
}

/* The client's rewritten first request on the plain-HTTP path: origin
 * form, Proxy-* and hop-by-hop fields dropped, one request per connection
 * (Connection: close), so the connection never carries a request for
 * another host. */
static bool send_proxy_head(int up, const struct wire_head *h, const char *buf, const char *path,
                            size_t pathl, const char *authority, size_t authl)
{
    struct strv out = { 0 };
    bool slash = pathl && path[0] == '/';
    strv_push(&out, xasprintf("%.*s %s%.*s %.8s\r\n", (int)h->method_len, h->method,
                              slash ? "" : "/", (int)pathl, path, h->version));
    if (!h->nhost)
        strv_push(&out, xasprintf("Host: %.*s\r\n", (int)authl, authority));
    const char *end = buf + h->len - 2;
    for (const char *l = h->line_end + 2; l < end;) {
        const char *le = memmem(l, (size_t)(end - l), "\r\n", 2);
        size_t nl = (size_t)((const char *)memchr(l, ':', (size_t)(le - l)) - l);
        if (!(nl > 6 && !strncasecmp(l, "Proxy-", 6)) && !wire_header_is(l, nl, "Connection") &&
            !wire_header_is(l, nl, "Keep-Alive"))
            strv_push(&out, xasprintf("%.*s\r\n", (int)(le - l), l));
        l = le + 2;
    }
    strv_push(&out, xstrdup("Connection: close\r\n\r\n"));
    bool sent = true;
    for (size_t i = 0; i < out.n && sent; i++)
        sent = send_all(up, out.v[i], strlen(out.v[i]));
    strv_free(&out);
    return sent;
}

/* HTTP from the client to the server, framed request by request: each
 * head read whole and checked, its body forwarded as Content-Length or
 * the chunks frame it, and nothing after a request that fails a check
 * (or, on the plain-HTTP path, after the first request: its server was
 * told to close) ever reaches the server. The server's side flows back
 * as it comes. For STREAM_PROXY the first head is checked and in buf;
 * path/authority are its rewritten parts. */
static void http_stream(struct egress *e, int fd, int up, char *buf, size_t have,
                        enum stream_mode mode, const char *want, uint16_t port, const char *via,
                        const char *path, size_t pathl, const char *auth, size_t authl)
{
    struct pump pump = { up, fd };
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    bool pumping = pthread_create(&t, &attr, pump_run, &pump) == 0;
    pthread_attr_destroy(&attr);
    if (!pumping)
        goto out;
    for (bool first = true;; first = false) {
        struct wire_head h;
        int r;
        /* the client's EOF between requests ends the stream */
        while ((r = wire_http_head(buf, have, HEAD_MAX, &h)) == 0)
            if (!read_more(fd, buf, &have, have + 1, HEAD_MAX))
                goto out;
        char why[ALLOW_NAME_MAX * 5 + 200];
        if (r < 0) {
            refuse_str(e, want, port, via, h.error);
            if (first)
                http_error(fd, h.status, h.status == 431 ? "Request Header Fields Too Large"
                                                        : "Bad Request", h.error);
            goto out;
        }
        bool sent;
        if (mode == STREAM_PROXY) {
            if (!first)
                goto out;
            sent = send_proxy_head(up, &h, buf, path, pathl, auth, authl);
        } else {
            if (!tunnel_request_ok(&h, want, port, why, sizeof why)) {
                refuse_str(e, want, port, via, why);
                if (first)
                    http_error(fd, 403, "Forbidden", why);
                goto out;
            }
            sent = send_all(up, buf, h.len);
        }
        consume(buf, &have, h.len);
        if (!sent)
            goto out;
        if (h.body == WIRE_BODY_LENGTH)
            sent = forward_n(fd, up, buf, &have, h.length);
        else if (h.body == WIRE_BODY_CHUNKED)
            sent = forward_chunked(fd, up, buf, &have);
        if (!sent) {
            refuse_str(e, want, port, via, "a request body that ends early or is not framed as "
                       "its headers say");
            goto out;
        }
    }
out:
    shutdown(up, SHUT_WR);
    if (pumping) {
        pthread_join(t, NULL);
        /* what the client sent after the last request is dropped unread:
         * read it first, or closing would reset the connection before the
         * client read its answer */
        for (int i = 0; i < 20; i++) {
            struct pollfd pfd = { .fd = fd, .events = POLLIN };
            if (poll(&pfd, 1, 100) <= 0 || recv(fd, buf, HEAD_MAX, MSG_DONTWAIT) <= 0)
                break;
        }
    }
}

/* A destination allowed: connect, or say why not. Returns the socket. */
static int open_destination(struct egress *e, const char *host, size_t hl, uint16_t port,
                            const char *via, char *why, size_t wl)
{
    uint32_t addr;
    if (egress_decide(e, host, hl, port, &addr, why, wl)) {
        refuse(e, host, hl, port, via, why);
        return -1;
    }
    int s = connect_to(addr, port);
    if (s < 0) {
        char t[INET_ADDRSTRLEN];
        snprintf(why, wl, "connect to %s:%u: %s", addr_text(addr, t), port, strerror(errno));
        return -1;
    }
    pthread_mutex_lock(&e->lock);
    e->allowed++;
    pthread_mutex_unlock(&e->lock);
    return s;
}

/* A tunnel is open to host:port (CONNECT or SOCKS5), buf holding the
 * client's bytes that came with the request (rest of them). */
static void serve_tunnel(struct egress *e, int fd, int up, char *buf, size_t rest,
                         const char *host, size_t hl, uint16_t port, const char *via)
{
    char want[ALLOW_NAME_MAX + 1];
    enum tunnel_kind k = tunnel_start(e, fd, up, buf, &rest, HEAD_MAX, host, hl, port, via);
    if (k == TUNNEL_HTTP && allow_name_normalize(host, hl, want))
        http_stream(e, fd, up, buf, rest, STREAM_TUNNEL, want, port, via, NULL, 0, NULL, 0);
    else if (k == TUNNEL_OPAQUE && (!rest || send_all(up, buf, rest)))
        relay(fd, up);
}

static void serve_http(struct egress *e, int fd, char *buf, size_t have)
{
    struct wire_head h;
    int r;
    while ((r = wire_http_head(buf, have, HEAD_MAX, &h)) == 0)
        if (!read_more(fd, buf, &have, have + 1, HEAD_MAX))
            return;
    if (r < 0) {
        http_error(fd, h.status, h.status == 431 ? "Request Header Fields Too Large" : "Bad Request",
                   h.error);
        return;
    }
    const char *target = h.target;
    size_t tl = h.target_len;
    bool is_connect = h.method_len == 7 && !memcmp(h.method, "CONNECT", 7);
    const char *host, *path = NULL, *auth = NULL;
    size_t hl, pathl = 0, al = 0;
    uint16_t port;
    char why[400];
    if (is_connect) {
        if (!wire_split_authority(target, tl, &host, &hl, &port, 0)) {
            http_error(fd, 400, "Bad Request", "CONNECT needs HOST:PORT");
            return;
        }
    } else {
        if (tl < 7 || strncasecmp(target, "http://", 7)) {
            const char *msg = tl >= 8 && !strncasecmp(target, "https://", 8)
                                  ? "https:// URLs go through CONNECT"
                                  : "a proxy request needs an absolute http:// URI";
            http_error(fd, 400, "Bad Request", msg);
            return;
        }
        auth = target + 7;
        al = strcspn(auth, "/?# ");
        if (auth + al > target + tl)
            al = (size_t)(target + tl - auth);
        if (memchr(auth, '@', al) || memchr(auth, '%', al)) {
            refuse_str(e, "(userinfo or %-escape in URI)", 0, "HTTP",
                       "the URI's authority holds '@' or '%': its host is read differently by "
                       "different parsers");
            http_error(fd, 403, "Forbidden", "user info or escapes in the URI's authority");
            return;
        }
        if (!wire_split_authority(auth, al, &host, &hl, &port, 80)) {
            http_error(fd, 400, "Bad Request", "bad authority in the URI");
            return;
        }
        path = auth + al;
        pathl = (size_t)(target + tl - path);
    }
    if (h.nhost > 1) {
        refuse_str(e, "(two Host headers)", 0, is_connect ? "CONNECT" : "HTTP",
                   "a request with two Host headers");
        http_error(fd, 400, "Bad Request", "two Host headers");
        return;
    }
    /* One Host, and it names the URI's host and port, or the server would
     * be asked for another site than the one checked. */
    if (!is_connect && h.nhost) {
        const char *h2;
        size_t h2l;
        uint16_t p2;
        char a1[ALLOW_NAME_MAX + 1], a2[ALLOW_NAME_MAX + 1];
        bool same = wire_split_authority(h.host, h.host_len, &h2, &h2l, &p2, 80) && p2 == port;
        if (same) {
            bool n1 = allow_name_normalize(host, hl, a1), n2 = allow_name_normalize(h2, h2l, a2);
            same = n1 && n2 ? !strcmp(a1, a2) : (hl == h2l && !strncasecmp(host, h2, hl));
        }
        if (!same) {
            refuse(e, host, hl, port, "HTTP", "the Host header names another host than the URI");
            http_error(fd, 403, "Forbidden", "the Host header names another host than the URI");
            return;
        }
    }

    const char *via = is_connect ? "CONNECT" : "HTTP";
    int up = open_destination(e, host, hl, port, via, why, sizeof why);
    if (up < 0) {
        bool policy = strncmp(why, "connect to", 10) != 0;
        http_error(fd, policy ? 403 : 502, policy ? "Forbidden" : "Bad Gateway", why);
        return;
    }
    if (is_connect) {
        static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
        /* the name lives in buf, which the tunnel's bytes overwrite */
        char name[ALLOW_NAME_MAX + 8];
        size_t nl = hl < sizeof name - 1 ? hl : sizeof name - 1;
        memcpy(name, host, nl);
        size_t rest = have - h.len;
        memmove(buf, buf + h.len, rest);
        if (send_all(fd, ok, sizeof ok - 1))
            serve_tunnel(e, fd, up, buf, rest, name, nl, port, via);
    } else {
        char want[ALLOW_NAME_MAX + 1];
        if (!allow_name_normalize(host, hl, want))
            snprintf(want, sizeof want, "(address)");
        /* path and auth point into buf, before the head's end: stable
         * until http_stream consumes the head after sending it */
        http_stream(e, fd, up, buf, have, STREAM_PROXY, want, port, via, path, pathl, auth,
                    (size_t)(path - auth));
    }
    close(up);
}

static void socks_reply(int fd, unsigned char code)
{
    unsigned char r[10] = {5, code, 0, 1, 0, 0, 0, 0, 0, 0};
    send_all(fd, r, sizeof r);
}

/* RFC 1928, CONNECT without authentication. */
static void serve_socks(struct egress *e, int fd, char *buf, size_t have)
{
    unsigned char *u = (unsigned char *)buf;
    if (!read_more(fd, buf, &have, 2, HEAD_MAX) || !read_more(fd, buf, &have, 2 + u[1], HEAD_MAX))
        return;
    if (!memchr(u + 2, 0, u[1])) {
        send_all(fd, "\x05\xff", 2);
        return;
    }
    send_all(fd, "\x05\x00", 2);
    size_t off = 2 + u[1];
    memmove(buf, buf + off, have - off);
    have -= off;
    if (!read_more(fd, buf, &have, 5, HEAD_MAX))
        return;
    if (u[0] != 5 || u[1] != 1) {
        socks_reply(fd, 7);   /* command not supported: CONNECT only */
        return;
    }
    char host[ALLOW_NAME_MAX + 8];
    size_t hl, need;
    char why[400];
    if (u[3] == 1) {
        need = 10;
        if (!read_more(fd, buf, &have, need, HEAD_MAX))
            return;
        inet_ntop(AF_INET, u + 4, host, sizeof host);
        hl = strlen(host);
    } else if (u[3] == 3) {
        need = 5 + u[4] + 2;
        if (!read_more(fd, buf, &have, need, HEAD_MAX))
            return;
        hl = u[4];
        memcpy(host, u + 5, hl);
        host[hl] = '\0';
    } else if (u[3] == 4) {
        need = 22;
        if (!read_more(fd, buf, &have, need, HEAD_MAX))
            return;
        char t[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, u + 4, t, sizeof t);
        snprintf(host, sizeof host, "[%s]", t);
        uint16_t port = (uint16_t)(u[20] << 8 | u[21]);
        refuse_str(e, host, port, "SOCKS5", "an IPv6 literal (allow lists IPv4 only)");
        socks_reply(fd, 2);
        return;
    } else {
        socks_reply(fd, 8);
        return;
    }
    uint16_t port = (uint16_t)(u[need - 2] << 8 | u[need - 1]);
    int up = open_destination(e, host, hl, port, "SOCKS5", why, sizeof why);
    if (up < 0) {
        socks_reply(fd, strncmp(why, "connect to", 10) ? 2 : 5);
        return;
    }
    socks_reply(fd, 0);
    size_t rest = have > need ? have - need : 0;
    memmove(buf, buf + need, rest);
    serve_tunnel(e, fd, up, buf, rest, host, hl, port, "SOCKS5");
    close(up);
}

/* A connection a tool made to an address the stub handed out, caught
 * on the sandbox's port 80 or 443 (transparent egress): the name comes
 * from the bytes themselves, the TLS hello's server name or the HTTP
 * request's Host, and is checked exactly as a CONNECT to that name and
 * port would be; HTTP goes on request by request (http_stream). */
static void serve_direct(struct egress *e, int fd, char *buf, size_t have)
{
    struct sockaddr_in dst;
    socklen_t dl = sizeof dst;
    if (getsockname(fd, (struct sockaddr *)&dst, &dl) < 0 || dst.sin_family != AF_INET)
        return;
    uint16_t port = ntohs(dst.sin_port);
    char where[INET_ADDRSTRLEN + 8], t[INET_ADDRSTRLEN];
    snprintf(where, sizeof where, "%s", addr_text(ntohl(dst.sin_addr.s_addr), t));
    /* the wildcard listener also catches the sandbox's own loopback: that
     * is no destination the stub handed out */
    if ((ntohl(dst.sin_addr.s_addr) >> 24) == 127)
        return;
    char name[ALLOW_NAME_MAX + 8];
    size_t nl = 0;
    bool tls = buf[0] == 0x16;
    struct wire_head h;
    const char *why = NULL;
    for (;;) {
        if (tls) {
            int r = wire_tls_server_name((unsigned char *)buf, have, name, sizeof name);
            if (r == WIRE_TLS_NAME) {
                nl = strlen(name);
                break;
            }
            why = r == WIRE_TLS_NO_NAME ? "a TLS hello that names no server (server_name)"
                  : r == WIRE_TLS_HIDDEN ? "a TLS hello with an encrypted name (ECH or ESNI) the "
                                           "check cannot read"
                  : r == WIRE_TLS_BAD ? "a TLS hello that is malformed or split over records"
                  : have >= HEAD_MAX ? "a TLS hello longer than 16 KiB" : NULL;
        } else {
            int r = wire_http_head(buf, have, HEAD_MAX, &h);
            if (r > 0) {
                const char *hh;
                size_t hhl;
                uint16_t hp;
                if (h.nhost != 1 || !wire_split_authority(h.host, h.host_len, &hh, &hhl, &hp, port)) {
                    why = h.nhost ? "a request with a bad or second Host header"
                                  : "a request without a Host header";
                } else {
                    nl = hhl < sizeof name - 1 ? hhl : sizeof name - 1;
                    memcpy(name, hh, nl);
                    name[nl] = '\0';
                    break;
                }
            } else if (r < 0) {
                why = h.error;
            }
        }
        if (why) {
            refuse_str(e, where, port, "direct", why);
            if (!tls)
                http_error(fd, 400, "Bad Request", why);
            return;
        }
        if (!read_more(fd, buf, &have, have + 1, HEAD_MAX))
            return;
    }
    char reason[400];
    int up = open_destination(e, name, nl, port, "direct", reason, sizeof reason);
    if (up < 0) {
        if (!tls)
            http_error(fd, strncmp(reason, "connect to", 10) ? 403 : 502,
                       strncmp(reason, "connect to", 10) ? "Forbidden" : "Bad Gateway", reason);
        return;
    }
    char want[ALLOW_NAME_MAX + 1];
    if (tls) {
        if (send_all(up, buf, have))
            relay(fd, up);
    } else if (allow_name_normalize(name, nl, want)) {
        http_stream(e, fd, up, buf, have, STREAM_TUNNEL, want, port, "direct", NULL, 0, NULL, 0);
    }
    close(up);
}

struct client {
    struct egress *e;
    int fd;
    bool direct;
};

static void *serve_client(void *arg)
{
    struct client c = *(struct client *)arg;
    free(arg);
    char *buf = xmalloc(HEAD_MAX + 1);
    size_t have = 0;
    if (read_more(c.fd, buf, &have, 1, HEAD_MAX)) {
        buf[have] = '\0';
        if (c.direct)
            serve_direct(c.e, c.fd, buf, have);
        else if (buf[0] == 5)
            serve_socks(c.e, c.fd, buf, have);
        else
            serve_http(c.e, c.fd, buf, have);
    }
    free(buf);
    conn_track(c.e, c.fd, false);
    close(c.fd);
    return NULL;
}

/* Waits until fd is readable (true) or egress_stop() wrote stop_fd, or
 * poll failed for good (false). */
static bool readable_until_stop(int fd, int stop_fd)
{
    for (;;) {
        struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN }, { .fd = stop_fd, .events = POLLIN } };
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        return !pfd[1].revents;
    }
}

struct listener {
    struct egress *e;
    int fd;
    bool direct;
};

static void *accept_loop(void *arg)
{
    struct listener l = *(struct listener *)arg;
    free(arg);
    struct egress *e = l.e;
    while (readable_until_stop(l.fd, e->stop_fd)) {
        pthread_mutex_lock(&e->lock);
        while (e->active >= MAX_ACTIVE && !e->stopped)
            pthread_cond_wait(&e->idle, &e->lock);
        pthread_mutex_unlock(&e->lock);
        int fd = accept4(l.fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        uint16_t peer_port;
        if (e->host_mode && !host_client_expected(e, fd, &peer_port)) {
            char who[48];
            snprintf(who, sizeof who, "127.0.0.1:%u", (unsigned)peer_port);
            refuse_str(e, who, e->host_port, "proxy",
                       "a client of the host's loopback that is not the sandbox's command");
            close(fd);
            continue;
        }
        struct client *c = xmalloc(sizeof *c);
        c->e = e;
        c->fd = fd;
        c->direct = l.direct;
        conn_track(e, fd, true);
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        if (pthread_create(&t, &attr, serve_client, c) != 0) {
            conn_track(e, fd, false);
            close(fd);
            free(c);
        }
        pthread_attr_destroy(&attr);
    }
    return NULL;
}

static void route_local(struct egress *e, uint32_t addr);

/* ---- The DNS stub ----------------------------------------------------------- */

static void dns_answer(struct egress *e, const unsigned char *q, size_t len, unsigned char *r,
                       size_t *rlen)
{
    *rlen = 0;
    if (len < 12 || (q[2] & 0x80) || (q[2] & 0x78) || q[4] || q[5] != 1)
        return;
    char name[ALLOW_NAME_MAX + 8];
    size_t pos = 12, nl = 0;
    bool bad = false;
    for (;;) {
        if (pos >= len)
            return;
        unsigned l = q[pos++];
        if (!l)
            break;
        /* a '.' inside a label would read as two labels once joined */
        if (l > 63 || pos + l > len || memchr(q + pos, '.', l)) {
            bad = true;
            break;
        }
        if (nl + l + 1 >= sizeof name) {
            bad = true;
            break;
        }
        if (nl)
            name[nl++] = '.';
        memcpy(name + nl, q + pos, l);
        nl += l;
        pos += l;
    }
    if (bad || pos + 4 > len) {
        /* FORMERR, with no question: the client stops at once */
        memcpy(r, q, 2);
        r[2] = 0x80;
        r[3] = 0x81;
        memset(r + 4, 0, 8);
        *rlen = 12;
        return;
    }
    name[nl] = '\0';
    unsigned qtype = (unsigned)q[pos] << 8 | q[pos + 1];
    size_t qend = pos + 4;
    memcpy(r, q, qend);
    r[2] = (unsigned char)(0x80 | (q[2] & 0x01));   /* QR, RD copied */
    r[3] = 0x80;                                    /* RA */
    memset(r + 6, 0, 6);
    *rlen = qend;
    char norm[ALLOW_NAME_MAX + 1];
    if (memchr(name, '\0', nl) || !allow_name_normalize(name, nl, norm) ||
        !allowlist_name_known(&e->list, norm)) {
        refuse(e, name, nl, 0, "DNS", "not in [network] allow: answered NXDOMAIN, asked nowhere");
        r[3] |= 3;
        return;
    }
    if (qtype != 1) {
        /* listed, but sbx hands out IPv4 addresses only: no record */
        pthread_mutex_lock(&e->lock);
        e->dns_answered++;
        pthread_mutex_unlock(&e->lock);
        return;
    }
    uint32_t a[MAX_ADDRS];
    char why[400];
    int n = resolve_cached(e, norm, a, MAX_ADDRS, why, sizeof why);
    if (n > 0)
        n = keep_public(e, a, n, 0, why, sizeof why, norm);
    if (n <= 0) {
        refuse_str(e, norm, 0, "DNS", why);
        r[3] |= 2; /* SERVFAIL */
        return;
    }
    /* routes first: the tool connects as soon as it reads the answer */
    for (int i = 0; i < n; i++)
        route_local(e, a[i]);
    pthread_mutex_lock(&e->lock);
    e->dns_answered++;
    for (int i = 0; i < n; i++) {
        size_t slot = e->nanswers++ % (sizeof e->answers / sizeof e->answers[0]);
        e->answers[slot].addr = a[i];
        snprintf(e->answers[slot].name, sizeof e->answers[slot].name, "%s", norm);
    }
    pthread_mutex_unlock(&e->lock);
    size_t w = qend;
    for (int i = 0; i < n; i++) {
        unsigned char rr[16] = {0xc0, 12, 0, 1, 0, 1, 0, 0, 0, DNS_CACHE_S, 0, 4,
                                (unsigned char)(a[i] >> 24), (unsigned char)(a[i] >> 16),
                                (unsigned char)(a[i] >> 8), (unsigned char)a[i]};
        memcpy(r + w, rr, sizeof rr);
        w += sizeof rr;
    }
    r[7] = (unsigned char)n;
    *rlen = w;
}

/* `ip route add local ADDR/32 dev lo table local` in the sandbox's
 * network namespace, through the rtnetlink socket init opened there: a
 * connect() to ADDR then reaches the listeners of serve_direct() instead
 * of finding no route. Only addresses the stub hands out for listed names
 * get one; every other address still has no route. */
static void route_local(struct egress *e, uint32_t addr)
{
    pthread_mutex_lock(&e->route_lock);
    bool known = e->route_fd < 0;
    for (size_t i = 0; i < e->nrouted && !known; i++)
        known = e->routed[i] == addr;
    bool full = !known && e->nrouted >= sizeof e->routed / sizeof e->routed[0];
    if (known || full) {
        bool first = full && !e->routes_full;
        e->routes_full |= full;
        pthread_mutex_unlock(&e->route_lock);
        if (first)
            warn("warning: [network] allow: the DNS stub handed out %zu addresses: later ones "
                 "get no transparent route (tools that ignore the proxy variables get "
                 "ENETUNREACH there; the proxy still serves them)", e->nrouted);
        return;
    }
    struct {
        struct nlmsghdr n;
        struct rtmsg r;
        char attrs[64];
    } req;
    memset(&req, 0, sizeof req);
    req.n.nlmsg_type = RTM_NEWROUTE;
    req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE | NLM_F_ACK;
    req.n.nlmsg_seq = (uint32_t)e->nrouted + 1;
    req.r.rtm_family = AF_INET;
    req.r.rtm_dst_len = 32;
    req.r.rtm_table = RT_TABLE_LOCAL;
    req.r.rtm_protocol = RTPROT_STATIC;
    req.r.rtm_scope = RT_SCOPE_HOST;
    req.r.rtm_type = RTN_LOCAL;
    size_t len = NLMSG_LENGTH(sizeof req.r);
    uint32_t dst = htonl(addr);
    int lo = 1; /* a new network namespace's first device */
    struct { unsigned short type; const void *data; unsigned short dl; } a[] = {
        {RTA_DST, &dst, 4}, {RTA_OIF, &lo, 4}};
    for (size_t i = 0; i < 2; i++) {
        struct rtattr *rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(len));
        rta->rta_type = a[i].type;
        rta->rta_len = (unsigned short)RTA_LENGTH(a[i].dl);
        memcpy(RTA_DATA(rta), a[i].data, a[i].dl);
        len = NLMSG_ALIGN(len) + RTA_ALIGN(rta->rta_len);
    }
    req.n.nlmsg_len = (uint32_t)len;
    char ack[256];
    bool ok = send(e->route_fd, &req, len, 0) == (ssize_t)len;
    struct pollfd pfd = { .fd = e->route_fd, .events = POLLIN };
    ssize_t n = ok && poll(&pfd, 1, 1000) > 0 ? recv(e->route_fd, ack, sizeof ack, 0) : -1;
    const struct nlmsghdr *h = (const struct nlmsghdr *)ack;
    int err = n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) && h->nlmsg_type == NLMSG_ERROR
                  ? ((const struct nlmsgerr *)NLMSG_DATA(h))->error : -EIO;
    if (!err)
        e->routed[e->nrouted++] = addr;
    pthread_mutex_unlock(&e->route_lock);
    if (err) {
        char t[INET_ADDRSTRLEN];
        warn("warning: [network] allow: no transparent route to %s in the sandbox: %s (tools "
             "that ignore the proxy variables get ENETUNREACH there)",
             addr_text(addr, t), strerror(-err));
    }
}

bool egress_direct_passes(void *egress, const char *address)
{
    struct egress *e = egress;
    char host[INET_ADDRSTRLEN];
    /* an AF_INET6 socket's IPv4-mapped address (Java's way) routes as
     * IPv4: "[::ffff:198.51.100.7]:443" */
    char mapped[INET_ADDRSTRLEN + 8];
    if (!strncmp(address, "[::ffff:", 8) && strchr(address, ']')) {
        size_t ml = (size_t)(strchr(address, ']') - address) - 8;
        if (ml >= INET_ADDRSTRLEN)
            return false;
        snprintf(mapped, sizeof mapped, "%.*s%s", (int)ml, address + 8, strchr(address, ']') + 1);
        address = mapped;
    }
    size_t hl = strcspn(address, ":");
    struct in_addr a;
    if (!e || hl >= sizeof host || address[hl] != ':')
        return false;
    memcpy(host, address, hl);
    host[hl] = '\0';
    const char *port = address + hl + 1;
    if (inet_pton(AF_INET, host, &a) != 1 || (strcmp(port, "80") && strcmp(port, "443")))
        return false;
    bool found = false;
    pthread_mutex_lock(&e->route_lock);
    for (size_t i = 0; i < e->nrouted && !found; i++)
        found = e->routed[i] == ntohl(a.s_addr);
    pthread_mutex_unlock(&e->route_lock);
    return found;
}

static void *dns_loop(void *arg)
{
    struct egress *e = arg;
    unsigned char q[512], r[512 + MAX_ADDRS * 16];
    while (readable_until_stop(e->dns_fd, e->stop_fd)) {
        struct sockaddr_storage from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(e->dns_fd, q, sizeof q, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
        if (n <= 0)
            continue;
        size_t rl;
        dns_answer(e, q, (size_t)n, r, &rl);
        if (rl)
            sendto(e->dns_fd, r, rl, MSG_DONTWAIT, (struct sockaddr *)&from, fl);
    }
    return NULL;
}

bool egress_name_of(void *egress, const char *address, char *out, size_t len)
{
    struct egress *e = egress;
    char host[INET_ADDRSTRLEN];
    size_t hl = strcspn(address, ":");
    struct in_addr a;
    if (!e || hl >= sizeof host)
        return false;
    memcpy(host, address, hl);
    host[hl] = '\0';
    if (inet_pton(AF_INET, host, &a) != 1)
        return false;
    bool found = false;
    pthread_mutex_lock(&e->lock);
    size_t cap = sizeof e->answers / sizeof e->answers[0];
    size_t n = e->nanswers < cap ? e->nanswers : cap;
    for (size_t i = 0; i < n && !found; i++) {
        if (e->answers[i].addr == ntohl(a.s_addr)) {
            snprintf(out, len, "%s", e->answers[i].name);
            found = true;
        }
    }
    pthread_mutex_unlock(&e->lock);
    return found;
}

/* ---- Lifetime ------------------------------------------------------------- */

static void start_listener(struct egress *e, int fd, bool direct, pthread_t *t, bool *started)
{
    struct listener *l = xmalloc(sizeof *l);
    *l = (struct listener){ e, fd, direct };
    int r = pthread_create(t, NULL, accept_loop, l);
    if (r)
        die_with_errno(r, "[network] allow: starting the proxy's thread");
    *started = true;
}

void egress_adopt(struct egress *e, int kind, int fd)
{
    int *slot = !e ? NULL : kind == EGRESS_SOCKET_PROXY ? &e->proxy_fd
                : kind == EGRESS_SOCKET_DNS ? &e->dns_fd
                : kind == EGRESS_SOCKET_DIRECT80 ? &e->direct_fd[0]
                : kind == EGRESS_SOCKET_DIRECT443 ? &e->direct_fd[1]
                : kind == EGRESS_SOCKET_ROUTE ? &e->route_fd : NULL;
    if (!slot || e->stopped || *slot >= 0) {
        close(fd);
        return;
    }
    if (e->stop_fd < 0) {
        e->stop_fd = eventfd(0, EFD_CLOEXEC);
        if (e->stop_fd < 0)
            die_errno("[network] allow: eventfd for the proxy");
    }
    *slot = fd;
    if (kind == EGRESS_SOCKET_PROXY) {
        start_listener(e, fd, false, &e->proxy_thread, &e->proxy_started);
    } else if (kind == EGRESS_SOCKET_DIRECT80 || kind == EGRESS_SOCKET_DIRECT443) {
        int i = kind == EGRESS_SOCKET_DIRECT443;
        start_listener(e, fd, true, &e->direct_thread[i], &e->direct_started[i]);
    } else if (kind == EGRESS_SOCKET_DNS) {
        int r = pthread_create(&e->dns_thread, NULL, dns_loop, e);
        if (r)
            die_with_errno(r, "[network] allow: starting the proxy's thread");
        e->dns_started = true;
    }
    if (e->proxy_started && e->dns_started && kind == EGRESS_SOCKET_DNS) {
        char *fact = xasprintf("proxy on the sandbox's %s:%d (HTTP CONNECT, HTTP, SOCKS5), DNS "
                               "stub on %s:53; names resolved by %s%s", EGRESS_PROXY_ADDR,
                               EGRESS_PROXY_PORT, EGRESS_PROXY_ADDR, e->resolver_text,
                               e->route_fd >= 0 && e->direct_started[0] && e->direct_started[1]
                                   ? "; the stub's addresses reach the allowed names on ports "
                                     "80 and 443 directly (TLS by SNI, HTTP by Host)"
                                   : "");
        record_network("allow", fact);
        verbose_step("[network] allow: %s", fact);
        free(fact);
    }
}

void egress_stop(struct egress *e)
{
    if (!e || e->stopped)
        return;
    /* The command is gone: cut what it left open (the accept loop may
     * wait for a free slot), then end the threads. */
    pthread_mutex_lock(&e->lock);
    e->stopped = true;
    for (struct conn *c = e->conns; c; c = c->next)
        shutdown(c->fd, SHUT_RDWR);
    pthread_cond_broadcast(&e->idle);
    pthread_mutex_unlock(&e->lock);
    if (e->stop_fd >= 0) {
        uint64_t one = 1;
        if (write(e->stop_fd, &one, sizeof one) < 0) {
            /* an eventfd write fails only on overflow */
        }
    }
    if (e->proxy_started)
        pthread_join(e->proxy_thread, NULL);
    for (int i = 0; i < 2; i++)
        if (e->direct_started[i])
            pthread_join(e->direct_thread[i], NULL);
    if (e->dns_started)
        pthread_join(e->dns_thread, NULL);
    /* the connection threads get a moment to count their last bytes */
    pthread_mutex_lock(&e->lock);
    for (struct conn *c = e->conns; c; c = c->next)
        shutdown(c->fd, SHUT_RDWR);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200 * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (e->active && pthread_cond_timedwait(&e->idle, &e->lock, &until) == 0)
        ;
    pthread_mutex_unlock(&e->lock);
}

void egress_free(struct egress *e)
{
    if (!e)
        return;
    egress_stop(e);
    /* A connection thread still running (stuck on a server) keeps e: it
     * ends with sbx. */
    if (e->active)
        return;
    if (e->proxy_fd >= 0)
        close(e->proxy_fd);
    if (e->host_proxy_fd >= 0)
        close(e->host_proxy_fd);
    if (e->dns_fd >= 0)
        close(e->dns_fd);
    for (int i = 0; i < 2; i++)
        if (e->direct_fd[i] >= 0)
            close(e->direct_fd[i]);
    if (e->route_fd >= 0)
        close(e->route_fd);
    pthread_mutex_destroy(&e->route_lock);
    if (e->stop_fd >= 0)
        close(e->stop_fd);
    allowlist_free(&e->list);
    free(e->host_addrs);
    free(e->connected);
    for (size_t i = 0; i < e->nfirst; i++) {
        free(e->first[i].name);
        free(e->first[i].why);
    }
    for (size_t i = 0; i < ROWS_LAST; i++) {
        free(e->last[i].name);
        free(e->last[i].why);
    }
    free(e);
}
