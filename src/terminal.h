/* The caller's terminal never enters the sandbox (sbx(1) TERMINAL): each
 * of the command's descriptors 0, 1, 2 that is a terminal is the slave of
 * a pty of the sandbox's own, and sbx relays.
 *
 * Without it the command would inherit the caller's terminal: it could
 * read what is typed during the run, switch the terminal to raw or
 * no-echo and leave it so, and with it as its controlling terminal
 * tcsetpgrp() and TIOCSTI would act on the caller's shell.
 *
 * Inside (terminal.c): init opens the sandbox's /dev/ptmx after the mounts,
 * hands the master to the supervisor over the channel (SCM_RIGHTS), makes
 * the slave the controlling terminal of its session (init.c), and the
 * command gets the slave on each of its standard descriptors that was a
 * terminal, in a process group of its own that is the foreground one.
 * Outside (terminal_relay.c): the supervisor copies the output through
 * the filter of terminal_filter.h, and the input as the mode says:
 *
 *   fd 0 1 2   example                  mode         the caller's terminal
 *      T T T   sbx run -- bash          INTERACTIVE  raw, keys relayed
 *      T T -   sbx run -- vi 2>log      INTERACTIVE  raw, keys relayed
 *      T - T   sbx run -- seq 4 | cat   LINES        untouched, lines relayed
 *      T - -   sbx run -- cmd >o 2>&1   LINES        untouched, lines relayed
 *      - T T   sbx run -- cat <file     OUTPUT       untouched, never read
 *      - T -   ... 2>log                OUTPUT       untouched, never read
 *      - - T   ... | cat                OUTPUT       untouched, never read
 *      - - -   CI, agents               NONE         no pty at all
 *
 * INTERACTIVE: raw mode is what a command that reads the terminal and
 * writes its screen there needs (the sandbox's line discipline turns
 * Ctrl-C and Ctrl-Z into signals for it). LINES: another process of the
 * pipeline writes to the terminal (cat: in raw mode it would print a
 * staircase) or takes it over (less: sbx's raw mode and its own would
 * undo each other, and sbx would read its keys): the terminal keeps its
 * own line editing and echo, the pty's echo is off, and sbx reads a line
 * only while the terminal is in canonical mode and sbx's job is its
 * foreground, i.e. not while less has it. OUTPUT: the command's input is
 * not the terminal, so nothing typed during the run is read; its output
 * reaches the terminal through the pty, whose settings are its own. */
#ifndef SBX_TERMINAL_H
#define SBX_TERMINAL_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum terminal_mode { TERMINAL_NONE, TERMINAL_INTERACTIVE, TERMINAL_LINES, TERMINAL_OUTPUT };

/* The table above, for descriptors 0, 1, 2 being terminals or not. */
enum terminal_mode terminal_mode_for(bool in, bool out, bool err);
/* ... of sbx's own descriptors. */
enum terminal_mode terminal_wanted(void);

/* --- init, inside the sandbox's namespaces, after the mounts ---------- */

/* Opens a pty on the sandbox's /dev/ptmx, gives its slave the caller's
 * terminal settings and window size, sends the master to the supervisor
 * (CHANNEL_TERMINAL_FD) and makes init the leader of a new session with
 * the slave as its controlling terminal. Returns the slave. Dies on
 * failure. */
int terminal_open_inside(int channel_fd, enum terminal_mode mode);

/* In init once the command runs: init's own descriptors that were the
 * caller's terminal become the slave too, so nothing inside holds the
 * caller's terminal any more. Closes slave (when above 2). */
void terminal_release_caller(int slave);

/* In the command before exec, in its own process group (command.c): the
 * terminal's foreground, and the slave on each of 0, 1, 2 that is a terminal. */
void terminal_attach_command(int slave);

/* --- the supervisor --------------------------------------------------- */

/* Stops sbx (target getpid()) or its process group (0) with SIGTSTP,
 * which sbx keeps blocked; returns once continued. False, at once, when
 * SIGTSTP is ignored; discarded by the kernel in an orphaned group, as
 * the terminal's would be. */
bool terminal_job_stop(pid_t target);

struct terminal_relay;

/* Decides where the pty's output goes: standard output when it is a
 * terminal, else standard error when it is one, else standard input's
 * terminal. Blocks SIGWINCH (read through a signalfd). */
struct terminal_relay *terminal_relay_new(enum terminal_mode mode);

/* The master arrived: copy the window size, raw mode (INTERACTIVE),
 * start relaying. */
void terminal_relay_attach(struct terminal_relay *r, int master);

/* The descriptors to poll (at most TERMINAL_RELAY_POLLFDS), and their
 * results. */
#define TERMINAL_RELAY_POLLFDS 3
size_t terminal_relay_pollfds(struct terminal_relay *r, struct pollfd *pfd);
void terminal_relay_dispatch(struct terminal_relay *r, const struct pollfd *pfd, size_t n);

/* SIGTSTP for sbx: true when the relay handled it (INTERACTIVE: sbx
 * alone stops, with the terminal restored meanwhile); false: the
 * supervisor stops the command's group and sbx (supervise.c). */
bool terminal_relay_stop_self(struct terminal_relay *r);

/* How long the supervisor may sleep for the relay, -1: forever. LINES
 * polls the terminal's mode while another process has taken it over. */
int terminal_relay_timeout(const struct terminal_relay *r);

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
