/* The layers on disk (layers.h says what they are): made for a run,
 * listed and removed by `sbx cache`. Every directory from the layers root
 * down is walked descriptor by descriptor without following a symlink and
 * must be the caller's: the sandboxes write only through their overlays,
 * but a directory of the layers a profile once made writable (a symlink
 * planted in an upper directory, a layer directory replaced) must not make
 * sbx mount or delete anything outside the layers. */
#ifndef SBX_LAYER_STORE_H
#define SBX_LAYER_STORE_H

#include <stdbool.h>
#include <stdint.h>

/* Makes (when missing) ROOT/PROFILE/NAME/{upper,work}, NAME the layer name
 * of `path` (layers.h), each directory mode 0700 and owned by the caller.
 * The caller's, because overlayfs works in upper/ and work/ with the
 * mounter's credentials, init's: root of the sandbox's user namespace,
 * whose capabilities reach only inodes of a uid mapped there (the
 * caller's alone). A work/ of another uid (a root caller's layer owned by
 * 65534) makes the kernel mount the overlay read-only (EACCES creating
 * work/work); mount.c refuses that rather than run with it.
 * The layer is locked (flock, exclusive) on the descriptor returned, for
 * as long as it stays open: overlayfs allows a directory to be the upper
 * of one mount only (a second one is "undefined behavior", the kernel's
 * log says), and `sbx cache clear` must not delete it under a live mount.
 * A layer locked by another sbx fails with errno EBUSY.
 * Returns a descriptor (O_RDONLY | O_DIRECTORY) on ROOT/PROFILE/NAME and
 * its canonical path in *layer_path, or -1 with *error set (malloc'd,
 * naming the directory and errno). */
int layer_store_open(const char *root, const char *profile, const char *path, char **layer_path,
                     char **error);
/* After the last layer_store_open() of a plan: closes the profile's
 * directory it keeps open from one call to the next. */
void layer_store_done(void);

/* For a run that found the layer of `path` in use (EBUSY above): a
 * snapshot of its upper/ to mount as the top lower directory, made of
 * hard links (layer_store.c says why and how), locked for as long as the
 * descriptor returned stays open. Returns that descriptor (O_RDONLY |
 * O_DIRECTORY) and the snapshot's path in *snapshot_path, or -1 with
 * *error set. */
int layer_store_snapshot(const char *root, const char *profile, const char *path,
                         char **snapshot_path, char **error);

/* sbx cache list [PROFILE]: one line a layer (profile, path, bytes, where).
 * Returns the exit status. */
int layer_store_list(const char *root, const char *profile);

/* sbx cache clear [PROFILE]: removes the layers of PROFILE (every profile's
 * when NULL), unlinking what is in them, never following a link, never
 * leaving the file system of the layers root. A layer a run holds (locked,
 * above) is left, with a message, and the status is 125. stale_only: only
 * the layers of profiles given by a file that no longer exists
 * (layer_store_profile_stale()). Returns the exit status. */
int layer_store_clear(const char *root, const char *profile, bool stale_only);

/* The profile file a layers directory is named after (layers.h), when it
 * is one and that file no longer exists: malloc'd, else NULL (a profile
 * asked for by name, or a file still there). */
char *layer_store_profile_stale(const char *dir_name);

#endif
