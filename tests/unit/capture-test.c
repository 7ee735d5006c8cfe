/* capture.c: the command's output reaches the original descriptors byte
 * for byte and the callback sees the same bytes, per stream; a reader
 * that went away (| head) stops the copy, not sbx; the result channel
 * gives its greeting once, then end of file, and what is written to it
 * reaches the callback alone, counted as the position. */
#include "config.h"

#include "../tap.h"

#include "capture.h"
#include "log.h"
#include "util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct seen {
    char *buf[4];
    size_t len[4];
};

static void gather(int stream, const char *bytes, size_t len, void *data)
{
    struct seen *s = data;
    s->buf[stream] = realloc(s->buf[stream], s->len[stream] + len);
    memcpy(s->buf[stream] + s->len[stream], bytes, len);
    s->len[stream] += len;
}

static char *file_bytes(int fd, size_t *len)
{
    off_t size = lseek(fd, 0, SEEK_END);
    char *b = xmalloc((size_t)size + 1);
    *len = (size_t)pread(fd, b, (size_t)size, 0);
    return b;
}

/* what the child writes: text on both streams and 3 MB of every byte
 * value on stdout, more than any pipe buffer holds */
#define BIG (3u << 20)
static unsigned char big[BIG];

static void child_writes(void)
{
    write_all(1, "out\n", 4);
    write_all(2, "err\n", 4);
    write_all(1, big, BIG);
    write_all(2, "end\n", 4);
}

