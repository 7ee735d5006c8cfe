/* sandbox_run() called directly, as `sbx audit` does: the result fields
 * that the exit status alone cannot show (command_ran, term_signal,
 * wait_status, timed_out, what was set up), and two runs in one process. */
#include "config.h"

#include "../tap.h"

#include "command.h"
#include "seccomp.h"
#include "log.h"
#include "profile.h"
#include "sandbox.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv with its stdout in a file; returns what it printed. */
static char *run_capture(const struct profile *p, char **argv, int *status)
{
    char path[] = "/tmp/sbx-sandbox-test.XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    struct sandbox_request req = { .profile = p, .argv = argv, .cwd = "/" };
    struct sandbox_result res;
    *status = sandbox_run(&req, &res);
    sandbox_result_free(&res);
    dup2(saved, 1);
    close(saved);
    char *buf = xcalloc(1, 4096);
    ssize_t n = pread(fd, buf, 4095, 0);
    if (n > 0 && buf[n - 1] == '\n')
        buf[n - 1] = '\0';
    close(fd);
    return buf;
}

static struct sandbox_result run(const struct profile *p, const char *cwd, char **argv)
{
    struct sandbox_request req = { .profile = p, .argv = argv, .cwd = cwd };
    struct sandbox_result res;
    sandbox_run(&req, &res);
    return res;
}

/* The one sendmsg() the filter lets through is told apart by the address
 * of its message: it must not be findable by a command searching its own
 * address space (seccomp.c). Not on the heap (brk: 13 bits of
 * randomisation), and a new one for each filter. */
static void handoff_address_secret(const struct profile *base)
{
    struct profile p = *base;
    struct deny_rule rule = { .syscall = "connect", .nr = -1, .errnum = EPERM, .text = "connect EPERM" };
    p.deny = &rule;
    p.ndeny = 1;
    p.io_uring = false;
    uintptr_t addr[8];
    bool distinct = true, off_heap = true;
    char *heap_probe = malloc(16);
    for (int i = 0; i < 8; i++) {
        struct seccomp_program prog;
        seccomp_compile(&p, false, 5, "L", 1, &prog);
        addr[i] = (uintptr_t)seccomp_program_handoff(&prog);
        uintptr_t heap = (uintptr_t)heap_probe;
        if (!addr[i] || (addr[i] > heap ? addr[i] - heap : heap - addr[i]) < (UINT64_C(1) << 32))
            off_heap = false;
        for (int j = 0; j < i; j++)
            if (addr[j] == addr[i])
                distinct = false;
        seccomp_program_free(&prog);
    }
    free(heap_probe);
    ok(off_heap, "the handoff message is far from the heap (%#lx)", (unsigned long)addr[0]);
    ok(distinct, "and at a new random address for each filter");
}

/* die() in a thread with a die_trap (log.h) keeps the message and ends
 * the thread only: the process lives on for the joiner to decide. */
static void *dying_thread(void *arg)
{
    die_trap = arg;
    errno = EACCES;
    die_errno("compiling %d rules", 3);
}

static void trapped_die(void)
{
    struct die_trap trap = { 0 };
    pthread_t t;
    ok(pthread_create(&t, NULL, dying_thread, &trap) == 0 && pthread_join(t, NULL) == 0,
       "a thread that died through its trap is joined (the process lives)");
    ok(trap.tripped, "the trap says it tripped");
    is_str(trap.message, "compiling 3 rules: Permission denied", "and holds the message, errno included");
}

/* A deny rule the filter cannot express is sbx's exit 125 with its
 * message, once, before any namespace exists. */
