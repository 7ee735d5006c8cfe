/* The profile engine's INI front end: the bytes of one file into its
 * KEY = VALUE entries, in file order, each with its line. Inside the
 * profile engine only (profile_keys.h says which file does what). */
#ifndef SBX_PROFILE_INI_H
#define SBX_PROFILE_INI_H

#include "profile_keys.h"

#include <stddef.h>

struct ini_entry {
    char *section;
    char *key;      /* as written: "-rw", "ro?" */
    char *value;
    unsigned line;
};

struct ini_entries {
    struct ini_entry *v;
    size_t n, cap;
};

/* Splits data, the text of `file` (the label errors use), into entries of
 * known sections. Every malformed line is reported to L with its number
 * and skipped; the rest is still read. */
void profile_ini_parse(struct loader *L, const char *file, const char *data, size_t len,
                       struct ini_entries *out);
void ini_entries_free(struct ini_entries *e);

#endif
