#include "config.h"

#include "outbound.h"

#include "log.h"
#include "report.h"
#include "resolv.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PASTA_PACKAGE "passt"
/* pasta configures a namespace in milliseconds; a pasta that has not
 * written its pid file after this long is stuck, not slow. */
#define PASTA_READY_TIMEOUT_MS 10000

/* pasta from PATH, never from the working directory (util.h). */
static char *find_in_path(const char *name)
{
    const char *path = getenv("PATH");
    return path_search(path && *path ? path : "/usr/local/bin:/usr/bin:/bin", name,
                       PATH_SEARCH_EXECUTABLE);
}

/* pasta reads the host's /etc/resolv.conf itself when it starts, in the
 * same mount namespace as sbx: both read the same file. */
static void prepare_dns(struct outbound *ob)
{
    static const char host_file[] = "/etc/resolv.conf";
    size_t len = 0;
    char *host = read_file_text(host_file, RESOLV_HOST_MAX, &len);
    if (!host && errno != ENOENT)
        die_errno("outbound network: reading the host's %s to make the sandbox's (DNS "
                  "through pasta)%s",
                  host_file, errno == EFBIG ? ": larger than 1 MiB, not a resolv.conf" : "");
    char *text = resolv_conf_generate(host ? host : "", len, RESOLV_FORWARD_ADDRESS,
                                      ob->dns_upstream, sizeof ob->dns_upstream);
    free(host);
    if (!ob->dns_upstream[0]) {
        free(text);
        warn("warning: outbound network: the host's %s %s: DNS inside the sandbox is not "
             "forwarded and resolves only what that file leads to",
             host_file, len ? "names no IPv4 nameserver" : "is missing or empty");
        return;
    }
    ob->resolv_conf = text;
}

void outbound_prepare(struct outbound *ob, const struct profile *p, int clone_flags)
{
    memset(ob, 0, sizeof *ob);
    ob->log_fd = -1;
    ob->wanted = p->outbound && (clone_flags & CLONE_NEWNET);
    if (!ob->wanted)
        return;
    ob->pasta_path = find_in_path("pasta");
    if (!ob->pasta_path)
        die("outbound = yes needs pasta, which is not in PATH (%s): install Debian's %s "
            "package (apt-get install %s), or set outbound = no; sbx never falls back to "
            "the host's network",
            getenv("PATH") ? getenv("PATH") : "unset", PASTA_PACKAGE, PASTA_PACKAGE);
    /* pasta opens the host's /dev/net/tun to create its tap device inside.
     * Debian's udev rules make it 0666 (creating a device still needs
     * CAP_NET_ADMIN in the namespace); systems without udev, containers
     * among them, leave it 0600 and pasta fails with a terse message. */
    if (faccessat(AT_FDCWD, "/dev/net/tun", R_OK | W_OK, AT_EACCESS) < 0) {
        int e = errno;
        die_with_errno(e,
                       "outbound = yes: pasta (package %s) needs /dev/net/tun, which uid %u "
                       "cannot open for reading and writing%s; sbx never falls back to the "
                       "host's network",
                       PASTA_PACKAGE, (unsigned)geteuid(),
                       e == ENOENT ? " (load the tun module: modprobe tun)"
                                   : " (as root: chmod 0666 /dev/net/tun, the mode Debian's "
                                     "udev rules give it)");
    }
    prepare_dns(ob);
}

/* "none", or the ports joined by commas ("5432,6379"). */
static char *port_list(const struct profile *p)
{
    if (!p->nforward)
        return xstrdup("none");
    size_t cap = p->nforward * 6 + 1, used = 0;
    char *s = xmalloc(cap);
    s[0] = '\0';
    for (size_t i = 0; i < p->nforward; i++)
        used += (size_t)snprintf(s + used, cap - used, "%s%u", i ? "," : "", p->forward[i]);
    return s;
}

