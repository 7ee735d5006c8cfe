/* TEMPORARY: origin_format() and fs_kind_name() until src/profile.c lands
 * on main. Removed at the merge. */
#include "config.h"

#include "profile.h"

#include <stdio.h>

const char *origin_format(const struct origin *o, char *buf, size_t len)
{
    if (!o->file)
        snprintf(buf, len, "default");
    else if (!o->line)
        snprintf(buf, len, "%s", o->file);
    else
        snprintf(buf, len, "%s:%u", o->file, o->line);
    return buf;
}

const char *fs_kind_name(enum fs_kind k)
{
    static const char *const n[] = { "rw", "ro", "tmpfs", "hide" };
    return n[k];
}
