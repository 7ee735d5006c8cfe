#include "config.h"

#include "layer_store.h"

#include "layers.h"
#include "log.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Deeper than any cache tree sbx has met (a Go module path is ~20); the
 * walks hold one descriptor a level. */
#define MAX_DEPTH 512

static int mkdir_parents(const char *dir)
{
    autofree char *copy = xstrdup(dir);
    for (char *s = copy + 1; ; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(copy, 0700) < 0 && errno != EEXIST)
            return errno;
        *s = c;
        if (!c)
            return 0;
    }
}

/* One directory below dirfd: no symlink, the caller's (self: geteuid(),
 * asked once by each caller, not once a directory), made 0700 when
 * missing and create. Returns an fd (O_RDONLY | O_DIRECTORY) or -1 with
 * *error set. */
static int open_own_dir(int dirfd, const char *shown_parent, const char *name, bool create,
                        uid_t self, char **error)
{
    /* opened first: on every run but the first, everything exists */
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
        if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST) {
            int e = errno;
            *error = xasprintf("creating %s/%s: %s", shown_parent, name, strerror(e));
            errno = e;
            return -1;
        }
        fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) {
        int e = errno;
        *error = xasprintf("opening %s/%s: %s%s", shown_parent, name, strerror(e),
                           e == ELOOP || e == ENOTDIR
                               ? " (a symlink or file where sbx keeps its layers: remove it; "
                                 "sbx never follows one there)"
                               : "");
        errno = e;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_uid != self) {
        *error = xasprintf("%s/%s is not yours (owner uid %ld): sbx keeps its layers only in "
                           "directories of the caller's", shown_parent, name,
                           (long)st.st_uid);
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

/* root = STATE/sbx/layers: STATE is the caller's (followed as the host
 * has it); sbx and layers are walked. */
static int open_root(const char *root, bool create, uid_t self, char **error)
{
    autofree char *state = xstrdup(root);
    char *cut = strstr(state, "/sbx/layers");
    if (!cut || strcmp(cut, "/sbx/layers")) {
        *error = xasprintf("%s: not a layers root", root);
        return -1;
    }
    *cut = '\0';
    /* opened first: on every run but the first it exists (a mkdir per
     * component otherwise, each failing with EEXIST) */
    int s = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (s < 0 && errno == ENOENT && create) {
        int err = mkdir_parents(state);
        if (err) {
            *error = xasprintf("creating %s: %s", state, strerror(err));
            errno = err;
            return -1;
        }
        s = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    autoclose int state_fd = s;
    if (s < 0) {
        int err = errno;
        *error = xasprintf("opening %s: %s", state, strerror(err));
        errno = err;
        return -1;
    }
    autoclose int sbx = open_own_dir(s, state, "sbx", create, self, error);
    if (sbx < 0)
        return -1;
    autofree char *shown = xasprintf("%s/sbx", state);
    return open_own_dir(sbx, shown, "layers", create, self, error);
}

static void remove_ended_snapshots(int layer, const char *shown);
static bool snapshot_in_use(int layer);

/* The profile's directory of the layer opened last, kept for the next
 * one: a plan opens its cache layers one after the other (qa: four), and
 * each walked the state directory, sbx/ and layers/ again (~10 calls a
 * layer). Kept only until layer_store_done() (the end of that plan's
 * layers), and dropped whenever an attempt fails or is retried: a
 * profile directory `sbx cache clear` removed meanwhile is opened anew. */
static struct {
    char *root, *profile;
    uid_t self;
    int fd;
} kept = { .fd = -1 };

static void forget_kept(void)
{
    int e = errno;
    if (kept.fd >= 0)
        close(kept.fd);
    free(kept.root);
    free(kept.profile);
    kept.root = kept.profile = NULL;
    kept.fd = -1;
    errno = e;
}

void layer_store_done(void)
{
    forget_kept();
}

static int open_layer_once_in(int pr, const char *root, const char *profile, const char *name,
                              uid_t self, int *layer_out, char **error);

/* One attempt of layer_store_open(): 1 done, 0 to try again (the layer
 * was removed by `sbx cache clear` between our open and our lock), -1
 * failed. */
static int open_layer_once(const char *root, const char *profile, const char *name,
                           int *layer_out, char **error)
{
    uid_t self = geteuid();
    if (kept.fd < 0 || kept.self != self || strcmp(kept.root, root) ||
        strcmp(kept.profile, profile)) {
        forget_kept();
        autoclose int r = open_root(root, true, self, error);
        if (r < 0)
            return -1;
        int pr = open_own_dir(r, root, profile, true, self, error);
        if (pr < 0)
            return errno == ENOENT ? 0 : -1;
        kept.root = xstrdup(root);
        kept.profile = xstrdup(profile);
        kept.self = self;
        kept.fd = pr;
    }
    int done = open_layer_once_in(kept.fd, root, profile, name, self, layer_out, error);
    /* another run holding the layer says nothing of the directory */
    if (done == 0 || (done < 0 && errno != EBUSY))
        forget_kept();
    return done;
}

static int open_layer_once_in(int pr, const char *root, const char *profile, const char *name,
                              uid_t self, int *layer_out, char **error)
{
    autofree char *shown = xasprintf("%s/%s", root, profile);
    int layer = open_own_dir(pr, shown, name, true, self, error);
    if (layer < 0)
        return errno == ENOENT ? 0 : -1;
    /* The lock rides on this open file description, and so goes when the
     * supervisor exits however it exits (SIGKILL included): no lock file
     * to go stale. init closes its inherited copy first thing
     * (init.c close_inherited_fds()), the command never has one. */
    if (flock(layer, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        *error = xasprintf("%s/%s: %s", shown, name,
                           e == EWOULDBLOCK ? "in use by another run (or sbx cache clear)"
                                            : strerror(e));
        close(layer);
        errno = e == EWOULDBLOCK ? EBUSY : e;
        return -1;
    }
    struct stat st;
    if (fstat(layer, &st) < 0 || st.st_nlink == 0) {
        close(layer);
        return 0;
    }
    autofree char *layer_shown = xasprintf("%s/%s", shown, name);
    for (int i = 0; i < 2; i++) {
        int d = open_own_dir(layer, layer_shown, i ? "work" : "upper", true, self, error);
        if (d < 0) {
            close(layer);
            return -1;
        }
        close(d);
    }
    remove_ended_snapshots(layer, layer_shown);
    *layer_out = layer;
    return 1;
}

int layer_store_open(const char *root, const char *profile, const char *path, char **layer_path,
                     char **error)
{
    *error = NULL;
    autofree char *name = layer_name(path);
    if (!name) {
        *error = xasprintf("%s: the path is too long to name a layer", path);
        return -1;
    }
    int layer = -1, done = 0;
    for (int attempt = 0; attempt < 3 && !done; attempt++) {
        free(*error);
        *error = NULL;
        done = open_layer_once(root, profile, name, &layer, error);
        if (done < 0)
            return -1;
    }
    if (!done) {
        if (!*error)
            *error = xasprintf("%s/%s/%s: removed again and again while being opened (sbx "
                               "cache clear in a loop?)", root, profile, name);
        errno = EBUSY;
        return -1;
    }
    free(*error);
    *error = NULL;
    /* The path mount.c opens again in the sandbox: canonical (the state
     * directory may be reached through a symlink of the caller's). */
    char link[PATH_MAX];
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", layer);
    ssize_t n = readlink(proc, link, sizeof link - 1);
    if (n <= 0 || (size_t)n >= sizeof link - 1) {
        *error = xasprintf("%s/%s/%s: reading back its path: %s", root, profile, name,
                           strerror(n < 0 ? errno : ENAMETOOLONG));
        close(layer);
        return -1;
    }
    link[n] = '\0';
    *layer_path = xstrdup(link);
    return layer;
}

/* Bytes in use below the directory fd (consumed), links not followed. */
static uint64_t tree_bytes(int fd, unsigned depth)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 0;
    }
    uint64_t sum = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        sum += (uint64_t)st.st_blocks * 512;
        if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
            int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                sum += tree_bytes(sub, depth + 1);
        }
    }
    closedir(d);
    return sum;
}

