/* The parsers' shared machinery (runner.h): from a runner's output bytes
 * to its tests and their results, fed in chunks; each family's lines are
 * read by its own file (runner_impl.h). Pure. The bytes are untrusted
 * (every test prints what it likes, hostile ones too): lines are cut at
 * RUNNER_MAX_LINE (or a family's own bound), tests beyond
 * RUNNER_MAX_TESTS are dropped, and a line that matches no form of the
 * runner is ignored. A test can still forge a result line of its own
 * runner where the runner prints its output unframed; each family's
 * comment says what its channel does and does not protect. */
#include "config.h"

#include "runner_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- the table of tests ---- */

uint64_t runner_hash(uint64_t h, const char *s)
{
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static uint64_t key_hash(const char *unit, const char *id)
{
    return runner_hash(runner_hash(14695981039346656037ull, unit) * 31 + (unit ? 1 : 0), id);
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

void runner_table_grow(struct runner_table *t, size_t count, uint64_t (*hash_of)(void *, size_t), void *ctx)
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

size_t find_test(struct runner_parser *p, const char *unit, const char *id, bool add)
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
    p->entries[i] = (struct runner_entry){ false, false, SIZE_MAX };
    runner_table_grow(&p->by_key, p->n, test_hash, p);
    size_t at = key_hash(unit, id) & (p->by_key.nslots - 1);
    while (p->by_key.slots[at])
        at = (at + 1) & (p->by_key.nslots - 1);
    p->by_key.slots[at] = i + 1;
    return i;
}

void tests_reindex(struct runner_parser *p)
{
    size_t nslots = 64;
    while (nslots <= p->n * 2)
        nslots *= 2;
    free(p->by_key.slots);
    p->by_key.slots = xcalloc(nslots, sizeof *p->by_key.slots);
    p->by_key.nslots = nslots;
    for (size_t i = 0; i < p->n; i++) {
        size_t at = test_hash(p, i) & (nslots - 1);
        while (p->by_key.slots[at])
            at = (at + 1) & (nslots - 1);
        p->by_key.slots[at] = i + 1;
    }
}

size_t test_started(struct runner_parser *p, const char *unit, const char *id)
{
    size_t i = find_test(p, unit, id, true);
    if (i != SIZE_MAX) {
        p->entries[i].running = true;
        if (!p->entries[i].has_result)
            p->tests[i].status = TEST_RUNNING;
    }
    return i;
}

void result_at(struct runner_parser *p, size_t i, enum test_status s)
{
    if (i == SIZE_MAX)
        return;
    struct runner_entry *e = &p->entries[i];
    e->running = false;
    if (!e->has_result || severity(s) > severity(p->tests[i].status))
        p->tests[i].status = s;
    /* the first result says when it ended; a later one (a summary) says
     * nothing of when */
    if (!e->has_result)
        p->tests[i].reported_pos = p->line_end;
    e->has_result = true;
}

void announced_at(struct runner_parser *p, size_t i, const char *line, const char *end)
{
    if (i != SIZE_MAX && p->line_exact && !p->tests[i].announced_pos) {
        p->tests[i].announced_pos = p->line_start + (uint64_t)(end - line);
        p->last_announced = i;
    }
}

size_t test_result(struct runner_parser *p, const char *unit, const char *id, enum test_status s)
{
    size_t i = find_test(p, unit, id, true);
    result_at(p, i, s);
    return i;
}

void test_kind(struct runner_parser *p, size_t i, enum runner_test_kind kind)
{
    if (i != SIZE_MAX)
        p->tests[i].kind = kind;
}

void test_parent(struct runner_parser *p, size_t i, const char *parent)
{
    if (i == SIZE_MAX || !parent || p->tests[i].parent)
        return;
    p->tests[i].parent = xstrdup(parent);
    size_t k = find_test(p, p->tests[i].unit, parent, false);
    if (k != SIZE_MAX && p->tests[k].kind == RUNNER_TEST_CASE)
        p->tests[k].kind = RUNNER_TEST_PARENT;
}

void test_duration(struct runner_parser *p, size_t i, uint64_t us)
{
    if (i != SIZE_MAX && !p->tests[i].duration_us)
        p->tests[i].duration_us = us;
}

void runner_count(struct runner_parser *p, uint64_t passed, uint64_t failed, uint64_t skipped, uint64_t other)
{
    struct runner_counts *c = &p->counts;
    c->seen = true;
    c->passed += passed;
    c->failed += failed;
    c->skipped += skipped;
    c->total += passed + failed + skipped + other;
}

uint64_t runner_count_of(const char *line, const char *word, bool *seen)
{
    size_t wl = strlen(word);
    for (const char *at = strstr(line, word); at; at = strstr(at + 1, word)) {
        char after = at[wl];
        if ((after >= 'a' && after <= 'z') || (after >= 'A' && after <= 'Z') || at - line < 2 || at[-1] != ' ')
            continue;
        const char *d = at - 1;
        while (d > line && d[-1] >= '0' && d[-1] <= '9')
            d--;
        if (d == at - 1)
            continue;
        uint64_t n = 0;
        for (; d < at - 1; d++)
            n = n < UINT64_MAX / 16 ? n * 10 + (uint64_t)(*d - '0') : n;
        if (seen)
            *seen = true;
        return n;
    }
    return 0;
}

uint64_t runner_decimal_us(const char *s, uint64_t per_unit_us)
{
    uint64_t whole = 0, frac = 0, scale = 1;
    const char *c = s;
    if (!(*c >= '0' && *c <= '9'))
        return 0;
    for (; *c >= '0' && *c <= '9'; c++)
        if (whole < UINT64_MAX / 100)
            whole = whole * 10 + (uint64_t)(*c - '0');
    if (*c == '.')
        for (c++; *c >= '0' && *c <= '9'; c++)
            if (scale < 1000000000ull) {
                frac = frac * 10 + (uint64_t)(*c - '0');
                scale *= 10;
            }
    if (whole > UINT64_MAX / per_unit_us / 2)
        return UINT64_MAX / 2;
    return whole * per_unit_us + frac * per_unit_us / scale;
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
    free(p->announcing);
    p->announcing = NULL;
    clean_line(p->line, &len);
    p->line_exact = !p->overlong && len == p->len;
    p->len = 0;
    if (len)
        p->r->ops->line(p, p->line);
}

struct runner_parser *runner_parser_new(const struct runner *r)
{
    struct runner_parser *p = xcalloc(1, sizeof *p);
    if (!r->ops && runner_of_kind(r->kind))
        r = runner_of_kind(r->kind);
    p->r = r;
    p->pending = SIZE_MAX;
    p->last_announced = SIZE_MAX;
    p->last_result = SIZE_MAX;
    p->yaml_indent = SIZE_MAX;
    p->tap_plan = -1;
    p->max_line = r->ops && r->ops->max_line ? r->ops->max_line : RUNNER_MAX_LINE;
    p->cap = 256;
    p->line = xmalloc(p->cap);
    if (r->ops && r->ops->state_new)
        p->state = r->ops->state_new();
    return p;
}

void runner_parser_feed(struct runner_parser *p, const void *bytes, size_t len)
{
    const char *b = bytes;
    if (p->finished)
        return;
    /* with a reporter, the output is only the fallback's */
    if (p->fallback) {
        runner_parser_feed(p->fallback, bytes, len);
        return;
    }
    while (len) {
        const char *nl = memchr(b, '\n', len);
        size_t take = nl ? (size_t)(nl - b) : len;
        size_t room = p->max_line - p->len;
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
            free(p->announcing);
            p->announcing = p->r->ops && p->r->ops->partial && !p->overlong
                                ? p->r->ops->partial(p, p->line, p->len) : NULL;
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
    if (p->report && report_finish(p, killed))
        return;
    /* the last line, unterminated: pytest's id of the test that was
     * running when the run stopped */
    p->line_end = p->fed;
    p->line_start = p->next_line_start;
    if (p->len)
        parse_line(p);
    /* what ends here ended with the run: after any denial */
    p->line_end = UINT64_MAX;
    p->killed = killed;
    if (p->r->ops && p->r->ops->finish)
        p->r->ops->finish(p);
    for (size_t i = 0; i < p->n; i++)
        if (p->entries[i].running)
            result_at(p, i, killed ? TEST_TIMED_OUT : TEST_ERRORED);
    /* a parent reported after its subtests (TAP prints the subtests
     * first) */
    for (size_t i = 0; i < p->n; i++)
        if (p->tests[i].parent) {
            size_t k = find_test(p, p->tests[i].unit, p->tests[i].parent, false);
            if (k != SIZE_MAX && p->tests[k].kind == RUNNER_TEST_CASE)
                p->tests[k].kind = RUNNER_TEST_PARENT;
        }
    report_resolve(p);
    p->finished = true;
}

const char *runner_parser_announced(const struct runner_parser *p, const char **unit, bool *done)
{
    *unit = NULL;
    *done = false;
    if (p->announcing)
        return p->announcing;
    size_t i = p->last_announced;
    if (i == SIZE_MAX)
        return NULL;
    *unit = p->tests[i].unit;
    *done = p->entries[i].has_result;
    return p->tests[i].id;
}

size_t runner_parser_index(const struct runner_parser *p, const char *unit, const char *id)
{
    return find_test((struct runner_parser *)p, unit, id, false);
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
    report_free(p);
    for (size_t i = 0; i < p->n; i++) {
        free(p->tests[i].id);
        free(p->tests[i].unit);
        free(p->tests[i].parent);
    }
    free(p->tests);
    free(p->suite_spans);
    free(p->inherited);
    free(p->worker_runs);
    free(p->worker_spans);
    free(p->announcing);
    free(p->entries);
    free(p->by_key.slots);
    for (size_t i = 0; i < TAP_MAX_DEPTH; i++)
        free(p->tap_stack[i]);
    if (p->r->ops && p->r->ops->state_free)
        p->r->ops->state_free(p->state);
    free(p->unit);
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
