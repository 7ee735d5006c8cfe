/* Every profile key has a row in the Landlock tier's table
 * (landlock_key_fate()): the same as in the namespaces, expressed by
 * Landlock's own means, something else instead, said at start, or
 * refused. A key added to the profile engine without a row fails here,
 * so no rule can reach the tier unconsidered. Each refused key is then
 * loaded from a profile and must be refused by its file:line. */
#include "config.h"

#include "landlock.h"
#include "lookup.h"
#include "profile.h"
#include "profile_keys.h"
#include "../tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct profile_vars vars = {
    .home = "/nonexistent-home", .cwd = "/", .user = "u", .uid = "1000", .gid = "1000",
    .tmpdir = "/tmp", .project = "/nonexistent-project",
};

int main(void)
{
    plan((int)profile_nkeys + 1);
    size_t refused = 0;
    /* the profile parser's table: the one list of keys */
    for (size_t i = 0; i < profile_nkeys; i++) {
        int k = profile_keys[i].key;
        const struct backend_key_fate *f = landlock_key_fate((enum profile_key)k);
        ok(f && f->fate != BACKEND_UNKNOWN && f->how &&
               (f->fate != BACKEND_REFUSED || (f->section && f->refused_line)),
           "key %d has a row in the Landlock tier's table: %s", k, f && f->how ? f->how : "(none)");
        refused += f && f->fate == BACKEND_REFUSED;
    }
    if (landlock_abi_version() < 6) {
        skip("no Landlock ABI 6 here: the refusals cannot be planned");
        return done_testing();
    }
    struct profile_search search = { 0 };
    size_t named = 0;
    for (size_t row = 0; row < profile_nkeys; row++) {
        const struct backend_key_fate *f = landlock_key_fate(profile_keys[row].key);
        if (!f || f->fate != BACKEND_REFUSED || !f->section)
            continue;
        char text[256];
        /* line 3 holds the key; mode = loopback for the [network] ones */
        snprintf(text, sizeof text, "[%s]\n\n%s\n[network]\nmode = loopback\n", f->section,
                 f->refused_line);
        struct profile p;
        struct profile_errors errs = { 0 };
        profile_init_defaults(&p);
        if (!profile_load_buffer(&p, "refuse.ini", text, strlen(text), &search, &vars, &errs)) {
            for (size_t i = 0; i < errs.n; i++)
                diag("%s: %s", f->refused_line, errs.msg[i]);
            profile_errors_free(&errs);
            profile_free(&p);
            continue;
        }
        struct strv said = { 0 }, no = { 0 };
        landlock_plan_describe(&p, NULL, &said, &no);
        bool found = false;
        for (size_t i = 0; i < no.n; i++)
            found |= !strncmp(no.v[i], "refuse.ini:3: ", strlen("refuse.ini:3: "));
        if (found)
            named++;
        else
            diag("'%s' ([%s]) was not refused by refuse.ini:3 (%zu refusals)", f->refused_line,
                 f->section, no.n);
        strv_free(&said);
        strv_free(&no);
        profile_errors_free(&errs);
        profile_free(&p);
    }
    is_int((int)named, (int)refused, "each of the %zu refused keys is refused by its file:line",
           refused);
    return done_testing();
}
