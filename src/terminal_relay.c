#include "config.h"

#include "terminal.h"

#include "channel.h"
#include "terminal_filter.h"
#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

/* What one wake-up copies from the master before writing it out: the
 * master's line discipline hands out at most 4 KiB a read (N_TTY_BUF_SIZE),
 * and one large write to the caller's terminal instead of one per read
 * halves the system calls of a stream. */
#define OUTPUT_CHUNK (64 * 1024)
#define INPUT_CHUNK 4096

/* LINES: how often the terminal's mode is looked at while another
 * process (less) has taken it over. */
#define LINES_RECHECK_MS 100
/* INTERACTIVE, at the end, after queries: how long the answers are
 * waited for, to be discarded. */
#define LATE_ANSWER_MS 500

struct terminal_relay {
    enum terminal_mode mode;
    int tty_fd;               /* the caller's terminal: settings, window size */
    int in_fd;                /* where input is read: standard input, or -1 */
    int out_fd;               /* where the pty's output goes */
    int master;               /* -1 until init sends it */
    int signal_fd;            /* signalfd for SIGWINCH */
    bool in_open;             /* false once the caller's terminal hung up */
    bool in_paused;           /* LINES: not ours to read now */
    bool out_open;            /* false once writing there failed */
    bool raw;                 /* the caller's terminal is in raw mode */
    struct termios saved;     /* its settings before, restored at the end */
    char in_buf[INPUT_CHUNK]; /* read from the caller, not yet taken by the master */
    size_t in_off, in_len;
    char *out_buf;
    unsigned char *filtered;  /* out_buf through the filter */
    struct terminal_filter filter;
    struct terminal_da1_scan da1_scan; /* in what the caller types */
    unsigned long da1_answered;        /* DA1 answers relayed to the command */
};

/* The one relay in raw mode, for the exit hook. */
static struct terminal_relay *raw_relay;

static void restore_terminal(struct terminal_relay *r)
{
    if (!r->raw)
        return;
    /* TCSANOW: TCSADRAIN would wait for a terminal that may never drain
     * (a stopped reader), on the way out of a fatal error too. */
    tcsetattr(r->in_fd, TCSANOW, &r->saved);
    r->raw = false;
}

/* Every exit() of the supervisor (die() included: log.c) goes through
 * here; a SIGKILL of sbx cannot (sbx(1) TERMINAL says so). */
static void restore_at_exit(void)
{
    if (raw_relay)
        restore_terminal(raw_relay);
}

static void enter_raw(struct terminal_relay *r)
{
    if (tcgetattr(r->in_fd, &r->saved) < 0)
        die_errno("reading the terminal's settings (tcgetattr on standard input)");
    /* As ssh(1) does for a remote pty: no signals, line editing, echo,
     * flow control or CR/NL mapping on the caller's side; the sandbox's
     * pty does all of that, with the settings it was given from these. */
    struct termios tio = r->saved;
    tio.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON |
                               IXANY | IXOFF);
    tio.c_lflag &= ~(tcflag_t)(ISIG | ICANON | ECHO | ECHOE | ECHOK | ECHONL | IEXTEN);
    tio.c_oflag &= ~(tcflag_t)OPOST;
    tio.c_cc[VMIN] = 1;
    tio.c_cc[VTIME] = 0;
    raw_relay = r;
    r->raw = true;
    /* From a background job this raises SIGTTOU and stops sbx until the
     * shell's fg, as any full-screen program. */
    if (tcsetattr(r->in_fd, TCSANOW, &tio) < 0) {
        r->raw = false;
        die_errno("putting the terminal in raw mode (tcsetattr on standard input)");
    }
}

static void copy_window_size(struct terminal_relay *r)
{
    struct winsize ws;
    /* TIOCSWINSZ on the master sets the slave's size and sends SIGWINCH
     * to its foreground group (tty_mode_ioctl() acts on the pair's slave). */
    if (r->master >= 0 && ioctl(r->tty_fd, TIOCGWINSZ, &ws) == 0)
        ioctl(r->master, TIOCSWINSZ, &ws);
}

