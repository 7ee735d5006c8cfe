/* `sbx probe`'s three output formats: an aligned table for people, TAP
 * for CI gates, JSON for scripts (keys: docs/probe-json.md). Text that
 * comes from the probed environment (PID 1's name, SBX_PROFILE, details
 * holding paths) is made safe for each: no control bytes on a terminal,
 * no '#' or newline in a TAP line, valid UTF-8 in JSON. */
#include "config.h"

#include "probe_output.h"

#include "json_bytes.h"
#include "probe_verdict.h"
#include "util.h"

#include <string.h>
#include <unistd.h>

/* The value column: the errno name when a call failed, else the value. */
static char *value_text(const struct probe_check *c)
{
    if (c->errnum) {
        const char *n = errno_name(c->errnum);
        return n ? xstrdup(n) : xasprintf("errno %d", c->errnum);
    }
    if (c->has_number)
        return xasprintf("%lld", c->number);
    return xstrdup(c->text ? c->text : "-");
}

/* Text from the system (PID 1's name, SBX_PROFILE) may hold control bytes
 * that would rewrite the terminal or break a TAP line. */
static char *printable(const char *s)
{
    char *out = xstrdup(s ? s : "");
    for (char *p = out; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return out;
}

void probe_print_table(const struct probe_results *r, FILE *out, bool colour)
{
    size_t wname = strlen("CHECK"), wstatus = strlen("STATUS"), wvalue = strlen("VALUE");
    char *values[CHECK_COUNT];
    for (int i = 0; i < CHECK_COUNT; i++) {
        char *v = value_text(&r->checks[i]);
        values[i] = printable(v);
        free(v);
        size_t n = strlen(r->checks[i].name);
        if (n > wname)
            wname = n;
        n = strlen(probe_status_name(r->checks[i].status));
        if (n > wstatus)
            wstatus = n;
        n = strlen(values[i]);
        if (n > wvalue && n <= 32)
            wvalue = n;
    }
    fprintf(out, "%-*s  %-*s  %-*s  %s\n", (int)wname, "CHECK", (int)wstatus, "STATUS",
            (int)wvalue, "VALUE", "DETAIL");
    for (int i = 0; i < CHECK_COUNT; i++) {
        const struct probe_check *c = &r->checks[i];
        const char *on = "", *off = "";
        if (colour) {
            off = "\033[0m";
            switch (c->status) {
            case PROBE_OK: on = "\033[32m"; break;
            case PROBE_INFO: on = "\033[36m"; break;
            case PROBE_UNAVAILABLE: on = c->required ? "\033[31m" : "\033[33m"; break;
            case PROBE_DENIED:
            case PROBE_LOW:
            case PROBE_EXPOSED: on = "\033[1;31m"; break;
            }
        }
        char *detail = printable(c->detail);
        fprintf(out, "%-*s  %s%-*s%s  %-*s  %s\n", (int)wname, c->name, on, (int)wstatus,
                probe_status_name(c->status), off, (int)wvalue, values[i], detail);
        free(detail);
        free(values[i]);
    }
    if (r->creds.n) {
        fprintf(out, "\ncredential-like files readable here (path: why):\n");
        for (size_t i = 0; i < r->creds.n; i++) {
            char *path = printable(r->creds.hits[i].path);
            fprintf(out, "  %s: %s\n", path, r->creds.hits[i].why);
            free(path);
        }
    }
    const struct {
        const char *label;
        const struct probe_verdict *v;
    } verdicts[] = {
        {"network tests", &r->network},
        {"descriptors", &r->descriptors},
        {"sandbox", &r->sandbox},
    };
    fputc('\n', out);
    for (size_t i = 0; i < sizeof verdicts / sizeof *verdicts; i++) {
        const char *on = !colour ? "" : verdicts[i].v->ok ? "\033[1;32m" : "\033[1;31m";
        fprintf(out, "%-14s %s%s%s  %s\n", verdicts[i].label, on, verdicts[i].v->ok ? "yes" : "NO",
                colour ? "\033[0m" : "", verdicts[i].v->reason);
    }
}

/* A TAP description may not hold '#' (it would start a directive). */
static char *tap_escape(const char *s)
{
    char *p = printable(s);
    size_t n = 0;
    for (const char *q = p; *q; q++)
        n += *q == '#' ? 2 : 1;
    char *out = xmalloc(n + 1), *o = out;
    for (const char *q = p; *q; q++) {
        if (*q == '#')
            *o++ = '\\';
        *o++ = *q;
    }
    *o = '\0';
    free(p);
    return out;
}

void probe_print_tap(const struct probe_results *r, FILE *out)
{
    fprintf(out, "TAP version 13\n1..%d\n", CHECK_COUNT + 3);
    int n = 0;
    for (int i = 0; i < CHECK_COUNT; i++) {
        const struct probe_check *c = &r->checks[i];
        char *v = value_text(c);
        bool no_value = !strcmp(v, "-");
        char *line = xasprintf("%s: %s%s%s (%s)", c->name, probe_status_name(c->status),
                               no_value ? "" : " ", no_value ? "" : v, c->detail ? c->detail : "");
        char *esc = tap_escape(line);
        fprintf(out, "%sok %d - %s\n", probe_check_passed(c) ? "" : "not ", ++n, esc);
        free(esc);
        free(line);
        free(v);
        /* the credentials check's hits, as diagnostics under it */
        for (size_t h = 0; i == CHECK_CREDENTIALS && h < r->creds.n; h++) {
            char *d = xasprintf("%s: %s", r->creds.hits[h].path, r->creds.hits[h].why);
            char *de = tap_escape(d);
            fprintf(out, "# %s\n", de);
            free(de);
            free(d);
        }
    }
    const struct {
        const char *name;
        const struct probe_verdict *v;
    } verdicts[] = {
        {"verdict_network_tests", &r->network},
        {"verdict_descriptors", &r->descriptors},
        {"verdict_sandbox", &r->sandbox},
    };
    for (size_t i = 0; i < sizeof verdicts / sizeof *verdicts; i++) {
        char *esc = tap_escape(verdicts[i].v->reason);
        fprintf(out, "%sok %d - %s: %s\n", verdicts[i].v->ok ? "" : "not ", ++n,
                verdicts[i].name, esc);
        free(esc);
    }
}

static struct json_object *json_sysctl(long long v)
{
    return v < 0 ? NULL : json_object_new_int64(v);
}

static struct json_object *json_verdict(const struct probe_verdict *v)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "ok", json_object_new_boolean(v->ok));
    json_object_object_add(o, "reason", json_cstr_new(v->reason));
    return o;
}

