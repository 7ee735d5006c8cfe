#include "config.h"

#include "foreign_owner.h"

#include "log.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

bool foreign_owner_blocks_root(const struct stat *st, gid_t egid, const gid_t *groups,
                               size_t ngroups)
{
    /* The owner is root: its own bits apply, and a read-only file of
     * root's (git's objects, 0444) is no surprise. A symlink is never
     * written through its own bits. */
    if (st->st_uid == 0 || S_ISLNK(st->st_mode))
        return false;
    if (st->st_mode & S_IWOTH)
        return false;
    if (!(st->st_mode & S_IWGRP))
        return true;
    if (st->st_gid == egid)
        return false;
    for (size_t i = 0; i < ngroups; i++)
        if (groups[i] == st->st_gid)
            return false;
    return true;
}

struct scan {
    struct foreign_owner *out;
    gid_t egid;
    gid_t groups[NGROUPS_MAX];
    size_t ngroups;
};

/* An access ACL may grant uid 0 what the bits refuse: such an entry is
 * not claimed to be unwritable. */
static bool has_access_acl(const char *path)
{
    return lgetxattr(path, "system.posix_acl_access", NULL, 0) >= 0 ||
           (errno != ENODATA && errno != ENOTSUP);
}

static void check_path(struct scan *s, const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0 || !foreign_owner_blocks_root(&st, s->egid, s->groups, s->ngroups) ||
        has_access_acl(path))
        return;
    if (s->out->first && !strcmp(s->out->first, path))
        return;
    if (!s->out->first) {
        s->out->first = xstrdup(path);
        s->out->owner = st.st_uid;
    } else {
        s->out->more++;
    }
}

static void check_entries(struct scan *s, const struct mount_plan *mounts, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t seen = 0;
    struct dirent *e;
    while (seen < FOREIGN_OWNER_MAX_ENTRIES && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        seen++;
        autofree char *path = xasprintf("%s%s%s", dir, strcmp(dir, "/") ? "/" : "", e->d_name);
        /* a protected entry (.git/config's directory aside) is read-only
         * inside whoever owns it: EROFS, not EACCES */
        if (mount_plan_writable_holder(mounts, path))
            check_path(s, path);
    }
    closedir(d);
}

void foreign_owner_scan(struct foreign_owner *out, const struct mount_plan *mounts,
                        const char *cwd, bool kept_dac_override)
{
    *out = (struct foreign_owner){ .kept_dac_override = kept_dac_override };
    struct scan s = { .out = out, .egid = getegid() };
    int n = getgroups(NGROUPS_MAX, s.groups);
    s.ngroups = n > 0 ? (size_t)n : 0;

    const struct mount_entry *holder = mount_plan_writable_holder(mounts, cwd);
    if (holder)
        check_path(&s, cwd);
    /* Writable places from the profile's rules; pins and protections
     * (why set) are sbx's, not places the command was given. */
    for (size_t i = 0; i < mounts->n; i++) {
        const struct mount_entry *e = &mounts->v[i];
        if (e->op == MOUNT_OP_BIND_RW && e->is_dir && !e->why)
            check_path(&s, e->path);
    }
    if (holder) {
        check_entries(&s, mounts, cwd);
        if (strcmp(holder->path, cwd))
            check_entries(&s, mounts, holder->path);
    }
}

void foreign_owner_print_note(const struct foreign_owner *f)
{
    if (!f->first)
        return;
    char more[64] = "";
    if (f->more)
        snprintf(more, sizeof more, " (and %zu more entr%s of the writable places)", f->more,
                 f->more == 1 ? "y" : "ies");
    if (f->kept_dac_override)
        notice("note: %s is owned by uid %u%s; the sandbox's user namespace maps uid 0 alone, "
               "and CAP_DAC_OVERRIDE there covers no file of an unmapped uid, so root inside "
               "cannot write it (chown it, or run sbx as uid %u)",
               f->first, (unsigned)f->owner, more, (unsigned)f->owner);
    else
        notice("note: %s is owned by uid %u%s; the command runs without CAP_DAC_OVERRIDE, "
               "so root inside cannot write it (chown it, or run sbx as uid %u)",
               f->first, (unsigned)f->owner, more, (unsigned)f->owner);
}

void foreign_owner_free(struct foreign_owner *f)
{
    free(f->first);
    f->first = NULL;
}
