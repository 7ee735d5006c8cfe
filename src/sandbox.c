#include "config.h"

#include "sandbox.h"

#include "backend.h"
#include "cgroup.h"
#include "channel.h"
#include "mount-placeholders.h"
#include "plan.h"
#include "exit.h"
#include "egress.h"
#include "init.h"
#include "cli.h"
#include "ledger.h"
#include "project.h"
#include "refusals.h"
#include "rlimits.h"
#include "log.h"
#include "report.h"
#include "net.h"
#include "ns.h"
#include "outbound.h"
#include "supervise.h"
#include "terminal.h"
#include "tier.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* With 0, 1 or 2 closed, the socketpair would take its number and the
 * command would write its output into the channel. */
static void ensure_standard_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int null = open("/dev/null", O_RDWR);
        if (null < 0)
            die_errno("opening /dev/null for the closed descriptor %d", fd);
        if (null != fd)
            die("opening /dev/null for the closed descriptor %d gave %d", fd, null);
    }
}

/* The seccomp listener arrives over the channel once the command has
 * installed its filter; from then on the ledger answers its calls. */
struct ledger_hookup {
    const struct profile *profile;
    struct sandbox_result *res;
    const struct backend *backend;
    const void *part;            /* the backend's part of the plan */
    uint64_t (*output_position)(void *);
    void *output_position_data;
    bool caller_argv;            /* ledger_set_record_argv() */
    bool observe;                /* the listener is the write observer's (seccomp_observe.h) */
    const char *home, *project;  /* for its fixes */
};

/* The write observer's first notification waits: the ledger's thread
 * from now on (the loop stops watching). */
static bool start_ledger(void *data, int fd)
{
    (void)fd;
    ledger_start(data, -1);
    return false;
}

static void ledger_attach(struct supervisor *s, int fd)
{
    struct ledger_hookup *h = s->notify_data;
    if (h->res->ledger) {
        /* one command, one filter: a second listener is not ours */
        close(fd);
        return;
    }
    h->res->ledger = ledger_new(h->profile);
    if (h->observe)
        ledger_observe_writes(h->res->ledger, h->home, h->project, getenv("PATH"));
    if (h->backend->ledger)
        h->backend->ledger(h->part, h->res->ledger);
    if (h->output_position)
        ledger_set_output_position(h->res->ledger, h->output_position, h->output_position_data);
    if (h->caller_argv)
        ledger_set_record_argv(h->res->ledger);
    if (h->res->egress) {
        ledger_set_address_namer(h->res->ledger, egress_name_of, h->res->egress);
        ledger_set_address_passes(h->res->ledger, egress_direct_passes, h->res->egress);
        ledger_set_connect_hook(h->res->ledger, egress_before_connect, h->res->egress);
    }
    /* The observer alone: no thread until its first call (a command that
     * writes nothing pays none at start-up); the loop only watches a
     * duplicate of the listener for it, and never reads it. A backend
     * whose checks ride the listener (its `ledger`) needs the thread now. */
    int watch = h->observe && !h->profile->ndeny && !h->backend->ledger ? dup(fd) : -1;
    if (watch >= 0) {
        ledger_defer(h->res->ledger, fd);
        supervise_add_fd(s, watch, start_ledger, h->res->ledger);
        return;
    }
    /* Not one of the loop's fds: answering a notification touches the
     * command's objects, which the command can make wait (ledger.h). */
    ledger_start(h->res->ledger, fd);
}

/* What the network handlers below act on. */
struct network_ready_data {
    struct outbound *outbound;
    const struct profile *profile;
    struct sandbox_result *res;
};

/* The supervisor's side of CHANNEL_NETLINK_FD: lo up through init's socket
 * (init.c says why the supervisor may, and why it does). */
static void bring_up_loopback(struct supervisor *s, int sock)
{
    struct network_ready_data *d = s->network_data;
    loopback_up_through(sock); /* sock stays handle_channel()'s, which closes it */
    d->res->loopback_up = true;
    record_network("lo", "up");
    verbose_step("loopback up (through the sandbox's rtnetlink socket)");
    /* init may have failed meanwhile (a mount rule, a working directory
     * that is not visible inside): it said why, and its exit is what the
     * loop reports. Nobody is left to tell. */
    if (!channel_send(s->channel_fd, CHANNEL_LOOPBACK_UP, 0, -1) && errno != EPIPE &&
        errno != ECONNRESET)
        die_errno("telling the sandbox's init that lo is up");
}

/* The supervisor's side of CHANNEL_NETWORK_READY. */
static void start_outbound(struct supervisor *s)
{
    struct network_ready_data *d = s->network_data;
    if (!d->outbound) /* a backend without pasta: never asked for by its init */
        die("the sandbox's init asked for outbound network, which the %s tier has none of",
            tier_name(d->res->tier));
    outbound_start(d->outbound, d->profile, s->init_pid);
    if (!channel_send(s->channel_fd, CHANNEL_OUTBOUND_READY, 0, -1))
        die_errno("telling the sandbox's init that outbound network is ready");
}

