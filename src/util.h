/* Small helpers shared by every module: allocation that cannot return NULL,
 * cleanup attributes, and pure parsers for numbers, sizes and durations. */
#ifndef SBX_UTIL_H
#define SBX_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Grows *ptr to hold at least `need` elements of `size` bytes, doubling. */
void xgrow(void **ptr, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd)
{
    if (*fd >= 0)
        close(*fd);
}
#define autofree __attribute__((cleanup(freep)))
#define autoclose __attribute__((cleanup(closep)))

/* A NULL-terminated, growable vector of owned strings. */
struct strv {
    char **v;
    size_t n, cap;
};
void strv_push(struct strv *sv, char *owned);
void strv_free(struct strv *sv);

/* Pure parsers: return false (and leave *out alone) on any malformed or
 * out-of-range input. None of them accepts a sign, spaces or an empty
 * string. */
bool parse_u64(const char *s, uint64_t *out);
/* "512", "64K", "8M", "1G", "2T" (powers of 1024). */
bool parse_size(const char *s, uint64_t *out);
/* "90s", "30m", "2h", "1d", "500ms", or plain seconds; result in ms. */
bool parse_duration_ms(const char *s, uint64_t *out);
/* Levenshtein distance, for did-you-mean suggestions. */
size_t edit_distance(const char *a, const char *b);
/* Whether candidate is close enough to word to be suggested for it: at
 * most 2 edits and fewer edits than word has characters (the rule of the
 * profile keys' hints); *distance gets the distance. */
bool near_word(const char *word, const char *candidate, size_t *distance);
/* True when s is well-formed UTF-8 (no overlongs, no surrogates). */
bool utf8_valid(const char *s, size_t len);
/* errno name ("EPERM") to number and back; 0 / NULL when unknown. */
int errno_from_name(const char *name);
const char *errno_name(int errnum);

/* write(2) all of buf, retrying on EINTR and short writes. */
bool write_all(int fd, const void *buf, size_t len);
/* Reads a whole small file (e.g. under /proc); NULL with errno set on error. */
char *read_file_text(const char *path, size_t max, size_t *len_out);
/* The integer a /proc/sys file (or any small file) holds: -1 when the
 * file is missing or unreadable (errno set by the read) or holds no
 * number. The sysctls sbx reads are never negative. */
long long read_sysctl(const char *path);

/* CLOCK_MONOTONIC in milliseconds: deadlines that a clock change cannot move. */
uint64_t monotonic_ms(void);

enum path_search_match {
    /* anything stat() finds; an empty entry is the working directory, as
     * execvp() and shells read it */
    PATH_SEARCH_EXISTING,
    /* a regular file this process may execute; empty entries are skipped,
     * so a helper sbx starts is never taken from the working directory */
    PATH_SEARCH_EXECUTABLE,
};
/* The first DIR/name of the colon-separated list `search` (a $PATH) that
 * matches, owned; NULL when none does. */
char *path_search(const char *search, const char *name, enum path_search_match match);

#endif
