/* The run record's profile, derived from the key table: each row names
 * the object its value goes in and the function that writes it. Strings
 * from profiles are bytes (json_bytes.h). */
#include "config.h"

#include "profile_json.h"

#include "json_bytes.h"
#include "profile_keys.h"

#include <stdint.h>

struct json_object *json_of_string(const struct profile *p, const struct key_def *d)
{
    return json_cstr_new(*KEY_CFIELD(p, d, char *));
}

/* the include row: every file read, top file first */
struct json_object *json_of_files(const struct profile *p, const struct key_def *d)
{
    (void)d;
    struct json_object *files = json_object_new_array();
    for (size_t i = 0; i < p->nfiles; i++)
        json_object_array_add(files, json_cstr_new(p->files[i]));
    return files;
}

struct json_object *json_of_bool(const struct profile *p, const struct key_def *d)
{
    return json_object_new_boolean(*KEY_CFIELD(p, d, bool));
}

struct json_object *json_of_enum(const struct profile *p, const struct key_def *d)
{
    return json_object_new_string(d->choices[*KEY_CFIELD(p, d, int)]);
}

struct json_object *json_of_id(const struct profile *p, const struct key_def *d)
{
    const struct id_setting *s = KEY_CFIELD(p, d, struct id_setting);
    return s->current ? json_object_new_string("current") : json_object_new_int64(s->value);
}

/* what was asked for; null: inherit the caller's limit */
struct json_object *json_of_limit(const struct profile *p, const struct key_def *d)
{
    const struct limit_setting *s = KEY_CFIELD(p, d, struct limit_setting);
    if (!s->set)
        return NULL;
    if (s->max)
        return json_object_new_string("max");
    if (s->unlimited)
        return json_object_new_string("unlimited");
    return json_object_new_int64(s->value > INT64_MAX ? INT64_MAX : (int64_t)s->value);
}

/* milliseconds; null: none */
struct json_object *json_of_timeout(const struct profile *p, const struct key_def *d)
{
    uint64_t ms = *KEY_CFIELD(p, d, uint64_t);
    return ms ? json_object_new_int64(ms > INT64_MAX ? INT64_MAX : (int64_t)ms) : NULL;
}

/* every rw/ro/tmpfs/hide rule, in the order read */
struct json_object *json_of_fs_rules(const struct profile *p, const struct key_def *d)
{
    (void)d;
    struct json_object *rules = json_object_new_array();
    for (size_t i = 0; i < p->nfs; i++) {
        struct json_object *r = json_object_new_object();
        json_object_object_add(r, "kind", json_object_new_string(fs_kind_name(p->fs[i].kind)));
        json_object_object_add(r, "path", json_cstr_new(p->fs[i].path));
        json_object_object_add(r, "optional", json_object_new_boolean(p->fs[i].optional));
        json_object_array_add(rules, r);
    }
    return rules;
}

struct json_object *json_of_strings(const struct profile *p, const struct key_def *d)
{
    const struct str_list *l = KEY_CFIELD(p, d, struct str_list);
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; i < l->n; i++)
        json_object_array_add(a, json_cstr_new(l->v[i].value));
    return a;
}

struct json_object *json_of_ports(const struct profile *p, const struct key_def *d)
{
    (void)d;
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; i < p->nforward; i++)
        json_object_array_add(a, json_object_new_int(p->forward[i]));
    return a;
}

/* each rule as written, canonically spaced */
struct json_object *json_of_deny(const struct profile *p, const struct key_def *d)
{
    (void)d;
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; i < p->ndeny; i++)
        json_object_array_add(a, json_cstr_new(p->deny[i].text));
    return a;
}

struct json_object *profile_to_json(const struct profile *p)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_cstr_new(p->name));
    json_object_object_add(o, "path", json_cstr_new(p->path));
    for (size_t i = 0; i < profile_nkeys; i++) {
        const struct key_def *d = &profile_keys[i];
        if (!d->json_name)
            continue;
        struct json_object *in = o;
        if (d->json_in && !json_object_object_get_ex(o, d->json_in, &in)) {
            in = json_object_new_object();
            json_object_object_add(o, d->json_in, in);
        }
        json_object_object_add(in, d->json_name, d->json(p, d));
    }
    return o;
}
