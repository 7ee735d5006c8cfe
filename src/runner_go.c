/* go test: test2json's events (-json), runner_impl.h's operations.
 *
 * Given -json: test2json's events name package and test exactly; and
 * -count=1: go test replays cached results, and a replayed run proves
 * nothing (any explicit -count disables the cache, so the user's own is
 * kept).
 *
 * No package named (the current directory's): given -v instead of -json.
 * go test then leaves the test binary the command's own stdout (see
 * go_no_package), so its "=== RUN   TestX"
 * line, written by the binary before the test starts, is in sbx's pipe
 * before any call the test makes, and the output's positions place each
 * denial in its test as unittest's do (audit_attrib.h), no re-run; with
 * -json the line reaches sbx only once test2json, in the go process, has
 * read and converted it, so a position proves nothing. Tests are then
 * named without their package (the command tests one), and a re-run names
 * none either. A test that runs in parallel
 * (t.Parallel) or has subtests (their results come after their parent's)
 * makes runs overlap, and the audit re-runs suspects as for -json.
 *
 * One package named (go test ., go test ./pkg; no "..." and no -exec of
 * the user's): given -v and -exec GO_EXEC, a shell that runs the test
 * binary with its stdout and stderr opened from /proc/PPID/fd/1, the go
 * process's own stdout, which is sbx's pipe: the binary then writes its
 * === RUN lines straight to sbx as with no package named, and the go
 * process, left only the exit status, prints its "ok PKG" line after
 * them. The binary, its arguments, its directory and its environment are
 * go's; only where its output goes changes. Where that open fails (a
 * profile without /proc), the shell prints GO_RELAYED and runs the binary
 * as go would: the line makes the positions unplaceable (a test printing
 * it only costs re-runs), and the audit re-runs suspects.
 *
 * The channel: go 1.19's test2json reads the test binary's stdout, where
 * a test's own output is printed too, so a test that prints "--- PASS: X"
 * makes an event; a result counts only for a test whose "run" event was
 * seen. -v's lines are the same text read directly: a test that prints
 * "=== RUN   TestY" before its denied call has the call placed in TestY
 * (still a denial, in a test that passed: never a trustworthy audit). */
#include "config.h"

#include "runner_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GO_MAX_PACKAGES 65536

struct go_package {
    char *name;
    bool timed_out;   /* "panic: test timed out after" was printed */
    bool bad;         /* a test of it failed, errored or timed out */
    size_t *started;  /* tests of it that ran, for its end */
    size_t nstarted, cap;
};

/* -exec's program (split by go's quoted-field rules: no escapes), and
 * the line it prints where it cannot give the binary sbx's pipe. >>: an
 * open that never truncates, whatever descriptor 1 is. */
#define GO_RELAYED "sbx-go-exec: relayed"
#define GO_EXEC                                                                                    \
    "sh -c 'if : 2>/dev/null >>/proc/$PPID/fd/1; then exec \"$0\" \"$@\" >>/proc/$PPID/fd/1 2>&1; "   \
    "fi; echo " GO_RELAYED "; exec \"$0\" \"$@\"'"

struct go_state {
    bool relayed;              /* GO_RELAYED was printed: positions prove nothing */
    struct go_package *packages;
    size_t npackages, cap_packages;
    struct runner_table by_package;
    struct go_package stream;  /* -v: the one package's tests, named bare */
};

static int go_anchor(char *const argv[], char *why, size_t why_size)
{
    if (strcmp(base_name(argv[0]), "go"))
        return -1;
    if (argv[1] && !strcmp(argv[1], "test"))
        return 1;
    snprintf(why, why_size, "go %.64s is not go test", argv[1] ? argv[1] : "without a command");
    return -1;
}

static const char *const go_bool_flags[] = {
    "-v", "-json", "-short", "-failfast", "-race", "-cover", "-a", "-n", "-x", "-work",
    "-benchmem", "-msan", "-asan", "-trimpath", "-linkshared", "-i", "-c", "-modcacherw", NULL,
};

/* Whether go test's arguments argv[2..args) name no package: the current
 * directory's. Only then does go test leave the test binary's stdout its
 * own (cmd/go/internal/test: "stream test output (no buffering) when no
 * package has been given"); with a package named, even one, -v's output
 * is copied through an io.MultiWriter, a pipe the go process relays, and
 * a position at a denied call proves nothing again. */
