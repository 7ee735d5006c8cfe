/* seccomp-run: the seccomp half of `sbx run`, without namespaces, so the
 * filter and the ledger can be tested on their own:
 *
 *   seccomp-run [--seccomp default|none] [--no-nested-userns]
 *               [--deny 'SYSCALL[:family,...] ERRNO']... [--strict] -- CMD...
 *
 * The child sets no_new_privs, installs the filter (seccomp_install()) and
 * execs CMD; the parent receives the listener and runs the ledger loop as
 * the supervisor does, then prints the ledger summary and exits with CMD's
 * status (128+N for a signal; 3 under --strict after denials). */
#include "config.h"

#include "ledger.h"
#include "log.h"
#include "profile.h"
#include "seccomp.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int family_from_name(const char *name)
{
    static const struct { const char *name; int family; } names[] = {
        { "inet", AF_INET }, { "inet6", AF_INET6 }, { "unix", AF_UNIX },
        { "netlink", AF_NETLINK }, { "packet", AF_PACKET },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i].name, name) == 0)
            return names[i].family;
    return -1;
}

/* "bind:inet,inet6 EPERM" -> rule. The real parser is profile.c's; this
 * one only serves the tests. */
static void parse_deny(struct profile *p, const char *text)
{
    char *copy = xstrdup(text);
    char *space = strchr(copy, ' ');
    if (!space)
        die("--deny '%s': expected 'SYSCALL[:family,...] ERRNO'", text);
    *space = '\0';
    int errnum = errno_from_name(space + 1);
    if (!errnum)
        die("--deny '%s': unknown errno '%s'", text, space + 1);
    uint64_t families = 0;
    char *colon = strchr(copy, ':');
    if (colon) {
        *colon = '\0';
        for (char *f = strtok(colon + 1, ","); f; f = strtok(NULL, ",")) {
            int family = family_from_name(f);
            if (family < 0)
                die("--deny '%s': unknown family '%s'", text, f);
            families |= UINT64_C(1) << family;
        }
    }
    p->deny = xrealloc(p->deny, (p->ndeny + 1) * sizeof *p->deny);
    p->deny[p->ndeny++] = (struct deny_rule){
        .syscall = xstrdup(copy), .nr = seccomp_syscall_number(copy),
        .families = families, .errnum = errnum, .text = xstrdup(text),
    };
    free(copy);
}

int main(int argc, char **argv)
{
    struct profile p;
    memset(&p, 0, sizeof p);
    p.seccomp = SECCOMP_DEFAULT;
    p.nested_userns = true;
    p.no_new_privs = true;
    bool strict = false;

    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "--seccomp") == 0 && i + 1 < argc) {
            p.seccomp = strcmp(argv[++i], "none") == 0 ? SECCOMP_NONE : SECCOMP_DEFAULT;
        } else if (strcmp(argv[i], "--no-nested-userns") == 0) {
            p.nested_userns = false;
        } else if (strcmp(argv[i], "--deny") == 0 && i + 1 < argc) {
            parse_deny(&p, argv[++i]);
        } else if (strcmp(argv[i], "--strict") == 0) {
            strict = true;
        } else {
            die("seccomp-run: unknown option '%s'", argv[i]);
        }
    }
    if (i >= argc)
        die("seccomp-run: no command");

    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
        die_errno("socketpair");
    pid_t child = fork();
    if (child < 0)
        die_errno("fork");
    if (child == 0) {
        log_use_underscore_exit = 1;
        die_hook = NULL;
        close(pair[0]);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
            die_errno("prctl(PR_SET_NO_NEW_PRIVS)");
        seccomp_install(&p, pair[1]);
        close(pair[1]);
        execvp(argv[i], argv + i);
        int e = errno;
        fprintf(stderr, "sbx: %s: %s\n", argv[i], strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }
    close(pair[1]);

    struct ledger *ledger = NULL;
    if (seccomp_needs_listener(&p)) {
        int notify_fd = seccomp_listener_receive(pair[0]);
        if (notify_fd < 0) {
            int status;
            waitpid(child, &status, 0);
            die_errno("receiving the seccomp listener from the command");
        }
        ledger = ledger_new(&p);
        /* POLLHUP: every process that had the filter is gone. */
        for (;;) {
            struct pollfd pfd = { .fd = notify_fd, .events = POLLIN };
            if (poll(&pfd, 1, -1) < 0) {
                if (errno == EINTR)
                    continue;
                die_errno("poll on the seccomp listener");
            }
            if (pfd.revents & POLLIN) {
                if (!ledger_handle(ledger, notify_fd))
                    break;
            } else if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) {
                break;
            }
        }
        close(notify_fd);
    }
    close(pair[0]);

    int status;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            die_errno("waitpid");
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    ledger_print_summary(ledger, stderr, code);
    if (strict && code == 0 && ledger_total(ledger) > 0)
        code = 3;
    ledger_free(ledger);
    for (size_t k = 0; k < p.ndeny; k++) {
        free(p.deny[k].syscall);
        free(p.deny[k].text);
    }
    free(p.deny);
    return code;
}
