/* setid-probe DIR CHECK...: tries to make a set-user/group-ID file (or
 * file capabilities) in DIR through one call per CHECK and prints
 * "CHECK=RESULT", RESULT being the call's errno name, or "ok" followed by
 * what it made (":MODE" in octal with the set-ID bits, ":v3-rootid=N").
 * A test compares the results with and without the seccomp filter, so an
 * errno the kernel would give anyway cannot pass for the filter's.
 *
 *   chmod chmod-setgid fchmod fchmodat fchmodat2   mode 04755 (02755) on a
 *                            fresh 0644 file
 *   open openat creat        O_CREAT (creat) with mode 04755
 *   open-tmpfile openat-tmpfile   O_TMPFILE with mode 04755 (mode read
 *                            with fstat)
 *   openat2                  O_CREAT with mode 04755 in struct open_how
 *   mkdir mkdirat            mode 06755
 *   mknod mknodat            S_IFREG | 04755
 *   setxattr lsetxattr fsetxattr setxattrat   security.capability
 *                            (cap_setuid, effective) on a fresh file; the
 *                            kernel stores the rootid of our user
 *                            namespace (v3, or v2 when that is kuid 0)
 *   nested-CALL              CALL (one of those four) from a nested user
 *                            namespace that
 *                            maps its root to our uid (where we would hold
 *                            CAP_SETFCAP; since Linux 5.12 mapping uid 0
 *                            takes CAP_SETFCAP in the parent:
 *                            "nested-setxattr=uid_map-EPERM")
 *   getcap:PATH              reads PATH's security.capability: none, v2,
 *                            or v3-rootid=N (N as the host sees it)
 *   mode:PATH                PATH's mode in octal
 * Files are named DIR/CHECK and removed first. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "helper-util.h"

#define NR_FCHMODAT2 452
#define NR_SETXATTRAT 463

/* struct xattr_args (Linux 6.13), not in Debian 12's headers */
struct setxattrat_args {
    uint64_t value;
    uint32_t size;
    uint32_t flags;
};

static const char *errname(int e)
{
    const char *n = strerrorname_np(e);
    return n ? n : "E?";
}

static void print_mode(const char *check, mode_t mode)
{
    printf("%s=ok:%04o\n", check, (unsigned)(mode & 07777));
}

static void print_path_mode(const char *check, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        printf("%s=ok:stat-%s\n", check, errname(errno));
    else
        print_mode(check, st.st_mode);
}

static int fresh_file(const char *path)
{
    unlink(path);
    int fd = open(path, O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "setid-probe: creating %s: %s\n", path, strerror(errno));
        exit(2);
    }
    return fd;
}

/* In a child; `nested`: in a user namespace mapping root to our uid (the
 * kernel lets a process map its own uid), where we have every capability. */
static int set_file_caps(const char *check, const char *path, bool nested)
{
    uid_t uid = geteuid();
    gid_t gid = getegid();
    int fd = fresh_file(path);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        char map[64];
        if (nested && unshare(CLONE_NEWUSER) < 0) {
            printf("%s=unshare-%s\n", check, errname(errno));
            fflush(stdout);
            _exit(0);
        }
        snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
        if (nested && write_file("/proc/self/uid_map", map) < 0) {
            printf("%s=uid_map-%s\n", check, errname(errno));
            fflush(stdout);
            _exit(0);
        }
        snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
        if (nested && (write_file("/proc/self/setgroups", "deny") < 0 ||
                       write_file("/proc/self/gid_map", map) < 0)) {
            printf("%s=gid_map-%s\n", check, errname(errno));
            fflush(stdout);
            _exit(0);
        }
        if (nested)
            check += strlen("nested-");

        struct vfs_cap_data cap;
        memset(&cap, 0, sizeof cap);
        cap.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
        cap.data[0].permitted = 1u << CAP_SETUID;
        const char *name = "security.capability";
        size_t size = XATTR_CAPS_SZ_2;
        long rc;
        if (!strcmp(check, "setxattr")) {
            rc = setxattr(path, name, &cap, size, 0);
        } else if (!strcmp(check, "lsetxattr")) {
            rc = lsetxattr(path, name, &cap, size, 0);
        } else if (!strcmp(check, "fsetxattr")) {
            rc = fsetxattr(fd, name, &cap, size, 0);
        } else {
            struct setxattrat_args a = { .value = (uintptr_t)&cap, .size = (uint32_t)size };
            rc = syscall(NR_SETXATTRAT, AT_FDCWD, path, 0, name, &a, sizeof a);
        }
        const char *label = nested ? check - strlen("nested-") : check;
        if (rc < 0)
            printf("%s=%s\n", label, errname(errno));
        else
            printf("%s=ok\n", label);
        fflush(stdout);
        _exit(0);
    }
    close(fd);
    int st;
    waitpid(pid, &st, 0);
    return 0;
}

