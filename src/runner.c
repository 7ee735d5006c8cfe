/* Which test runner a command line starts, what to add so that it reports
 * every test in a stable form, and how to re-run a test, a group of tests
 * or none (runner.h). Pure.
 *
 * This file is the one list of the runners and what every family shares;
 * each family is a file of its own implementing runner_impl.h's
 * operations (docs/hacking.md, "Adding a test runner"):
 *   runner_cargo.c   cargo test
 *   runner_python.c  python -m unittest, pytest, python -m test (CPython)
 *   runner_go.c      go test
 *   runner_node.c    node --test, jest, vitest, mocha; npm test, npx
 *   runner_npm.c     (what a package manager's script runs)
 *   runner_tap.c     prove, make check (automake), a command's own TAP
 *   runner_ctest.c   ctest
 * The parsers' shared machinery (the table of tests, lines, positions) is
 * runner_parse.c. */
#include "config.h"

#include "runner_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Every runner, in the order detection tries them (the first whose
 * anchor() accepts the command wins; tap, which accepts anything, is only
 * ever named with --runner). */
static const struct runner *const runners[] = {
    &runner_cargo, &runner_unittest, &runner_pytest, &runner_regrtest, &runner_go, &runner_node,
    &runner_jest, &runner_vitest, &runner_mocha, &runner_prove, &runner_automake, &runner_ctest,
    &runner_tap,
};
#define NRUNNERS (sizeof runners / sizeof runners[0])

const struct runner *runner_of_kind(enum runner_kind kind)
{
    for (size_t i = 0; i < NRUNNERS; i++)
        if (runners[i]->kind == kind)
            return runners[i];
    return NULL;
}

static bool detected(const struct runner *r)
{
    return r->kind != RUNNER_TAP;
}

const char *runner_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0; i < NRUNNERS; i++) {
            if (i)
                strcat(names, ", ");
            strcat(names, runners[i]->name);
        }
    return names;
}

const struct runner *runner_by_name(const char *name, const char **suggestion)
{
    size_t best = SIZE_MAX;
    *suggestion = NULL;
    for (size_t i = 0; i < NRUNNERS; i++) {
        if (!strcmp(name, runners[i]->name))
            return runners[i];
        size_t d;
        if (near_word(name, runners[i]->name, &d) && d < best) {
            best = d;
            *suggestion = runners[i]->name;
        }
    }
    return NULL;
}

const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

size_t argv_len(char *const argv[])
{
    size_t n = 0;
    while (argv[n])
        n++;
    return n;
}

static int anchor(const struct runner *r, char *const argv[], char *why, size_t why_size)
{
    if (!argv || !argv[0]) {
        snprintf(why, why_size, "the command is empty");
        return -1;
    }
    return r->ops ? r->ops->anchor(argv, why, why_size) : -1;
}

const struct runner *runner_detect(char *const argv[], char *why, size_t why_size)
{
    char known[512] = "";
    for (size_t i = 0; i < NRUNNERS; i++)
        if (detected(runners[i]))
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", known[0] ? ", " : "",
                     runners[i]->command);
    snprintf(why, why_size,
             "%s is not a test runner sbx knows (%s); name one with --runner NAME (%s)",
             argv && argv[0] ? base_name(argv[0]) : "the command", known, runner_names());
    char shape[256] = "";
    for (size_t i = 0; i < NRUNNERS; i++)
        if (detected(runners[i]) && anchor(runners[i], argv, shape, sizeof shape) >= 0)
            return runners[i];
    if (shape[0])
        snprintf(why, why_size, "%s; name the runner with --runner NAME (%s)", shape, runner_names());
    return NULL;
}

/* ---- building command lines ---- */

void push(struct strv *sv, const char *s)
{
    strv_push(sv, xstrdup(s));
}

void push_range(struct strv *sv, char *const argv[], int from, int to)
{
    for (int i = from; i < to; i++)
        push(sv, argv[i]);
}

/* The index of the first "--" after `from`, or the length of argv. */
int end_of_options(char *const argv[], int from)
{
    int i = from;
    for (; argv[i]; i++)
        if (!strcmp(argv[i], "--"))
            break;
    return i;
}

bool has_arg(char *const argv[], int from, int to, const char *a)
{
    for (int i = from; i < to && argv[i]; i++)
        if (!strcmp(argv[i], a))
            return true;
    return false;
}

bool has_prefix_arg(char *const argv[], int from, int to, const char *prefix)
{
    size_t n = strlen(prefix);
    for (int i = from; i < to && argv[i]; i++)
        if (!strncmp(argv[i], prefix, n))
            return true;
    return false;
}

void note_add(struct strv *notes, const char *what)
{
    push(notes, what);
}

static char *join_notes(struct strv *notes)
{
    size_t len = 1;
    for (size_t i = 0; i < notes->n; i++)
        len += strlen(notes->v[i]) + 2;
    char *out = xmalloc(len);
    out[0] = '\0';
    for (size_t i = 0; i < notes->n; i++) {
        if (i)
            strcat(out, "; ");
        strcat(out, notes->v[i]);
    }
    strv_free(notes);
    return out;
}

bool refuse(char *err, size_t err_size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return false;
}

