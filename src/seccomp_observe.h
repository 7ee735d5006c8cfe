/* The write observer's filter (pure): every call that may write a path
 * raises a seccomp user notification, so that the supervisor can name, at
 * exit, the writes a read-only mount refused (EROFS) or a protected file's
 * bind mount refused (EBUSY): the kernel returns those errors itself and
 * nothing else tells sbx (sbx(1) REFUSED WRITES).
 *
 * The filter only chooses which calls the supervisor sees: open, openat
 * and creat with a write flag in the register (O_WRONLY, O_RDWR, O_CREAT,
 * O_TRUNC, O_TMPFILE), and the calls that create, remove, rename or change
 * a path (mkdir, mknod, unlink, rmdir, rename, link, symlink, truncate,
 * chmod, chown, utimes with a path, setxattr, removexattr and their *at
 * forms). The supervisor lets each one continue unchanged
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE): it decides nothing, the kernel
 * enforces the mounts, so no path swapped after the supervisor read it can
 * gain anything. Calls on a descriptor (write, fchmod, ftruncate) are not
 * seen: a descriptor opened for writing was seen when it was opened, and
 * one that was not fails with EBADF, not EROFS.
 *
 * A filter of its own, with the one listener the kernel allows in a
 * filter chain, installed only when no deny rule needs that listener
 * (seccomp.h). The default deny-list's answers (EPERM for a set-user-ID
 * mode) outrank a notification whatever the order of the filters: the
 * kernel keeps the strictest action of all of them. */
#ifndef SBX_SECCOMP_OBSERVE_H
#define SBX_SECCOMP_OBSERVE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/filter.h>

/* The program (x86_64 with its i386 and x32 ABIs), or len 0 where not
 * available; a foreign ABI is allowed here (the first filter kills it). */
void seccomp_observe_filter_build(struct sock_fprog *out);

/* What a notified call does to the paths it names, for the supervisor
 * (refusals.c): the argument that holds each path and its directory
 * descriptor (-1: none, the path is relative to the working directory). */
enum observe_op {
    OBSERVE_OPEN,    /* open/openat/creat: the flags say create, truncate, write */
    OBSERVE_CREATE,  /* mkdir, mknod, symlink: a new name (EEXIST first if it exists) */
    OBSERVE_CHANGE,  /* truncate, chmod, chown, utimes, xattrs: an existing path */
    OBSERVE_REMOVE,  /* unlink, rmdir: an existing name (EBUSY on a mount point) */
    OBSERVE_RENAME,  /* rename: the source removed, the destination replaced */
    OBSERVE_LINK,    /* link: a new name for an existing file */
};

struct observe_call {
    const char *name;
    enum observe_op op;
    int dirfd, path;     /* argument indices; dirfd -1: relative to the cwd */
    int dirfd2, path2;   /* the second path (rename, link, symlink's new name); -1: none */
    int flags;           /* open: the flags' argument; -1: creat (write, create, truncate) */
    int nonnull;         /* utimensat: notified only when this argument is not NULL; -1 */
};

/* Every entry: the filter above, and the rules seccomp.c adds to the deny
 * rules' filter when those hold the listener. */
const struct observe_call *seccomp_observe_calls(size_t *n);

/* The entry of NAME (a call name as the ledger decodes it), or NULL when
 * the filter does not notify it. */
const struct observe_call *seccomp_observe_call(const char *name);

/* The flags that make an open a write (the filter's mask). */
#define OBSERVE_OPEN_WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | 020000000 /* __O_TMPFILE */)

#endif
