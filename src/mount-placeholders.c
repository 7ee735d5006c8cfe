#include "config.h"

#include "mount-placeholders.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* Marks a directory sbx made, so that the last run to hold it removes it
 * even when it is not the run that made it (two runs at once: the first
 * to end cannot, the second did not make it). Best effort: a file system
 * without user xattrs leaves such a directory behind, as before. */
#define PLACEHOLDER_XATTR "user.sbx.placeholder"

struct hold {
    int lock_fd;        /* a real descriptor (flock needs one), -1 when none */
    dev_t dev;
    ino_t ino;
    bool made;          /* made by this process: removed after the run */
    int dirfd;          /* made: O_PATH on its directory */
    char *name;
    bool is_dir;
    char *content;      /* made file: what sbx wrote */
};

static struct hold *holds;
static size_t nholds;
static pid_t maker;     /* the process the holds belong to */

static void at_exit(void)
{
    mount_placeholders_remove();
}

static struct hold *find(dev_t dev, ino_t ino)
{
    for (size_t i = 0; i < nholds; i++)
        if (holds[i].dev == dev && holds[i].ino == ino)
            return &holds[i];
    return NULL;
}

/* A descriptor flock() accepts, on the object fd names (O_PATH): a
 * directory or a regular file, nothing else (a FIFO would block, a device
 * be opened). -1 when there is none. */
static int lockable(int fd, const struct stat *st)
{
    if (S_ISDIR(st->st_mode))
        return openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!S_ISREG(st->st_mode))
        return -1;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

/* The shared lock, waiting a little for a run that is removing it (that
 * takes microseconds); anyone else who holds it exclusively (any user who
 * can open the file) is not waited for: the object is then used unlocked,
 * as before placeholders were removed. */
static void lock_shared(int fd)
{
    for (int i = 0; i < 200; i++) {
        if (flock(fd, LOCK_SH | LOCK_NB) == 0 || errno != EWOULDBLOCK)
            return;
        nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
    }
}

static struct hold *add(int lock_fd, const struct stat *st)
{
    /* The first hold of a run names its maker (one getpid(), not one a
     * protected path: ~20 a run). The holds are a plan's, made in the
     * process that runs the sandbox and emptied when that run ends
     * (mount_placeholders_remove()); its children (init, the command,
     * the helpers it forks and execs) never make a plan while it holds
     * them, and their exit removes nothing (the check there). */
    if (!holds) {
        static bool registered;
        if (!registered && atexit(at_exit) == 0)
            registered = true;
        maker = getpid();
    }
    holds = xrealloc(holds, (nholds + 1) * sizeof *holds);
    holds[nholds] = (struct hold){ .lock_fd = lock_fd, .dev = st->st_dev, .ino = st->st_ino,
                                   .dirfd = -1 };
    return &holds[nholds++];
}

bool mount_placeholders_hold(struct walk_result *r, const char *file_content)
{
    /* what the walk made, in order: each locked before the object is */
    for (size_t i = 0; i < r->nmade; i++) {
        struct walk_made *m = &r->made[i];
        int fd = openat(m->dirfd, m->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != m->dev || st.st_ino != m->ino) {
            if (fd >= 0)
                close(fd);
            continue; /* changed already: not ours to remove */
        }
        int lock_fd = lockable(fd, &st);
        close(fd);
        if (lock_fd >= 0)
            lock_shared(lock_fd);
        struct hold *h = add(lock_fd, &st);
        h->made = true;
        h->dirfd = m->dirfd;
        m->dirfd = -1;
        h->name = m->name;
        m->name = NULL;
        h->is_dir = m->is_dir;
        if (m->is_dir && lock_fd >= 0)
            (void)fsetxattr(lock_fd, PLACEHOLDER_XATTR, "1", 1, 0);
        bool last = i + 1 == r->nmade;
        h->content = !m->is_dir && last && file_content ? xstrdup(file_content) : NULL;
    }
    walk_made_free(r->made, r->nmade);
    r->made = NULL;
    r->nmade = 0;
    /* the walk's own stat of r->fd: a descriptor's identity and type
     * never change */
    struct stat st = r->st;
    if (r->fd < 0 || find(st.st_dev, st.st_ino))
        return true;
    int lock_fd = lockable(r->fd, &st);
    if (lock_fd < 0)
        return true;
    lock_shared(lock_fd);
    /* removed by the run that made it while we waited for the lock */
    struct stat now;
    if (fstat(lock_fd, &now) == 0 && now.st_nlink == 0) {
        close(lock_fd);
        return false;
    }
    struct hold *h = add(lock_fd, &st);
    /* a directory another run made and marked: ours to remove too, when we
     * are the last to hold it */
    if (S_ISDIR(st.st_mode) && r->path && strcmp(r->path, "/") != 0 &&
        fgetxattr(lock_fd, PLACEHOLDER_XATTR, NULL, 0) >= 0) {
        autofree char *dir = xstrdup(r->path);
        char *slash = strrchr(dir, '/');
        h->name = xstrdup(slash + 1);
        *slash = '\0';
        h->dirfd = open(dir[0] ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        h->made = h->dirfd >= 0;
        h->is_dir = true;
    }
    return true;
}

/* The file still holds exactly what sbx wrote. */
static bool unchanged_file(const struct hold *h, const struct stat *st)
{
    size_t len = strlen(h->content);
    if (!S_ISREG(st->st_mode) || (size_t)st->st_size != len || h->lock_fd < 0)
        return false;
    autofree char *buf = xmalloc(len + 1);
    ssize_t n = pread(h->lock_fd, buf, len + 1, 0);
    return n == (ssize_t)len && memcmp(buf, h->content, len) == 0;
}

static bool remove_one(struct hold *h)
{
    struct stat st;
    if (fstatat(h->dirfd, h->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != h->dev ||
        st.st_ino != h->ino)
        return false; /* moved, replaced (a symlink, another directory): not ours */
    /* another run still has it bound: removing it would detach that mount */
    if (h->lock_fd < 0 || flock(h->lock_fd, LOCK_EX | LOCK_NB) < 0)
        return false;
    if (h->is_dir ? !S_ISDIR(st.st_mode) : h->content ? !unchanged_file(h, &st) : true)
        return false;
    /* rmdir: an empty directory only; EBUSY: a mount point of ours still */
    if (unlinkat(h->dirfd, h->name, h->is_dir ? AT_REMOVEDIR : 0) < 0)
        return false;
    verbose("mount: removed %s, made to keep a protected path read-only", h->name);
    h->made = false;
    return true;
}

void mount_placeholders_remove(void)
{
    if (maker != getpid()) /* init, a child: the holds are the supervisor's */
        return;
    /* newest first; again while that empties a directory held earlier
     * (a marked parent found after its child) */
    for (bool progress = true; progress;) {
        progress = false;
        for (size_t i = nholds; i-- > 0;)
            if (holds[i].made && remove_one(&holds[i]))
                progress = true;
    }
    for (size_t i = 0; i < nholds; i++) {
        if (holds[i].lock_fd >= 0)
            close(holds[i].lock_fd);
        if (holds[i].dirfd >= 0)
            close(holds[i].dirfd);
        free(holds[i].name);
        free(holds[i].content);
    }
    free(holds);
    holds = NULL;
    nholds = 0;
}
