/* node: node's built-in test runner (node --test), jest, vitest and mocha,
 * typed directly, through npx, or as a package manager's script (npm
 * test, npm run NAME, yarn NAME, pnpm NAME: the script in package.json,
 * runner_npm.c); runner_impl.h's operations.
 *
 * What each is given, and why:
 *   node --test  --test-reporter=tap: node 20's default reporter is spec on
 *                a terminal, tap only on a pipe; the user's own reporter is
 *                refused (two reporters need two destinations). Through a
 *                script, in NODE_OPTIONS (env NODE_OPTIONS=... npm test):
 *                what npm appends after "--" would follow the script's
 *                file arguments, where node reads it as a file.
 *   jest         --json: the results as one JSON document on stdout at
 *                the end of the run (jest's own lines go to stderr).
 *   vitest       run --reporter=json: the same document (vitest writes
 *                jest's format); "run", since vitest alone watches on a
 *                terminal and never ends.
 *   mocha        --reporter json: one JSON document on stdout at the end.
 * Through a script the flags go after "--" (npm) or at the end (yarn,
 * pnpm): npm appends them to the script's command line.
 *
 * The channel: node --test runs each file in a child process and reads
 * its results from the child's own protocol; what a test prints reaches
 * node's TAP as a "#" comment, never as a result line. jest, vitest and
 * mocha print the test's own output on the same stdout, so a test can
 * print a document that looks like theirs: only the LAST document counts,
 * which the runner writes once every test has ended, so a forgery must
 * come after it, from a process that outlives the runner. What this does
 * not stop: a vitest or jest configuration that sends the JSON to a file
 * (outputFile), which leaves no document at all (the runner's counts are
 * then missing, and the audit sees no test). */
#include "config.h"

#include "json_bytes.h"
#include "runner_impl.h"
#include "runner_report.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JS_DOC_MAX (64u << 20)

enum js_kind { JS_NODE, JS_JEST, JS_VITEST, JS_MOCHA };

/* How the command starts the runner. */
struct js_inv {
    enum js_kind kind;
    int at;             /* direct (pm NULL): the runner's program in argv;
                         * through a script: the script's name in argv */
    const char *pm;     /* "npm", "yarn", "pnpm": through a script */
    struct strv words;  /* the script's words, through a script */
    size_t prog;        /* the runner's program in words */
};

static bool js_program(char *const words[], size_t i, enum js_kind *k)
{
    const char *p = base_name(words[i]);
    if (!strcmp(p, "jest") || !strcmp(p, "jest.js"))
        *k = JS_JEST;
    else if (!strcmp(p, "vitest") || !strcmp(p, "vitest.mjs"))
        *k = JS_VITEST;
    else if (!strcmp(p, "mocha") || !strcmp(p, "_mocha"))
        *k = JS_MOCHA;
    else if (!strcmp(p, "node") || !strcmp(p, "nodejs")) {
        /* node's own options end at the script */
        for (size_t j = i + 1; words[j] && words[j][0] == '-'; j++)
            if (!strcmp(words[j], "--test")) {
                *k = JS_NODE;
                return true;
            }
        return false;
    } else
        return false;
    return true;
}

/* npx [options] PROGRAM: the index of PROGRAM, or -1. */
static int after_npx(char *const words[], int i)
{
    for (i++; words[i]; i++) {
        if (!strcmp(words[i], "--"))
            return words[i + 1] ? i + 1 : -1;
        if (words[i][0] != '-')
            return i;
        if ((!strcmp(words[i], "-p") || !strcmp(words[i], "--package") || !strcmp(words[i], "-c")) &&
            words[i + 1])
            i++;
    }
    return -1;
}

/* An environment assignment NAME=value (a script's prefix). */
static bool assignment(const char *w)
{
    const char *eq = strchr(w, '=');
    if (!eq || eq == w)
        return false;
    for (const char *c = w; c < eq; c++)
        if (!(*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
              (c > w && *c >= '0' && *c <= '9')))
            return false;
    return true;
}

/* The script's words, when it is plain words (the command after its last
 * "&&", which runs last and gets what npm appends); false with why. */
static bool script_words(const char *script, struct strv *words, char *why, size_t why_size)
{
    const char *s = script, *last = NULL;
    for (const char *at = strstr(s, "&&"); at; at = strstr(at + 2, "&&"))
        last = at + 2;
    if (last)
        s = last;
    if (strpbrk(s, "'\"`$\\|;<>(){}*?&#~")) {
        snprintf(why, why_size, "the script \"%.80s\" is not plain words", script);
        return false;
    }
    while (*s) {
        s += strspn(s, " \t\n");
        size_t n = strcspn(s, " \t\n");
        if (n)
            strv_push(words, xstrndup(s, n));
        s += n;
    }
    if (!words->n) {
        snprintf(why, why_size, "the script \"%.80s\" is empty", script);
        return false;
    }
    return true;
}

static bool via_script(char *const argv[], struct js_inv *inv, char *why, size_t why_size)
{
    const char *pm = base_name(argv[0]);
    int i = 1;
    while (argv[i] && argv[i][0] == '-')
        i++;
    if (!argv[i])
        return false;
    const char *sub = argv[i];
    int name_at = i;
    if (!strcmp(sub, "run") || !strcmp(sub, "run-script") || (!strcmp(pm, "npm") && !strcmp(sub, "rum"))) {
        name_at = i + 1;
        while (argv[name_at] && argv[name_at][0] == '-')
            name_at++;
        if (!argv[name_at])
            return false;
    } else if (strcmp(sub, "test") && strcmp(sub, "t") && !(!strcmp(pm, "npm") && !strcmp(sub, "tst")) &&
               !strcmp(pm, "npm")) {
        snprintf(why, why_size, "npm %.64s runs no test script", sub);
        return false;
    }
    const char *name = argv[name_at] == sub && (!strcmp(sub, "t") || !strcmp(sub, "tst")) ? "test"
                                                                                       : argv[name_at];
    char *script = runner_npm_script(name, why, why_size);
    if (!script)
        return false;
    struct strv words = {0};
    bool ok = script_words(script, &words, why, why_size);
    size_t w = 0;
    if (ok) {
        while (w < words.n && assignment(words.v[w]))
            w++;
        if (w < words.n && !strcmp(words.v[w], "cross-env"))
            for (w++; w < words.n && assignment(words.v[w]); w++)
                ;
        if (w < words.n && (!strcmp(words.v[w], "npx") || !strcmp(words.v[w], "pnpx"))) {
            int p = after_npx(words.v, (int)w);
            w = p < 0 ? words.n : (size_t)p;
        }
        ok = w < words.n && js_program(words.v, w, &inv->kind);
        if (!ok)
            snprintf(why, why_size, "%s %s runs \"%.80s\", not a test runner sbx knows", pm, name, script);
    }
    free(script);
    if (!ok) {
        strv_free(&words);
        return false;
    }
    inv->at = name_at;
    inv->pm = !strcmp(pm, "npm") ? "npm" : !strcmp(pm, "yarn") ? "yarn" : "pnpm";
    inv->words = words;
    inv->prog = w;
    return true;
}

/* How argv starts a JavaScript test runner; false (why filled where the
 * program is a package manager or npx) when it does not. */