/* Whether flag f (go test's, "-x" or "--x") takes the next argument as
 * its value: not a boolean flag, no "=value" of its own. */
static bool go_flag_takes_next(const char *f)
{
    return !strchr(f, '=') && !takes_value(go_bool_flags, f[1] == '-' ? f + 1 : f);
}

static bool go_no_package(char *const argv[], int args)
{
    for (int i = 2; i < args; i++) {
        const char *f = argv[i];
        if (f[0] != '-')
            return false;
        if (go_flag_takes_next(f) && i + 1 < args)
            i++;
    }
    return true;
}

/* Whether argv[2..args) name exactly one package, and no pattern that
 * may match several ("./..."): go test then runs one test binary. */
static bool go_one_package(char *const argv[], int args)
{
    int named = 0;
    for (int i = 2; i < args; i++) {
        const char *f = argv[i];
        if (f[0] == '-') {
            if (go_flag_takes_next(f) && i + 1 < args)
                i++;
            continue;
        }
        if (strstr(f, "...") || ++named > 1)
            return false;
    }
    return named == 1;
}

static bool cmd_go(char *const argv[], int at, struct strv *out, struct strv *notes, char *err, size_t err_size)
{
    (void)at;
    (void)err;
    (void)err_size;
    int end = end_of_options(argv, 2);
    int args = end;
    for (int i = 2; i < end; i++)
        if (!strcmp(argv[i], "-args") || !strcmp(argv[i], "--args")) {
            args = i;
            break;
        }
    bool json = has_arg(argv, 2, args, "-json") || has_arg(argv, 2, args, "--json") ||
                has_arg(argv, 2, args, "-json=true");
    bool count = has_arg(argv, 2, args, "-count") || has_arg(argv, 2, args, "--count") ||
                 has_prefix_arg(argv, 2, args, "-count=") || has_prefix_arg(argv, 2, args, "--count=");
    bool verbose = has_arg(argv, 2, args, "-v") || has_arg(argv, 2, args, "--v") ||
                   has_arg(argv, 2, args, "-v=true") || has_arg(argv, 2, args, "--v=true");
    bool stream = !json && go_no_package(argv, args);
    /* the user's -exec (an emulator, a remote runner), on the command
     * line or in GOFLAGS, is theirs: never replaced */
    const char *goflags = getenv("GOFLAGS");
    bool own_exec = has_arg(argv, 2, args, "-exec") || has_arg(argv, 2, args, "--exec") ||
                    has_prefix_arg(argv, 2, args, "-exec=") || has_prefix_arg(argv, 2, args, "--exec=") ||
                    (goflags && strstr(goflags, "-exec"));
    bool direct = !json && !stream && !own_exec && go_one_package(argv, args);
    push_range(out, argv, 0, 2);
    /* -failfast stops at a failure; the tests after it would have no
     * result under the stricter profile: removed */
    bool failfast = has_arg(argv, 2, args, "-failfast") || has_arg(argv, 2, args, "--failfast");
    if (failfast)
        note_add(notes, "removed -failfast: go test would stop at a failure, leaving the tests after it "
                        "without a result");
    if (stream && !verbose) {
        push(out, "-v");
        note_add(notes, "added -v: with no package named, go test gives the test binary sbx's own output, "
                        "where each test's === RUN line is written before the test starts");
    } else if (direct) {
        if (!verbose)
            push(out, "-v");
        push(out, "-exec");
        push(out, GO_EXEC);
        note_add(notes, verbose ? "added -exec: the test binary writes to sbx's own output (the go process's "
                                  "stdout, opened from /proc), where each test's === RUN line is written "
                                  "before the test starts"
                                : "added -v and -exec: the test binary writes to sbx's own output (the go "
                                  "process's stdout, opened from /proc), where each test's === RUN line is "
                                  "written before the test starts");
    } else if (!json && !stream) {
        push(out, "-json");
        note_add(notes, "added -json: go test's events name each package and test exactly");
    }
    if (!count) {
        push(out, "-count=1");
        note_add(notes, "added -count=1: go test replays cached results, which prove nothing");
    }
    for (int i = 2; argv[i]; i++)
        if (i >= args || (strcmp(argv[i], "-failfast") && strcmp(argv[i], "--failfast")))
            push(out, argv[i]);
    return true;
}

