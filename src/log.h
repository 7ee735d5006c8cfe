/* sbx's own messages: every line starts with "sbx: " on stderr.
 *
 * die() and die_errno() print one line naming the object that failed and
 * exit 125 (SBX_EXIT_FAILURE, exit.h): sbx(1) EXIT STATUS, "sbx itself failed". */
#ifndef SBX_LOG_H
#define SBX_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdnoreturn.h>

enum log_verbosity { LOG_QUIET = 0, LOG_NORMAL = 1, LOG_VERBOSE = 2 };

extern int log_verbosity;

/* Runs once, before die() exits: the run record uses it to say which setup
 * step failed. Children of the supervisor clear it. */
extern void (*die_hook)(const char *message);

/* Where die() and warn() write: 2, or sbx's own stderr while audit reads
 * the command's through a pipe (capture.h), so that sbx's last words are
 * never left in a pipe nobody empties any more. The processes inside the
 * sandbox set it back to 2 (init.c): their 2 is the pipe, read while they
 * live. */
extern int log_output_fd;
/* What starts every message: "sbx: ", or "sbx[landlock]: " in the
 * Landlock tier (tier.c), so that each line names the tier that ran. */
extern const char *log_prefix;

/* Set where a process must leave with _exit() (forked children that share
 * stdio buffers and atexit handlers with the supervisor). */
extern int log_use_underscore_exit;

/* die() in a worker thread of the supervisor (plan.c) must not exit
 * under the feet of the main thread: with die_trap set for the calling
 * thread, the message is kept there and the thread ends; whoever joins it
 * dies with the message. */
struct die_trap {
    bool tripped;
    char message[2048];
};
extern _Thread_local struct die_trap *die_trap;

noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void die_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void die_with_errno(int errnum, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed with -v only. */
void verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* -v: a setup step and the microseconds since the previous step. */
void verbose_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The first step's time counts from here (main()): `make bench` tells
 * where a run's time goes from these steps (issue 30). */
void verbose_clock_start(void);
/* Printed unless -q. */
void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
