/* The run record's transport and its producers: the record_*() calls of
 * report.h that the CLI and the run core make, in any process.
 *
 * What the supervisor knows (the command, env_build()'s diff) stays in its
 * memory as json-c objects. What init and the command's pre-exec setup do
 * (steps, id maps, limits, mounts, failures) is appended as one JSON line
 * per event to the shared event log (report_record.h), since those
 * processes never return to the supervisor; report_replay.c reads it back
 * as untrusted input. */
#include "config.h"

#include "report_record.h"

#include "env.h"
#include "fault_hook.h"
#include "json_bytes.h"
#include "log.h"
#include "ns.h"
#include "rlimits.h"
#include "util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static struct run_record *current;

long long record_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

struct run_record *record_new(void)
{
    struct run_record *rec = xcalloc(1, sizeof *rec);
    clock_gettime(CLOCK_REALTIME, &rec->start_real);
    rec->start_mono_us = record_mono_us();
    rec->arena_size = RECORD_ARENA_SIZE;
    void *m = mmap(NULL, rec->arena_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        die_errno("--report: cannot map %u bytes for the run record", RECORD_ARENA_SIZE);
    rec->arena = m;
    return rec;
}

void record_set_current(struct run_record *rec)
{
    current = rec;
}

struct run_record *record_current(void)
{
    return current;
}

void record_free(struct run_record *rec)
{
    if (!rec)
        return;
    if (current == rec)
        current = NULL;
    report_file_forget(rec);
    if (rec->arena)
        munmap(rec->arena, rec->arena_size);
    free(rec->label);
    json_object_put(rec->profile);
    json_object_put(rec->environment);
    json_object_put(rec->command);
    if (rec->env) {
        env_diff_free(rec->env);
        free(rec->env);
    }
    free(rec);
}

/* ---- the event log --------------------------------------------------- */

/* Reserves len bytes of the log: where to copy them, or NULL when the log
 * is full (then marked truncated). Never allocates: record_limits()
 * appends after setrlimit(), where `as = N` may leave no room for the
 * heap. */
static char *arena_reserve(struct run_record *rec, size_t len)
{
    size_t room = rec->arena_size - offsetof(struct record_arena, data);
    size_t at = __atomic_fetch_add(&rec->arena->used, len, __ATOMIC_RELAXED);
    if (at + len > room) {
        __atomic_store_n(&rec->arena->truncated, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    return rec->arena->data + at;
}

static void arena_put(struct run_record *rec, const char *bytes, size_t len)
{
    char *at = arena_reserve(rec, len);
    if (at)
        memcpy(at, bytes, len);
}

/* Appends ev (consumed) with its process and time. Safe in any process
 * that shares the mapping; never fails loudly: a full log is marked. */
static void event_append(const char *type, struct json_object *ev)
{
    struct run_record *rec = current;
    if (!rec || !rec->arena) {
        json_object_put(ev);
        return;
    }
    struct json_object *line = json_object_new_object();
    json_object_object_add(line, "event", json_object_new_string(type));
    json_object_object_add(line, "pid", json_object_new_int64(getpid()));
    json_object_object_add(line, "t_us", json_object_new_int64(record_mono_us() - rec->start_mono_us));
    json_object_object_foreach(ev, key, val)
        json_object_object_add(line, key, json_object_get(val));
    json_object_put(ev);
    const char *json = json_object_to_json_string_ext(line, JSON_C_TO_STRING_PLAIN |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t len = strlen(json);
    if (len + 1 > RECORD_EVENT_MAX) {
        __atomic_store_n(&rec->arena->truncated, 1, __ATOMIC_RELAXED);
    } else {
        char *at = arena_reserve(rec, len + 1);
        if (at) {
            memcpy(at, json, len);
            at[len] = '\n';
        }
    }
    json_object_put(line);
}

void record_append_raw(const char *bytes, size_t len)
{
    struct run_record *rec = current;
    if (!rec || !rec->arena)
        return;
    arena_put(rec, bytes, len);
}

void record_step(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    fault_hook_step(s);
    if (!current) {
        free(s);
        return;
    }
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "step", json_cstr_new(s));
    free(s);
    event_append("step", ev);
}

static void record_id_map(const char *which, const struct ns_id_map_line *line)
{
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "which", json_cstr_new(which));
    json_object_object_add(ev, "inside", json_object_new_int64(line->inside));
    json_object_object_add(ev, "outside", json_object_new_int64(line->outside));
    json_object_object_add(ev, "count", json_object_new_int64(line->count));
    event_append("id_map", ev);
}

void record_id_maps(const struct ns_id_maps *written)
{
    if (!current)
        return;
    record_id_map("uid", &written->uid);
    record_id_map("gid", &written->gid);
}

static const char *rlim_json(rlim_t v, char *buf, size_t len)
{
    if (v == RLIM_INFINITY || (uint64_t)v > (uint64_t)INT64_MAX)
        snprintf(buf, len, "\"unlimited\"");
    else
        snprintf(buf, len, "%" PRIu64, (uint64_t)v);
    return buf;
}

void record_limits(const struct limits_applied *applied)
{
    struct run_record *rec = current;
    if (!rec || !rec->arena)
        return;
    for (int k = 0; k < LIMIT_COUNT; k++) {
        if (!applied->limit[k].set)
            continue;
        /* formatted on the stack (arena_put): the name is one of
         * limit_kind_name()'s, the values numbers, nothing to escape */
        char soft[32], hard[32], line[256];
        int n = snprintf(line, sizeof line,
                         "{\"event\":\"limit\",\"pid\":%ld,\"t_us\":%lld,\"name\":\"%s\","
                         "\"soft\":%s,\"hard\":%s}\n",
                         (long)getpid(), record_mono_us() - rec->start_mono_us,
                         limit_kind_name((enum limit_kind)k),
                         rlim_json(applied->limit[k].now.rlim_cur, soft, sizeof soft),
                         rlim_json(applied->limit[k].now.rlim_max, hard, sizeof hard));
        if (n > 0 && (size_t)n < sizeof line)
            arena_put(rec, line, (size_t)n);
    }
}

void record_nproc_enforcement(const char *by, const char *cgroup, bool enforced,
                              const char *why_not)
{
    if (!current)
        return;
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "by", json_cstr_new(by));
    json_object_object_add(ev, "cgroup", json_cstr_new(cgroup));
    json_object_object_add(ev, "enforced", json_object_new_boolean(enforced));
    json_object_object_add(ev, "why_not", json_cstr_new(why_not));
    event_append("nproc_enforcement", ev);
}

void record_network(const char *key, const char *value)
{
    if (!current)
        return;
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "key", json_cstr_new(key));
    json_object_object_add(ev, "value", json_cstr_new(value));
    event_append("network", ev);
}