static void human(uint64_t bytes, char *buf, size_t len)
{
    static const char units[] = "BKMGT";
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u < sizeof units - 2) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%lluB", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%.1f%c", v, units[u]);
}

/* Calls fn for each entry of the directory fd but . and .. (fd kept). */
static bool each_name(int fd, bool (*fn)(int dirfd, const char *name, void *data), void *data)
{
    int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup < 0 ? NULL : fdopendir(dup);
    if (!d) {
        if (dup >= 0)
            close(dup);
        return false;
    }
    bool ok = true;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            ok &= fn(fd, de->d_name, data);
    closedir(d);
    return ok;
}

struct list_ctx {
    const char *root;
    const char *profile;
    unsigned count;
};

static bool list_layer(int profile_fd, const char *name, void *data)
{
    struct list_ctx *c = data;
    autofree char *path = layer_name_path(name);
    autofree char *shown = xasprintf("%s/%s/%s", c->root, c->profile, name);
    int fd = openat(profile_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (!path || fd < 0) {
        warn("sbx cache: %s: not a layer sbx made (%s): left alone; remove it yourself", shown,
             fd < 0 ? strerror(errno) : "its name names no path");
        if (fd >= 0)
            close(fd);
        return true;
    }
    uint64_t bytes = tree_bytes(fd, 0);
    char size[32];
    human(bytes, size, sizeof size);
    autofree char *stale = layer_store_profile_stale(c->profile);
    printf("%-20s %8s  %s  %s%s%s%s\n", c->profile, size, path, shown,
           stale ? "  (stale: the profile file " : "", stale ? stale : "",
           stale ? " is gone; sbx cache clear --stale)" : "");
    c->count++;
    return true;
}

static bool list_profile(int root_fd, const char *name, void *data)
{
    struct list_ctx *c = data;
    if (c->profile && strcmp(c->profile, name))
        return true;
    autofree char *error = NULL;
    autoclose int fd = open_own_dir(root_fd, c->root, name, false, geteuid(), &error);
    if (fd < 0) {
        warn("sbx cache: %s", error);
        return false;
    }
    const char *asked = c->profile;
    c->profile = name;
    bool ok = each_name(fd, list_layer, c);
    c->profile = asked;
    return ok;
}

/* The root for list and clear: -1 with *status 0 when there is none yet. */
static int open_existing_root(const char *root, const char *command, int *status)
{
    autofree char *error = NULL;
    int r = open_root(root, false, geteuid(), &error);
    if (r < 0) {
        *status = errno == ENOENT ? 0 : 125;
        if (errno == ENOENT)
            printf("no layers (%s does not exist)\n", root);
        else
            warn("sbx cache %s: %s", command, error);
    }
    return r;
}

int layer_store_list(const char *root, const char *profile)
{
    int status;
    autoclose int r = open_existing_root(root, "list", &status);
    if (r < 0)
        return status;
    struct list_ctx c = { .root = root, .profile = profile };
    bool ok = each_name(r, list_profile, &c);
    if (!c.count)
        printf("no layers%s%s in %s\n", profile ? " of profile " : "", profile ? profile : "",
               root);
    return ok ? 0 : 125;
}

struct clear_ctx {
    dev_t dev;
    const char *shown;   /* the directory being emptied, for messages */
    unsigned depth;
};

/* Removes name below dirfd: a directory emptied first (made writable for
 * its owner: Go's module cache and overlay's work directory are not), any
 * other file or link unlinked, never followed. */
static bool remove_entry(int dirfd, const char *name, void *data)
{
    struct clear_ctx *c = data;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        warn("sbx cache clear: %s/%s: %s", c->shown, name, strerror(errno));
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        if (st.st_dev != c->dev) {
            warn("sbx cache clear: %s/%s is a mount point: left alone", c->shown, name);
            return false;
        }
        if (c->depth >= MAX_DEPTH) {
            warn("sbx cache clear: %s/%s: deeper than %d directories: left alone", c->shown,
                 name, MAX_DEPTH);
            return false;
        }
        int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            /* 0000 (overlay's work/work): opened after the mode is set */
            if (errno == EACCES && fchmodat(dirfd, name, 0700, 0) == 0)
                fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) {
                warn("sbx cache clear: %s/%s: %s", c->shown, name, strerror(errno));
                return false;
            }
        }
        struct stat again;
        if (fstat(fd, &again) < 0 || again.st_ino != st.st_ino || again.st_dev != st.st_dev) {
            warn("sbx cache clear: %s/%s changed while it was being removed: left alone",
                 c->shown, name);
            close(fd);
            return false;
        }
        if ((again.st_mode & 0700) != 0700)
            (void)fchmod(fd, (again.st_mode & 07777) | 0700);
        autofree char *shown = xasprintf("%s/%s", c->shown, name);
        struct clear_ctx sub = { c->dev, shown, c->depth + 1 };
        bool ok = each_name(fd, remove_entry, &sub);
        close(fd);
        if (ok && unlinkat(dirfd, name, AT_REMOVEDIR) < 0) {
            warn("sbx cache clear: removing %s: %s", shown, strerror(errno));
            return false;
        }
        return ok;
    }
    if (unlinkat(dirfd, name, 0) < 0) {
        warn("sbx cache clear: removing %s/%s: %s", c->shown, name, strerror(errno));
        return false;
    }
    return true;
}

