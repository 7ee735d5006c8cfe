#include "config.h"

#include "output_file.h"

#include "log.h"
#include "mount-plan.h"
#include "mount-walk.h"
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

/* "-" and the names Linux gives a process's own descriptors: the
 * descriptor, or -1. */
static int named_descriptor(const char *path)
{
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    const char *n = !strncmp(path, "/dev/fd/", 8)         ? path + 8
                    : !strncmp(path, "/proc/self/fd/", 14) ? path + 14
                                                           : NULL;
    if (!n || !*n || strspn(n, "0123456789") != strlen(n) || strlen(n) > 9)
        return -1;
    return atoi(n);
}

struct planted_ctx {
    const struct strv *writable;
    uid_t self;
};

static enum walk_link planted_link(const char *link, const struct stat *st, void *data)
{
    const struct planted_ctx *c = data;
    return mount_link_maybe_planted(link, st->st_uid, c->self, c->writable) ? WALK_REFUSE
                                                                            : WALK_FOLLOW;
}

static void use_descriptor(struct output_file *f, int n, const char *what)
{
    int flags = fcntl(n, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
        die("%s: %s names descriptor %d, which is not open for writing", what, f->path, n);
    /* a descriptor of sbx's own, above the command's 0-2, never inherited */
    f->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
    if (f->fd < 0)
        die_errno("%s: %s: duplicating descriptor %d", what, f->path, n);
    struct stat st;
    if (fstat(f->fd, &st) == 0) {
        f->dev = st.st_dev;
        f->ino = st.st_ino;
    }
}

/* The temporary name proves a file can be created: an unwritable
 * directory must stop sbx before the command runs. */
static void check_creatable(struct output_file *f, const char *dir, const char *what)
{
    char name[64];
    int fd = create_temporary(f, name, sizeof name);
    if (fd < 0)
        die_errno("%s: cannot create a file in %s (for %s)", what, dir, f->path);
    close(fd);
    unlinkat(f->dir_fd, name, 0);
}

/* Decides what `name` (the caller's path, or a link's target on the way)
 * is, as output_file.h lists. depth counts the links followed. */
static void decide(struct output_file *f, const char *name, const char *what,
                   const struct planted_ctx *ctx, int depth)
{
    int n = named_descriptor(name);
    if (n >= 0) {
        use_descriptor(f, n, what);
        return;
    }
    if (depth > 40) {
        errno = ELOOP;
        die_errno("%s: %s", what, f->path);
    }
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
        die("%s: %s names a directory, not a file: add a file name", what, f->path);
    autofree char *dir = slash == name ? xstrdup("/")
                         : slash       ? xstrndup(name, (size_t)(slash - name))
                                       : xstrdup(".");
    autofree char *abs_dir = NULL;
    if (dir[0] == '/') {
        abs_dir = xstrdup(dir);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            die_errno("%s: %s: the working directory", what, f->path);
        abs_dir = xasprintf("%s/%s", cwd, dir);
    }
    /* The directory is resolved once, here, before any sandbox exists,
     * one component at a time: later renames of it or of its parents do
     * not move the fd, and a symlink a sandbox could have planted on the
     * way (an earlier run's `ln -s ~/.ssh out`) redirects nothing. */
    struct walk_result r;
    int err = walk_path(abs_dir, planted_link, NULL, (void *)ctx, false, NULL, &r);
    if (!err && r.found == WALK_MISSING)
        err = ENOENT;
    if (!err && r.found == WALK_REFUSED) {
        char *msg = xasprintf("%s: %s goes through the symlink %s -> %s, which a sandbox "
                              "could have made; sbx follows no such link for the record (name "
                              "the directory it points to, or replace the link with the "
                              "directory itself)", what, f->path, r.path, r.target);
        walk_result_free(&r);
        die("%s", msg);
    }
    if (!err && !S_ISDIR(r.st.st_mode))
        err = ENOTDIR;
    if (err) {
        walk_result_free(&r);
        errno = err;
        die_errno("%s: cannot open %s for writing", what, f->path);
    }
    f->dir_fd = r.fd;
    r.fd = -1;
    f->dev = r.st.st_dev;
    f->ino = r.st.st_ino;
    autofree char *canon = r.path;
    r.path = NULL;
    walk_result_free(&r);
    free(f->base);
    f->base = xstrdup(base);

    struct stat st;
    if (fstatat(f->dir_fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno != ENOENT)
            die_errno("%s: cannot look at %s", what, f->path);
        check_creatable(f, canon, what);
        return;
    }
    autofree char *here = !strcmp(canon, "/") ? xasprintf("/%s", base)
                                              : xasprintf("%s/%s", canon, base);
    bool planted = mount_link_maybe_planted(here, st.st_uid, ctx->self, ctx->writable);
    if (S_ISREG(st.st_mode)) {
        check_creatable(f, canon, what);
        return;
    }
    if (S_ISLNK(st.st_mode) && planted) {
        /* Replaced at the end, never followed. What it points to decides
         * whether the caller may have meant something other than a file
         * (a link to /dev/null they made), which sbx then refuses rather
         * than replace. */
        struct stat target;
        if (fstatat(f->dir_fd, base, &target, 0) == 0 && !S_ISREG(target.st_mode))
            die("%s: %s is a symbolic link to a %s: sbx writes the record as a new regular "
                "file in place of the name, never through a link; name a regular file",
                what, f->path, file_kind(target.st_mode));
        check_creatable(f, canon, what);
        return;
    }
    if (S_ISLNK(st.st_mode)) {
        /* The host's own link (/dev/stdout -> /proc/self/fd/1, a link of
         * yours outside every writable place): the caller means what it
         * names, and replacing it would change the machine. */
        char target[PATH_MAX];
        ssize_t len = readlinkat(f->dir_fd, base, target, sizeof target - 1);
        if (len <= 0)
            die_errno("%s: cannot read the symbolic link %s", what, here);
        target[len] = '\0';
        autofree char *next = target[0] == '/' ? xstrdup(target)
                                               : xasprintf("%s/%s", canon, target);
        close(f->dir_fd);
        f->dir_fd = -1;
        decide(f, next, what, ctx, depth + 1);
        return;
    }
    if (S_ISCHR(st.st_mode) || (S_ISFIFO(st.st_mode) && !planted)) {
        /* Written into, never replaced: a device node or the caller's own
         * fifo is not sbx's to remove. A fifo is opened only at the end
         * (a writer waits for its reader). */
        bool fifo = S_ISFIFO(st.st_mode);
        f->fd = openat(f->dir_fd, base,
                       (fifo ? O_PATH : O_WRONLY | O_NOCTTY) | O_NOFOLLOW | O_CLOEXEC);
        if (f->fd < 0 || (fifo && faccessat(f->dir_fd, base, W_OK, AT_EACCESS) < 0))
            die_errno("%s: cannot open %s (a %s) for writing", what, f->path,
                      file_kind(st.st_mode));
        f->reopen = fifo;
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        close(f->dir_fd);
        f->dir_fd = -1;
        return;
    }
    die("%s: %s is a %s, not a regular file: remove it or name another file%s", what, f->path,
        file_kind(st.st_mode),
        S_ISFIFO(st.st_mode) ? " (it lies where a sandbox can write, which could have made it)"
                             : "");
}

void output_file_open(struct output_file *f, const char *path, const char *what,
                      const struct strv *writable)
{
    memset(f, 0, sizeof *f);
    f->dir_fd = f->fd = -1;
    f->path = xstrdup(path);
    static const struct strv none = { 0 };
    struct planted_ctx ctx = { .writable = writable ? writable : &none, .self = geteuid() };
    decide(f, path, what, &ctx, 0);
}

void output_file_recheck(struct output_file *f, const char *what, const struct strv *writable)
{
    if (!output_file_usable(f))
        return;
    autofree char *path = xstrdup(f->path);
    /* unusable first: a die() below must not write the record there */
    output_file_close(f);
    output_file_open(f, path, what, writable);
}

bool output_file_usable(const struct output_file *f)
{
    return f->dir_fd >= 0 || f->fd >= 0;
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

static bool write_descriptor(struct output_file *f, const char *text, size_t len)
{
    int fd = f->fd;
    if (f->reopen) {
        /* the fifo decided on at the start, whatever its name holds now */
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
        fd = open(proc, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            return false;
    }
    bool ok = write_all(fd, text, len);
    int e = errno;
    if (f->reopen && close(fd) < 0 && ok) {
        e = errno;
        ok = false;
    }
    errno = e;
    return ok;
}

bool output_file_publish(struct output_file *f, const char *text, size_t len, const char *what)
{
    if (f->fd >= 0)
        return write_descriptor(f, text, len);
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
    if (f->fd >= 0)
        close(f->fd);
    f->dir_fd = f->fd = -1;
    f->reopen = false;
    free(f->base);
    free(f->path);
    f->base = f->path = NULL;
}
