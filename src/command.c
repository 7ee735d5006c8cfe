#include "config.h"

#include "command.h"

#include "caps.h"
#include "channel.h"
#include "exit.h"
#include "init.h"
#include "backend.h"
#include "rlimits.h"
#include "log.h"
#include "report.h"
#include "seccomp.h"
#include "terminal.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <unistd.h>

extern char **environ;

bool command_force_fd_walk;

/* Walks the open descriptors above 2 (a loop up to RLIMIT_NOFILE would
 * take a million calls under nofile = max): closes them but keep_a and
 * keep_b, or marks them all close-on-exec. For kernels without
 * close_range() (before 5.9) or its CLOSE_RANGE_CLOEXEC (before 5.11). */
static void walk_open_fds(int keep_a, int keep_b, int keep_c, bool close_them)
{
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        die_errno("listing /proc/self/fd to close inherited descriptors");
    int self = dirfd(dir);
    struct dirent *e;
    while ((e = readdir(dir))) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end || end == e->d_name || fd < 3 || fd == self)
            continue;
        if (close_them) {
            if (fd != keep_a && fd != keep_b && fd != keep_c)
                close((int)fd);
            continue;
        }
        int flags = fcntl((int)fd, F_GETFD);
        if (flags >= 0 && fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC) < 0)
            die_errno("marking descriptor %ld close-on-exec", fd);
    }
    closedir(dir);
}

/* Marks every descriptor above 2 close-on-exec, so that only 0, 1 and 2
 * reach the command whatever the caller leaked to us, while the channel
 * stays usable until execve() succeeds. */
static void close_extra_fds_on_exec(void)
{
    if (!command_force_fd_walk) {
        if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
            return;
        if (errno != ENOSYS && errno != EINVAL)
            die_errno("close_range(3, ~0, CLOSE_RANGE_CLOEXEC)");
    }
    walk_open_fds(-1, -1, -1, false);
}

/* Closes every descriptor above 2 but the channel, the command's pty and
 * the audit's result channel (sandbox_request.report_fd),
 * before the profile's nofile applies: what init and the supervisor left
 * open (an audit's earlier runs, the mount plan's descriptors) would
 * otherwise fill the low numbers, and the seccomp listener or the
 * Landlock ruleset created after the limit would get EMFILE (a profile
 * with nofile = 32 could not start): the kernel allots the lowest free
 * number, and RLIMIT_NOFILE bounds the number, not the count. */
static void close_unneeded_fds(int keep_a, int keep_b, int keep_c)
{
    int keep[3] = { keep_a, keep_b, keep_c };
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (keep[j] < keep[i]) {
                int t = keep[i];
                keep[i] = keep[j];
                keep[j] = t;
            }
    unsigned from = 3;
    bool ranged = !command_force_fd_walk;
    for (int k = 0; k < 3 && ranged; k++) {
        if (keep[k] < (int)from)
            continue;
        if ((unsigned)keep[k] > from && close_range(from, (unsigned)keep[k] - 1, 0) < 0)
            ranged = false;
        from = (unsigned)keep[k] + 1;
    }
    if (ranged && close_range(from, ~0U, 0) == 0)
        return;
    walk_open_fds(keep_a, keep_b, keep_c, true);
}

/* execvp() reports EACCES when a PATH directory could not be searched,
 * even if the command exists nowhere: that is "not found" (127), not
 * "found but not executable" (126), as shells have it. */
static char *find_in_path(const char *name)
{
    const char *path = getenv("PATH");
    return path_search(path ? path : "/bin:/usr/bin", name, PATH_SEARCH_EXISTING);
}

static bool found_in_path(const char *name)
{
    char *found = find_in_path(name);
    free(found);
    return found != NULL;
}

/* For a script, execve() reports a missing #! interpreter as ENOENT of
 * the script itself (binfmt_script), which reads as "your file is not
 * there". The interpreter named by the #! line of the file at path, as
 * the kernel takes it (up to the first blank), or NULL. */
static char *script_interpreter(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    char line[256];   /* the kernel reads no more: BINPRM_BUF_SIZE */
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n < 3 || line[0] != '#' || line[1] != '!')
        return NULL;
    line[n] = '\0';
    char *start = line + 2;
    start += strspn(start, " \t");
    size_t len = strcspn(start, " \t\n");
    return len ? xasprintf("%.*s", (int)len, start) : NULL;
}

static int setup_channel_fd = -1;

/* die() in the command's process: tell the supervisor that the exit
 * status 125 it will see is sbx's, not the command's. */
static void report_setup_failure(const char *message)
{
    report_child_die_hook(message);
    channel_send(setup_channel_fd, CHANNEL_SETUP_FAILED, 0, -1);
}