char *layer_store_profile_stale(const char *dir_name)
{
    /* layers_profile_name(): a plain name has neither; a file's name is
     * its canonical path escaped, "/" as %2F */
    if (!strchr(dir_name, '%') && !strstr(dir_name, ".ini"))
        return NULL;
    char *path = layer_name_path(dir_name);
    struct stat st;
    if (!path || lstat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR)) {
        free(path);
        return NULL;
    }
    return path;
}

struct clear_root_ctx {
    const char *root;
    const char *profile;
    bool stale_only;
    dev_t dev;
    unsigned removed;
    unsigned busy;
};

struct clear_profile_ctx {
    struct clear_root_ctx *root;
    const char *profile;
    const char *shown;
};

/* One layer of a profile: removed under its lock (layer_store_open()), so
 * that no run mounts it meanwhile, or left when a run holds it. */
static bool clear_layer(int profile_fd, const char *name, void *data)
{
    struct clear_profile_ctx *c = data;
    struct clear_ctx cc = { c->root->dev, c->shown, 1 };
    autoclose int fd = openat(profile_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && (flock(fd, LOCK_EX | LOCK_NB) < 0 || snapshot_in_use(fd))) {
        autofree char *path = layer_name_path(name);
        warn("sbx cache clear: %s/%s: the layer of cache = %s is in use by a run of %s now "
             "(or another sbx cache clear): left; clear it again once that run has ended",
             c->shown, name, path ? path : name, c->profile);
        c->root->busy++;
        return true;
    }
    return remove_entry(profile_fd, name, &cc);
}

