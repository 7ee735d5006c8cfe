#include "config.h"

#include "mount.h"

#include "layer_store.h"
#include "log.h"
#include "mount-api.h"
#include "mount-placeholders.h"
#include "mount-walk.h"
#include "ns.h"
#include "report.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

bool mount_force_legacy_api;
void (*mount_hook_after_resolve)(void);

/* dev = minimal: bound from the host, never mknod'ed (mknod is refused in a
 * user namespace, and a bind keeps the host's device permissions). */
static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };
#define N_DEV_NODES (sizeof dev_nodes / sizeof dev_nodes[0])

/* Where the new root is assembled before pivot_root: a private tmpfs over a
 * directory of the old tree (which is detached afterwards, tmpfs and all).
 * Everything the plan needs from the host is opened before it is mounted,
 * so covering that directory hides nothing the sandbox uses. */
static const char *const staging_candidates[] = { "/tmp", "/run", "/mnt", "/var/tmp" };

struct mount_context {
    const struct profile *p;
    const struct mount_api *api; /* how binds are made and flags set (mount-api.h) */
    const char *staging;
    char *root_path;        /* staging/root: the new root's mount point */
    char *empty_path;       /* staging/empty: an empty file, bound over hidden files */
    int empty_fd;           /* O_PATH on it: opened once, not once a hidden file */
    const struct mount_entry *later;   /* the plan's entries after the one applied */
    size_t nlater;
    int host_root_fd;
    int host_dev_fd[N_DEV_NODES];
    int root_fd;            /* the new root, once attached */
    bool root_nodev;        /* nodev on the host's tree: only when /dev is replaced */
    unsigned count;         /* mounts made, for -v */
    struct strv readonly_later; /* our tmpfs mounts made read-only once populated */
};

struct fd_path_buf {
    char s[32];
};

static const char *fd_path(int fd, struct fd_path_buf *b)
{
    snprintf(b->s, sizeof b->s, "/proc/self/fd/%d", fd);
    return b->s;
}

static const char *where(const struct mount_entry *e, char *buf, size_t len)
{
    origin_format(&e->at, buf, len);
    if (e->why) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, ": %s", e->why);
    }
    return buf;
}

/* A symlink met while resolving a writable rule is followed only if no
 * sandbox could have made it. A sandbox creates files as the caller (the
 * only uid its user namespace maps: root's files for a root caller), and
 * only where some profile makes a directory writable: the working
 * directory, the shipped profiles' writable directories below $HOME
 * (protect.h), this profile's rw paths. A link owned by the caller in one
 * of those places is refused; any other is followed (~/.cargo -> /data,
 * /var/run -> /run). A directory only another profile of yours makes
 * writable is not known here (sbx-profile(5), SYMLINKS IN RULE PATHS). */
static enum walk_link writable_rule_link(const char *link, const struct stat *st, void *data)
{
    const struct mount_host *h = data;
    if (!h)
        return WALK_FOLLOW;
    return mount_link_maybe_planted(link, st->st_uid, h->self, &h->writable) ? WALK_REFUSE
                                                                               : WALK_FOLLOW;
}

int mount_resolve_host(const char *path, unsigned flags, struct mount_resolved *out, void *ctx)
{
    if (flags & MOUNT_RESOLVE_WRITABLE) {
        struct walk_result r;
        int err = walk_path(path, writable_rule_link, NULL, ctx, false, NULL, &r);
        if (err)
            return err;
        if (r.found == WALK_MISSING) {
            walk_result_free(&r);
            return ENOENT;
        }
        if (r.found == WALK_REFUSED) {
            out->refused_link = xasprintf("%s -> %s", r.path, r.target);
            walk_result_free(&r);
            return EPERM;
        }
        out->path = r.path;
        out->fd = r.fd;
        out->is_dir = S_ISDIR(r.st.st_mode);
        out->mode = r.st.st_mode & 07777;
        out->id_known = true;
        out->dev = r.st.st_dev;
        out->ino = r.st.st_ino;
        return 0;
    }
    struct mount_host *host = ctx;
    if ((flags & MOUNT_RESOLVE_OPTIONAL) && host && !dir_listing_may_exist(&host->listings, path))
        return ENOENT;
    /* Follows symlinks and ".." now, once. What is bound later is this fd,
     * and the target inside is this fd's canonical path: a symlink swapped
     * after this point redirects nothing. */
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return e;
    }
    struct fd_path_buf b;
    char link[PATH_MAX];
    ssize_t n = readlink(fd_path(fd, &b), link, sizeof link - 1);
    if (n < 0 || (size_t)n >= sizeof link - 1 || link[0] != '/') {
        int e = n < 0 ? errno : ENAMETOOLONG;
        close(fd);
        return e;
    }
    link[n] = '\0';
    out->path = xstrdup(link);
    out->fd = fd;
    out->is_dir = S_ISDIR(st.st_mode);
    out->mode = st.st_mode & 07777;
    out->id_known = true;
    out->dev = st.st_dev;
    out->ino = st.st_ino;
    return 0;
}

/* Protected paths: a link inside a writable entry is where a sandbox may
 * have been; it is reported (and covered), never followed. One outside is
 * what the host itself uses, and is followed. */
static enum walk_link protected_link(const char *link, const struct stat *st, void *data)
{
    (void)st;
    return mount_plan_writable_holder(data, link) ? WALK_STOP : WALK_FOLLOW;
}

static bool protected_may_create(const char *dir, void *data)
{
    return mount_plan_writable_holder(data, dir) != NULL;
}

int mount_probe_host(const char *path, bool create, const char *file_content,
                     const struct mount_plan *plan, struct mount_probe *out, void *ctx)
{
    struct walk_result r;
    int err;
    /* held for the run, and what it made removed after it
     * (mount-placeholders.h); walked again when the run that made it
     * removed it meanwhile */
    for (int tries = 0;; tries++) {
        err = walk_path_cached(ctx, path, protected_link, protected_may_create, (void *)plan,
                               create, file_content, &r);
        if (err || mount_placeholders_hold(&r, file_content) || tries == 3)
            break;
        walk_result_free(&r);
    }
    if (err)
        return err;
    *out = (struct mount_probe){
        .found = r.found == WALK_LINK ? MOUNT_FOUND_LINK
                 : r.found == WALK_MISSING ? MOUNT_FOUND_MISSING : MOUNT_FOUND_OBJECT,
        .path = r.path, .fd = r.fd, .is_dir = S_ISDIR(r.st.st_mode),
        .mode = r.st.st_mode & 07777, .link_target = r.target,
        .id_known = r.fd >= 0, .dev = r.st.st_dev, .ino = r.st.st_ino,
    };
    return 0;
}

/* openat2() is missing before Linux 5.6, and some seccomp filters around
 * sbx (older container runtimes) refuse it with EPERM. */
