#include "config.h"

#include "landlock_meta.h"

#include "ledger.h"
#include "mount-plan.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

enum meta_op { META_CHMOD, META_CHOWN, META_UTIME, META_UTIMES, META_UTIMENS, META_SETXATTR,
               META_REMOVEXATTR };

/* Where each call has its target and arguments: dirfd and path argument
 * indexes (-1: none; no path: the fd in dirfd_arg is the target), the
 * index of the flags (AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH), or nofollow
 * by name (lchown, l*xattr), and where the operation's own arguments
 * start. */
struct meta_call {
    const char *name;
    enum meta_op op;
    int dirfd_arg, path_arg, flags_arg;
    bool nofollow;
    int first;
};

static const struct meta_call calls[] = {
    { "chmod", META_CHMOD, -1, 0, -1, false, 1 },
    { "fchmod", META_CHMOD, 0, -1, -1, false, 1 },
    { "fchmodat", META_CHMOD, 0, 1, -1, false, 2 },
    { "fchmodat2", META_CHMOD, 0, 1, 3, false, 2 },
    { "chown", META_CHOWN, -1, 0, -1, false, 1 },
    { "lchown", META_CHOWN, -1, 0, -1, true, 1 },
    { "fchown", META_CHOWN, 0, -1, -1, false, 1 },
    { "fchownat", META_CHOWN, 0, 1, 4, false, 2 },
    { "utime", META_UTIME, -1, 0, -1, false, 1 },
    { "utimes", META_UTIMES, -1, 0, -1, false, 1 },
    { "futimesat", META_UTIMES, 0, 1, -1, false, 2 },
    { "utimensat", META_UTIMENS, 0, 1, 3, false, 2 },
    { "setxattr", META_SETXATTR, -1, 0, -1, false, 1 },
    { "lsetxattr", META_SETXATTR, -1, 0, -1, true, 1 },
    { "fsetxattr", META_SETXATTR, 0, -1, -1, false, 1 },
    { "removexattr", META_REMOVEXATTR, -1, 0, -1, false, 1 },
    { "lremovexattr", META_REMOVEXATTR, -1, 0, -1, true, 1 },
    { "fremovexattr", META_REMOVEXATTR, 0, -1, -1, false, 1 },
};

static const struct meta_call *find(const char *name)
{
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (!strcmp(calls[i].name, name))
            return &calls[i];
    return NULL;
}

bool landlock_meta_handles(const char *name)
{
    return find(name) != NULL;
}

/* A NUL-terminated string of at most len - 1 bytes from the command's
 * memory, read page by page (a read across the end of its mapping fails
 * whole). */
static bool read_string(pid_t pid, uint64_t addr, char *out, size_t len)
{
    size_t got = 0;
    while (got + 1 < len) {
        size_t page = 4096 - (size_t)((addr + got) % 4096);
        size_t n = page < len - 1 - got ? page : len - 1 - got;
        if (!ledger_read_target(pid, addr + got, out + got, n))
            return false;
        void *nul = memchr(out + got, '\0', n);
        if (nul)
            return true;
        got += n;
    }
    return false; /* longer than PATH_MAX: ENAMETOOLONG for the kernel */
}

/* What fd names, if it is a path the host could reach again later: not
 * a pipe, socket, anonymous inode, or a file deleted since. */
static bool reachable_path(int fd, char *path, size_t len)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, len - 1);
    if (n <= 0 || (size_t)n >= len - 1)
        return true; /* too long to tell: treated as reachable, refused below */
    path[n] = '\0';
    const char deleted[] = " (deleted)";
    size_t dl = sizeof deleted - 1;
    if (path[0] != '/' || ((size_t)n > dl && !strcmp(path + n - dl, deleted)))
        return false;
    return true;
}

static bool within_writable(const char *path, const struct strv *writable)
{
    for (size_t i = 0; i < writable->n; i++)
        if (mount_path_within(path, writable->v[i]))
            return true;
    return false;
}

/* The target, opened once: the descriptor itself (fchmod, fchown, ...,
 * or an empty path with AT_EMPTY_PATH, or utimensat's NULL path), else
 * the path from the directory descriptor or the thread's working
 * directory, O_PATH. -1 with errno for the command. */
