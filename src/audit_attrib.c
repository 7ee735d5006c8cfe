/* Suspects of a denial and the tally that checks them (audit_attrib.h). */
#include "config.h"

#include "audit_attrib.h"

#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_report(const void *a, const void *b, void *data)
{
    const struct runner_test *tests = data;
    size_t i = *(const size_t *)a, k = *(const size_t *)b;
    if (tests[i].reported_pos != tests[k].reported_pos)
        return tests[i].reported_pos < tests[k].reported_pos ? -1 : 1;
    return i < k ? -1 : i > k; /* the parser's order within one line */
}

static int by_announcement(const void *a, const void *b, void *data)
{
    const struct runner_test *tests = data;
    size_t i = *(const size_t *)a, k = *(const size_t *)b;
    if (tests[i].announced_pos != tests[k].announced_pos)
        return tests[i].announced_pos < tests[k].announced_pos ? -1 : 1;
    return i < k ? -1 : i > k;
}

size_t audit_suspects(const struct ledger_event *events, size_t nevents, const bool *done,
                      const struct runner_test *tests, size_t n, size_t tier, bool *suspect)
{
    size_t *order = xcalloc(n + 1, sizeof *order);
    size_t reported = 0;
    /* a test with subtests (go's TestTable) reports before them, and its
     * run is theirs: it is never the suspect, so a subtest's call is
     * looked for in the subtests reporting after it (a parent suspected
     * and re-run accounted for the call, and no subtest was judged on it) */
    for (size_t i = 0; i < n; i++)
        if (tests[i].reported_pos && tests[i].kind != RUNNER_TEST_PARENT)
            order[reported++] = i;
    qsort_r(order, reported, sizeof *order, by_report, (void *)tests);
    size_t marked = 0;
    for (size_t e = 0; e < nevents; e++) {
        if (events[e].output_pos == LEDGER_NO_POS)
            continue;
        if (done && events[e].row != LEDGER_NO_ROW && done[events[e].row])
            continue;
        /* the first result line that ends past the denial: a test
         * reports after its calls returned, and the denied one returned
         * after the ledger read the position */
        size_t lo = 0, hi = reported;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (tests[order[mid]].reported_pos <= events[e].output_pos)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo + tier < reported && !suspect[order[lo + tier]]) {
            suspect[order[lo + tier]] = true;
            marked++;
        }
    }
    free(order);
    return marked;
}

static bool place(const struct ledger_event *events, size_t nevents, const struct runner_test *tests,
                  size_t n, const struct runner_span *spans, size_t nspans, size_t *owner, bool suite);

bool audit_place_events(const struct ledger_event *events, size_t nevents,
                        const struct runner_test *tests, size_t n, size_t *owner)
{
    return place(events, nevents, tests, n, NULL, 0, owner, false);
}

