/* sbx explain RECORD: a run record's refusals as the profile lines that
 * answer them (fix.h), one a line, or with --profile as a profile: the
 * run's own, included, plus those lines.
 *
 * The record is read as untrusted input (a file the command may have
 * been able to write, or anyone's): bounded in size, parsed by json-c,
 * and a fix line is used only if it has the shape sbx writes (printable
 * ASCII, one line, a known section), so a crafted record cannot smuggle
 * a second key or section into the profile it prints. */
#include "config.h"

#include "commands.h"
#include "explain.h"
#include "exit.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#define RECORD_MAX (64u << 20)

static void explain_usage(FILE *out)
{
    fputs("Usage: sbx explain [--profile] RECORD\n\n"
          "Prints the profile line that answers each refusal of the run record RECORD\n"
          "(sbx run --report), with where it goes and whether it is safe. --profile\n"
          "prints a profile instead: the run's profile included, then those lines.\n",
          out);
}

static const char *str(struct json_object *o, const char *key)
{
    struct json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static bool plain_line(const char *s)
{
    if (!s || !*s || strlen(s) > 400)
        return false;
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e)
            return false;
    return true;
}

enum row_kind { ROW_DENIAL, ROW_EGRESS, ROW_WRITE };

/* What a row refused, for the line that answers it. */
static void answers_of(struct json_object *row, enum row_kind kind, char *out, size_t len)
{
    bool egress = kind == ROW_EGRESS;
    const char *a = str(row, egress ? "name" : "syscall"), *b = str(row, egress ? "via" : "family"),
               *c = str(row, egress ? "why" : "address"), *d = egress ? NULL : str(row, "errno");
    struct json_object *port;
    int p = egress && json_object_object_get_ex(row, "port", &port) ? json_object_get_int(port) : 0;
    char buf[400];
    if (kind == ROW_WRITE)
        snprintf(buf, sizeof buf, "%s %s -> %s", a ? a : "?", str(row, "path") ? str(row, "path") : "?",
                 d ? d : "?");
    else if (egress)
        snprintf(buf, sizeof buf, "%s%s%.0d (%s): %s", a ? a : "?", p ? ":" : "", p, b ? b : "?",
                 c ? c : "refused");
    else
        snprintf(buf, sizeof buf, "%s(%s%s%s) -> %s", a ? a : "?", b ? b : "", b && c ? " " : "",
                 c ? c : "", d ? d : "?");
    /* Bytes from the command: printable ASCII only. */
    size_t i = 0;
    for (; buf[i] && i + 1 < len; i++)
        out[i] = buf[i] >= 0x20 && buf[i] < 0x7f ? buf[i] : '?';
    out[i] = '\0';
}

/* The fix of one refusal row (a denial or an egress refusal). */
static void take(struct record_fixes *fx, struct json_object *row, enum row_kind kind)
{
    struct json_object *fix;
    if (!json_object_object_get_ex(row, "fix", &fix) || !json_object_is_type(fix, json_type_object)) {
        fx->unfixed++;
        return;
    }
    const char *section = str(fix, "section"), *line = str(fix, "line"), *why = str(fix, "why");
    struct json_object *safe;
    bool is_safe = json_object_object_get_ex(fix, "safe", &safe) && json_object_get_boolean(safe);
    if (!section ||
        (strcmp(section, "security") && strcmp(section, "network") && strcmp(section, "filesystem")) ||
        !plain_line(line) || (why && !plain_line(why))) {
        fx->unfixed++;
        return;
    }
    for (size_t i = 0; i < fx->n; i++)
        if (!strcmp(fx->v[i].line, line) && !strcmp(fx->v[i].section, section))
            return;
    if (fx->n == 1024)
        return;
    fx->v = xrealloc(fx->v, (fx->n + 1) * sizeof *fx->v);
    struct record_fix *f = &fx->v[fx->n++];
    snprintf(f->section, sizeof f->section, "%s", section);
    snprintf(f->line, sizeof f->line, "%s", line);
    snprintf(f->why, sizeof f->why, "%s", why ? why : "");
    f->safe = is_safe;
    answers_of(row, kind, f->answers, sizeof f->answers);
}

static void rows(struct record_fixes *fx, struct json_object *doc, const char *outer,
                 const char *inner, enum row_kind kind)
{
    struct json_object *o, *a;
    if (!json_object_object_get_ex(doc, outer, &o) || !json_object_object_get_ex(o, inner, &a) ||
        !json_object_is_type(a, json_type_array))
        return;
    for (size_t i = 0; i < json_object_array_length(a) && i < 4096; i++)
        take(fx, json_object_array_get_idx(a, i), kind);
}

