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
#include <unistd.h>

struct capture {
    bool merged;       /* 1 and 2 on one pipe: stream 1 only */
    bool quiet;        /* no copy to the originals */
    int saved_log_fd;  /* log_output_fd before the capture */
    capture_fn fn;
    void *data;
    int saved[3];      /* the original 1 and 2 (index = stream) */
    int read_end[3];   /* the pipes' read ends, non-blocking */
    int stop[2];       /* capture_stop() writes one byte: drain, then end */
    bool copy_failed[3]; /* the original went away (EPIPE): keep reading, stop copying */
    pthread_t thread;
};

/* Reads what stream holds now; false at end of file or error. */
static bool pump(struct capture *c, int stream)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(c->read_end[stream], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return true;
        if (n <= 0)
            return false;
        /* The person's copy first: what they see never waits on a parser. */
        if (!c->quiet && !c->copy_failed[stream] && !write_all(c->saved[stream], buf, (size_t)n))
            c->copy_failed[stream] = true;
        c->fn(stream, buf, (size_t)n, c->data);
    }
}

static void *relay(void *arg)
{
    struct capture *c = arg;
    bool open[3] = { false, true, !c->merged };
    bool stopping = false;
    while (open[1] || open[2]) {
        struct pollfd pfd[3] = {
            { .fd = open[1] ? c->read_end[1] : -1, .events = POLLIN },
            { .fd = open[2] ? c->read_end[2] : -1, .events = POLLIN },
            { .fd = stopping ? -1 : c->stop[0], .events = POLLIN },
        };
        if (!stopping && poll(pfd, 3, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pfd[2].revents)
            stopping = true;
        for (int s = 1; s <= 2; s++)
            if (open[s] && (stopping || pfd[s - 1].revents))
                open[s] = pump(c, s);
        /* After the stop every writer that matters is gone: what the
         * pipes hold was read above, and a straggler is not waited for. */
        if (stopping)
            break;
    }
    return NULL;
}

struct capture *capture_start(capture_fn fn, void *data, unsigned flags)
{
    struct capture *c = xcalloc(1, sizeof *c);
    bool merged = flags & CAPTURE_MERGED;
    c->merged = merged;
    c->quiet = flags & CAPTURE_QUIET;
    c->fn = fn;
    c->data = data;
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
    int err = pthread_join(c->thread, NULL);
    if (err)
        die_with_errno(err, "joining the thread that copied the command's output");
    for (int s = 1; s <= 2; s++) {
        close(c->saved[s]);
        if (c->read_end[s] >= 0)
            close(c->read_end[s]);
    }
    close(c->stop[0]);
    close(c->stop[1]);
    free(c);
}