static bool js_classify(char *const argv[], struct js_inv *inv, char *why, size_t why_size)
{
    *inv = (struct js_inv){ .at = -1 };
    const char *prog = base_name(argv[0]);
    if (js_program(argv, 0, &inv->kind)) {
        inv->at = 0;
        return true;
    }
    if (!strcmp(prog, "node") || !strcmp(prog, "nodejs")) {
        snprintf(why, why_size, "node runs a script, not node --test");
        return false;
    }
    int p = -1;
    if (!strcmp(prog, "npx") || !strcmp(prog, "pnpx"))
        p = after_npx(argv, 0);
    else if (!strcmp(prog, "npm") && argv[1] && (!strcmp(argv[1], "exec") || !strcmp(argv[1], "x")))
        p = after_npx(argv, 1);
    else if (!strcmp(prog, "npm") || !strcmp(prog, "yarn") || !strcmp(prog, "pnpm"))
        return via_script(argv, inv, why, why_size);
    else
        return false;
    if (p >= 0 && js_program(argv, (size_t)p, &inv->kind)) {
        inv->at = p;
        return true;
    }
    snprintf(why, why_size, "%s runs %.64s, not a test runner sbx knows", prog, p >= 0 ? argv[p] : "nothing");
    return false;
}

static void js_inv_free(struct js_inv *inv)
{
    strv_free(&inv->words);
}

static int js_anchor(enum js_kind kind, char *const argv[], char *why, size_t why_size)
{
    struct js_inv inv;
    char ignored[256];
    /* only node's says why, so that the reason is given once */
    bool ok = js_classify(argv, &inv, kind == JS_NODE ? why : ignored, kind == JS_NODE ? why_size : sizeof ignored);
    int at = ok && inv.kind == kind ? inv.at : -1;
    js_inv_free(&inv);
    return at;
}

static int node_anchor(char *const argv[], char *why, size_t why_size)
{
    return js_anchor(JS_NODE, argv, why, why_size);
}

static int jest_anchor(char *const argv[], char *why, size_t why_size)
{
    return js_anchor(JS_JEST, argv, why, why_size);
}

static int vitest_anchor(char *const argv[], char *why, size_t why_size)
{
    return js_anchor(JS_VITEST, argv, why, why_size);
}

static int mocha_anchor(char *const argv[], char *why, size_t why_size)
{
    return js_anchor(JS_MOCHA, argv, why, why_size);
}

/* The runner's own arguments: after its program (direct) or the script's
 * words after it (through a script: what the script passes, then what the
 * user appended after the script's name). */
static bool js_has(const struct js_inv *inv, char *const argv[], const char *prefix, bool exact)
{
    char *const *lists[2] = { inv->pm ? inv->words.v + inv->prog + 1 : argv + inv->at + 1,
                              inv->pm ? argv + inv->at + 1 : NULL };
    for (int l = 0; l < 2; l++)
        for (char *const *a = lists[l]; a && *a; a++)
            if (exact ? !strcmp(*a, prefix) : starts(*a, prefix))
                return true;
    return false;
}

static const char *js_value(const struct js_inv *inv, char *const argv[], const char *opt)
{
    char *const *lists[2] = { inv->pm ? inv->words.v + inv->prog + 1 : argv + inv->at + 1,
                              inv->pm ? argv + inv->at + 1 : NULL };
    size_t n = strlen(opt);
    const char *v = NULL;
    for (int l = 0; l < 2; l++)
        for (char *const *a = lists[l]; a && *a; a++) {
            if (!strcmp(*a, opt) && a[1])
                v = a[1];
            else if (!strncmp(*a, opt, n) && (*a)[n] == '=')
                v = *a + n + 1;
        }
    return v;
}

/* argv with `add` appended where the runner reads it: after the program
 * (direct, `after_prog` more words after it), after the script's
 * arguments (npm: after a "--"). */
static void js_append(const struct js_inv *inv, char *const argv[], int after_prog, char *const add[],
                      size_t nadd, struct strv *out)
{
    int n = (int)argv_len(argv);
    if (!inv->pm) {
        push_range(out, argv, 0, inv->at + 1 + after_prog);
        for (size_t i = 0; i < nadd; i++)
            push(out, add[i]);
        push_range(out, argv, inv->at + 1 + after_prog, n);
        return;
    }
    push_range(out, argv, 0, n);
    if (!strcmp(inv->pm, "npm") && !has_arg(argv, inv->at + 1, n, "--"))
        push(out, "--");
    for (size_t i = 0; i < nadd; i++)
        push(out, add[i]);
}

/* node --test through a script: NODE_OPTIONS, which node reads wherever
 * the script's arguments end; the caller's own NODE_OPTIONS kept. */
static void node_options(char *const argv[], const char *add, struct strv *out)
{
    const char *mine = getenv("NODE_OPTIONS");
    push(out, "env");
    strv_push(out, xasprintf("NODE_OPTIONS=%s%s%s", mine ? mine : "", mine && *mine ? " " : "", add));
    push_range(out, argv, 0, (int)argv_len(argv));
}

static bool js_command(char *const argv[], int at, struct strv *out, struct strv *notes, char *err,
                       size_t err_size)
{
    struct js_inv inv;
    char why[256];
    (void)at;
    if (!js_classify(argv, &inv, why, sizeof why))
        return refuse(err, err_size, "%s", why);
    bool done = true;
    const char *rep;
    switch (inv.kind) {
    case JS_NODE:
        rep = js_value(&inv, argv, "--test-reporter");
        if (rep && strcmp(rep, "tap")) {
            done = refuse(err, err_size, "node --test-reporter %s: sbx reads node's TAP reporter on stdout; "
                                         "drop the command's own reporter", rep);
        } else if (rep) {
            push_range(out, argv, 0, (int)argv_len(argv));
        } else if (inv.pm) {
            const char *mine = getenv("NODE_OPTIONS");
            if (mine && strstr(mine, "--test-reporter")) {
                done = refuse(err, err_size, "NODE_OPTIONS sets a test reporter: sbx reads node's TAP "
                                             "reporter on stdout; drop it");
                break;
            }
            node_options(argv, "--test-reporter=tap", out);
            note_add(notes, "added NODE_OPTIONS=--test-reporter=tap: node's default reporter on a "
                            "terminal (spec) is for people");
        } else {
            char *const add[] = { "--test-reporter=tap" };
            int t = at;
            for (int i = inv.at + 1; argv[i] && argv[i][0] == '-'; i++)
                if (!strcmp(argv[i], "--test"))
                    t = i;
            push_range(out, argv, 0, t + 1);
            push(out, add[0]);
            push_range(out, argv, t + 1, (int)argv_len(argv));
            note_add(notes, "added --test-reporter=tap: node's default reporter on a terminal (spec) is "
                            "for people");
        }
        break;
    case JS_JEST:
        if (js_has(&inv, argv, "--outputFile", false)) {
            done = refuse(err, err_size, "jest --outputFile sends the results away from stdout, where sbx "
                                         "reads them: drop it");
            break;
        }
        if (js_has(&inv, argv, "--json", true)) {
            push_range(out, argv, 0, (int)argv_len(argv));
            break;
        }
        js_append(&inv, argv, 0, (char *const[]){ "--json" }, 1, out);
        note_add(notes, "added --json: jest's JSON report names each test and its result");
        break;
    case JS_VITEST: {
        if (js_has(&inv, argv, "--outputFile", false)) {
            done = refuse(err, err_size, "vitest --outputFile sends the results away from stdout, where "
                                         "sbx reads them: drop it");
            break;
        }
        char *const *own = inv.pm ? inv.words.v + inv.prog + 1 : argv + inv.at + 1;
        bool watch = own[0] && (!strcmp(own[0], "watch") || !strcmp(own[0], "dev"));
        bool run = own[0] && !strcmp(own[0], "run");
        if (watch) {
            done = refuse(err, err_size, "vitest %s watches for changes and never ends: use vitest run", own[0]);
            break;
        }
        if (!run && inv.pm) {
            /* what npm appends comes after the script's words: "run" can
             * only be added in front, which a script does not allow; off
             * a terminal vitest runs once */
            js_append(&inv, argv, 0, (char *const[]){ "--reporter=json" }, 1, out);
            note_add(notes, "added --reporter=json: vitest's JSON report names each test and its result");
        } else if (!run) {
            js_append(&inv, argv, 0, (char *const[]){ "run", "--reporter=json" }, 2, out);
            note_add(notes, "added run --reporter=json: vitest alone watches for changes; its JSON report "
                            "names each test and its result");
        } else {
            js_append(&inv, argv, inv.pm ? 0 : 1, (char *const[]){ "--reporter=json" }, 1, out);
            note_add(notes, "added --reporter=json: vitest's JSON report names each test and its result");
        }
        break;
    }
    case JS_MOCHA: {
        const char *r = js_value(&inv, argv, "--reporter");
        const char *r2 = js_value(&inv, argv, "-R");
        if ((r && strcmp(r, "json")) || (r2 && strcmp(r2, "json"))) {
            done = refuse(err, err_size, "mocha --reporter %s: sbx reads mocha's JSON reporter on stdout; "
                                         "drop the command's own reporter", r ? r : r2);
            break;
        }
        if (js_has(&inv, argv, "--reporter-option", false) || js_has(&inv, argv, "-O", true)) {
            done = refuse(err, err_size, "mocha --reporter-option: sbx reads mocha's JSON reporter on "
                                         "stdout as it is; drop it");
            break;
        }
        if (r || r2) {
            push_range(out, argv, 0, (int)argv_len(argv));
            break;
        }
        js_append(&inv, argv, 0, (char *const[]){ "--reporter", "json" }, 2, out);
        note_add(notes, "added --reporter json: mocha's JSON report names each test and its result");
        break;
    }
    }
    js_inv_free(&inv);
    return done;
}

