#include "config.h"

#include "egress.h"
#include "fix.h"

#include "allowlist.h"
#include "channel.h"
#include "json_bytes.h"
#include "log.h"
#include "report.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <json-c/json.h>
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
#define RELAY_CHUNK (1 << 16)
/* Connections served at once, a thread each: a command that opens more
 * waits in the listen queue, never makes sbx run out of memory. */
#define MAX_ACTIVE 512

struct refusal_row {
    char name[ALLOW_NAME_MAX + 8];
    uint16_t port;
    const char *via;
    char why[200];
    uint64_t count;
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

    int proxy_fd, dns_fd, stop_fd;
    pthread_t proxy_thread, dns_thread;
    bool proxy_started, dns_started, stopped;

    pthread_mutex_t lock;
    pthread_cond_t idle;
    unsigned active;
    struct conn *conns;     /* client sockets of running connections */
    uint64_t allowed, refused, dns_answered;
    /* what the stub answered, newest last: for a tool that then connects
     * to the address directly (egress_name_of) */
    struct { uint32_t addr; char name[ALLOW_NAME_MAX + 1]; } answers[64];
    size_t nanswers;
    struct refusal_row rows[EGRESS_MAX_ROWS];
    size_t nrows;
};

/* ---- Refusals ----------------------------------------------------------- */

static void refuse(struct egress *e, const char *name, uint16_t port, const char *via,
                   const char *why)
{
    pthread_mutex_lock(&e->lock);
    e->refused++;
    struct refusal_row *row = NULL;
    for (size_t i = 0; i < e->nrows && !row; i++)
        if (e->rows[i].port == port && e->rows[i].via == via && !strcmp(e->rows[i].name, name) &&
            !strcmp(e->rows[i].why, why))
            row = &e->rows[i];
    if (!row && e->nrows < EGRESS_MAX_ROWS) {
        row = &e->rows[e->nrows++];
        snprintf(row->name, sizeof row->name, "%s", name);
        row->port = port;
        row->via = via;
        snprintf(row->why, sizeof row->why, "%s", why);
    }
    if (row)
        row->count++;
    pthread_mutex_unlock(&e->lock);
}

uint64_t egress_refused(const struct egress *e)
{
    return e ? e->refused : 0;
}

uint64_t egress_allowed(const struct egress *e)
{
    return e ? e->allowed : 0;
}

/* Names come from the command: only printable ASCII reaches the terminal. */
static void printable(const char *in, char *out, size_t len)
{
    size_t i = 0;
    for (; in[i] && i + 1 < len; i++)
        out[i] = in[i] > 0x20 && in[i] < 0x7f ? in[i] : '?';
    out[i] = '\0';
}

static void format_row(const struct refusal_row *r, char *buf, size_t len)
{
    char name[sizeof r->name];
    printable(r->name, name, sizeof name);
    if (r->port)
        snprintf(buf, len, "%s:%u (%s) x%llu: %s", name, r->port, r->via,
                 (unsigned long long)r->count, r->why);
    else
        snprintf(buf, len, "%s (%s) x%llu: %s", name, r->via, (unsigned long long)r->count, r->why);
}

