#include "config.h"

#include "supervise.h"

#include "channel.h"
#include "exit.h"
#include "init.h"
#include "ledger.h"
#include "log.h"
#include "terminal.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

static void supervised_signal_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGTSTP);
    for (int i = 0; i < forwarded_signal_count; i++)
        sigaddset(set, forwarded_signals[i]);
}

void supervise_block_signals(sigset_t *old_mask)
{
    sigset_t set;
    supervised_signal_set(&set);
    if (sigprocmask(SIG_BLOCK, &set, old_mask) < 0)
        die_errno("sigprocmask(SIG_BLOCK)");
}

void supervise_init(struct supervisor *s, pid_t init_pid, int channel_fd, uint64_t timeout_ms)
{
    memset(s, 0, sizeof *s);
    s->init_pid = init_pid;
    s->channel_fd = channel_fd;
    s->timeout_ms = timeout_ms;
    s->signal_fd = -1;
    if (init_pid > 0) {
        sigset_t set;
        supervised_signal_set(&set);
        s->signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
        if (s->signal_fd < 0)
            die_errno("signalfd in the supervisor");
    }
}

void supervise_add_fd(struct supervisor *s, int fd, supervise_fd_handler on_ready, void *data)
{
    xgrow((void **)&s->watched, &s->capwatched, s->nwatched + 1, sizeof *s->watched);
    s->watched[s->nwatched++] = (struct watched_fd){ .fd = fd, .on_ready = on_ready, .data = data };
}

static void drop_watched(struct supervisor *s, size_t i)
{
    close(s->watched[i].fd);
    s->watched[i] = s->watched[--s->nwatched];
}

/* Dispatches the revents of the watched fds, which occupy pfd[0..n). */
static int dispatch_watched(struct supervisor *s, struct pollfd *pfd, size_t n)
{
    int ready = 0;
    /* Backwards: drop_watched() moves the last entry into the hole. */
    for (size_t i = n; i-- > 0;) {
        if (!pfd[i].revents)
            continue;
        ready++;
        if ((pfd[i].revents & POLLIN) && s->watched[i].on_ready) {
            if (!s->watched[i].on_ready(s->watched[i].data, s->watched[i].fd))
                drop_watched(s, i);
        } else {
            /* Hung up, or nobody to read it: a readable fd left unread
             * would make every poll() return at once. */
            drop_watched(s, i);
        }
    }
    return ready;
}

int supervise_poll_watched(struct supervisor *s, int timeout_ms)
{
    size_t n = s->nwatched;
    struct pollfd *pfd = xcalloc(n ? n : 1, sizeof *pfd);
    for (size_t i = 0; i < n; i++)
        pfd[i] = (struct pollfd){ .fd = s->watched[i].fd, .events = POLLIN };
    int r;
    do
        r = poll(pfd, n, timeout_ms);
    while (r < 0 && errno == EINTR);
    int ready = r > 0 ? dispatch_watched(s, pfd, n) : 0;
    free(pfd);
    return ready;
}

