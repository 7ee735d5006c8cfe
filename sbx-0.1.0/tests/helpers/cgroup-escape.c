/* cgroup-escape CHECK [ARG...]: what a command does to reach the cgroups
 * of the host (issue 14, item 6), one line per step, "STEP=ok" or
 * "STEP=ERRNONAME"; it stops at the first failed step.
 *
 *   unshare-cgroup   unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP)
 *   clone-cgroup     clone(CLONE_NEWUSER | CLONE_NEWCGROUP) (raw syscall)
 *   clone3-cgroup    clone3 with the same flags
 *   setns-cgroup     from a new user namespace (every capability there),
 *                    setns() back into the cgroup namespace we started in
 *   v2 FILE VALUE    unshare as above, mount a fresh cgroup2 on /tmp (in
 *                    the new mount namespace) and write VALUE to /tmp/FILE,
 *                    FILE being relative to the cgroup namespace's root: the
 *                    cgroup the process was in
 *   v1 FILE VALUE    the same with a cgroup v1 freezer hierarchy
 * A test runs it in a cgroup of its own and only names files below it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper-util.h"

static int step(const char *name, long rc)
{
    if (rc < 0) {
        const char *n = strerrorname_np(errno);
        printf("%s=%s\n", name, n ? n : "E?");
    } else {
        printf("%s=ok\n", name);
    }
    fflush(stdout);
    return rc < 0 ? -1 : 0;
}

static int attack(int v2, const char *file, const char *value)
{
    if (step("unshare", unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP)) < 0)
        return 0;
    /* Nothing mounted here may propagate back. */
    if (step("private", mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL)) < 0)
        return 0;
    long rc = v2 ? mount("none", "/tmp", "cgroup2", 0, NULL)
                 : mount("cgroup", "/tmp", "cgroup", 0, "freezer");
    if (step("mount", rc) < 0)
        return 0;
    char path[4096];
    snprintf(path, sizeof path, "/tmp/%s", file);
    step("write", write_file(path, value));
    return 0;
}

static long child_status(pid_t pid)
{
    if (pid <= 0)
        return pid;
    if (pid > 0 && waitpid(pid, NULL, 0) < 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: cgroup-escape CHECK [FILE VALUE]\n");
        return 2;
    }
    const char *c = argv[1];
    if (!strcmp(c, "unshare-cgroup")) {
        step(c, unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP));
    } else if (!strcmp(c, "clone-cgroup")) {
        long pid = syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWCGROUP | SIGCHLD, NULL, NULL, NULL, NULL);
        if (pid == 0)
            _exit(0);
        step(c, child_status((pid_t)pid));
    } else if (!strcmp(c, "clone3-cgroup")) {
        struct clone_args a = { .flags = CLONE_NEWUSER | CLONE_NEWCGROUP, .exit_signal = SIGCHLD };
        long pid = syscall(SYS_clone3, &a, sizeof a);
        if (pid == 0)
            _exit(0);
        step(c, child_status((pid_t)pid));
    } else if (!strcmp(c, "setns-cgroup")) {
        int fd = open("/proc/self/ns/cgroup", O_RDONLY | O_CLOEXEC);
        if (step("open-ns", fd) < 0 || step("unshare-user", unshare(CLONE_NEWUSER)) < 0)
            return 0;
        step(c, setns(fd, CLONE_NEWCGROUP));
    } else if ((!strcmp(c, "v2") || !strcmp(c, "v1")) && argc == 4) {
        return attack(!strcmp(c, "v2"), argv[2], argv[3]);
    } else {
        fprintf(stderr, "cgroup-escape: unknown check %s\n", c);
        return 2;
    }
    return 0;
}