int main(void)
{
    plan(16);
    for (size_t i = 0; i < BIG; i++)
        big[i] = (unsigned char)(i * 131 + (i >> 11));
    /* the "terminal" of this test: two files in place of 1 and 2 */
    char p1[] = "/tmp/sbx-capture-1.XXXXXX", p2[] = "/tmp/sbx-capture-2.XXXXXX";
    int f1 = mkstemp(p1), f2 = mkstemp(p2);
    unlink(p1);
    unlink(p2);
    int tap = dup(1), tap_err = dup(2);
    dup2(f1, 1);
    dup2(f2, 2);

    struct seen s = { 0 };
    struct capture *c = capture_start(gather, &s, 0);
    pid_t pid = fork();
    if (pid == 0) {
        child_writes();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    capture_stop(c);
    /* 1 is the original again: this goes to the file, not to the callback */
    write_all(1, "after\n", 6);
    dup2(tap, 1);
    dup2(tap_err, 2);

    size_t want_len = 4 + BIG;
    char *want = xmalloc(want_len);
    memcpy(want, "out\n", 4);
    memcpy(want + 4, big, BIG);
    ok(s.len[1] == want_len && !memcmp(s.buf[1], want, want_len),
       "the callback saw stdout byte for byte (%zu of %zu bytes)", s.len[1], want_len);
    ok(s.len[2] == 8 && !memcmp(s.buf[2], "err\nend\n", 8), "and stderr, in its order");
    size_t l1, l2;
    char *got1 = file_bytes(f1, &l1), *got2 = file_bytes(f2, &l2);
    ok(l1 == want_len + 6 && !memcmp(got1, want, want_len), "the original stdout got every byte");
    ok(l2 == 8 && !memcmp(got2, "err\nend\n", 8), "the original stderr too");
    ok(l1 == want_len + 6 && !memcmp(got1 + want_len, "after\n", 6) && s.len[1] == want_len,
       "after capture_stop() descriptor 1 is the original again");

    /* the reader of the original stdout is gone: the copy stops with
     * EPIPE, the callback still sees everything, and nobody dies of
     * SIGPIPE */
    int p[2];
    if (pipe(p) < 0)
        bail_out("pipe");
    close(p[0]);
    dup2(p[1], 1);
    close(p[1]);
    struct seen s2 = { 0 };
    c = capture_start(gather, &s2, 0);
    pid = fork();
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN);
        write_all(1, "lost\n", 5);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    capture_stop(c);
    dup2(tap, 1);
    ok(s2.len[1] == 5 && !memcmp(s2.buf[1], "lost\n", 5),
       "a closed reader: the copy fails, this process lives (no SIGPIPE), the callback still sees it");
    /* merged: one stream in the order written across 1 and 2 */
    int f3 = dup(f1);
    if (ftruncate(f1, 0) < 0)
        bail_out("ftruncate");
    lseek(f1, 0, SEEK_SET);
    dup2(f1, 1);
    dup2(f2, 2);
    struct seen s3 = { 0 };
    c = capture_start(gather, &s3, CAPTURE_MERGED);
    pid = fork();
    if (pid == 0) {
        write_all(1, "a\n", 2);
        write_all(2, "b\n", 2);
        write_all(1, "c\n", 2);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    capture_stop(c);
    dup2(tap, 1);
    dup2(tap_err, 2);
    ok(s3.len[1] == 6 && !memcmp(s3.buf[1], "a\nb\nc\n", 6) && s3.len[2] == 0,
       "merged: stdout and stderr in the order written, as one stream");
    size_t l3;
    char *got3 = file_bytes(f3, &l3);
    ok(l3 == 6 && !memcmp(got3, "a\nb\nc\n", 6), "merged: all of it reaches the original stdout");
    free(got3);
    free(s3.buf[1]);

    /* sbx's own messages go to its own stderr during a capture, never
     * into the pipe (log.h log_output_fd): a die() then is not lost with it */
    if (ftruncate(f2, 0) < 0)
        bail_out("ftruncate");
    lseek(f2, 0, SEEK_SET);
    dup2(f2, 2);
    struct seen s5 = { 0 };
    c = capture_start(gather, &s5, CAPTURE_MERGED);
    warn("sbx's own words");
    capture_stop(c);
    dup2(tap_err, 2);
    size_t l5;
    char *got5 = file_bytes(f2, &l5);
    ok(l5 == strlen("sbx: sbx's own words\n") && !memcmp(got5, "sbx: sbx's own words\n", l5) &&
       s5.len[1] == 0 && s5.len[2] == 0,
       "warn() during a capture: straight to the original stderr, not into the pipe");
    free(got5);

    /* quiet: seen, not copied */
    int f4 = dup(f1);
    if (ftruncate(f1, 0) < 0)
        bail_out("ftruncate");
    dup2(f1, 1);
    struct seen s4 = { 0 };
    c = capture_start(gather, &s4, CAPTURE_MERGED | CAPTURE_QUIET);
    pid = fork();
    if (pid == 0) {
        write_all(1, "hush\n", 5);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    capture_stop(c);
    dup2(tap, 1);
    size_t l4;
    char *got4 = file_bytes(f4, &l4);
    ok(s4.len[1] == 5 && l4 == 0, "quiet: the callback sees it, the original gets nothing");
    free(got4);

    /* the position: every byte written so far, read by the thread or
     * still in the pipe, whichever it is when asked */
    struct seen s6 = { 0 };
    c = capture_start(gather, &s6, CAPTURE_MERGED | CAPTURE_QUIET);
    uint64_t before = capture_position(c);
    pid = fork();
    if (pid == 0) {
        write_all(1, "12345", 5);
        write_all(2, "678", 3);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    uint64_t after = capture_position(c);
    capture_stop(c);
    dup2(tap, 1);
    dup2(tap_err, 2);
    ok(before == 0 && after == 8, "position: 0, then the 8 bytes written to both (got %llu, %llu)",
       (unsigned long long)before, (unsigned long long)after);
    free(s6.buf[1]);
    struct seen s7 = { 0 };
    c = capture_start(gather, &s7, 0);
    uint64_t apart = capture_position(c);
    capture_stop(c);
    ok(apart == UINT64_MAX, "position: unknown when the streams are apart");

    /* the result channel */
    if (ftruncate(f1, 0) < 0)
        bail_out("ftruncate");
    lseek(f1, 0, SEEK_SET);
    dup2(f1, 1);
    struct seen s8 = { 0 };
    c = capture_start_report(gather, &s8, CAPTURE_MERGED, "greet\n", 6);
    int rfd = capture_report_fd(c);
    int pfd[2];
    if (pipe(pfd) < 0)
        bail_out("pipe");
    pid = fork();
    if (pid == 0) {
        char g[16];
        ssize_t n = read(rfd, g, sizeof g), again = read(rfd, g, sizeof g);
        char verdict = n == 6 && !memcmp(g, "greet\n", 6) && again == 0 ? 'y' : 'n';
        write_all(rfd, "rec1\nrec2\n", 10);
        write_all(1, "out\n", 4);
        write_all(pfd[1], &verdict, 1);
        _exit(0);
    }
    close(pfd[1]);
    waitpid(pid, &st, 0);
    char verdict = 0;
    if (read(pfd[0], &verdict, 1) != 1)
        verdict = 0;
    close(pfd[0]);
    uint64_t channel_pos = capture_position(c);
    capture_stop(c);
    dup2(tap, 1);
    ok(rfd > 2 && verdict == 'y', "result channel: the greeting, once, then end of file");
    ok(s8.len[3] == 10 && !memcmp(s8.buf[3], "rec1\nrec2\n", 10) && s8.len[1] == 4,
       "result channel: its bytes reach the callback as stream 3, the output as stream 1");
    ok(channel_pos == 10, "result channel: the position counts its bytes, not the output's (got %llu)",
       (unsigned long long)channel_pos);
    size_t l8;
    int f5 = dup(f1);
    char *got8 = file_bytes(f5, &l8);
    ok(l8 == 4 && !memcmp(got8, "out\n", 4), "result channel: nothing of it reaches the original stdout");
    free(got8);
    free(s8.buf[1]);
    free(s8.buf[3]);
    free(s4.buf[1]);
    free(want);
    free(got1);
    free(got2);
    for (int i = 1; i <= 2; i++) {
        free(s.buf[i]);
        free(s2.buf[i]);
    }
    return done_testing();
}