static bool is_xattr_call(const char *c)
{
    return !strcmp(c, "setxattr") || !strcmp(c, "lsetxattr") || !strcmp(c, "fsetxattr") ||
           !strcmp(c, "setxattrat");
}

static void getcap(const char *check, const char *path)
{
    struct vfs_ns_cap_data cap;
    memset(&cap, 0, sizeof cap);
    ssize_t n = getxattr(path, "security.capability", &cap, sizeof cap);
    if (n < 0 && errno == ENODATA)
        printf("%s=none\n", check);
    else if (n < 0)
        printf("%s=%s\n", check, errname(errno));
    else if ((cap.magic_etc & VFS_CAP_REVISION_MASK) == VFS_CAP_REVISION_3)
        printf("%s=v3-rootid=%u\n", check, (unsigned)cap.rootid);
    else
        printf("%s=v2\n", check);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: setid-probe DIR CHECK...\n");
        return 2;
    }
    const char *dir = argv[1];
    int dfd = open(dir, O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        fprintf(stderr, "setid-probe: %s: %s\n", dir, strerror(errno));
        return 2;
    }
    umask(022);
    for (int i = 2; i < argc; i++) {
        const char *c = argv[i];
        if (!strncmp(c, "getcap:", 7)) {
            getcap(c, c + 7);
            fflush(stdout);
            continue;
        }
        if (!strncmp(c, "mode:", 5)) {
            print_path_mode(c, c + 5);
            fflush(stdout);
            continue;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, c);
        rmdir(path);
        unlink(path);
        long rc;
        int fd = -1;
        if (!strcmp(c, "chmod") || !strcmp(c, "chmod-setgid")) {
            close(fresh_file(path));
            rc = chmod(path, !strcmp(c, "chmod") ? 04755 : 02755);
        } else if (!strcmp(c, "fchmod")) {
            fd = fresh_file(path);
            rc = fchmod(fd, 04755);
        } else if (!strcmp(c, "fchmodat")) {
            close(fresh_file(path));
            rc = syscall(SYS_fchmodat, dfd, c, 04755);
        } else if (!strcmp(c, "fchmodat2")) {
            close(fresh_file(path));
            rc = syscall(NR_FCHMODAT2, dfd, c, 04755, 0);
        } else if (!strcmp(c, "open")) {
            rc = fd = (int)syscall(SYS_open, path, O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, 04755);
        } else if (!strcmp(c, "openat")) {
            rc = fd = (int)syscall(SYS_openat, dfd, c, O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, 04755);
        } else if (!strcmp(c, "creat")) {
            rc = fd = (int)syscall(SYS_creat, path, 04755);
        } else if (!strcmp(c, "open-tmpfile")) {
            rc = fd = (int)syscall(SYS_open, dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 04755);
        } else if (!strcmp(c, "openat-tmpfile")) {
            rc = fd = (int)syscall(SYS_openat, dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 04755);
        } else if (!strcmp(c, "openat2")) {
            struct open_how how = { .flags = O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, .mode = 04755 };
            rc = fd = (int)syscall(SYS_openat2, dfd, c, &how, sizeof how);
        } else if (!strcmp(c, "mkdir")) {
            rc = mkdir(path, 06755);
        } else if (!strcmp(c, "mkdirat")) {
            rc = syscall(SYS_mkdirat, dfd, c, 06755);
        } else if (!strcmp(c, "mknod")) {
            rc = syscall(SYS_mknod, path, S_IFREG | 04755, 0);
        } else if (!strcmp(c, "mknodat")) {
            rc = syscall(SYS_mknodat, dfd, c, S_IFREG | 04755, 0);
        } else if (is_xattr_call(c) || (!strncmp(c, "nested-", 7) && is_xattr_call(c + 7))) {
            fflush(stdout);
            set_file_caps(c, path, !strncmp(c, "nested-", 7));
            fflush(stdout);
            continue;
        } else {
            fprintf(stderr, "setid-probe: unknown check %s\n", c);
            return 2;
        }
        if (rc < 0) {
            printf("%s=%s\n", c, errname(errno));
        } else if (!strcmp(c, "open-tmpfile") || !strcmp(c, "openat-tmpfile")) {
            struct stat st;
            if (fstat(fd, &st) < 0)
                printf("%s=ok:fstat-%s\n", c, errname(errno));
            else
                print_mode(c, st.st_mode);
        } else {
            print_path_mode(c, path);
        }
        if (fd >= 0)
            close(fd);
        fflush(stdout);
    }
    return 0;
}
