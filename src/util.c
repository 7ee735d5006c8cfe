#include "config.h"

#include "util.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void)
{
    die("out of memory");
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void xgrow(void **ptr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            oom();
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / size)
        oom();
    *ptr = xrealloc(*ptr, ncap * size);
    *cap = ncap;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        oom();
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (!p)
        oom();
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *out;
    va_start(ap, fmt);
    int r = vasprintf(&out, fmt, ap);
    va_end(ap);
    if (r < 0)
        oom();
    return out;
}

void strv_push(struct strv *sv, char *owned)
{
    xgrow((void **)&sv->v, &sv->cap, sv->n + 2, sizeof *sv->v);
    sv->v[sv->n++] = owned;
    sv->v[sv->n] = NULL;
}

void strv_free(struct strv *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

bool parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return false;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* Splits "123abc" into the number and its suffix. */
static bool split_number(const char *s, uint64_t *num, const char **suffix)
{
    size_t digits = strspn(s, "0123456789");
    if (digits == 0 || digits > 20)
        return false;
    char buf[21];
    memcpy(buf, s, digits);
    buf[digits] = '\0';
    if (!parse_u64(buf, num))
        return false;
    *suffix = s + digits;
    return true;
}

static bool mul_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

bool parse_size(const char *s, uint64_t *out)
{
    uint64_t n, mult;
    const char *suf;
    if (!s || !split_number(s, &n, &suf))
        return false;
    if (!strcmp(suf, "") || !strcmp(suf, "B"))
        mult = 1;
    else if (!strcmp(suf, "K") || !strcmp(suf, "k") || !strcmp(suf, "KiB"))
        mult = 1ULL << 10;
    else if (!strcmp(suf, "M") || !strcmp(suf, "MiB"))
        mult = 1ULL << 20;
    else if (!strcmp(suf, "G") || !strcmp(suf, "GiB"))
        mult = 1ULL << 30;
    else if (!strcmp(suf, "T") || !strcmp(suf, "TiB"))
        mult = 1ULL << 40;
    else
        return false;
    uint64_t v;
    if (mul_overflows(n, mult, &v))
        return false;
    *out = v;
    return true;
}

bool parse_duration_ms(const char *s, uint64_t *out)
{
    uint64_t n, mult;
    const char *suf;
    if (!s || !split_number(s, &n, &suf))
        return false;
    if (!strcmp(suf, "ms"))
        mult = 1;
    else if (!strcmp(suf, "") || !strcmp(suf, "s"))
        mult = 1000;
    else if (!strcmp(suf, "m"))
        mult = 60 * 1000;
    else if (!strcmp(suf, "h"))
        mult = 3600 * 1000;
    else if (!strcmp(suf, "d"))
        mult = 86400 * 1000;
    else
        return false;
    uint64_t v;
    if (mul_overflows(n, mult, &v))
        return false;
    *out = v;
    return true;
}

size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

bool utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        size_t n;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + n >= len)
            return false;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000))
            return false;
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += n + 1;
    }
    return true;
}

int errno_from_name(const char *name)
{
    /* glibc >= 2.32 names every errno it knows; 4095 is the kernel's bound. */
    for (int e = 1; e < 4096; e++) {
        const char *n = strerrorname_np(e);
        if (n && !strcmp(n, name))
            return e;
    }
    return 0;
}

const char *errno_name(int errnum)
{
    return strerrorname_np(errnum);
}

bool write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += w;
        len -= (size_t)w;
    }
    return true;
}

char *read_file_text(const char *path, size_t max, size_t *len_out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        if (len == cap) {
            if (cap >= max) {
                free(buf);
                close(fd);
                errno = EFBIG;
                return NULL;
            }
            cap *= 2;
            buf = xrealloc(buf, cap + 1);
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            close(fd);
            errno = e;
            return NULL;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    if (len_out)
        *len_out = len;
    return buf;
}
