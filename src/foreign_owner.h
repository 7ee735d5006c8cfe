/* Why a root caller's command gets EACCES in its own workspace.
 *
 * The command of a root caller is kernel uid 0 without capabilities
 * (capabilities = none), and in its user namespace, which maps uid 0
 * alone, even a kept CAP_DAC_OVERRIDE covers only files whose owner and
 * group are mapped (capable_wrt_inode_uidgid(), fs/inode.c). Files of
 * another uid (a checkout owned by uid 1000, a volume mounted into a
 * container) are then writable only through their group or other bits:
 * the command fails with a bare "Permission denied" where a root shell
 * writes. The ledger cannot see that refusal (it is the kernel's DAC check,
 * not a filter rule), so the plan looks before clone(): the writable
 * places of the plan, the working directory and their top entries, a
 * bounded number of lstat() calls. After a non-zero exit sbx says once
 * what it found, as a fact, not as the cause. */
#ifndef SBX_FOREIGN_OWNER_H
#define SBX_FOREIGN_OWNER_H

#include "mount-plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct foreign_owner {
    char *first;        /* the first entry found root cannot write, or NULL */
    uid_t owner;        /* its owner (host uid) */
    size_t more;        /* further entries found alike */
    bool kept_dac_override; /* capabilities = keeps it: only unmapped owners explain it */
};

/* True when kernel uid 0 without CAP_DAC_OVERRIDE over the object (st, as
 * lstat() gives it) cannot write it: another uid owns it and neither its
 * group bits (for a group among egid and groups) nor its other bits grant
 * write. Pure. */
bool foreign_owner_blocks_root(const struct stat *st, gid_t egid, const gid_t *groups,
                               size_t ngroups);

/* Fills *out from the host: the plan's writable directories from the
 * profile's rules, cwd, and up to FOREIGN_OWNER_MAX_ENTRIES entries of cwd
 * and of the writable directory holding it. Entries with an access ACL
 * are left out (it may grant what the bits do not). To be called only when
 * the command will be kernel uid 0. */
#define FOREIGN_OWNER_MAX_ENTRIES 256
void foreign_owner_scan(struct foreign_owner *out, const struct mount_plan *mounts,
                        const char *cwd, bool kept_dac_override);

/* "sbx: note: ..." on stderr when something was found. */
void foreign_owner_print_note(const struct foreign_owner *f);
void foreign_owner_free(struct foreign_owner *f);

#endif
