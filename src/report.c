/* The profile as asked, for the run record (record_profile(), report.h):
 * the effective profile after command-line overrides, as JSON kept in the
 * supervisor's memory until the document is assembled (report_document.c).
 * What the run then did comes from the acting modules, not from here. */
#include "config.h"

#include "report_record.h"

#include "json_bytes.h"
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

static struct json_object *json_limit_asked(const struct limit_setting *s)
{
    if (!s->set)
        return NULL;
    if (s->max)
        return json_object_new_string("max");
    if (s->unlimited)
        return json_object_new_string("unlimited");
    return json_object_new_int64(s->value > INT64_MAX ? INT64_MAX : (int64_t)s->value);
}

static struct json_object *json_id_setting(const struct id_setting *s)
{
    return s->current ? json_object_new_string("current") : json_object_new_int64(s->value);
}

static const char *root_mode_name(enum root_mode m)
{
    switch (m) {
    case ROOT_RO: return "ro";
    case ROOT_TMPFS: return "tmpfs";
    case ROOT_HOST: return "host";
    }
    return "?";
}

static struct json_object *environment_changes(const struct profile *p);

void record_profile(const struct profile *p)
{
    struct run_record *rec = record_current();
    if (!rec)
        return;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_cstr_new(p->name));
    json_object_object_add(o, "path", json_cstr_new(p->path));
    json_object_object_add(o, "description", json_cstr_new(p->description));
    struct json_object *files = json_object_new_array();
    for (size_t i = 0; i < p->nfiles; i++)
        json_object_array_add(files, json_cstr_new(p->files[i]));
    json_object_object_add(o, "files", files);

    struct json_object *ns = json_object_new_object();
    for (int k = 0; k < NS_COUNT; k++)
        json_object_object_add(ns, ns_kind_name((enum ns_kind)k), json_object_new_boolean(p->ns[k]));
    json_object_object_add(o, "namespaces", ns);
    json_object_object_add(o, "uid", json_id_setting(&p->uid));
    json_object_object_add(o, "gid", json_id_setting(&p->gid));
    json_object_object_add(o, "hostname", json_cstr_new(p->hostname));
    json_object_object_add(o, "nested_userns", json_object_new_boolean(p->nested_userns));

    struct json_object *net = json_object_new_object();
    json_object_object_add(net, "mode", json_object_new_string(net_mode_name(p->net_mode)));
    json_object_object_add(net, "outbound", json_object_new_boolean(p->outbound));
    struct json_object *fwd = json_object_new_array();
    for (size_t i = 0; i < p->nforward; i++)
        json_object_array_add(fwd, json_object_new_int(p->forward[i]));
    json_object_object_add(net, "forward", fwd);
    json_object_object_add(o, "network", net);

    struct json_object *limits = json_object_new_object();
    for (int k = 0; k < LIMIT_COUNT; k++)
        json_object_object_add(limits, limit_kind_name((enum limit_kind)k),
                               json_limit_asked(&p->limits[k]));
    json_object_object_add(o, "limits", limits);
    json_object_object_add(o, "timeout_ms", p->timeout_ms ? json_object_new_int64(
                                                               p->timeout_ms > INT64_MAX ? INT64_MAX
                                                               : (int64_t)p->timeout_ms)
                                                          : NULL);

    struct json_object *fs = json_object_new_object();
    json_object_object_add(fs, "root", json_object_new_string(root_mode_name(p->root)));
    struct json_object *rules = json_object_new_array();
    for (size_t i = 0; i < p->nfs; i++) {
        struct json_object *r = json_object_new_object();
        json_object_object_add(r, "kind", json_object_new_string(fs_kind_name(p->fs[i].kind)));
        json_object_object_add(r, "path", json_cstr_new(p->fs[i].path));
        json_object_object_add(r, "optional", json_object_new_boolean(p->fs[i].optional));
        json_object_array_add(rules, r);
    }
    json_object_object_add(fs, "rules", rules);
    json_object_object_add(fs, "unprotect", json_str_list(&p->unprotect));
    json_object_object_add(fs, "proc", json_object_new_boolean(p->proc));
    json_object_object_add(fs, "dev", json_object_new_string(p->dev == DEV_MINIMAL ? "minimal" : "none"));
    json_object_object_add(o, "filesystem", fs);

    struct json_object *sec = json_object_new_object();
    json_object_object_add(sec, "no_new_privs", json_object_new_boolean(p->no_new_privs));
    json_object_object_add(sec, "capabilities", json_str_list(&p->capabilities));
    json_object_object_add(sec, "seccomp", json_object_new_string(p->seccomp == SECCOMP_DEFAULT
                                                                       ? "default" : "none"));
    json_object_object_add(sec, "io_uring", json_object_new_boolean(p->io_uring));
    struct json_object *deny = json_object_new_array();
    for (size_t i = 0; i < p->ndeny; i++)
        json_object_array_add(deny, json_cstr_new(p->deny[i].text));
    json_object_object_add(sec, "deny", deny);
    json_object_object_add(o, "security", sec);

    json_object_put(rec->profile);
    rec->profile = o;
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
