/* What the plan trusts to skip an open (issue 30): a directory listing
 * says "missing" only on a filesystem that lists every name it resolves,
 * never for a case-folding directory, a path with "..", or what another
 * listing cannot know; and cached walks (walk_path_cached()) reach what
 * walk_path() reaches, and give their descriptors back. */
#include "config.h"

#include "dir_listing.h"
#include "mount-walk.h"
#include "../tap.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef FS_CASEFOLD_FL
#define FS_CASEFOLD_FL 0x40000000
#endif

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static void touch(const char *dir, const char *name)
{
    autofree char *p = xasprintf("%s/%s", dir, name);
    int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

int main(void)
{
    /* the filesystems a listing is trusted on, and not */
    ok(!dir_listing_trusted(PROC_SUPER_MAGIC, DIR_FLAGS_READ, 0), "procfs: no (a thread's /proc/TID is unlisted)");
    ok(!dir_listing_trusted(AUTOFS_SUPER_MAGIC, DIR_FLAGS_READ, 0), "autofs: no (a lookup mounts what is unlisted)");
    ok(!dir_listing_trusted(NFS_SUPER_MAGIC, DIR_FLAGS_READ, 0), "NFS: no");
    ok(!dir_listing_trusted(MSDOS_SUPER_MAGIC, DIR_FLAGS_READ, 0), "vfat: no (case-insensitive)");
    ok(!dir_listing_trusted(0x58465342 /* XFS */, DIR_FLAGS_READ, 0), "XFS: no (ascii-ci shows in no flag)");
    ok(dir_listing_trusted(EXT4_SUPER_MAGIC, DIR_FLAGS_READ, 0), "ext4 without case folding: yes");
    ok(!dir_listing_trusted(EXT4_SUPER_MAGIC, DIR_FLAGS_READ, FS_CASEFOLD_FL), "ext4, a case-folding directory: no");
    ok(!dir_listing_trusted(EXT4_SUPER_MAGIC, DIR_FLAGS_UNKNOWN, 0), "ext4 whose flags cannot be read: no");
    ok(!dir_listing_trusted(TMPFS_MAGIC, DIR_FLAGS_READ, FS_CASEFOLD_FL), "tmpfs, a case-folding directory: no");
    ok(dir_listing_trusted(TMPFS_MAGIC, DIR_FLAGS_UNSUPPORTED, 0), "tmpfs without fileattr (before 6.0, no folding): yes");
    ok(!dir_listing_trusted(TMPFS_MAGIC, DIR_FLAGS_UNKNOWN, 0), "tmpfs whose flags a filter refuses (EPERM): no");
    ok(!dir_listing_trusted(OVERLAYFS_SUPER_MAGIC, DIR_FLAGS_UNKNOWN, 0), "overlayfs whose layers' flags are unknown: no");

    char tmpl[] = "/tmp/sbx-dir-listing-XXXXXX";
    char *dir = mkdtemp(tmpl);
    if (!dir)
        bail_out("mkdtemp");
    autofree char *sub = xasprintf("%s/sub", dir);
    mkdir(sub, 0700);
    touch(dir, "present");
    touch(sub, "deep");
    autofree char *link = xasprintf("%s/link", dir);
    if (symlink("sub", link) < 0)
        bail_out("symlink");

    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct statfs sf;
    unsigned long flags = 0;
    enum dir_flags got = ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 ? DIR_FLAGS_READ
                         : errno == ENOTTY ? DIR_FLAGS_UNSUPPORTED : DIR_FLAGS_UNKNOWN;
    bool trusted = fstatfs(fd, &sf) == 0 && dir_listing_trusted((long)sf.f_type, got, flags);
    close(fd);
    diag("%s: f_type %#lx, listings %s", dir, (unsigned long)sf.f_type, trusted ? "trusted" : "not trusted");

    int before = open_fds();
    struct dir_listings c = { 0 };
    autofree char *present = xasprintf("%s/present", dir);
    autofree char *missing = xasprintf("%s/missing", dir);
    autofree char *missing_deep = xasprintf("%s/missing/a/b", dir);
    autofree char *deep = xasprintf("%s/sub/deep", dir);
    autofree char *via_link = xasprintf("%s/link/deep", dir);
    autofree char *via_link_missing = xasprintf("%s/link/nothing", dir);
    autofree char *dotdot = xasprintf("%s/sub/../missing", dir);
    ok(dir_listing_may_exist(&c, present), "a listed name may exist");
    ok(dir_listing_may_exist(&c, deep), "so may one in a listed subdirectory");
    ok(dir_listing_may_exist(&c, via_link), "and one through a symlinked directory (its target's listing)");
    ok(dir_listing_may_exist(&c, dotdot), "a path with '..' is left to open()");
    autofree char *empty = xasprintf("%s/empty", dir);
    mkdir(empty, 0700);
    autofree char *in_empty = xasprintf("%s/empty/x", dir);
    if (trusted) {
        ok(!dir_listing_may_exist(&c, in_empty), "nothing is in an empty directory");
        ok(!dir_listing_may_exist(&c, missing), "an unlisted name is known missing");
        ok(!dir_listing_may_exist(&c, missing_deep), "so is anything below it");
        ok(!dir_listing_may_exist(&c, via_link_missing), "and an unlisted name through a symlink");
    } else {
        ok(dir_listing_may_exist(&c, in_empty), "untrusted filesystem: even in an empty directory");
        ok(dir_listing_may_exist(&c, missing), "untrusted filesystem: an unlisted name may exist");
        ok(dir_listing_may_exist(&c, missing_deep), "untrusted filesystem: so may one below it");
        ok(dir_listing_may_exist(&c, via_link_missing), "untrusted filesystem: and one through a link");
    }
    /* a name made after its directory was listed: the listing is one
     * plan's, and only says what was missing when the plan was made */
    dir_listings_free(&c);
    is_int(open_fds(), before, "the listings hold no descriptor");

    /* cached walks reach what a fresh walk reaches */
    struct walk_cache cache = { 0 };
    const char *paths[] = { deep, via_link, present, missing_deep, dotdot, sub, deep };
    bool same = true;
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        struct walk_result a, b;
        int ea = walk_path(paths[i], NULL, NULL, NULL, false, NULL, &a);
        int eb = walk_path_cached(&cache, paths[i], NULL, NULL, NULL, false, NULL, &b);
        bool eq = ea == eb && (ea || (a.found == b.found && !strcmp(a.path, b.path) &&
                                      (a.fd < 0) == (b.fd < 0)));
        if (!eq)
            diag("%s: %d %s against %d %s", paths[i], ea, ea ? "" : a.path, eb, eb ? "" : b.path);
        same = same && eq;
        if (!ea)
            walk_result_free(&a);
        if (!eb)
            walk_result_free(&b);
    }
    ok(same, "walk_path_cached() finds what walk_path() finds, links and '..' included");
    ok(cache.n > 0, "and keeps the directories it passed (%zu)", cache.n);
    walk_cache_free(&cache);
    is_int(open_fds(), before, "every cached descriptor is closed by walk_cache_free()");

    unlink(link);
    autofree char *deep_rm = xasprintf("%s/sub/deep", dir);
    unlink(deep_rm);
    rmdir(sub);
    rmdir(empty);
    unlink(present);
    rmdir(dir);
    return done_testing();
}