static bool clear_profile(int root_fd, const char *name, void *data)
{
    struct clear_root_ctx *c = data;
    if (c->profile && strcmp(c->profile, name))
        return true;
    autofree char *stale = layer_store_profile_stale(name);
    if (c->stale_only && !stale)
        return true;
    autofree char *error = NULL;
    autoclose int fd = open_own_dir(root_fd, c->root, name, false, geteuid(), &error);
    if (fd < 0) {
        warn("sbx cache clear: %s", error);
        return false;
    }
    autofree char *shown = xasprintf("%s/%s", c->root, name);
    /* no run begins a snapshot of one of these layers meanwhile
     * (layer_store_snapshot()) */
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        warn("sbx cache clear: %s: %s", shown,
             errno == EWOULDBLOCK ? "a run is making a snapshot of a layer there, or another "
                                    "sbx cache clear is running: left; try again"
                                  : strerror(errno));
        c->busy++;
        return true;
    }
    unsigned busy = c->busy;
    struct clear_profile_ctx pc = { c, name, shown };
    if (!each_name(fd, clear_layer, &pc))
        return false;
    if (c->busy != busy)
        return true;
    if (unlinkat(root_fd, name, AT_REMOVEDIR) < 0) {
        /* a run made a new layer there meanwhile: it is its */
        if (errno == ENOTEMPTY || errno == EEXIST)
            return true;
        warn("sbx cache clear: removing %s: %s", shown, strerror(errno));
        return false;
    }
    c->removed++;
    printf("removed the layers of %s (%s)%s%s%s\n", name, shown,
           stale ? ": its profile file " : "", stale ? stale : "", stale ? " is gone" : "");
    return true;
}

