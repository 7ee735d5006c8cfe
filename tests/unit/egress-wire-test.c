/* Unit test of the proxy's readers (egress_wire.c): request heads and
 * their framing as RFC 9112 has them, chunk-size lines, TLS hellos with
 * and without a readable server name, and the escaping of names. */
#include "config.h"

#include "../tap.h"

#include "egress_wire.h"

#include <string.h>

static int head(const char *text, struct wire_head *h)
{
    return wire_http_head(text, strlen(text), 16384, h);
}

/* A ClientHello: version, random, no session, one suite, no compression
 * method but null, then the extensions given. */
static size_t hello(unsigned char *out, const unsigned char *ext, size_t el)
{
    unsigned char body[512];
    size_t n = 0;
    body[n++] = 3, body[n++] = 3;
    memset(body + n, 0x11, 32), n += 32;
    body[n++] = 0;
    body[n++] = 0, body[n++] = 2, body[n++] = 0x13, body[n++] = 1;
    body[n++] = 1, body[n++] = 0;
    body[n++] = (unsigned char)(el >> 8), body[n++] = (unsigned char)el;
    memcpy(body + n, ext, el), n += el;
    size_t w = 0;
    out[w++] = 0x16, out[w++] = 3, out[w++] = 1;
    out[w++] = (unsigned char)((n + 4) >> 8), out[w++] = (unsigned char)(n + 4);
    out[w++] = 1, out[w++] = 0, out[w++] = (unsigned char)(n >> 8), out[w++] = (unsigned char)n;
    memcpy(out + w, body, n);
    return w + n;
}

int main(void)
{
    struct wire_head h;
    is_int(head("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n", &h), 1, "a complete head");
    ok(h.body == WIRE_BODY_NONE && h.nhost == 1 && h.host_len == 6, "no body, one Host");
    is_int(head("GET / HTTP/1.1\r\nHost: a.test\r\n", &h), 0, "an unfinished head needs more");
    is_int(head("POST / HTTP/1.1\r\nContent-Length: 12\r\n\r\n", &h), 1, "Content-Length");
    ok(h.body == WIRE_BODY_LENGTH && h.length == 12, "framed by its length");
    is_int(head("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n", &h), 1, "chunked");
    ok(h.body == WIRE_BODY_CHUNKED, "framed by chunks");
    is_int(head("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", &h), -1,
           "CL and TE together: refused");
    is_int(head("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", &h), -1,
           "two Content-Lengths, even equal: refused");
    is_int(head("POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n", &h), -1, "a Content-Length list: refused");
    is_int(head("POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n", &h), -1, "a signed length: refused");
    is_int(head("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", &h), -1,
           "a coding list: refused");
    is_int(head("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", &h),
           -1, "two Transfer-Encodings: refused");
    is_int(head("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", &h), -1, "TE in HTTP/1.0: refused");
    is_int(head("POST / HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n", &h), -1,
           "a blank before the colon: refused");
    is_int(head("GET / HTTP/1.1\r\n folded\r\n\r\n", &h), -1, "a folded line: refused");
    is_int(head("GET / HTTP/1.1\nHost: a\n\n", &h), -1, "bare LF: refused");
    is_int(head("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", &h), -1, "bare CR: refused");
    is_int(head("GET /\x01 HTTP/1.1\r\n\r\n", &h), -1, "a control byte in the target: refused");
    is_int(head("GET / HTTP/2.0\r\n\r\n", &h), -1, "not HTTP/1.x: refused");
    is_int(h.status, 400, "answered 400");

    size_t ll;
    uint64_t sz;
    is_int(wire_chunk_line("1a\r\n", 4, &ll, &sz), 1, "a chunk-size line");
    ok(ll == 4 && sz == 26, "its length and size");
    is_int(wire_chunk_line("1a;x=y\r\n", 8, &ll, &sz), 1, "with an extension");
    is_int(wire_chunk_line("1a ;x\r\n", 7, &ll, &sz), 1, "blanks before ';'");
    is_int(wire_chunk_line("1a x\r\n", 6, &ll, &sz), -1, "junk after the size: refused");
    is_int(wire_chunk_line("0x1a\r\n", 6, &ll, &sz), -1, "a 0x prefix: refused");
    is_int(wire_chunk_line("1a\n", 3, &ll, &sz), -1, "bare LF: refused");
    is_int(wire_chunk_line("1234567890abcdef\r\n", 18, &ll, &sz), -1, "16 hex digits: refused");
    is_int(wire_chunk_line("1a", 2, &ll, &sz), 0, "unfinished: more");

    unsigned char b[600], ext[200];
    char name[300];
    static const unsigned char sni[] = {0, 0, 0, 11, 0, 9, 0, 0, 6, 'a', '.', 't', 'e', 's', 't'};
    size_t n = hello(b, sni, sizeof sni);
    is_int(wire_tls_server_name(b, n, name, sizeof name), WIRE_TLS_NAME, "a hello naming a server");
    is_str(name, "a.test", "its name");
    is_int(wire_tls_server_name(b, n - 1, name, sizeof name), WIRE_TLS_MORE, "cut short: more");
    static const unsigned char versions[] = {0, 43, 0, 3, 2, 3, 4};
    n = hello(b, versions, sizeof versions);
    is_int(wire_tls_server_name(b, n, name, sizeof name), WIRE_TLS_NO_NAME, "no server_name");
    memcpy(ext, sni, sizeof sni);
    static const unsigned char ech[] = {0xfe, 0x0d, 0, 2, 0, 0};
    memcpy(ext + sizeof sni, ech, sizeof ech);
    n = hello(b, ext, sizeof sni + sizeof ech);
    is_int(wire_tls_server_name(b, n, name, sizeof name), WIRE_TLS_HIDDEN, "ECH beside a readable name");
    ext[sizeof sni] = 0xff, ext[sizeof sni + 1] = 0xce;
    n = hello(b, ext, sizeof sni + sizeof ech);
    is_int(wire_tls_server_name(b, n, name, sizeof name), WIRE_TLS_HIDDEN, "ESNI");
    memcpy(ext + sizeof sni, sni, sizeof sni);
    n = hello(b, ext, 2 * sizeof sni);
    is_int(wire_tls_server_name(b, n, name, sizeof name), WIRE_TLS_BAD, "two server_name extensions");
    static const unsigned char appdata[] = {0x17, 3, 3, 0, 1, 'x'};
    is_int(wire_tls_server_name(appdata, sizeof appdata, name, sizeof name), WIRE_TLS_NOT,
           "a record that is no handshake");

    char out[64];
    wire_escape("pkg\0x\\\n", 7, out);
    is_str(out, "pkg\\x00x\\\\\\x0a", "escaped: NUL, backslash and LF, nothing cut");
    return done_testing();
}