void egress_print_summary(const struct egress *e, FILE *out)
{
    if (!e || !e->refused)
        return;
    char line[600];
    uint64_t shown = 0;
    for (size_t i = 0; i < e->nrows && i < 10; i++) {
        format_row(&e->rows[i], line, sizeof line);
        if (!i)
            fprintf(out, "sbx: %llu destination%s refused by [network] allow: %s\n",
                    (unsigned long long)e->refused, e->refused == 1 ? "" : "s", line);
        else
            fprintf(out, "sbx:   %s\n", line);
        shown += e->rows[i].count;
    }
    if (shown < e->refused)
        fprintf(out, "sbx:   and %llu more refused destination%s (see --report)\n",
                (unsigned long long)(e->refused - shown), e->refused - shown == 1 ? "" : "s");
    /* One fix per distinct name shown (rows differ by port and reason too). */
    for (size_t i = 0; i < e->nrows && i < 10; i++) {
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)
            dup = !strcmp(e->rows[j].name, e->rows[i].name) && e->rows[j].port == e->rows[i].port;
        struct fix fx;
        fix_for_destination(e->rows[i].name, e->rows[i].port, &fx);
        if (dup || !fx.section)
            continue;
        fix_format(&fx, line, sizeof line);
        fprintf(out, "sbx: fix: %s\n", line);
    }
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
    for (size_t i = 0; e && i < e->nrows; i++) {
        const struct refusal_row *r = &e->rows[i];
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

struct egress *egress_prepare(const struct profile *p, int clone_flags)
{
    if (!p->allow.n || !(clone_flags & CLONE_NEWNET))
        return NULL;
    struct egress *e = xcalloc(1, sizeof *e);
    const char **entries = xcalloc(p->allow.n, sizeof *entries);
    for (size_t i = 0; i < p->allow.n; i++)
        entries[i] = p->allow.v[i].value;
    allowlist_build(&e->list, entries, p->allow.n);
    free(entries);
    e->proxy_fd = e->dns_fd = e->stop_fd = -1;
    pthread_mutex_init(&e->lock, NULL);
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

const char *egress_resolv_conf(void)
{
    return "# Made by sbx: [network] allow. This stub answers the allowed names only.\n"
           "nameserver " EGRESS_PROXY_ADDR "\n";
}

void egress_set_env(struct strv *env, struct strv *recorded)
{
    static const char *const names[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
                                        "http_proxy", "https_proxy", "all_proxy", "no_proxy"};
    /* drop the caller's own values of these */
    size_t w = 0;
    for (size_t i = 0; i < env->n; i++) {
        bool ours = false;
        for (size_t k = 0; k < 8 && !ours; k++) {
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
    snprintf(url, sizeof url, "http://%s:%d", EGRESS_PROXY_ADDR, EGRESS_PROXY_PORT);
    /* socks5h: the name goes to the proxy, which resolves it itself */
    snprintf(socks, sizeof socks, "socks5h://%s:%d", EGRESS_PROXY_ADDR, EGRESS_PROXY_PORT);
    const char *values[] = {url, url, socks, "localhost,127.0.0.1,::1"};
    for (size_t k = 0; k < 8; k++) {
        strv_push(env, xasprintf("%s=%s", names[k], values[k % 4]));
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
    if (!channel_send(channel_fd, CHANNEL_EGRESS_FD, EGRESS_SOCKET_PROXY, tcp) ||
        !channel_send(channel_fd, CHANNEL_EGRESS_FD, EGRESS_SOCKET_DNS, udp))
        die_errno("[network] allow: passing the proxy's sockets to the supervisor");
    close(tcp);
    close(udp);
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

/* Of the resolved addresses, those the proxy may connect to (in place). */
static int keep_public(const struct egress *e, uint32_t *a, int n, char *why, size_t wl,
                       const char *name)
{
    int w = 0;
    for (int i = 0; i < n; i++) {
        const char *special = allow_address_special(a[i]);
        if (!special && host_own(e, a[i]))
            special = "an address of the host";
        if (special && !allowlist_address_allowed(&e->list, a[i], 0)) {
            char t[INET_ADDRSTRLEN];
            snprintf(why, wl, "%s resolves to %s (%s), which no address entry of allow lists",
                     name, addr_text(a[i], t), special);
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
    int n = resolve_a(e, name, a, MAX_ADDRS, why, wl);
    if (n <= 0)
        return why;
    n = keep_public(e, a, n, why, wl, name);
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

/* The server name of a TLS ClientHello (RFC 8446 4.1.2, RFC 6066 3) at
 * the start of b: 1 with it in out, 0 when the bytes are not TLS or the
 * hello names no server, -1 when more bytes are needed, -2 when the hello
 * is malformed or not in the first record (a proxy that gave up there
 * would let a split hello name any site). */
static int tls_server_name(const unsigned char *b, size_t n, char *out, size_t outlen)
{
    if (n && b[0] != 0x16)
        return 0;
    if (n < 5)
        return -1;
    if (b[1] != 3)
        return 0;
    size_t reclen = (size_t)b[3] << 8 | b[4];
    if (n < 5 + reclen)
        return -1;
    const unsigned char *p = b + 5, *end = p + reclen;
    if (reclen < 4 || p[0] != 1)
        return -2;
    size_t hslen = (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
    if (4 + hslen > reclen)
        return -2;
    end = p + 4 + hslen;
    p += 4;
    /* every step checks that its bytes are there before it moves: p never
     * passes end (found by tests/fuzz/egress-fuzz) */
#define SKIP(k) do { size_t k_ = (k); if ((size_t)(end - p) < k_) return -2; p += k_; } while (0)
    SKIP(2 + 32);                                   /* version, random */
    if (p == end)
        return -2;
    SKIP(1 + (size_t)p[0]);                         /* session id */
    if (end - p < 2)
        return -2;
    SKIP(2 + ((size_t)p[0] << 8 | p[1]));           /* cipher suites */
    if (p == end)
        return -2;
    SKIP(1 + (size_t)p[0]);                         /* compression */
    if (p == end)
        return 0;
    if (end - p < 2)
        return -2;
    size_t extlen = (size_t)p[0] << 8 | p[1];
    SKIP(2);
    if ((size_t)(end - p) < extlen)
        return -2;
    end = p + extlen;
    while (p < end) {
        if (end - p < 4)
            return -2;
        unsigned type = (unsigned)p[0] << 8 | p[1];
        size_t len = (size_t)p[2] << 8 | p[3];
        SKIP(4);
        if ((size_t)(end - p) < len)
            return -2;
        if (type == 0) {
            const unsigned char *q = p, *qend = p + len;
            if (len < 2)
                return -2;
            q += 2;
            while (qend - q >= 3) {
                size_t nl = (size_t)q[1] << 8 | q[2];
                if ((size_t)(qend - q - 3) < nl)
                    return -2;
                if (q[0] == 0) {
                    if (nl >= outlen)
                        return -2;
                    memcpy(out, q + 3, nl);
                    out[nl] = '\0';
                    return memchr(out, '\0', nl) ? -2 : 1;
                }
                q += 3 + nl;
            }
            return -2;
        }
        SKIP(len);
    }
#undef SKIP
    return 0;
}

/* After a tunnel opens: a TLS hello must ask for the name that was
 * checked. CDNs route by the hello's server name, so CONNECT to a listed
 * name's address with another name in the hello would reach any site
 * they serve. buf holds what the client sent already (*have bytes, cap
 * at most); a server that speaks first is no TLS client's. */
static bool tls_name_matches(struct egress *e, int client, int up, char *buf, size_t *have,
                             size_t cap, const char *host, size_t hl, uint16_t port,
                             const char *via)
{
    char want[ALLOW_NAME_MAX + 1], sni[ALLOW_NAME_MAX + 8], got[ALLOW_NAME_MAX + 1];
    struct in_addr lit;
    char lb[INET_ADDRSTRLEN];
    if (hl < sizeof lb) {
        memcpy(lb, host, hl);
        lb[hl] = '\0';
        if (inet_pton(AF_INET, lb, &lit) == 1)
            return true; /* an address entry lists the address, whatever it serves */
    }
    if (!allow_name_normalize(host, hl, want))
        return false;
    for (;;) {
        int r = *have ? tls_server_name((unsigned char *)buf, *have, sni, sizeof sni) : -1;
        if (r == 0)
            return true;
        const char *why = NULL;
        char text[ALLOW_NAME_MAX * 2 + 80];
        if (r == 1 && (!allow_name_normalize(sni, strlen(sni), got) || strcmp(got, want))) {
            char shown[sizeof sni];
            printable(sni, shown, sizeof shown);
            snprintf(text, sizeof text, "the TLS hello asks for %s, not %s", shown, want);
            why = text;
        } else if (r == 1) {
            return true;
        } else if (r == -2) {
            why = "a TLS hello that is malformed or split over records";
        } else if (*have >= cap) {
            why = "a TLS hello longer than 16 KiB";
        }
        if (why) {
            refuse(e, want, port, via, why);
            return false;
        }
        struct pollfd pfd[2] = { { .fd = client, .events = POLLIN }, { .fd = up, .events = POLLIN } };
        if (poll(pfd, 2, HEAD_TIMEOUT_MS) <= 0)
            return false;
        if (pfd[0].revents & POLLIN) {
            ssize_t n = recv(client, buf + *have, cap - *have, 0);
            if (n <= 0)
                return false;
            *have += (size_t)n;
        } else if (pfd[1].revents) {
            return *have == 0; /* the server spoke first: not TLS from this client */
        }
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

/* "host:port" or "[v6]:port" of CONNECT, or an authority after http://. */
static bool split_authority(const char *s, size_t len, const char **host, size_t *hl,
                            uint16_t *port, uint16_t dflt)
{
    const char *end = s + len, *colon;
    if (len && s[0] == '[') {
        const char *rb = memchr(s, ']', len);
        if (!rb)
            return false;
        *host = s + 1;
        *hl = (size_t)(rb - s - 1);
        colon = rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
        if (!colon && rb + 1 != end)
            return false;
    } else {
        colon = memchr(s, ':', len);
        *host = s;
        *hl = colon ? (size_t)(colon - s) : len;
    }
    if (!colon) {
        *port = dflt;
        return dflt != 0 && *hl;
    }
    unsigned long v = 0;
    const char *p = colon + 1;
    if (p == end || end - p > 5)
        return false;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (unsigned long)(*p - '0');
    }
    if (!v || v > 65535 || !*hl)
        return false;
    *port = (uint16_t)v;
    return true;
}

static bool token_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("!#$%&'*+-.^_`|~", c);
}

static bool header_is(const char *line, size_t nl, const char *name)
{
    return strlen(name) == nl && !strncasecmp(line, name, nl);
}

/* A destination allowed: connect, or say why not. Returns the socket. */
static int open_destination(struct egress *e, const char *host, size_t hl, uint16_t port,
                            const char *via, char *why, size_t wl)
{
    uint32_t addr;
    char name[ALLOW_NAME_MAX + 8];
    size_t nl = hl < sizeof name - 1 ? hl : sizeof name - 1;
    memcpy(name, host, nl);
    name[nl] = '\0';
    if (egress_decide(e, host, hl, port, &addr, why, wl)) {
        refuse(e, name, port, via, why);
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

static void serve_http(struct egress *e, int fd, char *buf, size_t have)
{
    char *end = NULL;
    size_t scanned = 0;
    while (!(end = memmem(buf, have, "\r\n\r\n", 4))) {
        /* a bare LF ends no line here: refused now, not waited on */
        for (; scanned < have; scanned++)
            if (buf[scanned] == '\n' && (!scanned || buf[scanned - 1] != '\r')) {
                http_error(fd, 400, "Bad Request", "malformed line ending in the request");
                return;
            }
        if (have >= HEAD_MAX) {
            http_error(fd, 431, "Request Header Fields Too Large",
                       "the request's head is longer than 16 KiB");
            return;
        }
        if (!read_more(fd, buf, &have, have + 1, HEAD_MAX))
            return;
    }
    size_t head_len = (size_t)(end - buf) + 4;
    buf[have] = '\0';
    /* Bare LF, NUL or CR outside CRLF: parsers that disagree on lines are
     * how a second request hides in the first (request smuggling). */
    for (size_t i = 0; i < head_len; i++) {
        char c = buf[i];
        if (c == '\0' || (c == '\n' && (!i || buf[i - 1] != '\r')) ||
            (c == '\r' && buf[i + 1] != '\n')) {
            http_error(fd, 400, "Bad Request", "malformed line ending or NUL in the request");
            return;
        }
    }
    char *line_end = memmem(buf, head_len, "\r\n", 2);
    char *sp1 = memchr(buf, ' ', (size_t)(line_end - buf));
    char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1)) : NULL;
    if (!sp1 || !sp2 || sp1 == buf || strncmp(sp2 + 1, "HTTP/1.", 7) || line_end - sp2 != 9) {
        http_error(fd, 400, "Bad Request", "not an HTTP/1.x request line");
        return;
    }
    for (char *c = buf; c < sp1; c++)
        if (!token_char(*c)) {
            http_error(fd, 400, "Bad Request", "bad method");
            return;
        }
    const char *target = sp1 + 1;
    size_t tl = (size_t)(sp2 - target);
    bool is_connect = sp1 - buf == 7 && !memcmp(buf, "CONNECT", 7);
    const char *host, *path = NULL;
    size_t hl, pathl = 0;
    uint16_t port;
    char why[400];
    if (is_connect) {
        if (!split_authority(target, tl, &host, &hl, &port, 0)) {
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
        const char *auth = target + 7;
        size_t al = strcspn(auth, "/?# ");
        if (auth + al > sp2)
            al = (size_t)(sp2 - auth);
        if (memchr(auth, '@', al) || memchr(auth, '%', al)) {
            refuse(e, "(userinfo or %-escape in URI)", 0, "HTTP",
                   "the URI's authority holds '@' or '%': its host is read differently by "
                   "different parsers");
            http_error(fd, 403, "Forbidden", "user info or escapes in the URI's authority");
            return;
        }
        if (!split_authority(auth, al, &host, &hl, &port, 80)) {
            http_error(fd, 400, "Bad Request", "bad authority in the URI");
            return;
        }
        path = auth + al;
        pathl = (size_t)(sp2 - path);
    }

    /* Headers: one Host, and it names the URI's host and port, or the
     * server would be asked for another site than the one checked. */
    const char *hosthdr = NULL;
    size_t hosthdr_len = 0;
    int nhost = 0;
    for (char *l = line_end + 2; l < end + 2;) {
        char *le = memmem(l, (size_t)(end + 2 - l), "\r\n", 2);
        if (!le || le == l)
            break;
        if (*l == ' ' || *l == '\t') {
            http_error(fd, 400, "Bad Request", "folded header lines");
            return;
        }
        char *colon = memchr(l, ':', (size_t)(le - l));
        if (!colon || colon == l) {
            http_error(fd, 400, "Bad Request", "a header line without a name");
            return;
        }
        for (char *c = l; c < colon; c++)
            if (!token_char(*c)) {
                http_error(fd, 400, "Bad Request", "a bad header name");
                return;
            }
        if (header_is(l, (size_t)(colon - l), "Host")) {
            nhost++;
            hosthdr = colon + 1;
            while (*hosthdr == ' ' || *hosthdr == '\t')
                hosthdr++;
            const char *he = le;
            while (he > hosthdr && (he[-1] == ' ' || he[-1] == '\t'))
                he--;
            hosthdr_len = (size_t)(he - hosthdr);
        }
        l = le + 2;
    }
    if (nhost > 1) {
        refuse(e, "(two Host headers)", 0, is_connect ? "CONNECT" : "HTTP",
               "a request with two Host headers");
        http_error(fd, 400, "Bad Request", "two Host headers");
        return;
    }
    if (!is_connect && nhost) {
        const char *h2;
        size_t h2l;
        uint16_t p2;
        char a1[ALLOW_NAME_MAX + 1], a2[ALLOW_NAME_MAX + 1];
        bool same = split_authority(hosthdr, hosthdr_len, &h2, &h2l, &p2, 80) && p2 == port;
        if (same) {
            bool n1 = allow_name_normalize(host, hl, a1), n2 = allow_name_normalize(h2, h2l, a2);
            same = n1 && n2 ? !strcmp(a1, a2) : (hl == h2l && !strncasecmp(host, h2, hl));
        }
        if (!same) {
            char name[ALLOW_NAME_MAX + 8];
            snprintf(name, sizeof name, "%.*s", (int)(hl < 250 ? hl : 250), host);
            refuse(e, name, port, "HTTP", "the Host header names another host than the URI");
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
    size_t rest = have - head_len;
    bool sent;
    if (is_connect) {
        static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
        sent = send_all(fd, ok, sizeof ok - 1);
    } else {
        /* origin-form to the server; Proxy-* and hop-by-hop headers
         * dropped; one request per connection (Connection: close), so the
         * connection never carries a request for another host */
        struct strv out = { 0 };
        /* "http://host?q" asks for "/?q" */
        bool slash = pathl && path[0] == '/';
        strv_push(&out, xasprintf("%.*s %s%.*s %.8s\r\n", (int)(sp1 - buf), buf, slash ? "" : "/",
                                  (int)pathl, path, sp2 + 1));
        if (!nhost)
            strv_push(&out, xasprintf("Host: %.*s\r\n", (int)(path - target - 7), target + 7));
        for (char *l = line_end + 2; l < end + 2;) {
            char *le = memmem(l, (size_t)(end + 2 - l), "\r\n", 2);
            if (!le || le == l)
                break;
            size_t nl = (size_t)((char *)memchr(l, ':', (size_t)(le - l)) - l);
            if (!(nl > 6 && !strncasecmp(l, "Proxy-", 6)) && !header_is(l, nl, "Connection") &&
                !header_is(l, nl, "Keep-Alive"))
                strv_push(&out, xasprintf("%.*s\r\n", (int)(le - l), l));
            l = le + 2;
        }
        strv_push(&out, xstrdup("Connection: close\r\n\r\n"));
        sent = true;
        for (size_t i = 0; i < out.n && sent; i++)
            sent = send_all(up, out.v[i], strlen(out.v[i]));
        strv_free(&out);
    }
    if (is_connect && sent) {
        /* the client's first bytes decide, then go on as they came; the
         * name lives in buf, which they overwrite */
        char name[ALLOW_NAME_MAX + 8];
        size_t nl = hl < sizeof name - 1 ? hl : sizeof name - 1;
        memcpy(name, host, nl);
        memmove(buf, buf + head_len, rest);
        sent = tls_name_matches(e, fd, up, buf, &rest, HEAD_MAX, name, nl, port, via);
        head_len = 0;
    }
    if (sent && rest)
        sent = send_all(up, buf + head_len, rest);
    if (sent)
        relay(fd, up);
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
        refuse(e, host, port, "SOCKS5", "an IPv6 literal (allow lists IPv4 only)");
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
    bool sent = tls_name_matches(e, fd, up, buf, &rest, HEAD_MAX, host, hl, port, "SOCKS5") &&
                (!rest || send_all(up, buf, rest));
    if (sent)
        relay(fd, up);
    close(up);
}

struct client {
    struct egress *e;
    int fd;
};

static void *serve_client(void *arg)
{
    struct client c = *(struct client *)arg;
    free(arg);
    char *buf = xmalloc(HEAD_MAX + 1);
    size_t have = 0;
    if (read_more(c.fd, buf, &have, 1, HEAD_MAX)) {
        buf[have] = '\0';
        if (buf[0] == 5)
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

static void *accept_loop(void *arg)
{
    struct egress *e = arg;
    while (readable_until_stop(e->proxy_fd, e->stop_fd)) {
        pthread_mutex_lock(&e->lock);
        while (e->active >= MAX_ACTIVE && !e->stopped)
            pthread_cond_wait(&e->idle, &e->lock);
        pthread_mutex_unlock(&e->lock);
        int fd = accept4(e->proxy_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        struct client *c = xmalloc(sizeof *c);
        c->e = e;
        c->fd = fd;
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
        char shown[ALLOW_NAME_MAX + 8];
        printable(name, shown, sizeof shown);
        refuse(e, shown, 0, "DNS", "not in [network] allow: answered NXDOMAIN, asked nowhere");
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
    int n = resolve_a(e, norm, a, MAX_ADDRS, why, sizeof why);
    if (n > 0)
        n = keep_public(e, a, n, why, sizeof why, norm);
    if (n <= 0) {
        refuse(e, norm, 0, "DNS", why);
        r[3] |= 2; /* SERVFAIL */
        return;
    }
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
        unsigned char rr[16] = {0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4,
                                (unsigned char)(a[i] >> 24), (unsigned char)(a[i] >> 16),
                                (unsigned char)(a[i] >> 8), (unsigned char)a[i]};
        memcpy(r + w, rr, sizeof rr);
        w += sizeof rr;
    }
    r[7] = (unsigned char)n;
    *rlen = w;
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

void egress_adopt(struct egress *e, int kind, int fd)
{
    if (!e || e->stopped || (kind == EGRESS_SOCKET_PROXY ? e->proxy_fd : e->dns_fd) >= 0) {
        close(fd);
        return;
    }
    if (e->stop_fd < 0) {
        e->stop_fd = eventfd(0, EFD_CLOEXEC);
        if (e->stop_fd < 0)
            die_errno("[network] allow: eventfd for the proxy");
    }
    int r;
    if (kind == EGRESS_SOCKET_PROXY) {
        e->proxy_fd = fd;
        r = pthread_create(&e->proxy_thread, NULL, accept_loop, e);
        e->proxy_started = r == 0;
    } else {
        e->dns_fd = fd;
        r = pthread_create(&e->dns_thread, NULL, dns_loop, e);
        e->dns_started = r == 0;
    }
    if (r)
        die_with_errno(r, "[network] allow: starting the proxy's thread");
    if (e->proxy_started && e->dns_started) {
        char *fact = xasprintf("proxy on the sandbox's %s:%d (HTTP CONNECT, HTTP, SOCKS5), DNS "
                               "stub on %s:53; names resolved by %s", EGRESS_PROXY_ADDR,
                               EGRESS_PROXY_PORT, EGRESS_PROXY_ADDR, e->resolver_text);
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
    if (e->dns_fd >= 0)
        close(e->dns_fd);
    if (e->stop_fd >= 0)
        close(e->stop_fd);
    allowlist_free(&e->list);
    free(e->host_addrs);
    free(e);
}
