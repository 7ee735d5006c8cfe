#include "config.h"

#include "util.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

char *xvasprintf(const char *fmt, va_list ap)
{
    char *out;
    if (vasprintf(&out, fmt, ap) < 0)
        oom();
    return out;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *out = xvasprintf(fmt, ap);
    va_end(ap);
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

struct unit {
    const char *suffix;
    uint64_t factor;
};

/* A number followed by one of `units` (a NULL suffix ends the table),
 * scaled, refusing overflow. */
static bool parse_scaled(const char *s, const struct unit *units, uint64_t *out)
{
    uint64_t n, v;
    const char *suf;
    if (!s || !split_number(s, &n, &suf))
        return false;
    for (; units->suffix; units++) {
        if (strcmp(suf, units->suffix))
            continue;
        if (__builtin_mul_overflow(n, units->factor, &v))
            return false;
        *out = v;
        return true;
    }
    return false;
}

bool parse_size(const char *s, uint64_t *out)
{
    static const struct unit units[] = {
        {"", 1},          {"B", 1},
        {"K", 1ULL << 10}, {"k", 1ULL << 10}, {"KiB", 1ULL << 10},
        {"M", 1ULL << 20}, {"MiB", 1ULL << 20},
        {"G", 1ULL << 30}, {"GiB", 1ULL << 30},
        {"T", 1ULL << 40}, {"TiB", 1ULL << 40},
        {NULL, 0},
    };
    return parse_scaled(s, units, out);
}

bool parse_duration_ms(const char *s, uint64_t *out)
{
    static const struct unit units[] = {
        {"ms", 1}, {"", 1000}, {"s", 1000}, {"m", 60 * 1000}, {"h", 3600 * 1000},
        {"d", 86400 * 1000}, {NULL, 0},
    };
    return parse_scaled(s, units, out);
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

bool near_word(const char *word, const char *candidate, size_t *distance)
{
    size_t d = edit_distance(word, candidate);
    *distance = d;
    return d <= 2 && d < strlen(word);
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

long long read_sysctl(const char *path)
{
    char *text = read_file_text(path, 4096, NULL);
    if (!text)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    bool bad = errno || end == text;
    free(text);
    return bad ? -1 : v;
}

char *path_search(const char *search, const char *name, enum path_search_match match)
{
    for (const char *dir = search;;) {
        size_t len = strcspn(dir, ":");
        if (len || match == PATH_SEARCH_EXISTING) {
            char *candidate = xasprintf("%.*s%s%s", (int)len, dir, len ? "/" : "", name);
            struct stat st;
            if (stat(candidate, &st) == 0 &&
                (match == PATH_SEARCH_EXISTING ||
                 (S_ISREG(st.st_mode) && access(candidate, X_OK) == 0)))
                return candidate;
            free(candidate);
        }
        if (!dir[len])
            return NULL;
        dir += len + 1;
    }
}

uint64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
