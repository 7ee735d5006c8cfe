/* TAP: a command that prints TAP itself (--runner tap), prove -v, and
 * automake's make check; runner_impl.h's operations. node --test, mocha
 * and vitest print TAP too and use tap_line().
 *
 * prove is given -v: it prints each test's line only when verbose. make
 * check is given AM_COLOR_TESTS=no. automake's harness prints one line
 * per result on the console ("PASS: t.sh", for TAP tests "FAIL: t.sh 2 -
 * description"), for the serial and the parallel harness alike (the
 * Automake manual, "Scripts-based Testsuites"), so the console is read
 * rather than the .trs files afterwards: those need reading files the
 * sandbox wrote (not pure, and `make distcheck`-style trees remove them),
 * and VERBOSE=1 only adds the logs of failed tests.
 *
 * The channel: a TAP script's stdout is its TAP, so a script can print
 * any result it likes; prove and automake re-run a script, not one test,
 * so a test's denials are its script's (RUNNER_ATTRIBUTE_UNIT): found by
 * the command line of the process that made each (audit_attrib.h's
 * audit_place_events_by_argv), else by re-running the scripts. */
#include "config.h"

#include "runner_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TAP's escapes in names: "\#" is '#', "\\" is '\'. */
static char *tap_unescape(const char *s, size_t len)
{
    char *out = xmalloc(len + 1), *o = out;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' && i + 1 < len && (s[i + 1] == '#' || s[i + 1] == '\\'))
            i++;
        *o++ = s[i];
    }
    *o = '\0';
    return out;
}

static void tap_clear_stack(struct runner_parser *p, size_t from)
{
    for (size_t i = from; i < TAP_MAX_DEPTH; i++) {
        free(p->tap_stack[i]);
        p->tap_stack[i] = NULL;
    }
}

/* A script that planned more tests than it ran (bailed out, died): the
 * tests it did not run have no names, so the script is the result. */
void tap_script_end(struct runner_parser *p)
{
    if (p->unit && p->tap_plan > 0 && (long long)p->tap_count < p->tap_plan)
        test_kind(p, test_result(p, p->unit, p->unit, TEST_ERRORED), RUNNER_TEST_FIXTURE);
}

static void tap_script_start(struct runner_parser *p, char *name)
{
    tap_script_end(p);
    free(p->unit);
    p->unit = xstrdup(name);
    tap_clear_stack(p, 0);
    p->tap_count = 0;
    p->tap_plan = -1;
    p->tap_done = false;
    p->last_result = SIZE_MAX;
    p->yaml_indent = SIZE_MAX;
}

/* "t/basic.t .. " (prove's header of a script's output; the dots pad
 * the names to one column) */
static bool prove_header(char *line)
{
    size_t n = strlen(line);
    if (!n || line[n - 1] != ' ')
        return false;
    size_t end = n - 1, dots = 0;
    while (end > 0 && line[end - 1] == '.')
        end--, dots++;
    if (dots < 2 || end < 2 || line[end - 1] != ' ')
        return false;
    line[end - 1] = '\0';
    return true;
}

/* "ok 3 - name # SKIP why": its status and its name (without the number,
 * "- " and directive; "#3" when it has none). */
bool tap_result(char *s, size_t count, enum test_status *st, char **name)
{
    bool pass;
    if (starts(s, "ok"))
        pass = true, s += 2;
    else if (starts(s, "not ok"))
        pass = false, s += 6;
    else
        return false;
    if (*s && *s != ' ' && *s != '\t')
        return false;
    s = skip_spaces(s);
    char number[24] = "";
    size_t digits = strspn(s, "0123456789");
    if (digits && digits < sizeof number && (s[digits] == '\0' || s[digits] == ' ')) {
        memcpy(number, s, digits);
        number[digits] = '\0';
        s = skip_spaces(s + digits);
    } else {
        snprintf(number, sizeof number, "%zu", count);
    }
    if (s[0] == '-' && (s[1] == ' ' || s[1] == '\0'))
        s = skip_spaces(s + 1);
    /* the directive: an unescaped '#' followed by SKIP or TODO */
    size_t len = strlen(s);
    enum { NONE, SKIP, TODO } directive = NONE;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '#' || (i > 0 && s[i - 1] == '\\'))
            continue;
        const char *d = skip_spaces(s + i + 1);
        if (!strncasecmp(d, "skip", 4))
            directive = SKIP;
        else if (!strncasecmp(d, "todo", 4))
            directive = TODO;
        else
            continue;
        len = i;
        break;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    *name = len ? tap_unescape(s, len) : xasprintf("#%s", number);
    if (directive == SKIP)
        *st = TEST_SKIPPED;
    else if (directive == TODO)
        *st = pass ? TEST_PASSED : TEST_SKIPPED;
    else
        *st = pass ? TEST_PASSED : TEST_FAILED;
    return true;
}

