#include "config.h"

#include "init.h"

#include "backend.h"
#include "channel.h"
#include "command.h"
#include "egress.h"
#include "exit.h"
#include "log.h"
#include "mount.h"
#include "net.h"
#include "report.h"
#include "ns.h"
#include "terminal.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
const int forwarded_signal_count = sizeof forwarded_signals / sizeof forwarded_signals[0];

/* The supervisor was continued after the command stopped on its pty
 * (terminal.h): continue the pty's foreground group, which holds the
 * command unless it moved, and the command itself. init's standard input
 * is the slave by now, its controlling terminal. */
static void continue_command(pid_t command)
{
    pid_t foreground = tcgetpgrp(STDIN_FILENO);
    if (foreground > 0)
        kill(-foreground, SIGCONT);
    kill(command, SIGCONT);
}

/* Messages from the supervisor once the command runs. True when it asks
 * for the end (CHANNEL_KILL_SANDBOX). */
static bool read_supervisor(int channel_fd, pid_t command)
{
    struct channel_msg m;
    int fd;
    bool kill_all = false;
    while (channel_recv(channel_fd, &m, &fd, true) > 0) {
        if (fd >= 0)
            close(fd);
        if (m.type == CHANNEL_CONTINUE_COMMAND)
            continue_command(command);
        else if (m.type == CHANNEL_KILL_SANDBOX)
            kill_all = true;
    }
    return kill_all;
}

/* A signal for the command, as the supervisor or the kernel sent it to
 * us (init.h INIT_SIGNAL_*). */
static void pass_signal(pid_t command, const struct signalfd_siginfo *si)
{
    int sig = (int)si->ssi_signo;
    bool queued = si->ssi_code == SI_QUEUE;
    /* SI_KERNEL: the pty hung up on its session leader, us. */
    bool group = si->ssi_code == SI_KERNEL ||
                 (queued && (si->ssi_int == INIT_SIGNAL_GROUP || si->ssi_int == INIT_SIGNAL_TIMEOUT));
    /* The command itself too when it left its group (setpgid, setsid);
     * not twice: a handler that ran between would count two. */
    bool in_group = getpgid(command) == command;
    if (group)
        kill(-command, sig);
    if (!group || !in_group)
        kill(command, sig);
    if (queued && si->ssi_int == INIT_SIGNAL_TIMEOUT) {
        kill(-command, SIGCONT);
        if (!in_group)
            kill(command, SIGCONT);
    }
}

/* The supervisor holds the only other end of the channel: a hang-up on
 * ours means it is gone. */