/* ---- re-runs ---- */

/* node: one exact pattern per level of each test. node 20 matches
 * --test-name-pattern against each test's own name and runs a test when
 * any pattern matches: the test and its ancestors run (and any other test
 * that bears one of those names). A matching test runs all its t.test()
 * subtests, so a subtest's siblings run too (describe/it children are
 * selected one by one); the others print "# SKIP test name does not match
 * pattern". Through a script the script's own words are run (npm cannot
 * put the patterns before the script's file arguments), with its
 * environment assignments. */
static bool node_select(char *const argv[], const struct js_inv *inv, char *const patterns[], size_t np,
                        struct strv *out)
{
    char *const *words = inv->pm ? inv->words.v : argv;
    size_t prog = inv->pm ? inv->prog : (size_t)inv->at;
    if (inv->pm && prog > 0)
        push(out, "env");
    for (size_t i = 0; i < prog; i++)
        if (!inv->pm || assignment(words[i]))
            push(out, words[i]);
    size_t t = prog;
    for (size_t i = prog + 1; words[i] && words[i][0] == '-'; i++)
        if (!strcmp(words[i], "--test"))
            t = i;
    for (size_t i = prog; i <= t; i++)
        push(out, words[i]);
    for (size_t i = 0; i < np; i++)
        strv_push(out, xasprintf("--test-name-pattern=%s", patterns[i]));
    for (size_t i = t + 1; words[i]; i++)
        push(out, words[i]);
    if (inv->pm)
        for (int i = inv->at + 1; argv[i]; i++)
            if (strcmp(argv[i], "--"))
                push(out, argv[i]);
    return true;
}

/* jest, vitest: the files (jest: a regular expression on the path; vitest:
 * a part of the path) and -t, a regular expression on the full name (the
 * titles joined by spaces, the id here); mocha: --grep on the same. */
static bool js_select(char *const argv[], const struct js_inv *inv, const struct runner_test *const tests[],
                      size_t n, const char *name_re, struct strv *out)
{
    struct strv add = {0};
    if (inv->kind != JS_MOCHA) {
        struct strv files = {0};
        for (size_t i = 0; i < n; i++) {
            bool seen = !tests[i]->unit;
            for (size_t k = 0; k < files.n && !seen; k++)
                seen = !strcmp(files.v[k], tests[i]->unit);
            if (!seen)
                push(&files, tests[i]->unit);
        }
        for (size_t k = 0; k < files.n; k++)
            strv_push(&add, inv->kind == JS_JEST ? regex_exact(files.v[k]) : xstrdup(files.v[k]));
        strv_free(&files);
    }
    push(&add, inv->kind == JS_MOCHA ? "--grep" : "-t");
    push(&add, name_re);
    int after = !inv->pm && inv->kind == JS_VITEST && argv[inv->at + 1] && !strcmp(argv[inv->at + 1], "run");
    js_append(inv, argv, after, add.v, add.n, out);
    strv_free(&add);
    return true;
}

static bool js_rerun(char *const argv[], int at, const struct runner_test *const tests[], size_t n,
                     struct strv *out)
{
    struct js_inv inv;
    char why[256];
    (void)at;
    if (!js_classify(argv, &inv, why, sizeof why))
        return false;
    bool done;
    if (inv.kind == JS_NODE) {
        struct strv patterns = {0};
        for (size_t i = 0; i < n; i++) {
            struct strv parts = {0};
            push_split(&parts, tests[i]->id, " > ");
            for (size_t p = 0; p < parts.n; p++)
                strv_push(&patterns, regex_exact(parts.v[p]));
            strv_free(&parts);
        }
        done = node_select(argv, &inv, patterns.v, patterns.n, out);
        strv_free(&patterns);
    } else {
        const char **names = xcalloc(n, sizeof *names);
        for (size_t i = 0; i < n; i++)
            names[i] = tests[i]->id;
        char *re = regex_any(names, n);
        free(names);
        done = js_select(argv, &inv, tests, n, re, out);
        free(re);
    }
    js_inv_free(&inv);
    return done;
}

/* A pattern no name matches ("(?!)" fails everywhere in JavaScript's
 * RegExp): the files load, their top-level code and imports run, no test. */
static bool js_baseline(char *const argv[], int at, const struct runner_test *t, struct strv *out)
{
    struct js_inv inv;
    char why[256];
    (void)at;
    if (!js_classify(argv, &inv, why, sizeof why))
        return false;
    bool done = inv.kind == JS_NODE ? node_select(argv, &inv, (char *const[]){ "(?!)" }, 1, out)
                                    : js_select(argv, &inv, (const struct runner_test *const[]){ t }, 1, "(?!)", out);
    js_inv_free(&inv);
    return done;
}

/* ---- jest's, vitest's and mocha's JSON documents ---- */

struct js_state {
    struct strv lines;  /* mocha: the document being read, line by line */
    size_t size;
    char *doc;          /* the last whole document */
};

static void *js_state_new(void)
{
    return xcalloc(1, sizeof(struct js_state));
}

static void js_state_free(void *state)
{
    struct js_state *s = state;
    if (!s)
        return;
    strv_free(&s->lines);
    free(s->doc);
    free(s);
}

static void js_keep(struct js_state *s, char *doc)
{
    free(s->doc);
    s->doc = doc;
}

/* jest and vitest write the document on one line, "{"num..." at its start */
static void jest_line(struct runner_parser *p, char *line)
{
    if (starts(line, "{\"num"))
        js_keep(p->state, xstrdup(line));
}

/* mocha writes it indented, from a "{" line to a "}" line */
static void mocha_line(struct runner_parser *p, char *line)
{
    struct js_state *s = p->state;
    if (!strcmp(line, "{")) {
        strv_free(&s->lines);
        s->size = 0;
    }
    if (!s->lines.n && strcmp(line, "{"))
        return;
    s->size += strlen(line) + 1;
    if (s->size > JS_DOC_MAX) {
        strv_free(&s->lines);
        s->size = 0;
        return;
    }
    /* mocha ends its document with "}" and no newline, so what is
     * written next (npm's "npm error" on stderr) joins that line */
    bool last = line[0] == '}';
    push(&s->lines, last ? "}" : line);
    if (!last)
        return;
    char *doc = xmalloc(s->size + 1), *o = doc;
    for (size_t i = 0; i < s->lines.n; i++) {
        o = stpcpy(o, s->lines.v[i]);
        *o++ = '\n';
    }
    *o = '\0';
    js_keep(s, doc);
    strv_free(&s->lines);
    s->size = 0;
}