struct terminal_relay *terminal_relay_new(enum terminal_mode mode)
{
    struct terminal_relay *r = xcalloc(1, sizeof *r);
    r->mode = mode;
    r->in_fd = mode == TERMINAL_INTERACTIVE || mode == TERMINAL_LINES ? STDIN_FILENO : -1;
    r->out_fd = isatty(STDOUT_FILENO) ? STDOUT_FILENO
                : isatty(STDERR_FILENO) ? STDERR_FILENO : STDIN_FILENO;
    r->tty_fd = r->in_fd >= 0 ? r->in_fd : r->out_fd;
    r->master = -1;
    r->in_open = r->in_fd >= 0;
    r->out_open = true;
    r->out_buf = xmalloc(OUTPUT_CHUNK);
    r->filtered = xmalloc(OUTPUT_CHUNK + TERMINAL_FILTER_HOLD);
    terminal_filter_init(&r->filter);
    /* Only in raw mode does the command read the answers to its queries
     * (LINES: an answer would wait in the terminal's line, for Enter, and
     * be echoed; OUTPUT: nothing is read): elsewhere they are cut. */
    r->filter.command_gone = mode != TERMINAL_INTERACTIVE;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGWINCH);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
        die_errno("sigprocmask(SIG_BLOCK, SIGWINCH)");
    r->signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (r->signal_fd < 0)
        die_errno("signalfd for SIGWINCH");
    static bool hooked;
    if (!hooked && atexit(restore_at_exit) == 0)
        hooked = true;
    return r;
}

void terminal_relay_attach(struct terminal_relay *r, int master)
{
    if (r->master >= 0) {
        /* one command, one terminal: a second master is not ours */
        close(master);
        return;
    }
    /* Non-blocking: the description is ours alone (the caller's terminal
     * stays as the caller left it, since the shell shares it). */
    int flags = fcntl(master, F_GETFL);
    if (flags < 0 || fcntl(master, F_SETFL, flags | O_NONBLOCK) < 0)
        die_errno("making the pty's master non-blocking");
    r->master = master;
    copy_window_size(r);
    if (r->mode == TERMINAL_INTERACTIVE)
        enter_raw(r);
}

/* Writes all of buf to the caller's terminal. Blocking, as the command's
 * own write would be on a terminal that does not read; a descriptor the
 * caller made non-blocking is waited for. */
static void write_out(struct terminal_relay *r, const char *buf, size_t len)
{
    while (len && r->out_open) {
        ssize_t n = write(r->out_fd, buf, len);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EAGAIN) {
            struct pollfd p = { .fd = r->out_fd, .events = POLLOUT };
            poll(&p, 1, -1);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            /* EIO: the terminal hung up; what the command writes from now
             * on has nowhere to go, and must not block it. */
            r->out_open = false;
        }
    }
}

/* Copies what the master holds, up to OUTPUT_CHUNK (*got); false when
 * the slave side is closed (EIO: no process inside holds it any more). */
static bool copy_output(struct terminal_relay *r, size_t *got)
{
    size_t have = 0;
    bool open = true;
    while (have < OUTPUT_CHUNK) {
        ssize_t n = read(r->master, r->out_buf + have, OUTPUT_CHUNK - have);
        if (n > 0) {
            have += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || errno != EAGAIN)
            open = false;
        break;
    }
    size_t n = terminal_filter(&r->filter, (const unsigned char *)r->out_buf, have, r->filtered);
    write_out(r, (const char *)r->filtered, n);
    *got = have;
    return open;
}