static int by_test_tid(const void *a, const void *b)
{
    const struct runner_inherited *x = a, *y = b;
    if (x->test != y->test)
        return x->test < y->test ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

bool audit_place_events_suite(const struct ledger_event *events, size_t nevents,
                              const struct runner_test *tests, size_t n, const struct runner_span *spans,
                              size_t nspans, const struct runner_inherited *inherited, size_t ninh,
                              size_t *owner, bool *leftover)
{
    if (!place(events, nevents, tests, n, spans, nspans, owner, true))
        return false;
    if (!leftover)
        return true;
    struct runner_inherited *sorted = xcalloc(ninh + 1, sizeof *sorted);
    if (ninh)
        memcpy(sorted, inherited, ninh * sizeof *sorted);
    qsort(sorted, ninh, sizeof *sorted, by_test_tid);
    for (size_t e = 0; e < nevents; e++) {
        leftover[e] = false;
        if (owner[e] == AUDIT_OWNER_STARTUP || owner[e] == AUDIT_OWNER_BETWEEN)
            continue;
        struct runner_inherited key = { owner[e], events[e].who.tid };
        leftover[e] = bsearch(&key, sorted, ninh, sizeof *sorted, by_test_tid) != NULL;
    }
    free(sorted);
    return true;
}

uint64_t audit_tests_begin(const struct runner_test *tests, size_t n, bool *certain)
{
    uint64_t announced = UINT64_MAX, reported = UINT64_MAX;
    bool all_announced = true;
    for (size_t i = 0; i < n; i++) {
        const struct runner_test *t = &tests[i];
        if (t->announced_pos && t->announced_pos < announced)
            announced = t->announced_pos;
        if (t->reported_pos && t->reported_pos != UINT64_MAX) {
            if (t->reported_pos < reported)
                reported = t->reported_pos;
            if (!t->announced_pos)
                all_announced = false;
        }
    }
    if (all_announced && announced != UINT64_MAX) {
        *certain = true;
        return announced;
    }
    *certain = false;
    return reported < announced ? reported : announced;
}

/* Whether pos is in one of spans[0..n), which are in the order recorded:
 * by their begin, none overlapping. */
static bool in_span(const struct runner_span *spans, size_t n, uint64_t pos)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (spans[mid].begin <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && pos < spans[lo - 1].end;
}

static bool place(const struct ledger_event *events, size_t nevents, const struct runner_test *tests,
                  size_t n, const struct runner_span *spans, size_t nspans, size_t *owner, bool suite)
{
    /* the announced runs, by where they start: for a serial runner they
     * do not overlap, and the one that holds a position is found by a
     * binary search and checked against its neighbour */
    size_t *order = xcalloc(n + 1, sizeof *order);
    size_t runs = 0;
    for (size_t i = 0; i < n; i++)
        if (tests[i].announced_pos && tests[i].reported_pos > tests[i].announced_pos)
            order[runs++] = i;
    qsort_r(order, runs, sizeof *order, by_announcement, (void *)tests);
    bool placed = true;
    for (size_t k = 1; k < runs && placed; k++)
        /* overlapping runs: two tests at once, nothing can be placed */
        if (tests[order[k]].announced_pos < tests[order[k - 1]].reported_pos)
            placed = false;
    for (size_t e = 0; e < nevents && placed; e++) {
        uint64_t pos = events[e].output_pos;
        if (pos == LEDGER_NO_POS) {
            placed = false;
            break;
        }
        if (suite && in_span(spans, nspans, pos)) {
            owner[e] = AUDIT_OWNER_BETWEEN;
            continue;
        }
        /* the last run announced at or before pos */
        size_t lo = 0, hi = runs;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (tests[order[mid]].announced_pos <= pos)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (!lo || tests[order[lo - 1]].reported_pos <= pos) {
            /* between runs: the runner's own time */
            if (suite)
                owner[e] = lo ? AUDIT_OWNER_BETWEEN : AUDIT_OWNER_STARTUP;
            else
                placed = false;
        } else
            owner[e] = order[lo - 1];
    }
    free(order);
    return placed;
}

static int by_id(const void *a, const void *b, void *data)
{
    const struct runner_test *tests = data;
    size_t i = *(const size_t *)a, k = *(const size_t *)b;
    int c = strcmp(tests[i].id, tests[k].id);
    return c ? c : (i < k ? -1 : i > k);
}

static int by_worker_begin(const void *a, const void *b)
{
    const struct runner_worker_run *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

bool audit_place_events_by_worker(const struct ledger_event *events, size_t nevents,
                                  const struct runner_worker_run *runs, size_t nruns,
                                  const struct runner_worker_span *spans, size_t nspans,
                                  const struct runner_inherited *inherited, size_t ninh,
                                  int controller, size_t *owner, bool *leftover)
{
    if (!nruns)
        return false;
    uint64_t first_begin = UINT64_MAX;
    for (size_t i = 0; i < nruns; i++)
        if (runs[i].begin_ns < first_begin)
            first_begin = runs[i].begin_ns;
    struct runner_worker_run *v = xmalloc(nruns * sizeof *v);
    memcpy(v, runs, nruns * sizeof *v);
    qsort(v, nruns, sizeof *v, by_worker_begin);
    /* a worker runs one test at a time */
    for (size_t i = 1; i < nruns; i++)
        if (v[i].pid == v[i - 1].pid && v[i].begin_ns < v[i - 1].end_ns) {
            free(v);
            return false;
        }
    size_t *own = xcalloc(nevents + 1, sizeof *own);
    bool *left = xcalloc(nevents + 1, sizeof *left);
    bool placed = true;
    for (size_t e = 0; e < nevents && placed; e++) {
        const struct ledger_caller *who = &events[e].who;
        uint64_t ns = events[e].ns;
        if (controller && who->tgid == controller) {
            own[e] = ns < first_begin ? AUDIT_OWNER_STARTUP : AUDIT_OWNER_BETWEEN;
            continue;
        }
        /* the worker: the caller's process, or its parent */
        int worker = 0;
        for (int k = 0; k < 2 && !worker; k++) {
            int pid = k ? who->ppid : who->tgid;
            if (pid <= 0)
                continue;
            size_t lo = 0, hi = nruns;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (v[mid].pid < pid)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < nruns && v[lo].pid == pid)
                worker = pid;
        }
        if (!worker) {
            placed = false;
            break;
        }
        /* its last run begun at or before the call */
        size_t lo = 0, hi = nruns;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (v[mid].pid < worker || (v[mid].pid == worker && v[mid].begin_ns <= ns))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (!lo || v[lo - 1].pid != worker) {
            own[e] = AUDIT_OWNER_STARTUP;
            continue;
        }
        const struct runner_worker_run *run = &v[lo - 1];
        if (ns > run->end_ns) {
            own[e] = AUDIT_OWNER_BETWEEN;
            continue;
        }
        bool suite = false;
        for (size_t k = 0; k < nspans && !suite; k++)
            suite = spans[k].pid == worker && spans[k].begin_ns <= ns && ns <= spans[k].end_ns;
        if (suite) {
            own[e] = AUDIT_OWNER_BETWEEN;
            continue;
        }
        own[e] = run->test;
        if (who->tgid == worker)
            for (size_t k = 0; k < ninh && !left[e]; k++)
                left[e] = inherited[k].test == run->test && inherited[k].tid == who->tid;
    }
    if (placed) {
        memcpy(owner, own, nevents * sizeof *owner);
        if (leftover)
            memcpy(leftover, left, nevents * sizeof *leftover);
    }
    free(own);
    free(left);
    free(v);
    return placed;
}

static const char *no_dot_slash(const char *p)
{
    while (p[0] == '.' && p[1] == '/')
        for (p += 2; *p == '/'; p++)
            ;
    return p;
}

static bool same_script(const char *arg, const char *unit)
{
    arg = no_dot_slash(arg);
    unit = no_dot_slash(unit);
    if (!*unit)
        return false;
    if (!strcmp(arg, unit))
        return true;
    size_t a = strlen(arg), u = strlen(unit);
    return a > u && arg[a - u - 1] == '/' && !strcmp(arg + a - u, unit);
}

bool audit_argv_runs(const char *argv, size_t len, const char *unit)
{
    if (!argv || !len || argv[len - 1] != '\0')
        return false;
    const char *end = argv + len;
    /* automake's harness runs each test through its driver with
     * "--test-name NAME" (test-driver, tap-driver.sh: every driver gets
     * it, before the "--" that starts the test's own command) */
    for (const char *a = argv + strlen(argv) + 1; a < end && strcmp(a, "--"); a += strlen(a) + 1) {
        if (!strncmp(a, "--test-name=", 12))
            return same_script(a + 12, unit);
        if (!strcmp(a, "--test-name"))
            return a + strlen(a) + 1 < end && same_script(a + strlen(a) + 1, unit);
    }
    if (same_script(argv, unit))
        return true;
    for (const char *a = argv + strlen(argv) + 1; a < end; a += strlen(a) + 1)
        if (a[0] != '-')
            return same_script(a, unit);
    return false;
}

/* How many of units[0..n) argv runs (two: more than one), the one in *which */
static size_t scripts_run(const char *argv, size_t len, const char *const *units, size_t n, size_t *which)
{
    size_t found = 0;
    for (size_t u = 0; u < n && found < 2; u++)
        if (audit_argv_runs(argv, len, units[u])) {
            *which = u;
            found++;
        }
    return found;
}

bool audit_place_events_by_argv(const struct ledger_event *events, size_t nevents,
                                const char *(*argv_of)(const void *data, uint16_t idx, size_t *len),
                                const void *data, const char *const *units, size_t nunits,
                                size_t *unit_of)
{
    for (size_t e = 0; e < nevents; e++) {
        size_t len = 0, which = 0, found = 0;
        const char *self = argv_of(data, events[e].who.argv, &len);
        if (self)
            found = scripts_run(self, len, units, nunits, &which);
        if (!found) {
            const char *parent = argv_of(data, events[e].who.parent_argv, &len);
            if (parent)
                found = scripts_run(parent, len, units, nunits, &which);
        }
        if (found != 1)
            return false;
        unit_of[e] = which;
    }
    return true;
}

bool audit_place_events_by_thread(const struct ledger_event *events, size_t nevents,
                                  const struct runner_test *tests, size_t n, size_t *owner)
{
    size_t *order = xcalloc(n + 1, sizeof *order);
    size_t cases = 0;
    for (size_t i = 0; i < n; i++)
        if (tests[i].kind == RUNNER_TEST_CASE && tests[i].id)
            order[cases++] = i;
    qsort_r(order, cases, sizeof *order, by_id, (void *)tests);
    const size_t cut = sizeof events[0].who.comm - 1;
    bool placed = true;
    for (size_t e = 0; e < nevents && placed; e++) {
        const char *comm = events[e].who.comm;
        size_t len = strnlen(comm, sizeof events[e].who.comm);
        if (!len || len > cut) {
            placed = false;
            break;
        }
        /* the first id not below the name: the ids it begins (when cut)
         * or equals follow it in order */
        size_t lo = 0, hi = cases;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strncmp(tests[order[mid]].id, comm, len) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t found = SIZE_MAX, matches = 0;
        for (size_t k = lo; k < cases && matches < 2; k++) {
            const char *id = tests[order[k]].id;
            if (strncmp(id, comm, len) != 0)
                break;
            if (len < cut && id[len] != '\0')
                continue; /* a longer name: the kernel kept this one whole */
            found = order[k];
            matches++;
        }
        /* a call after the test had reported came from a thread it left
         * behind (a pool it started, shared with the tests after it):
         * not the test's own, and nothing says whose */
        uint64_t pos = events[e].output_pos, reported = matches == 1 ? tests[found].reported_pos : 0;
        if (matches != 1 || (pos != LEDGER_NO_POS && reported && reported != UINT64_MAX && pos >= reported))
            placed = false;
        else
            owner[e] = found;
    }
    free(order);
    return placed;
}

struct tally_row {
    char *syscall, *address;
    int family, socket_family, address_family, errnum;
    uint64_t count;
};

struct denial_tally {
    struct tally_row *rows;
    size_t n, cap;
    uint64_t total;
};

struct denial_tally *denial_tally_new(void)
{
    return xcalloc(1, sizeof(struct denial_tally));
}

/* What was denied, callers left out (no copy: e's strings). */
static struct tally_row key_of(const struct ledger_entry *e)
{
    return (struct tally_row){
        .syscall = (char *)e->syscall, .address = (char *)(e->address ? e->address : ""),
        .family = e->family, .socket_family = e->socket_family,
        .address_family = e->address_family, .errnum = e->errnum,
    };
}

static bool same_key(const struct tally_row *a, const struct tally_row *b)
{
    return !strcmp(a->syscall, b->syscall) && !strcmp(a->address, b->address) &&
           a->family == b->family && a->socket_family == b->socket_family &&
           a->address_family == b->address_family && a->errnum == b->errnum;
}

static void add_row(struct denial_tally *t, const struct tally_row *key, uint64_t count);

bool denial_tally_add(struct denial_tally *t, const struct ledger *l)
{
    if (!l)
        return true;
    size_t cursor = 0;
    struct ledger_entry e;
    while (ledger_next(l, &cursor, &e)) {
        struct tally_row key = key_of(&e);
        add_row(t, &key, e.count);
    }
    return ledger_unlisted(l) == 0;
}

static bool contains(const struct denial_tally *a, const struct denial_tally *b)
{
    for (size_t i = 0; i < b->n; i++) {
        const struct tally_row *r = &b->rows[i];
        bool found = false;
        for (size_t k = 0; k < a->n && !found; k++) {
            found = same_key(&a->rows[k], r) && a->rows[k].count == r->count;
        }
        if (!found)
            return false;
    }
    return true;
}

bool denial_tally_equal(const struct denial_tally *a, const struct denial_tally *b)
{
    /* rows are distinct within a tally: the same rows both ways, with the
     * same counts, is the same multiset of denials */
    return a->n == b->n && a->total == b->total && contains(a, b) && contains(b, a);
}

void denial_tally_rows_done(const struct denial_tally *t, const struct ledger *l, bool *done)
{
    size_t cursor = 0;
    struct ledger_entry e;
    while (l && ledger_next(l, &cursor, &e)) {
        struct tally_row key = key_of(&e);
        uint64_t have = 0;
        for (size_t i = 0; i < t->n; i++)
            if (same_key(&t->rows[i], &key))
                have = t->rows[i].count;
        done[e.id] = have >= e.count;
    }
}

uint64_t denial_tally_total(const struct denial_tally *t)
{
    return t->total;
}

static struct tally_row *row_for(struct denial_tally *t, const struct tally_row *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (same_key(&t->rows[i], key))
            return &t->rows[i];
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->rows = xrealloc(t->rows, t->cap * sizeof *t->rows);
    }
    struct tally_row *r = &t->rows[t->n++];
    *r = *key;
    r->count = 0;
    r->syscall = xstrdup(key->syscall);
    r->address = xstrdup(key->address);
    return r;
}

