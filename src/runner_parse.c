/* The parsers of runner.h: from a runner's output bytes to its tests and
 * their results, fed in chunks. Pure. The bytes are untrusted (every test
 * prints what it likes, hostile ones too): lines are cut at
 * RUNNER_MAX_LINE, tests beyond RUNNER_MAX_TESTS are dropped, and a line
 * that matches no form of the runner is ignored. A test can still forge a
 * result line of its own runner where the runner prints its output
 * unframed (libtest --nocapture, unittest, go 1.19's test2json, which
 * turns a printed "--- PASS: X" into an event); the parsers narrow that
 * where the runner gives something to hold on to (a go result counts only
 * for a test whose "run" event was seen; cargo ignores "test" lines in
 * its failures section, where captured output is printed). */
#include "config.h"

#include "runner.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define TAP_MAX_DEPTH 64
#define GO_MAX_PACKAGES 65536

struct entry {
    bool running;     /* started and not finished */
    bool has_result;
    size_t package;   /* go: index into packages, else SIZE_MAX */
};

struct go_package {
    char *name;
    bool timed_out;   /* "panic: test timed out after" was printed */
    bool bad;         /* a test of it failed, errored or timed out */
    size_t *started;  /* tests of it that ran, for its end */
    size_t nstarted, cap;
};

struct table {
    size_t *slots;    /* index + 1; 0 is empty */
    size_t nslots;
};

struct runner_parser {
    const struct runner *r;
    char *line;
    size_t len, cap;
    bool overlong;
    bool finished;
    bool truncated;
    uint64_t fed;          /* bytes fed so far: the position in the output */
    uint64_t line_end;     /* the position after the line being parsed */
    uint64_t line_start;   /* and of its first byte */
    uint64_t next_line_start; /* where the line being fed began */
    bool line_exact;       /* its bytes are those of the output, none cut
                            * or cleaned: offsets in it are positions */

    struct runner_counts counts; /* the runner's own summaries */
    struct runner_test *tests;
    struct entry *entries;
    size_t n, cap_tests;
    struct table by_key;

    char *unit;            /* cargo: the target; prove: the script */
    size_t pending;        /* cargo, unittest: the test whose result is awaited */
    bool cargo_failures;   /* inside libtest's "failures:" section */
    bool cargo_summary;    /* the current binary printed "test result:" */
    char *doc_id;          /* unittest: a description line awaiting its docstring line */
    bool pytest_summary;   /* after pytest's "short test summary info" */

    char *tap_stack[TAP_MAX_DEPTH];
    size_t tap_count;      /* top-level results of the current script */
    long long tap_plan;    /* -1 until a plan at the start */
    bool tap_done;         /* prove: the script's TAP has ended */
    size_t last_result;    /* node: the result its YAML block follows */
    size_t yaml_indent;    /* inside a YAML block ("---" to "...") at this indent */

    struct go_package *packages;
    size_t npackages, cap_packages;
    struct table by_package;
};

/* ---- the table of tests ---- */

