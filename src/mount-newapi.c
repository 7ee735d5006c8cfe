/* The mounts made with the new mount API (Linux 5.12): a bind is a detached
 * copy of the host's tree (open_tree), given its flags and private
 * propagation on every mount at once (mount_setattr(AT_RECURSIVE)) before it
 * is attached (move_mount), so no mount of it is ever visible with fewer
 * flags than asked. See mount-api.h. */
#include "config.h"

#include "mount-api.h"

#include "log.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467  /* Linux 6.15; one number on every architecture since 424 */
#endif

/* open_tree_attr() (Linux 6.15) is open_tree() and mount_setattr() on
 * the detached copy in one call: the flags are set before the copy can be
 * attached, as with the two. Asked once a process; where it is missing
 * (ENOSYS), or a filter around sbx refuses a call it does not know
 * (EPERM), the two calls are made, as before. */
static int open_tree_attr_state = -1;  /* -1 not asked yet, 0 missing, 1 works */

/* A detached copy of src (with its submounts when recursive), every
 * mount of it given attr and private propagation: nothing mounted later
 * on the host shows up here, and nothing mounted here reaches the host. */
static int cloned_with_attr(int src, uint64_t attr, bool recursive, const char *what)
{
    unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
                     (recursive ? AT_RECURSIVE : 0);
    struct mount_attr a = { .attr_set = attr, .propagation = MS_PRIVATE };
    if (open_tree_attr_state != 0) {
        int tree = (int)syscall(SYS_open_tree_attr, src, "", flags, &a, sizeof a);
        if (tree >= 0) {
            open_tree_attr_state = 1;
            return tree;
        }
        if (open_tree_attr_state == 1 || !(errno == ENOSYS || errno == EPERM || errno == EINVAL))
            die_errno("%s: open_tree_attr", what);
        open_tree_attr_state = 0;
        verbose("mount: no open_tree_attr (%s): open_tree and mount_setattr", strerror(errno));
    }
    int tree = open_tree(src, "", flags);
    if (tree < 0)
        die_errno("%s: open_tree", what);
    if (mount_setattr(tree, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a, sizeof a) < 0)
        die_errno("%s: mount_setattr", what);
    return tree;
}

static void newapi_bind(int src, int target, const char *target_path, uint64_t attr,
                        bool recursive, const char *what)
{
    (void)target_path;
    autoclose int tree = cloned_with_attr(src, attr, recursive, what);
    if (move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
        die_errno("%s: move_mount", what);
}

static void newapi_attach_host_root(int host_root, int target, const char *target_path,
                                    uint64_t attr, const char *staging_copy, const char *what)
{
    (void)target_path;
    autoclose int tree = cloned_with_attr(host_root, attr, true, what);
    if (move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
        die_errno("%s: move_mount", what);
    mount_detach_staging_copy(staging_copy, what);
}

static void newapi_make_readonly(int fd, const char *path)
{
    struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };
    if (mount_setattr(fd, "", AT_EMPTY_PATH, &a, sizeof a) < 0)
        die_errno("making %s read-only: mount_setattr", path);
}

const struct mount_api mount_newapi = {
    .name = "open_tree and mount_setattr",
    .bind = newapi_bind,
    .attach_host_root = newapi_attach_host_root,
    .make_readonly = newapi_make_readonly,
};

/* With a bad fd these calls answer EBADF when they exist; ENOSYS means an
 * older kernel, EPERM a seccomp filter around sbx that does not know them.
 * The mount(2) path gives the same result, with more syscalls. */
const char *mount_newapi_missing(void)
{
    /* A non-empty attr: with nothing to change mount_setattr returns 0
     * before it looks at the fd. */
    struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY };
    int err[3];
    errno = 0;
    if (mount_setattr(-1, "", AT_EMPTY_PATH, &a, sizeof a) == 0)
        die("probing mount_setattr: it accepted fd -1");
    err[0] = errno;
    int tree = open_tree(-1, "", AT_EMPTY_PATH);
    if (tree >= 0)
        die("probing open_tree: it accepted fd -1");
    err[1] = errno;
    if (move_mount(-1, "", -1, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) == 0)
        die("probing move_mount: it accepted fd -1");
    err[2] = errno;
    for (int i = 0; i < 3; i++) {
        if (err[i] == ENOSYS)
            return "the kernel has no mount_setattr (Linux < 5.12)";
        if (err[i] == EPERM)
            return "a seccomp filter around sbx refuses the new mount API";
    }
    return NULL;
}