noreturn void command_exec(const struct sandbox_plan *ctx)
{
    log_use_underscore_exit = 1;
    setup_channel_fd = ctx->channel_fd;
    die_hook = report_setup_failure;
    record_step("command: working directory, limits, privileges, seccomp, exec");

    /* Without a PID namespace nothing tears the command down with init. */
    if (!ctx->pid_namespace && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
        die_errno("prctl(PR_SET_PDEATHSIG)");
    /* A process group of its own in init's session (init.c says why). */
    if (setpgid(0, 0) < 0)
        die_errno("setpgid for the command");
    if (ctx->terminal_slave >= 0)
        terminal_attach_command(ctx->terminal_slave);

    if (chdir(ctx->cwd) < 0)
        die_errno("cannot change to the working directory '%s' inside the sandbox", ctx->cwd);

    /* The caller's soft limit, which sbx raised for its own setup
     * (sandbox.c); a profile's nofile then applies on top of it. */
    if (setrlimit(RLIMIT_NOFILE, &ctx->caller_nofile) < 0)
        die_errno("restoring the caller's RLIMIT_NOFILE %llu/%llu",
                  (unsigned long long)ctx->caller_nofile.rlim_cur,
                  (unsigned long long)ctx->caller_nofile.rlim_max);
    /* `sbx audit`'s result channel goes to its agreed number before the
     * profile's nofile applies (a lower limit would refuse the dup2; a
     * descriptor above it stays usable), and stays the one descriptor
     * above 2 that execve() passes on */
    int report = ctx->report_fd;
    if (report >= 0 && report != ctx->report_fd_at) {
        if (ctx->report_fd_at == ctx->channel_fd || ctx->report_fd_at == ctx->terminal_slave)
            die("the result channel's number %d is taken in the command", ctx->report_fd_at);
        if (dup2(report, ctx->report_fd_at) < 0)
            die_errno("giving the result channel to the command as descriptor %d", ctx->report_fd_at);
        close(report);
        report = ctx->report_fd_at;
    }
    close_unneeded_fds(ctx->channel_fd, ctx->terminal_slave, report);
    struct limits_applied applied;
    limits_apply(&ctx->limits, &applied);
    record_limits(&applied);
    close_extra_fds_on_exec();
    if (report >= 0 && fcntl(report, F_SETFD, 0) < 0)
        die_errno("passing the result channel (descriptor %d) to the command", report);
    /* the backend's (backend.h): the namespaces drop the privileges the
     * profile does not keep, the Landlock tier restricts the process */
    ctx->backend->apply(ctx, ctx->part);

    /* execve() resets caught signals to their default action, but a
     * signal that comes between unblocking and execve() would still run a
     * handler of sbx's (`sbx audit` catches SIGINT, SIGTERM and SIGHUP)
     * and never reach the command. Reset them first, as posix_spawn()
     * does; ignored ones stay ignored, as execve() keeps them. */
    for (int i = 0; i < forwarded_signal_count; i++) {
        struct sigaction sa;
        if (sigaction(forwarded_signals[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN &&
            sa.sa_handler != SIG_DFL)
            signal(forwarded_signals[i], SIG_DFL);
    }
    if (sigprocmask(SIG_SETMASK, &ctx->caller_mask, NULL) < 0)
        die_errno("sigprocmask");
    /* The filter the supervisor compiled goes in last, after no_new_privs
     * (the kernel requires it without CAP_SYS_ADMIN). With deny rules its
     * notification listener rides to the supervisor on the channel;
     * seccomp_program_install() sends and closes it, so the command never
     * holds it. */
    seccomp_program_install(&ctx->seccomp, ctx->channel_fd);

    environ = ctx->env.v;
    /* execvp() searches the PATH of the environment just set: argv[0] is
     * looked up inside, as the command would see it. */
    execvp(ctx->argv[0], ctx->argv);

    int e = errno;
    bool bare = !strchr(ctx->argv[0], '/');
    if (e == EACCES && bare && !found_in_path(ctx->argv[0]))
        e = ENOENT;
    int status = e == ENOENT ? SBX_EXIT_NOT_FOUND : SBX_EXIT_CANNOT_EXECUTE;
    char *script = e == ENOENT ? (bare ? find_in_path(ctx->argv[0]) : xstrdup(ctx->argv[0]))
                               : NULL;
    char *interpreter = script ? script_interpreter(script) : NULL;
    if (interpreter) {
        /* Still 127, as bash, dash and env(1) answer it: what is missing
         * is the interpreter, and scripts test for 127. */
        warn("cannot execute '%s': its interpreter '%s' (the #! line of %s) %s", ctx->argv[0],
             interpreter, script,
             access(interpreter, F_OK) == 0
                 ? "cannot be started inside the sandbox (its own interpreter or loader is "
                   "missing there)"
                 : "does not exist inside the sandbox");
    } else if (e == ENOENT && bare)
        warn("%s: command not found in PATH inside the sandbox", ctx->argv[0]);
    else
        warn("cannot execute '%s': %s", ctx->argv[0], strerror(e));
    /* vfork(): this memory is init's */
    free(interpreter);
    free(script);
    channel_send(ctx->channel_fd, CHANNEL_EXEC_FAILED, e, -1);
    _exit(status);
}

/* The command is started with vfork(), as posix_spawn() does (with
 * clone(CLONE_VM | CLONE_VFORK), the same thing): fork() copied init's
 * page tables and then took a copy-on-write fault on every page the child
 * wrote before execve() threw them away. Measured: 0.2 ms of the 3.6 ms
 * that `sbx run -- /bin/true` takes (docs/performance.md).
 *
 * Sharing memory is safe only because vfork() suspends init until the
 * child has called execve() or _exit(): nothing runs concurrently, so
 * malloc's state and every global stay consistent, and the child never
 * returns into this frame (command_exec() does not return). What the
 * child writes stays written in init's memory afterwards, so the globals
 * command_exec() changes for itself (environ, die_hook) are put back here.
 * Descriptors, working directory, limits, signal dispositions,
 * credentials and seccomp state are the child's own. vfork() rather than
 * clone() onto a stack of our own: AddressSanitizer follows vfork(), and
 * takes a switched stack for stack corruption. */
pid_t command_spawn(const struct sandbox_plan *ctx)
{
    char **saved_environ = environ;
    void (*saved_die_hook)(const char *) = die_hook;
    pid_t pid = vfork();
    if (pid == 0)
        command_exec(ctx);
    int e = errno;
    environ = saved_environ;
    die_hook = saved_die_hook;
    errno = e;
    return pid;
}