/* Reads every queued message; never blocks. */
static void handle_channel(struct supervisor *s)
{
    for (;;) {
        struct channel_msg m;
        int fd;
        int r = channel_recv(s->channel_fd, &m, &fd, true);
        if (r <= 0) {
            if (r < 0 && errno != ECONNRESET)
                warn_errno("reading from the sandbox's channel");
            return;
        }
        switch (m.type) {
        case CHANNEL_EXEC_FAILED:
            s->exec_failed = true;
            s->exec_errno = m.value;
            break;
        case CHANNEL_SETUP_FAILED:
            s->command_setup_failed = true;
            break;
        case CHANNEL_COMMAND_STATUS:
            s->have_status = true;
            s->command_status = m.value;
            break;
        case CHANNEL_NETWORK_READY:
            if (s->on_network_ready)
                s->on_network_ready(s);
            else
                warn("the sandbox's init asked for outbound network, which nobody set up");
            break;
        case CHANNEL_NETLINK_FD:
            if (fd >= 0 && s->on_netlink_fd)
                s->on_netlink_fd(s, fd);
            else
                warn("the sandbox's init sent an rtnetlink socket nobody asked for (ignored)");
            break;
        case CHANNEL_TERMINAL_FD:
            if (fd >= 0 && s->terminal) {
                terminal_relay_attach(s->terminal, fd);
                fd = -1;
            } else {
                warn("the sandbox's init sent a terminal nobody asked for (ignored)");
            }
            break;
        case CHANNEL_COMMAND_STOPPED:
            /* only with the caller's terminal in raw mode: Ctrl-Z there
             * is a byte, which the pty made a SIGTSTP of the command */
            if (s->terminal)
                terminal_relay_command_stopped(s->terminal, s->channel_fd);
            break;
        case CHANNEL_EGRESS_FD:
            if (fd >= 0 && s->on_egress_fd) {
                s->on_egress_fd(s, m.value, fd);
                fd = -1;
            }
            break;
        case CHANNEL_NOTIFY_FD:
            if (fd < 0)
                break;
            if (s->on_notify_fd)
                s->on_notify_fd(s, fd);
            else
                close(fd);
            fd = -1;
            break;
        default:
            warn("unexpected message %d from inside the sandbox (ignored)", (int)m.type);
        }
        if (fd >= 0)
            close(fd);
    }
}

static void forward_signal(struct supervisor *s, int sig, int how)
{
    if (how)
        sigqueue(s->init_pid, sig, (union sigval){ .sival_int = how });
    else
        kill(s->init_pid, sig);
}

/* SIGTSTP: Ctrl-Z at the caller's terminal (its job is sbx alone now,
 * init.c) or kill -TSTP of sbx. With the caller's terminal in raw mode
 * the relay stops sbx alone, as before (terminal.h); otherwise the
 * command's group gets the SIGTSTP, as it would have from the terminal,
 * sbx stops, and the group is continued with sbx (fg, bg). A command that
 * stops itself never stops sbx (a harness sharing sbx's process group
 * would stop with it, and the --timeout clock with them). */
static void stop_with_command(struct supervisor *s)
{
    if (s->terminal && terminal_relay_stop_self(s->terminal))
        return;
    forward_signal(s, SIGTSTP, INIT_SIGNAL_GROUP);
    if (terminal_job_stop(getpid()))
        forward_signal(s, SIGCONT, INIT_SIGNAL_GROUP);
}

static void handle_signals(struct supervisor *s)
{
    struct signalfd_siginfo si;
    while (read(s->signal_fd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            if (s->init_done)
                continue;
            int st;
            pid_t w = waitpid(s->init_pid, &st, WNOHANG);
            if (w == s->init_pid) {
                s->init_done = true;
                s->init_status = st;
            }
            continue;
        }
        if (sig > 0 && sig < 64)
            s->signals_received |= UINT64_C(1) << sig;
        if (sig == SIGTSTP) {
            stop_with_command(s);
            continue;
        }
        /* SI_KERNEL: the caller's terminal sent it to its foreground job,
         * which the command is not part of (init.c): the command's whole
         * group gets it, as it would have from the terminal. */
        verbose("forwarding signal %d (%s) to the command", sig, strsignal(sig));
        forward_signal(s, sig, si.ssi_code == SI_KERNEL ? INIT_SIGNAL_GROUP : 0);
    }
}

static void format_duration(uint64_t ms, char *buf, size_t len)
{
    if (ms % 1000)
        snprintf(buf, len, "%" PRIu64 "ms", ms);
    else
        snprintf(buf, len, "%" PRIu64 "s", ms / 1000);
}

