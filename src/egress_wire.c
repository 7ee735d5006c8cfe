#include "config.h"

#include "egress_wire.h"

#include <string.h>
#include <strings.h>

enum wire_tls wire_tls_server_name(const unsigned char *b, size_t n, char *out, size_t outlen)
{
    if (!n)
        return WIRE_TLS_MORE;
    if (b[0] != 0x16)
        return WIRE_TLS_NOT;
    if (n < 5)
        return WIRE_TLS_MORE;
    if (b[1] != 3)
        return WIRE_TLS_BAD;
    size_t reclen = (size_t)b[3] << 8 | b[4];
    if (n < 5 + reclen)
        return WIRE_TLS_MORE;
    const unsigned char *p = b + 5, *end = p + reclen;
    /* a proxy that gave up on a hello split over records would let the
     * second record name any site */
    if (reclen < 4 || p[0] != 1)
        return WIRE_TLS_BAD;
    size_t hslen = (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
    if (4 + hslen > reclen)
        return WIRE_TLS_BAD;
    end = p + 4 + hslen;
    p += 4;
    /* every step checks that its bytes are there before it moves: p never
     * passes end (found by tests/fuzz/egress-fuzz) */
#define SKIP(k) do { size_t k_ = (k); if ((size_t)(end - p) < k_) return WIRE_TLS_BAD; p += k_; } while (0)
    SKIP(2 + 32);                                   /* version, random */
    if (p == end)
        return WIRE_TLS_BAD;
    SKIP(1 + (size_t)p[0]);                         /* session id */
    if (end - p < 2)
        return WIRE_TLS_BAD;
    SKIP(2 + ((size_t)p[0] << 8 | p[1]));           /* cipher suites */
    if (p == end)
        return WIRE_TLS_BAD;
    SKIP(1 + (size_t)p[0]);                         /* compression */
    if (p == end)
        return WIRE_TLS_NO_NAME;
    if (end - p < 2)
        return WIRE_TLS_BAD;
    size_t extlen = (size_t)p[0] << 8 | p[1];
    SKIP(2);
    if ((size_t)(end - p) < extlen)
        return WIRE_TLS_BAD;
    end = p + extlen;
    bool named = false, hidden = false;
    while (p < end) {
        if (end - p < 4)
            return WIRE_TLS_BAD;
        unsigned type = (unsigned)p[0] << 8 | p[1];
        size_t len = (size_t)p[2] << 8 | p[3];
        SKIP(4);
        if ((size_t)(end - p) < len)
            return WIRE_TLS_BAD;
        /* ECH (RFC 9849, 0xfe0d) and the draft ESNI (0xffce) carry the
         * name the server acts on encrypted; the readable outer name is
         * any name the client likes, the listed one included */
        if (type == 0xfe0d || type == 0xffce)
            hidden = true;
        if (type == 0) {
            /* RFC 8446 4.2: one extension of a type; RFC 6066 3: one
             * host_name in the list */
            if (named || len < 2 || (((size_t)p[0] << 8 | p[1]) != len - 2))
                return WIRE_TLS_BAD;
            const unsigned char *q = p + 2, *qend = p + len;
            while (qend - q >= 3) {
                size_t nl = (size_t)q[1] << 8 | q[2];
                if ((size_t)(qend - q - 3) < nl)
                    return WIRE_TLS_BAD;
                if (q[0] == 0) {
                    if (named || !nl || nl >= outlen || memchr(q + 3, '\0', nl))
                        return WIRE_TLS_BAD;
                    memcpy(out, q + 3, nl);
                    out[nl] = '\0';
                    named = true;
                }
                q += 3 + nl;
            }
            if (q != qend || !named)
                return WIRE_TLS_BAD;
        }
        SKIP(len);
    }
#undef SKIP
    if (hidden)
        return WIRE_TLS_HIDDEN;
    return named ? WIRE_TLS_NAME : WIRE_TLS_NO_NAME;
}

bool wire_token_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

bool wire_header_is(const char *line, size_t nl, const char *name)
{
    return strlen(name) == nl && !strncasecmp(line, name, nl);
}

bool wire_split_authority(const char *s, size_t len, const char **host, size_t *hl,
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

static int refuse_head(struct wire_head *h, int status, const char *why)
{
    h->status = status;
    h->error = why;
    return -1;
}

/* A field value with OWS around it trimmed. */
static void field_value(const char *colon, const char *le, const char **v, size_t *vl)
{
    const char *s = colon + 1, *e = le;
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *v = s;
    *vl = (size_t)(e - s);
}

int wire_http_head(const char *buf, size_t have, size_t max, struct wire_head *h)
{
    memset(h, 0, sizeof *h);
    size_t n = have < max ? have : max;
    /* Bare LF, NUL or CR outside CRLF: parsers that disagree on lines are
     * how a second request hides in the first (request smuggling) */
    const char *end = NULL;
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '\0')
            return refuse_head(h, 400, "a NUL in the request");
        if (c == '\n' && (!i || buf[i - 1] != '\r'))
            return refuse_head(h, 400, "malformed line ending in the request");
        if (c == '\r' && i + 1 < n && buf[i + 1] != '\n')
            return refuse_head(h, 400, "malformed line ending in the request");
        if (c == '\n' && i >= 3 && buf[i - 2] == '\n') {
            end = buf + i + 1;
            break;
        }
    }
    if (!end)
        return have >= max ? refuse_head(h, 431, "the request's head is longer than 16 KiB") : 0;
    h->len = (size_t)(end - buf);
    const char *line_end = memchr(buf, '\r', h->len);
    const char *sp1 = memchr(buf, ' ', (size_t)(line_end - buf));
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1)) : NULL;
    if (!sp1 || !sp2 || sp1 == buf || sp2 == sp1 + 1 || line_end - sp2 != 9 ||
        strncmp(sp2 + 1, "HTTP/1.", 7) || (sp2[8] != '0' && sp2[8] != '1'))
        return refuse_head(h, 400, "not an HTTP/1.x request line");
    for (const char *c = buf; c < sp1; c++)
        if (!wire_token_char(*c))
            return refuse_head(h, 400, "bad method");
    for (const char *c = sp1 + 1; c < sp2; c++)
        if ((unsigned char)*c <= 0x20 || (unsigned char)*c == 0x7f)
            return refuse_head(h, 400, "a control byte in the request target");
    h->method = buf;
    h->method_len = (size_t)(sp1 - buf);
    h->target = sp1 + 1;
    h->target_len = (size_t)(sp2 - sp1 - 1);
    h->version = sp2 + 1;
    h->line_end = line_end;
    int ncl = 0, nte = 0;
    bool chunked = false;
    for (const char *l = line_end + 2; l < end - 2;) {
        const char *le = memchr(l, '\r', (size_t)(end - l));
        if (*l == ' ' || *l == '\t')
            return refuse_head(h, 400, "folded header lines");
        const char *colon = memchr(l, ':', (size_t)(le - l));
        if (!colon || colon == l)
            return refuse_head(h, 400, "a header line without a name");
        for (const char *c = l; c < colon; c++)
            if (!wire_token_char(*c))
                return refuse_head(h, 400, "a bad header name");
        size_t nl = (size_t)(colon - l);
        const char *v;
        size_t vl;
        field_value(colon, le, &v, &vl);
        if (wire_header_is(l, nl, "Host")) {
            h->nhost++;
            h->host = v;
            h->host_len = vl;
        } else if (wire_header_is(l, nl, "Content-Length")) {
            /* RFC 9112 6.3: a list or a second field is a framing two
             * readers may take differently: refused, not merged */
            if (++ncl > 1)
                return refuse_head(h, 400, "two Content-Length headers");
            if (!vl || vl > 15 || strspn(v, "0123456789") < vl)
                return refuse_head(h, 400, "a Content-Length that is not one decimal number");
            h->length = 0;
            for (size_t i = 0; i < vl; i++)
                h->length = h->length * 10 + (uint64_t)(v[i] - '0');
        } else if (wire_header_is(l, nl, "Transfer-Encoding")) {
            /* only a lone "chunked" frames a body sbx can follow; gzip,
             * chunked is framed by the same chunks but proxies and servers
             * are known to disagree on lists and odd spellings */
            if (++nte > 1 || vl != 7 || strncasecmp(v, "chunked", 7))
                return refuse_head(h, 400, "a Transfer-Encoding other than one \"chunked\"");
            chunked = true;
        }
        l = le + 2;
    }
    if (chunked && ncl)
        return refuse_head(h, 400, "both Content-Length and Transfer-Encoding (RFC 9112 6.1)");
    if (chunked && sp2[8] == '0')
        return refuse_head(h, 400, "Transfer-Encoding in an HTTP/1.0 request (RFC 9112 6.1)");
    h->body = chunked ? WIRE_BODY_CHUNKED : ncl && h->length ? WIRE_BODY_LENGTH : WIRE_BODY_NONE;
    return 1;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int wire_chunk_line(const char *b, size_t n, size_t *line_len, uint64_t *size)
{
    size_t i = 0;
    uint64_t v = 0;
    for (; i < n && hexval(b[i]) >= 0; i++) {
        if (i == 15)
            return -1;
        v = v << 4 | (uint64_t)hexval(b[i]);
    }
    if (i == n)
        return n > 15 ? -1 : 0;
    if (!i)
        return -1;
    /* chunk-ext: BWS ";" name ["=" value], printable bytes only */
    for (; i < n && b[i] != '\r'; i++) {
        unsigned char c = (unsigned char)b[i];
        if (c != '\t' && (c < 0x20 || c >= 0x7f))
            return -1;
        if (i > 1024)
            return -1;
    }
    if (i + 1 >= n)
        return i + 1 > 1024 ? -1 : 0;
    if (b[i + 1] != '\n')
        return -1;
    /* whatever follows the digits must start an extension */
    size_t d = 0;
    while (hexval(b[d]) >= 0)
        d++;
    size_t k = d;
    while (k < i && (b[k] == ' ' || b[k] == '\t'))
        k++;
    if (k < i && b[k] != ';')
        return -1;
    if (k == i && k != d)
        return -1;
    *line_len = i + 2;
    *size = v;
    return 1;
}

void wire_escape(const char *in, size_t len, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c == '\\') {
            out[w++] = '\\';
            out[w++] = '\\';
        } else if (c > 0x20 && c < 0x7f) {
            out[w++] = (char)c;
        } else {
            out[w++] = '\\';
            out[w++] = 'x';
            out[w++] = hex[c >> 4];
            out[w++] = hex[c & 15];
        }
    }
    out[w] = '\0';
}
