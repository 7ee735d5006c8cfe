/* The kernel interface that binds host objects into the sandbox's tree and
 * sets their flags, in two implementations behind one set of operations:
 *
 * - the new mount API (Linux 5.12: open_tree, mount_setattr, move_mount;
 *   6.15's open_tree_attr does the first two in one call where it exists),
 *   which acts on descriptors and sets flags on a whole tree at once
 *   (mount-newapi.c);
 * - mount(2) binds, their flags added by remounting every mount of the tree
 *   found in mountinfo (mount-legacy.c): older kernels, and the seccomp
 *   filters of container runtimes that predate the new calls.
 *
 * mount_setup() (mount.c) chooses one with mount_api_choose() and applies
 * the whole plan through it, never asking which; both give the same tree,
 * and the suite runs the mount tests through each. tmpfs, proc and devpts
 * are mounted with mount(2) by mount.c whichever is chosen. Every operation
 * dies (exit 125) naming `what` on failure. */
#ifndef SBX_MOUNT_API_H
#define SBX_MOUNT_API_H

#include <stdbool.h>
#include <stdint.h>

struct mount_api {
    const char *name; /* for -v: how the mounts are made */

    /* Binds the host object src (an fd, O_PATH is enough; with its
     * submounts when recursive) on the mount point target, private, adding
     * attr (MOUNT_ATTR_*) to the flags each mount has. target_path names
     * target from init's root (mount(2) finds the new mounts by path). */
    void (*bind)(int src, int target, const char *target_path, uint64_t attr, bool recursive,
                 const char *what);

    /* Attaches a recursive copy of the host's tree (host_root, its "/") on
     * target, every mount in it with attr added. The copy is taken now,
     * with the staging tmpfs mounted (mount.c), so it holds a copy of that
     * too, at staging_copy: it is detached, so the sandbox sees the host's
     * directory there. */
    void (*attach_host_root)(int host_root, int target, const char *target_path, uint64_t attr,
                             const char *staging_copy, const char *what);

    /* Makes the one mount at fd (not its submounts) read-only, once the
     * sandbox has populated it; path names it in messages. */
    void (*make_readonly)(int fd, const char *path);
};

extern const struct mount_api mount_newapi;
extern const struct mount_api mount_legacy;

/* NULL when open_tree, mount_setattr and move_mount can be used, or why
 * not (for -v). */
const char *mount_newapi_missing(void);

/* The new API where it works (or mount(2) when force_legacy: tests),
 * setting *why_legacy to NULL or to why mount(2) is used. */
const struct mount_api *mount_api_choose(bool force_legacy, const char **why_legacy);

/* Detaches the copy of the staging tmpfs at `copy` that a recursive bind
 * took along (shared by both implementations and mount.c's rule binds). */
void mount_detach_staging_copy(const char *copy, const char *what);

#endif
