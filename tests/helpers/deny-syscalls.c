/* Runs a command under a seccomp filter that makes the named system calls
 * fail with ERRNO, as an older kernel (ENOSYS) or a container runtime's
 * filter that does not know them (EPERM) would.
 *
 *   deny-syscalls ERRNO-NAME SYSCALL[,SYSCALL...] -- COMMAND [ARG...]
 *
 * A SYSCALL is a name libseccomp knows or a number (the native ABI's).
 *
 * The mount tests use it to run mount_setup() without openat2, open_tree,
 * mount_setattr and move_mount. */
#include "config.h"

#include "util.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 5 || strcmp(argv[3], "--")) {
        fprintf(stderr, "usage: deny-syscalls ERRNO-NAME SYSCALL[,SYSCALL...] -- COMMAND [ARG...]\n");
        return 2;
    }
    int err = errno_from_name(argv[1]);
    if (!err) {
        fprintf(stderr, "deny-syscalls: unknown errno %s\n", argv[1]);
        return 2;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        fprintf(stderr, "deny-syscalls: seccomp_init failed\n");
        return 2;
    }
    char *names = xstrdup(argv[2]), *save = NULL;
    for (char *name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        /* a number: a call newer than libseccomp's table (open_tree_attr) */
        char *end;
        long num = strtol(name, &end, 10);
        int nr = *name && !*end && num >= 0 ? (int)num : seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), nr, 0) < 0) {
            fprintf(stderr, "deny-syscalls: cannot deny %s\n", name);
            return 2;
        }
    }
    free(names);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0) {
        perror("deny-syscalls: loading the filter");
        return 2;
    }
    seccomp_release(ctx);
    execvp(argv[4], argv + 4);
    fprintf(stderr, "deny-syscalls: %s: %s\n", argv[4], strerror(errno));
    return 127;
}
