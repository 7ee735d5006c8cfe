/* Interactive runs: the command gets a pseudo-terminal of the sandbox's
 * own (sbx(1) TERMINAL), when `sbx run` is started with a terminal on
 * standard input.
 *
 * Without it the command inherits the caller's terminal: its path
 * (/dev/pts/N of the host's devpts) does not exist inside, so tty(1),
 * ttyname(3) and /dev/tty fail, and the command shares the caller's
 * session, so tcsetpgrp() and TIOCSTI act on the caller's terminal.
 *
 * Inside (terminal.c): init opens the sandbox's /dev/ptmx after the mounts,
 * hands the master to the supervisor over the channel (SCM_RIGHTS), starts
 * a new session whose controlling terminal is the slave, and the command
 * gets the slave on each of its standard descriptors that was a terminal,
 * in a process group of its own that is the foreground one. Outside
 * (terminal_relay.c): the supervisor puts the caller's terminal in raw
 * mode and copies bytes both ways, the window size at start and on
 * SIGWINCH; the sandbox's line discipline turns Ctrl-C and Ctrl-Z into
 * signals for the command. */
#ifndef SBX_TERMINAL_H
#define SBX_TERMINAL_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

/* sbx(1) TERMINAL: a pty when standard input is a terminal. */
bool terminal_wanted(void);

/* --- init, inside the sandbox's namespaces, after the mounts ---------- */

/* Opens a pty on the sandbox's /dev/ptmx, gives its slave the caller's
 * terminal settings and window size, sends the master to the supervisor
 * (CHANNEL_TERMINAL_FD) and makes init the leader of a new session with
 * the slave as its controlling terminal. Returns the slave. Dies on
 * failure. */
int terminal_open_inside(int channel_fd);

/* In init once the command runs: init's own descriptors that were the
 * caller's terminal become the slave too, so nothing inside holds the
 * caller's terminal any more. Closes slave (when above 2). */
void terminal_release_caller(int slave);

/* In the command before exec: its own process group, the terminal's
 * foreground, and the slave on each of 0, 1, 2 that is a terminal. */
void terminal_attach_command(int slave);

/* --- the supervisor --------------------------------------------------- */

struct terminal_relay;

/* Reads the caller's terminal (standard input) and decides where the
 * pty's output goes: standard output when it is a terminal, else standard
 * error when it is one, else standard input's terminal. Blocks SIGWINCH
 * and SIGTSTP (read through a signalfd: a SIGTSTP sent to sbx stops it
 * with the terminal restored). */
struct terminal_relay *terminal_relay_new(void);

/* The master arrived: copy the window size, raw mode, start relaying. */
void terminal_relay_attach(struct terminal_relay *r, int master);

/* The descriptors to poll (at most TERMINAL_RELAY_POLLFDS), and their
 * results. */
#define TERMINAL_RELAY_POLLFDS 3
size_t terminal_relay_pollfds(struct terminal_relay *r, struct pollfd *pfd);
void terminal_relay_dispatch(struct terminal_relay *r, const struct pollfd *pfd, size_t n);

/* The command stopped (Ctrl-Z through the pty): the caller's terminal is
 * restored and sbx stops its own process group with SIGTSTP, as a
 * full-screen program does, so that the caller's shell gets its prompt
 * back; once continued (fg), raw mode again, the window size copied, and
 * the command continued (CHANNEL_CONTINUE_COMMAND to init). */
void terminal_relay_command_stopped(struct terminal_relay *r, int channel_fd);

/* The command is gone: copy what it wrote last, restore the terminal. */
void terminal_relay_finish(struct terminal_relay *r);
void terminal_relay_free(struct terminal_relay *r);

#endif