struct json_object *probe_to_json(const struct probe_results *r)
{
    struct json_object *root = json_object_new_object();
    json_object_object_add(root, "format", json_object_new_int(1));
    json_object_object_add(root, "sbx_version", json_object_new_string(PACKAGE_VERSION));
    json_object_object_add(root, "uid", json_object_new_int64((int64_t)getuid()));
    json_object_object_add(root, "euid", json_object_new_int64((int64_t)geteuid()));

    struct json_object *checks = json_object_new_object();
    for (int i = 0; i < CHECK_COUNT; i++) {
        const struct probe_check *c = &r->checks[i];
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "status", json_object_new_string(probe_status_name(c->status)));
        json_object_object_add(o, "pass", json_object_new_boolean(probe_check_passed(c)));
        json_object_object_add(o, "required", json_object_new_boolean(c->required));
        const char *en = c->errnum ? errno_name(c->errnum) : NULL;
        json_object_object_add(o, "errno", en ? json_object_new_string(en) : NULL);
        json_object_object_add(o, "errno_number", c->errnum ? json_object_new_int(c->errnum) : NULL);
        json_object_object_add(o, "value", c->has_number ? json_object_new_int64(c->number)
                                                         : json_cstr_new(c->text));
        json_object_object_add(o, "detail", json_cstr_new(c->detail));
        json_object_object_add(checks, c->name, o);
    }
    json_object_object_add(root, "checks", checks);

    struct json_object *sysctl = json_object_new_object();
    json_object_object_add(sysctl, "kernel.unprivileged_userns_clone",
                           json_sysctl(r->unprivileged_userns_clone));
    json_object_object_add(sysctl, "user.max_user_namespaces", json_sysctl(r->max_user_namespaces));
    json_object_object_add(sysctl, "kernel.apparmor_restrict_unprivileged_userns",
                           json_sysctl(r->apparmor_restrict_userns));
    json_object_object_add(sysctl, "fs.nr_open", json_sysctl(r->nr_open));
    json_object_object_add(root, "sysctl", sysctl);

    struct json_object *hints = json_object_new_object();
    json_object_object_add(hints, "dockerenv", json_object_new_boolean(r->dockerenv));
    json_object_object_add(hints, "container_env", json_cstr_new(r->container_env));
    json_object_object_add(hints, "pid1_comm", json_cstr_new(r->pid1_comm));
    json_object_object_add(hints, "sbx_profile", json_cstr_new(r->sbx_profile));
    json_object_object_add(root, "hints", hints);

    const struct cred_scan *cs = &r->creds;
    struct json_object *creds = json_object_new_object();
    struct json_object *roots = json_object_new_array();
    for (int i = 0; i < 2; i++)
        if (cs->roots[i])
            json_object_array_add(roots, json_cstr_new(cs->roots[i]));
    json_object_object_add(creds, "roots", roots);
    json_object_object_add(creds, "complete", json_object_new_boolean(cs->complete));
    json_object_object_add(creds, "stopped_by", json_cstr_new(cs->stopped_by));
    json_object_object_add(creds, "entries", json_object_new_int64((int64_t)cs->entries));
    struct json_object *hits = json_object_new_array();
    for (size_t i = 0; i < cs->n; i++) {
        struct json_object *h = json_object_new_object();
        json_object_object_add(h, "path", json_cstr_new(cs->hits[i].path));
        json_object_object_add(h, "why", json_cstr_new(cs->hits[i].why));
        json_object_array_add(hits, h);
    }
    json_object_object_add(creds, "hits", hits);
    struct json_object *limits = json_object_new_object();
    json_object_object_add(limits, "depth", json_object_new_int(CRED_SCAN_MAX_DEPTH));
    json_object_object_add(limits, "entries", json_object_new_int(CRED_SCAN_MAX_ENTRIES));
    json_object_object_add(limits, "file_bytes", json_object_new_int(CRED_SCAN_MAX_FILE_BYTES));
    json_object_object_add(limits, "ms", json_object_new_int(CRED_SCAN_MAX_MS));
    json_object_object_add(limits, "hits", json_object_new_int(CRED_SCAN_MAX_HITS));
    json_object_object_add(creds, "limits", limits);
    json_object_object_add(root, "credentials", creds);

    struct json_object *verdict = json_object_new_object();
    json_object_object_add(verdict, "network_tests", json_verdict(&r->network));
    json_object_object_add(verdict, "descriptors", json_verdict(&r->descriptors));
    json_object_object_add(verdict, "sandbox", json_verdict(&r->sandbox));
    json_object_object_add(root, "verdict", verdict);
    json_object_object_add(root, "tier", json_object_new_string(r->tier ? r->tier : "none"));
    return root;
}