static void add_row(struct denial_tally *t, const struct tally_row *key, uint64_t count)
{
    if (!count)
        return;
    row_for(t, key)->count += count;
    t->total += count;
}

void denial_tally_add_entry(struct denial_tally *t, const struct ledger_entry *e, uint64_t count)
{
    struct tally_row key = key_of(e);
    add_row(t, &key, count);
}

void denial_tally_add_before(struct denial_tally *t, const struct ledger *l, uint64_t pos)
{
    if (!l)
        return;
    const struct ledger_event *events;
    size_t n = ledger_events(l, &events);
    uint64_t *count = xcalloc(LEDGER_MAX_ROW_IDS, sizeof *count);
    for (size_t k = 0; k < n; k++)
        if (events[k].output_pos != LEDGER_NO_POS && events[k].output_pos < pos &&
            events[k].row < LEDGER_MAX_ROW_IDS)
            count[events[k].row]++;
    size_t cursor = 0;
    struct ledger_entry e;
    while (ledger_next(l, &cursor, &e))
        if (e.id < LEDGER_MAX_ROW_IDS)
            denial_tally_add_entry(t, &e, count[e.id]);
    free(count);
}

void denial_tally_add_tally(struct denial_tally *t, const struct denial_tally *o)
{
    for (size_t i = 0; o && i < o->n; i++)
        add_row(t, &o->rows[i], o->rows[i].count);
}