struct go_event {
    char *action, *package, *test, *output;
    uint64_t elapsed_us;  /* "Elapsed": seconds, on a result */
};

/* A JSON string at *s (after its opening quote), decoded; *s moved past
 * its closing quote. NULL on malformed input. */
char *json_string(const char **s)
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
bool json_skip(const char **s)
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

static uint64_t package_hash(void *ctx, size_t i)
{
    struct runner_parser *p = ctx;
    struct go_state *gs = p->state;
    return runner_hash(14695981039346656037ull, gs->packages[i].name);
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
        bool elapsed = !strcmp(key, "Elapsed");
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
        } else {
            const char *value = c;
            if (!json_skip(&c))
                return false;
            if (elapsed)
                ev->elapsed_us = runner_decimal_us(value, 1000000);
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
    struct go_state *gs = p->state;
    if (gs->by_package.nslots) {
        size_t at = runner_hash(14695981039346656037ull, name) & (gs->by_package.nslots - 1);
        while (gs->by_package.slots[at]) {
            size_t i = gs->by_package.slots[at] - 1;
            if (!strcmp(gs->packages[i].name, name))
                return i;
            at = (at + 1) & (gs->by_package.nslots - 1);
        }
    }
    if (gs->npackages >= GO_MAX_PACKAGES) {
        p->truncated = true;
        return SIZE_MAX;
    }
    xgrow((void **)&gs->packages, &gs->cap_packages, gs->npackages + 1, sizeof *gs->packages);
    size_t i = gs->npackages++;
    gs->packages[i] = (struct go_package){ .name = xstrdup(name) };
    runner_table_grow(&gs->by_package, gs->npackages, package_hash, p);
    size_t at = runner_hash(14695981039346656037ull, name) & (gs->by_package.nslots - 1);
    while (gs->by_package.slots[at])
        at = (at + 1) & (gs->by_package.nslots - 1);
    gs->by_package.slots[at] = i + 1;
    return i;
}

/* A package's binary ended: its tests still running had no result of
 * their own (the binary panicked or was stopped by -timeout); a failed
 * package none of whose tests failed failed outside them (build, TestMain,
 * init), which is the package's own result. */
static void go_package_end(struct runner_parser *p, struct go_package *g, const char *unit, const char *name,
                           bool failed)
{
    for (size_t j = 0; j < g->nstarted; j++)
        if (p->entries[g->started[j]].running) {
            result_at(p, g->started[j], g->timed_out ? TEST_TIMED_OUT : TEST_ERRORED);
            g->bad = true;
        }
    g->nstarted = 0;
    /* the package's own row: its binary failed outside its tests
     * (build, TestMain, init, os.Exit before a test ended) */
    if (failed && !g->bad)
        test_kind(p, test_result(p, unit, name, TEST_ERRORED), RUNNER_TEST_FIXTURE);
    g->timed_out = g->bad = false;
}

static void go_started(struct go_package *g, size_t i)
{
    xgrow((void **)&g->started, &g->cap, g->nstarted + 1, sizeof *g->started);
    g->started[g->nstarted++] = i;
}

/* go test -v's lines, one package streamed: the test binary's "=== RUN
 * TestX" and "--- PASS: TestX (0.00s)" (4 spaces more per subtest level),
 * then the go command's "ok  \tPKG\t0.01s" or "FAIL\tPKG\t0.01s" (or
 * "FAIL\tPKG [build failed]"). */