static struct json_object *js_parse(const char *doc)
{
    struct json_tokener *tok = json_tokener_new_ex(1024);
    if (!tok)
        return NULL;
    struct json_object *o = json_tokener_parse_ex(tok, doc, (int)strlen(doc));
    json_tokener_free(tok);
    return o;
}

static const char *js_str(struct json_object *o, const char *key)
{
    struct json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v) : NULL;
}

static uint64_t js_u64(struct json_object *o, const char *key)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
        return 0;
    double d = json_object_get_double(v);
    return d > 0 && d < 1e15 ? (uint64_t)d : 0;
}

static double js_double(struct json_object *o, const char *key)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
        return 0;
    double d = json_object_get_double(v);
    return d > 0 && d < 1e12 ? d : 0;
}

static struct json_object *js_array(struct json_object *o, const char *key)
{
    struct json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_array) ? v : NULL;
}

static void jest_finish(struct runner_parser *p)
{
    struct js_state *s = p->state;
    struct json_object *root = s->doc ? js_parse(s->doc) : NULL;
    if (!root || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        return;
    }
    uint64_t passed = js_u64(root, "numPassedTests"), failed = js_u64(root, "numFailedTests");
    uint64_t skipped = js_u64(root, "numPendingTests") + js_u64(root, "numTodoTests");
    uint64_t total = js_u64(root, "numTotalTests");
    runner_count(p, passed, failed, skipped, total > passed + failed + skipped ? total - passed - failed - skipped : 0);
    struct json_object *files = js_array(root, "testResults");
    size_t nf = files ? json_object_array_length(files) : 0;
    for (size_t f = 0; f < nf; f++) {
        struct json_object *file = json_object_array_get_idx(files, f);
        const char *name = js_str(file, "name");
        struct json_object *cases = js_array(file, "assertionResults");
        size_t nc = cases ? json_object_array_length(cases) : 0;
        if (!name)
            continue;
        /* a file that failed with no test to show for it (it did not
         * load: a syntax error, an import that threw): the suite's, a
         * fixture row (its "message" otherwise repeats its tests'
         * failures) */
        const char *fstatus = js_str(file, "status");
        if (fstatus && !strcmp(fstatus, "failed") && !nc) {
            size_t i = test_result(p, name, name, TEST_ERRORED);
            test_kind(p, i, RUNNER_TEST_FIXTURE);
        }
        for (size_t c = 0; c < nc; c++) {
            struct json_object *tc = json_object_array_get_idx(cases, c);
            const char *full = js_str(tc, "fullName"), *st = js_str(tc, "status");
            if (!full || !st)
                continue;
            enum test_status status = !strcmp(st, "passed") ? TEST_PASSED
                                    : !strcmp(st, "failed") ? TEST_FAILED : TEST_SKIPPED;
            size_t i = test_result(p, name, full, status);
            test_duration(p, i, (uint64_t)(js_double(tc, "duration") * 1000));
        }
    }
    json_object_put(root);
}

static void mocha_rows(struct runner_parser *p, struct json_object *list, enum test_status status)
{
    size_t n = list ? json_object_array_length(list) : 0;
    for (size_t k = 0; k < n; k++) {
        struct json_object *tc = json_object_array_get_idx(list, k);
        const char *full = js_str(tc, "fullTitle"), *title = js_str(tc, "title");
        if (!full)
            continue;
        size_t i = test_result(p, js_str(tc, "file"), full, status);
        /* '"before all" hook for "x"': a hook's failure, the suite's */
        if (title && title[0] == '"' && strstr(title, "\" hook"))
            test_kind(p, i, RUNNER_TEST_FIXTURE);
        test_duration(p, i, js_u64(tc, "duration") * 1000);
    }
}

static void mocha_finish(struct runner_parser *p)
{
    struct js_state *s = p->state;
    struct json_object *root = s->doc ? js_parse(s->doc) : NULL, *stats;
    if (!root || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        return;
    }
    if (json_object_object_get_ex(root, "stats", &stats)) {
        uint64_t passed = js_u64(stats, "passes"), failed = js_u64(stats, "failures");
        uint64_t skipped = js_u64(stats, "pending"), total = js_u64(stats, "tests");
        runner_count(p, passed, failed, skipped,
                     total > passed + failed + skipped ? total - passed - failed - skipped : 0);
    }
    mocha_rows(p, js_array(root, "passes"), TEST_PASSED);
    mocha_rows(p, js_array(root, "pending"), TEST_SKIPPED);
    mocha_rows(p, js_array(root, "failures"), TEST_FAILED);
    json_object_put(root);
}


/* ---- sbx's result reporter, for mocha (runner_report.h) ---- */

/* A test's id as a record holds it (runner_report.h): a backslash doubled,
 * a control byte as \xHH, NUL (which no record holds) as '?'. */
#define JS_ESC                                                                                     \
    "  const esc = (s) => String(s).replace(/[\\\\\\x00-\\x1f\\x7f]/g, (c) =>\n"                          \
    "    c === '\\\\' ? '\\\\\\\\' : c === '\\0' ? '?' : '\\\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));\n"

/* mocha's JSON names each test once every test has ended, with nothing
 * that says when it ran, so each denial had to be found by re-runs, and
 * a hook's (a before hook's timer binding after its test ended) was
 * charged to whichever test a re-run ran with it. The reporter, sent as
 * the greeting, wraps mocha's Runnable.run (every test's and every hook's
 * function, one at a time in a serial run): a start record ("fixture" for
 * a hook) before it runs, its result and stop when mocha's own callback
 * says it ended, written synchronously to the channel; it.skip's tests,
 * never run, get a result alone. A denial between two records is the
 * suite's, never a test's. Its hello comes with the first run in this
 * process: under --parallel (tests in worker processes, which never get
 * the reporter) the channel stays silent and mocha's JSON is read. The
 * last line, added with the key, calls it. */
