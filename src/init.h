/* PID 1 inside the sandbox: finishes the setup that must happen inside the
 * new namespaces, forks the command, reaps, forwards signals, and when the
 * command exits kills everything it left behind and reports the command's
 * wait status to the supervisor. */
#ifndef SBX_INIT_H
#define SBX_INIT_H

#include "plan.h"

#include <signal.h>
#include <stdnoreturn.h>

/* The signals sbx forwards to the command (sbx(1) THE SANDBOX: SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGUSR1, SIGUSR2), used by the supervisor and init alike. */
extern const int forwarded_signals[];
extern const int forwarded_signal_count;

/* sigqueue() values of a forwarded signal (supervise.c -> init.c). The
 * command runs in a process group and session of its own, so a signal
 * the caller's terminal sent to its foreground job (Ctrl-C: SI_KERNEL at
 * the supervisor) no longer reaches it from the kernel; init passes it on
 * to the command's whole process group, as the terminal would have. A
 * plain kill() of sbx goes to the command alone, as before. TIMEOUT: the
 * whole group gets it, then SIGCONT, so that a stopped command (or child)
 * sees the SIGTERM now, not at the SIGKILL. The command can queue these
 * to init itself: they reach nothing but its own group. */
#define INIT_SIGNAL_GROUP 0x5b7801
#define INIT_SIGNAL_TIMEOUT 0x5b7802

/* Runs in the child of clone(). Never returns: exits 0 after sending
 * CHANNEL_COMMAND_STATUS, or 125 after a setup failure (already printed). */
noreturn void init_main(struct sandbox_plan *ctx);

/* In init: waits for the supervisor's answer of type `want` (enum
 * channel_type) on the channel; a hang-up means the supervisor failed,
 * said why and exits 125: so does init, silently. */
void init_await_supervisor(int channel_fd, int want, const char *what);

#endif