static void push_input(struct terminal_relay *r)
{
    while (r->in_len) {
        ssize_t n = write(r->master, r->in_buf + r->in_off, r->in_len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return; /* the command reads slower than the caller types: POLLOUT */
        if (n <= 0) {
            r->in_len = 0;
            return;
        }
        r->in_off += (size_t)n;
        r->in_len -= (size_t)n;
    }
    r->in_off = 0;
}

static void read_input(struct terminal_relay *r, short revents)
{
    ssize_t n;
    do
        n = read(r->in_fd, r->in_buf, sizeof r->in_buf);
    while (n < 0 && errno == EINTR);
    if (n == 0 && r->mode == TERMINAL_LINES && !(revents & POLLHUP)) {
        /* Ctrl-D in canonical mode: the end of input, for the command's
         * reader too (the master's termios calls are the slave's) */
        struct termios tio;
        if (tcgetattr(r->master, &tio) < 0)
            return;
        r->in_buf[0] = (char)tio.c_cc[VEOF];
        n = 1;
    }
    if (n > 0) {
        r->da1_answered += terminal_da1_answers(&r->da1_scan, (unsigned char *)r->in_buf, (size_t)n);
        r->in_off = 0;
        r->in_len = (size_t)n;
        push_input(r);
    } else if (n == 0 || errno != EAGAIN) {
        /* Hung up: SIGHUP came with it and went to the command. */
        r->in_open = false;
    }
}

/* LINES: the terminal is read only while it is as a shell's foreground
 * job has it (canonical) and sbx's job is that foreground: not while
 * less, later in the pipeline, has it raw, and without the SIGTTIN of a
 * background read. */
static bool input_ours(struct terminal_relay *r)
{
    if (r->mode != TERMINAL_LINES)
        return true;
    struct termios tio;
    r->in_paused = tcgetpgrp(r->in_fd) != getpgrp() || tcgetattr(r->in_fd, &tio) < 0 ||
                   !(tio.c_lflag & ICANON);
    return !r->in_paused;
}

int terminal_relay_timeout(const struct terminal_relay *r)
{
    return r->in_paused && r->in_open && r->master >= 0 ? LINES_RECHECK_MS : -1;
}

static void close_master(struct terminal_relay *r)
{
    if (r->master >= 0)
        close(r->master);
    r->master = -1;
}

/* Copies everything the master holds now. */
static void drain_output(struct terminal_relay *r)
{
    while (r->master >= 0) {
        size_t got;
        if (!copy_output(r, &got))
            close_master(r);
        else if (got < OUTPUT_CHUNK)
            return;
    }
}

size_t terminal_relay_pollfds(struct terminal_relay *r, struct pollfd *pfd)
{
    /* The caller's terminal is read only while the master takes input:
     * a command that does not read then does not make sbx buffer. */
    pfd[0] = (struct pollfd){
        .fd = r->master >= 0 && r->in_open && !r->in_len && input_ours(r) ? r->in_fd : -1,
        .events = POLLIN,
    };
    pfd[1] = (struct pollfd){
        .fd = r->master,
        .events = (short)(POLLIN | (r->in_len ? POLLOUT : 0)),
    };
    pfd[2] = (struct pollfd){ .fd = r->signal_fd, .events = POLLIN };
    return TERMINAL_RELAY_POLLFDS;
}

/* Stops sbx (target getpid()) or its process group (0) with SIGTSTP, the
 * caller's terminal restored meanwhile. The signal is discarded when the
 * group is orphaned or SIGTSTP ignored, as the terminal's would be: then
 * sbx goes on at once. */
static void stop_self(struct terminal_relay *r, pid_t target)
{
    drain_output(r);
    bool was_raw = r->raw;
    restore_terminal(r);
    if (!terminal_job_stop(target)) {
        if (was_raw)
            enter_raw(r);
        return;
    }
    /* Continued: the user may have changed the terminal or its size. */
    if (r->master >= 0) {
        enter_raw(r);
        copy_window_size(r);
    }
}

void terminal_relay_dispatch(struct terminal_relay *r, const struct pollfd *pfd, size_t n)
{
    if (n < TERMINAL_RELAY_POLLFDS)
        return;
    if (pfd[2].revents & POLLIN) {
        struct signalfd_siginfo si;
        while (read(r->signal_fd, &si, sizeof si) == (ssize_t)sizeof si)
            ;
        copy_window_size(r);
    }
    if (pfd[1].fd >= 0 && pfd[1].revents) {
        if ((pfd[1].revents & POLLOUT) && r->in_len)
            push_input(r);
        /* POLLHUP: every slave is closed; what is left is read first. */
        size_t got;
        if ((pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) && !copy_output(r, &got))
            close_master(r);
    }
    if (pfd[0].fd >= 0 && pfd[0].revents && r->master >= 0)
        read_input(r, pfd[0].revents);
}

bool terminal_relay_stop_self(struct terminal_relay *r)
{
    if (r->mode != TERMINAL_INTERACTIVE)
        return false;
    /* SIGTSTP sent to sbx (kill -TSTP; Ctrl-Z at the caller's terminal is
     * a byte in raw mode): only sbx stops, with the terminal restored; the
     * command goes on until its output fills the pty. */
    stop_self(r, getpid());
    return true;
}

void terminal_relay_command_stopped(struct terminal_relay *r, int channel_fd)
{
    /* The whole process group, as a shell's Ctrl-Z would have stopped it
     * (a pipeline `sbx run ... | tee` included). */
    stop_self(r, 0);
    if (!channel_send(channel_fd, CHANNEL_CONTINUE_COMMAND, 0, -1) && errno != EPIPE &&
        errno != ECONNRESET)
        die_errno("telling the sandbox's init to continue the command");
}

/* The command is gone; nothing typed from now on is for it, and what the
 * terminal still sends must not reach the caller's shell: the answers to
 * the queries the command sent last (a DA1 answer typed at the prompt is
 * `?64;1;2c`, an OSC 11 one a run of junk, and crafted ones more). The
 * terminal answers in order, so once the answers to the DA1 queries the
 * command sent and did not get, and to one DA1 of our own, have come,
 * every earlier answer has too; then the input queue is flushed. A
 * terminal slower than LATE_ANSWER_MS is not waited for. */
static void discard_late_input(struct terminal_relay *r)
{
    if (!r->raw || !r->in_open)
        return;
    if (r->filter.queries && r->out_open) {
        write_out(r, "\x1b[c", 3);
        unsigned long want = 1 + (r->filter.da1 > r->da1_answered ? r->filter.da1 - r->da1_answered : 0);
        unsigned long got = 0;
        uint64_t until = monotonic_ms() + LATE_ANSWER_MS;
        for (uint64_t now = monotonic_ms(); now < until && got < want; now = monotonic_ms()) {
            struct pollfd p = { .fd = r->in_fd, .events = POLLIN };
            if (poll(&p, 1, (int)(until - now)) <= 0)
                break;
            unsigned char buf[256];
            ssize_t n = read(r->in_fd, buf, sizeof buf);
            if (n <= 0)
                break;
            got += terminal_da1_answers(&r->da1_scan, buf, (size_t)n);
        }
    }
    tcflush(r->in_fd, TCIFLUSH);
}

void terminal_relay_finish(struct terminal_relay *r)
{
    /* Nothing inside runs any more (init reports the status after
     * kill_leftovers()), so the master holds all the command wrote: a
     * read flushes the pending buffer work before it reports EAGAIN or
     * EIO (n_tty_read()). */
    r->filter.command_gone = true;
    drain_output(r);
    close_master(r);
    discard_late_input(r);
    restore_terminal(r);
    if (raw_relay == r)
        raw_relay = NULL;
}

void terminal_relay_free(struct terminal_relay *r)
{
    if (!r)
        return;
    terminal_relay_finish(r);
    /* Both stay blocked until sandbox_run() restores the caller's mask. */
    close(r->signal_fd);
    free(r->out_buf);
    free(r->filtered);
    free(r);
}
