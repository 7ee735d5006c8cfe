/* Whether a host path can exist, told by the listing of its directory:
 * one open and one getdents64 per directory instead of one failing open
 * per name. The credential stores default.ini hides are ~130 optional
 * paths below a dozen directories of $HOME, /etc and /run, most of them
 * missing on any one machine (issue 30: 97 of a run's opens failed). Only
 * a "missing" is trusted, and only from a filesystem that lists every name
 * it resolves; anything else answers "may exist", and the caller opens the
 * path as before. */
#ifndef SBX_DIR_LISTING_H
#define SBX_DIR_LISTING_H

#include <stdbool.h>
#include <stddef.h>

struct dir_listing;

struct dir_listings {
    size_t n, cap;
    struct dir_listing *v;
};

/* False only when path certainly does not exist now: its directory (or
 * one above it) was listed and the name is not there. */
bool dir_listing_may_exist(struct dir_listings *c, const char *path);
void dir_listings_free(struct dir_listings *c);

/* What FS_IOC_GETFLAGS said of the directory. */
enum dir_flags {
    DIR_FLAGS_READ,          /* flags holds them */
    DIR_FLAGS_UNSUPPORTED,   /* ENOTTY: the filesystem has no such ioctl */
    DIR_FLAGS_UNKNOWN,       /* any other failure (a filter around sbx: EPERM) */
};

/* The part that decides without touching the filesystem, for unit tests:
 * whether a filesystem (statfs f_type) lists every name it resolves,
 * given what the directory's FS_IOC_GETFLAGS said. */
bool dir_listing_trusted(long f_type, enum dir_flags got, unsigned long flags);

#endif