bool record_fixes_read(const char *path, struct record_fixes *fx, char *err, size_t errlen)
{
    memset(fx, 0, sizeof *fx);
    size_t len = 0;
    char *text = read_file_text(path, RECORD_MAX, &len);
    if (!text) {
        snprintf(err, errlen, "%s: cannot read the run record: %s", path, strerror(errno));
        return false;
    }
    struct json_tokener *tok = json_tokener_new();
    struct json_object *doc = json_tokener_parse_ex(tok, text, (int)len);
    bool good = doc && json_tokener_get_error(tok) == json_tokener_success &&
                json_object_is_type(doc, json_type_object) && str(doc, "kind") &&
                !strcmp(str(doc, "kind"), "run");
    json_tokener_free(tok);
    free(text);
    if (!good) {
        json_object_put(doc);
        snprintf(err, errlen, "%s: not a run record (sbx run --report writes one)", path);
        return false;
    }
    rows(fx, doc, "denials", "denials", ROW_DENIAL);
    rows(fx, doc, "egress", "refusals", ROW_EGRESS);
    rows(fx, doc, "refusals", "writes", ROW_WRITE);
    struct json_object *den, *unl, *prof;
    if (json_object_object_get_ex(doc, "denials", &den) &&
        json_object_object_get_ex(den, "unlisted", &unl) && json_object_get_int64(unl) > 0)
        fx->unfixed++;
    if (json_object_object_get_ex(doc, "refusals", &den) &&
        json_object_object_get_ex(den, "unlisted", &unl) && json_object_get_int64(unl) > 0)
        fx->unfixed++;
    json_object_object_get_ex(doc, "profile", &prof);
    const char *inc = str(prof, "path");
    if (!plain_line(inc))
        inc = str(prof, "name");
    snprintf(fx->profile, sizeof fx->profile, "%s", plain_line(inc) ? inc : "");
    json_object_put(doc);
    return true;
}

void record_fixes_free(struct record_fixes *f)
{
    free(f->v);
    f->v = NULL;
    f->n = 0;
}

int cmd_explain(int argc, char **argv)
{
    bool as_profile = false;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            explain_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--profile")) {
            as_profile = true;
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            fprintf(stderr, "sbx: explain: unknown argument '%s'\n", argv[i]);
            explain_usage(stderr);
            return SBX_EXIT_FAILURE;
        }
    }
    if (!path) {
        fputs("sbx: explain: no run record given (sbx run --report FILE writes one)\n", stderr);
        return SBX_EXIT_FAILURE;
    }
    struct record_fixes fx;
    char err[512];
    if (!record_fixes_read(path, &fx, err, sizeof err)) {
        fprintf(stderr, "sbx: explain: %s\n", err);
        return SBX_EXIT_FAILURE;
    }
    const char *shown = plain_line(path) ? path : "RECORD";
    if (as_profile) {
        if (!fx.profile[0]) {
            record_fixes_free(&fx);
            fprintf(stderr, "sbx: explain: %s: the record names no profile to include\n", shown);
            return SBX_EXIT_FAILURE;
        }
        printf("; made by sbx explain from %s: the run's profile, and the lines that answer\n"
               "; its refusals (review the ones marked review in 'sbx explain %s')\n"
               "[profile]\ninclude = %s\n", shown, shown, fx.profile);
        static const char *const sections[] = { "security", "network", "filesystem" };
        for (int pass = 0; pass < 3; pass++) {
            const char *want = sections[pass];
            bool header = false;
            for (size_t i = 0; i < fx.n; i++) {
                if (strcmp(fx.v[i].section, want))
                    continue;
                if (!header)
                    printf("[%s]\n", want);
                header = true;
                printf("%s\n", fx.v[i].line);
            }
        }
    } else {
        for (size_t i = 0; i < fx.n; i++)
            printf("[%s] %s   (%s%s%s)\n", fx.v[i].section, fx.v[i].line,
                   fx.v[i].safe ? "safe" : "review", fx.v[i].why[0] ? ": " : "", fx.v[i].why);
        if (fx.n == 0 && fx.unfixed == 0)
            printf("no refusals in %s\n", shown);
    }
    if (fx.unfixed)
        fprintf(stderr, "sbx: explain: %zu refusal row(s) of %s have no profile line (see the "
                "record's denials and egress)\n", fx.unfixed, shown);
    record_fixes_free(&fx);
    return 0;
}
