/* JSON values for strings that came from the system: paths, argv, comm,
 * environment names. Those are bytes, not text: Linux allows any byte but
 * NUL in them, and json-c copies high bytes through unchecked, which would
 * make the output invalid JSON (RFC 8259 requires UTF-8).
 *
 * Representation (documented in docs/run-record.md and docs/probe-json.md):
 * valid UTF-8 becomes a JSON string; anything else becomes an object
 *   {"base64": "<the exact bytes, RFC 4648 base64>",
 *    "text":   "<the same with each invalid byte replaced by U+FFFD>"}
 * so a reader gets the exact bytes back and a person still sees the text. */
#ifndef SBX_JSON_BYTES_H
#define SBX_JSON_BYTES_H

#include <json-c/json.h>
#include <stddef.h>

/* A new json-c value for `len` bytes at s (s may be NULL: JSON null). */
struct json_object *json_bytes_new(const char *s, size_t len);
/* The same for a NUL-terminated string. */
struct json_object *json_cstr_new(const char *s);

/* Base64 (RFC 4648, with padding) of len bytes; the caller frees. */
char *base64_encode(const unsigned char *data, size_t len);
/* Copy of s with every byte that is not part of a valid UTF-8 sequence
 * replaced by U+FFFD; the caller frees. */
char *utf8_lossy(const char *s, size_t len);

#endif