static const char mocha_reporter_code[] =
    "async function _sbx(key, imp, fd) {\n"
    "  // sbx audit's result reporter for mocha (runner_node.c): one record per\n"
    "  // test's and hook's run on the result channel, never on the output.\n"
    "  const fs = await imp('node:fs'), path = await imp('node:path'), url = await imp('node:url');\n"
    "  let seq = 0, live = true;\n"
    JS_ESC
    "  const emit = (...words) => {\n"
    "    if (!live) return;\n"
    "    const line = Buffer.from([key, String(seq++), ...words].join(' ') + '\\n');\n"
    "    try {\n"
    "      for (let off = 0; off < line.length; ) off += fs.writeSync(fd, line, off);\n"
    "    } catch (e) {\n"
    "      live = false;\n"
    "    }\n"
    "  };\n"
    "  let lib;\n"
    "  try {\n"
    "    lib = path.join(path.dirname(fs.realpathSync(process.argv[1])), '..', 'lib');\n"
    "  } catch (e) {\n"
    "    return;\n"
    "  }\n"
    "  const load = async (name, cls) => {\n"
    "    const m = await imp(url.pathToFileURL(path.join(lib, name)).href);\n"
    "    const c = m[cls] || (m.default && (m.default[cls] || m.default));\n"
    "    return typeof c === 'function' && c.prototype ? c : null;\n"
    "  };\n"
    "  let Runnable, Runner;\n"
    "  try {\n"
    "    Runnable = await load('runnable.js', 'Runnable');\n"
    "    Runner = await load('runner.js', 'Runner');\n"
    "  } catch (e) {\n"
    "    return;\n"
    "  }\n"
    "  if (!Runnable || !Runner || typeof Runnable.prototype.run !== 'function' ||\n"
    "      typeof Runner.prototype.run !== 'function')\n"
    "    return;\n"
    "  const ran = new WeakSet();\n"
    "  // hello only once a run in this process starts: under --parallel the\n"
    "  // tests run in workers, the channel stays silent and the output is read\n"
    "  let said = false;\n"
    "  const hello = () => {\n"
    "    if (!said) {\n"
    "      said = true;\n"
    "      emit('hello', 'mocha', 'serial');\n"
    "    }\n"
    "  };\n"
    "  // a test that failed and that mocha retries (this.retries(N)) stays\n"
    "  // one run from its first start to its last attempt's result: the\n"
    "  // each-hooks between attempts are its own\n"
    "  let open = null;\n"
    "  const runOne = Runnable.prototype.run;\n"
    "  Runnable.prototype.run = function (fn) {\n"
    "    if (typeof this.isPending === 'function' && this.isPending()) return runOne.call(this, fn);\n"
    "    const self = this, hook = this.type === 'hook', id = esc(this.fullTitle());\n"
    "    if (hook && open !== null) return runOne.call(this, fn);\n"
    "    const t0 = process.hrtime.bigint();\n"
    "    let over = false;\n"
    "    ran.add(this);\n"
    "    hello();\n"
    "    if (open !== id) emit(hook ? 'fixture' : 'start', id);\n"
    "    open = null;\n"
    "    return runOne.call(this, function (err) {\n"
    "      if (!over) {\n"
    "        over = true;\n"
    "        const pending = typeof self.isPending === 'function' && self.isPending();\n"
    "        const again = !hook && err && typeof self.currentRetry === 'function' &&\n"
    "          typeof self.retries === 'function' && self.currentRetry() < self.retries();\n"
    "        if (again) {\n"
    "          open = id;\n"
    "        } else {\n"
    "          // this.skip() marks it pending, then throws (a promise's rejection)\n"
    "          emit('result', pending ? 'skipped' : err ? (hook ? 'errored' : 'failed') : 'passed', id);\n"
    "          emit('stop', String((process.hrtime.bigint() - t0) / 1000n), id);\n"
    "        }\n"
    "      }\n"
    "      return fn.apply(this, arguments);\n"
    "    });\n"
    "  };\n"
    "  const runAll = Runner.prototype.run;\n"
    "  Runner.prototype.run = function (...args) {\n"
    "    hello();\n"
    "    // it.skip, xit, a test without a function: never run, skipped\n"
    "    this.on('pending', (t) => {\n"
    "      if (t && !ran.has(t)) emit('result', 'skipped', esc(t.fullTitle()));\n"
    "    });\n"
    "    this.once('end', () => emit('end'));\n"
    "    return runAll.apply(this, args);\n"
    "  };\n"
    "}\n";

/* What node runs with -e in place of mocha's program: the reporter, read
 * from the channel, then mocha's program itself, argv[1] its path as the
 * kernel's exec of its #! line gives; -e is taken out of execArgv, so
 * that a process mocha forks (its --parallel workers) runs as it would. */
#define MOCHA_BOOT_PREFIX "import fs from 'node:fs';import url from 'node:url';"
#define MOCHA_BOOT                                                                                 \
    MOCHA_BOOT_PREFIX                                                                              \
    "{const x=process.execArgv;const i=x.indexOf('-e');if(i>=0)x.splice(i,2);"                     \
    "const j=x.indexOf('--input-type=module');if(j>=0)x.splice(j,1);}"                            \
    "const b=Buffer.alloc(1<<20);const n=fs.readSync(" JS_STR(RUNNER_REPORT_FD) ",b,0,b.length,null);" \
    "await new (Object.getPrototypeOf(async function(){}).constructor)('imp','FD',"                \
    "b.toString('utf8',0,n))(s=>import(s)," JS_STR(RUNNER_REPORT_FD) ");"                         \
    "await import(url.pathToFileURL(fs.realpathSync(process.argv[1])).href);"
#define JS_STR(x) JS_STR_(x)
#define JS_STR_(x) #x

static char *mocha_greeting(const char *key, size_t *len)
{
    char *g = xasprintf("%s\nreturn _sbx('%s', imp, FD);\n", mocha_reporter_code, key);
    *len = strlen(g);
    return g;
}

static bool mocha_carries_reporter(char *const argv[])
{
    for (size_t i = 0; argv[i]; i++)
        if (starts(argv[i], MOCHA_BOOT_PREFIX))
            return true;
    return false;
}

/* mocha typed directly (what command() made): PROGRAM ARGS becomes NODE
 * --input-type=module -e BOOT PROGRAM ARGS, NODE its #! line's. */
static bool mocha_reporter(struct strv *out, struct strv *notes)
{
    struct js_inv inv;
    char why[256];
    if (!js_classify(out->v, &inv, why, sizeof why))
        return false;
    bool direct = !inv.pm && inv.kind == JS_MOCHA;
    size_t at = (size_t)inv.at;
    js_inv_free(&inv);
    if (!direct) {
        note_add(notes, "sbx adds no result reporter to mocha run through npx or a package script: the "
                        "results are read from mocha's JSON report, each test's denials found by re-runs");
        return false;
    }
    for (size_t i = at + 1; i < out->n; i++)
        if (!strcmp(out->v[i], "--parallel") || !strcmp(out->v[i], "-p")) {
            note_add(notes, "mocha --parallel runs the tests in worker processes, where sbx's result "
                            "reporter is not: the results are read from mocha's JSON report");
            return false;
        }
    char *script = NULL, *abs = NULL;
    /* node_modules/.bin/mocha, a symbolic link: the file it names, from
     * / (the #! line is read without following links) */
    if (strchr(out->v[at], '/'))
        abs = realpath(out->v[at], NULL);
    char *node = runner_program_interpreter(abs ? abs : out->v[at], "node", &script, why, sizeof why);
    free(abs);
    if (!node) {
        strv_push(notes, xasprintf("sbx adds no result reporter to mocha here (%s): the results are read "
                                   "from mocha's JSON report", why));
        return false;
    }
    struct strv nv = { 0 };
    push_range(&nv, out->v, 0, (int)at);
    strv_push(&nv, node);
    push(&nv, "--input-type=module");
    push(&nv, "-e");
    push(&nv, MOCHA_BOOT);
    strv_push(&nv, xasprintf("%s", script));
    push_range(&nv, out->v, (int)at + 1, (int)out->n);
    strv_push(notes, xasprintf("added sbx's result reporter: mocha runs as %s -e (its #! line's node, "
                               "starting %s with the same arguments and tests) with a reporter that writes "
                               "each test's and each hook's start and result from mocha's own runnables to "
                               "descriptor %d, which the suite's output cannot reach", nv.v[at], script,
                               RUNNER_REPORT_FD));
    free(script);
    strv_free(out);
    *out = nv;
    return true;
}

/* ---- sbx's clock, for node --test (runner_report.h's worker records) ---- */