static void go_verbose_line(struct runner_parser *p, char *line)
{
    struct go_state *gs = p->state;
    struct go_package *g = &gs->stream;
    if (!strncmp(line, "=== RUN   ", 10)) {
        const char *name = line + 10;
        if (!*name || strchr(name, ' '))
            return;
        size_t i = test_started(p, NULL, name);
        if (i == SIZE_MAX)
            return;
        announced_at(p, i, line, line + strlen(line));
        p->announces_serially = !gs->relayed;
        const char *slash = strrchr(name, '/');
        if (slash) {
            char *parent = xstrndup(name, (size_t)(slash - name));
            test_parent(p, i, parent);
            free(parent);
        }
        go_started(g, i);
        return;
    }
    const char *s = line;
    while (*s == ' ')
        s++;
    if (!strncmp(s, "--- ", 4)) {
        static const struct { const char *word; enum test_status status; } results[] = {
            { "PASS: ", TEST_PASSED }, { "FAIL: ", TEST_FAILED }, { "SKIP: ", TEST_SKIPPED },
        };
        s += 4;
        for (size_t k = 0; k < sizeof results / sizeof results[0]; k++) {
            if (strncmp(s, results[k].word, 6))
                continue;
            const char *name = s + 6, *time = strstr(name, " (");
            if (!time || time == name)
                return;
            char *id = xstrndup(name, (size_t)(time - name));
            size_t i = find_test(p, NULL, id, false);
            free(id);
            if (i == SIZE_MAX)
                return;  /* a result of a test never announced: printed by a test */
            result_at(p, i, results[k].status);
            test_duration(p, i, runner_decimal_us(time + 2, 1000000));
            g->bad |= results[k].status == TEST_FAILED;
            return;
        }
        return;
    }
    if (!strncmp(line, "panic: test timed out after", 27)) {
        g->timed_out = true;
        return;
    }
    if (!strcmp(line, GO_RELAYED)) {
        gs->relayed = true;
        p->announces_serially = false;
        return;
    }
    bool failed = !strncmp(line, "FAIL\t", 5);
    if (!failed && strncmp(line, "ok  \t", 5))
        return;
    const char *pkg = line + 5;
    size_t len = strcspn(pkg, "\t ");
    if (!len)
        return;
    char *name = xstrndup(pkg, len);
    go_package_end(p, g, NULL, name, failed);
    free(name);
}

static void go_line(struct runner_parser *p, char *line)
{
    struct go_state *gs = p->state;
    struct go_event ev;
    if (line[0] != '{') {
        go_verbose_line(p, line);
        return;
    }
    if (go_event_parse(line, &ev) && ev.action && ev.package && *ev.package) {
        size_t k = go_package(p, ev.package);
        if (k != SIZE_MAX) {
            char *id = ev.test ? xasprintf("%s %s", ev.package, ev.test) : NULL;
            const char *a = ev.action;
            if (id && !strcmp(a, "run")) {
                size_t i = test_started(p, ev.package, id);
                /* "TestX/sub": a subtest of TestX */
                const char *slash = strrchr(ev.test, '/');
                if (slash) {
                    char *parent = xasprintf("%s %.*s", ev.package, (int)(slash - ev.test), ev.test);
                    test_parent(p, i, parent);
                    free(parent);
                }
                if (i != SIZE_MAX && p->entries[i].package == SIZE_MAX) {
                    p->entries[i].package = k;
                    go_started(&gs->packages[k], i);
                }
            } else if (id && (!strcmp(a, "pass") || !strcmp(a, "fail") || !strcmp(a, "skip"))) {
                size_t i = find_test(p, ev.package, id, false);
                if (i != SIZE_MAX) {
                    result_at(p, i, a[0] == 'p' ? TEST_PASSED : a[0] == 'f' ? TEST_FAILED : TEST_SKIPPED);
                    test_duration(p, i, ev.elapsed_us);
                    gs->packages[k].bad |= a[0] == 'f';
                }
            } else if (!strcmp(a, "output") && ev.output) {
                if (strstr(ev.output, "panic: test timed out after"))
                    gs->packages[k].timed_out = true;
            } else if (!id && (!strcmp(a, "pass") || !strcmp(a, "fail") || !strcmp(a, "skip"))) {
                go_package_end(p, &gs->packages[k], gs->packages[k].name, gs->packages[k].name, !strcmp(a, "fail"));
            }
            free(id);
        }
    }
    free(ev.action);
    free(ev.package);
    free(ev.test);
    free(ev.output);
}


/* go test [flags] [packages] [flags] [-args ...]: the packages are
 * replaced by the tests' one, and -run (the last one wins) selects each
 * subtest level by its exact name. A group is of one package and one
 * depth; at each level the names of the group are alternatives, so a
 * group of subtests of different parents runs their cross product (a
 * superset: more than asked, never less). None: -run=^$, under which the
 * test binary starts (init, TestMain) and runs no test. */
