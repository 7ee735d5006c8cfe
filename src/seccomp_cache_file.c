#include "config.h"

#include "seccomp_cache.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file: MAGIC, key length (u32), instruction count (u32), checksum
 * (u64, of everything before it and after it), the key, the program. In
 * the host's byte order: the key holds the architecture anyway. */
static const char magic[8] = "SBXSCF1\n";
#define HEADER SECCOMP_CACHE_HEADER
#define FILE_MAX SECCOMP_CACHE_FILE_MAX

void seccomp_cache_key_add(struct seccomp_cache_key *k, const void *p, size_t n)
{
    if (k->too_long || n > SECCOMP_CACHE_KEY_MAX - k->len) {
        k->too_long = true;
        return;
    }
    if (k->len + n > k->cap) {
        k->cap = (k->len + n) * 2 > 256 ? (k->len + n) * 2 : 256;
        k->bytes = xrealloc(k->bytes, k->cap);
    }
    memcpy(k->bytes + k->len, p, n);
    k->len += n;
}

void seccomp_cache_key_free(struct seccomp_cache_key *k)
{
    free(k->bytes);
    memset(k, 0, sizeof *k);
}

uint64_t seccomp_cache_hash(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *b = p;
    uint64_t h = seed ? seed : 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t checksum(const unsigned char *file, size_t n)
{
    uint64_t h = seccomp_cache_hash(file, 16, 0);
    return seccomp_cache_hash(file + HEADER, n - HEADER, h);
}

unsigned char *seccomp_cache_encode(const struct seccomp_cache_key *k, const struct sock_fprog *prog,
                                    size_t *len)
{
    size_t code = (size_t)prog->len * sizeof(struct sock_filter);
    *len = HEADER + k->len + code;
    unsigned char *f = xmalloc(*len);
    uint32_t klen = (uint32_t)k->len, plen = prog->len;
    memcpy(f, magic, 8);
    memcpy(f + 8, &klen, 4);
    memcpy(f + 12, &plen, 4);
    memcpy(f + HEADER, k->bytes, k->len);
    memcpy(f + HEADER + k->len, prog->filter, code);
    uint64_t sum = checksum(f, *len);
    memcpy(f + 16, &sum, 8);
    return f;
}

bool seccomp_cache_decode(const unsigned char *buf, size_t n, const struct seccomp_cache_key *k,
                          struct sock_fprog *out)
{
    uint32_t klen, plen;
    uint64_t sum;
    if (n < HEADER || n > FILE_MAX || memcmp(buf, magic, 8))
        return false;
    memcpy(&klen, buf + 8, 4);
    memcpy(&plen, buf + 12, 4);
    memcpy(&sum, buf + 16, 8);
    /* the sizes first, so that nothing below reads past the buffer */
    if (klen != k->len || plen == 0 || plen > BPF_MAXINSNS ||
        n != HEADER + (size_t)klen + (size_t)plen * sizeof(struct sock_filter))
        return false;
    if (memcmp(buf + HEADER, k->bytes, klen) || checksum(buf, n) != sum)
        return false;
    out->len = (unsigned short)plen;
    out->filter = xmalloc((size_t)plen * sizeof(struct sock_filter));
    memcpy(out->filter, buf + HEADER + klen, (size_t)plen * sizeof(struct sock_filter));
    return true;
}

void seccomp_cache_name(const struct seccomp_cache_key *k, char *buf, size_t size)
{
    snprintf(buf, size, "filter-%016llx", (unsigned long long)seccomp_cache_hash(k->bytes, k->len, 0));
}

char *seccomp_cache_dir(const char *home, const char *xdg_cache_home)
{
    if (xdg_cache_home && xdg_cache_home[0] == '/')
        return xasprintf("%s/sbx", xdg_cache_home);
    if (!home || home[0] != '/')
        return NULL;
    return xasprintf("%s/.cache/sbx", strcmp(home, "/") ? home : "");
}

