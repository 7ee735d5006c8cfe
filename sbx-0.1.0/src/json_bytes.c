#include "config.h"

#include "json_bytes.h"

#include "util.h"

#include <string.h>

char *base64_encode(const unsigned char *data, size_t len)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = xmalloc((len + 2) / 3 * 4 + 1);
    size_t o = 0, i = 0;
    for (; i + 2 < len; i += 3) {
        unsigned v = (unsigned)data[i] << 16 | (unsigned)data[i + 1] << 8 | data[i + 2];
        out[o++] = alphabet[v >> 18 & 63];
        out[o++] = alphabet[v >> 12 & 63];
        out[o++] = alphabet[v >> 6 & 63];
        out[o++] = alphabet[v & 63];
    }
    if (i < len) {
        unsigned v = (unsigned)data[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)data[i + 1] << 8;
        out[o++] = alphabet[v >> 18 & 63];
        out[o++] = alphabet[v >> 12 & 63];
        out[o++] = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return out;
}

/* Length of the valid UTF-8 sequence starting at s[0], or 0 if it is not
 * one. Reuses util.c's validator so both agree on what "valid" means. */
static size_t utf8_sequence_length(const char *s, size_t left)
{
    unsigned char c = (unsigned char)s[0];
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
             : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || n > left)
        return 0;
    return utf8_valid(s, n) ? n : 0;
}

char *utf8_lossy(const char *s, size_t len)
{
    /* Worst case every byte becomes the 3-byte U+FFFD. */
    char *out = xmalloc(len * 3 + 1);
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_sequence_length(s + i, len - i);
        if (n) {
            memcpy(out + o, s + i, n);
            o += n;
            i += n;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}

struct json_object *json_bytes_new(const char *s, size_t len)
{
    if (!s)
        return NULL;
    /* json-c takes an int length. */
    if (len > (size_t)0x7fffffff)
        len = 0x7fffffff;
    if (utf8_valid(s, len))
        return json_object_new_string_len(s, (int)len);
    struct json_object *o = json_object_new_object();
    char *b64 = base64_encode((const unsigned char *)s, len);
    char *text = utf8_lossy(s, len);
    json_object_object_add(o, "base64", json_object_new_string(b64));
    json_object_object_add(o, "text", json_object_new_string(text));
    free(b64);
    free(text);
    return o;
}

struct json_object *json_cstr_new(const char *s)
{
    return s ? json_bytes_new(s, strlen(s)) : NULL;
}
