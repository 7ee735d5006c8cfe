/* `sbx profile show`: the effective profile as profile text, each line
 * with the file:line that set it. The lines come from the key table, in
 * its order; each row's print function writes that key's lines. What is
 * printed reads back as the same profile (tests/unit/profile-test.c). */
#include "config.h"

#include "profile_keys.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void print_line(FILE *out, const struct origin *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void print_line(FILE *out, const struct origin *at, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char where[PATH_MAX + 32];
    fprintf(out, "%-40s ; %s\n", line, origin_format(at, where, sizeof where));
}

static const char *yesno(bool b)
{
    return b ? "yes" : "no";
}

/* a scalar's origin */
static const struct origin *set_at(const struct profile *p, const struct key_def *d)
{
    return &p->at[d->key];
}

void print_string(const struct profile *p, const struct key_def *d, FILE *out)
{
    const char *v = *KEY_CFIELD(p, d, char *);
    print_line(out, set_at(p, d), "%s = %s", d->name, v ? v : "");
}

void print_bool(const struct profile *p, const struct key_def *d, FILE *out)
{
    print_line(out, set_at(p, d), "%s = %s", d->name, yesno(*KEY_CFIELD(p, d, bool)));
}

void print_enum(const struct profile *p, const struct key_def *d, FILE *out)
{
    print_line(out, set_at(p, d), "%s = %s", d->name, d->choices[*KEY_CFIELD(p, d, int)]);
}

void print_id(const struct profile *p, const struct key_def *d, FILE *out)
{
    const struct id_setting *id = KEY_CFIELD(p, d, struct id_setting);
    if (id->current)
        print_line(out, set_at(p, d), "%s = current", d->name);
    else
        print_line(out, set_at(p, d), "%s = %u", d->name, id->value);
}

static void limit_line(const struct profile *p, const struct key_def *d, FILE *out, const char *unit)
{
    const struct limit_setting *l = KEY_CFIELD(p, d, struct limit_setting);
    if (!l->set) {
        char line[64];
        snprintf(line, sizeof line, "%s = inherit", d->name);
        fprintf(out, "%-40s ; default: the caller's limit\n", line);
    } else if (l->max) {
        print_line(out, set_at(p, d), "%s = max", d->name);
    } else if (l->unlimited) {
        print_line(out, set_at(p, d), "%s = unlimited", d->name);
    } else {
        print_line(out, set_at(p, d), "%s = %llu%s", d->name, (unsigned long long)l->value, unit);
    }
}

void print_limit(const struct profile *p, const struct key_def *d, FILE *out)
{
    limit_line(p, d, out, "");
}

void print_limit_seconds(const struct profile *p, const struct key_def *d, FILE *out)
{
    limit_line(p, d, out, "s");
}

void print_timeout(const struct profile *p, const struct key_def *d, FILE *out)
{
    uint64_t ms = *KEY_CFIELD(p, d, uint64_t);
    char buf[64];
    if (ms == 0)
        snprintf(buf, sizeof buf, "none");
    else if (ms % 3600000 == 0)
        snprintf(buf, sizeof buf, "%lluh", (unsigned long long)(ms / 3600000));
    else if (ms % 60000 == 0)
        snprintf(buf, sizeof buf, "%llum", (unsigned long long)(ms / 60000));
    else if (ms % 1000 == 0)
        snprintf(buf, sizeof buf, "%llus", (unsigned long long)(ms / 1000));
    else
        snprintf(buf, sizeof buf, "%llums", (unsigned long long)ms);
    print_line(out, set_at(p, d), "%s = %s", d->name, buf);
}

/* Every rule of [filesystem] in the order read, whatever its kind: on
 * one path the later rule wins (mount-plan.h), so rules grouped by kind
 * would read back as another profile. A rule written with a ${VAR} is
 * printed as written, its expansion in the comment: "rw = ${PROJECT}"
 * reads back as the same rule wherever it is run, and the user sees both
 * what the profile says and what it means here. */
void print_fs_rules(const struct profile *p, const struct key_def *d, FILE *out)
{
    (void)d;
    for (size_t j = 0; j < p->nfs; j++) {
        const struct fs_rule *r = &p->fs[j];
        if (!r->written || !strcmp(r->written, r->path)) {
            print_line(out, &r->at, "%s%s = %s", fs_kind_name(r->kind), r->optional ? "?" : "",
                       r->path);
            continue;
        }
        char line[1024], where[PATH_MAX + 32];
        snprintf(line, sizeof line, "%s%s = %s", fs_kind_name(r->kind), r->optional ? "?" : "",
                 r->written);
        fprintf(out, "%-40s ; (= %s) %s\n", line, r->path, origin_format(&r->at, where, sizeof where));
    }
}

/* a list of strings, one line each, with the origin of each */
void print_strings(const struct profile *p, const struct key_def *d, FILE *out)
{
    const struct str_list *l = KEY_CFIELD(p, d, struct str_list);
    for (size_t j = 0; j < l->n; j++)
        print_line(out, &l->v[j].at, "%s = %s", d->name, l->v[j].value);
}

/* keep and unset interleaved in the order read: the last one matching a
 * name decides, so the order is part of the meaning */
void print_env_rules(const struct profile *p, const struct key_def *d, FILE *out)
{
    (void)d;
    size_t k = 0, u = 0;
    const struct str_list *kl = &p->env_keep, *ul = &p->env_unset;
    while (k < kl->n || u < ul->n) {
        bool take_keep = u == ul->n || (k < kl->n && kl->v[k].seq < ul->v[u].seq);
        const struct str_entry *e = take_keep ? &kl->v[k++] : &ul->v[u++];
        print_line(out, &e->at, "%s = %s", take_keep ? "keep" : "unset", e->value);
    }
}

/* Each port with the list's origin, which lists never set: "default".
 * (Ports keep no origin of their own.) */
void print_ports(const struct profile *p, const struct key_def *d, FILE *out)
{
    for (size_t j = 0; j < p->nforward; j++)
        print_line(out, set_at(p, d), "%s = %u", d->name, p->forward[j]);
}

/* the set on one line, as it is written: it replaces, never adds */
void print_caps(const struct profile *p, const struct key_def *d, FILE *out)
{
    const struct str_list *l = KEY_CFIELD(p, d, struct str_list);
    char caps[1024] = "";
    size_t len = 0;
    for (size_t j = 0; j < l->n && len < sizeof caps - 40; j++)
        len += (size_t)snprintf(caps + len, sizeof caps - len, "%s%s", j ? " " : "", l->v[j].value);
    print_line(out, set_at(p, d), "%s = %s", d->name, l->n ? caps : "none");
}

void print_deny(const struct profile *p, const struct key_def *d, FILE *out)
{
    for (size_t j = 0; j < p->ndeny; j++)
        print_line(out, &p->deny[j].at, "%s = %s", d->name, p->deny[j].text);
}

void profile_print(const struct profile *p, FILE *out)
{
    fprintf(out, "; effective profile '%s'%s%s%s\n", p->name ? p->name : "",
            p->path ? " (" : "", p->path ? p->path : "", p->path ? ")" : "");
    for (size_t i = 0; i < p->nfiles; i++)
        fprintf(out, "; %s %s\n", i == 0 ? "read:" : "     ", p->files[i]);
    const char *section = NULL;
    for (size_t i = 0; i < profile_nkeys; i++) {
        const struct key_def *d = &profile_keys[i];
        if (!section || strcmp(section, d->section)) {
            fprintf(out, "%s[%s]\n", section ? "\n" : "", d->section);
            section = d->section;
        }
        if (d->print)
            d->print(p, d, out);
    }
}
