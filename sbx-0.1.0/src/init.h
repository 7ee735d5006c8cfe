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

/* Runs in the child of clone(). Never returns: exits 0 after sending
 * CHANNEL_COMMAND_STATUS, or 125 after a setup failure (already printed). */
noreturn void init_main(struct sandbox_plan *ctx);

#endif