char **outbound_pasta_argv(const struct outbound *ob, const struct profile *p, pid_t init_pid,
                           const char *pid_file, bool as_root)
{
    struct strv v = { 0 };
    strv_push(&v, xstrdup(ob->pasta_path ? ob->pasta_path : "pasta"));
    /* Foreground: pasta stays our child, so it is reaped and signalled by
     * a pid that cannot be reused behind our back, and its parent-death
     * signal ties it to sbx. */
    strv_push(&v, xstrdup("--foreground"));
    strv_push(&v, xstrdup("--quiet"));
    /* Addresses, routes and the tap device inside, copied from the
     * host's default-route interface: the command needs no DHCP client. */
    strv_push(&v, xstrdup("--config-net"));
    /* pasta's defaults (-t auto -u auto) would publish every port the
     * command listens on to the host and beyond: a sandbox takes no
     * inbound connections. */
    strv_push(&v, xstrdup("--tcp-ports"));
    strv_push(&v, xstrdup("none"));
    strv_push(&v, xstrdup("--udp-ports"));
    strv_push(&v, xstrdup("none"));
    /* pasta's defaults (-T auto -U auto) would bind, inside, every port
     * bound on the host's loopback and splice it to the host: every local
     * database and agent socket reachable, and those ports taken from the
     * sandbox's own lo. Only `forward =` ports go through. */
    char *ports = port_list(p);
    strv_push(&v, xstrdup("--tcp-ns"));
    strv_push(&v, xstrdup(ports));
    strv_push(&v, xstrdup("--udp-ns"));
    strv_push(&v, ports);
    /* Without this, traffic to the gateway address may be remapped to the
     * host's loopback (pasta(1), NOTES): a back door to the services
     * above. With it the gateway is the real gateway. */
    strv_push(&v, xstrdup("--no-map-gw"));
    if (ob->resolv_conf) {
        /* UDP to this address, port 53, goes to the host's first IPv4
         * nameserver, on its loopback too (127.0.0.53): the one opening
         * to the host's loopback besides `forward =`. The sandbox's
         * /etc/resolv.conf names this address. */
        strv_push(&v, xstrdup("--dns-forward"));
        strv_push(&v, xstrdup(RESOLV_FORWARD_ADDRESS));
    }
    strv_push(&v, xstrdup("--pid"));
    strv_push(&v, xstrdup(pid_file));
    if (as_root) {
        /* Started as root, pasta switches to nobody, who may not join the
         * sandbox's user namespace: that one belongs to root. pasta still
         * drops its capabilities and confines itself (its own namespaces
         * and seccomp filter). */
        strv_push(&v, xstrdup("--runas"));
        strv_push(&v, xstrdup("0:0"));
    }
    if (p->ns[NS_USER]) {
        /* PID: join that process's user and network namespaces. */
        strv_push(&v, xasprintf("%d", (int)init_pid));
    } else {
        /* user = no (root only): the network namespace belongs to the
         * host's user namespace, which pasta is already in. */
        strv_push(&v, xstrdup("--netns-only"));
        strv_push(&v, xstrdup("--no-netns-quit"));
        strv_push(&v, xstrdup("--netns"));
        strv_push(&v, xasprintf("/proc/%d/ns/net", (int)init_pid));
    }
    return v.v; /* strv keeps it NULL-terminated */
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* pasta's last meaningful line of output, for the diagnosis. Lines about
 * the system logger are noise: sbx shows what pasta says on stderr. */
static char *pasta_message(int log_fd)
{
    if (log_fd < 0)
        return xstrdup("(no output)");
    char buf[4096];
    ssize_t n = pread(log_fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return xstrdup("(no output)");
    buf[n] = '\0';
    char *best = NULL;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "to syslog") || strstr(line, "Don't run as root"))
            continue;
        best = line;
    }
    return xstrdup(best ? best : "(no output)");
}

static noreturn void die_pasta(struct outbound *ob, const char *what, int status)
{
    char *msg = pasta_message(ob->log_fd);
    char how[64] = "";
    if (status >= 0 && WIFEXITED(status))
        snprintf(how, sizeof how, " (exit status %d)", WEXITSTATUS(status));
    else if (status >= 0 && WIFSIGNALED(status))
        snprintf(how, sizeof how, " (killed by signal %d)", WTERMSIG(status));
    char *text = xasprintf("outbound network: pasta (%s, package %s) %s%s: %s; the command "
                           "was not started (sbx never falls back to the host's network)",
                           ob->pasta_path, PASTA_PACKAGE, what, how, msg);
    free(msg);
    outbound_stop(ob);
    die("%s", text);
}