void tap_line(struct runner_parser *p, char *line)
{
    size_t indent = strspn(line, " ");
    size_t level = indent / 4;
    char *s = line + indent;
    enum test_status st;
    char *name;
    /* prove's closing "Files=4, Tests=10, 0 wallclock secs": a total
     * without its breakdown */
    if (p->r->kind == RUNNER_PROVE && starts(line, "Files=") && strstr(line, ", Tests=")) {
        uint64_t v = 0;
        const char *t = strstr(line, ", Tests=") + 8;
        for (; *t >= '0' && *t <= '9'; t++)
            v = v < UINT64_MAX / 16 ? v * 10 + (uint64_t)(*t - '0') : v;
        runner_count(p, 0, 0, 0, v);
        return;
    }
    if (p->r->kind == RUNNER_PROVE && indent == 0 && prove_header(line)) {
        tap_script_start(p, line);
        return;
    }
    if (p->tap_done)
        return;
    /* a result's YAML block holds the test's error text, which may hold
     * anything, TAP lines too: only node's failureType is read there */
    if (p->yaml_indent != SIZE_MAX) {
        if (indent == p->yaml_indent && !strcmp(s, "..."))
            p->yaml_indent = SIZE_MAX;
        else if (p->r->kind == RUNNER_NODE && starts(s, "duration_ms: ") && p->last_result != SIZE_MAX)
            test_duration(p, p->last_result, runner_decimal_us(s + 13, 1000));
        else if (p->r->kind == RUNNER_NODE && starts(s, "failureType: ") && p->last_result != SIZE_MAX) {
            if (strstr(s, "testTimeoutFailure"))
                result_at(p, p->last_result, TEST_TIMED_OUT);
            else if (strstr(s, "cancelledByParent") || strstr(s, "hookFailure"))
                result_at(p, p->last_result, TEST_ERRORED);
        } else if (p->r->kind == RUNNER_NODE && p->yaml_indent == 2 && indent == 2 &&
                   p->last_result != SIZE_MAX &&
                   ((starts(s, "exitCode: ") && s[10] >= '0' && s[10] <= '9') ||
                    (starts(s, "signal: ") && s[8] == '\''))) {
            /* node --test runs each file in a process of its own; when
             * that process dies (process.exit, a crash), its tests'
             * results are lost and one top-level result named after the
             * file stands for them, with the process's exitCode or
             * signal among its keys (an error's text is indented deeper,
             * so a test cannot write this key). The row is the file's,
             * not a test: its tests have no result and are re-run. */
            result_at(p, p->last_result, TEST_ERRORED);
            test_kind(p, p->last_result, RUNNER_TEST_FIXTURE);
        }
        return;
    }
    if (!strcmp(s, "---") && p->last_result != SIZE_MAX) {
        p->yaml_indent = indent;
        return;
    }
    if (level >= TAP_MAX_DEPTH)
        return;
    if (starts(s, "# Subtest: ") || starts(s, "# Subtest:")) {
        const char *n = skip_spaces(s + 10);
        trim_right(s);
        tap_clear_stack(p, level);
        p->tap_stack[level] = tap_unescape(n, strlen(n));
        return;
    }
    if (tap_result(s, level == 0 ? p->tap_count + 1 : 0, &st, &name)) {
        /* the path: the enclosing subtests' names, then this one */
        size_t len = strlen(name) + 1 + (p->unit ? strlen(p->unit) + 2 : 0);
        for (size_t i = 0; i < level; i++)
            len += (p->tap_stack[i] ? strlen(p->tap_stack[i]) : 1) + 3;
        char *id = xmalloc(len), *o = id;
        if (p->unit)
            o += sprintf(o, "%s: ", p->unit);
        for (size_t i = 0; i < level; i++)
            o += sprintf(o, "%s > ", p->tap_stack[i] ? p->tap_stack[i] : "?");
        strcpy(o, name);
        p->last_result = test_result(p, p->unit, id, st);
        if (level > 0 && o - id >= 3) {
            /* a subtest: its parent is the path without its own name */
            char *parent = xstrndup(id, (size_t)(o - id) - 3);
            test_parent(p, p->last_result, parent);
            free(parent);
        }
        free(id);
        free(name);
        tap_clear_stack(p, level);
        if (level == 0) {
            p->tap_count++;
            if (p->r->kind == RUNNER_PROVE && p->tap_plan >= 0 && (long long)p->tap_count >= p->tap_plan)
                p->tap_done = true;
        }
        return;
    }
    if (level == 0 && starts(s, "1..")) {
        uint64_t plan = 0;
        char digits[24];
        size_t nd = strspn(s + 3, "0123456789");
        if (nd && nd < sizeof digits) {
            memcpy(digits, s + 3, nd);
            digits[nd] = '\0';
            parse_u64(digits, &plan);
        }
        if (p->tap_count > 0 || plan == 0) {
            /* a plan at the end, or "1..0 # SKIP": the script is done */
            if (plan == 0 && p->tap_count == 0 && p->unit)
                test_result(p, p->unit, p->unit, TEST_SKIPPED);
            if (p->r->kind == RUNNER_PROVE)
                p->tap_done = true;
        } else {
            p->tap_plan = (long long)plan;
        }
        return;
    }
    /* node's closing counts: "# tests 5", "# pass 3", "# fail 1",
     * "# skipped 1", "# todo 0", "# cancelled 0" (top level only) */
    if (level == 0 && indent == 0 && p->r->kind == RUNNER_NODE && starts(s, "# ")) {
        static const char *const words[] = { "# pass ", "# fail ", "# skipped ", "# todo ", "# cancelled " };
        for (size_t w = 0; w < 5; w++) {
            uint64_t v;
            if (starts(s, words[w]) && parse_u64(s + strlen(words[w]), &v)) {
                runner_count(p, w == 0 ? v : 0, w == 1 || w == 4 ? v : 0, w == 2 || w == 3 ? v : 0, 0);
                return;
            }
        }
    }
    if (level == 0 && starts(s, "Bail out!")) {
        if (p->r->kind == RUNNER_PROVE)
            p->tap_done = true;
        return;
    }
}

