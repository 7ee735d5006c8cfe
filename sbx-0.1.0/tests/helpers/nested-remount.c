/* Test helper, run inside a sandbox: creates a nested user + mount
 * namespace (where it holds every capability) and tries to undo the
 * sandbox's read-only mounts from there. Prints one line per attempt,
 * "WHAT: ok" or "WHAT: ERRNO-NAME", and exits 0 unless it could not even
 * create the namespaces (exit 2).
 *
 *   nested-remount PATH...   remount each PATH read-write (bind remount)
 *
 * It ends by mounting a tmpfs on /tmp: that must succeed, proving that the
 * capabilities are real and a refusal came from the locked mounts. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

static void report(const char *what, const char *path, int rc)
{
    printf("%s %s: %s\n", what, path, rc == 0 ? "ok" : strerrorname_np(errno));
}

int main(int argc, char **argv)
{
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
        printf("unshare: %s\n", strerrorname_np(errno));
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        report("remount-rw", argv[i], mount(NULL, argv[i], NULL, MS_REMOUNT | MS_BIND, NULL));
        report("umount", argv[i], umount2(argv[i], MNT_DETACH));
    }
    report("tmpfs", "/tmp", mount("none", "/tmp", "tmpfs", 0, NULL));
    return 0;
}
