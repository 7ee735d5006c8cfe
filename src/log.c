#include "config.h"

#include "log.h"

#include "exit.h"

#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int log_verbosity = LOG_NORMAL;
void (*die_hook)(const char *message);
int log_use_underscore_exit;
const char *log_prefix = "sbx: ";

/* One write(2) per message so lines from the supervisor, init and the
 * command do not interleave mid-line. */
static void emit(const char *fmt, va_list ap, int errnum)
{
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "%s", log_prefix);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len >= sizeof buf - 1)
        len = sizeof buf - 2;
    if (errnum) {
        int k = snprintf(buf + len, sizeof buf - len, ": %s", strerror(errnum));
        if (k > 0)
            len += (size_t)k;
        if (len >= sizeof buf - 1)
            len = sizeof buf - 2;
    }
    buf[len++] = '\n';
    ssize_t unused = write(log_output_fd, buf, len);
    (void)unused;
}

_Thread_local struct die_trap *die_trap;
int log_output_fd = STDERR_FILENO;

static noreturn void leave(const char *fmt, va_list ap, int errnum)
{
    if (die_trap) {
        struct die_trap *t = die_trap;
        int n = vsnprintf(t->message, sizeof t->message, fmt, ap);
        if (errnum && n >= 0 && (size_t)n < sizeof t->message)
            snprintf(t->message + n, sizeof t->message - (size_t)n, ": %s", strerror(errnum));
        t->tripped = true;
        pthread_exit(NULL);
    }
    if (die_hook) {
        void (*hook)(const char *) = die_hook;
        char msg[2048];
        va_list copy;
        va_copy(copy, ap);
        int n = vsnprintf(msg, sizeof msg, fmt, copy);
        va_end(copy);
        if (errnum && n >= 0 && (size_t)n < sizeof msg)
            snprintf(msg + n, sizeof msg - (size_t)n, ": %s", strerror(errnum));
        die_hook = NULL;
        emit(fmt, ap, errnum);
        hook(msg);
    } else {
        emit(fmt, ap, errnum);
    }
    if (log_use_underscore_exit)
        _exit(SBX_EXIT_FAILURE);
    exit(SBX_EXIT_FAILURE);
}

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    leave(fmt, ap, 0);
}

void die_errno(const char *fmt, ...)
{
    int errnum = errno;
    va_list ap;
    va_start(ap, fmt);
    leave(fmt, ap, errnum);
}

void die_with_errno(int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    leave(fmt, ap, errnum);
}

/* The body of every level-gated printer: errno is read first, before
 * anything can change it. */
#define EMIT_AT(level, with_errno)                                   \
    do {                                                             \
        int saved_errno_ = (with_errno) ? errno : 0;                 \
        if (log_verbosity < (level))                                 \
            return;                                                  \
        va_list ap;                                                  \
        va_start(ap, fmt);                                           \
        emit(fmt, ap, saved_errno_);                                 \
        va_end(ap);                                                  \
    } while (0)

void warn(const char *fmt, ...)
{
    EMIT_AT(LOG_NORMAL, false);
}

void warn_errno(const char *fmt, ...)
{
    EMIT_AT(LOG_NORMAL, true);
}

void notice(const char *fmt, ...)
{
    EMIT_AT(LOG_NORMAL, false);
}

void verbose(const char *fmt, ...)
{
    EMIT_AT(LOG_VERBOSE, false);
}

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* main()'s start, then the last step's time */
static long long last;

void verbose_clock_start(void)
{
    last = now_us();
}

void verbose_step(const char *fmt, ...)
{
    if (log_verbosity < LOG_VERBOSE)
        return;
    long long t = now_us();
    long long delta = last ? t - last : 0;
    last = t;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* pid: the supervisor, init and the command's setup each time their own steps */
    fprintf(stderr, "sbx: [%6lld us] %s\n", delta, msg);
}
