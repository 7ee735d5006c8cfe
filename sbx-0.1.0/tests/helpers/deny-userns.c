/* Runs a command under a seccomp filter that refuses creating user
 * namespaces with EPERM, as another agent's sandbox around sbx would:
 * clone() and unshare() with CLONE_NEWUSER fail, clone3() says ENOSYS so
 * that callers fall back to clone(). Usage: deny-userns COMMAND ARG... */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: deny-userns COMMAND ARG...\n");
        return 2;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) < 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) < 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) < 0) {
        fprintf(stderr, "deny-userns: building the filter failed\n");
        return 2;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0) {
        perror("deny-userns: loading the filter");
        return 2;
    }
    seccomp_release(ctx);
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 127;
}
