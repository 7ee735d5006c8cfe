#include "config.h"

#include "capture.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

struct capture {
    bool merged;       /* 1 and 2 on one pipe: stream 1 only */
    bool quiet;        /* no copy to the originals */
    int saved_log_fd;  /* log_output_fd before the capture */
    capture_fn fn;
    void *data;
    int saved[4];      /* the original 1 and 2 (index = stream) */
    int read_end[4];   /* the pipes' read ends, non-blocking; 3: the result channel's */
    int report_end;    /* the command's end of the result channel, or -1 */
    int stop[2];       /* capture_stop() writes one byte: drain, then end */
    bool copy_failed[4]; /* the original went away (EPIPE): keep reading, stop copying */
    pthread_t thread;
    /* Bytes read from the merged pipe (or, with a result channel, from
     * that) so far; `lock` holds it and the read that adds to it
     * together, so that capture_position() never sees bytes that left the
     * pipe and are not counted yet. */
    pthread_mutex_t lock;
    uint64_t consumed;
};

/* Reads what stream holds now; false at end of file or error. */
static bool pump(struct capture *c, int stream)
{
    char buf[65536];
    for (;;) {
        pthread_mutex_lock(&c->lock);
        ssize_t n = read(c->read_end[stream], buf, sizeof buf);
        if (n > 0 && stream == (c->read_end[3] >= 0 ? 3 : 1))
            c->consumed += (uint64_t)n;
        pthread_mutex_unlock(&c->lock);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return true;
        if (n <= 0)
            return false;
        /* The person's copy first: what they see never waits on a parser.
         * The result channel's records are sbx's, not the person's. */
        if (stream != 3 && !c->quiet && !c->copy_failed[stream] && !write_all(c->saved[stream], buf, (size_t)n))
            c->copy_failed[stream] = true;
        c->fn(stream, buf, (size_t)n, c->data);
    }
}

static void *relay(void *arg)
{
    struct capture *c = arg;
    bool open[4] = { false, true, !c->merged, c->read_end[3] >= 0 };
    bool stopping = false;
    while (open[1] || open[2] || open[3]) {
        struct pollfd pfd[4] = {
            { .fd = open[1] ? c->read_end[1] : -1, .events = POLLIN },
            { .fd = open[2] ? c->read_end[2] : -1, .events = POLLIN },
            { .fd = open[3] ? c->read_end[3] : -1, .events = POLLIN },
            { .fd = stopping ? -1 : c->stop[0], .events = POLLIN },
        };
        if (!stopping && poll(pfd, 4, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pfd[3].revents)
            stopping = true;
        for (int s = 1; s <= 3; s++)
            if (open[s] && (stopping || pfd[s - 1].revents))
                open[s] = pump(c, s);
        /* After the stop every writer that matters is gone: what the
         * pipes hold was read above, and a straggler is not waited for. */
        if (stopping)
            break;
    }
    return NULL;
}

static struct capture *start(capture_fn fn, void *data, unsigned flags, const void *greeting,
                             size_t greeting_len, bool report)
{
    struct capture *c = xcalloc(1, sizeof *c);
    c->read_end[3] = c->report_end = -1;
    if (report) {
        /* SOCK_STREAM: the records are lines; the reporter reads its
         * greeting from the same end it writes to */
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
            die_errno("the audit's result channel: socketpair");
        if (!write_all(sv[0], greeting, greeting_len))
            die_errno("the audit's result channel: writing its greeting");
        /* nothing more is ever sent: a read after the greeting finds EOF */
        if (shutdown(sv[0], SHUT_WR) < 0)
            die_errno("the audit's result channel: shutdown");
        if (fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0)
            die_errno("the audit's result channel: O_NONBLOCK");
        c->read_end[3] = sv[0];
        c->report_end = sv[1];
    }
    bool merged = flags & CAPTURE_MERGED;
    c->merged = merged;
    c->quiet = flags & CAPTURE_QUIET;
    c->fn = fn;
    c->data = data;
    pthread_mutex_init(&c->lock, NULL);
    fflush(stdout);
    fflush(stderr);
    if (pipe2(c->stop, O_CLOEXEC) < 0)
        die_errno("capturing the command's output: pipe");
    int p[2] = { -1, -1 };
    for (int s = 1; s <= 2; s++) {
        c->saved[s] = fcntl(s, F_DUPFD_CLOEXEC, 3);
        if (c->saved[s] < 0)
            die_errno("capturing the command's output: saving descriptor %d", s);
        if (s == 1 || !merged) {
            if (p[1] >= 0)
                close(p[1]);
            if (pipe2(p, O_CLOEXEC) < 0)
                die_errno("capturing the command's output: pipe");
            if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0)
                die_errno("capturing the command's output: O_NONBLOCK");
            c->read_end[s] = p[0];
        } else {
            c->read_end[s] = -1;
        }
        /* dup2() leaves the new 1 and 2 inheritable: the command gets them */
        if (dup2(p[1], s) < 0)
            die_errno("capturing the command's output: dup2 onto %d", s);
    }
    close(p[1]);
    /* The copy to a closed pipe (| head) must fail with EPIPE in the
     * thread, not kill sbx with SIGPIPE; signals stay the main thread's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(&c->thread, NULL, relay, c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        for (int s = 1; s <= 2; s++)
            dup2(c->saved[s], s);
        die_with_errno(err, "capturing the command's output: starting the thread that copies it");
    }
    /* sbx's own messages go to its own stderr meanwhile (log.h) */
    c->saved_log_fd = log_output_fd;
    log_output_fd = c->saved[2];
    return c;
}

struct capture *capture_start(capture_fn fn, void *data, unsigned flags)
{
    return start(fn, data, flags, NULL, 0, false);
}

struct capture *capture_start_report(capture_fn fn, void *data, unsigned flags, const void *greeting,
                                     size_t greeting_len)
{
    return start(fn, data, flags, greeting, greeting_len, true);
}

int capture_report_fd(const struct capture *c)
{
    return c->report_end;
}

void capture_stop(struct capture *c)
{
    log_output_fd = c->saved_log_fd;
    fflush(stdout);
    fflush(stderr);
    for (int s = 1; s <= 2; s++) {
        if (dup2(c->saved[s], s) < 0)
            die_errno("putting descriptor %d back after capturing the command's output", s);
    }
    if (!write_all(c->stop[1], "x", 1))
        die_errno("stopping the capture of the command's output");
    /* the command's end: every process inside is gone by now */
    if (c->report_end >= 0)
        close(c->report_end);
    int err = pthread_join(c->thread, NULL);
    if (err)
        die_with_errno(err, "joining the thread that copied the command's output");
    for (int s = 1; s <= 2; s++) {
        close(c->saved[s]);
        if (c->read_end[s] >= 0)
            close(c->read_end[s]);
    }
    if (c->read_end[3] >= 0)
        close(c->read_end[3]);
    close(c->stop[0]);
    close(c->stop[1]);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

uint64_t capture_position(void *data)
{
    struct capture *c = data;
    if (!c->merged)
        return UINT64_MAX;
    pthread_mutex_lock(&c->lock);
    int queued = 0;
    /* a pipe: FIONREAD is what it holds unread; the socket's SIOCINQ,
     * the same request, what its receive queue holds */
    int counted = c->read_end[3] >= 0 ? c->read_end[3] : c->read_end[1];
    uint64_t pos = ioctl(counted, FIONREAD, &queued) < 0 ? UINT64_MAX
                                                               : c->consumed + (uint64_t)queued;
    pthread_mutex_unlock(&c->lock);
    return pos;
}