static void automake_line(struct runner_parser *p, char *line)
{
    /* the harness's own counts: "# TOTAL: 5", "# PASS:  3", ... */
    if (starts(line, "# ") && strchr(line, ':')) {
        static const char *const words[] = { "# PASS:", "# FAIL:", "# SKIP:", "# XFAIL:", "# XPASS:", "# ERROR:" };
        for (size_t w = 0; w < 6; w++) {
            uint64_t v;
            if (starts(line, words[w]) && parse_u64(skip_spaces(line + strlen(words[w])), &v)) {
                runner_count(p, w == 0 ? v : 0, w == 1 || w == 4 || w == 5 ? v : 0, w == 2 || w == 3 ? v : 0, 0);
                return;
            }
        }
    }
    static const struct { const char *w; enum test_status st; } words[] = {
        { "PASS: ", TEST_PASSED }, { "FAIL: ", TEST_FAILED }, { "XFAIL: ", TEST_SKIPPED },
        { "XPASS: ", TEST_FAILED }, { "SKIP: ", TEST_SKIPPED }, { "ERROR: ", TEST_ERRORED },
    };
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        if (!starts(line, words[w].w))
            continue;
        char *script = line + strlen(words[w].w);
        char *sp = strchr(script, ' ');
        if (sp)
            *sp = '\0';
        if (!*script)
            return;
        char *rest = sp ? sp + 1 : NULL;
        if (!rest || !(*rest >= '0' && *rest <= '9')) {
            /* a plain test, or a TAP script's own error ("- too few tests run") */
            test_result(p, script, script, words[w].st);
            return;
        }
        /* a TAP result: "SCRIPT N - description # SKIP why" */
        char *tap = xasprintf("ok %s", rest);
        enum test_status ignored;
        char *name;
        if (tap_result(tap, 0, &ignored, &name)) {
            char *id = xasprintf("%s: %s", script, name);
            test_result(p, script, id, words[w].st);
            free(id);
            free(name);
        }
        free(tap);
        return;
    }
}

/* ---- prove ---- */

/* The scripts of tests[0..n), each once; false when one has none. */
static bool push_units(const struct runner_test *const tests[], size_t n, struct strv *out)
{
    size_t from = out->n;
    for (size_t i = 0; i < n; i++) {
        if (!tests[i]->unit)
            return false;
        bool seen = false;
        for (size_t k = from; k < out->n && !seen; k++)
            seen = !strcmp(out->v[k], tests[i]->unit);
        if (!seen)
            push(out, tests[i]->unit);
    }
    return true;
}

static int prove_anchor(char *const argv[], char *why, size_t why_size)
{
    (void)why;
    (void)why_size;
    return strcmp(base_name(argv[0]), "prove") ? -1 : 0;
}

/* prove's short options that take a value (bundled -lv has none). */
static bool prove_short_takes_value(char c)
{
    return c == 'I' || c == 'P' || c == 'M' || c == 'e' || c == 'j' || c == 'a';
}

static bool cmd_prove(char *const argv[], int at, struct strv *out, struct strv *notes, char *err,
                      size_t err_size)
{
    (void)at;
    (void)err;
    (void)err_size;
    bool verbose = false;
    for (int i = 1; argv[i]; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--"))
            break;
        if (!strcmp(a, "--verbose"))
            verbose = true;
        else if (a[0] == '-' && a[1] != '-' && a[1] && !prove_short_takes_value(a[1]) && strchr(a, 'v'))
            verbose = true;
    }
    push(out, argv[0]);
    if (!verbose) {
        push(out, "-v");
        note_add(notes, "added -v: prove prints each test's result only when verbose");
    }
    push_range(out, argv, 1, (int)argv_len(argv));
    return true;
}

