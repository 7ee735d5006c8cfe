/* Runs a command under a seccomp filter that refuses creating user
 * namespaces with EPERM, as a sandbox around sbx would. Two shapes:
 *
 *  (default) an agent's sandbox: clone() and unshare() with CLONE_NEWUSER
 *            fail with EPERM, clone3() says ENOSYS so that callers fall
 *            back to clone().
 *  --docker  the namespace rules of Docker's default profile (moby's
 *            default.json, for a container without CAP_SYS_ADMIN): clone()
 *            with any CLONE_NEW* flag of its mask 0x7E020000, unshare()
 *            with anything but CLONE_FS, and setns() fail with EPERM (its
 *            default errno), clone3() with ENOSYS. Everything else is
 *            allowed here, unlike Docker's allow list.
 *
 * Usage: deny-userns [--docker] COMMAND ARG... */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET: Docker allows
 * clone() only when none of these is set. */
#define DOCKER_NS_MASK 0x7E020000UL

static int docker_rules(scmp_filter_ctx ctx)
{
    for (unsigned long bit = 1; bit; bit <<= 1) {
        if (!(DOCKER_NS_MASK & bit))
            continue;
        if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                             SCMP_A0(SCMP_CMP_MASKED_EQ, bit, bit)) < 0)
            return -1;
    }
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                         SCMP_A0(SCMP_CMP_NE, CLONE_FS)) < 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 0) < 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) < 0)
        return -1;
    return 0;
}

static int agent_rules(scmp_filter_ctx ctx)
{
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) < 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) < 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) < 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    int first = 1;
    int docker = argc > 1 && !strcmp(argv[1], "--docker");
    first += docker;
    if (argc <= first) {
        fprintf(stderr, "usage: deny-userns [--docker] COMMAND ARG...\n");
        return 2;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx || (docker ? docker_rules(ctx) : agent_rules(ctx)) < 0) {
        fprintf(stderr, "deny-userns: building the filter failed\n");
        return 2;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0) {
        perror("deny-userns: loading the filter");
        return 2;
    }
    seccomp_release(ctx);
    execvp(argv[first], argv + first);
    perror(argv[first]);
    return 127;
}