static int open_target(const struct meta_call *c, const uint64_t a[6], pid_t tid, pid_t tgid,
                       bool nofollow, bool *is_fd)
{
    *is_fd = false;
    char path[PATH_MAX];
    bool have_path = c->path_arg >= 0 && a[c->path_arg] != 0;
    if (have_path && !read_string(tid, a[c->path_arg], path, sizeof path)) {
        errno = EFAULT;
        return -1;
    }
    int flags = c->flags_arg >= 0 ? (int)a[c->flags_arg] : 0;
    bool empty = have_path && !path[0];
    if (!have_path || (empty && (flags & AT_EMPTY_PATH))) {
        if (c->dirfd_arg < 0) {
            errno = EFAULT;
            return -1;
        }
        int fd = ledger_target_fd(tid, tgid, a[c->dirfd_arg], false);
        if (fd < 0)
            errno = EBADF;
        *is_fd = fd >= 0;
        return fd;
    }
    if (empty) {
        errno = ENOENT;
        return -1;
    }
    int base;
    if (path[0] == '/') {
        base = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    } else if (c->dirfd_arg < 0 || (int)a[c->dirfd_arg] == AT_FDCWD) {
        char cwd[64];
        snprintf(cwd, sizeof cwd, "/proc/%d/task/%d/cwd", (int)tgid, (int)tid);
        base = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
    } else {
        base = ledger_target_fd(tid, tgid, a[c->dirfd_arg], false);
    }
    if (base < 0) {
        errno = EBADF;
        return -1;
    }
    int fd = openat(base, path, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    int e = errno;
    close(base);
    errno = e;
    return fd;
}

/* The times of utime, utimes, futimesat and utimensat, as utimensat's;
 * NULL (now) when the command passed none. */
static bool read_times(const struct meta_call *c, const uint64_t a[6], pid_t pid,
                       struct timespec ts[2], bool *now)
{
    uint64_t at = a[c->first];
    *now = at == 0;
    if (*now)
        return true;
    if (c->op == META_UTIME) {
        struct utimbuf u;
        if (!ledger_read_target(pid, at, &u, sizeof u))
            return false;
        ts[0] = (struct timespec){ u.actime, 0 };
        ts[1] = (struct timespec){ u.modtime, 0 };
    } else if (c->op == META_UTIMES) {
        struct timeval tv[2];
        if (!ledger_read_target(pid, at, tv, sizeof tv))
            return false;
        for (int i = 0; i < 2; i++)
            ts[i] = (struct timespec){ tv[i].tv_sec, tv[i].tv_usec * 1000 };
    } else if (!ledger_read_target(pid, at, ts, 2 * sizeof *ts)) {
        return false;
    }
    return true;
}

static int make(const struct meta_call *c, const uint64_t a[6], pid_t tid, int fd, bool is_fd,
                bool symlink)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    int rc = 0;
    switch (c->op) {
    case META_CHMOD: {
        mode_t mode = (mode_t)a[c->first] & 07777;
        struct stat st;
        if (fstat(fd, &st) < 0)
            return errno;
        /* nosuid, as the namespace tier's mounts: a root caller's command
         * would leave a set-user-ID root program in the project */
        if ((mode & S_ISUID) || ((mode & S_ISGID) && (mode & S_IXGRP) && !S_ISDIR(st.st_mode)))
            return EPERM;
        if (symlink)
            return EOPNOTSUPP;
        rc = is_fd && !(fcntl(fd, F_GETFL) & O_PATH) ? fchmod(fd, mode)
                                                     : fchmodat(AT_FDCWD, proc, mode, 0);
        break;
    }
    case META_CHOWN:
        rc = fchownat(fd, "", (uid_t)a[c->first], (gid_t)a[c->first + 1], AT_EMPTY_PATH);
        break;
    case META_UTIME:
    case META_UTIMES:
    case META_UTIMENS: {
        struct timespec ts[2];
        bool now;
        if (!read_times(c, a, tid, ts, &now))
            return EFAULT;
        rc = (int)syscall(SYS_utimensat, fd, "", now ? NULL : ts, AT_EMPTY_PATH);
        if (rc < 0 && errno == EINVAL && !symlink)
            rc = utimensat(AT_FDCWD, proc, now ? NULL : ts, 0);
        break;
    }
    case META_SETXATTR:
    case META_REMOVEXATTR: {
        char name[XATTR_NAME_MAX + 1];
        if (!read_string(tid, a[c->first], name, sizeof name))
            return ERANGE;
        if (symlink)
            return EPERM; /* user.* attributes are refused on symlinks anyway */
        if (c->op == META_REMOVEXATTR) {
            rc = is_fd && !(fcntl(fd, F_GETFL) & O_PATH) ? fremovexattr(fd, name)
                                                         : removexattr(proc, name);
            break;
        }
        size_t size = (size_t)a[c->first + 2];
        if (size > XATTR_SIZE_MAX)
            return E2BIG;
        void *value = malloc(size ? size : 1);
        if (!value)
            return ENOMEM;
        if (size && !ledger_read_target(tid, a[c->first + 1], value, size)) {
            free(value);
            return EFAULT;
        }
        int flags = (int)a[c->first + 3];
        rc = is_fd && !(fcntl(fd, F_GETFL) & O_PATH) ? fsetxattr(fd, name, value, size, flags)
                                                     : setxattr(proc, name, value, size, flags);
        int e = errno;
        free(value);
        errno = e;
        break;
    }
    }
    return rc < 0 ? errno : 0;
}

bool landlock_meta_make_call(const char *name, const uint64_t args[6], bool compat, pid_t tid,
                             pid_t tgid, const struct strv *writable, int *err)
{
    *err = 0;
    const struct meta_call *c = find(name);
    /* i386's layouts (32-bit times and pointers) are not read here: refused */
    if (!c || compat)
        return false;
    int flags = c->flags_arg >= 0 ? (int)args[c->flags_arg] : 0;
    bool nofollow = c->nofollow || (flags & AT_SYMLINK_NOFOLLOW);
    bool is_fd;
    int fd = open_target(c, args, tid, tgid, nofollow, &is_fd);
    if (fd < 0) {
        *err = errno; /* what the kernel would have said resolving it */
        return true;
    }
    char path[PATH_MAX];
    struct stat st;
    bool symlink = fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) == 0 &&
                   S_ISLNK(st.st_mode);
    if (reachable_path(fd, path, sizeof path) && !within_writable(path, writable)) {
        close(fd);
        return false;
    }
    *err = make(c, args, tid, fd, is_fd, symlink);
    close(fd);
    return true;
}
