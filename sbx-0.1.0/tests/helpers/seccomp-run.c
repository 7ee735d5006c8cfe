/* seccomp-run: the seccomp half of `sbx run`, without namespaces, so the
 * filter and the ledger can be tested on their own:
 *
 *   seccomp-run [--seccomp default|none] [--no-nested-userns]
 *               [--deny 'SYSCALL[:family,...] ERRNO']... [--strict | --audit]
 *               -- CMD...
 *
 * --profile NAME takes [security] (seccomp, nested_userns, deny) from a
 * real profile, looked up as sbx does; --against NAME gives --audit's
 * second run its own profile.
 *
 * The child sets no_new_privs, installs the filter (seccomp_install()) and
 * execs CMD; the parent receives the listener and runs the ledger loop as
 * the supervisor does, then prints the ledger summary and exits with CMD's
 * status (128+N for a signal; 3 under --strict after denials). --audit
 * runs CMD without, then with the deny rules and prints sbx audit's
 * verdict with its exit status (audit.c). */
#include "config.h"

#include "audit.h"
#include "cli.h"
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
#include <time.h>
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

/* "bind:inet,inet6 EPERM" -> rule. The real parser is profile_values.c's; this
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

static void free_rules(struct profile *p)
{
    for (size_t k = 0; k < p->ndeny; k++) {
        free(p->deny[k].syscall);
        free(p->deny[k].text);
    }
    free(p->deny);
    p->deny = NULL;
    p->ndeny = 0;
}

static void release(struct profile *p, bool loaded)
{
    if (loaded)
        profile_free(p);
    else
        free_rules(p);
}

/* Runs argv under p as sbx's command process would be; returns the
 * status (128+N for a signal) and the ledger (NULL without deny rules). */
static int run_once(const struct profile *pp, char **argv, struct ledger **ledger_out)
{
    struct profile p = *pp;
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
        seccomp_install(&p, geteuid() == 0, pair[1], "L", 1);
        close(pair[1]);
        execvp(argv[0], argv);
        int e = errno;
        fprintf(stderr, "sbx: %s: %s\n", argv[0], strerror(e));
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
    *ledger_out = ledger;
    return code;
}

int main(int argc, char **argv)
{
    struct profile p;
    memset(&p, 0, sizeof p);
    p.seccomp = SECCOMP_DEFAULT;
    p.nested_userns = true;
    p.no_new_privs = true;
    bool strict = false, audit = false;
    bool loaded[2] = { false, false };  /* p, against: from profile files */
    struct profile against;

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
        } else if (strcmp(argv[i], "--audit") == 0) {
            audit = true;
        } else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc) {
            /* the real profile's [security] settings, found as sbx finds it */
            free_rules(&p);
            cli_load_profile(&p, argv[++i], NULL);
            loaded[0] = true;
        } else if (strcmp(argv[i], "--against") == 0 && i + 1 < argc) {
            cli_load_profile(&against, argv[++i], NULL);
            loaded[1] = true;
        } else {
            die("seccomp-run: unknown option '%s'", argv[i]);
        }
    }
    if (i >= argc)
        die("seccomp-run: no command");

    if (audit) {
        /* sbx audit's two runs, minus the namespaces: without the deny
         * rules, then with them. */
        struct profile open_profile = p;
        open_profile.ndeny = 0;
        if (loaded[1])
            open_profile = against;
        struct audit_run runs[2];
        struct ledger *ledgers[2];
        /* --profile P --against Q: P then Q. --profile P alone, or rules
         * from --deny: without the deny rules, then with them. */
        const struct profile *profiles[2] = { &open_profile, &p };
        const char *names[2] = { "no deny rules", "deny rules" };
        if (loaded[1]) {
            profiles[0] = &p;
            profiles[1] = &against;
            names[0] = p.name;
            names[1] = against.name;
        }
        for (int r = 0; r < 2; r++) {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            fprintf(stderr, "sbx: audit: ---- run %d of 2, under %s ----\n", r + 1, names[r]);
            int code = run_once(profiles[r], argv + i, &ledgers[r]);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            runs[r] = (struct audit_run){
                .profile = names[r], .exit_status = code, .ledger = ledgers[r],
                .duration_us = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000LL +
                                          (t1.tv_nsec - t0.tv_nsec) / 1000),
            };
        }
        enum audit_verdict v = audit_decide(&runs[0], &runs[1]);
        audit_print_report(stderr, &runs[0], &runs[1], v);
        ledger_free(ledgers[0]);
        ledger_free(ledgers[1]);
        release(&p, loaded[0]);
        if (loaded[1])
            profile_free(&against);
        return audit_verdict_exit_status(v);
    }

    struct ledger *ledger;
    int code = run_once(&p, argv + i, &ledger);
    ledger_print_summary(ledger, stderr, code);
    if (strict && code == 0 && ledger_total(ledger) > 0)
        code = 3;
    ledger_free(ledger);
    release(&p, loaded[0]);
    if (loaded[1])
        profile_free(&against);
    return code;
}