void outbound_start(struct outbound *ob, const struct profile *p, pid_t init_pid)
{
    if (!ob->wanted)
        return;
    const char *tmp = getenv("TMPDIR");
    record_step("outbound network: start pasta");
    char *tmpl = xasprintf("%s/sbx-pasta.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
    if (!mkdtemp(tmpl))
        die_errno("outbound network: creating a directory for pasta's pid file (%s)", tmpl);
    ob->rundir = tmpl;
    char *pid_file = xasprintf("%s/pid", ob->rundir);

    ob->log_fd = memfd_create("sbx-pasta-log", MFD_CLOEXEC);
    if (ob->log_fd < 0)
        die_errno("outbound network: memfd_create for pasta's messages");

    char **argv = outbound_pasta_argv(ob, p, init_pid, pid_file, geteuid() == 0);
    if (log_verbosity >= LOG_VERBOSE) {
        char *line = xstrdup("");
        for (char **a = argv; *a; a++) {
            char *next = xasprintf("%s%s%s", line, *line ? " " : "", *a);
            free(line);
            line = next;
        }
        verbose("outbound network: %s", line);
        free(line);
    }

    pid_t pid = fork();
    if (pid < 0)
        die_errno("outbound network: fork for pasta");
    if (pid == 0) {
        /* If sbx dies, even by SIGKILL, pasta goes too: it would otherwise
         * hold the sandbox's network namespace open forever. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1)
            _exit(127);
        /* The forwarded signals are blocked in the supervisor; pasta gets
         * a normal mask. Its stdin is /dev/null: it must not read the
         * terminal the command uses. */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* Ignored signals stay ignored across execve() (signal(7)), and
         * pasta exits with "Couldn't install signal handlers" when it
         * inherits an ignored SIGPIPE, as every child of Python's
         * pty.fork() or of `trap '' PIPE` does. pasta is sbx's helper,
         * not the caller's program: it starts from the defaults. */
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigemptyset(&dfl.sa_mask);
        for (int sig = 1; sig < NSIG; sig++)
            if (sig != SIGKILL && sig != SIGSTOP)
                sigaction(sig, &dfl, NULL);   /* EINVAL for libc's reserved ones */
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0)
            dup2(null, 0);
        dup2(ob->log_fd, 1);
        dup2(ob->log_fd, 2);
        execv(argv[0], argv);
        dprintf(ob->log_fd, "execv %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    ob->pasta_pid = pid;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);

    /* Ready when the pid file holds a pid: pasta writes it only once the
     * namespace is configured. An exit before that is a failure. */
    uint64_t deadline = now_ms() + PASTA_READY_TIMEOUT_MS;
    for (;;) {
        int status;
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            ob->pasta_pid = 0;
            free(pid_file);
            die_pasta(ob, "failed", status);
        }
        char *text = read_file_text(pid_file, 64, NULL);
        bool ready = text && strchr(text, '\n');
        free(text);
        if (ready)
            break;
        if (now_ms() > deadline) {
            free(pid_file);
            die_pasta(ob, "did not finish its setup within 10 s", -1);
        }
        struct timespec ts = { 0, 2 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    free(pid_file);
    char *fact = xasprintf("pasta pid %d, host loopback ports forwarded: %zu", (int)pid,
                           p->nforward);
    record_network("outbound", fact);
    free(fact);
    verbose_step("outbound network: pasta (pid %d) attached to the sandbox's network namespace",
                 (int)pid);
    if (ob->resolv_conf) {
        fact = xasprintf("%s:53 forwarded by pasta to the host's resolver %s:53 (the first IPv4 "
                         "nameserver of the host's /etc/resolv.conf)",
                         RESOLV_FORWARD_ADDRESS, ob->dns_upstream);
        record_network("dns", fact);
        verbose("outbound network: DNS: %s", fact);
        free(fact);
    }
}

void outbound_stop(struct outbound *ob)
{
    if (ob->pasta_pid > 0) {
        kill(ob->pasta_pid, SIGTERM);
        while (waitpid(ob->pasta_pid, NULL, 0) < 0 && errno == EINTR)
            ;
        ob->pasta_pid = 0;
    }
    if (ob->rundir) {
        char *pid_file = xasprintf("%s/pid", ob->rundir);
        unlink(pid_file);
        free(pid_file);
        rmdir(ob->rundir);
        free(ob->rundir);
        ob->rundir = NULL;
    }
    if (ob->log_fd >= 0) {
        close(ob->log_fd);
        ob->log_fd = -1;
    }
    free(ob->pasta_path);
    ob->pasta_path = NULL;
    free(ob->resolv_conf);
    ob->resolv_conf = NULL;
}
