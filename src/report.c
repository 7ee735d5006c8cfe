/* The profile as asked, for the run record (record_profile(), report.h):
 * the effective profile after command-line overrides, as JSON kept in the
 * supervisor's memory until the document is assembled (report_document.c).
 * What the run then did comes from the acting modules, not from here. */
#include "config.h"

#include "report_record.h"

#include "json_bytes.h"
#include "profile_json.h"
#include "util.h"

#include <string.h>

/* ---- what the CLI knows ---------------------------------------------- */

static struct json_object *json_str_list(const struct str_list *l)
{
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; i < l->n; i++)
        json_object_array_add(a, json_cstr_new(l->v[i].value));
    return a;
}

static struct json_object *environment_changes(const struct profile *p);

/* The profile's own keys come from the key table (profile_json.c); the
 * environment rules sit beside them. */
void record_profile(const struct profile *p)
{
    struct run_record *rec = record_current();
    if (!rec)
        return;
    json_object_put(rec->profile);
    rec->profile = profile_to_json(p);
    json_object_put(rec->environment);
    rec->environment = environment_changes(p);
}

/* The [environment] rules as asked: the names `set` gives a value and the
 * unset/keep rules as written. What they did to the caller's environment
 * is env_build()'s to say (record_environment()). */
static struct json_object *environment_changes(const struct profile *p)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "clear", json_object_new_boolean(p->env_clear));
    json_object_object_add(o, "unset_secret_values",
                           json_object_new_boolean(p->env_unset_secret_values));
    struct json_object *set = json_object_new_array();
    for (size_t i = 0; i < p->env_set.n; i++) {
        const char *v = p->env_set.v[i].value;
        const char *eq = strchr(v, '=');
        json_object_array_add(set, json_bytes_new(v, eq ? (size_t)(eq - v) : strlen(v)));
    }
    json_object_object_add(o, "set", set);
    json_object_object_add(o, "unset_rules", json_str_list(&p->env_unset));
    json_object_object_add(o, "keep_rules", json_str_list(&p->env_keep));
    return o;
}