static uint64_t count_of(const struct denial_tally *t, const struct tally_row *key)
{
    for (size_t i = 0; t && i < t->n; i++)
        if (same_key(&t->rows[i], key))
            return t->rows[i].count;
    return 0;
}

uint64_t denial_tally_excess(const struct denial_tally *a, const struct denial_tally *b,
                             struct denial_tally *out)
{
    uint64_t excess = 0;
    for (size_t i = 0; a && i < a->n; i++) {
        uint64_t have = count_of(b, &a->rows[i]);
        if (a->rows[i].count > have) {
            excess += a->rows[i].count - have;
            if (out)
                add_row(out, &a->rows[i], a->rows[i].count - have);
        }
    }
    return excess;
}

struct denial_tally *denial_tally_common(const struct denial_tally *a, const struct denial_tally *b)
{
    struct denial_tally *t = denial_tally_new();
    for (size_t i = 0; a && i < a->n; i++) {
        uint64_t other = count_of(b, &a->rows[i]);
        add_row(t, &a->rows[i], other < a->rows[i].count ? other : a->rows[i].count);
    }
    return t;
}

void denial_tally_describe(const struct denial_tally *t, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; t && i < t->n; i++) {
        const struct tally_row *r = &t->rows[i];
        if (!r->count)
            continue;
        struct ledger_entry e = {
            .syscall = r->syscall, .family = r->family, .socket_family = r->socket_family,
            .address_family = r->address_family, .address = r->address, .errnum = r->errnum,
            .count = r->count,
        };
        char one[200];
        ledger_format_entry(&e, one, sizeof one);
        int w = snprintf(buf + used, len - used, "%s%s", used ? "; " : "", one);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
}

void denial_tally_free(struct denial_tally *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++) {
        free(t->rows[i].syscall);
        free(t->rows[i].address);
    }
    free(t->rows);
    free(t);
}
