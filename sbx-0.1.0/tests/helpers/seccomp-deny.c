/* Test helper: reproduce a restrictive agent sandbox without sbx, so the
 * probe's diagnosis is tested against a known filter.
 *   seccomp-deny [--inet] [--bind] [--userns] [--kill-unshare] -- COMMAND [ARG...]
 * --inet:   socket(AF_INET / AF_INET6) fails with EPERM
 * --bind:   bind() fails with EPERM (sockets are created)
 * --userns: unshare/clone with CLONE_NEWUSER fail with EPERM
 * --kill-unshare: unshare() kills the process (SECCOMP_RET_KILL_PROCESS)
 * Sets no_new_privs (libseccomp's default), so it works unprivileged. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void check(int rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "seccomp-deny: %s: %s\n", what, strerror(-rc));
        exit(125);
    }
}

int main(int argc, char **argv)
{
    int i = 1;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        fprintf(stderr, "seccomp-deny: seccomp_init failed\n");
        return 125;
    }
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "--inet")) {
            check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
                                   SCMP_A0(SCMP_CMP_EQ, AF_INET)), "rule socket(AF_INET)");
            check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
                                   SCMP_A0(SCMP_CMP_EQ, AF_INET6)), "rule socket(AF_INET6)");
        } else if (!strcmp(argv[i], "--bind")) {
            check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(bind), 0), "rule bind");
        } else if (!strcmp(argv[i], "--userns")) {
            check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                                   SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)),
                  "rule unshare");
        } else if (!strcmp(argv[i], "--kill-unshare")) {
            check(seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(unshare), 0),
                  "rule unshare kill");
        } else {
            fprintf(stderr, "seccomp-deny: unknown option %s\n", argv[i]);
            return 125;
        }
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "usage: seccomp-deny [--inet] [--bind] [--userns] [--kill-unshare] -- COMMAND...\n");
        return 125;
    }
    check(seccomp_load(ctx), "seccomp_load");
    seccomp_release(ctx);
    execvp(argv[i + 1], argv + i + 1);
    fprintf(stderr, "seccomp-deny: exec %s: %s\n", argv[i + 1], strerror(errno));
    return 127;
}
