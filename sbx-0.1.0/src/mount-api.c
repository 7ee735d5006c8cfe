#include "config.h"

#include "mount-api.h"

#include "log.h"

#include <sys/mount.h>

const struct mount_api *mount_api_choose(bool force_legacy, const char **why_legacy)
{
    *why_legacy = force_legacy ? "forced by a test" : mount_newapi_missing();
    return *why_legacy ? &mount_legacy : &mount_newapi;
}

void mount_detach_staging_copy(const char *copy, const char *what)
{
    if (umount2(copy, MNT_DETACH) < 0)
        die_errno("%s: unmounting the copy of the staging tmpfs at %s", what, copy);
}