static bool openat2_usable = true;

static void probe_openat2(void)
{
    struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS };
    int fd = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how);
    if (fd >= 0)
        close(fd);
    else
        openat2_usable = !(errno == ENOSYS || errno == EPERM);
}

/* Opens a canonical path inside the new root without following any
 * symlink: the path was canonical on the host, so a symlink on the way
 * means the tree changed under us, and following it could mount outside
 * the sandbox's view (the bubblewrap CVE-2020-5291 family of bugs).
 * Without openat2 the same rule is kept by walking one component at a
 * time with O_NOFOLLOW (a canonical path has no "..", so RESOLVE_IN_ROOT
 * has nothing more to add). */
static int open_in_root(int root_fd, const char *path)
{
    if (openat2_usable) {
        struct open_how how = {
            .flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
            .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        return (int)syscall(SYS_openat2, root_fd, path, &how, sizeof how);
    }
    int fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
    autofree char *copy = xstrdup(path);
    char *save = NULL;
    for (char *name = strtok_r(copy, "/", &save); name && fd >= 0;
         name = strtok_r(NULL, "/", &save)) {
        int next = openat(fd, name, O_PATH | O_CLOEXEC | O_NOFOLLOW);
        int err = errno;
        struct stat st;
        if (next >= 0 && fstat(next, &st) == 0 && S_ISLNK(st.st_mode)) {
            close(next);
            next = -1;
            err = ELOOP;
        }
        close(fd);
        fd = next;
        errno = err;
    }
    return fd;
}

/* The mount point of a rule below one of our tmpfs mounts (root = tmpfs,
 * tmpfs, hide) does not exist there yet: create it, and only there. On the
 * host's read-only tree this fails with EROFS, which is reported.
 *
 * The deepest directory that exists is found from the bottom up (one or
 * two levels are missing: the working directory or $HOME below /tmp),
 * and the missing ones are made and opened one below the other, each
 * opened O_NOFOLLOW | O_DIRECTORY from the one above: a symlink put there
 * meanwhile (a rw bind is the host's directory) is never followed. Each
 * prefix was opened again from the root before (issue 30: about 60
 * openat2 for qa's cache layers under a $HOME in /tmp). */
static int open_or_create_target(int root_fd, const char *path, bool is_dir)
{
    int fd = open_in_root(root_fd, path);
    if (fd >= 0 || errno != ENOENT)
        return fd;
    autofree char *prefix = xstrdup(path);
    /* the deepest existing ancestor: prefix cut at the slash `cut` */
    char *cut = NULL;
    int parent = -1;
    for (;;) {
        char *slash = strrchr(prefix, '/');
        if (cut)
            *cut = '/';
        if (!slash)
            return -1;  /* not absolute: cannot happen for a planned path */
        *slash = '\0';
        cut = slash;
        parent = open_in_root(root_fd, prefix[0] ? prefix : "/");
        if (parent >= 0)
            break;
        if (errno != ENOENT)
            return -1;
    }
    /* prefix[..cut) exists; make each component after it */
    *cut = '/';
    for (char *name = cut + 1;;) {
        char *end = strchr(name, '/');
        bool last = !end;
        if (end)
            *end = '\0';
        int made;
        if (last && !is_dir) {
            int f = openat(parent, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0444);
            made = f >= 0 || errno == EEXIST ? 0 : -1;
            if (f >= 0)
                close(f);
        } else {
            made = mkdirat(parent, name, 0755) == 0 || errno == EEXIST ? 0 : -1;
        }
        if (made < 0 || last) {
            int e = errno;
            close(parent);
            if (made < 0) {
                errno = e;
                return -1;
            }
            break;
        }
        int next = openat(parent, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        int e = errno;
        close(parent);
        if (next < 0) {
            errno = e == ENOTDIR ? ELOOP : e;   /* a link or file put there */
            return -1;
        }
        parent = next;
        *end = '/';
        name = end + 1;
    }
    /* the whole path once more, as every target is opened: no symlink */
    return open_in_root(root_fd, path);
}

/* A recursive bind of a path containing the staging directory (the root,
 * rw = /, rw = /tmp) copies the staging tmpfs along, and with it the new
 * root being assembled there. The copy is detached, so the sandbox sees
 * the host's directory, as the rule asked. */
static void detach_staging_copy(struct mount_context *c, const char *bound, const char *what)
{
    if (!mount_path_within(c->staging, bound))
        return;
    autofree char *copy = xasprintf("%s%s", c->root_path, c->staging);
    mount_detach_staging_copy(copy, what);
}

static void mount_tmpfs(int target_fd, unsigned long flags, unsigned mode, const char *what)
{
    struct fd_path_buf tb;
    char opts[32];
    snprintf(opts, sizeof opts, "mode=0%o", mode & 07777);
    if (mount("tmpfs", fd_path(target_fd, &tb), "tmpfs", flags, opts) < 0)
        die_errno("%s: mounting tmpfs", what);
}

static void counted(struct mount_context *c, const char *op, const char *path, const char *at)
{
    c->count++;
    verbose("mount %u: %s %s (%s)", c->count, op, path, at);
    record_mount(op, NULL, path, at);
}

static bool under_dev(const char *path)
{
    return mount_path_within(path, "/dev");
}

static void setup_dev_minimal(struct mount_context *c, const struct mount_entry *e, int target_fd,
                              const char *at)
{
    char what[PATH_MAX + 600];
    snprintf(what, sizeof what, "%s: dev = minimal on %s", at, e->path);
    /* Not nodev: device nodes are bound in, each its own mount; noexec
     * since nothing in /dev is a program. */
    mount_tmpfs(target_fd, MS_NOSUID | MS_NOEXEC, 0755, what);
    counted(c, "tmpfs", e->path, at);
    autoclose int dev = open_in_root(c->root_fd, e->path);
    if (dev < 0)
        die_errno("%s: opening the new /dev", what);
    for (size_t i = 0; i < N_DEV_NODES; i++) {
        /* the descriptor that made it is the mount point: O_EXCL on our
         * own fresh tmpfs, nothing else can be there (not closed and opened
         * again: 14 calls a run) */
        autoclose int node = openat(dev, dev_nodes[i], O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC |
                                                      O_NOFOLLOW, 0666);
        if (node < 0)
            die_errno("%s: creating the mount point %s/%s", what, e->path, dev_nodes[i]);
        autofree char *node_path = xasprintf("%s%s/%s", c->root_path, e->path, dev_nodes[i]);
        autofree char *w = xasprintf("%s: binding /dev/%s", what, dev_nodes[i]);
        c->api->bind(c->host_dev_fd[i], node, node_path, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
                     false, w);
        autofree char *shown = xasprintf("%s/%s", e->path, dev_nodes[i]);
        counted(c, "bind", shown, at);
    }

    if (mkdirat(dev, "pts", 0755) < 0)
        die_errno("%s: mkdir %s/pts", what, e->path);
    {
        autoclose int pts = openat(dev, "pts", O_PATH | O_CLOEXEC | O_NOFOLLOW | O_DIRECTORY);
        struct fd_path_buf pb;
        if (pts < 0)
            die_errno("%s: opening %s/pts", what, e->path);
        /* A new instance: the command sees its own ptys, not the host's. */
        if (mount("devpts", fd_path(pts, &pb), "devpts", MS_NOSUID | MS_NOEXEC,
                  "newinstance,ptmxmode=0666,mode=0620") < 0)
            die_errno("%s: mounting devpts on %s/pts", what, e->path);
        autofree char *shown = xasprintf("%s/pts", e->path);
        counted(c, "devpts", shown, at);
    }
    if (symlinkat("pts/ptmx", dev, "ptmx") < 0)
        die_errno("%s: symlink %s/ptmx", what, e->path);

    if (mkdirat(dev, "shm", 01777) < 0)
        die_errno("%s: mkdir %s/shm", what, e->path);
    {
        autoclose int shm = openat(dev, "shm", O_PATH | O_CLOEXEC | O_NOFOLLOW | O_DIRECTORY);
        if (shm < 0)
            die_errno("%s: opening %s/shm", what, e->path);
        mount_tmpfs(shm, MS_NOSUID | MS_NODEV, 01777, what);
        autofree char *shown = xasprintf("%s/shm", e->path);
        counted(c, "tmpfs", shown, at);
    }
    static const char *const links[][2] = {
        { "fd", "/proc/self/fd" },
        { "stdin", "/proc/self/fd/0" },
        { "stdout", "/proc/self/fd/1" },
        { "stderr", "/proc/self/fd/2" },
    };
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        if (symlinkat(links[i][1], dev, links[i][0]) < 0)
            die_errno("%s: symlink %s/%s", what, e->path, links[i][0]);
    strv_push(&c->readonly_later, xstrdup(e->path));
}

/* The kernel decides who may write a sysctl by DAC alone, against the
 * *global* root uid (fs/proc/proc_sysctl.c test_perm(): no capability, no
 * user namespace check), and /proc/sysrq-trigger by its mode 0200 alone.
 * When root runs sbx, the command's uid is global uid 0 (uid = current and
 * uid = 0 both map to the caller's), and a fresh /proc would let it set
 * kernel.core_pattern (a program run as the host's root on the next crash)
 * or reboot the machine. So these are covered read-only, as bubblewrap and
 * container runtimes do; the per-process files of /proc stay writable.
 *
 * Only then: a covered /proc is not "fully visible" to the kernel
 * (mount_too_revealing()), so a sandbox nested inside could not mount a
 * fresh /proc of its own; for any other caller the mode bits already
 * refuse (sysctls_writable() asks the kernel which case this is). */
static const char *const proc_readonly_paths[] = { "sys", "sysrq-trigger", "irq", "bus", "fs" };

/* Whether the command could write a sysctl of the host: asked of the
 * kernel itself on the new /proc, since the answer depends on the global
 * uid (through every enclosing user namespace), which cannot be read from
 * inside. init has the command's uid, and test_perm() ignores
 * capabilities, so init's answer is the command's. */
static bool sysctls_writable(int proc_fd)
{
    if (faccessat(proc_fd, "sys/kernel/core_pattern", W_OK, AT_EACCESS) == 0)
        return true;
    if (errno == EACCES || errno == EROFS)
        return false;
    return true; /* no such sysctl, or no answer: protect */
}

static void cover_proc_readonly(struct mount_context *c, const char *proc_path,
                                const char *proc_target_path, const char *at)
{
    /* Opened again: a descriptor taken before the mount still points
     * below it, at the covered directory. */
    autoclose int proc_fd = open_in_root(c->root_fd, proc_path);
    if (proc_fd < 0)
        die_errno("%s: opening the new %s", at, proc_path);
    if (!sysctls_writable(proc_fd))
        return;
    for (size_t i = 0; i < sizeof proc_readonly_paths / sizeof proc_readonly_paths[0]; i++) {
        const char *name = proc_readonly_paths[i];
        autoclose int sub = openat(proc_fd, name, O_PATH | O_CLOEXEC | O_NOFOLLOW);
        if (sub < 0) {
            if (errno == ENOENT)
                continue; /* a kernel without it (CONFIG_MAGIC_SYSRQ=n...) */
            die_errno("%s: opening %s/%s to make it read-only", at, proc_path, name);
        }
        autofree char *sub_path = xasprintf("%s/%s", proc_target_path, name);
        autofree char *shown = xasprintf("%s/%s", proc_path, name);
        autofree char *w = xasprintf("%s: read-only bind of %s over itself", at, shown);
        c->api->bind(sub, sub, sub_path,
                     MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
                     true, w);
        counted(c, "ro-bind", shown, at);
    }
}

/* The mount point of a generated file is the path itself, even when it
 * is a symlink (/etc/resolv.conf -> /run/systemd/resolve/stub-resolv.conf):
 * mounted over the link, the file is what the path shows, whatever the
 * link's target is or whether the sandbox can see it. The parents are
 * still walked without following any symlink; a missing file is created
 * where one of our tmpfs mounts allows it. */
static int open_generated_target(int root_fd, const char *path)
{
    const char *slash = strrchr(path, '/');
    autofree char *parent_path = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
    autoclose int parent = open_in_root(root_fd, parent_path);
    if (parent >= 0) {
        int fd = openat(parent, slash + 1, O_PATH | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0 || errno != ENOENT)
            return fd;
    } else if (errno != ENOENT) {
        return -1;
    }
    return open_or_create_target(root_fd, path, false);
}

/* The file's bytes go into the staging tmpfs, which is detached with the
 * host's root after pivot_root; the bind keeps the file alive. Returns an
 * O_PATH fd on it. */
static int write_generated(struct mount_context *c, const struct mount_entry *e, const char *what)
{
    autofree char *file = xasprintf("%s/generated-%u", c->staging, c->count);
    int fd = open(file, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0444);
    if (fd < 0)
        die_errno("%s: creating the file %s", what, file);
    if (!write_all(fd, e->content, strlen(e->content)))
        die_errno("%s: writing the file %s", what, file);
    close(fd);
    fd = open(file, O_PATH | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        die_errno("%s: opening the file %s", what, file);
    return fd;
}

/* cache = PATH: an overlay of the host's PATH (lower, never written) and
 * the profile's layer (upper/, work/). Mounted inside the user namespace
 * (Linux 5.11 allows it there), so overlayfs keeps its own attributes in
 * user.overlay.* xattrs (userxattr); index, metacopy and redirect_dir
 * stay off, their default: a lower directory the host changes between
 * runs is then read as it is now, below the layer's own files. Every
 * directory is named through /proc/self/fd: the descriptors were checked,
 * a path would be looked up again. */
static void mount_cache(struct mount_context *c, const struct mount_entry *e, int target,
                        const char *what)
{
    autoclose int layer = -1;
    if (e->layer_temporary || e->layer_lower) {
        /* in the staging tmpfs: detached with it, alive while mounted */
        autofree char *dir = xasprintf("%s/layer-%u", c->staging, c->count);
        if (mkdir(dir, 0700) < 0)
            die_errno("%s: mkdir %s", what, dir);
        layer = open(dir, O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
        if (layer < 0 || mkdirat(layer, "upper", 0700) < 0 || mkdirat(layer, "work", 0700) < 0)
            die_errno("%s: making a temporary layer in %s", what, dir);
    }
    int layer_fd = e->layer_temporary || e->layer_lower ? layer : e->layer_fd;
    const char *layer_path = e->layer && !e->layer_lower ? e->layer : "(tmpfs)";
    autoclose int upper = openat(layer_fd, "upper", O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
    autoclose int work = openat(layer_fd, "work", O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
    if (upper < 0 || work < 0)
        die_errno("%s: opening %s/%s", what, layer_path, upper < 0 ? "upper" : "work");
    struct fd_path_buf lb, ub, wb, tb, sb;
    /* layer_lower: the snapshot of a layer in use (layer_store_snapshot())
     * above the host's PATH, "lowerdir=TOP:BELOW" */
    autofree char *opts = xasprintf("lowerdir=%s%s%s,upperdir=%s,workdir=%s,userxattr",
                                    e->layer_lower ? fd_path(e->layer_fd, &sb) : "",
                                    e->layer_lower ? ":" : "", fd_path(e->fd, &lb),
                                    fd_path(upper, &ub), fd_path(work, &wb));
    if (mount("overlay", fd_path(target, &tb), "overlay", MS_NOSUID | MS_NODEV, opts) < 0)
        die_errno("%s: mounting its write layer (overlay of %s under %s)%s", what, e->path,
                  layer_path,
                  errno == EINVAL ? ": the file system of either may not hold an overlay layer "
                                    "(overlayfs, FUSE, NFS); use rw or ro for it"
                                  : "");
    /* overlayfs mounts itself read-only, with a line in the kernel log
     * only, when it cannot write the work directory: a build would then
     * fail later with EROFS, far from the cause. */
    struct statvfs sv;
    autoclose int top = open_in_root(c->root_fd, e->path);
    if (top < 0 || fstatvfs(top, &sv) < 0)
        die_errno("%s: checking its write layer", what);
    if (sv.f_flag & ST_RDONLY)
        die("%s: the kernel made its write layer read-only (it cannot write %s/work; is %s "
            "on a read-only mount, as in a sandbox?): use rw or ro for it", what, layer_path,
            layer_path);
}

static void apply_entry(struct mount_context *c, const struct mount_entry *e)
{
    char at[512];
    where(e, at, sizeof at);
    char what[PATH_MAX + 600];
    snprintf(what, sizeof what, "%s: %s %s", at, mount_op_name(e->op), e->path);

    autoclose int target = e->op == MOUNT_OP_GENERATED_FILE || e->at_link
                               ? open_generated_target(c->root_fd, e->path)
                               : open_or_create_target(c->root_fd, e->path, e->is_dir);
    if (target < 0) {
        if (errno == ELOOP || errno == EXDEV)
            die_errno("%s: the path changed since it was resolved (a symlink appeared "
                      "inside the sandbox's tree); refusing to mount through it", what);
        die_errno("%s: no mount point inside the sandbox", what);
    }
    autofree char *target_path = strcmp(e->path, "/") ? xasprintf("%s%s", c->root_path, e->path)
                                                      : xstrdup(c->root_path);
    uint64_t nodev = under_dev(e->path) ? 0 : MOUNT_ATTR_NODEV;

    switch (e->op) {
    case MOUNT_OP_ROOT_RO:
    case MOUNT_OP_ROOT_TMPFS:
    case MOUNT_OP_ROOT_HOST:
        /* A rule cannot produce these; the root is attached by attach_root(). */
        die("%s: internal error: a second root in the mount plan", what);
    case MOUNT_OP_BIND_RW:
        /* The rw flag is left as the host has it: a read-only submount of
         * the host stays read-only (and is locked so in our namespace). */
        c->api->bind(e->fd, target, target_path, MOUNT_ATTR_NOSUID | nodev, true, what);
        detach_staging_copy(c, e->path, what);
        counted(c, "rw-bind", e->path, at);
        break;
    case MOUNT_OP_BIND_RO:
        c->api->bind(e->fd, target, target_path, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | nodev,
                     true, what);
        detach_staging_copy(c, e->path, what);
        counted(c, "ro-bind", e->path, at);
        break;
    case MOUNT_OP_TMPFS:
        mount_tmpfs(target, MS_NOSUID | MS_NODEV, e->mode, what);
        counted(c, "tmpfs", e->path, at);
        break;
    case MOUNT_OP_HIDE:
        if (e->is_dir) {
            /* read-only from the start when no later entry needs a mount
             * point made in it (three calls fewer after pivot_root: most
             * hidden directories have nothing below them) */
            bool below = false;
            for (size_t k = 0; k < c->nlater && !below; k++)
                below = mount_path_within(c->later[k].path, e->path);
            mount_tmpfs(target, MS_NOSUID | MS_NODEV | MS_NOEXEC | (below ? 0 : MS_RDONLY), 0755,
                        what);
            if (below)
                strv_push(&c->readonly_later, xstrdup(e->path));
            counted(c, "hide (empty read-only tmpfs)", e->path, at);
        } else {
            c->api->bind(c->empty_fd, target, target_path,
                         MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
                         false, what);
            counted(c, "hide (empty read-only file)", e->path, at);
        }
        break;
    case MOUNT_OP_PROC: {
        struct fd_path_buf tb;
        /* Needs a fully visible procfs in our mount namespace (the kernel's
         * mount_too_revealing()): a container that masks /proc paths
         * refuses it with EPERM. */
        if (mount("proc", fd_path(target, &tb), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
            int err = errno;
            char why[640];
            const char *because = ns_explain_proc_mount_failure(err, why, sizeof why);
            die_with_errno(err, "%s: mounting a fresh /proc for the sandbox's PID namespace%s%s",
                           what, *because ? " failed: " : "", because);
        }
        counted(c, "proc", e->path, at);
        cover_proc_readonly(c, e->path, target_path, at);
        break;
    }
    case MOUNT_OP_PROC_HOST:
        /* Not read-only: /proc/self/oom_score_adj and the like are the
         * command's own; the host's sysctls are covered read-only below
         * (capabilities do not protect them from a global uid 0). */
        c->api->bind(e->fd, target, target_path,
                     MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, true, what);
        counted(c, "bind", e->path, at);
        cover_proc_readonly(c, e->path, target_path, at);
        break;
    case MOUNT_OP_DEV_MINIMAL:
        setup_dev_minimal(c, e, target, at);
        break;
    case MOUNT_OP_CACHE:
        mount_cache(c, e, target, what);
        counted(c, "cache (overlay)", e->path, at);
        break;
    case MOUNT_OP_GENERATED_FILE: {
        autoclose int file = write_generated(c, e, what);
        c->api->bind(file, target, target_path,
                     MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
                     false, what);
        counted(c, "generated file (read-only)", e->path, at);
        break;
    }
    }
    /* A rule on / itself (ro = /) is stacked on the root: later lookups
     * must start from it, as a path lookup does not climb onto a mount
     * stacked on its starting point. */
    if (!strcmp(e->path, "/")) {
        int top = open(c->root_path, O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
        if (top < 0)
            die_errno("%s: opening the new root %s", what, c->root_path);
        close(c->root_fd);
        c->root_fd = top;
    }
}

static const char *choose_staging(void)
{
    for (size_t i = 0; i < sizeof staging_candidates / sizeof staging_candidates[0]; i++) {
        struct stat st;
        if (lstat(staging_candidates[i], &st) == 0 && S_ISDIR(st.st_mode))
            return staging_candidates[i];
    }
    die("no directory to assemble the sandbox's root in: none of /tmp, /run, /mnt, "
        "/var/tmp exists on the host");
}

static uint64_t root_attr(const struct mount_context *c, const struct mount_entry *e)
{
    /* nodev only when /dev is replaced by dev = minimal: with dev = none
     * the host's /dev/null must keep working. */
    if (e->op != MOUNT_OP_ROOT_RO)
        return 0;
    return MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | (c->root_nodev ? MOUNT_ATTR_NODEV : 0);
}

/* root = tmpfs: the host's top-level symlinks (/bin -> usr/bin, /lib64 ->
 * usr/lib64 on a merged-/usr system) are recreated, or no dynamically linked
 * program could start: its ELF interpreter is named through them. They
 * point at whatever the rules make visible, nothing more. */
static void copy_top_level_symlinks(struct mount_context *c, int target, const char *at)
{
    int fd = openat(c->host_root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d)
        die_errno("%s: root = tmpfs: listing the host's /", at);
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_type != DT_LNK)
            continue;
        char link[PATH_MAX];
        ssize_t n = readlinkat(dirfd(d), de->d_name, link, sizeof link - 1);
        if (n < 0)
            continue;
        link[n] = '\0';
        autoclose int dir = open_in_root(target, "/");
        if (dir < 0 || symlinkat(link, dir, de->d_name) < 0)
            die_errno("%s: root = tmpfs: symlink /%s -> %s", at, de->d_name, link);
        verbose("mount: symlink /%s -> %s (%s)", de->d_name, link, at);
    }
    closedir(d);
}

static void attach_root(struct mount_context *c, const struct mount_entry *e, const char *what)
{
    char at[512];
    where(e, at, sizeof at);
    autoclose int target = open(c->root_path, O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
    if (target < 0)
        die_errno("%s: opening %s", what, c->root_path);

    if (e->op == MOUNT_OP_ROOT_TMPFS) {
        mount_tmpfs(target, MS_NOSUID | MS_NODEV, 0755, what);
        strv_push(&c->readonly_later, xstrdup("/"));
        autoclose int top = open(c->root_path, O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
        if (top < 0)
            die_errno("%s: opening %s", what, c->root_path);
        copy_top_level_symlinks(c, top, at);
    } else {
        /* The host's tree is copied with the staging tmpfs mounted: the
         * copy holds a copy of that tmpfs too, which is detached. */
        autofree char *staging_copy = xasprintf("%s%s", c->root_path, c->staging);
        c->api->attach_host_root(c->host_root_fd, target, c->root_path, root_attr(c, e),
                                 staging_copy, what);
    }
    counted(c, mount_op_name(e->op), "/", at);
    c->root_fd = open(c->root_path, O_PATH | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
    if (c->root_fd < 0)
        die_errno("%s: opening the new root %s", what, c->root_path);
}

static void make_readonly(const struct mount_context *c, const char *path)
{
    autoclose int fd = open_in_root(c->root_fd, path);
    if (fd < 0)
        die_errno("making %s read-only: opening it", path);
    c->api->make_readonly(fd, path);
}

/* realpath() by one open and one readlink of its descriptor: glibc's
 * realpath() reads every component as a link, and the writable places
 * are ~25 paths five or six components deep (issue 30: 250 of a run's
 * system calls). The kernel's own resolution, so the same answer; where
 * /proc is missing, realpath() itself. */
static char *canonical_path(const char *path)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct fd_path_buf b;
    char link[PATH_MAX];
    ssize_t n = readlink(fd_path(fd, &b), link, sizeof link - 1);
    close(fd);
    if (n < 0 || (size_t)n >= sizeof link - 1 || link[0] != '/')
        return realpath(path, NULL);
    link[n] = '\0';
    return xstrdup(link);
}

static void warn_writable_profiles(const struct profile *p, const struct mount_plan *plan)
{
    /* The shipped profiles of an uninstalled build tree are found in the
     * source tree (lookup.c), which is the working directory whenever sbx
     * is run from there: warning about them on every run would drown the
     * warning that matters, the user's own profile. */
    autofree char *shipped = canonical_path(SBX_ABS_SRCDIR "/profiles");
    for (size_t i = 0; i < p->nfiles; i++) {
        autofree char *real = canonical_path(p->files[i]);
        if (!real)
            continue;
        if (shipped && mount_path_within(real, shipped))
            continue;
        const struct mount_entry *e = mount_plan_writable_holder(plan, real);
        if (!e)
            continue;
        char at[512];
        where(e, at, sizeof at);
        warn("warning: profile file %s lies inside %s, which this profile makes writable "
             "(%s): the command could rewrite its own next sandbox; add 'ro = %s' or move "
             "the profile",
             real, e->path, at, real);
    }
}

/* listings: a path they say is missing now has no canonical form to
 * find, as canonical_path() would find (one failing open fewer: about
 * ten of the places below $HOME are missing on any one machine; $HOME
 * and the directories below it are listed for the credential stores
 * anyway). */
static void push_place(struct strv *places, const char *path, struct dir_listings *listings)
{
    if (!path || path[0] != '/')
        return;
    char *real = !listings || dir_listing_may_exist(listings, path) ? canonical_path(path) : NULL;
    if (real && strcmp(real, path))
        strv_push(places, real);
    else
        free(real);
    strv_push(places, xstrdup(path));
}

void mount_writable_places(const struct profile *p, const struct mount_inputs *in,
                           struct strv *out)
{
    mount_writable_places_listed(p, in, NULL, out);
}

void mount_writable_places_listed(const struct profile *p, const struct mount_inputs *in,
                                  struct dir_listings *listings, struct strv *out)
{
    /* these exist as a rule (the working directory) or lie anywhere: a
     * listing of their directories would cost more than it saves */
    push_place(out, in->cwd, NULL);
    for (size_t i = 0; in->project_root && i < 2; i++)
        push_place(out, in->git_dirs[i], NULL);
    for (size_t i = 0; p && i < p->nfs; i++)
        if (p->fs[i].kind == FS_RW)
            push_place(out, p->fs[i].path, NULL);
    if (!in->home || in->home[0] != '/')
        return;
    size_t n;
    const char *const *rel = protect_shipped_writable(&n);
    for (size_t i = 0; i < n; i++) {
        autofree char *path = xasprintf("%s/%s", in->home, rel[i]);
        push_place(out, path, listings);
    }
}

/* The plan crosses clone(): an O_PATH descriptor opened here names a
 * mount of the host's mount namespace, which open_tree() and mount(2)
 * refuse to copy from inside the sandbox's (the kernel's check_mnt(),
 * EINVAL). What crosses is the canonical path and the identity of what it
 * named; init opens the path again, following no symlink, and mounts it
 * only if it is still that object (mount_reopen_planned()). */
static void seal_entry(struct mount_entry *e)
{
    if (e->layer) {
        struct stat st;
        if (fstat(e->layer_fd, &st) < 0) {
            char at[512];
            die_errno("%s: %s: fstat of its layer %s", where(e, at, sizeof at), e->path, e->layer);
        }
        e->layer_dev = st.st_dev;
        e->layer_ino = st.st_ino;
        /* kept open until the plan is freed, after the run: the layer's
         * lock (layer_store_open()) */
        e->lock_fd = e->layer_fd;
        e->locked = true;
        e->layer_fd = -1;
    }
    if (e->fd < 0)
        return;
    /* a descriptor's identity never changes: the resolver's fstat of it
     * is this one */
    struct stat st;
    if (!e->id_known && fstat(e->fd, &st) < 0) {
        char at[512];
        die_errno("%s: %s: fstat of the resolved path", where(e, at, sizeof at), e->path);
    }
    if (!e->id_known) {
        e->dev = st.st_dev;
        e->ino = st.st_ino;
    }
    e->sealed = true;
    close(e->fd);
    e->fd = -1;
}

/* Each cache rule's layer, made now on the host (layer_store.h): the
 * sandbox cannot write the layers root but through its overlays. */
static void open_layers(struct mount_plan *plan, const struct mount_inputs *in,
                        const char *profile_name)
{
    autofree char *root_real = NULL;
    for (size_t i = 0; i < plan->n; i++) {
        struct mount_entry *e = &plan->v[i];
        if (e->op != MOUNT_OP_CACHE)
            continue;
        char at[512];
        where(e, at, sizeof at);
        if (!in->layers_root || !in->layers_profile)
            die("%s: cache = %s: no place for its write layer (neither $XDG_STATE_HOME nor "
                "$HOME is an absolute path, or the profile has no name); use rw or ro", at,
                e->path);
        if (!root_real)
            root_real = realpath(in->layers_root, NULL);
        const char *root = root_real ? root_real : in->layers_root;
        if (mount_path_within(root, e->path) || mount_path_within(e->path, root))
            die("%s: cache = %s %s sbx's write layers (%s): a layer cannot lie over itself; "
                "name the directories beside them instead", at, e->path,
                mount_path_within(root, e->path) ? "holds" : "lies inside", root);
        char *error = NULL;
        e->layer_fd = layer_store_open(in->layers_root, in->layers_profile, e->path, &e->layer,
                                       &error);
        /* sbx inside a sandbox of its own: the layers root is read-only
         * there (a protected path), and an overlay on it would be too */
        bool readonly = e->layer_fd < 0 ? errno == EROFS
                        : faccessat(e->layer_fd, "work", W_OK, AT_EACCESS) < 0 && errno == EROFS;
        /* Another run holds the layer (layer_store_open()): its upper
         * cannot be this run's too. Nor can it be a lower of this run's
         * (lowerdir=LAYER/upper:PATH): overlayfs marks the upper's root
         * in use and warns for a lower in use just the same ("lowerdir is
         * in-use as upperdir/workdir of another mount ... undefined
         * behavior", seen on 6.18). So this run mounts a snapshot of the
         * upper (hard links, layer_store_snapshot()) above PATH, with an
         * upper of its own on tmpfs: it sees the layer's earlier writes,
         * whiteouts included, and what it writes is gone when it exits.
         * Without a snapshot (a link refused), the tmpfs layer lies over
         * PATH alone: a colder cache, never a shared one. */
        bool busy = e->layer_fd < 0 && errno == EBUSY;
        if (busy) {
            free(error);
            error = NULL;
            e->layer_fd = layer_store_snapshot(in->layers_root, in->layers_profile, e->path,
                                               &e->layer, &error);
            /* the outer sbx of a nested one holds the layer, read-only here */
            readonly = e->layer_fd < 0 && errno == EROFS;
            busy = !readonly;
        }
        if (busy) {
            e->layer_lower = e->layer_fd >= 0;
            e->layer_temporary = !e->layer_lower;
            if (e->layer_lower)
                strv_push(&plan->warnings,
                          xasprintf("%s: cache = %s: in use by another run of %s: this run's "
                                    "writes there last for this run only", at, e->path,
                                    profile_name));
            else
                strv_push(&plan->warnings,
                          xasprintf("%s: cache = %s: in use by another run of %s: this run's "
                                    "writes there last for this run only, and it sees the "
                                    "host's %s without that layer (%s)", at, e->path,
                                    profile_name, e->path, error));
            free(error);
            continue;
        }
        if (readonly) {
            if (e->layer_fd >= 0)
                close(e->layer_fd);
            free(e->layer);
            free(error);
            e->layer = NULL;
            e->layer_temporary = true;
            strv_push(&plan->warnings,
                      xasprintf("warning: %s: cache = %s: sbx's layers are read-only here (sbx "
                                "in a sandbox?): this run writes a layer of its own, on tmpfs, "
                                "gone when it exits", at, e->path));
            continue;
        }
        if (e->layer_fd < 0)
            die("%s: cache = %s: its write layer: %s", at, e->path, error);
        strv_push(&plan->notes, xasprintf("cache: %s writable through the private layer %s "
                                          "(%s)", e->path, e->layer, at));
    }
    layer_store_done();
}

/* [filesystem] create: a fresh account has no ~/.npm, and `rw? =
 * ${HOME}/.npm` is then skipped, so npm's first mkdir fails inside with
 * EROFS. Made here, before the rules are resolved: one component at a
 * time (mkdirat, 0700, as the caller), only in directories of the
 * caller's below $HOME, following no symlink a sandbox could have made
 * (a planted ~/.cache -> ~/.ssh must not make ~/.ssh/pip). */
struct create_ctx {
    const struct mount_host *host;
    const char *home;        /* canonical */
};

/* The walk hands both callbacks the same data: the link check wants the
 * struct mount_host, not this context (handed to it as one, the check
 * read a pointer as the caller's uid and never refused a link). */
static enum walk_link create_rule_link(const char *link, const struct stat *st, void *data)
{
    const struct create_ctx *c = data;
    return writable_rule_link(link, st, (void *)c->host);
}

static bool may_create_below_home(const char *dir, void *data)
{
    const struct create_ctx *c = data;
    struct stat st;
    return mount_path_within(dir, c->home) && stat(dir, &st) == 0 && st.st_uid == c->host->self;
}

static bool create_missing(const struct profile *p, const struct mount_inputs *in,
                           const struct mount_host *host, struct mount_plan *plan)
{
    if (!p->create.n)
        return false;
    bool made = false;
    autofree char *home = in->home && in->home[0] == '/' ? realpath(in->home, NULL) : NULL;
    for (size_t i = 0; i < p->create.n; i++) {
        const char *path = p->create.v[i].value;
        char at[512];
        origin_format(&p->create.v[i].at, at, sizeof at);
        struct stat st;
        if (lstat(path, &st) == 0)
            continue;
        if (!home || !mount_path_within(path, home) || !strcmp(path, home)) {
            strv_push(&plan->warnings,
                      xasprintf("warning: %s: create = %s: not created, it is not below $HOME (%s)",
                                at, path, home ? home : "unset"));
            continue;
        }
        struct create_ctx ctx = { host, home };
        struct walk_result r;
        int err = walk_path(path, create_rule_link, may_create_below_home, &ctx, true, NULL, &r);
        if (!err && r.found == WALK_REFUSED)
            strv_push(&plan->warnings,
                      xasprintf("warning: %s: create = %s: not created: it goes through the "
                                "symlink %s -> %s, which a sandbox could have made; the "
                                "command's writes there will fail", at, path, r.path, r.target));
        else if (err || r.found != WALK_OBJECT)
            strv_push(&plan->warnings,
                      xasprintf("warning: %s: create = %s: cannot create it (%s); the command's "
                                "writes there will fail", at, path,
                                err ? strerror(err) : "a directory on the way is not yours"));
        else
            strv_push(&plan->notes, xasprintf("create: made %s (it was missing; mode 0700, "
                                              "yours)", r.path));
        made = made || (!err && r.nmade > 0);
        walk_result_free(&r);
    }
    return made;
}

void mount_plan_prepare(const struct profile *p, const struct mount_inputs *in,
                        struct mount_plan *plan)
{
    struct mount_host host = { .self = geteuid() };
    mount_writable_places_listed(p, in, &host.listings, &host.writable);
    *plan = (struct mount_plan){ 0 };
    /* a listing taken before a directory was made would say it is
     * missing: the optional rules on it skipped */
    if (create_missing(p, in, &host, plan))
        dir_listings_free(&host.listings);
    char *error = NULL;
    if (!mount_plan_build(plan, p, mount_resolve_host, &host, &error))
        die("%s", error);
    open_layers(plan, in, p->name ? p->name : in->layers_profile);
    if (in->project_root &&
        !mount_plan_add_git_dirs(plan, in->project_root, in->git_dirs, 2, mount_resolve_host,
                                 &host, &error))
        die("%s", error);
    if (in->writable_out)
        *in->writable_out = host.writable;   /* the caller's now: worked out once */
    else
        strv_free(&host.writable);
    dir_listings_free(&host.listings);
    struct walk_cache walks = { 0 };
    bool protected = !in->protect || mount_plan_protect(plan, in->protect, p, mount_probe_host,
                                                        &walks, &error);
    walk_cache_free(&walks);
    if (!protected)
        die("%s", error);
    for (size_t i = 0; i < plan->warnings.n; i++)
        warn("%s", plan->warnings.v[i]);
    for (size_t i = 0; i < plan->notes.n; i++)
        verbose("mount: %s", plan->notes.v[i]);
    for (size_t i = 0; i < in->ngenerated; i++) {
        const struct mount_generated *generated = &in->generated[i];
        char at[512];
        if (mount_plan_add_generated(plan, generated->path, generated->content, generated->at))
            verbose("mount: %s will be a file made by sbx: %s (%s)", generated->path,
                    generated->why, origin_format(&generated->at, at, sizeof at));
        else
            verbose("mount: %s is left to the profile's rule on it, not made by sbx (%s)",
                    generated->path, generated->why);
    }
    warn_writable_profiles(p, plan);
    for (size_t i = 0; i < plan->n; i++)
        seal_entry(&plan->v[i]);
}

static enum walk_link planned_link(const char *link, const struct stat *st, void *data)
{
    const struct mount_entry *e = data;
    (void)st;
    return e->at_link && !strcmp(link, e->path) ? WALK_STOP : WALK_REFUSE;
}

/* The canonical path holds no symlink but, for a mount over a link
 * itself (at_link), the last component: any other link met now appeared
 * after the plan was made, and is not followed. */
/* The layer directory is the caller's and 0700 below a root no sandbox
 * can write: it is opened again as the other entries are, following no
 * symlink, and must be the directory made. */
static void reopen_layer(struct mount_entry *e)
{
    int fd = -1;
    if (openat2_usable) {
        struct open_how how = {
            .flags = O_PATH | O_CLOEXEC | O_DIRECTORY,
            .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        fd = (int)syscall(SYS_openat2, AT_FDCWD, e->layer, &how, sizeof how);
    } else {
        autoclose int slash = open("/", O_PATH | O_CLOEXEC | O_DIRECTORY);
        fd = slash < 0 ? -1 : open_in_root(slash, e->layer);
    }
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != e->layer_dev || st.st_ino != e->layer_ino) {
        char at[512];
        die("%s: cache = %s: its layer %s changed while the sandbox was being made (%s): "
            "refusing to mount it; run sbx again", where(e, at, sizeof at), e->path, e->layer,
            fd < 0 ? strerror(errno) : "another object now");
    }
    e->layer_fd = fd;
}

static void reopen_entry(struct mount_entry *e)
{
    if (!e->sealed)
        return;
    if (e->layer)
        reopen_layer(e);
    struct walk_result r = { .fd = -1 };
    int err = 0;
    if (openat2_usable) {
        /* One call: with O_PATH | O_NOFOLLOW a trailing symlink is opened
         * itself, any other one fails with ELOOP (openat2(2)). */
        struct open_how how = {
            .flags = O_PATH | O_CLOEXEC | (e->at_link ? O_NOFOLLOW : 0),
            .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        r.fd = (int)syscall(SYS_openat2, AT_FDCWD, e->path, &how, sizeof how);
        if (r.fd < 0)
            err = errno;
        else if (fstat(r.fd, &r.st) < 0)
            err = errno;
        r.found = err == ELOOP ? WALK_REFUSED : err == ENOENT ? WALK_MISSING
                  : S_ISLNK(r.st.st_mode) ? WALK_LINK : WALK_OBJECT;
        if (err == ELOOP || err == ENOENT)
            err = 0;
    } else {
        err = walk_path(e->path, planned_link, NULL, e, false, NULL, &r);
    }
    bool found = !err && r.fd >= 0 &&
                 (r.found == WALK_OBJECT || (r.found == WALK_LINK && e->at_link));
    if (!found || r.st.st_dev != e->dev || r.st.st_ino != e->ino) {
        char at[512];
        where(e, at, sizeof at);
        if (err)
            die_with_errno(err, "%s: %s changed while the sandbox was being made: opening it "
                           "again", at, e->path);
        die("%s: %s changed while the sandbox was being made (%s): refusing to mount "
            "something other than what was resolved; run sbx again", at, e->path,
            r.found == WALK_REFUSED ? "a symlink appeared on the way"
            : r.found == WALK_MISSING ? "it is gone"
                                      : "it is another object now");
    }
    e->fd = r.fd;
    e->sealed = false;
    r.fd = -1;
    walk_result_free(&r);
}

static void mount_reopen_planned(struct mount_plan *plan)
{
    for (size_t i = 0; i < plan->n; i++) {
        /* The layers' locks are the supervisor's: init's copies of their
         * descriptors were closed with every inherited one, and their
         * numbers may name other files now. */
        plan->v[i].locked = false;
        reopen_entry(&plan->v[i]);
    }
}

void mount_setup(const struct profile *p, const struct mount_inputs *in)
{
    struct mount_plan plan;
    mount_plan_prepare(p, in, &plan);
    if (mount_hook_after_resolve)
        mount_hook_after_resolve();
    mount_apply(p, &plan, in->cwd);
    mount_plan_free(&plan);
}

void mount_apply(const struct profile *p, struct mount_plan *plan, const char *cwd)
{
    struct mount_context c = { .p = p, .host_root_fd = -1, .root_fd = -1 };
    for (size_t k = 0; k < N_DEV_NODES; k++)
        c.host_dev_fd[k] = -1;
    const char *why_legacy;
    c.api = mount_api_choose(mount_force_legacy_api, &why_legacy);
    probe_openat2();
    verbose_step("mount: resolving paths; mounting with %s%s%s; %s",
                 c.api->name, why_legacy ? ": " : "", why_legacy ? why_legacy : "",
                 openat2_usable ? "openat2" : "no openat2: component-wise O_NOFOLLOW walks");
    mount_reopen_planned(plan);

    /* Everything from the host is opened now, before the first mount. */
    c.host_root_fd = open("/", O_PATH | O_CLOEXEC | O_DIRECTORY);
    if (c.host_root_fd < 0)
        die_errno("opening the host's /");
    for (size_t i = 0; i < plan->n; i++) {
        if (plan->v[i].op != MOUNT_OP_DEV_MINIMAL)
            continue;
        c.root_nodev = true;
        for (size_t k = 0; k < N_DEV_NODES; k++) {
            autofree char *path = xasprintf("/dev/%s", dev_nodes[k]);
            c.host_dev_fd[k] = open(path, O_PATH | O_CLOEXEC);
            if (c.host_dev_fd[k] < 0) {
                char at[512];
                die_errno("%s: dev = minimal: opening the host's %s", where(&plan->v[i], at, sizeof at),
                          path);
            }
        }
    }

    /* Nothing mounted from here on may propagate to the host's namespace,
     * and nothing the host mounts later may appear inside. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        die_errno("making every mount private (mount --make-rprivate /)");

    char root_what[600];
    {
        char at[512];
        snprintf(root_what, sizeof root_what, "%s: %s", where(&plan->v[0], at, sizeof at),
                 mount_op_name(plan->v[0].op));
    }
    c.staging = choose_staging();
    if (mount("tmpfs", c.staging, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") < 0)
        die_errno("mounting the staging tmpfs on %s", c.staging);
    c.root_path = xasprintf("%s/root", c.staging);
    c.empty_path = xasprintf("%s/empty", c.staging);
    if (mkdir(c.root_path, 0755) < 0)
        die_errno("mkdir %s", c.root_path);
    int empty = open(c.empty_path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0444);
    if (empty < 0)
        die_errno("creating %s", c.empty_path);
    close(empty);
    c.empty_fd = open(c.empty_path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
    if (c.empty_fd < 0)
        die_errno("opening %s", c.empty_path);

    attach_root(&c, &plan->v[0], root_what);
    for (size_t i = 1; i < plan->n; i++) {
        c.later = &plan->v[i + 1];
        c.nlater = plan->n - i - 1;
        apply_entry(&c, &plan->v[i]);
    }
    close(c.empty_fd);

    /* pivot_root(".", ".") stacks the old root on the new one; detaching
     * it leaves no way back to the host's tree (the staging tmpfs goes with
     * it). The new root is a private mount, as pivot_root requires. */
    if (fchdir(c.root_fd) < 0)
        die_errno("chdir to the new root %s", c.root_path);
    if (syscall(SYS_pivot_root, ".", ".") < 0)
        die_errno("pivot_root to %s", c.root_path);
    if (umount2(".", MNT_DETACH) < 0)
        die_errno("detaching the host's root after pivot_root");
    if (chdir("/") < 0)
        die_errno("chdir /");
    close(c.root_fd);
    c.root_fd = open("/", O_PATH | O_CLOEXEC | O_DIRECTORY);
    if (c.root_fd < 0)
        die_errno("opening the new /");
    for (size_t i = 0; i < c.readonly_later.n; i++)
        make_readonly(&c, c.readonly_later.v[i]);
    verbose_step("mount: %u mounts made, host root detached", c.count);

    if (chdir(cwd) < 0)
        die_errno("working directory %s is not visible inside the sandbox (make it "
                  "visible with --ro/--rw %s, or start elsewhere with --chdir)", cwd, cwd);

    close(c.root_fd);
    close(c.host_root_fd);
    for (size_t k = 0; k < N_DEV_NODES; k++)
        if (c.host_dev_fd[k] >= 0)
            close(c.host_dev_fd[k]);
    strv_free(&c.readonly_later);
    free(c.root_path);
    free(c.empty_path);
}
