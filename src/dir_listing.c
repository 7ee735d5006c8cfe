#include "config.h"

#include "dir_listing.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif
#ifndef F2FS_SUPER_MAGIC
#define F2FS_SUPER_MAGIC 0xF2F52010
#endif

/* A directory with more names than this is not kept: opening the few
 * names asked is cheaper than reading it. */
#define LISTING_MAX_NAMES 4096

enum listing_state { LISTING_UNKNOWN, LISTING_ABSENT, LISTING_READ };

struct dir_listing {
    char *dir;
    enum listing_state state;
    char **names;   /* sorted */
    size_t n;
};

/* The filesystems whose readdir shows every name a lookup finds, and no
 * other: not autofs (an indirect map lists only what is mounted, a lookup
 * mounts more), procfs (a thread's /proc/TID resolves, unlisted), sysfs,
 * network filesystems (a server's view), FUSE, vfat/exfat/ntfs/cifs
 * (case-insensitive: ".SSH" opens what ".ssh" names), nor XFS (ascii-ci
 * is a mkfs option no per-directory flag shows). ext4, f2fs and tmpfs
 * (Linux 6.13) fold case per directory: FS_CASEFOLD_FL, which their
 * FS_IOC_GETFLAGS reports; where that ioctl fails, not trusted. */
bool dir_listing_trusted(long f_type, enum dir_flags got, unsigned long flags)
{
    bool flags_known = got == DIR_FLAGS_READ;
    if (flags_known && (flags & FS_CASEFOLD_FL))
        return false;
    switch ((unsigned long)f_type & 0xffffffffUL) {
    case EXT4_SUPER_MAGIC:
    case F2FS_SUPER_MAGIC:
        return flags_known;
    case TMPFS_MAGIC:
        /* before fileattr (Linux 6.0) the ioctl is ENOTTY, and tmpfs has
         * no case folding before 6.13; refused otherwise (a seccomp
         * filter around sbx), nothing is known */
        return got != DIR_FLAGS_UNKNOWN;
    case BTRFS_SUPER_MAGIC:
    case RAMFS_MAGIC:
        return true;
    case OVERLAYFS_SUPER_MAGIC:
        /* the flags are its layers' (ovl_fileattr_get) */
        return flags_known;
    default:
        return false;
    }
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Reads dir into l; l->state says how it went. */
static void read_listing(struct dir_listing *l)
{
    int fd = open(l->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        /* ENOENT: nothing below it exists either. Anything else (EACCES:
         * searchable, not readable; ENOTDIR) is left to the open of the
         * path itself, and its own error. */
        l->state = errno == ENOENT ? LISTING_ABSENT : LISTING_UNKNOWN;
        return;
    }
    struct statfs sf;
    unsigned long flags = 0;
    enum dir_flags said = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 ? DIR_FLAGS_READ
                          : errno == ENOTTY                         ? DIR_FLAGS_UNSUPPORTED
                                                                    : DIR_FLAGS_UNKNOWN;
    if (fstatfs(fd, &sf) < 0 || !dir_listing_trusted((long)sf.f_type, said, flags)) {
        close(fd);
        return;
    }
    size_t cap = 0;
    char buf[16384] __attribute__((aligned(8)));
    for (;;) {
        long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (got < 0 || l->n > LISTING_MAX_NAMES) {
            for (size_t i = 0; i < l->n; i++)
                free(l->names[i]);
            free(l->names);
            l->names = NULL;
            l->n = 0;
            close(fd);
            return;
        }
        if (got == 0)
            break;
        for (long off = 0; off < got;) {
            const struct linux_dirent64 *d = (const void *)(buf + off);
            off += d->d_reclen;
            if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
                continue;
            xgrow((void **)&l->names, &cap, l->n + 1, sizeof *l->names);
            l->names[l->n++] = xstrdup(d->d_name);
        }
    }
    close(fd);
    if (l->n)
        qsort(l->names, l->n, sizeof *l->names, cmp_name);
    l->state = LISTING_READ;
}

/* A path of plain components only: "/a/b", no ".", "..", "//" or
 * trailing "/" (the kernel's reading of those is left to open()). */
static bool plain_path(const char *path)
{
    if (path[0] != '/' || !path[1])
        return false;
    for (const char *s = path; *s; s++) {
        if (*s != '/')
            continue;
        const char *c = s + 1;
        if (!*c || *c == '/' || (c[0] == '.' && (!c[1] || c[1] == '/')) ||
            (c[0] == '.' && c[1] == '.' && (!c[2] || c[2] == '/')))
            return false;
    }
    return true;
}

static struct dir_listing *cached(struct dir_listings *c, const char *dir)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i].dir, dir))
            return &c->v[i];
    return NULL;
}

static char *parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
}

static bool ancestor_cached(struct dir_listings *c, const char *dir)
{
    autofree char *d = xstrdup(dir);
    while (strcmp(d, "/")) {
        char *up = parent_of(d);
        free(d);
        d = up;
        if (cached(c, d))
            return true;
    }
    return false;
}

/* The directory's own listing. Known missing without a system call when
 * a listing above it says so; that listing is read first where one
 * further up is already kept (~/.config below ~: its two dozen missing
 * subdirectories cost nothing then). Else the directory is opened
 * directly: a missing one costs the one failing open its names would. */
static struct dir_listing *listing_of(struct dir_listings *c, const char *dir)
{
    struct dir_listing *have = cached(c, dir);
    if (have)
        return have;
    bool parent_absent = strcmp(dir, "/") && ancestor_cached(c, dir) &&
                         !dir_listing_may_exist(c, dir);
    xgrow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v);
    struct dir_listing *l = &c->v[c->n++];
    *l = (struct dir_listing){ .dir = xstrdup(dir), .state = LISTING_UNKNOWN };
    if (parent_absent)
        l->state = LISTING_ABSENT;
    else
        read_listing(l);
    return l;
}

bool dir_listing_may_exist(struct dir_listings *c, const char *path)
{
    if (!plain_path(path))
        return true;
    const char *slash = strrchr(path, '/');
    autofree char *dir = parent_of(path);
    const struct dir_listing *l = listing_of(c, dir);
    if (l->state == LISTING_UNKNOWN)
        return true;
    if (l->state == LISTING_ABSENT)
        return false;
    const char *name = slash + 1;
    return l->n && bsearch(&name, l->names, l->n, sizeof *l->names, cmp_name) != NULL;
}

void dir_listings_free(struct dir_listings *c)
{
    for (size_t i = 0; i < c->n; i++) {
        for (size_t k = 0; k < c->v[i].n; k++)
            free(c->v[i].names[k]);
        free(c->v[i].names);
        free(c->v[i].dir);
    }
    free(c->v);
    *c = (struct dir_listings){ 0 };
}