static bool supervisor_gone(int channel_fd)
{
    struct pollfd pfd = { .fd = channel_fd, .events = 0 };
    return poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/* Kills everything left inside once the command is gone, and reaps it:
 * when this returns no process of the sandbox but init runs any more, so
 * the supervisor can return the status at once instead of waiting for the
 * kernel to dismantle the namespaces (docs/performance.md). In a PID
 * namespace kill(-1) from its init reaches every process in it and no
 * other, and orphans are reparented to init, so waiting until ECHILD
 * reaps them all (kill again after each reap: a process that was forking
 * when the first kill came is caught by the next); without one, init is a
 * child subreaper, so orphans of the command became our children and
 * /proc lists them. */
static void kill_leftovers(void)
{
    if (getpid() == 1) {
        kill(-1, SIGKILL);
        for (;;) {
            pid_t w = waitpid(-1, NULL, 0);
            if (w < 0 && errno != EINTR)
                break;
            kill(-1, SIGKILL);
        }
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    for (int round = 0; round < 1000; round++) {
        char *text = read_file_text(path, 1 << 20, NULL);
        if (!text || !*text) {
            free(text);
            break;
        }
        for (int pass = 0; pass < 2; pass++) {
            for (char *s = text; *s;) {
                char *end;
                long pid = strtol(s, &end, 10);
                if (end == s)
                    break;
                if (pid > 0 && pass == 0)
                    kill((pid_t)pid, SIGKILL);
                /* Each killed one by its pid: waiting for any child until
                 * none is left would block on an orphan reparented to us
                 * meanwhile, not killed yet and perhaps stopped. */
                else if (pid > 0)
                    while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                s = end;
            }
        }
        free(text);
        /* and whatever else of ours has exited */
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
    }
}

/* init is a copy of the supervisor and holds every descriptor the caller
 * leaked to sbx without close-on-exec (a shell's `exec 7<file`, a parent's
 * listening socket, an O_PATH of a host directory). The command never gets
 * them (command.c marks them close-on-exec), but init keeps running next
 * to the command in the sandbox's namespaces for the whole run, and
 * anything that lets the command reach init's table (/proc/1/fd is guarded
 * only by the ptrace access check) would hand it the host objects. init
 * needs none of them: only the channel survives. */
static void close_inherited_fds(int keep, int keep_too)
{
    int lo = keep_too >= 0 && keep_too < keep ? keep_too : keep;
    int hi = keep_too >= 0 && keep_too > keep ? keep_too : keep;
    unsigned k = (unsigned)lo, h = (unsigned)hi;
    if ((k <= 3 || close_range(3, k - 1, 0) == 0) && (h <= k + 1 || close_range(k + 1, h - 1, 0) == 0) &&
        close_range(h + 1, ~0U, 0) == 0)
        return;
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < max && fd < 65536; fd++)
        if (fd != keep && fd != keep_too)
            close((int)fd);
}

/* Waits for the supervisor's answer of type `want`. A hang-up means the
 * supervisor failed, said why and exits 125: so do we, silently. */
void init_await_supervisor(int channel_fd, int want, const char *what)
{
    struct channel_msg m;
    int fd;
    int r;
    do
        r = channel_recv(channel_fd, &m, &fd, false);
    while (r < 0 && errno == EINTR);
    if (r <= 0)
        /* The supervisor failed to start pasta and said why. */
        _exit(SBX_EXIT_FAILURE);
    if (fd >= 0)
        close(fd);
    if (m.type != want)
        die("unexpected message %d from the supervisor while waiting for %s", (int)m.type, what);
}

noreturn void init_main(struct sandbox_plan *ctx)
{
    log_use_underscore_exit = 1;
    /* close_inherited_fds() below may close sbx's saved stderr (log.h) */
    log_output_fd = STDERR_FILENO;
    /* Not the supervisor's hook: this one only adds the message to the run
     * record (--report), which the supervisor writes. */
    die_hook = report_child_die_hook;

    /* If the supervisor dies, even by SIGKILL, init dies, and with PID 1
     * gone the kernel kills everything in the PID namespace. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        die_errno("prctl(PR_SET_PDEATHSIG)");
    /* The race: the supervisor may have died before prctl(); we were then
     * reparented and no signal will ever come. */
    if (supervisor_gone(ctx->channel_fd))
        _exit(SBX_EXIT_FAILURE);
    if (!ctx->pid_namespace && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
        die_errno("prctl(PR_SET_CHILD_SUBREAPER)");
    /* the audit's result channel (sandbox_request.report_fd) is the
     * command's: kept until it is started, then closed */
    close_inherited_fds(ctx->channel_fd, ctx->report_fd);
    /* the backend's own setup inside (backend.h): the namespaces' id maps,
     * hostname and mount plan; nothing in the Landlock tier */
    if (ctx->backend->enter)
        ctx->backend->enter(ctx, ctx->part);
    /* Everything the command forks must be counted by the pids cgroup,
     * so init forks nothing before the supervisor has moved it there. The
     * move takes the kernel a grace period (cgroup_threadgroup_rwsem,
     * milliseconds), which the maps and mounts above overlap. The
     * supervisor sends this before anything else, so it comes first. */
    if (ctx->await_cgroup) {
        init_await_supervisor(ctx->channel_fd, CHANNEL_CGROUP_ENTERED, "the pids cgroup");
        verbose_step("in the pids cgroup");
    }
    /* what the supervisor brings up for the backend: lo, the proxy's
     * sockets, pasta */
    if (ctx->backend->ready)
        ctx->backend->ready(ctx, ctx->part);

    /* Every forwarded signal and SIGCHLD are blocked since before clone()
     * (the supervisor did it), so none was lost in between: they wait in
     * the queue signalfd reads. Blocked signals also reach a PID 1 that
     * has no handler, which the kernel would otherwise drop. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    for (int i = 0; i < forwarded_signal_count; i++)
        sigaddset(&mask, forwarded_signals[i]);
    /* and the job control the supervisor passes on (supervise.c): not
     * blocked since clone(), but sent only once the command runs; a
     * SIGCONT that is not blocked is discarded once it has continued us */
    sigaddset(&mask, SIGTSTP);
    sigaddset(&mask, SIGCONT);
    if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
        die_errno("sigprocmask in the sandbox's init");
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    if (sfd < 0)
        die_errno("signalfd in the sandbox's init");
    /* A session of the sandbox's own, led by init, in both tiers, with or
     * without a terminal: the command (a process group of its own in it,
     * command.c) shares neither the caller's session nor its process
     * group. Otherwise kill(0, SIGKILL) from the command reaches every
     * process of the caller's group, the caller's shell and a harness
     * that ran sbx through subprocess included: a process group is not
     * confined by the PID namespace (kill_pgrp() walks the group's tasks
     * wherever they live), and kill(0, SIGSTOP) stopped sbx and with it
     * the --timeout. Signals the caller's terminal sends to its
     * foreground job now reach the supervisor alone, which passes them on
     * (init.h INIT_SIGNAL_GROUP). init leads the session rather than the
     * command so that the command's group has a parent in the same
     * session: a group without one is orphaned, and the kernel discards
     * the SIGTSTP of Ctrl-Z sent to it (POSIX; kernel/signal.c). */
    if (setsid() < 0)
        die_errno("setsid for the sandbox's session");
    if (ctx->terminal) {
        record_step("the command's terminal (a pty of the sandbox's devpts)");
        ctx->terminal_slave = terminal_open_inside(ctx->channel_fd, ctx->terminal);
        verbose_step("pty ready, in a session of its own");
    }

    record_step("start the command");
    pid_t command = command_spawn(ctx);
    if (command < 0 && errno == EAGAIN) {
        char why[256];
        die_with_errno(EAGAIN, "starting the command (clone) failed: %s",
                       ns_explain_failure(EAGAIN, 0, why, sizeof why));
    }
    if (command < 0)
        die_errno("starting the command (clone)");
    verbose_step("command started");
    if (ctx->report_fd >= 0)
        close(ctx->report_fd);
    if (ctx->terminal_slave >= 0)
        terminal_release_caller(ctx->terminal_slave);

    /* With the caller's terminal raw, the command's stop is reported
     * (WUNTRACED) and the supervisor may answer (terminal.h). */
    struct pollfd pfd[2] = {
        { .fd = sfd, .events = POLLIN },
        { .fd = ctx->channel_fd, .events = POLLIN },
    };
    int wait_flags = WNOHANG | (ctx->terminal == TERMINAL_INTERACTIVE ? WUNTRACED : 0);
    int status = 0;
    for (bool done = false; !done;) {
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            die_errno("poll in the sandbox's init");
        }
        if (pfd[1].revents & (POLLHUP | POLLERR | POLLNVAL)) {
            /* The supervisor is gone; PR_SET_PDEATHSIG should have got us
             * first, this is the backstop. */
            kill_leftovers();
            _exit(SBX_EXIT_FAILURE);
        }
        if ((pfd[1].revents & POLLIN) && read_supervisor(ctx->channel_fd, command)) {
            /* The supervisor's SIGKILL after the grace, where no PID
             * namespace ends with us: kill_leftovers() below takes the
             * command and every orphan it left (they are ours: child
             * subreaper), stopped ones too. */
            status = SIGKILL;
            break;
        }
        if (!(pfd[0].revents & POLLIN))
            continue;
        struct signalfd_siginfo si;
        ssize_t n = read(sfd, &si, sizeof si);
        if (n != (ssize_t)sizeof si)
            continue;
        if (si.ssi_signo == SIGCHLD) {
            pid_t w;
            int st;
            while ((w = waitpid(-1, &st, wait_flags)) > 0) {
                if (w == command && WIFSTOPPED(st)) {
                    if (!channel_send(ctx->channel_fd, CHANNEL_COMMAND_STOPPED, WSTOPSIG(st), -1))
                        continue; /* the supervisor is gone: the hang-up ends us */
                } else if (w == command) {
                    status = st;
                    done = true;
                }
            }
        } else {
            pass_signal(command, &si);
        }
    }
    kill_leftovers();
    if (!channel_send(ctx->channel_fd, CHANNEL_COMMAND_STATUS, status, -1))
        _exit(SBX_EXIT_FAILURE);
    _exit(0);
}