/* node --test prints each file's results when that file's process has
 * ended, so the output says nothing of when a test ran, and each denial
 * had to be found by re-runs (19.7 x the two runs with 5 of 200 tests
 * denied, 84.5 x with all). Each file runs in a process node spawns with
 * the runner's own node options (process.execArgv, less --test and its
 * kind), so an --import given to the runner is loaded first in every
 * file's process, and only there: node 20's runner process loads none.
 *
 * There it registers a root-level beforeEach hook, which node runs before
 * every test of the file (subtests, describe's its) ahead of the file's
 * own hooks, and ends the test's run when the test's AbortSignal fires,
 * which node does once the test and its afterEach hooks are over, passed,
 * failed or skipped (t.skip() skips the afterEach hooks, not the abort).
 * Each stretch goes to the result channel as a ran record, read with
 * CLOCK_MONOTONIC (process.hrtime.bigint()) as the ledger reads each
 * denied call's: a call the process made while the test ran lies between
 * the two. A parent test's run is cut where each subtest runs, so the
 * subtest's calls are the subtest's; a test that starts while another
 * that is not its parent runs (a concurrency option) makes two runs of
 * one process overlap, and placement refuses (audit_attrib.h). Calls
 * outside every run (loading the file, describe's body, before/after
 * hooks) are the suite's.
 *
 * Where it acts: a process whose environment has NODE_TEST_CONTEXT (node
 * sets it for the files' processes) and whose parent is a node --test (its
 * command line's node options hold --test): not in a helper a test
 * forks (it inherits both execArgv and the environment) nor in a node
 * --test a test runs. The id is t.fullName (node 20.16, 22.3), the path
 * node's TAP gives; on an older node it writes nothing, and re-runs place
 * the calls. The key arrives in the module's URL, after '#': node reads a
 * data: URL's body without its fragment. The limits: a file that never
 * loads node:test gets an empty root (node prints "1..0" for it); a
 * timer a test left behind that makes a call while a later test runs is
 * charged to the later one, as with mocha. */
#define NODE_CLOCK_IMPORT "--import=data:text/javascript;base64,"
#define NODE_CLOCK_KEY "#sbx-key="
#define NODE_CLOCK_KEY_LEN 9 /* strlen(NODE_CLOCK_KEY) */
/* What both clocks start with: the key, from the module's URL; emit(),
 * which writes one record whole, in this process's own sequence. */
#define JS_CLOCK_HEAD                                                                              \
    "const key = new URL(import.meta.url).hash.slice(" JS_STR(NODE_CLOCK_KEY_LEN) ");\n"           \
    "const fs = /^[0-9a-f]{" JS_STR(RUNNER_KEY_LEN) "}$/.test(key) ? await import('node:fs') : null;\n" \
    "const pid = process.pid;\n"                                                                   \
    "let seq = 0, live = fs !== null;\n"                                                           \
    JS_ESC                                                                                         \
    "const emit = (words) => {\n"                                                                  \
    "  if (!live) return;\n"                                                                       \
    "  const line = Buffer.from(key + ' ' + pid + ':' + seq + ' ' + words + '\\n');\n"              \
    "  // one write, small enough that no other writer's bytes come between\n"                     \
    "  try {\n"                                                                                    \
    "    live = line.length < " JS_STR(RUNNER_WORKER_LINE) " && fs.writeSync(" JS_STR(RUNNER_REPORT_FD) ", line) === line.length;\n" \
    "  } catch (e) {\n"                                                                            \
    "    live = false;\n"                                                                          \
    "  }\n"                                                                                        \
    "  seq++;\n"                                                                                   \
    "};\n"

static const char node_clock_code[] =
    "// sbx audit's clock for node --test (runner_node.c): a ran record per\n"
    "// stretch of each test's run, on descriptor " JS_STR(RUNNER_REPORT_FD) ".\n"
    JS_CLOCK_HEAD
    "let spawned = false;\n"
    "try {\n"
    "  const a = live && process.env.NODE_TEST_CONTEXT ?\n"
    "    fs.readFileSync('/proc/' + process.ppid + '/cmdline', 'latin1').split('\\0') : [];\n"
    "  for (let i = 1; i < a.length && a[i].startsWith('-'); i++) if (a[i] === '--test') spawned = true;\n"
    "} catch (e) {}\n"
    "if (spawned) {\n"
    "  const { beforeEach } = await import('node:test');\n"
    "  emit('controller ' + process.ppid);\n"
    "  const ran = (run, end) => emit('ran ' + pid + ' ' + run.begin + ' ' + end + ' - ' + esc(run.name));\n"
    "  const open = [];\n"
    "  beforeEach((t) => {\n"
    "    const at = process.hrtime.bigint();\n"
    "    try {\n"
    "      if (typeof t.fullName !== 'string' || typeof t.name !== 'string' || !t.signal) {\n"
    "        live = false;\n"
    "        return;\n"
    "      }\n"
    "      const top = open[open.length - 1], run = { name: t.fullName, begin: at, parent: null };\n"
    "      // a subtest: its parent's stretch ends where it starts\n"
    "      if (top && top.begin !== null && run.name === top.name + ' > ' + t.name) {\n"
    "        ran(top, at);\n"
    "        top.begin = null;\n"
    "        run.parent = top;\n"
    "      }\n"
    "      open.push(run);\n"
    "      t.signal.addEventListener('abort', () => {\n"
    "        const end = process.hrtime.bigint(), i = open.lastIndexOf(run);\n"
    "        if (i >= 0) open.splice(i, 1);\n"
    "        if (run.begin !== null) ran(run, end);\n"
    "        // and goes on where it ends\n"
    "        if (run.parent && open[open.length - 1] === run.parent) run.parent.begin = end;\n"
    "      }, { once: true });\n"
    "    } catch (e) {\n"
    "      live = false;\n"
    "    }\n"
    "  });\n"
    "}\n";

/* jest: each test file runs in a test environment, a class jest loads by
 * require() from the file its testEnvironment names (jest-environment-node
 * by default, jest-environment-jsdom), in the process that runs the file:
 * jest's own with one file or --runInBand, else one of its workers, all of
 * which get NODE_OPTIONS. The clock catches that require (Module._load)
 * and hands jest a subclass of the environment whose handleTestEvent,
 * which jest-circus calls with each of its events, reads the clock at a
 * test's test_start (before its beforeEach hooks) and at its test_done
 * (after its afterEach hooks), and writes the run with the test's file
 * (a unit record, the path jest's JSON names) and its id (its describe
 * blocks' names and its own, joined by spaces: jest's fullName); a test
 * jest skips (test.skip, test.todo, -t) starts and is skipped at once: an
 * empty run, so that every test has one. A test.concurrent test's
 * function starts before its test_start, while another test runs: at
 * one, the clock stops writing, and the file's tests have no runs
 * (re-runs decide); so it does where a test starts while another has not
 * ended. An environment of another name, a
 * test runner other than jest-circus: no runs either. */
