/* The socket between the processes inside the sandbox and the supervisor.
 *
 * A SOCK_SEQPACKET socketpair created before clone(): message boundaries
 * are kept, SCM_RIGHTS carries the seccomp notification fd and the pty's
 * master out of the sandbox, and when the supervisor dies (even by SIGKILL) init sees
 * POLLHUP on its end, which backs up PR_SET_PDEATHSIG. */
#ifndef SBX_CHANNEL_H
#define SBX_CHANNEL_H

#include <stdbool.h>
#include <stdint.h>

enum channel_msg_type {
    /* command -> supervisor: execve() failed; value = errno */
    CHANNEL_EXEC_FAILED = 1,
    /* init -> supervisor: the command ended; value = its wait status */
    CHANNEL_COMMAND_STATUS,
    /* command -> supervisor: a seccomp user-notification fd rides along */
    CHANNEL_NOTIFY_FD,
    /* command -> supervisor: a setup step before exec failed (it said
     * which, and exits 125): the command itself never ran */
    CHANNEL_SETUP_FAILED,
    /* init -> supervisor: the id maps are written and lo is up; outbound
     * network (pasta) may attach now. init waits for the answer. */
    CHANNEL_NETWORK_READY,
    /* supervisor -> init: pasta has configured the namespace; start the
     * command. (A failure is a hang-up: the supervisor died with 125.) */
    CHANNEL_OUTBOUND_READY,
    /* init -> supervisor: a NETLINK_ROUTE socket of the sandbox's network
     * namespace rides along; the supervisor brings lo up through it */
    CHANNEL_NETLINK_FD,
    /* supervisor -> init: lo is up. (A failure is a hang-up, as above.) */
    CHANNEL_LOOPBACK_UP,
    /* supervisor -> init: init is in the sandbox's pids cgroup (cgroup.h);
     * init forks nothing before. The supervisor's first message when
     * sent. (A failure is a hang-up.) */
    CHANNEL_CGROUP_ENTERED,
    /* init -> supervisor: the master of the command's pty (terminal.h)
     * rides along, before the command starts */
    CHANNEL_TERMINAL_FD,
    /* init -> supervisor: the command, on the pty, stopped; value = the
     * signal (Ctrl-Z's SIGTSTP) */
    CHANNEL_COMMAND_STOPPED,
    /* supervisor -> init: sbx was continued; continue the command */
    CHANNEL_CONTINUE_COMMAND,
    /* init -> supervisor: a socket of [network] allow's proxy, bound on
     * the sandbox's loopback, rides along; value = enum egress_socket */
    CHANNEL_EGRESS_FD,
    /* supervisor -> init: the grace after SIGTERM is over and there is no
     * PID namespace whose end would take everything with init (the
     * Landlock tier, pid = no): kill what runs inside, report SIGKILL */
    CHANNEL_KILL_SANDBOX,
};

struct channel_msg {
    int32_t type;
    int32_t value;
};

/* Sends one message, with pass_fd attached when >= 0. */
bool channel_send(int sock, int type, int value, int pass_fd);

/* Receives one message without blocking when nonblock is set. Returns 1
 * with *msg filled (and *fd_out the received fd or -1), 0 at end of file or
 * when nothing is queued (nonblock), -1 with errno on error. */
int channel_recv(int sock, struct channel_msg *msg, int *fd_out, bool nonblock);

#endif
