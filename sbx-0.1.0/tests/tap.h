/* A small TAP producer for sbx's C unit tests (TAP version 13 subset, as
 * read by automake's tap-driver.sh). Header-only: each test program is one
 * translation unit.
 *
 *   plan(3);
 *   ok(x == 1, "x is one");
 *   is_int(f(), 2, "f() returns 2");
 *   is_str(s, "abc", "name is %s", "abc");
 *   return done_testing();
 */
#ifndef SBX_TAP_H
#define SBX_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;
static int tap_failed;
static int tap_planned = -1;

static inline void plan(int n)
{
    tap_planned = n;
    printf("1..%d\n", n);
    fflush(stdout);
}

static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...)
{
    va_list ap;
    fputs("# ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

static inline int tap_vresult(int pass, const char *fmt, va_list ap)
{
    tap_count++;
    if (!pass)
        tap_failed++;
    printf("%sok %d - ", pass ? "" : "not ", tap_count);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    fflush(stdout);
    return pass;
}

static inline int ok(int pass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int ok(int pass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = tap_vresult(pass, fmt, ap);
    va_end(ap);
    return r;
}

#define is_int(got, want, ...)                                                     \
    do {                                                                           \
        long long tap_g_ = (long long)(got), tap_w_ = (long long)(want);           \
        if (!ok(tap_g_ == tap_w_, __VA_ARGS__))                                    \
            diag("  got %lld, want %lld (%s:%d)", tap_g_, tap_w_, __FILE__, __LINE__); \
    } while (0)

#define is_str(got, want, ...)                                                     \
    do {                                                                           \
        const char *tap_g_ = (got), *tap_w_ = (want);                              \
        int tap_p_ = (tap_g_ && tap_w_) ? strcmp(tap_g_, tap_w_) == 0 : tap_g_ == tap_w_; \
        if (!ok(tap_p_, __VA_ARGS__))                                              \
            diag("  got \"%s\", want \"%s\" (%s:%d)", tap_g_ ? tap_g_ : "(null)",   \
                 tap_w_ ? tap_w_ : "(null)", __FILE__, __LINE__);                  \
    } while (0)

/* got contains want as a substring */
#define like_str(got, want, ...)                                                   \
    do {                                                                           \
        const char *tap_g_ = (got), *tap_w_ = (want);                              \
        if (!ok(tap_g_ && strstr(tap_g_, tap_w_) != NULL, __VA_ARGS__))             \
            diag("  \"%s\" does not contain \"%s\" (%s:%d)",                        \
                 tap_g_ ? tap_g_ : "(null)", tap_w_, __FILE__, __LINE__);          \
    } while (0)

/* A test that cannot run says so; CI turns every skip into a failure. */
static inline void skip(const char *reason)
{
    tap_count++;
    const char *strict = getenv("SBX_TEST_NO_SKIP");
    if (strict && !strcmp(strict, "1")) {
        tap_failed++;
        printf("not ok %d - %s # skip not allowed in CI (SBX_TEST_NO_SKIP=1)\n", tap_count, reason);
    } else {
        printf("ok %d # SKIP %s\n", tap_count, reason);
    }
    fflush(stdout);
}

static inline void bail_out(const char *reason)
{
    printf("Bail out! %s\n", reason);
    fflush(stdout);
    exit(255);
}

static inline int done_testing(void)
{
    if (tap_planned < 0)
        printf("1..%d\n", tap_count);
    else if (tap_planned != tap_count)
        diag("planned %d tests but ran %d", tap_planned, tap_count);
    fflush(stdout);
    return (tap_failed || (tap_planned >= 0 && tap_planned != tap_count)) ? 1 : 0;
}

#endif
