/* libFuzzer target: what the command sends sbx's egress proxy (egress.c,
 * egress_wire.c). The first byte picks the parser: a TLS ClientHello (the
 * server name in a tunnel), a DNS query to the stub, a whole HTTP or
 * SOCKS5 request read from a socket, an HTTP request head with its body's
 * framing, a chunked body, the stream of requests in a port-80 tunnel (to
 * a socket standing in for the server), or the escaping of a name. The
 * allowlist holds names only and no resolver is set, so nothing leaves the
 * process: every destination is refused. */
#include "../../src/egress.c"

#include <sys/socket.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* what egress.c calls beyond the fuzz core (channel.c, report_events.c) */
bool channel_send(int sock, int type, int value, int pass_fd)
{
    (void)sock, (void)type, (void)value, (void)pass_fd;
    return false;
}

void record_network(const char *key, const char *value)
{
    (void)key, (void)value;
}

static struct egress *fuzz_egress(void)
{
    static struct egress *e;
    if (!e) {
        e = xcalloc(1, sizeof *e);
        static const char *const entries[] = {"pkg.test", "*.sub.test", "@npm"};
        allowlist_build(&e->list, entries, 3);
        pthread_mutex_init(&e->lock, NULL);
        pthread_cond_init(&e->idle, NULL);
        pthread_mutex_init(&e->route_lock, NULL);
        e->proxy_fd = e->dns_fd = e->stop_fd = -1;
        e->direct_fd[0] = e->direct_fd[1] = e->route_fd = -1;
        snprintf(e->resolver_text, sizeof e->resolver_text, "(none)");
    }
    return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > HEAD_MAX)
        return 0;
    struct egress *e = fuzz_egress();
    const uint8_t *in = data + 1;
    size_t n = size - 1;
    switch (data[0] % 7) {
    case 0: {
        char sni[ALLOW_NAME_MAX + 8];
        wire_tls_server_name(in, n, sni, sizeof sni);
        break;
    }
    case 3: {
        struct wire_head h;
        if (wire_http_head((const char *)in, n, HEAD_MAX, &h) == 1 &&
            (h.len > n || h.line_end < (const char *)in || h.host_len > n))
            __builtin_trap();
        break;
    }
    case 4: {
        size_t ll = 0;
        uint64_t sz;
        if (wire_chunk_line((const char *)in, n, &ll, &sz) == 1 && ll > n)
            __builtin_trap();
        break;
    }
    case 5: {
        char *out = xmalloc(4 * n + 1);
        wire_escape((const char *)in, n, out);
        if (strlen(out) < n)
            __builtin_trap();
        free(out);
        break;
    }
    case 6: {
        /* the requests of a tunnel to pkg.test:80, each checked and
         * framed; the server's side is a socket nobody writes to */
        int sv[2], up[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
            return 0;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, up) < 0) {
            close(sv[0]);
            close(sv[1]);
            return 0;
        }
        int big = 1 << 20;
        setsockopt(up[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        setsockopt(up[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
        char *buf = xmalloc(HEAD_MAX + 1);
        memcpy(buf, in, n);
        /* the client's side ends at once; the server's too, once the
         * stream shuts its write half */
        shutdown(sv[0], SHUT_WR);
        shutdown(up[1], SHUT_WR);
        http_stream(e, sv[1], up[0], buf, n, STREAM_TUNNEL, "pkg.test", 80, "CONNECT", NULL, 0,
                    NULL, 0);
        free(buf);
        close(sv[0]);
        close(sv[1]);
        close(up[0]);
        close(up[1]);
        break;
    }
    case 1: {
        unsigned char r[512 + MAX_ADDRS * 16];
        size_t rl;
        if (n <= 512)
            dns_answer(e, in, n, r, &rl);
        break;
    }
    default: {
        /* the request arrives on a socket, as from the command */
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
            return 0;
        int big = 1 << 20;
        setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        if (n && send(sv[0], in, n, MSG_DONTWAIT) == (ssize_t)n) {
            shutdown(sv[0], SHUT_WR);
            char *buf = xmalloc(HEAD_MAX + 1);
            size_t have = 0;
            if (read_more(sv[1], buf, &have, 1, HEAD_MAX)) {
                buf[have] = '\0';
                if (buf[0] == 5)
                    serve_socks(e, sv[1], buf, have);
                else
                    serve_http(e, sv[1], buf, have);
            }
            free(buf);
        }
        close(sv[0]);
        close(sv[1]);
    }
    }
    return 0;
}