static const char jest_clock_code[] =
    "// sbx audit's clock for jest (runner_node.c): a ran record per test's\n"
    "// run, on descriptor " JS_STR(RUNNER_REPORT_FD) ".\n"
    JS_CLOCK_HEAD
    "if (live) {\n"
    "  const { default: Module } = await import('node:module');\n"
    "  const paths = new WeakMap(), open = new Map(), made = new Map(), seen = new WeakSet();\n"
    "  let unit = null;\n"
    "  const id = (test) => {\n"
    "    const names = [];\n"
    "    for (let b = test; b && b.parent; b = b.parent) names.unshift(b.name);\n"
    "    return names.join(' ');\n"
    "  };\n"
    "  const clock = (path, event) => {\n"
    "    const t = event && event.test;\n"
    "    if (!t || typeof path !== 'string') return;\n"
    "    if (event.name === 'test_start') {\n"
    "      // one that started and never ended: its calls are in no run\n"
    "      if (t.concurrent || open.size) live = false;\n"
    "      open.set(t, process.hrtime.bigint());\n"
    "    } else if (open.has(t) && ['test_done', 'test_skip', 'test_todo'].includes(event.name)) {\n"
    "      // a skipped test's run is empty: every test has one\n"
    "      const begin = open.get(t), end = event.name === 'test_done' ? process.hrtime.bigint() : begin;\n"
    "      open.delete(t);\n"
    "      if (path !== unit) emit('unit ' + esc(unit = path));\n"
    "      emit('ran ' + pid + ' ' + begin + ' ' + end + ' - ' + esc(id(t)));\n"
    "    }\n"
    "  };\n"
    "  const wrap = (Env) => {\n"
    "    if (!made.has(Env)) {\n"
    "      class SbxClock extends Env {\n"
    "        constructor(config, context, ...rest) {\n"
    "          super(config, context, ...rest);\n"
    "          paths.set(this, context && context.testPath);\n"
    "        }\n"
    "        handleTestEvent(event, state) {\n"
    "          try {\n"
    "            clock(paths.get(this), event);\n"
    "          } catch (e) {\n"
    "            live = false;\n"
    "          }\n"
    "          return typeof super.handleTestEvent === 'function' ? super.handleTestEvent(event, state) : undefined;\n"
    "        }\n"
    "      }\n"
    "      made.set(Env, SbxClock);\n"
    "    }\n"
    "    return made.get(Env);\n"
    "  };\n"
    "  const load = Module._load;\n"
    "  Module._load = function (request, ...rest) {\n"
    "    const m = load.call(this, request, ...rest);\n"
    "    try {\n"
    "      if (typeof request === 'string' && request.includes('jest-environment') && m &&\n"
    "          typeof m === 'object' && !seen.has(m)) {\n"
    "        seen.add(m);\n"
    "        for (const k of ['default', 'TestEnvironment']) {\n"
    "          const c = m[k];\n"
    "          if (typeof c === 'function' && c.prototype && typeof c.prototype.getVmContext === 'function')\n"
    "            m[k] = wrap(c);\n"
    "        }\n"
    "      }\n"
    "    } catch (e) {}\n"
    "    return m;\n"
    "  };\n"
    "}\n";

/* vitest: each test file runs in one of vitest's workers, a process (the
 * default pool, forks) started as node .../vitest/dist/workers/NAME.js,
 * which gets NODE_OPTIONS. There the clock imports vitest's own entry
 * from beside that file, the module the worker's runner comes from, and
 * wraps its TestRunner's onBeforeRunTask and onAfterRunTask, which
 * @vitest/runner calls as a test starts (before its beforeEach hooks) and
 * as it ends (after its afterEach hooks, its retries), and its
 * onAfterRetryTask, called at the end of each attempt: the only end a test
 * that skips itself (ctx.skip()) gets. It writes each stretch with the
 * test's file (a unit record, the path vitest's JSON names) and its id
 * (its suites' names and its own, joined by spaces, as the JSON's
 * fullName); a test not run (skip, todo, a -t that leaves it out) gets an
 * empty run, so that every test has one (runner_report.c asks that of
 * jest and vitest: a test skipped after it started has its calls in its
 * run). A concurrent test (test.concurrent, sequence.concurrent), or one
 * that started and never ended, stops the clock; so does a worker thread
 * (pool threads), whose records share their process's pid and sequence
 * with the others' and collide; re-runs decide. */
static const char vitest_clock_code[] =
    "// sbx audit's clock for vitest (runner_node.c): a ran record per test's\n"
    "// run, on descriptor " JS_STR(RUNNER_REPORT_FD) ".\n"
    JS_CLOCK_HEAD
    "const worker = process.argv[1] || '';\n"
    "if (live && /[\\\\/]vitest[\\\\/]dist[\\\\/]workers[\\\\/][^\\\\/]+\\.js$/.test(worker)) {\n"
    "  let Runner = null;\n"
    "  try {\n"
    "    const { pathToFileURL } = await import('node:url');\n"
    "    const entry = new URL('../index.js', pathToFileURL(fs.realpathSync(worker)));\n"
    "    Runner = (await import(entry.href)).TestRunner;\n"
    "    // before 4.1 it was vitest/runners' VitestTestRunner (4.1 warns on that import)\n"
    "    if (typeof Runner !== 'function')\n"
    "      Runner = (await import(new URL('./runners.js', entry).href)).VitestTestRunner;\n"
    "  } catch (e) {}\n"
    "  const p = typeof Runner === 'function' ? Runner.prototype : null;\n"
    "  if (p && typeof p.onBeforeRunTask === 'function' && typeof p.onAfterRunTask === 'function') {\n"
    "    const before = p.onBeforeRunTask, after = p.onAfterRunTask, retried = p.onAfterRetryTask, open = new Map();\n"
    "    let unit = null;\n"
    "    const id = (test) => {\n"
    "      const names = [test.name];\n"
    "      for (let s = test.suite; s && s !== test.file; s = s.suite) names.unshift(s.name);\n"
    "      return names.join(' ');\n"
    "    };\n"
    "    const ran = (test, run, end) => {\n"
    "      const path = test.file && test.file.filepath;\n"
    "      if (typeof path !== 'string') return void (live = false);\n"
    "      if (path !== unit) emit('unit ' + esc(unit = path));\n"
    "      emit('ran ' + pid + ' ' + run.begin + ' ' + end + ' - ' + esc(id(test)));\n"
    "    };\n"
    "    const guard = (f) => { try { f(); } catch (e) { live = false; } };\n"
    "    p.onBeforeRunTask = function (test, ...rest) {\n"
    "      const run = { begin: process.hrtime.bigint(), ended: false };\n"
    "      guard(() => {\n"
    "        // one that ended only with its attempts (a skip in the test) is\n"
    "        // done; one that never ended leaves its calls in no run\n"
    "        for (const [t, r] of open) if (r.ended) open.delete(t); else live = false;\n"
    "        if (test.concurrent) live = false;\n"
    "        open.set(test, run);\n"
    "      });\n"
    "      return Promise.resolve(before.call(this, test, ...rest)).then((v) => {\n"
    "        // not run (skipped, todo): an empty run, so that every test has one\n"
    "        guard(() => {\n"
    "          if (test.mode !== 'run' && test.mode !== 'queued' && open.get(test) === run) {\n"
    "            open.delete(test);\n"
    "            ran(test, run, run.begin);\n"
    "          }\n"
    "        });\n"
    "        return v;\n"
    "      });\n"
    "    };\n"
    "    // the end of each attempt, after its afterEach hooks: the only end a\n"
    "    // test skipped from inside gets\n"
    "    p.onAfterRetryTask = function (test, ...rest) {\n"
    "      guard(() => {\n"
    "        const run = open.get(test), end = process.hrtime.bigint();\n"
    "        if (run) {\n"
    "          ran(test, run, end);\n"
    "          run.begin = end;\n"
    "          run.ended = true;\n"
    "        }\n"
    "      });\n"
    "      return typeof retried === 'function' ? retried.call(this, test, ...rest) : undefined;\n"
    "    };\n"
    "    p.onAfterRunTask = function (test, ...rest) {\n"
    "      guard(() => {\n"
    "        const run = open.get(test);\n"
    "        open.delete(test);\n"
    "        if (run) ran(test, run, process.hrtime.bigint());\n"
    "      });\n"
    "      return after.call(this, test, ...rest);\n"
    "    };\n"
    "  }\n"
    "}\n";

/* `--import=data:...#sbx-key=KEY`, KEY all zeros until runner_report_keyed(). */
static char *clock_arg(const char *code)
{
    char *b64 = base64_encode((const unsigned char *)code, strlen(code));
    char zeros[RUNNER_KEY_LEN + 1];
    memset(zeros, '0', RUNNER_KEY_LEN);
    zeros[RUNNER_KEY_LEN] = '\0';
    char *arg = xasprintf("%s%s%s%s", NODE_CLOCK_IMPORT, b64, NODE_CLOCK_KEY, zeros);
    free(b64);
    return arg;
}