void supervise_run(struct supervisor *s, struct sandbox_result *res)
{
    uint64_t start = monotonic_ms();
    uint64_t term_at = s->timeout_ms ? start + s->timeout_ms : 0;
    uint64_t kill_at = 0;
    int stop_sig = 0;
    bool killed_after_stop = false;
    bool asked_init_to_kill = false;
    bool channel_open = true;

    /* The command's status is the end: init sends it only once nothing
     * else runs inside (kill_leftovers in init.c). init's own exit, where
     * the kernel tears down the mount, network and other namespaces, goes
     * on without us; waiting for it cost about 0.4 ms a run. */
    while (!s->init_done && !s->have_status) {
        size_t n = s->nwatched;
        struct pollfd *pfd = xcalloc(n + 2 + TERMINAL_RELAY_POLLFDS, sizeof *pfd);
        for (size_t i = 0; i < n; i++)
            pfd[i] = (struct pollfd){ .fd = s->watched[i].fd, .events = POLLIN };
        pfd[n] = (struct pollfd){ .fd = s->signal_fd, .events = POLLIN };
        pfd[n + 1] = (struct pollfd){ .fd = channel_open ? s->channel_fd : -1, .events = POLLIN };
        size_t nrelay = s->terminal ? terminal_relay_pollfds(s->terminal, pfd + n + 2) : 0;

        int wait_ms = -1;
        uint64_t now = monotonic_ms();
        uint64_t next = term_at && (!kill_at || term_at < kill_at) ? term_at : kill_at;
        if (next)
            wait_ms = next > now ? (int)(next - now < INT32_MAX ? next - now : INT32_MAX) : 0;
        /* the caller's own bound is asked again after a while: what it
         * says moves as the command's output goes by */
        if (s->stop_at && !kill_at && (wait_ms < 0 || wait_ms > SUPERVISE_STOP_AT_POLL_MS))
            wait_ms = SUPERVISE_STOP_AT_POLL_MS;
        int relay_ms = s->terminal ? terminal_relay_timeout(s->terminal) : -1;
        if (relay_ms >= 0 && (wait_ms < 0 || relay_ms < wait_ms))
            wait_ms = relay_ms;

        int r = poll(pfd, n + 2 + nrelay, wait_ms);
        if (r < 0 && errno != EINTR)
            die_errno("poll in the supervisor");
        if (r > 0) {
            dispatch_watched(s, pfd, n);
            /* Before the channel: output the command wrote before it
             * stopped is shown before sbx stops (terminal.h). */
            if (nrelay)
                terminal_relay_dispatch(s->terminal, pfd + n + 2, nrelay);
            if (pfd[n + 1].revents & POLLIN)
                handle_channel(s);
            /* Hung up: init and the command (at exec) closed their ends. */
            if (pfd[n + 1].revents & (POLLHUP | POLLERR))
                channel_open = false;
            if (pfd[n].revents & POLLIN)
                handle_signals(s);
        }
        free(pfd);

        now = monotonic_ms();
        if (!stop_sig && !kill_at && (s->signals_received & s->stop_signals)) {
            /* sbx audit: the command got the signal and may clean up, but
             * not hold the audit (sbx run waits for it instead). */
            stop_sig = __builtin_ctzll(s->signals_received & s->stop_signals);
            kill_at = now + SUPERVISE_GRACE_MS;
        }
        uint64_t caller_at = s->stop_at && !kill_at ? s->stop_at(s->stop_at_data,
                                                               ledger_total(res->ledger)) : 0;
        if (caller_at && now >= caller_at && !s->init_done) {
            /* the caller says why (sbx audit: the test that had its time) */
            s->timed_out = true;
            forward_signal(s, SIGTERM, INIT_SIGNAL_TIMEOUT);
            term_at = 0;
            kill_at = now + SUPERVISE_GRACE_MS;
        } else if (term_at && now >= term_at && !s->init_done) {
            char d[32];
            format_duration(s->timeout_ms, d, sizeof d);
            notice("timeout %s expired: sending SIGTERM to the command", d);
            s->timed_out = true;
            forward_signal(s, SIGTERM, INIT_SIGNAL_TIMEOUT);
            term_at = 0;
            kill_at = now + SUPERVISE_GRACE_MS;
        } else if (kill_at && now >= kill_at && !s->init_done) {
            const char *abbrev = s->timed_out ? "TERM" : sigabbrev_np(stop_sig);
            if (!asked_init_to_kill)
                notice("the command did not exit %d s after SIG%s: killing the sandbox",
                       SUPERVISE_GRACE_MS / 1000, abbrev ? abbrev : "?");
            killed_after_stop = !s->timed_out;
            kill_at = 0;
            if (!s->pid_namespace && !asked_init_to_kill) {
                /* No PID namespace ends with init: init kills and reaps
                 * what runs (orphans are its children, child subreaper)
                 * and reports; SIGKILL of init a second later if not. */
                asked_init_to_kill = channel_send(s->channel_fd, CHANNEL_KILL_SANDBOX, 0, -1);
                kill_at = asked_init_to_kill ? now + 1000 : 0;
            }
            /* SIGKILL to init ends the PID namespace, and everything in it. */
            if (!kill_at)
                kill(s->init_pid, SIGKILL);
        }
    }
    /* Whatever init and the command sent before they exited is queued. */
    handle_channel(s);

    res->timed_out = s->timed_out;
    res->command_ran = s->have_status && !s->exec_failed && !s->command_setup_failed;
    if (s->have_status) {
        res->wait_status = s->command_status;
        res->term_signal = WIFSIGNALED(s->command_status) ? WTERMSIG(s->command_status) : 0;
        res->exit_status = exit_status_from_wait(s->command_status);
    } else if (WIFEXITED(s->init_status)) {
        /* init failed during setup and said why (exit 125). */
        res->exit_status = WEXITSTATUS(s->init_status) ? WEXITSTATUS(s->init_status)
                                                       : SBX_EXIT_FAILURE;
    } else {
        if (!s->timed_out && !killed_after_stop)
            warn("the sandbox's init was killed by signal %d (%s)", WTERMSIG(s->init_status),
                 strsignal(WTERMSIG(s->init_status)));
        res->exit_status = SBX_EXIT_FAILURE;
    }
    if (killed_after_stop && !s->have_status && !s->exec_failed && !s->command_setup_failed) {
        /* SIGKILL of init took the command with it: that is how it ended
         * (setup is over long before SUPERVISE_GRACE_MS), not a failure of sbx. */
        res->command_ran = true;
        res->term_signal = SIGKILL;
        res->wait_status = SIGKILL;
        res->exit_status = 128 + SIGKILL;
    }
    if (s->timed_out)
        res->exit_status = SBX_EXIT_TIMEOUT;
}

void supervise_free(struct supervisor *s)
{
    for (size_t i = 0; i < s->nwatched; i++)
        close(s->watched[i].fd);
    free(s->watched);
    s->watched = NULL;
    s->nwatched = s->capwatched = 0;
    if (s->signal_fd >= 0) {
        /* Signals that arrived after init exited would kill us once
         * unblocked (SIGTERM's default action): they were meant for the
         * command, which is gone. Still noted: `sbx audit` must not start
         * its next run after one. */
        struct signalfd_siginfo si;
        while (read(s->signal_fd, &si, sizeof si) == (ssize_t)sizeof si)
            if (si.ssi_signo != SIGCHLD && si.ssi_signo < 64)
                s->signals_received |= UINT64_C(1) << si.ssi_signo;
        close(s->signal_fd);
        s->signal_fd = -1;
    }
}

int exit_status_from_wait(int wait_status)
{
    if (WIFEXITED(wait_status))
        return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status))
        return 128 + WTERMSIG(wait_status);
    return SBX_EXIT_FAILURE;
}
