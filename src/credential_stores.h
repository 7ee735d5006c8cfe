/* The credential stores of common tools, at the paths their documentation
 * gives: one table for both sides of the question. `hide? =
 * @credential-stores` in a profile (profiles/default.ini) hides each one
 * (parse_fs_rule() expands the word into one optional hide rule a store,
 * so `-hide? = ${HOME}/.npmrc` in an including profile gives one back),
 * and `sbx probe` checks each one by path (probe_credentials.c). A store
 * added here is hidden and probed at once. */
#ifndef SBX_CREDENTIAL_STORES_H
#define SBX_CREDENTIAL_STORES_H

#include <stddef.h>

#define CREDENTIAL_STORES_WORD "@credential-stores"

struct credential_store {
    const char *path;   /* hidden: relative to $HOME, or absolute */
    const char *probe;  /* what probe checks when not path itself (a file
                         * inside a directory hidden whole), or NULL */
    const char *label;  /* the tool and what it keeps there */
};

extern const struct credential_store credential_stores[];
extern const size_t credential_stores_n;

#endif