int layer_store_clear(const char *root, const char *profile, bool stale_only)
{
    int status;
    autoclose int r = open_existing_root(root, "clear", &status);
    if (r < 0)
        return status;
    struct stat st;
    if (fstat(r, &st) < 0) {
        warn("sbx cache clear: %s: %s", root, strerror(errno));
        return 125;
    }
    struct clear_root_ctx c = { .root = root, .profile = profile, .stale_only = stale_only,
                                .dev = st.st_dev };
    bool ok = each_name(r, clear_profile, &c);
    if (ok && !c.removed && !c.busy)
        printf("no %slayers%s%s in %s\n", stale_only ? "stale " : "",
               profile ? " of profile " : "", profile ? profile : "", root);
    return ok && !c.busy ? 0 : 125;
}

/* --- snapshots of a layer in use --------------------------------------------
 * A run that finds a layer locked by another one cannot mount its upper/,
 * neither as its own upper nor as a lower: overlayfs marks an upper's root
 * in use and warns ("undefined behavior") for a lower in use just the
 * same. What it mounts as its top lower is a snapshot: LAYER/snap-PID-N, a
 * tree of new directories (modes and xattrs copied: user.overlay.opaque
 * makes a directory hide the host's) whose files are hard links to the
 * upper's (whiteouts, the 0/0 character devices, included): no data is
 * copied, the cost is one link a file. The snapshot is locked by the run
 * that made it; one whose lock is free is a finished run's and is removed
 * by the next run to open the layer, and by sbx cache clear. */

#define SNAPSHOT_PREFIX "snap-"

static bool copy_xattrs(int from, int to)
{
    char names[8192], value[8192];
    ssize_t n = flistxattr(from, names, sizeof names);
    if (n < 0)
        return errno == ENOTSUP;
    for (char *s = names; s < names + n; s += strlen(s) + 1) {
        ssize_t v = fgetxattr(from, s, value, sizeof value);
        if (v < 0)
            return false;
        /* security.* and trusted.* are not the overlay's (userxattr) */
        if (fsetxattr(to, s, value, (size_t)v, 0) < 0 && !strncmp(s, "user.", 5))
            return false;
    }
    return true;
}

struct link_ctx {
    int to;              /* the snapshot's directory for this level */
    const char *shown;
    unsigned depth;
    char **error;
};