static const char *const prove_value_options[] = {
    "-I", "-P", "-M", "-e", "-j", "-a", "--exec", "--jobs", "--ext", "--state", "--formatter",
    "--harness", "--rules", "--source", "--archive", "--trap", NULL,
};

/* TAP cannot run one test of a script: the scripts of the tests are
 * re-run, each once, the user's options kept. */
static bool prove_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                        struct strv *out)
{
    (void)a;
    push(out, argv[0]);
    for (int i = 1; argv[i]; i++) {
        if (!strcmp(argv[i], "--") || !strcmp(argv[i], "::"))
            break;
        if (argv[i][0] != '-')
            continue;
        push(out, argv[i]);
        if (takes_value(prove_value_options, argv[i]) && argv[i + 1])
            push(out, argv[++i]);
    }
    return push_units(tests, count, out);
}

/* ---- make check ---- */

static int automake_anchor(char *const argv[], char *why, size_t why_size)
{
    const char *prog = base_name(argv[0]);
    if (strcmp(prog, "make") && strcmp(prog, "gmake"))
        return -1;
    for (int i = 1; argv[i]; i++) {
        const char *a = argv[i];
        if (a[0] == '-') {
            /* make's options that take a separate value */
            if ((!strcmp(a, "-C") || !strcmp(a, "-f") || !strcmp(a, "-I") || !strcmp(a, "-o") ||
                 !strcmp(a, "-W")) && argv[i + 1])
                i++;
            continue;
        }
        if (!strcmp(a, "check"))
            return i;
    }
    snprintf(why, why_size, "make runs no `check` target");
    return -1;
}

static bool cmd_automake(char *const argv[], int at, struct strv *out, struct strv *notes, char *err,
                         size_t err_size)
{
    (void)at;
    (void)err;
    (void)err_size;
    push_range(out, argv, 0, (int)argv_len(argv));
    if (!has_prefix_arg(argv, 1, (int)argv_len(argv), "AM_COLOR_TESTS=")) {
        push(out, "AM_COLOR_TESTS=no");
        note_add(notes, "added AM_COLOR_TESTS=no: automake colours its per-test lines on a terminal");
    }
    return true;
}

static bool automake_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                           struct strv *out)
{
    int n = (int)argv_len(argv);
    (void)a;
    for (int i = 0; i < n; i++)
        if (strncmp(argv[i], "TESTS=", 6))
            push(out, argv[i]);
    struct strv units = {0};
    if (!push_units(tests, count, &units))
        return false;
    size_t len = 7;
    for (size_t i = 0; i < units.n; i++)
        len += strlen(units.v[i]) + 1;
    char *v = xmalloc(len), *o = stpcpy(v, "TESTS=");
    for (size_t i = 0; i < units.n; i++) {
        if (i)
            *o++ = ' ';
        o = stpcpy(o, units.v[i]);
    }
    strv_free(&units);
    strv_push(out, v);
    return true;
}

/* ---- a command's own TAP ---- */

static int tap_anchor(char *const argv[], char *why, size_t why_size)
{
    (void)argv;
    (void)why;
    (void)why_size;
    return 0;
}

static bool tap_command(char *const argv[], int at, struct strv *out, struct strv *notes, char *err,
                        size_t err_size)
{
    (void)at;
    (void)notes;
    (void)err;
    (void)err_size;
    push_range(out, argv, 0, (int)argv_len(argv));
    return true;
}

static const struct runner_ops prove_ops = {
    .anchor = prove_anchor,
    .command = cmd_prove,
    .line = tap_line,
    .finish = tap_script_end,
    .rerun = prove_rerun,
};

static const struct runner_ops automake_ops = {
    .anchor = automake_anchor,
    .command = cmd_automake,
    .line = automake_line,
    .rerun = automake_rerun,
};

/* not detected (any command could print TAP): only --runner tap */
static const struct runner_ops tap_ops = {
    .anchor = tap_anchor,
    .command = tap_command,
    .line = tap_line,
};

const struct runner runner_prove = { RUNNER_PROVE, "prove", "prove", RUNNER_ATTRIBUTE_UNIT, &prove_ops };
const struct runner runner_automake = { RUNNER_AUTOMAKE, "automake", "make check", RUNNER_ATTRIBUTE_UNIT,
                                        &automake_ops };
const struct runner runner_tap = { RUNNER_TAP, "tap", "a command that prints TAP", RUNNER_ATTRIBUTE_ALONE,
                                   &tap_ops };
