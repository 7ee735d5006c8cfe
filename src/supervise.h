/* The supervisor: the sbx process outside the sandbox. It forwards
 * signals to the command (through init), enforces the timeout, watches
 * descriptors that the sandbox hands out (the seccomp notification fd),
 * waits for init and turns the outcome into its exit status (sbx(1) EXIT STATUS). */
#ifndef SBX_SUPERVISE_H
#define SBX_SUPERVISE_H

#include "sandbox.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* sbx-profile(5) [limits] timeout: SIGTERM at the timeout, SIGKILL this long after. */
#define SUPERVISE_GRACE_MS 5000
/* How often sandbox_request.stop_at is asked, at most this long apart. */
#define SUPERVISE_STOP_AT_POLL_MS 250

struct supervisor;
/* Returns false when the fd is done for good (it is then closed and no
 * longer watched), as ledger_handle() does when every filtered process
 * has exited. */
typedef bool (*supervise_fd_handler)(void *data, int fd);

struct watched_fd {
    int fd;
    supervise_fd_handler on_ready; /* called on POLLIN */
    void *data;
};

struct supervisor {
    pid_t init_pid;          /* -1: no sandbox (unit tests of the fd plumbing) */
    int channel_fd;
    int signal_fd;
    uint64_t timeout_ms;     /* 0: none */
    /* init is PID 1 of a namespace of the sandbox's own: its SIGKILL
     * ends everything inside. Else init is asked (CHANNEL_KILL_SANDBOX). */
    bool pid_namespace;
    struct watched_fd *watched;
    size_t nwatched, capwatched;
    /* Called with each fd received with CHANNEL_NOTIFY_FD; NULL: the fd
     * is watched with no handler, i.e. closed. */
    void (*on_notify_fd)(struct supervisor *s, int fd);
    void *notify_data;
    /* Called when init says its network namespace is ready
     * (CHANNEL_NETWORK_READY); must answer CHANNEL_OUTBOUND_READY on
     * channel_fd or die. NULL: init never asks. */
    void (*on_network_ready)(struct supervisor *s);
    void *network_data;
    /* Called with the rtnetlink socket of CHANNEL_NETLINK_FD (closed after
     * the call); must answer CHANNEL_LOOPBACK_UP on channel_fd or die. */
    void (*on_netlink_fd)(struct supervisor *s, int fd);
    /* Called with each socket of CHANNEL_EGRESS_FD, which it owns from
     * then on; kind = enum egress_socket. NULL: closed. */
    void (*on_egress_fd)(struct supervisor *s, int kind, int fd);

    bool exec_failed;
    int exec_errno;
    bool command_setup_failed;
    bool have_status;
    int command_status;      /* wait status sent by init */
    bool timed_out;
    /* Bit N: sbx received signal N (forwarded or, from the terminal, not)
     * while the sandbox ran, until supervise_free(). `sbx run` ends with
     * the command's status whatever it got; `sbx audit` stops on it. */
    uint64_t signals_received;
    /* Bits as signals_received (sbx audit: SIGINT, SIGTERM, SIGHUP): after
     * one of them, which the command got as any other, the sandbox is
     * killed SUPERVISE_GRACE_MS later. 0: never (sbx run). */
    uint64_t stop_signals;
    /* sandbox_request.stop_at, with the ledger's count of denials */
    uint64_t (*stop_at)(void *data, uint64_t denied);
    void *stop_at_data;
    bool init_done;
    int init_status;         /* init's own wait status */
    /* NULL, or the relay between the caller's terminal and the command's
     * pty (terminal.h), whose master arrives with CHANNEL_TERMINAL_FD. */
    struct terminal_relay *terminal;
};

/* Blocks SIGCHLD and the forwarded signals, saving the old mask. Called
 * before clone() so that init inherits the mask and no signal sent in
 * between is lost. */
void supervise_block_signals(sigset_t *old_mask);

/* Sets up s for init_pid. Opens the signalfd. */
void supervise_init(struct supervisor *s, pid_t init_pid, int channel_fd, uint64_t timeout_ms);

/* Watches fd (owned from now on, closed by supervise_free) and calls
 * on_ready(data, fd) whenever it is readable, until it hangs up or the
 * handler returns false. */
void supervise_add_fd(struct supervisor *s, int fd, supervise_fd_handler on_ready, void *data);

/* Polls the watched fds once, waiting at most timeout_ms (-1: forever),
 * and dispatches. Returns the number of fds that were ready. For the run
 * loop and for unit tests of the plumbing. */
int supervise_poll_watched(struct supervisor *s, int timeout_ms);

/* The loop: until init has exited. Fills res (exit_status per sbx(1) EXIT STATUS). */
void supervise_run(struct supervisor *s, struct sandbox_result *res);

/* Closes what s owns. */
void supervise_free(struct supervisor *s);

/* sbx(1) EXIT STATUS's mapping of a wait status: the code, or 128+N for signal N. */
int exit_status_from_wait(int wait_status);

#endif