static void refused_before_clone(const struct profile *base)
{
    struct profile p = *base;
    struct deny_rule bad = { .syscall = "connect", .nr = -1, .errnum = 0, .text = "connect EBAD" };
    p.deny = &bad;
    p.ndeny = 1;
    int pipefd[2];
    if (pipe(pipefd) < 0)
        bail_out("pipe");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        log_verbosity = LOG_VERBOSE;
        char *t[] = { "true", NULL };
        struct sandbox_request req = { .profile = &p, .argv = t, .cwd = "/" };
        struct sandbox_result res;
        sandbox_run(&req, &res);
        _exit(0); /* not reached when the refusal holds */
    }
    close(pipefd[1]);
    char buf[8192] = "";
    size_t len = 0;
    ssize_t n;
    while (len < sizeof buf - 1 && (n = read(pipefd[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = '\0';
    close(pipefd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    ok(WIFEXITED(st) && WEXITSTATUS(st) == 125, "a bad deny rule: exit 125 (status 0x%x)", st);
    const char *msg = "sbx: seccomp: deny = connect EBAD: errno 0 is not an error number";
    const char *first = strstr(buf, msg);
    ok(first && !strstr(first + 1, msg), "the filter thread's message, printed once");
    ok(!strstr(buf, "namespaces created"), "before any namespace was created");
}

int main(void)
{
    plan(33);
    /* sbx's own messages (exec failures) would clutter the TAP stream. */
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);

    struct profile p;
    profile_init_defaults(&p);
    p.name = xstrdup("unit");

    char *t[] = { "true", NULL };
    struct sandbox_result r = run(&p, "/", t);
    is_int(r.exit_status, 0, "true: 0");
    ok(r.command_ran, "true: command_ran");
    is_int(r.term_signal, 0, "true: no signal");
    ok(!r.timed_out, "true: not timed out");
    ok(r.duration_us > 0, "duration is measured");
    ok(r.ns_created[NS_USER] && r.ns_created[NS_NET] && r.ns_created[NS_PID],
       "user, net and pid namespaces were created");
    is_int(r.uid_outside, geteuid(), "uid outside is ours");
    is_int(r.uid_inside, geteuid(), "uid = current inside");
    ok(r.loopback_up, "loopback was brought up");
    sandbox_result_free(&r);

    char *segv[] = { "sh", "-c", "kill -SEGV $$", NULL };
    r = run(&p, "/", segv);
    is_int(r.exit_status, 139, "SIGSEGV: 139");
    is_int(r.term_signal, SIGSEGV, "term_signal is SIGSEGV");
    ok(WIFSIGNALED(r.wait_status) && WTERMSIG(r.wait_status) == SIGSEGV, "the raw wait status");
    ok(r.command_ran, "a command killed by a signal ran");
    sandbox_result_free(&r);

    char *missing[] = { "/nonexistent/command", NULL };
    r = run(&p, "/", missing);
    is_int(r.exit_status, 127, "not found: 127");
    ok(!r.command_ran, "not found: command_ran is false");
    sandbox_result_free(&r);

    r = run(&p, "/nonexistent-directory-for-sbx", t);
    is_int(r.exit_status, 125, "a working directory that does not exist: 125");
    ok(!r.command_ran, "setup failure: command_ran is false");
    sandbox_result_free(&r);

    p.timeout_ms = 300;
    char *slow[] = { "sleep", "30", NULL };
    r = run(&p, "/", slow);
    is_int(r.exit_status, 124, "timeout: 124");
    ok(r.timed_out, "timed_out is set");
    is_int(r.term_signal, SIGTERM, "the command died of the timeout's SIGTERM");
    sandbox_result_free(&r);
    p.timeout_ms = 0;

    p.net_mode = NET_HOST;
    r = run(&p, "/", t);
    ok(!r.ns_created[NS_NET], "mode = host: no network namespace");
    ok(!r.loopback_up, "mode = host: lo untouched");
    sandbox_result_free(&r);

    /* Only 0, 1, 2 reach the command, on either path: close_range() and
     * the /proc/self/fd walk of kernels before 5.11. Descriptors 9 and a
     * high one are open here, without close-on-exec. */
    p.net_mode = NET_LOOPBACK;
    int high = fcntl(0, F_DUPFD, 3000);
    dup2(0, 9);
    char *fds[] = { "sh", "-c", "ls /proc/self/fd | sort -n | tr '\\n' ' '", NULL };
    int st;
    char *out = run_capture(&p, fds, &st);
    is_str(out, "0 1 2 3 ", "close_range: only 0 1 2 (3 is ls's own directory)");
    free(out);
    command_force_fd_walk = true;
    out = run_capture(&p, fds, &st);
    is_str(out, "0 1 2 3 ", "/proc/self/fd walk: only 0 1 2 (3 is ls's own directory)");
    free(out);
    command_force_fd_walk = false;
    ok(high >= 3000, "a descriptor above 3000 was open (%d)", high);
    close(9);
    close(high);

    refused_before_clone(&p);
    trapped_die();
    handoff_address_secret(&p);

    profile_free(&p);
    return done_testing();
}
