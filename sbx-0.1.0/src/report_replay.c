/* Reading the run record's event log back (report_events.c wrote it),
 * in the supervisor, as untrusted input: the processes that appended to it
 * ran the sandbox's setup and may have died mid-line, or been made to
 * write anything. Each line goes through json_tokener; a line that does
 * not parse, or is not an event this file knows, is counted, not trusted.
 * Every value is copied as its documented type or becomes null, and every
 * string goes through json_bytes again: json_tokener accepts raw bytes
 * that are not UTF-8 inside strings, and a child may have written any. */
#include "config.h"

#include "report_document.h"
#include "report_record.h"

#include "json_bytes.h"
#include "util.h"

#include <string.h>

enum field_type { F_TEXT, F_INT, F_BOOL, F_INT_OR_TEXT };

struct field {
    const char *key;
    enum field_type type;
};

static struct json_object *copy_text(struct json_object *v)
{
    if (json_object_is_type(v, json_type_string))
        return json_bytes_new(json_object_get_string(v), (size_t)json_object_get_string_len(v));
    /* json_bytes' own {"base64", "text"} form, if it is well-formed */
    struct json_object *b64, *text;
    if (json_object_is_type(v, json_type_object) && json_object_object_length(v) == 2 &&
        json_object_object_get_ex(v, "base64", &b64) && json_object_is_type(b64, json_type_string) &&
        json_object_object_get_ex(v, "text", &text) && json_object_is_type(text, json_type_string) &&
        utf8_valid(json_object_get_string(b64), (size_t)json_object_get_string_len(b64)) &&
        utf8_valid(json_object_get_string(text), (size_t)json_object_get_string_len(text))) {
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "base64", json_object_get(b64));
        json_object_object_add(o, "text", json_object_get(text));
        return o;
    }
    return NULL;
}

static struct json_object *copy_value(struct json_object *v, enum field_type type)
{
    if (!v)
        return NULL;
    switch (type) {
    case F_TEXT:
        return copy_text(v);
    case F_INT:
        return json_object_is_type(v, json_type_int) ? json_object_new_int64(json_object_get_int64(v))
                                                     : NULL;
    case F_BOOL:
        return json_object_is_type(v, json_type_boolean)
                   ? json_object_new_boolean(json_object_get_boolean(v)) : NULL;
    case F_INT_OR_TEXT:
        return json_object_is_type(v, json_type_int) ? json_object_new_int64(json_object_get_int64(v))
                                                     : copy_text(v);
    }
    return NULL;
}

static struct json_object *copy_fields(struct json_object *ev, const struct field *fields, size_t n)
{
    struct json_object *o = json_object_new_object();
    for (size_t i = 0; i < n; i++) {
        struct json_object *v = NULL;
        json_object_object_get_ex(ev, fields[i].key, &v);
        json_object_object_add(o, fields[i].key, copy_value(v, fields[i].type));
    }
    return o;
}

#define COPY_FIELDS(ev, ...)                                                   \
    copy_fields(ev, (const struct field[]){__VA_ARGS__},                       \
                sizeof((const struct field[]){__VA_ARGS__}) / sizeof(struct field))

/* A string field usable as an object key: NULL when absent; valid UTF-8. */
static char *event_key(struct json_object *ev, const char *key)
{
    struct json_object *v;
    if (!json_object_object_get_ex(ev, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return utf8_lossy(json_object_get_string(v), (size_t)json_object_get_string_len(v));
}

static bool event_type_is(struct json_object *ev, const char *type)
{
    struct json_object *v;
    return json_object_object_get_ex(ev, "event", &v) && json_object_is_type(v, json_type_string) &&
           !strcmp(json_object_get_string(v), type);
}

/* One line of the log into ev; false when it is no event of ours. */
static bool replay_event(struct json_object *line, struct run_events *r)
{
    char *key = NULL;
    bool known = true;
    if (event_type_is(line, "step")) {
        json_object_array_add(r->steps, COPY_FIELDS(line, {"pid", F_INT}, {"t_us", F_INT},
                                                    {"step", F_TEXT}));
    } else if (event_type_is(line, "id_map")) {
        key = event_key(line, "which");
        json_object_array_add(key && !strcmp(key, "gid") ? r->gid_map : r->uid_map,
                              COPY_FIELDS(line, {"inside", F_INT}, {"outside", F_INT},
                                          {"count", F_INT}));
    } else if (event_type_is(line, "limit") && (key = event_key(line, "name"))) {
        json_object_object_add(r->limits_applied, key,
                               COPY_FIELDS(line, {"soft", F_INT_OR_TEXT}, {"hard", F_INT_OR_TEXT}));
    } else if (event_type_is(line, "nproc_enforcement")) {
        json_object_put(r->nproc_enforcement);
        r->nproc_enforcement = COPY_FIELDS(line, {"by", F_TEXT}, {"cgroup", F_TEXT},
                                           {"enforced", F_BOOL}, {"why_not", F_TEXT});
    } else if (event_type_is(line, "network") && (key = event_key(line, "key"))) {
        struct json_object *value = NULL;
        json_object_object_get_ex(line, "value", &value);
        json_object_object_add(r->network_state, key, copy_value(value, F_TEXT));
    } else if (event_type_is(line, "mount")) {
        json_object_array_add(r->mounts, COPY_FIELDS(line, {"pid", F_INT}, {"t_us", F_INT},
                                                     {"kind", F_TEXT}, {"source", F_TEXT},
                                                     {"target", F_TEXT}, {"note", F_TEXT}));
    } else if (event_type_is(line, "env")) {
        json_object_array_add(r->env_by_sbx, COPY_FIELDS(line, {"pid", F_INT}, {"t_us", F_INT},
                                                         {"action", F_TEXT}, {"name", F_TEXT}));
    } else if (event_type_is(line, "failure")) {
        json_object_array_add(r->failures, COPY_FIELDS(line, {"pid", F_INT}, {"t_us", F_INT},
                                                       {"message", F_TEXT}));
    } else {
        /* denials among them: only the supervisor's ledger counts those,
         * a child cannot add any */
        known = false;
    }
    free(key);
    return known;
}

void run_events_read(const struct run_record *rec, struct run_events *r)
{
    run_events_init(r);
    if (!rec->arena)
        return;
    size_t room = rec->arena_size - offsetof(struct record_arena, data);
    size_t used = __atomic_load_n(&rec->arena->used, __ATOMIC_ACQUIRE);
    if (used > room)
        used = room;
    r->truncated = __atomic_load_n(&rec->arena->truncated, __ATOMIC_ACQUIRE);
    const char *p = rec->arena->data, *end = p + used;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        struct json_object *ev = NULL;
        if (len > 0 && len < RECORD_EVENT_MAX) {
            struct json_tokener *tok = json_tokener_new();
            ev = json_tokener_parse_ex(tok, p, (int)len);
            if (json_tokener_get_error(tok) != json_tokener_success) {
                json_object_put(ev);
                ev = NULL;
            }
            json_tokener_free(tok);
        }
        p += len + 1;
        if (!ev || !json_object_is_type(ev, json_type_object)) {
            /* a reserved slot never filled (a child died mid-append) reads
             * as NUL bytes: also counted here */
            if (len > 0)
                r->bad_lines++;
            json_object_put(ev);
            continue;
        }
        if (!replay_event(ev, r))
            r->bad_lines++;
        json_object_put(ev);
    }
}
