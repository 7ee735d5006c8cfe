/* Where profile NAMEs are found (sbx(1) PROFILES), first match wins:
 *   $SBX_PROFILE_PATH (colon-separated)
 *   ${XDG_CONFIG_HOME:-~/.config}/sbx/profiles
 *   $(sysconfdir)/sbx/profiles
 *   $(pkgdatadir)/profiles
 *   the source tree's profiles/, only when sbx runs from its build tree */
#ifndef SBX_LOOKUP_H
#define SBX_LOOKUP_H

#include "profile.h"

#include <stdbool.h>

/* A NAME has no '/' and does not end in ".ini"; anything else is a path. */
bool profile_name_is_path(const char *name);

/* Fills s from the environment (reads getenv and /proc/self/exe). */
void profile_search_from_env(struct profile_search *s);
void profile_search_add(struct profile_search *s, const char *dir);
void profile_search_free(struct profile_search *s);

/* DIR/NAME.ini of the first DIR that has it, skipping the file whose
 * canonical path is `skip` (so a profile can include the one it shadows).
 * NULL when none. */
char *profile_search_find(const struct profile_search *s, const char *name, const char *skip);

/* The NAME of a profile on the search path nearest to `name` (a typo's
 * fix: "qa" for "qaa"), or NULL when none is near (util.h near_word()). */
char *profile_search_nearest(const struct profile_search *s, const char *name);

/* Calls fn(dir, name, ctx) for every DIR/NAME.ini (not hidden) of every
 * directory of the search path, in search order; name is without ".ini". */
void profile_search_each(const struct profile_search *s,
                         void (*fn)(const char *dir, const char *name, void *ctx), void *ctx);

/* "dir1, dir2, dir3" for error messages. */
char *profile_search_describe(const struct profile_search *s);

#endif