bool runner_command(const struct runner *r, char *const argv[], struct runner_command *out,
                    char *err, size_t err_size)
{
    struct strv sv = {0}, notes = {0};
    char why[256];
    out->argv = NULL;
    out->note = NULL;
    if (!argv || !argv[0]) {
        snprintf(err, err_size, "the command is empty");
        return false;
    }
    out->report = false;
    /* a re-run's command, made here once already */
    if (r->ops && r->ops->carries_reporter && r->ops->carries_reporter(argv)) {
        push_range(&sv, argv, 0, (int)argv_len(argv));
        out->argv = sv.v;
        out->note = xstrdup("");
        out->report = true;
        return true;
    }
    int a = anchor(r, argv, why, sizeof why);
    if (a < 0) {
        push_range(&sv, argv, 0, (int)argv_len(argv));
        strv_push(&notes, xasprintf("added nothing: the command is not %s, so it must print %s's "
                                    "per-test results itself", r->command, r->name));
    } else if (!r->ops->command(argv, a, &sv, &notes, err, err_size)) {
        strv_free(&sv);
        strv_free(&notes);
        return false;
    } else if (r->ops->add_reporter) {
        out->report = r->ops->add_reporter(&sv, &notes);
    }
    out->argv = sv.v;
    out->note = join_notes(&notes);
    return true;
}

char *runner_report_greeting(const struct runner *r, const char *key, size_t *len)
{
    if (!r->ops && runner_of_kind(r->kind))
        r = runner_of_kind(r->kind);
    *len = 0;
    return r->ops && r->ops->greeting ? r->ops->greeting(key, len) : NULL;
}

char **runner_report_keyed(const struct runner *r, char *const argv[], const char *key)
{
    if (!r->ops && runner_of_kind(r->kind))
        r = runner_of_kind(r->kind);
    return r->ops && r->ops->keyed ? r->ops->keyed(argv, key) : NULL;
}

bool runner_has_reporter(const struct runner *r)
{
    if (!r->ops && runner_of_kind(r->kind))
        r = runner_of_kind(r->kind);
    /* node --test's clock gives no results: they are its TAP's, with it or without */
    return r->ops && r->ops->add_reporter && !r->ops->keyed;
}

void runner_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

void runner_command_free(struct runner_command *c)
{
    runner_argv_free(c->argv);
    free(c->note);
    c->argv = NULL;
    c->note = NULL;
}

/* ---- re-running tests ---- */

/* Splits s on `sep` into sv. */
void push_split(struct strv *sv, const char *s, const char *sep)
{
    size_t n = strlen(sep);
    for (;;) {
        const char *at = strstr(s, sep);
        if (!at) {
            push(sv, s);
            return;
        }
        strv_push(sv, xstrndup(s, (size_t)(at - s)));
        s = at + n;
    }
}

char *regex_exact(const char *s)
{
    size_t len = strlen(s);
    char *out = xmalloc(2 * len + 3), *o = out;
    *o++ = '^';
    for (; *s; s++) {
        if (strchr("\\.+*?()|[]{}^$/", *s))
            *o++ = '\\';
        *o++ = *s;
    }
    *o++ = '$';
    *o = '\0';
    return out;
}

char *regex_any(const char *const s[], size_t n)
{
    if (n == 1)
        return regex_exact(s[0]);
    struct strv parts = {0};
    size_t len = 5;
    for (size_t i = 0; i < n; i++) {
        char *re = regex_exact(s[i]);
        /* without its anchors: they go round the group */
        size_t l = strlen(re);
        strv_push(&parts, xstrndup(re + 1, l - 2));
        free(re);
        len += l;
    }
    char *out = xmalloc(len), *o = out;
    o = stpcpy(o, "^(");
    for (size_t i = 0; i < parts.n; i++) {
        if (i)
            *o++ = '|';
        o = stpcpy(o, parts.v[i]);
    }
    strcpy(o, ")$");
    strv_free(&parts);
    return out;
}

/* Options that take the next argument as their value, per runner, so that
 * the user's positional selections can be told apart and replaced. */
bool takes_value(const char *const list[], const char *a)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(list[i], a))
            return true;
    return false;
}

/* The command sbx runs for a selection made by a family: with its
 * reporting added, as for the audited run. */
static char **selection(const struct runner *r, struct strv *sv)
{
    if (!sv->n) {
        strv_free(sv);
        return NULL;
    }
    struct runner_command c;
    char err[512];
    bool made = runner_command(r, sv->v, &c, err, sizeof err);
    strv_free(sv);
    if (!made)
        return NULL;
    free(c.note);
    return c.argv;
}

char **runner_rerun_set_argv(const struct runner *r, char *const argv[],
                             const struct runner_test *const tests[], size_t n)
{
    char why[256];
    if (!n || !r->ops || !r->ops->rerun)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!tests[i] || !tests[i]->id)
            return NULL;
    int a = anchor(r, argv, why, sizeof why);
    if (a < 0)
        return NULL;
    struct strv sv = {0};
    if (!r->ops->rerun(argv, a, tests, n, &sv)) {
        strv_free(&sv);
        return NULL;
    }
    return selection(r, &sv);
}

char **runner_rerun_argv(const struct runner *r, char *const argv[], const struct runner_test *t)
{
    const struct runner_test *const one[] = { t };
    return runner_rerun_set_argv(r, argv, one, 1);
}

char **runner_baseline_argv(const struct runner *r, char *const argv[], const struct runner_test *t)
{
    char why[256];
    if (!t || !t->id || !r->ops || !r->ops->baseline)
        return NULL;
    int a = anchor(r, argv, why, sizeof why);
    if (a < 0)
        return NULL;
    struct strv sv = {0};
    if (!r->ops->baseline(argv, a, t, &sv)) {
        strv_free(&sv);
        return NULL;
    }
    return selection(r, &sv);
}