static bool link_entry(int from_dir, const char *name, void *data)
{
    struct link_ctx *c = data;
    struct stat st;
    if (fstatat(from_dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT;   /* the run holding the layer removed it meanwhile */
    if (!S_ISDIR(st.st_mode)) {
        /* ENOENT: the run holding the layer removed it meanwhile, unless
         * it is still there (then the snapshot itself is gone) */
        if (linkat(from_dir, name, c->to, name, 0) == 0 ||
            (errno == ENOENT && fstatat(from_dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0))
            return true;
        *c->error = xasprintf("linking %s/%s into a snapshot: %s", c->shown, name,
                              strerror(errno));
        return false;
    }
    if (c->depth >= MAX_DEPTH) {
        *c->error = xasprintf("%s/%s: deeper than %d directories", c->shown, name, MAX_DEPTH);
        return false;
    }
    autoclose int from = openat(from_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (from < 0)
        return errno == ENOENT;
    if (mkdirat(c->to, name, 0700) < 0) {
        *c->error = xasprintf("making a snapshot of %s/%s: %s", c->shown, name, strerror(errno));
        return false;
    }
    autoclose int to = openat(c->to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    autofree char *shown = xasprintf("%s/%s", c->shown, name);
    struct link_ctx sub = { to, shown, c->depth + 1, c->error };
    if (to < 0 || !each_name(from, link_entry, &sub) || !copy_xattrs(from, to) ||
        fchmod(to, st.st_mode & 07777) < 0) {
        if (!*c->error)
            *c->error = xasprintf("making a snapshot of %s: %s", shown, strerror(errno));
        return false;
    }
    return true;
}

/* Removes the snapshots of the layer whose runs have ended: their lock is
 * free, and the process named in the snapshot's name is gone (a run
 * making one has it unlocked for a moment between mkdir and flock). */
static void remove_ended_snapshots(int layer, const char *shown)
{
    struct stat st;
    int dup = fcntl(layer, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup < 0 ? NULL : fdopendir(dup);
    if (!d || fstat(layer, &st) < 0) {
        if (d)
            closedir(d);
        else if (dup >= 0)
            close(dup);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, SNAPSHOT_PREFIX, strlen(SNAPSHOT_PREFIX)))
            continue;
        long pid = atol(de->d_name + strlen(SNAPSHOT_PREFIX));
        if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
            continue;
        autoclose int fd = openat(layer, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
            continue;
        struct clear_ctx cc = { st.st_dev, shown, 1 };
        (void)remove_entry(layer, de->d_name, &cc);
    }
    closedir(d);
}

/* A snapshot of the layer is a running sandbox's lower directory. */
static bool snapshot_in_use(int layer)
{
    int dup = fcntl(layer, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup < 0 ? NULL : fdopendir(dup);
    if (!d) {
        if (dup >= 0)
            close(dup);
        return false;
    }
    bool used = false;
    struct dirent *de;
    while (!used && (de = readdir(d))) {
        if (strncmp(de->d_name, SNAPSHOT_PREFIX, strlen(SNAPSHOT_PREFIX)))
            continue;
        autoclose int fd = openat(layer, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        used = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
    }
    closedir(d);
    return used;
}

int layer_store_snapshot(const char *root, const char *profile, const char *path,
                         char **snapshot_path, char **error)
{
    *error = NULL;
    autofree char *name = layer_name(path);
    if (!name) {
        *error = xasprintf("%s: the path is too long to name a layer", path);
        return -1;
    }
    uid_t self = geteuid();
    autoclose int r = open_root(root, false, self, error);
    if (r < 0)
        return -1;
    autoclose int pr = open_own_dir(r, root, profile, false, self, error);
    if (pr < 0)
        return -1;
    autofree char *shown = xasprintf("%s/%s", root, profile);
    /* sbx cache clear holds the profile's directory exclusively while it
     * removes its layers: no snapshot is begun meanwhile, and none it did
     * not see as in use lies in a layer it removes */
    if (flock(pr, LOCK_SH | LOCK_NB) < 0) {
        *error = xasprintf("%s: sbx cache clear is removing its layers", shown);
        return -1;
    }
    autoclose int layer = open_own_dir(pr, shown, name, false, self, error);
    if (layer < 0)
        return -1;
    autofree char *layer_shown = xasprintf("%s/%s", shown, name);
    remove_ended_snapshots(layer, layer_shown);
    autoclose int upper = open_own_dir(layer, layer_shown, "upper", false, self, error);
    if (upper < 0)
        return -1;
    char snap[64];
    int fd = -1;
    for (unsigned i = 0; i < 100 && fd < 0; i++) {
        snprintf(snap, sizeof snap, SNAPSHOT_PREFIX "%ld-%u", (long)getpid(), i);
        if (mkdirat(layer, snap, 0700) == 0)
            fd = openat(layer, snap, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        else if (errno != EEXIST)
            break;
    }
    /* locked before it holds anything: never taken for an ended run's */
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        *error = xasprintf("making a snapshot in %s: %s", layer_shown, strerror(e));
        if (fd >= 0)
            close(fd);
        errno = e;   /* EROFS: sbx in a sandbox of its own (mount.c) */
        return -1;
    }
    autofree char *upper_shown = xasprintf("%s/upper", layer_shown);
    struct link_ctx c = { fd, upper_shown, 1, error };
    struct stat st;
    if (!each_name(upper, link_entry, &c) || !copy_xattrs(upper, fd) ||
        fstat(upper, &st) < 0 || fchmod(fd, st.st_mode & 07777) < 0) {
        if (!*error)
            *error = xasprintf("making a snapshot of %s: %s", upper_shown, strerror(errno));
        struct stat lst;
        if (fstat(layer, &lst) == 0) {
            struct clear_ctx cc = { lst.st_dev, layer_shown, 1 };
            (void)remove_entry(layer, snap, &cc);
        }
        close(fd);
        return -1;
    }
    *snapshot_path = xasprintf("%s/%s", layer_shown, snap);
    return fd;
}