/* Whether `prog --version` says node 18.18+, 20.6+ or 21+: the ones with
 * --import (an older node stops at it: "bad option"). Asked once per
 * program name and PATH. */
static bool node_has_import(const char *prog, char *why, size_t why_size)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char *asked;
    static bool answer;
    static char said[160];
    const char *path = getenv("PATH");
    char *key = xasprintf("%s\n%s", prog, path ? path : "");
    pthread_mutex_lock(&lock);
    if (asked && !strcmp(asked, key)) {
        free(key);
    } else {
        free(asked);
        asked = key;
        char version[64];
        int major = 0, minor = 0;
        if (!runner_program_version(prog, "--version", version, sizeof version) ||
            sscanf(version, "v%d.%d", &major, &minor) != 2) {
            answer = false;
            snprintf(said, sizeof said, "%s --version did not say which node it is", prog);
        } else {
            answer = major >= 21 || (major == 20 && minor >= 6) || (major == 18 && minor >= 18);
            snprintf(said, sizeof said, "node %.20s has no --import (18.18, 20.6)", version);
        }
    }
    bool ok = answer;
    snprintf(why, why_size, "%s", said);
    pthread_mutex_unlock(&lock);
    return ok;
}

/* The clock for node --test, jest or vitest (what command() made, its reporter
 * there): node --test's in its node options, on the command line or,
 * through a script, in the NODE_OPTIONS that command() set; jest's and vitest's in
 * NODE_OPTIONS, which reaches the runner's process and its workers however
 * it is started (its bin, npx, a script). */
static bool js_clock(struct strv *out, struct strv *notes, enum js_kind want)
{
    /* each runner's clock, and where its results still come from */
    static const struct {
        const char *name, *code, *results;
    } clocks[] = {
        [JS_NODE] = { "node --test", node_clock_code, "node's TAP" },
        [JS_JEST] = { "jest", jest_clock_code, "jest's JSON" },
        [JS_VITEST] = { "vitest", vitest_clock_code, "vitest's JSON" },
    };
    bool env = out->n > 2 && !strcmp(out->v[0], "env") && starts(out->v[1], "NODE_OPTIONS=");
    struct js_inv inv;
    char why[256];
    const char *name = clocks[want].name;
    if (!js_classify(out->v + (env ? 2 : 0), &inv, why, sizeof why) || inv.kind != want) {
        js_inv_free(&inv);
        return false;
    }
    /* jest's and vitest's bins start with #!/usr/bin/env node: the node in PATH */
    const char *prog = want != JS_NODE ? "node" : inv.pm ? inv.words.v[inv.prog] : out->v[(env ? 2 : 0) + inv.at];
    if (!node_has_import(prog, why, sizeof why)) {
        strv_push(notes, xasprintf("sbx adds no clock to %s here (%s): each test's denials are found by "
                                   "re-runs", name, why));
        js_inv_free(&inv);
        return false;
    }
    char *arg = clock_arg(clocks[want].code);
    /* node --test typed directly: among node's own options, which node
     * hands to each file's process; everywhere else in NODE_OPTIONS */
    bool in_argv = !env && !inv.pm && want == JS_NODE;
    struct strv nv = { 0 };
    if (env) {
        push_range(&nv, out->v, 0, (int)out->n);
        free(nv.v[1]);
        nv.v[1] = xasprintf("%s %s", out->v[1], arg);
    } else if (!in_argv) {
        node_options(out->v, arg, &nv);
    } else {
        size_t at = (size_t)inv.at + 1;
        push_range(&nv, out->v, 0, (int)at);
        push(&nv, arg);
        push_range(&nv, out->v, (int)at, (int)out->n);
    }
    free(arg);
    js_inv_free(&inv);
    strv_push(notes, xasprintf("added sbx's clock to %s (" NODE_CLOCK_IMPORT "..., %s): each process that "
                               "runs a test file writes when each of its tests ran to descriptor "
                               JS_STR(RUNNER_REPORT_FD) ", which places each denial in its test; the "
                               "results are still %s", name, in_argv ? "in node's options" : "in NODE_OPTIONS",
                               clocks[want].results));
    strv_free(out);
    *out = nv;
    return true;
}

static bool node_clock(struct strv *out, struct strv *notes)
{
    return js_clock(out, notes, JS_NODE);
}

static bool jest_clock(struct strv *out, struct strv *notes)
{
    return js_clock(out, notes, JS_JEST);
}

static bool vitest_clock(struct strv *out, struct strv *notes)
{
    return js_clock(out, notes, JS_VITEST);
}

static bool js_carries_clock(char *const argv[])
{
    for (size_t i = 0; argv[i]; i++)
        if (strstr(argv[i], NODE_CLOCK_IMPORT))
            return true;
    return false;
}

static char **js_keyed(char *const argv[], const char *key)
{
    struct strv nv = { 0 };
    push_range(&nv, argv, 0, (int)argv_len(argv));
    for (size_t i = 0; i < nv.n; i++) {
        char *at = strstr(nv.v[i], NODE_CLOCK_IMPORT);
        at = at ? strstr(at, NODE_CLOCK_KEY) : NULL;
        if (at && strlen(at + NODE_CLOCK_KEY_LEN) >= RUNNER_KEY_LEN)
            memcpy(at + NODE_CLOCK_KEY_LEN, key, RUNNER_KEY_LEN);
    }
    return nv.v;
}

static const struct runner_ops node_ops = {
    .anchor = node_anchor,
    .command = js_command,
    .line = tap_line,
    .rerun = js_rerun,
    .baseline = js_baseline,
    .add_reporter = node_clock,
    .carries_reporter = js_carries_clock,
    .keyed = js_keyed,
};

/* jest and vitest: the same report, the same operations, a clock each */
#define JEST_REPORT_OPS(anchor_of)                                                                 \
    .anchor = anchor_of, .command = js_command, .line = jest_line, .finish = jest_finish,          \
    .rerun = js_rerun, .baseline = js_baseline, .state_new = js_state_new,                         \
    .state_free = js_state_free, .max_line = JS_DOC_MAX
static const struct runner_ops jest_ops = {
    JEST_REPORT_OPS(jest_anchor),
    .add_reporter = jest_clock,
    .carries_reporter = js_carries_clock,
    .keyed = js_keyed,
};
static const struct runner_ops vitest_ops = {
    JEST_REPORT_OPS(vitest_anchor),
    .add_reporter = vitest_clock,
    .carries_reporter = js_carries_clock,
    .keyed = js_keyed,
};

static const struct runner_ops mocha_ops = {
    .anchor = mocha_anchor,
    .command = js_command,
    .line = mocha_line,
    .finish = mocha_finish,
    .rerun = js_rerun,
    .baseline = js_baseline,
    .add_reporter = mocha_reporter,
    .carries_reporter = mocha_carries_reporter,
    .greeting = mocha_greeting,
    .state_new = js_state_new,
    .state_free = js_state_free,
};

const struct runner runner_node = { RUNNER_NODE, "node", "node --test", RUNNER_ATTRIBUTE_REPORTED, &node_ops };
const struct runner runner_jest = { RUNNER_JEST, "jest", "jest", RUNNER_ATTRIBUTE_REPORTED, &jest_ops };
const struct runner runner_vitest = { RUNNER_VITEST, "vitest", "vitest", RUNNER_ATTRIBUTE_REPORTED, &vitest_ops };
const struct runner runner_mocha = { RUNNER_MOCHA, "mocha", "mocha", RUNNER_ATTRIBUTE_REPORTED, &mocha_ops };
