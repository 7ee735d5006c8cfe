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

struct fixes {
    const char *section[2 * 512];
    const char *line[2 * 512];
    size_t n;
    size_t unfixed;
};

/* The fix of one refusal row (a denial or an egress refusal). */
static void take(struct fixes *fx, struct json_object *row, bool listing)
{
    struct json_object *fix;
    if (!json_object_object_get_ex(row, "fix", &fix) || !json_object_is_type(fix, json_type_object)) {
        fx->unfixed++;
        return;
    }
    const char *section = str(fix, "section"), *line = str(fix, "line"), *why = str(fix, "why");
    struct json_object *safe;
    bool is_safe = json_object_object_get_ex(fix, "safe", &safe) && json_object_get_boolean(safe);
    if (!section || (strcmp(section, "security") && strcmp(section, "network")) ||
        !plain_line(line) || (why && !plain_line(why))) {
        fx->unfixed++;
        return;
    }
    for (size_t i = 0; i < fx->n; i++)
        if (!strcmp(fx->line[i], line) && !strcmp(fx->section[i], section))
            return;
    if (fx->n == sizeof fx->line / sizeof fx->line[0])
        return;
    fx->section[fx->n] = section;
    fx->line[fx->n++] = line;
    if (listing)
        printf("[%s] %s   (%s%s%s)\n", section, line, is_safe ? "safe" : "review",
               why ? ": " : "", why ? why : "");
}

static void rows(struct fixes *fx, struct json_object *doc, const char *outer, const char *inner,
                 bool listing)
{
    struct json_object *o, *a;
    if (!json_object_object_get_ex(doc, outer, &o) || !json_object_object_get_ex(o, inner, &a) ||
        !json_object_is_type(a, json_type_array))
        return;
    for (size_t i = 0; i < json_object_array_length(a) && i < 4096; i++)
        take(fx, json_object_array_get_idx(a, i), listing);
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
    size_t len = 0;
    char *text = read_file_text(path, RECORD_MAX, &len);
    if (!text) {
        fprintf(stderr, "sbx: explain: %s: cannot read the run record: %s\n", path, strerror(errno));
        return SBX_EXIT_FAILURE;
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
        fprintf(stderr, "sbx: explain: %s: not a run record (sbx run --report writes one)\n", path);
        return SBX_EXIT_FAILURE;
    }
    static struct fixes fx;
    memset(&fx, 0, sizeof fx);
    rows(&fx, doc, "denials", "denials", !as_profile);
    rows(&fx, doc, "egress", "refusals", !as_profile);
    struct json_object *den, *unl;
    if (json_object_object_get_ex(doc, "denials", &den) &&
        json_object_object_get_ex(den, "unlisted", &unl) && json_object_get_int64(unl) > 0)
        fx.unfixed++;
    if (as_profile) {
        struct json_object *prof;
        json_object_object_get_ex(doc, "profile", &prof);
        const char *inc = str(prof, "path");
        if (!plain_line(inc))
            inc = str(prof, "name");
        if (!plain_line(inc)) {
            json_object_put(doc);
            fprintf(stderr, "sbx: explain: %s: the record names no profile to include\n", path);
            return SBX_EXIT_FAILURE;
        }
        printf("; made by sbx explain from %s: the run's profile, and the lines that answer\n"
               "; its refusals (review the ones marked review in 'sbx explain %s')\n"
               "[profile]\ninclude = %s\n", plain_line(path) ? path : "the record",
               plain_line(path) ? path : "RECORD", inc);
        for (int pass = 0; pass < 2; pass++) {
            const char *want = pass ? "network" : "security";
            bool header = false;
            for (size_t i = 0; i < fx.n; i++) {
                if (strcmp(fx.section[i], want))
                    continue;
                if (!header)
                    printf("[%s]\n", want);
                header = true;
                printf("%s\n", fx.line[i]);
            }
        }
    } else if (fx.n == 0 && fx.unfixed == 0) {
        printf("no refusals in %s\n", path);
    }
    if (fx.unfixed)
        fprintf(stderr, "sbx: explain: %zu refusal row(s) of %s have no profile line (see the "
                "record's denials and egress)\n", fx.unfixed, path);
    json_object_put(doc);
    return 0;
}
