#include "config.h"

#include "output_file.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_kind(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFDIR: return "directory";
    case S_IFIFO: return "fifo";
    case S_IFSOCK: return "socket";
    case S_IFCHR: return "character device";
    case S_IFBLK: return "block device";
    case S_IFLNK: return "symbolic link";
    }
    return "special file";
}

/* A new file in f->dir_fd under a name of our own. O_EXCL fails on any
 * existing entry, a symbolic link included, so the descriptor returned
 * is always a file this call created. */
static int create_temporary(const struct output_file *f, char *name, size_t len)
{
    static unsigned counter;
    for (int tries = 0; tries < 100; tries++) {
        snprintf(name, len, ".sbx-output.%ld.%u", (long)getpid(), counter++);
        int fd = openat(f->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
                                              O_NOCTTY, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

void output_file_open(struct output_file *f, const char *path, const char *what)
{
    memset(f, 0, sizeof *f);
    f->dir_fd = -1;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
        die("%s: %s names a directory, not a file: add a file name", what, path);
    char *dir = slash == path ? xstrdup("/") : slash ? xstrndup(path, (size_t)(slash - path))
                                                     : xstrdup(".");
    /* The directory is resolved once, here, before any sandbox exists;
     * later renames of it or of its parents do not move the fd. */
    f->dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (f->dir_fd < 0)
        die_errno("%s: cannot open %s for writing", what, path);

    struct stat st;
    if (fstatat(f->dir_fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno != ENOENT)
            die_errno("%s: cannot look at %s", what, path);
    } else if (!S_ISREG(st.st_mode)) {
        /* A link is replaced at the end; what it points to decides
         * whether the caller may have meant something other than a file
         * (/dev/stdout, /dev/null), which sbx then refuses rather than
         * replace the link in /dev. */
        struct stat target;
        if (!S_ISLNK(st.st_mode))
            die("%s: %s is a %s, not a regular file: remove it or name another file", what, path,
                file_kind(st.st_mode));
        if (fstatat(f->dir_fd, base, &target, 0) == 0 && !S_ISREG(target.st_mode))
            die("%s: %s is a symbolic link to a %s: sbx writes the record as a new regular "
                "file in place of the name, never through a link; name a regular file",
                what, path, file_kind(target.st_mode));
    }

    /* An unwritable directory must stop sbx before the command runs. */
    char name[64];
    int fd = create_temporary(f, name, sizeof name);
    if (fd < 0)
        die_errno("%s: cannot create a file in %s (for %s)", what, dir, path);
    close(fd);
    unlinkat(f->dir_fd, name, 0);
    free(dir);
    f->base = xstrdup(base);
    f->path = xstrdup(path);
}

/* What the name holds just before it is replaced, said when it was not a
 * plain file of its own: a sandbox may have planted it. */
static void describe_replaced(const struct output_file *f, const char *what)
{
    struct stat st;
    if (fstatat(f->dir_fd, f->base, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return;
    if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlinkat(f->dir_fd, f->base, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        warn("warning: %s: %s was a symbolic link (to %s): replaced by the file, what it "
             "points to is unchanged", what, f->path, target);
    } else if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
        warn("warning: %s: %s had %ju other hard link%s: replaced by a new file, the file "
             "they share is unchanged", what, f->path, (uintmax_t)(st.st_nlink - 1),
             st.st_nlink > 2 ? "s" : "");
    } else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        warn("warning: %s: %s was a %s: replaced by the file", what, f->path,
             file_kind(st.st_mode));
    }
}

bool output_file_publish(struct output_file *f, const char *text, size_t len, const char *what)
{
    if (f->dir_fd < 0) {
        errno = EBADF;
        return false;
    }
    char name[64];
    int fd = create_temporary(f, name, sizeof name);
    if (fd < 0)
        return false;
    bool ok = write_all(fd, text, len);
    int e = errno;
    if (close(fd) < 0 && ok) {
        e = errno;
        ok = false;
    }
    if (ok) {
        describe_replaced(f, what);
        /* rename(2) over a directory fails (EISDIR); over anything else
         * it replaces the entry itself. */
        if (renameat(f->dir_fd, name, f->dir_fd, f->base) < 0) {
            e = errno;
            ok = false;
        }
    }
    if (!ok) {
        unlinkat(f->dir_fd, name, 0);
        errno = e;
    }
    return ok;
}

char *output_file_read(struct output_file *f, size_t max, size_t *len)
{
    *len = 0;
    if (f->dir_fd < 0)
        return NULL;
    int fd = openat(f->dir_fd, f->base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
        close(fd);
        return NULL;
    }
    char *buf = xcalloc(1, (size_t)st.st_size + 1);
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    *len = got;
    return buf;
}

void output_file_close(struct output_file *f)
{
    if (f->dir_fd >= 0)
        close(f->dir_fd);
    f->dir_fd = -1;
    free(f->base);
    free(f->path);
    f->base = f->path = NULL;
}
