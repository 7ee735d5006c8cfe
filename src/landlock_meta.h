/* The Landlock tier's metadata changes (sbx(1) TIERS): Landlock has no
 * right for chmod, chown, utimes or extended attributes (up to ABI 7), so
 * a root caller's command could chmod any root-owned file of the host it
 * can name. These calls stop in the kernel (deny rules of sbx's own,
 * plan.c) and the ledger's thread hands them here: the supervisor opens
 * the target once (O_PATH, from the command's working directory or
 * descriptor, with the path it read once), checks that what it opened
 * lies in a writable path, and makes the change itself on that
 * descriptor: a path swapped after the check (a symlink planted in a
 * writable directory) changes nothing, since nothing resolves it again.
 * The ledger's thread holds no effective capability then (ledger.c), so
 * the change is the caller's uid's to make, as it would be the command's.
 * Set-user-ID bits, and set-group-ID on executables, are refused: the
 * namespace tier's mounts are nosuid. */
#ifndef SBX_LANDLOCK_META_H
#define SBX_LANDLOCK_META_H

#include "util.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether name is one of the calls this file makes. */
bool landlock_meta_handles(const char *name);

/* The call name(args) of thread tid (of process tgid); compat: i386.
 * writable: the canonical paths the command may change. True when the
 * call was made (*err: 0 or the errno the command gets), false when it is
 * refused (outside the writable paths, or unreadable). */
bool landlock_meta_make_call(const char *name, const uint64_t args[6], bool compat, pid_t tid,
                             pid_t tgid, const struct strv *writable, int *err);

#endif