/* The supervisor's side of CHANNEL_EGRESS_FD. */
static void adopt_egress_socket(struct supervisor *s, int kind, int fd)
{
    struct network_ready_data *d = s->network_data;
    egress_adopt(d->res->egress, kind, fd);
}

int sandbox_run(const struct sandbox_request *req, struct sandbox_result *res)
{
    uint64_t started = now_us();
    const struct profile *p = req->profile;
    memset(res, 0, sizeof *res);

    if (!req->argv || !req->argv[0] || !*req->argv[0])
        die("no command to run");
    if (!req->cwd || req->cwd[0] != '/')
        die("the working directory '%s' is not an absolute path", req->cwd ? req->cwd : "");
    ensure_standard_fds();

    /* sbx exists for callers whose descriptor limit is too low, and its own
     * setup holds a descriptor per mount rule: with a soft limit of 16 it
     * failed with EMFILE before the command could get `nofile = max`. sbx
     * raises its own soft limit to the hard one (always allowed); the
     * command gets the caller's back unless the profile sets nofile. */
    struct rlimit caller_nofile;
    if (getrlimit(RLIMIT_NOFILE, &caller_nofile) < 0)
        die_errno("getrlimit(RLIMIT_NOFILE)");
    if (caller_nofile.rlim_cur < caller_nofile.rlim_max) {
        struct rlimit raised = { caller_nofile.rlim_max, caller_nofile.rlim_max };
        if (setrlimit(RLIMIT_NOFILE, &raised) < 0)
            die_errno("raising sbx's own soft RLIMIT_NOFILE to its hard limit");
    }

    int channel[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) < 0)
        die_errno("socketpair for the supervisor's channel");
    struct sandbox_plan plan;
    sandbox_plan_build(&plan, req, caller_nofile, channel[1]);
    struct sandbox_cgroup cgroup;
    plan.await_cgroup = sandbox_cgroup_prepare(&cgroup, p, plan.outer_uid);
    /* sbx(1) TERMINAL: decided here, not asked of init, which would read
     * the same standard input; no terminal, no pty and no cost. */
    plan.terminal = req->terminal ? terminal_wanted() : TERMINAL_NONE;
    plan.terminal_slave = -1;
    plan.report_fd = req->report_fd > 2 ? req->report_fd : -1;
    plan.report_fd_at = req->report_fd_at;
    if (plan.report_fd >= 0 && req->report_fd_at <= 2)
        die("the result channel's descriptor %d cannot be given as %d", req->report_fd, req->report_fd_at);
    /* the filter compiled meanwhile */
    sandbox_plan_finish(&plan);

    /* A caller that ignores SIGCHLD would have init reaped behind our
     * back, and its status lost. */
    struct sigaction default_action = { .sa_handler = SIG_DFL }, caller_chld;
    sigemptyset(&default_action.sa_mask);
    sigaction(SIGCHLD, &default_action, &caller_chld);
    supervise_block_signals(&plan.caller_mask);
    res->timeout_ms = req->timeout_ms ? req->timeout_ms : p->timeout_ms;
    if (req->may_start && !req->may_start(req->may_start_data)) {
        /* Nothing exists yet but the plan, the channel and maybe an empty
         * cgroup. Unblocking delivers what is pending to the caller's
         * handlers, as if the run had never been asked for. */
        sandbox_cgroup_remove(&cgroup);
        close(channel[0]);
        close(channel[1]);
        sigprocmask(SIG_SETMASK, &plan.caller_mask, NULL);
        setrlimit(RLIMIT_NOFILE, &caller_nofile);
        sigaction(SIGCHLD, &caller_chld, NULL);
        sandbox_plan_free(&plan);
        mount_placeholders_remove();
        res->not_started = true;
        res->exit_status = SBX_EXIT_FAILURE;
        res->duration_us = now_us() - started;
        return res->exit_status;
    }

    /* The child continues from here with copies of stdio buffers; it
     * leaves with _exit() and never flushes them, but flush anyway so that
     * nothing written so far is duplicated or delayed. */
    fflush(stdout);
    fflush(stderr);
    record_step("create namespaces (clone)");
    /* the backend the plan was made for (backend.h): the namespaces or
     * exit 125, or the Landlock tier that fallback = landlock chose */
    pid_t init_pid = plan.backend->spawn(&plan, plan.part, res);
    if (init_pid == 0) {
        close(channel[0]);
        init_main(&plan);
    }
    close(channel[1]);
    if (plan.await_cgroup) {
        sandbox_cgroup_enter(&cgroup, init_pid);
        /* init gone already: its exit status tells the loop why */
        if (!channel_send(channel[0], CHANNEL_CGROUP_ENTERED, 0, -1) && errno != EPIPE &&
            errno != ECONNRESET)
            die_errno("telling the sandbox's init that it is in its pids cgroup");
    }

    struct supervisor sup;
    supervise_init(&sup, init_pid, channel[0], res->timeout_ms);
    /* Blocks SIGWINCH: after the caller's mask was saved for the command. */
    sup.terminal = plan.terminal ? terminal_relay_new(plan.terminal) : NULL;
    sup.stop_signals = req->stop_signals;
    sup.stop_at = req->stop_at;
    sup.stop_at_data = req->stop_at_data;
    sup.pid_namespace = plan.pid_namespace;
    struct outbound *outbound = plan.backend->outbound ? plan.backend->outbound(plan.part) : NULL;
    struct network_ready_data network_ready = { outbound, p, res };
    sup.on_network_ready = start_outbound;
    sup.on_netlink_fd = bring_up_loopback;
    res->egress = plan.egress;
    plan.egress = NULL;
    /* the Landlock tier's proxy, on the host's loopback: served from now
     * on, no thread of it running while the tier forked */
    egress_start_host_loopback(res->egress);
    sup.on_egress_fd = adopt_egress_socket;
    sup.network_data = &network_ready;
    struct ledger_hookup hookup = {
        .profile = plan.profile, .res = res,
        .backend = plan.backend, .part = plan.part,
        .output_position = req->output_position, .output_position_data = req->output_position_data,
        .caller_argv = req->caller_argv,
        .observe = plan.seccomp.observe.len > 0 || plan.seccomp.observing, .home = plan.home,
        .project = cli_project() ? cli_project()->root : NULL,
    };
    sup.on_notify_fd = ledger_attach;
    sup.notify_data = &hookup;
    supervise_run(&sup, res);
    /* The command is gone: its last output, then the caller's terminal
     * as it was, before anything else is printed. */
    terminal_relay_free(sup.terminal);
    sup.terminal = NULL;
    /* supervise_run() returns with the command's status, possibly before
     * init has finished exiting: reap it if it is gone already. Otherwise
     * it stays a zombie of ours until we exit, the way bubblewrap leaves
     * its own. */
    if (!sup.init_done)
        waitpid(init_pid, NULL, plan.await_cgroup ? 0 : WNOHANG);
    /* init reaped: in a PID namespace nothing of the sandbox is left, and
     * the cgroup can go (cgroup.c kills what pid = no may have left) */
    sandbox_cgroup_remove(&cgroup);
    supervise_free(&sup);
    res->signals_received = sup.signals_received;
    ledger_stop(res->ledger);
    egress_stop(res->egress);
    if (outbound)
        outbound_stop(outbound);
    close(channel[0]);

    sigprocmask(SIG_SETMASK, &plan.caller_mask, NULL);
    setrlimit(RLIMIT_NOFILE, &caller_nofile);
    sigaction(SIGCHLD, &caller_chld, NULL);
    struct foreign_owner foreign = plan.foreign;
    plan.foreign = (struct foreign_owner){ 0 };
    sandbox_plan_free(&plan);
    /* nothing of the sandbox is left to hold them */
    mount_placeholders_remove();
    res->duration_us = now_us() - started;
    verbose_step("sandbox ended (%s tier): exit status %d", tier_name(res->tier), res->exit_status);
    /* sbx's own summaries go where its log goes: while sbx audit reads
     * the command's output, descriptor 2 is the capture's pipe, and
     * without -v that output is not shown (capture.h) */
    FILE *summary = stderr;
    if (log_output_fd != STDERR_FILENO) {
        int fd = dup(log_output_fd);
        summary = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!summary) {
            if (fd >= 0)
                close(fd);
            summary = stderr;
        }
    }
    /* sbx(1) DENIED OPERATIONS: at exit, the denials and, after exit 0, the false-green line */
    if (log_verbosity >= LOG_NORMAL)
        ledger_print_summary(res->ledger, summary, res->command_ran ? res->exit_status : -1);
    /* sbx(1) REFUSED WRITES: what a read-only mount refused, with the fix */
    if (log_verbosity >= LOG_NORMAL)
        refusals_print_summary(ledger_refusals(res->ledger), summary);
    /* A failure may come from the kernel's DAC check, which no ledger sees:
     * what the plan found is said once, after the command failed. */
    if (res->command_ran && res->exit_status != 0)
        foreign_owner_print_note(&foreign);
    foreign_owner_free(&foreign);
    if (log_verbosity >= LOG_NORMAL)
        egress_print_summary(res->egress, summary);
    if (summary != stderr)
        fclose(summary);
    else
        fflush(stderr);
    return res->exit_status;
}

void sandbox_result_free(struct sandbox_result *res)
{
    ledger_free(res->ledger);
    res->ledger = NULL;
    egress_free(res->egress);
    res->egress = NULL;
}