static bool go_select(char *const argv[], const struct runner_test *const tests[], size_t count,
                      const struct runner_test *t, struct strv *out)
{
    int n = (int)argv_len(argv);
    /* "PKG TestX" (-json), or "TestX" (-v, one package: the command's) */
    const char *space = strchr(t->id, ' ');
    bool bare = !space;
    size_t plen = bare ? 0 : (size_t)(space - t->id);
    size_t depth = 0;
    struct strv *levels = NULL;
    for (size_t k = 0; k < count; k++) {
        const char *sp = strchr(tests[k]->id, ' ');
        if (bare ? sp != NULL : !sp || (size_t)(sp - tests[k]->id) != plen || strncmp(tests[k]->id, t->id, plen))
            goto mixed;
        struct strv parts = {0};
        push_split(&parts, bare ? tests[k]->id : sp + 1, "/");
        if (!k) {
            depth = parts.n;
            levels = xcalloc(depth, sizeof *levels);
        }
        if (parts.n != depth) {
            strv_free(&parts);
            goto mixed;
        }
        for (size_t l = 0; l < depth; l++) {
            bool seen = false;
            for (size_t j = 0; j < levels[l].n && !seen; j++)
                seen = !strcmp(levels[l].v[j], parts.v[l]);
            if (!seen)
                push(&levels[l], parts.v[l]);
        }
        strv_free(&parts);
    }
    push_range(out, argv, 0, 2);
    /* a test named with its package comes from -json's events: its re-run
     * keeps -json, which one package named would otherwise not get, so
     * that the re-run names the test as the run did */
    int flags_end = 2;
    while (flags_end < n && strcmp(argv[flags_end], "-args") && strcmp(argv[flags_end], "--args"))
        flags_end++;
    if (!bare && !has_arg(argv, 2, flags_end, "-json") && !has_arg(argv, 2, flags_end, "--json") &&
        !has_arg(argv, 2, flags_end, "-json=true"))
        push(out, "-json");
    int i = 2;
    for (; argv[i]; i++) {
        const char *f = argv[i];
        if (!strcmp(f, "-args") || !strcmp(f, "--args"))
            break;
        if (f[0] != '-') {
            if (bare)
                push(out, f);  /* the one package, as the command names it */
            continue;
        }
        push(out, f);
        if (go_flag_takes_next(f) && argv[i + 1])
            push(out, argv[++i]);
    }
    struct strv pattern = {0};
    for (size_t l = 0; l < depth; l++)
        strv_push(&pattern, regex_any((const char *const *)levels[l].v, levels[l].n));
    size_t len = 8;
    for (size_t l = 0; l < pattern.n; l++)
        len += strlen(pattern.v[l]) + 1;
    char *run = xmalloc(len), *o = stpcpy(run, count ? "-run=" : "-run=^$");
    for (size_t l = 0; l < pattern.n; l++) {
        if (l)
            *o++ = '/';
        o = stpcpy(o, pattern.v[l]);
    }
    strv_free(&pattern);
    push(out, run);
    free(run);
    if (!bare)
        strv_push(out, xstrndup(t->id, plen));
    push_range(out, argv, i, n);
    for (size_t l = 0; l < depth; l++)
        strv_free(&levels[l]);
    free(levels);
    return true;
mixed:
    if (levels)
        for (size_t l = 0; l < depth; l++)
            strv_free(&levels[l]);
    free(levels);
    return false;
}

static bool go_rerun(char *const argv[], int a, const struct runner_test *const tests[], size_t count,
                     struct strv *out)
{
    (void)a;
    return go_select(argv, tests, count, tests[0], out);
}

static bool go_baseline(char *const argv[], int a, const struct runner_test *t, struct strv *out)
{
    (void)a;
    return go_select(argv, NULL, 0, t, out);
}

static void *go_state_new(void)
{
    return xcalloc(1, sizeof(struct go_state));
}

static void go_state_free(void *state)
{
    struct go_state *gs = state;
    if (!gs)
        return;
    for (size_t i = 0; i < gs->npackages; i++) {
        free(gs->packages[i].name);
        free(gs->packages[i].started);
    }
    free(gs->packages);
    free(gs->stream.started);
    free(gs->by_package.slots);
    free(gs);
}

static const struct runner_ops go_ops = {
    .anchor = go_anchor,
    .command = cmd_go,
    .line = go_line,
    .rerun = go_rerun,
    .baseline = go_baseline,
    .state_new = go_state_new,
    .state_free = go_state_free,
};

const struct runner runner_go = { RUNNER_GO, "go", "go test", RUNNER_ATTRIBUTE_REPORTED, &go_ops };
