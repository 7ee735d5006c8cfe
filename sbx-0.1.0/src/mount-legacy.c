/* The mounts made with mount(2), where the new mount API is missing (Linux
 * < 5.12) or refused (a seccomp filter around sbx): a bind takes the flags
 * of its top mount only, so the flags asked for are added by remounting
 * every mount of the new tree, one by one. See mount-api.h. */
#include "config.h"

#include "mount-api.h"

#include "log.h"
#include "mount-plan.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>

/* mount(2) takes paths: a descriptor is named through /proc. */
struct fd_path_buf {
    char s[32];
};

static const char *fd_path(int fd, struct fd_path_buf *b)
{
    snprintf(b->s, sizeof b->s, "/proc/self/fd/%d", fd);
    return b->s;
}

static unsigned long ms_flags_from_attr(uint64_t attr)
{
    unsigned long f = 0;
    if (attr & MOUNT_ATTR_RDONLY)
        f |= MS_RDONLY;
    if (attr & MOUNT_ATTR_NOSUID)
        f |= MS_NOSUID;
    if (attr & MOUNT_ATTR_NODEV)
        f |= MS_NODEV;
    if (attr & MOUNT_ATTR_NOEXEC)
        f |= MS_NOEXEC;
    return f;
}

#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000 /* Linux 5.10; not in glibc 2.36's headers */
#endif

/* The flags a bind remount must repeat: in a user namespace the kernel
 * refuses (EPERM) a remount that would drop one the host locked. */
static unsigned long ms_flags_from_statvfs(unsigned long f)
{
    static const struct { unsigned long st, ms; } map[] = {
        { ST_RDONLY, MS_RDONLY }, { ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV },
        { ST_NOEXEC, MS_NOEXEC }, { ST_NOATIME, MS_NOATIME },
        { ST_NODIRATIME, MS_NODIRATIME }, { ST_RELATIME, MS_RELATIME },
        { ST_NOSYMFOLLOW, MS_NOSYMFOLLOW },
    };
    unsigned long ms = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (f & map[i].st)
            ms |= map[i].ms;
    return ms;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
    char *out = s;
    for (char *in = s; *in; in++) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
            in[3] >= '0' && in[3] <= '7') {
            *out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
            in += 3;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
}

/* Without mount_setattr(AT_RECURSIVE) a bind's flags apply to its top mount
 * only: every submount is remounted one by one, found in mountinfo, with
 * the flags it has (statvfs) plus the ones asked for. A mount covered by
 * another on the same mount point cannot be reached by path; it cannot be
 * reached by the command either (and is locked under its cover). */
static void legacy_remount_tree(const char *top, unsigned long add, const char *what)
{
    autofree char *info = read_file_text("/proc/self/mountinfo", 64 << 20, NULL);
    if (!info)
        die_errno("%s: reading /proc/self/mountinfo", what);
    unsigned remounted = 0;
    for (char *line = info, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *field = line, *mp = NULL;
        for (int i = 0; i < 5 && field; i++) {
            char *sp = strchr(field, ' ');
            if (i == 4) {
                if (sp)
                    *sp = '\0';
                mp = field;
            }
            field = sp ? sp + 1 : NULL;
        }
        if (!mp)
            continue;
        unescape_octal(mp);
        if (!mount_path_within(mp, top))
            continue;
        struct statvfs sv;
        if (statvfs(mp, &sv) < 0) {
            /* Covered, or below a directory our namespace's root cannot
             * enter (an unmapped owner's 0700 dir): the command cannot
             * reach it either, having fewer rights than we do. */
            if (errno == EACCES || errno == ENOENT)
                continue;
            die_errno("%s: statvfs %s", what, mp);
        }
        unsigned long keep = ms_flags_from_statvfs(sv.f_flag);
        if (mount(NULL, mp, NULL, MS_BIND | MS_REMOUNT | keep | add, NULL) < 0)
            die_errno("%s: remounting %s (adding nosuid, nodev, ro as asked)", what, mp);
        remounted++;
    }
    /* The bind just made is there, or the walk is broken: never go on
     * with a mount left writable. */
    if (remounted == 0)
        die("%s: no mount found at %s in /proc/self/mountinfo to remount", what, top);
}

/* A bind of a mount that is private (mount_setup() made every mount
 * private first) is private too. */
static void legacy_bind(int src, int target, const char *target_path, uint64_t attr,
                        bool recursive, const char *what)
{
    struct fd_path_buf sb, tb;
    if (mount(fd_path(src, &sb), fd_path(target, &tb), NULL, MS_BIND | (recursive ? MS_REC : 0),
              NULL) < 0)
        die_errno("%s: bind mount", what);
    if (attr)
        legacy_remount_tree(target_path, ms_flags_from_attr(attr), what);
}

static void legacy_attach_host_root(int host_root, int target, const char *target_path,
                                    uint64_t attr, const char *staging_copy, const char *what)
{
    legacy_bind(host_root, target, target_path, 0, true, what);
    /* Detached before the walk, which then has no copy of the staging
     * tmpfs to remount. */
    mount_detach_staging_copy(staging_copy, what);
    if (attr)
        legacy_remount_tree(target_path, ms_flags_from_attr(attr), what);
}

static void legacy_make_readonly(int fd, const char *path)
{
    struct fd_path_buf b;
    struct statvfs sv;
    if (fstatvfs(fd, &sv) < 0)
        die_errno("making %s read-only: fstatvfs", path);
    unsigned long keep = ms_flags_from_statvfs(sv.f_flag);
    if (mount(NULL, fd_path(fd, &b), NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | keep, NULL) < 0)
        die_errno("making %s read-only: remount", path);
}

const struct mount_api mount_legacy = {
    .name = "mount(2) and remounts",
    .bind = legacy_bind,
    .attach_host_root = legacy_attach_host_root,
    .make_readonly = legacy_make_readonly,
};