static uint64_t hash_bytes(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static uint64_t key_hash(const char *unit, const char *id)
{
    return hash_bytes(hash_bytes(14695981039346656037ull, unit) * 31 + (unit ? 1 : 0), id);
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static void table_grow(struct table *t, size_t count, uint64_t (*hash_of)(void *, size_t), void *ctx)
{
    if (count * 2 < t->nslots)
        return;
    size_t nslots = t->nslots ? t->nslots * 2 : 64;
    size_t *slots = xcalloc(nslots, sizeof *slots);
    for (size_t i = 0; i < t->nslots; i++) {
        if (!t->slots[i])
            continue;
        size_t at = hash_of(ctx, t->slots[i] - 1) & (nslots - 1);
        while (slots[at])
            at = (at + 1) & (nslots - 1);
        slots[at] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
}

static uint64_t test_hash(void *ctx, size_t i)
{
    struct runner_parser *p = ctx;
    return key_hash(p->tests[i].unit, p->tests[i].id);
}

static uint64_t package_hash(void *ctx, size_t i)
{
    struct runner_parser *p = ctx;
    return hash_bytes(14695981039346656037ull, p->packages[i].name);
}

static int severity(enum test_status s)
{
    switch (s) {
    case TEST_RUNNING: return 0;
    case TEST_PASSED: return 1;
    case TEST_SKIPPED: return 2;
    case TEST_FAILED: return 3;
    case TEST_ERRORED: return 4;
    case TEST_TIMED_OUT: return 5;
    }
    return 0;
}

/* The test (unit, id), added when new; SIZE_MAX when the table is full. */
static size_t find_test(struct runner_parser *p, const char *unit, const char *id, bool add)
{
    if (p->by_key.nslots) {
        size_t at = key_hash(unit, id) & (p->by_key.nslots - 1);
        while (p->by_key.slots[at]) {
            size_t i = p->by_key.slots[at] - 1;
            if (same(p->tests[i].unit, unit) && !strcmp(p->tests[i].id, id))
                return i;
            at = (at + 1) & (p->by_key.nslots - 1);
        }
    }
    if (!add)
        return SIZE_MAX;
    if (p->n >= RUNNER_MAX_TESTS) {
        p->truncated = true;
        return SIZE_MAX;
    }
    size_t cap = p->cap_tests;
    xgrow((void **)&p->tests, &cap, p->n + 1, sizeof *p->tests);
    xgrow((void **)&p->entries, &p->cap_tests, p->n + 1, sizeof *p->entries);
    size_t i = p->n++;
    p->tests[i] = (struct runner_test){ .id = xstrdup(id), .unit = unit ? xstrdup(unit) : NULL,
                                        .status = TEST_RUNNING };
    p->entries[i] = (struct entry){ false, false, SIZE_MAX };
    table_grow(&p->by_key, p->n, test_hash, p);
    size_t at = key_hash(unit, id) & (p->by_key.nslots - 1);
    while (p->by_key.slots[at])
        at = (at + 1) & (p->by_key.nslots - 1);
    p->by_key.slots[at] = i + 1;
    return i;
}

static size_t test_started(struct runner_parser *p, const char *unit, const char *id)
{
    size_t i = find_test(p, unit, id, true);
    if (i != SIZE_MAX) {
        p->entries[i].running = true;
        if (!p->entries[i].has_result)
            p->tests[i].status = TEST_RUNNING;
    }
    return i;
}

static void result_at(struct runner_parser *p, size_t i, enum test_status s)
{
    if (i == SIZE_MAX)
        return;
    struct entry *e = &p->entries[i];
    e->running = false;
    if (!e->has_result || severity(s) > severity(p->tests[i].status))
        p->tests[i].status = s;
    /* the first result says when it ended; a later one (a summary) says
     * nothing of when */
    if (!e->has_result)
        p->tests[i].reported_pos = p->line_end;
    e->has_result = true;
    if (e->package != SIZE_MAX && severity(s) >= severity(TEST_FAILED))
        p->packages[e->package].bad = true;
}

/* Test i's start was announced by the bytes of the current line up to
 * `end` (a pointer into it): where they end, exactly, or nothing. */
static void announced_at(struct runner_parser *p, size_t i, const char *line, const char *end)
{
    if (i != SIZE_MAX && p->line_exact && !p->tests[i].announced_pos)
        p->tests[i].announced_pos = p->line_start + (uint64_t)(end - line);
}

static size_t test_result(struct runner_parser *p, const char *unit, const char *id, enum test_status s)
{
    size_t i = find_test(p, unit, id, true);
    result_at(p, i, s);
    return i;
}

/* ---- small string helpers over one line (NUL-terminated) ---- */

static bool starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

static char *skip_spaces(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static void trim_right(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
}

static bool ends(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && !memcmp(s + len - n, suffix, n);
}

/* The last occurrence of needle in s, or NULL. */
static char *rfind(char *s, const char *needle)
{
    char *last = NULL;
    for (char *at = strstr(s, needle); at; at = strstr(at + 1, needle))
        last = at;
    return last;
}

/* ---- cargo test (libtest's pretty format) ---- */

/* "unittests src/lib.rs (target/debug/deps/x-0123)" or "tests/net.rs (..)":
 * the option that selects that target. */
static char *cargo_target(const char *what)
{
    const char *src = starts(what, "unittests ") ? what + 10 : what;
    const char *end = strstr(src, " (");
    size_t len = end ? (size_t)(end - src) : strlen(src);
    char *path = xstrndup(src, len);
    char *unit = NULL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t blen = strlen(base);
    char *stem = xstrndup(base, blen > 3 && ends(base, blen, ".rs") ? blen - 3 : blen);
    /* the binary, "target/debug/deps/CRATE-HASH": a library's is named by
     * its crate, which tells two packages' same-named tests apart in a
     * workspace (cargo test --workspace runs both "tests::it") */
    char *crate = NULL;
    if (end && end[2]) {
        const char *bin = strrchr(end + 2, '/');
        bin = bin ? bin + 1 : end + 2;
        const char *dash = strrchr(bin, '-');
        if (dash && dash > bin && strspn(bin, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                                      (size_t)(dash - bin))
            crate = xstrndup(bin, (size_t)(dash - bin));
    }
    if (ends(path, len, "src/lib.rs"))
        unit = crate ? xasprintf("-p %s --lib", crate) : xstrdup("--lib");
    else if (ends(path, len, "src/main.rs") && !strstr(path, "/bin/"))
        unit = xstrdup("--bins");
    else if (strstr(path, "src/bin/"))
        unit = !strcmp(stem, "main") ? NULL : xasprintf("--bin %s", stem);
    else if (starts(path, "tests/") || strstr(path, "/tests/"))
        unit = xasprintf("--test %s", stem);
    else if (starts(path, "benches/") || strstr(path, "/benches/"))
        unit = xasprintf("--bench %s", stem);
    else if (starts(path, "examples/") || strstr(path, "/examples/"))
        unit = xasprintf("--example %s", stem);
    free(crate);
    free(stem);
    free(path);
    return unit;
}

static bool cargo_status(const char *s, enum test_status *out)
{
    if (!strcmp(s, "ok"))
        *out = TEST_PASSED;
    else if (!strcmp(s, "FAILED"))
        *out = TEST_FAILED;
    else if (!strcmp(s, "ignored") || starts(s, "ignored, "))
        *out = TEST_SKIPPED;
    else if (starts(s, "bench:"))
        *out = TEST_PASSED;
    else
        return false;
    return true;
}

static void cargo_line(struct runner_parser *p, char *line)
{
    char *s = skip_spaces(line);
    enum test_status st;
    if (starts(s, "Running ") || starts(s, "Doc-tests ")) {
        free(p->unit);
        /* "Doc-tests CRATE" */
        const char *crate = skip_spaces(s + 10);
        p->unit = s[0] == 'R' ? cargo_target(s + 8)
                : *crate && !strchr(crate, ' ') ? xasprintf("-p %s --doc", crate) : xstrdup("--doc");
        p->cargo_failures = p->cargo_summary = false;
        p->pending = SIZE_MAX;
        return;
    }
    if (starts(line, "running ") || starts(line, "test result: ")) {
        p->cargo_failures = false;
        p->cargo_summary |= line[5] == 'r';
        return;
    }
    /* cargo: "process didn't exit successfully: `...` (signal: 6, SIGABRT)"
     * before the binary's summary: it died (a test aborted, overflowed its
     * stack), and the tests running then have no line. The binary is the
     * result, named by its target option. */
    if (starts(line, "Caused by:") || strstr(line, "process didn't exit successfully: ")) {
        if (!p->cargo_summary && p->unit && strstr(line, "process didn't"))
            test_result(p, p->unit, p->unit, TEST_ERRORED);
        return;
    }
    if (!strcmp(line, "failures:")) {
        p->cargo_failures = true;
        return;
    }
    if (p->cargo_failures)
        return;
    if (starts(line, "test ")) {
        char *name = line + 5;
        char *dots = rfind(name, " ... ");
        if (!dots) {
            char *slow = strstr(name, " has been running for over ");
            if (slow && slow > name) {
                *slow = '\0';
                test_started(p, p->unit, name);
            }
            return;
        }
        *dots = '\0';
        char *result = dots + 5;
        /* libtest appends how a test is judged to its name */
        static const char *const how[] = { " - should panic", " - compile fail", " - compile" };
        size_t len = strlen(name);
        for (size_t i = 0; i < 3; i++)
            if (ends(name, len, how[i])) {
                name[len - strlen(how[i])] = '\0';
                break;
            }
        if (!*name)
            return;
        trim_right(result);
        if (cargo_status(result, &st)) {
            test_result(p, p->unit, name, st);
            p->pending = SIZE_MAX;
        } else {
            /* --test-threads=1 --nocapture: the name, then the test's own
             * output, then the result on a line of its own */
            p->pending = test_started(p, p->unit, name);
        }
        return;
    }
    if (p->pending != SIZE_MAX && cargo_status(line, &st)) {
        result_at(p, p->pending, st);
        p->pending = SIZE_MAX;
    }
}

/* ---- python -m unittest -v ---- */

/* "name (module.Class.name)" (python >= 3.11) or "name (module.Class)":
 * the test's id, *rest set after the closing parenthesis (a subtest's
 * "(i=1)" or " [msg]"). Class and module fixtures are named by what they
 * set up: "setUpClass (module.Class)" is module.Class.setUpClass. */
static char *unittest_desc(const char *s, const char **rest)
{
    const char *sp = strchr(s, ' ');
    if (!sp || sp == s || sp[1] != '(')
        return NULL;
    const char *inside = sp + 2, *close = strchr(inside, ')');
    if (!close || close == inside)
        return NULL;
    /* what unittest prints inside is a dotted Python name (module.Class
     * or module.Class.method): anything else ("FAILED (failures=1)", the
     * run's last line) is not a test */
    for (const char *c = inside; c < close; c++)
        if (!(*c == '.' || *c == '_' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
              (*c >= 'A' && *c <= 'Z') || (unsigned char)*c >= 0x80))
            return NULL;
    size_t name_len = (size_t)(sp - s), in_len = (size_t)(close - inside);
    *rest = close + 1;
    if (in_len > name_len + 1 && inside[in_len - name_len - 1] == '.' &&
        !memcmp(inside + in_len - name_len, s, name_len))
        return xstrndup(inside, in_len);
    return xasprintf("%.*s.%.*s", (int)in_len, inside, (int)name_len, s);
}

static bool unittest_status(const char *s, enum test_status *out)
{
    if (!strcmp(s, "ok"))
        *out = TEST_PASSED;
    else if (!strcmp(s, "FAIL") || !strcmp(s, "unexpected success"))
        *out = TEST_FAILED;
    else if (!strcmp(s, "ERROR"))
        *out = TEST_ERRORED;
    else if (!strcmp(s, "expected failure") || !strcmp(s, "skipped") || starts(s, "skipped "))
        *out = TEST_SKIPPED;
    else
        return false;
    return true;
}

static void unittest_line(struct runner_parser *p, char *line)
{
    char *s = skip_spaces(line);
    const char *rest = "";
    enum test_status st;
    char *doc = p->doc_id;
    p->doc_id = NULL;
    /* the report after the run: "FAIL: name (id)", also for what never
     * printed a line of its own (setUpClass) */
    static const struct { const char *prefix; enum test_status st; } report[] = {
        { "FAIL: ", TEST_FAILED }, { "ERROR: ", TEST_ERRORED }, { "UNEXPECTED SUCCESS: ", TEST_FAILED },
    };
    for (size_t i = 0; i < 3; i++)
        if (starts(s, report[i].prefix)) {
            char *id = unittest_desc(s + strlen(report[i].prefix), &rest);
            if (id)
                test_result(p, NULL, id, report[i].st);
            free(id);
            free(doc);
            return;
        }
    char *dots = strstr(s, " ... ");
    if (dots) {
        *dots = '\0';
        char *tail = dots + 5;
        trim_right(tail);
        char *id = unittest_desc(s, &rest);
        if (id && *rest && *rest != ' ')
            free(id), id = NULL;
        if (!id && doc) {
            id = doc;  /* "First docstring line ... ok" */
            doc = NULL;
            rest = "";
        }
        if (id) {
            /* startTest() writes "name (id) ... " and flushes, then the
             * test runs: its start, in the output's bytes */
            if (!*rest)
                announced_at(p, test_started(p, NULL, id), line, tail);
            /* a subtest's line ("  name (id) (i=1) ... FAIL") counts for
             * its test: unittest re-runs tests, not subtests */
            if (unittest_status(tail, &st)) {
                size_t i = test_result(p, NULL, id, st);
                if (i == p->pending || !*rest)
                    p->pending = SIZE_MAX;
            } else if (!*rest) {
                p->pending = find_test(p, NULL, id, false);
            }
            free(id);
        }
        free(doc);
        return;
    }
    free(doc);
    trim_right(s);
    char *id = unittest_desc(s, &rest);
    if (id && !*rest) {
        /* verbose mode prints a test with a docstring on two lines */
        p->doc_id = id;
        test_started(p, NULL, id);
        return;
    }
    free(id);
    /* the result after the test's own output */
    if (p->pending != SIZE_MAX && unittest_status(s, &st)) {
        result_at(p, p->pending, st);
        p->pending = SIZE_MAX;
    }
}

/* ---- pytest -v (also under xdist) ---- */

static bool pytest_word(const char *s, size_t len, enum test_status *out)
{
    static const struct { const char *w; enum test_status st; } words[] = {
        { "PASSED", TEST_PASSED }, { "FAILED", TEST_FAILED }, { "SKIPPED", TEST_SKIPPED },
        { "XFAIL", TEST_SKIPPED }, { "XPASS", TEST_PASSED }, { "ERROR", TEST_ERRORED },
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].w) == len && !memcmp(s, words[i].w, len)) {
            *out = words[i].st;
            return true;
        }
    return false;
}

/* "[ 42%]" or "[ 3/17]" at the end of a line: removed. */
static void pytest_strip_progress(char *s)
{
    size_t n = strlen(s);
    if (!n || s[n - 1] != ']')
        return;
    char *open = strrchr(s, '[');
    if (!open || open == s || open[-1] != ' ')
        return;
    const char *c = open + 1;
    while (*c == ' ')
        c++;
    size_t digits = strspn(c, "0123456789");
    if (!digits)
        return;
    c += digits;
    if (*c == '%')
        c++;
    else if (*c == '/' && strspn(c + 1, "0123456789"))
        c += 1 + strspn(c + 1, "0123456789");
    else
        return;
    if (*c != ']' || c[1])
        return;
    *open = '\0';
    trim_right(s);
}

static void pytest_line(struct runner_parser *p, char *line)
{
    enum test_status st;
    if (strstr(line, "short test summary info") && starts(line, "=")) {
        p->pytest_summary = true;
        return;
    }
    if (starts(line, "[gw")) {
        /* "[gw0] [ 41%] PASSED ID" */
        char *c = strchr(line, ']');
        if (!c || c[1] != ' ')
            return;
        c += 2;
        if (*c == '[') {
            char *close = strchr(c, ']');
            if (!close || close[1] != ' ')
                return;
            c = close + 2;
        }
        char *sp = strchr(c, ' ');
        if (sp && pytest_word(c, (size_t)(sp - c), &st) && sp[1]) {
            trim_right(sp + 1);
            test_result(p, NULL, sp + 1, st);
        }
        return;
    }
    /* xdist: "worker 'gw0' crashed while running 'ID'" */
    char *crash = strstr(line, "crashed while running '");
    if (crash && starts(skip_spaces(line), "worker '")) {
        char *id = crash + 23;
        size_t n = strlen(id);
        if (n > 1 && id[n - 1] == '\'') {
            id[n - 1] = '\0';
            test_result(p, NULL, id, TEST_ERRORED);
        }
        return;
    }
    if (p->pytest_summary && (starts(line, "FAILED ") || starts(line, "ERROR "))) {
        /* "FAILED ID - message": the id is the longest known prefix
         * before a " - " (a parametrized id may hold one), else up to the
         * first (a collection error names a file never seen before) */
        char *id = line + (line[0] == 'F' ? 7 : 6);
        st = line[0] == 'F' ? TEST_FAILED : TEST_ERRORED;
        if (find_test(p, NULL, id, false) != SIZE_MAX) {
            test_result(p, NULL, id, st);
            return;
        }
        char *first = strstr(id, " - "), *known = NULL;
        size_t tries = 0;
        for (char *at = first; at && tries++ < 64; at = strstr(at + 1, " - ")) {
            *at = '\0';
            if (find_test(p, NULL, id, false) != SIZE_MAX)
                known = at;
            *at = ' ';
        }
        char *cut = known ? known : first;
        if (cut)
            *cut = '\0';
        if (*id)
            test_result(p, NULL, id, st);
        return;
    }
    if (line[0] == ' ' || !strstr(line, "::"))
        return;
    /* "ID STATUS (reason)  [ 5%]", the id printed before the test runs
     * (a line that ends there is the test still running) */
    size_t len = strlen(line);
    bool id_only = line[len - 1] == ' ';
    trim_right(line);
    pytest_strip_progress(line);
    len = strlen(line);
    for (size_t at = len; at-- > 0;) {
        if (line[at] != ' ')
            continue;
        char *w = line + at + 1;
        size_t wl = strcspn(w, " ");
        if (!pytest_word(w, wl, &st))
            continue;
        char *after = w + wl;
        if (*after && !(after[0] == ' ' && after[1] == '(' && line[len - 1] == ')'))
            continue;
        line[at] = '\0';
        if (strstr(line, "::"))
            test_result(p, NULL, line, st);
        return;
    }
    /* "ID " alone: the test now running (pytest prints the id, then runs
     * the test, then the outcome; xdist prints the id on a line of its own) */
    if (id_only)
        test_started(p, NULL, line);
}

/* ---- go test -json ---- */

struct go_event {
    char *action, *package, *test, *output;
};

/* A JSON string at *s (after its opening quote), decoded; *s moved past
 * its closing quote. NULL on malformed input. */
static char *json_string(const char **s)
{
    const char *c = *s;
    size_t cap = 64, n = 0;
    char *out = xmalloc(cap);
    for (;;) {
        if (n + 8 > cap)
            out = xrealloc(out, cap *= 2);
        unsigned char ch = (unsigned char)*c;
        if (!ch) {
            free(out);
            return NULL;
        }
        c++;
        if (ch == '"')
            break;
        if (ch != '\\') {
            out[n++] = (char)ch;
            continue;
        }
        ch = (unsigned char)*c++;
        uint32_t cp;
        switch (ch) {
        case '"': case '\\': case '/': out[n++] = (char)ch; continue;
        case 'b': out[n++] = '\b'; continue;
        case 'f': out[n++] = '\f'; continue;
        case 'n': out[n++] = '\n'; continue;
        case 'r': out[n++] = '\r'; continue;
        case 't': out[n++] = '\t'; continue;
        case 'u': {
            cp = 0;
            for (int i = 0; i < 4; i++, c++) {
                char h = *c;
                int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                      : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (v < 0) {
                    free(out);
                    return NULL;
                }
                cp = cp * 16 + (uint32_t)v;
            }
            /* a surrogate pair; a lone half is U+FFFD */
            if (cp >= 0xD800 && cp < 0xDC00 && c[0] == '\\' && c[1] == 'u') {
                uint32_t lo = 0;
                bool okhex = true;
                for (int i = 2; i < 6; i++) {
                    char h = c[i];
                    int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                          : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                    if (v < 0) {
                        okhex = false;
                        break;
                    }
                    lo = lo * 16 + (uint32_t)v;
                }
                if (okhex && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    c += 6;
                }
            }
            if ((cp >= 0xD800 && cp < 0xE000) || cp == 0)
                cp = 0xFFFD;
            if (cp < 0x80) {
                out[n++] = (char)cp;
            } else if (cp < 0x800) {
                out[n++] = (char)(0xC0 | (cp >> 6));
                out[n++] = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                out[n++] = (char)(0xE0 | (cp >> 12));
                out[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                out[n++] = (char)(0x80 | (cp & 0x3F));
            } else {
                out[n++] = (char)(0xF0 | (cp >> 18));
                out[n++] = (char)(0x80 | ((cp >> 12) & 0x3F));
                out[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                out[n++] = (char)(0x80 | (cp & 0x3F));
            }
            continue;
        }
        default:
            free(out);
            return NULL;
        }
    }
    out[n] = '\0';
    *s = c;
    return out;
}

/* Skips one JSON value that is not a string (number, true, false, null,
 * or a nested object or array, strings inside it included); iterative, so
 * deep nesting costs no stack. */
static bool json_skip(const char **s)
{
    const char *c = *s;
    size_t depth = 0;
    for (;;) {
        char ch = *c;
        if (!ch)
            return false;
        if (ch == '"') {
            c++;
            char *str = json_string(&c);
            if (!str)
                return false;
            free(str);
            if (!depth)
                break;
            continue;
        }
        if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (!depth)
                break;
            if (!--depth) {
                c++;
                break;
            }
        } else if (!depth && (ch == ',' || ch == ' ')) {
            break;
        }
        c++;
    }
    *s = c;
    return true;
}

/* One test2json event: {"Action":..,"Package":..,"Test":..,"Output":..}. */
static bool go_event_parse(const char *line, struct go_event *ev)
{
    const char *c = line;
    *ev = (struct go_event){0};
    if (*c++ != '{')
        return false;
    for (;;) {
        while (*c == ' ')
            c++;
        if (*c == '}')
            return true;
        if (*c++ != '"')
            return false;
        char *key = json_string(&c);
        if (!key)
            return false;
        while (*c == ' ')
            c++;
        if (*c++ != ':') {
            free(key);
            return false;
        }
        while (*c == ' ')
            c++;
        char **field = !strcmp(key, "Action") ? &ev->action : !strcmp(key, "Package") ? &ev->package
                     : !strcmp(key, "Test") ? &ev->test : !strcmp(key, "Output") ? &ev->output : NULL;
        free(key);
        if (*c == '"') {
            c++;
            char *v = json_string(&c);
            if (!v)
                return false;
            if (field) {
                free(*field);
                *field = v;
            } else {
                free(v);
            }
        } else if (!json_skip(&c)) {
            return false;
        }
        while (*c == ' ')
            c++;
        if (*c == ',')
            c++;
        else if (*c != '}')
            return false;
    }
}

static size_t go_package(struct runner_parser *p, const char *name)
{
    if (p->by_package.nslots) {
        size_t at = hash_bytes(14695981039346656037ull, name) & (p->by_package.nslots - 1);
        while (p->by_package.slots[at]) {
            size_t i = p->by_package.slots[at] - 1;
            if (!strcmp(p->packages[i].name, name))
                return i;
            at = (at + 1) & (p->by_package.nslots - 1);
        }
    }
    if (p->npackages >= GO_MAX_PACKAGES) {
        p->truncated = true;
        return SIZE_MAX;
    }
    xgrow((void **)&p->packages, &p->cap_packages, p->npackages + 1, sizeof *p->packages);
    size_t i = p->npackages++;
    p->packages[i] = (struct go_package){ .name = xstrdup(name) };
    table_grow(&p->by_package, p->npackages, package_hash, p);
    size_t at = hash_bytes(14695981039346656037ull, name) & (p->by_package.nslots - 1);
    while (p->by_package.slots[at])
        at = (at + 1) & (p->by_package.nslots - 1);
    p->by_package.slots[at] = i + 1;
    return i;
}

/* A package's binary ended: its tests still running had no result of
 * their own (the binary panicked or was stopped by -timeout); a failed
 * package none of whose tests failed failed outside them (build, TestMain,
 * init), which is the package's own result. */
static void go_package_end(struct runner_parser *p, size_t k, bool failed)
{
    struct go_package *g = &p->packages[k];
    for (size_t j = 0; j < g->nstarted; j++)
        if (p->entries[g->started[j]].running)
            result_at(p, g->started[j], g->timed_out ? TEST_TIMED_OUT : TEST_ERRORED);
    g->nstarted = 0;
    if (failed && !g->bad)
        test_result(p, g->name, g->name, TEST_ERRORED);
    g->timed_out = g->bad = false;
}

static void go_line(struct runner_parser *p, char *line)
{
    struct go_event ev;
    if (line[0] != '{')
        return;
    if (go_event_parse(line, &ev) && ev.action && ev.package && *ev.package) {
        size_t k = go_package(p, ev.package);
        if (k != SIZE_MAX) {
            char *id = ev.test ? xasprintf("%s %s", ev.package, ev.test) : NULL;
            const char *a = ev.action;
            if (id && !strcmp(a, "run")) {
                size_t i = test_started(p, ev.package, id);
                if (i != SIZE_MAX && p->entries[i].package == SIZE_MAX) {
                    p->entries[i].package = k;
                    struct go_package *g = &p->packages[k];
                    xgrow((void **)&g->started, &g->cap, g->nstarted + 1, sizeof *g->started);
                    g->started[g->nstarted++] = i;
                }
            } else if (id && (!strcmp(a, "pass") || !strcmp(a, "fail") || !strcmp(a, "skip"))) {
                size_t i = find_test(p, ev.package, id, false);
                if (i != SIZE_MAX)
                    result_at(p, i, a[0] == 'p' ? TEST_PASSED : a[0] == 'f' ? TEST_FAILED : TEST_SKIPPED);
            } else if (!strcmp(a, "output") && ev.output) {
                if (strstr(ev.output, "panic: test timed out after"))
                    p->packages[k].timed_out = true;
            } else if (!id && (!strcmp(a, "pass") || !strcmp(a, "fail") || !strcmp(a, "skip"))) {
                go_package_end(p, k, !strcmp(a, "fail"));
            }
            free(id);
        }
    }
    free(ev.action);
    free(ev.package);
    free(ev.test);
    free(ev.output);
}

/* ---- TAP: node --test, prove -v, a command's own TAP ---- */

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
static void tap_script_end(struct runner_parser *p)
{
    if (p->unit && p->tap_plan > 0 && (long long)p->tap_count < p->tap_plan)
        test_result(p, p->unit, p->unit, TEST_ERRORED);
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
static bool tap_result(char *s, size_t count, enum test_status *st, char **name)
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

static void tap_line(struct runner_parser *p, char *line)
{
    size_t indent = strspn(line, " ");
    size_t level = indent / 4;
    char *s = line + indent;
    enum test_status st;
    char *name;
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
        else if (p->r->kind == RUNNER_NODE && starts(s, "failureType: ") && p->last_result != SIZE_MAX) {
            if (strstr(s, "testTimeoutFailure"))
                result_at(p, p->last_result, TEST_TIMED_OUT);
            else if (strstr(s, "cancelledByParent") || strstr(s, "hookFailure"))
                result_at(p, p->last_result, TEST_ERRORED);
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
    if (level == 0 && starts(s, "Bail out!")) {
        if (p->r->kind == RUNNER_PROVE)
            p->tap_done = true;
        return;
    }
}

/* ---- make check: automake's harness ---- */

static void automake_line(struct runner_parser *p, char *line)
{
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

/* ---- lines ---- */

/* Removes terminal escapes (colours: ESC [ ... final byte) and keeps
 * what is after the last carriage return (a progress line overwritten on
 * a terminal); drops NUL bytes. */
static void clean_line(char *s, size_t *len)
{
    size_t n = *len;
    while (n && s[n - 1] == '\r')
        n--;
    size_t start = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\r')
            start = i + 1;
    size_t o = 0;
    for (size_t i = start; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x1b) {
            if (i + 1 < n && s[i + 1] == '[') {
                i += 2;
                while (i < n && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x3f)
                    i++;
                /* i is at the final byte (or the end) */
            } else {
                i++;
            }
            continue;
        }
        if (c == 0)
            continue;
        s[o++] = (char)c;
    }
    s[o] = '\0';
    *len = o;
}

static void parse_line(struct runner_parser *p)
{
    size_t len = p->len;
    clean_line(p->line, &len);
    p->line_exact = !p->overlong && len == p->len;
    p->len = 0;
    char *line = p->line;
    if (!len)
        return;
    switch (p->r->kind) {
    case RUNNER_CARGO: cargo_line(p, line); break;
    case RUNNER_UNITTEST: unittest_line(p, line); break;
    case RUNNER_PYTEST: pytest_line(p, line); break;
    case RUNNER_GO: go_line(p, line); break;
    case RUNNER_NODE:
    case RUNNER_PROVE:
    case RUNNER_TAP: tap_line(p, line); break;
    case RUNNER_AUTOMAKE: automake_line(p, line); break;
    }
}

struct runner_parser *runner_parser_new(const struct runner *r)
{
    struct runner_parser *p = xcalloc(1, sizeof *p);
    p->r = r;
    p->pending = SIZE_MAX;
    p->last_result = SIZE_MAX;
    p->yaml_indent = SIZE_MAX;
    p->tap_plan = -1;
    p->cap = 256;
    p->line = xmalloc(p->cap);
    return p;
}

void runner_parser_feed(struct runner_parser *p, const void *bytes, size_t len)
{
    const char *b = bytes;
    if (p->finished)
        return;
    while (len) {
        const char *nl = memchr(b, '\n', len);
        size_t take = nl ? (size_t)(nl - b) : len;
        size_t room = RUNNER_MAX_LINE - p->len;
        size_t copy = take < room ? take : room;
        if (copy < take)
            p->overlong = true;
        if (p->len + copy + 1 > p->cap) {
            while (p->len + copy + 1 > p->cap)
                p->cap *= 2;
            p->line = xrealloc(p->line, p->cap);
        }
        memcpy(p->line + p->len, b, copy);
        p->len += copy;
        if (!nl) {
            p->fed += len;
            return;
        }
        p->fed += take + 1;
        p->line_end = p->fed;
        p->line_start = p->next_line_start;
        p->next_line_start = p->fed;
        /* a line cut at RUNNER_MAX_LINE is parsed as far as it was kept */
        parse_line(p);
        p->overlong = false;
        b = nl + 1;
        len -= take + 1;
    }
}

void runner_parser_finish(struct runner_parser *p, bool killed)
{
    if (p->finished)
        return;
    /* the last line, unterminated: pytest's id of the test that was
     * running when the run stopped */
    p->line_end = p->fed;
    p->line_start = p->next_line_start;
    if (p->len)
        parse_line(p);
    /* what ends here ended with the run: after any denial */
    p->line_end = UINT64_MAX;
    if (p->r->kind == RUNNER_PROVE)
        tap_script_end(p);
    for (size_t i = 0; i < p->n; i++)
        if (p->entries[i].running)
            result_at(p, i, killed ? TEST_TIMED_OUT : TEST_ERRORED);
    p->finished = true;
}

const struct runner_test *runner_parser_tests(const struct runner_parser *p, size_t *n)
{
    *n = p->n;
    return p->tests;
}

bool runner_parser_truncated(const struct runner_parser *p)
{
    return p->truncated;
}

void runner_parser_counts(const struct runner_parser *p, struct runner_counts *c)
{
    *c = p->counts;
}

void runner_parser_free(struct runner_parser *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        free(p->tests[i].id);
        free(p->tests[i].unit);
        free(p->tests[i].parent);
    }
    free(p->tests);
    free(p->entries);
    free(p->by_key.slots);
    for (size_t i = 0; i < p->npackages; i++) {
        free(p->packages[i].name);
        free(p->packages[i].started);
    }
    free(p->packages);
    free(p->by_package.slots);
    tap_clear_stack(p, 0);
    free(p->unit);
    free(p->doc_id);
    free(p->line);
    free(p);
}

const char *test_status_name(enum test_status s)
{
    switch (s) {
    case TEST_RUNNING: return "running";
    case TEST_PASSED: return "passed";
    case TEST_SKIPPED: return "skipped";
    case TEST_FAILED: return "failed";
    case TEST_ERRORED: return "errored";
    case TEST_TIMED_OUT: return "timed-out";
    }
    return "unknown";
}
