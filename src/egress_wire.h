/* The egress proxy's readers of what the command sends (egress.h): a TLS
 * ClientHello's server name, an HTTP/1.x request head and its body's
 * framing, a chunk-size line, and the escaped form of a name for the
 * refusal rows. Pure: bytes in, a verdict out, no syscalls, so that the
 * unit tests and tests/fuzz/egress-fuzz reach every branch. */
#ifndef SBX_EGRESS_WIRE_H
#define SBX_EGRESS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wire_tls {
    WIRE_TLS_NAME = 1,      /* the hello names a server: in out */
    WIRE_TLS_NOT = 0,       /* the first byte is no TLS handshake record */
    WIRE_TLS_MORE = -1,     /* more bytes are needed */
    WIRE_TLS_BAD = -2,      /* malformed, or not in the first record */
    WIRE_TLS_NO_NAME = -3,  /* a hello without server_name */
    WIRE_TLS_HIDDEN = -4,   /* encrypted_client_hello or ESNI: the name the
                             * server acts on is not the one readable */
};

/* The server name of a TLS ClientHello (RFC 8446 4.1.2, RFC 6066 3) at
 * the start of b (n bytes) into out (NUL-terminated). */
enum wire_tls wire_tls_server_name(const unsigned char *b, size_t n, char *out, size_t outlen);

enum wire_body { WIRE_BODY_NONE, WIRE_BODY_LENGTH, WIRE_BODY_CHUNKED };

/* An HTTP/1.x request head as RFC 9112 frames it. Pointers are into the
 * buffer given. */
struct wire_head {
    size_t len;                 /* request line and fields, through CRLF CRLF */
    const char *method, *target, *version;
    size_t method_len, target_len;
    const char *line_end;       /* the request line's CRLF */
    const char *host;           /* the Host field's value, OWS trimmed */
    size_t host_len;
    int nhost;
    enum wire_body body;
    uint64_t length;            /* WIRE_BODY_LENGTH */
    int status;                 /* on -1: the status to answer (400, 431) */
    const char *error;          /* on -1: why, for the answer */
};

/* Reads the head at buf (have bytes, at most max looked at): 1 when
 * complete (in h), 0 when more bytes are needed, -1 when refused (bare LF
 * or CR, NUL, folded or nameless fields, two Content-Length fields, a
 * Content-Length that is not a number, Transfer-Encoding other than a
 * lone "chunked", Transfer-Encoding with Content-Length or in HTTP/1.0:
 * each a way two parsers read different requests from the same bytes). */
int wire_http_head(const char *buf, size_t have, size_t max, struct wire_head *h);

/* A chunk-size line (RFC 9112 7.1: hex size, optional extensions, CRLF)
 * at b: 1 with its length through CRLF and the size, 0 when more bytes
 * are needed, -1 when malformed or the size has more than 15 digits. */
int wire_chunk_line(const char *b, size_t n, size_t *line_len, uint64_t *size);

/* "host:port", "[v6]:port" or "host" (port dflt; 0: a port is required). */
bool wire_split_authority(const char *s, size_t len, const char **host, size_t *hl,
                          uint16_t *port, uint16_t dflt);

bool wire_token_char(char c);
bool wire_header_is(const char *line, size_t nl, const char *name);

/* len bytes of a name the command sent, as text for a person and the run
 * record: printable ASCII as is, '\\' as "\\\\", any other byte as
 * "\xNN"; never cut short (out holds 4 * len + 1 bytes). */
void wire_escape(const char *in, size_t len, char *out);

#endif