void record_mount(const char *kind, const char *source, const char *target, const char *note)
{
    if (!current)
        return;
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "kind", json_cstr_new(kind));
    json_object_object_add(ev, "source", json_cstr_new(source));
    json_object_object_add(ev, "target", json_cstr_new(target));
    json_object_object_add(ev, "note", json_cstr_new(note));
    event_append("mount", ev);
}

static void names_copy(struct strv *to, const struct strv *from)
{
    for (size_t i = 0; i < from->n; i++)
        strv_push(to, xstrdup(from->v[i]));
}

void record_environment(const struct env_diff *diff)
{
    struct run_record *rec = current;
    if (!rec)
        return;
    if (rec->env)
        env_diff_free(rec->env);
    else
        rec->env = xcalloc(1, sizeof *rec->env);
    names_copy(&rec->env->passed, &diff->passed);
    names_copy(&rec->env->removed, &diff->removed);
    names_copy(&rec->env->set_by_sbx, &diff->set_by_sbx);
    /* and an event each, with pid and time, as changes the run core made */
    for (size_t i = 0; i < diff->set_by_sbx.n; i++) {
        struct json_object *ev = json_object_new_object();
        json_object_object_add(ev, "action", json_object_new_string("set"));
        json_object_object_add(ev, "name", json_cstr_new(diff->set_by_sbx.v[i]));
        event_append("env", ev);
    }
}

void record_command(char *const *argv, const char *cwd)
{
    struct run_record *rec = current;
    if (!rec)
        return;
    struct json_object *o = json_object_new_object();
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; argv && argv[i]; i++)
        json_object_array_add(a, json_cstr_new(argv[i]));
    json_object_object_add(o, "argv", a);
    json_object_object_add(o, "cwd", json_cstr_new(cwd));
    json_object_put(rec->command);
    rec->command = o;
    report_file_note_argv(a);
}

void record_failure(const char *message)
{
    if (!current)
        return;
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "message", json_cstr_new(message));
    event_append("failure", ev);
}

void report_child_die_hook(const char *message)
{
    record_failure(message);
}
