/* The layers on disk (layer_store.h), in a scratch directory: a layer is
 * locked by the run that opened it and refused (EBUSY) to a second one; a
 * snapshot of it links its files, copies its directories' overlay xattrs
 * and is locked in turn; sbx cache clear leaves a layer in use, or one
 * with a live snapshot, and removes it once both are closed; a profile
 * file that is gone makes its layers stale. */
#include "config.h"

#include "layer_store.h"
#include "layers.h"
#include "../tap.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

static char *scratch;

static void cleanup(void)
{
    if (scratch) {
        autofree char *cmd = xasprintf("chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", scratch,
                                       scratch);
        if (system(cmd) != 0)
            diag("could not remove %s", scratch);
    }
}

static bool same_inode(const char *a, const char *b)
{
    struct stat sa, sb;
    return lstat(a, &sa) == 0 && lstat(b, &sb) == 0 && sa.st_ino == sb.st_ino &&
           sa.st_dev == sb.st_dev;
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    scratch = xasprintf("%s/layer-store-test.XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        bail_out("mkdtemp");
        return 1;
    }
    atexit(cleanup);
    autofree char *root = xasprintf("%s/sbx/layers", scratch);

    char *path = NULL, *error = NULL;
    int layer = layer_store_open(root, "p", "/h/cache", &path, &error);
    ok(layer >= 0, "a layer is made and opened (%s)", error ? error : "ok");
    if (layer < 0)
        return done_testing();
    char *again_path = NULL, *again_error = NULL;
    int again = layer_store_open(root, "p", "/h/cache", &again_path, &again_error);
    is_int(again < 0 ? errno : 0, EBUSY, "a second open of it, a second run, is refused: EBUSY");
    like_str(again_error ? again_error : "", "in use by another run", "saying it is in use");
    free(again_error);

    /* what runs wrote: a file, an opaque directory, a link, a whiteout */
    autofree char *upper = xasprintf("%s/upper", path);
    autofree char *file = xasprintf("%s/f", upper), *dir = xasprintf("%s/d", upper);
    autofree char *link = xasprintf("%s/l", upper), *wh = xasprintf("%s/gone", upper);
    FILE *f = fopen(file, "w");
    ok(f && fputs("data", f) >= 0 && fclose(f) == 0, "a file in the upper");
    ok(mkdir(dir, 0750) == 0 && symlink("/elsewhere", link) == 0, "a directory and a link");
    bool xattrs = setxattr(dir, "user.overlay.opaque", "y", 1, 0) == 0;
    if (!xattrs)
        diag("no user xattrs on %s (%s): the opaque check is skipped", scratch, strerror(errno));
    bool whiteout = mknod(wh, S_IFCHR | 0, makedev(0, 0)) == 0;

    char *snap = NULL;
    int s = layer_store_snapshot(root, "p", "/h/cache", &snap, &error);
    ok(s >= 0, "a snapshot of the layer in use is made (%s)", error ? error : "ok");
    if (s < 0)
        return done_testing();
    autofree char *sfile = xasprintf("%s/f", snap), *sdir = xasprintf("%s/d", snap);
    autofree char *slink = xasprintf("%s/l", snap), *swh = xasprintf("%s/gone", snap);
    ok(same_inode(file, sfile), "its file is a hard link to the upper's (no copy)");
    ok(same_inode(link, slink), "so is its symlink, never followed");
    struct stat st;
    ok(stat(sdir, &st) == 0 && S_ISDIR(st.st_mode) && !same_inode(dir, sdir) &&
           (st.st_mode & 07777) == 0750,
       "its directory is a new one with the upper's mode");
    char v[4] = "";
    if (xattrs)
        ok(getxattr(sdir, "user.overlay.opaque", v, sizeof v) == 1 && v[0] == 'y',
           "and the upper's opaque xattr");
    else
        skip("no user xattrs in the scratch directory");
    if (whiteout)
        ok(same_inode(wh, swh), "a whiteout (0/0 device) is linked too");
    else
        skip("no whiteout could be made here");
    ok(strstr(snap, "/snap-") != NULL, "in the layer's directory: %s", snap);

    is_int(layer_store_clear(root, "p", false), 125, "cache clear leaves a layer in use: 125");
    ok(access(upper, F_OK) == 0, "and it is still there");
    close(layer);
    is_int(layer_store_clear(root, "p", false), 125,
           "closed, but with a live snapshot: left still (the snapshot is a run's lower)");
    close(s);
    is_int(layer_store_clear(root, "p", false), 0, "with both closed, cache clear removes it");
    autofree char *pdir = xasprintf("%s/p", root);
    ok(access(pdir, F_OK) < 0 && errno == ENOENT, "the profile's layers are gone");

    ok(layer_store_profile_stale("qa") == NULL, "a profile asked for by name is never stale");
    autofree char *gone = xasprintf("%s/gone.ini", scratch);
    autofree char *here = xasprintf("%s/here.ini", scratch);
    ok((f = fopen(here, "w")) && fclose(f) == 0, "a profile file");
    /* layers.h: a file's layers directory is its path escaped */
    autofree char *gone_esc = layer_name(gone), *here_esc = layer_name(here);
    autofree char *stale = layer_store_profile_stale(gone_esc);
    is_str(stale ? stale : "(null)", gone, "the layers of a profile file that is gone are stale");
    autofree char *fresh = layer_store_profile_stale(here_esc);
    ok(fresh == NULL, "those of one that exists are not");
    free(path);
    free(snap);
    return done_testing();
}
