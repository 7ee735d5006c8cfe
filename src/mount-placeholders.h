/* What sbx makes on the host to keep a protected path read-only (a
 * missing ~/.config/git where ~/.config is writable: protect.h), and takes
 * away again after the run (issue 29: seven empty directories were left
 * in ~/.config by every run).
 *
 * A placeholder cannot simply be removed at exit: since Linux 3.18 an
 * rmdir or unlink on the host detaches every mount on that name in every
 * mount namespace, so removing one that another sbx run still has bound
 * read-only would let that run's command create the file it protects. So
 * every run holds a shared flock on each protected object it found (made
 * by itself or by another run), and removes what it made only when it can
 * take that lock exclusively: no other run holds it. A run that finds an
 * object it had to wait for unlinked meanwhile walks again.
 *
 * Removal goes through a descriptor of the directory the placeholder was
 * made in and its name, after checking the name still is the same object
 * (device and inode, no symlink followed), a directory only when it is
 * still empty (rmdir), a file only when it still holds exactly what sbx
 * wrote. Whatever sbx did not make, or what changed, stays. */
#ifndef SBX_MOUNT_PLACEHOLDERS_H
#define SBX_MOUNT_PLACEHOLDERS_H

#include "mount-walk.h"

#include <stdbool.h>

/* Takes over r->made (the walk's creations; the last one a file holding
 * file_content when that is not NULL) and holds the object r->fd names
 * (O_PATH) and each made one. Returns false when the object was removed
 * while this waited for its lock: walk again. */
bool mount_placeholders_hold(struct walk_result *r, const char *file_content);

/* After the run: removes what this process made that no other run holds,
 * newest first, and drops every hold. Also at exit (once, in the process
 * that made them: never in the sandbox's init). */
void mount_placeholders_remove(void);

#endif
