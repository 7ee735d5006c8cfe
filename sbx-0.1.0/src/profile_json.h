/* The profile as the run record holds it (docs/run-record.md). */
#ifndef SBX_PROFILE_JSON_H
#define SBX_PROFILE_JSON_H

#include "profile.h"

struct json_object;

/* A new object: the profile's name, path and files, and each key's value
 * that the record holds, grouped as the key table says
 * (profile_keys.c). The caller owns it. */
struct json_object *profile_to_json(const struct profile *p);

#endif
