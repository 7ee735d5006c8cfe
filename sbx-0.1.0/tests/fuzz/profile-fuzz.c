/* libFuzzer target: profile text, with includes resolved against the
 * shipped profiles and the fuzz corpus. Any input must end in success or
 * in error messages: never a crash, a leak, a hang. What loads is printed
 * (`sbx profile show`) and turned into the run record's JSON. */
#include "config.h"

#include "lookup.h"
#include "profile.h"
#include "profile_json.h"

#include <json-c/json.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct profile_vars vars = {
        .home = "/home/fuzz", .cwd = "/work", .user = "fuzz", .uid = "1000", .gid = "1000", .tmpdir = "/tmp",
    };
    struct profile_search search = {0};
    profile_search_add(&search, SBX_ABS_SRCDIR "/profiles");
    profile_search_add(&search, SBX_ABS_SRCDIR "/tests/fuzz/includes");
    struct profile p;
    struct profile_errors errs = {0};
    profile_init_defaults(&p);
    /* a name inside the includes dir, so relative includes resolve there */
    profile_load_buffer(&p, SBX_ABS_SRCDIR "/tests/fuzz/includes/input.ini", (const char *)data, size,
                        &search, &vars, &errs);
    if (errs.n == 0) {
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            profile_print(&p, null);
            fclose(null);
        }
        /* the run record's profile, from the same table */
        struct json_object *j = profile_to_json(&p);
        if (!json_object_to_json_string(j))
            __builtin_trap();
        json_object_put(j);
    }
    profile_errors_free(&errs);
    profile_free(&p);
    profile_search_free(&search);
    return 0;
}
