/* The command's process: the last steps before execve(), in the order the
 * kernel requires (limits and environment while we still can, capabilities
 * dropped, no_new_privs before the seccomp filter, which needs it). */
#ifndef SBX_COMMAND_H
#define SBX_COMMAND_H

#include "plan.h"

#include <stdbool.h>
#include <stdnoreturn.h>
#include <sys/types.h>

/* Tests only: mark descriptors close-on-exec by walking /proc/self/fd, as
 * on kernels before 5.11, instead of close_range(). */
extern bool command_force_fd_walk;

/* Never returns: execs ctx->argv, or reports CHANNEL_EXEC_FAILED to the
 * supervisor and exits 127 (not found) or 126 (cannot execute). Setup
 * errors exit 125. Runs in a forked child: uses _exit. */
noreturn void command_exec(const struct sandbox_plan *ctx);

/* Starts a process that runs command_exec(ctx) and returns its pid (in
 * the caller's PID namespace), or -1 with errno set. The caller is
 * suspended until the command has execve()d or exited (vfork; see
 * command.c). */
pid_t command_spawn(const struct sandbox_plan *ctx);

#endif
