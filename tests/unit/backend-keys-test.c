/* Every key of the profile parser's table (profile_keys.c, the one list
 * of keys) has a row in each backend's table (backend.h): the namespaces'
 * (backend_ns_key_fate()) and the Landlock tier's (landlock_key_fate(),
 * whose refusals landlock-keys-test loads by file:line). A key added to
 * the parser without a row in a backend fails here, so no rule reaches a
 * backend unconsidered. The namespaces refuse no key: each one's row
 * names the module that expresses it. */
#include "config.h"

#include "backend.h"
#include "landlock.h"
#include "profile_keys.h"
#include "../tap.h"

#include <string.h>

static bool row_ok(const struct backend_key_fate *f)
{
    return f && f->fate != BACKEND_UNKNOWN && f->how && *f->how &&
           (f->fate != BACKEND_REFUSED || (f->section && f->refused_line));
}

int main(void)
{
    plan((int)profile_nkeys * 2 + 1);
    bool every_key_once[K_COUNT] = { false };
    size_t distinct = 0;
    for (size_t i = 0; i < profile_nkeys; i++) {
        const struct key_def *d = &profile_keys[i];
        const struct backend_key_fate *ns = backend_ns_key_fate(d->key);
        ok(row_ok(ns) && ns->fate != BACKEND_REFUSED,
           "[%s] %s: the namespaces express it: %s", d->section, d->name,
           ns && ns->how ? ns->how : "(no row)");
        const struct backend_key_fate *ll = landlock_key_fate(d->key);
        ok(row_ok(ll), "[%s] %s: the Landlock tier has a row: %s", d->section, d->name,
           ll && ll->how ? ll->how : "(no row)");
        if ((unsigned)d->key < K_COUNT && !every_key_once[d->key]) {
            every_key_once[d->key] = true;
            distinct++;
        }
    }
    is_int((int)distinct, K_COUNT, "the parser's table holds every key (enum profile_key)");
    return done_testing();
}
