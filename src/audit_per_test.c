/* `sbx audit`, test by test (issues 16, 25, 33, 34): both runs with the
 * runner told to report every test (runner.h), its output read as it goes
 * by (capture.h) and still shown, then each denial attributed to the test
 * that made it, and a verdict per test (audit_tests.h).
 *
 * What the table says must be true row by row, so:
 * - a test with no result on a side (its process died with another
 *   test, a timeout, a crash, a runner that stopped early) is run again
 *   alone there; still without one, it is not-observed, never
 *   fails-without-denial;
 * - a denial made before any test ran (the runner's start, imports,
 *   collection: CPython's test.support binds [::1]:0 at import in every
 *   process) or between two tests (a class or module fixture) is the
 *   suite's, said once, and charged to no test; a test's run alone is
 *   judged less its start-up (the runner's baseline run that selects no
 *   test, or what the run made before it announced the test), and where
 *   the two cannot be told apart the test is not-observed, not a false
 *   green;
 * - re-runs are bounded: each by its test's own time under the profile,
 *   all together by a multiple of the two runs, and in number; what is
 *   not re-run is not-observed;
 * - fixtures are rows of their own, parents take their subtests' verdict.
 *
 * Attribution is exact rather than fast: when the output cannot place a
 * denial, every test whose verdict depends on it is run again alone (or
 * in groups, bisected, where the runner selects a set) under --against,
 * and that run's denials are its own. A runner that cannot run one test
 * (TAP) gets the whole run's denials, says so, and never ends
 * trustworthy. */
#include "config.h"

#include "audit_per_test.h"

#include "audit.h"
#include "audit_attrib.h"
#include "audit_signals.h"
#include "audit_tests.h"
#include "capture.h"
#include "exit.h"
#include "fix.h"
#include "ledger.h"
#include "log.h"
#include "report.h"
#include "runner.h"
#include "sandbox.h"
#include "util.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <pthread.h>
#include <sys/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What a re-run of one test keeps of its output: enough for the runtime's
 * "Too many open files" and the traceback around it, bounded (the bytes
 * are the command's). */
#define RERUN_OUTPUT_MAX (1u << 20)

/* A test's time within a run (issue 34). Under the profile, each test's
 * own time, measured between its announcement and its result where the
 * runner gives none (unittest before 3.12); under --against, the run is
 * stopped once the test running has had its bound, so that a suite whose
 * tests hang one after another (test_xmlrpc's setUp waits, with no
 * timeout, for a server whose bind was denied) costs seconds a test, not
 * the whole run's bound each time. A test whose call was denied since it
 * started is most likely waiting on it: its floor is short. */
#define AUDIT_TEST_FLOOR_MS 10000
#define AUDIT_TEST_DENIED_FLOOR_MS 2000
/* a denial seen this long before the test's announcement was read may
 * still be its own: the two threads see them in either order */
#define AUDIT_TEST_DENIED_SLACK_MS 100

struct own_times;

struct test_clock {
    pthread_mutex_t lock;
    /* the capture's thread */
    char *running, *running_unit; /* the test announced last; NULL: none yet */
    bool running_now;            /* (for the supervisor's thread) */
    bool measured_done;          /* its result came: measured */
    uint64_t since_ms;
    uint64_t *measured;          /* by the parser's index, us; NULL: not measuring */
    size_t nmeasured;
    const struct own_times *own; /* NULL: no bound per test */
    uint64_t bound_ms;           /* the running test's: its own time x the factor */
    /* the supervisor's thread */
    uint64_t denied_seen, denied_at_ms;
    bool fired;                  /* the run was stopped at a test's bound */
    char fired_test[256];
    uint64_t fired_after_ms;
};

/* Each test's own time under the profile, by name. */
struct own_times {
    const struct runner_test *v;
    size_t n;
    uint64_t *us;                /* v's durations, else measured; 0: unknown */
    uint64_t default_us;         /* for a test without one */
    size_t *slot;                /* a hash of v by (unit, id): index + 1 */
    size_t size;
};

static uint64_t own_time_of(const struct own_times *o, const struct runner_test *t);

static void clock_init(struct test_clock *c, bool measure, const struct own_times *own)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    c->measured = measure ? xcalloc(16, sizeof *c->measured) : NULL;
    c->nmeasured = measure ? 16 : 0;
    c->own = own;
}

static void clock_free(struct test_clock *c)
{
    pthread_mutex_destroy(&c->lock);
    free(c->measured);
    free(c->running);
    free(c->running_unit);
    c->measured = NULL;
    c->running = c->running_unit = NULL;
}

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* After each chunk fed: a test announced since? The one announced last
 * is bounded from when it was seen announced until the next one is: in
 * its run, but also after its result (Python 3.11 reports a failure
 * before tearDown, where test_xmlrpc's tests then wait for ever). */
static void clock_update(struct test_clock *c, const struct runner_parser *p)
{
    bool done;
    const char *unit, *id = runner_parser_announced(p, &unit, &done);
    bool same = same_str(id, c->running) && same_str(unit, c->running_unit);
    if (same && (!done || c->measured_done))
        return;
    uint64_t now = monotonic_ms();
    pthread_mutex_lock(&c->lock);
    if (!same) {
        free(c->running);
        free(c->running_unit);
        c->running = id ? xstrdup(id) : NULL;
        c->running_unit = unit ? xstrdup(unit) : NULL;
        c->running_now = id != NULL;
        c->since_ms = now;
        c->measured_done = false;
        if (c->own && id) {
            struct runner_test t = { .id = (char *)id, .unit = (char *)unit };
            c->bound_ms = own_time_of(c->own, &t) / 1000 * AUDIT_AGAINST_FACTOR;
            snprintf(c->fired_test, sizeof c->fired_test, "%s", id);
        }
    }
    size_t k = done && c->measured ? runner_parser_index(p, unit, id) : SIZE_MAX;
    if (k != SIZE_MAX) {
        if (k >= c->nmeasured) {
            size_t cap = c->nmeasured;
            while (cap <= k)
                cap *= 2;
            c->measured = xrealloc(c->measured, cap * sizeof *c->measured);
            memset(c->measured + c->nmeasured, 0, (cap - c->nmeasured) * sizeof *c->measured);
            c->nmeasured = cap;
        }
        c->measured[k] = (now - c->since_ms) * 1000 + 1;
    }
    c->measured_done = done;
    pthread_mutex_unlock(&c->lock);
}

/* sandbox_request.stop_at: the running test's start, its bound and floor. */
static uint64_t clock_stop_at(void *data, uint64_t denied)
{
    struct test_clock *c = data;
    uint64_t now = monotonic_ms(), at = 0;
    pthread_mutex_lock(&c->lock);
    if (denied > c->denied_seen) {
        c->denied_seen = denied;
        c->denied_at_ms = now;
    }
    if (c->own && c->running_now && !c->fired) {
        bool waits_on_denial = c->denied_seen && c->denied_at_ms + AUDIT_TEST_DENIED_SLACK_MS >= c->since_ms;
        at = c->since_ms + c->bound_ms + (waits_on_denial ? AUDIT_TEST_DENIED_FLOOR_MS : AUDIT_TEST_FLOOR_MS);
        if (now >= at) {
            c->fired = true;
            c->fired_after_ms = now - c->since_ms;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return at;
}

struct sink {
    struct runner_parser *parser;
    struct test_clock *clock;  /* NULL: no test's time kept */
    char *buf;         /* NULL: not kept */
    size_t len;
    /* the whole run's output, scanned as it goes by for a descriptor
     * limit reached (test_output_at_limit), across chunk boundaries */
    bool scan;
    const char *limit;
    char tail[64];
    size_t tail_len;
    /* a main run's output when it is not shown (without -v): its last
     * OUTPUT_TAIL_MAX bytes, for the lines shown when the run fails and
     * for --report; NULL: not kept */
    char *ring;
    size_t ring_len;   /* bytes in the ring, <= OUTPUT_TAIL_MAX */
    size_t ring_start; /* where the oldest byte is */
    uint64_t total;    /* every byte the run wrote */
    /* a main run not shown, on a terminal: a line counting its results,
     * rewritten in place (at most 4 times a second) */
    const char *progress;
    uint64_t progress_ms;
    size_t progress_n;
    pthread_mutex_t lock;  /* the parser: the capture's thread feeds it */
};

#define OUTPUT_TAIL_MAX (64u << 10)

static void ring_add(struct sink *s, const char *bytes, size_t len)
{
    s->total += len;
    if (len >= OUTPUT_TAIL_MAX) {
        memcpy(s->ring, bytes + len - OUTPUT_TAIL_MAX, OUTPUT_TAIL_MAX);
        s->ring_start = 0;
        s->ring_len = OUTPUT_TAIL_MAX;
        return;
    }
    for (size_t done = 0; done < len;) {
        size_t at = (s->ring_start + s->ring_len) % OUTPUT_TAIL_MAX;
        size_t room = OUTPUT_TAIL_MAX - at, take = len - done < room ? len - done : room;
        memcpy(s->ring + at, bytes + done, take);
        done += take;
        s->ring_len += take;
        if (s->ring_len > OUTPUT_TAIL_MAX) {
            s->ring_start = (s->ring_start + s->ring_len - OUTPUT_TAIL_MAX) % OUTPUT_TAIL_MAX;
            s->ring_len = OUTPUT_TAIL_MAX;
        }
    }
}

/* The ring's bytes in order, in a new buffer of *len bytes (NUL after). */
static char *ring_take(struct sink *s, size_t *len)
{
    char *out = xmalloc(s->ring_len + 1);
    size_t first = OUTPUT_TAIL_MAX - s->ring_start < s->ring_len ? OUTPUT_TAIL_MAX - s->ring_start
                                                                 : s->ring_len;
    memcpy(out, s->ring + s->ring_start, first);
    memcpy(out + first, s->ring, s->ring_len - first);
    out[s->ring_len] = '\0';
    *len = s->ring_len;
    return out;
}

static void scan_limit(struct sink *s, const char *bytes, size_t len)
{
    char seam[128];
    size_t head = len < sizeof seam - s->tail_len ? len : sizeof seam - s->tail_len;
    memcpy(seam, s->tail, s->tail_len);
    memcpy(seam + s->tail_len, bytes, head);
    if (!test_output_at_limit(seam, s->tail_len + head, &s->limit))
        test_output_at_limit(bytes, len, &s->limit);
    if (len >= sizeof s->tail) {
        memcpy(s->tail, bytes + len - sizeof s->tail, sizeof s->tail);
        s->tail_len = sizeof s->tail;
    } else {
        size_t keep = s->tail_len + len > sizeof s->tail ? sizeof s->tail - len : s->tail_len;
        memmove(s->tail, s->tail + s->tail_len - keep, keep);
        memcpy(s->tail + keep, bytes, len);
        s->tail_len = keep + len;
    }
}

/* The tests a thread's name names (ledger_thread_test_hook): libtest
 * names each test's thread after the test, and the kernel keeps 15 bytes
 * of it (TASK_COMM_LEN), so a row's "by tests::binds_to (tid 12)" gets the
 * one test of the run parsed so far whose name that is, or begins with
 * when cut. The capture's thread feeds the parser meanwhile: both hold
 * the sink's lock; the ids stay where they are until the parser is freed. */
static struct sink *thread_names_sink;

static const char *test_of_thread(const struct ledger_caller *who)
{
    struct sink *s = thread_names_sink;
    size_t len = strnlen(who->comm, sizeof who->comm);
    if (!s || !len)
        return NULL;
    const char *found = NULL;
    bool ambiguous = false;
    pthread_mutex_lock(&s->lock);
    size_t n;
    const struct runner_test *t = runner_parser_tests(s->parser, &n);
    for (size_t i = 0; i < n && !ambiguous; i++) {
        const char *id = t[i].id;
        if (len == sizeof who->comm - 1 ? strncmp(id, who->comm, len) != 0 : strcmp(id, who->comm) != 0)
            continue;
        ambiguous = found && strcmp(found, id) != 0;
        found = id;
    }
    pthread_mutex_unlock(&s->lock);
    /* only when it says more than the comm does */
    return found && !ambiguous && strlen(found) > len ? found : NULL;
}

/* Under the sink's lock: the progress line, where there is one. */
static void show_progress(struct sink *s)
{
    if (!s->progress)
        return;
    size_t n;
    runner_parser_tests(s->parser, &n);
    uint64_t now = monotonic_ms();
    if (n != s->progress_n && now - s->progress_ms >= 250) {
        /* log_output_fd: the terminal, while 2 is the capture's pipe */
        dprintf(log_output_fd, "\rsbx: audit: %s: %zu result(s) so far\033[K", s->progress, n);
        s->progress_n = n;
        s->progress_ms = now;
    }
}

static void feed_sink(int stream, const char *bytes, size_t len, void *data)
{
    struct sink *s = data;
    pthread_mutex_lock(&s->lock);
    if (stream == 3) {
        /* the result channel: the reporter's records, never the output */
        runner_parser_feed_report(s->parser, bytes, len);
        show_progress(s);
        pthread_mutex_unlock(&s->lock);
        return;
    }
    runner_parser_feed(s->parser, bytes, len);
    if (s->clock)
        clock_update(s->clock, s->parser);
    show_progress(s);
    pthread_mutex_unlock(&s->lock);
    if (s->ring)
        ring_add(s, bytes, len);
    if (s->scan && !s->limit)
        scan_limit(s, bytes, len);
    if (s->buf && s->len < RERUN_OUTPUT_MAX) {
        size_t take = len < RERUN_OUTPUT_MAX - s->len ? len : RERUN_OUTPUT_MAX - s->len;
        memcpy(s->buf + s->len, bytes, take);
        s->len += take;
    }
}

/* A main run's output, not shown: its last bytes and how many it wrote. */
struct run_tail {
    char *bytes; /* to free */
    size_t len;
    uint64_t total;
};

/* Where the results of the audit's runs came from (runner.h
 * runner_parser_channel), over all its runs, re-runs included: a channel
 * written by anything but the reporter, once, and the audit is
 * incomplete; results read from the output as a fallback, and it says
 * so. One audit per process. */
static struct {
    bool forged, fallback;
    char forged_why[256], fallback_why[256];
} channel_seen;

static void note_channel(struct runner_parser *p, const char *label)
{
    const char *why;
    enum runner_channel ch = runner_parser_channel(p, &why);
    if (ch == RUNNER_CHANNEL_FORGED && !channel_seen.forged) {
        channel_seen.forged = true;
        snprintf(channel_seen.forged_why, sizeof channel_seen.forged_why, "%s (%s)", why, label);
    } else if (ch == RUNNER_CHANNEL_FALLBACK && !channel_seen.fallback) {
        channel_seen.fallback = true;
        snprintf(channel_seen.fallback_why, sizeof channel_seen.fallback_why, "%s", why);
    }
}

/* A new key for a run's result channel (runner_report.h): random, so
 * that a record written blind by something else than the reporter
 * cannot carry it. */
static void new_key(char key[RUNNER_KEY_LEN + 1])
{
    unsigned char b[RUNNER_KEY_LEN / 2];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n < 0)
            die_errno("getrandom for the result channel's key");
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof b; i++)
        snprintf(key + 2 * i, 3, "%02x", b[i]);
}

/* One run of argv under p, within timeout_ms (0: the profile's), its
 * output parsed by a new parser (returned) and, with keep, kept in *kept
 * (*kept_len bytes, to free). With report (runner_command.report), the
 * results come from the result channel the command gets, not from the
 * output. With tail, its last bytes in *tail; with clock, each test's
 * time kept or bounded there. */
static struct runner_parser *run_side(const struct runner *r, const struct profile *p,
                                      char *const *argv, bool report, const char *cwd,
                                      const char *label, bool quiet, uint64_t timeout_ms,
                                      struct sandbox_result *res, int *status, char **kept,
                                      size_t *kept_len, const char **limit, struct run_tail *tail,
                                      struct test_clock *clock)
{
    struct sink s = { .parser = runner_parser_new(r), .buf = kept ? xcalloc(1, RERUN_OUTPUT_MAX) : NULL,
                      .scan = limit != NULL, .ring = tail ? xmalloc(OUTPUT_TAIL_MAX) : NULL,
                      .progress = tail && isatty(log_output_fd) ? label : NULL, .clock = clock };
    pthread_mutex_init(&s.lock, NULL);
    unsigned flags = CAPTURE_MERGED | (quiet ? CAPTURE_QUIET : 0);
    char key[RUNNER_KEY_LEN + 1];
    size_t greeting_len = 0;
    char *greeting = NULL, **keyed = NULL;
    if (report) {
        new_key(key);
        greeting = runner_report_greeting(r, key, &greeting_len);
        /* node --test: each worker writes itself, the key on its command
         * line (no greeting: the runner's own process runs no code of sbx's) */
        if (!greeting && (keyed = runner_report_keyed(r, argv, key)))
            argv = keyed;
    }
    struct capture *cap = greeting || keyed ? capture_start_report(feed_sink, &s, flags, greeting, greeting_len)
                                            : capture_start(feed_sink, &s, flags);
    if (greeting)
        runner_parser_expect_report(s.parser, key);
    else if (keyed)
        runner_parser_expect_clock(s.parser, key);
    free(greeting);
    thread_names_sink = &s;
    ledger_thread_test_hook = test_of_thread;
    struct sandbox_request req = {
        .profile = p, .argv = argv, .cwd = cwd, .label = label, .timeout_ms = timeout_ms,
        .may_start = audit_may_start, .stop_signals = audit_caught_signals(),
        /* each denial's place in the output (with a reporter: in its
         * records), to join with the results' */
        .output_position = capture_position, .output_position_data = cap,
        /* prove, make check: each script runs in a process of its own,
         * which its command line names (attribute_by_process) */
        .caller_argv = r->attribution == RUNNER_ATTRIBUTE_UNIT,
        .report_fd = capture_report_fd(cap) > 2 ? capture_report_fd(cap) : 0,
        .report_fd_at = RUNNER_REPORT_FD,
        .stop_at = clock && clock->own ? clock_stop_at : NULL, .stop_at_data = clock,
    };
    *status = sandbox_run(&req, res);
    runner_argv_free(keyed);
    ledger_thread_test_hook = NULL;
    thread_names_sink = NULL;
    capture_stop(cap);
    if (s.progress_n)
        dprintf(log_output_fd, "\r\033[K");
    pthread_mutex_destroy(&s.lock);
    runner_parser_finish(s.parser, res->timed_out);
    note_channel(s.parser, label);
    if (kept) {
        *kept = s.buf;
        *kept_len = s.len;
    }
    if (limit)
        *limit = s.limit;
    if (tail) {
        tail->bytes = ring_take(&s, &tail->len);
        tail->total = s.total;
        free(s.ring);
    }
    return s.parser;
}

/* Without -v the suite's output is not shown (issue 34: a person reads
 * the table and the summary; CPython's network suite writes ~9,900
 * lines). A run that failed shows its last lines, where the reason
 * usually is; all of it is shown live with -v, and its tail is in
 * --report. */
#define TAIL_LINES 20
static void show_tail(const struct run_tail *t)
{
    size_t end = t->len;
    while (end && t->bytes[end - 1] == '\n')
        end--;
    size_t from = end, lines = 0;
    while (from && lines < TAIL_LINES) {
        from--;
        if (t->bytes[from] == '\n' && ++lines == TAIL_LINES) {
            from++;
            break;
        }
    }
    if (from == end)
        return;
    fprintf(stderr, "sbx: audit: the last lines of its output (all of it with -v, the last %u KiB "
            "in --report):\n", OUTPUT_TAIL_MAX >> 10);
    for (size_t i = from; i < end;) {
        size_t nl = i;
        while (nl < end && t->bytes[nl] != '\n')
            nl++;
        /* the command's bytes: no control character reaches the
         * terminal from sbx's own lines (an escape sequence could
         * rewrite what sbx printed above it) */
        fputs("  | ", stderr);
        for (size_t k = i; k < nl && k < i + 400; k++) {
            unsigned char c = (unsigned char)t->bytes[k];
            fputc((c < 0x20 && c != '\t') || c == 0x7f ? '?' : c, stderr);
        }
        fputc('\n', stderr);
        i = nl + 1;
    }
}

struct judged_test {
    const struct runner_test *under, *against; /* NULL: not reported in that run */
    struct test_judged j;
    enum test_verdict verdict;
    enum runner_test_kind kind;
    char denied_text[256]; /* the calls denied to it, for people */
    const char *limit;     /* "EMFILE": the limit its failure under --against hit */
    uint64_t own_us;       /* its time under the profile, as the runner said; 0: unknown */
    size_t parent;         /* index + 1 of its parent's row; 0: none */
    size_t subtests;       /* rows whose parent it is */
    bool subtests_seen;    /* its verdict is its subtests' already */
    bool whole_run;        /* the run's denials, not attributed to it alone */
    bool whole_run_entry;  /* "(the run itself)": no test of its own to re-run */
    bool by_unit;          /* counted in a run of its script (prove, make check) */
    bool tried;            /* a suspect (audit_attrib.h) re-run, or found it cannot be */
    bool placed;           /* its denials placed by the output (audit_place_events) */
    bool placed_text;      /* ... and denied_text written */
    bool placed_in_set;    /* ... in the run of a set it got its result in (then alone too) */
    bool alone;            /* its denials are those of a run of it alone */
    bool accounted;        /* not re-run: the runs alone made every denial */
    bool grouped;          /* not re-run alone: a run of its group made no denial of its own */
    bool rerun[2];         /* its result on that side is that of a run of it alone */
    bool in_set[2];        /* ... of a run of the tests without one, together */
    bool capped;           /* not re-run: a bound of the audit came first */
    /* its run alone under --against, everything denied there, and whether
     * its own were told from the start-up's by the whole run's start-up
     * (then resolve_startup() may judge them again) */
    struct denial_tally *alone_tally, *own_tally;
    bool by_startup;
    bool witness;          /* run alone to learn the start-up's calls */
    bool by_suite;         /* exercised by the suite's start-up's or fixture's denials */
    bool passes_alone;     /* failed under --against, passed there alone (check_limits) */
    /* check_limits() in sets: in the set run now; its set's run settled
     * it; that run left it open, to run alone */
    bool limit_in_set, limit_by_set, limit_alone;
};

/* The tests of one run by (unit, id), so that joining two runs of up to
 * RUNNER_MAX_TESTS tests each is linear, not quadratic. */
struct test_index {
    const struct runner_test *v;
    size_t *slot;          /* index + 1; 0: empty */
    size_t size;           /* a power of two, at least twice the tests */
};

static uint64_t hash_name(const char *id, const char *unit)
{
    uint64_t h = 1469598103934665603u;
    for (const char *s = id; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    h = (h ^ 0xff) * 1099511628211u;
    for (const char *s = unit ? unit : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static bool same_unit(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool same_test(const struct runner_test *a, const struct runner_test *b)
{
    return !strcmp(a->id, b->id) && same_unit(a->unit, b->unit);
}

static void test_index_build(struct test_index *x, const struct runner_test *v, size_t n)
{
    x->v = v;
    x->size = 16;
    while (x->size < 2 * n)
        x->size *= 2;
    x->slot = xcalloc(x->size, sizeof *x->slot);
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)hash_name(v[i].id, v[i].unit) & (x->size - 1);
        while (x->slot[k])
            k = (k + 1) & (x->size - 1);
        x->slot[k] = i + 1;
    }
}

/* The index + 1 of the test named (id, unit); 0: none. */
static size_t find_name(const struct test_index *x, const char *id, const char *unit)
{
    for (size_t k = (size_t)hash_name(id, unit) & (x->size - 1); x->slot[k]; k = (k + 1) & (x->size - 1)) {
        const struct runner_test *t = &x->v[x->slot[k] - 1];
        if (!strcmp(t->id, id) && same_unit(t->unit, unit))
            return x->slot[k];
    }
    return 0;
}

static const struct runner_test *find_test(const struct test_index *x, const struct runner_test *t)
{
    size_t i = find_name(x, t->id, t->unit);
    return i ? &x->v[i - 1] : NULL;
}

/* tests' own times: v's durations, else what the clock measured (by the
 * same index), else unknown */
static void own_times_build(struct own_times *o, const struct runner_test *v, size_t n,
                            const struct test_clock *measured, uint64_t default_us)
{
    o->v = v;
    o->n = n;
    o->default_us = default_us;
    o->us = xcalloc(n + 1, sizeof *o->us);
    for (size_t i = 0; i < n; i++)
        o->us[i] = v[i].duration_us ? v[i].duration_us
                   : measured && i < measured->nmeasured ? measured->measured[i] : 0;
    struct test_index x;
    test_index_build(&x, v, n);
    o->slot = x.slot;
    o->size = x.size;
}

static uint64_t own_time_of(const struct own_times *o, const struct runner_test *t)
{
    struct test_index x = { o->v, o->slot, o->size };
    size_t i = find_name(&x, t->id, t->unit);
    return i && o->us[i - 1] ? o->us[i - 1] : o->default_us;
}

static void own_times_free(struct own_times *o)
{
    free(o->us);
    free(o->slot);
}

static void describe_denials(const struct ledger *l, char *buf, size_t len)
{
    struct denial_tally *t = denial_tally_new();
    denial_tally_add(t, l);
    denial_tally_describe(t, buf, len);
    denial_tally_free(t);
}

static bool status_failed(enum test_status s)
{
    return s != TEST_PASSED && s != TEST_SKIPPED;
}

/* Does the verdict of this test depend on how many denials are its own? */
static bool needs_attribution(const struct test_judged *j)
{
    if (j->unobserved_under || j->unobserved_against)
        return false;
    if (j->under == TEST_PASSED)
        return j->against != TEST_SKIPPED;
    return status_failed(j->under) && j->against == TEST_PASSED;
}

static const struct runner_test *any_of(const struct judged_test *t)
{
    return t->under ? t->under : t->against;
}

static const char *kind_name(enum runner_test_kind k)
{
    return k == RUNNER_TEST_FIXTURE ? "fixture" : k == RUNNER_TEST_PARENT ? "parent" : "test";
}

/* The nofile a profile sets, 0 where it sets none or max/unlimited. */
static unsigned long long nofile_value(const struct profile *p)
{
    const struct limit_setting *l = &p->limits[LIMIT_NOFILE];
    return l->set && !l->max && !l->unlimited ? (unsigned long long)l->value : 0;
}

static struct json_object *test_json(const struct judged_test *t, const char *names[2],
                                     const struct profile *against)
{
    const struct runner_test *any = any_of(t);
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(any->id));
    json_object_object_add(o, "unit", any->unit ? json_object_new_string(any->unit) : NULL);
    json_object_object_add(o, "kind", json_object_new_string(kind_name(t->kind)));
    json_object_object_add(o, "parent", any->parent ? json_object_new_string(any->parent) : NULL);
    for (int side = 0; side < 2; side++) {
        struct json_object *u = json_object_new_object();
        json_object_object_add(u, "profile", json_object_new_string(names[side]));
        bool unobserved = side ? t->j.unobserved_against : t->j.unobserved_under;
        json_object_object_add(u, "status", unobserved ? NULL : json_object_new_string(
                                   test_status_name(side ? t->j.against : t->j.under)));
        json_object_object_add(u, "observed", json_object_new_boolean(!unobserved));
        json_object_object_add(u, "rerun_alone", json_object_new_boolean(t->rerun[side]));
        json_object_object_add(o, side ? "against" : "under", u);
    }
    json_object_object_add(o, "denied_count", json_object_new_int64((int64_t)t->j.denied));
    json_object_object_add(o, "denied", json_object_new_string(t->denied_text));
    json_object_object_add(o, "attributed", json_object_new_string(t->whole_run ? "whole-run"
                                                                   : t->placed_in_set ? "set"
                                                                   : t->by_unit ? "unit"
                                                                   : t->accounted ? "accounted"
                                                                   : t->grouped ? "group"
                                                                   : t->by_suite ? "suite"
                                                                   : t->placed ? "placed"
                                                                   : t->alone ? "alone"
                                                                              : "none"));
    json_object_object_add(o, "denials_ambiguous", json_object_new_boolean(t->j.denials_ambiguous));
    json_object_object_add(o, "limit", t->limit ? json_object_new_string(t->limit) : NULL);
    if (t->verdict == TEST_FAILS_AT_LIMIT) {
        struct fix f;
        fix_for_limit(t->limit, names[1], nofile_value(against), &f);
        json_object_object_add(o, "fix", fix_to_json(&f));
    }
    json_object_object_add(o, "not_rerun_bound", json_object_new_boolean(t->capped));
    /* how check_limits() re-ran a test that failed without a denial */
    json_object_object_add(o, "limit_check", t->limit_by_set ? json_object_new_string("set")
                                             : t->limit_alone ? json_object_new_string("alone") : NULL);
    json_object_object_add(o, "verdict", json_object_new_string(test_verdict_name(t->verdict)));
    return o;
}

/* sbx(1) AUDIT: 128+N, and no verdict from a part of the evidence.
 * during 2: the re-runs of single tests, after both runs. */
static int interrupted(int sig, int during, const char *names[2], bool report)
{
    audit_print_interrupted(stderr, sig, during, names);
    if (report) {
        report_audit_interrupted(sig, during);
        if (!report_audit_write(NULL, 128 + sig))
            return SBX_EXIT_FAILURE;
    }
    return 128 + sig;
}

struct baseline {
    char *key;                   /* its argv, joined */
    struct denial_tally *tally;  /* NULL: it could not be run */
};

/* Re-runs of single tests (and groups, baselines), on either side. */
struct reruns {
    /* a re-run of one test given the runner's whole start-up floor
     * (AUDIT_AGAINST_FLOOR_MS), not 3 x the quickest re-run's: the
     * second try of one killed at its bound before its result */
    bool full_floor;
    const struct runner *r;
    char *const *command;
    const char *cwd;
    const struct profile *profiles[2];
    const char *names[2];
    uint64_t whole_bound_ms;      /* the --against run's bound: no re-run is longer */
    uint64_t default_test_us;     /* a test without its own time: the first run's share */
    const struct own_times *own;  /* each test's under the profile: a bound per test */
    size_t stopped_at_bound;      /* runs stopped at a test that had its time */
    const struct ledger *whole;   /* the whole run's, under --against */
    /* What the whole run denied before any test ran, made once; certain
     * when the runner announced every test (nothing ran before the first
     * announcement), else what came before the first result, which may
     * be the first test's too. */
    struct denial_tally *startup;
    bool startup_certain;
    struct baseline *baselines;
    size_t nbaselines;
    size_t done, todo;            /* for the progress */
    size_t started, max;          /* sandboxes started for re-runs; the cap */
    uint64_t deadline_ms;         /* CLOCK_MONOTONIC; 0: none */
    size_t capped;                /* tests not re-run for a bound */
    bool tty;                     /* progress on one updating line */
    bool inexact;                 /* a run's denials overflowed its ledger's table */
    uint64_t quickest_us;         /* the quickest re-run that ended by itself: the runner's start */
    const char *whole_limit;      /* "EMFILE": the whole run's output shows it reached one */
    struct denial_tally *own_sum; /* every run alone's own denials, start-up left out */
    /* What every run alone under --against denied (the start-up makes its
     * calls in each): a call one of them did not make is not the
     * start-up's. NULL before the first. */
    struct denial_tally *common;
    struct denial_tally *startup_guess; /* the first guess, before resolve_startup() */
    bool attributed;              /* every denial placed, or the runs alone accounted for all */
    bool all_rerun;               /* every test whose verdict depends on its denials was re-run */
    unsigned last_quarter;
};

#define AUDIT_RERUN_FLOOR_MIN_MS 2000

static bool budget_left(const struct reruns *a)
{
    return a->started < a->max && (!a->deadline_ms || monotonic_ms() < a->deadline_ms);
}

/* issue 34: a re-run of one test waits for that test, not for the whole
 * run: 3 x its own time under the profile (or its share of the first run)
 * on top of the floor that a runner's start needs, never longer than the
 * whole run's bound nor than what the audit's total bound leaves. */
static uint64_t rerun_bound_ms(const struct reruns *a, uint64_t own_us)
{
    uint64_t us = own_us ? own_us : a->default_test_us;
    /* the floor is the runner's own start: 10 s until a re-run showed
     * what it costs here (3 x the quickest, at least 2 s), so that a
     * suite whose tests hang one after another (a fixture that waits
     * for a server that never bound) costs seconds a test, not tens */
    uint64_t floor_ms = AUDIT_AGAINST_FLOOR_MS;
    if (a->quickest_us && !a->full_floor) {
        floor_ms = a->quickest_us / 1000 * AUDIT_AGAINST_FACTOR;
        if (floor_ms < AUDIT_RERUN_FLOOR_MIN_MS)
            floor_ms = AUDIT_RERUN_FLOOR_MIN_MS;
        if (floor_ms > AUDIT_AGAINST_FLOOR_MS)
            floor_ms = AUDIT_AGAINST_FLOOR_MS;
    }
    uint64_t ms = us / 1000 * AUDIT_AGAINST_FACTOR + floor_ms;
    if (a->whole_bound_ms && ms > a->whole_bound_ms)
        ms = a->whole_bound_ms;
    if (a->deadline_ms) {
        uint64_t now = monotonic_ms();
        uint64_t left = now < a->deadline_ms ? a->deadline_ms - now : 1;
        if (ms > left)
            ms = left < 1000 ? 1000 : left;
    }
    return ms;
}

static void progress(struct reruns *a, const char *id, const char *what)
{
    a->done++;
    if (a->todo < a->done)
        a->todo = a->done;
    if (log_verbosity >= LOG_VERBOSE) {
        fprintf(stderr, "sbx: audit: [%zu/%zu] %s: %s\n", a->done, a->todo, id, what);
    } else if (a->tty) {
        fprintf(stderr, "\rsbx: audit: re-run %zu of %zu: %.60s\033[K", a->done, a->todo, id);
    } else {
        unsigned quarter = (unsigned)(a->done * 4 / a->todo);
        if (quarter != a->last_quarter || a->done == 1) {
            a->last_quarter = quarter;
            fprintf(stderr, "sbx: audit: re-runs: %zu of %zu done\n", a->done, a->todo);
        }
    }
    fflush(stderr);
}

static void progress_end(struct reruns *a)
{
    if (a->tty && a->done && log_verbosity < LOG_VERBOSE)
        fprintf(stderr, "\n");
}

static char *join_argv(char *const *argv)
{
    size_t len = 1;
    for (size_t i = 0; argv[i]; i++)
        len += strlen(argv[i]) + 1;
    char *s = xcalloc(1, len);
    for (size_t i = 0; argv[i]; i++) {
        strcat(s, argv[i]);
        strcat(s, "\x1f");
    }
    return s;
}

/* Runs argv (the runner's reporting added) once under side's profile,
 * quiet: the parser, the result and, with kept, the output. Counts as a
 * re-run for the bounds. */
static struct runner_parser *rerun_argv_clocked(struct reruns *a, int side, char **argv,
                                                uint64_t own_us, const char *label,
                                                struct sandbox_result *res, char **kept,
                                                size_t *kept_len, bool *stopped_at_test,
                                                const char **limit);

static struct runner_parser *rerun_argv(struct reruns *a, int side, char **argv, uint64_t own_us,
                                        const char *label, struct sandbox_result *res, char **kept,
                                        size_t *kept_len)
{
    return rerun_argv_clocked(a, side, argv, own_us, label, res, kept, kept_len, NULL, NULL);
}

/* ... and *stopped_at_test when the run was stopped at a test's own
 * bound, the tests after it not run (under --against: test_clock); with
 * limit, the descriptor limit its output shows reached, or NULL. */
static struct runner_parser *rerun_argv_clocked(struct reruns *a, int side, char **argv,
                                                uint64_t own_us, const char *label,
                                                struct sandbox_result *res, char **kept,
                                                size_t *kept_len, bool *stopped_at_test,
                                                const char **limit)
{
    struct runner_command rc;
    char err[512];
    bool have = runner_command(a->r, argv, &rc, err, sizeof err);
    memset(res, 0, sizeof *res);
    int st;
    a->started++;
    /* sbx's own notices of each re-run ("timeout expired") are -v's:
     * hundreds of re-runs, one line each, drown the table (issue 34) */
    int verbosity = log_verbosity;
    if (log_verbosity < LOG_VERBOSE)
        log_verbosity = LOG_QUIET;
    struct test_clock clock;
    clock_init(&clock, false, side ? a->own : NULL);
    struct runner_parser *p = run_side(a->r, a->profiles[side], have ? rc.argv : argv, have && rc.report,
                                       a->cwd, label, true, rerun_bound_ms(a, own_us), res, &st, kept,
                                       kept_len, limit, NULL, &clock);
    log_verbosity = verbosity;
    if (clock.fired && res->timed_out)
        a->stopped_at_bound++;
    if (stopped_at_test)
        *stopped_at_test = clock.fired && res->timed_out;
    clock_free(&clock);
    if (res->command_ran && !res->timed_out && res->duration_us &&
        (!a->quickest_us || res->duration_us < a->quickest_us))
        a->quickest_us = res->duration_us;
    if (have)
        runner_command_free(&rc);
    return p;
}

/* The runner's run that starts as t's re-run would and selects no test
 * (runner_baseline_argv), run once per distinct command: its denials. NULL
 * when the runner has none or it could not be run. */
static const struct denial_tally *baseline_of(struct reruns *a, const struct runner_test *t, int *sig)
{
    char **argv = runner_baseline_argv(a->r, a->command, t);
    char *key = NULL;
    if (argv) {
        key = join_argv(argv);
    } else {
        /* The runner has no run that selects nothing: a re-run of a test
         * that does not exist, in t's unit, is one (the interpreter, the
         * imports, the collection, TestMain, and no test). One per unit. */
        size_t len = strlen(t->id) + 32;
        char *id = xcalloc(1, len);
        snprintf(id, len, "%s_sbx_selects_nothing", t->id);
        struct runner_test none = { .id = id, .unit = t->unit, .kind = RUNNER_TEST_CASE };
        argv = runner_rerun_argv(a->r, a->command, &none);
        free(id);
        if (!argv)
            return NULL;
        size_t klen = strlen(t->unit ? t->unit : "") + 16;
        key = xcalloc(1, klen);
        snprintf(key, klen, "\x1fnone\x1f%s", t->unit ? t->unit : "");
    }
    for (size_t i = 0; i < a->nbaselines; i++)
        if (!strcmp(a->baselines[i].key, key)) {
            free(key);
            runner_argv_free(argv);
            return a->baselines[i].tally;
        }
    struct denial_tally *tally = NULL;
    if (budget_left(a) && !(*sig = audit_stop_requested(NULL))) {
        struct sandbox_result res;
        struct runner_parser *p = rerun_argv(a, 1, argv, 0, "baseline", &res, NULL, NULL);
        *sig = audit_stop_requested(&res);
        size_t nt, ran = 0;
        const struct runner_test *v = runner_parser_tests(p, &nt);
        for (size_t i = 0; i < nt; i++)
            ran += v[i].kind == RUNNER_TEST_CASE && v[i].status != TEST_SKIPPED;
        tally = denial_tally_new();
        /* a run that ran a test selected more than nothing: no baseline */
        if (!res.command_ran || ran || !denial_tally_add(tally, res.ledger)) {
            denial_tally_free(tally);
            tally = NULL;
        }
        runner_parser_free(p);
        sandbox_result_free(&res);
    }
    runner_argv_free(argv);
    a->baselines = xrealloc(a->baselines, (a->nbaselines + 1) * sizeof *a->baselines);
    a->baselines[a->nbaselines++] = (struct baseline){ key, tally };
    /* the whole run's start-up is what a baseline makes, of what the
     * whole run made before its first result */
    if (tally && !a->startup_certain) {
        struct denial_tally *c = denial_tally_common(a->startup, tally);
        denial_tally_free(a->startup);
        a->startup = c;
        a->startup_certain = true;
    }
    return tally;
}

/* A result seen on side in a re-run. */
static void set_result(struct judged_test *t, int side, enum test_status status)
{
    if (side) {
        t->j.against = status;
        t->j.unobserved_against = false;
    } else {
        t->j.under = status;
        t->j.unobserved_under = false;
    }
}

enum rerun_outcome { RERUN_DONE, RERUN_CANNOT, RERUN_BOUND, RERUN_STOPPED };

static bool placeable(const struct runner *r, const struct runner_parser *p);
static bool place_run(const struct ledger *l, const struct runner_parser *p, bool by_thread,
                      struct denial_tally **mine, struct denial_tally *between, bool *startup);

/* mine[0..n), as place_run() fills it, and the array */
static void free_placed(struct denial_tally **mine, size_t n)
{
    for (size_t i = 0; mine && i < n; i++)
        denial_tally_free(mine[i]);
    free(mine);
}

/* What a re-run placed in found's own stretch (v, n: the re-run's tests),
 * or NULL where the runner cannot say (then the calls before its
 * announcement, or a baseline run, are subtracted instead). */
static struct denial_tally *own_placed(const struct reruns *a, const struct ledger *l,
                                       const struct runner_parser *p, const struct runner_test *v,
                                       size_t n, const struct runner_test *found)
{
    if (!placeable(a->r, p))
        return NULL;
    struct denial_tally **mine = xcalloc(n + 1, sizeof *mine), *between = denial_tally_new();
    struct denial_tally *own = NULL;
    bool startup;
    if (place_run(l, p, a->r->attribution == RUNNER_ATTRIBUTE_THREAD, mine, between, &startup)) {
        own = mine[found - v] ? mine[found - v] : denial_tally_new();
        mine[found - v] = NULL;
    }
    free_placed(mine, n);
    denial_tally_free(between);
    return own;
}

/* A run of t alone under side's profile: its result there, and under
 * --against its own denials, less its start-up's (added to theirs when
 * given). */
static enum rerun_outcome run_alone(struct reruns *a, struct judged_test *t, int side,
                                    struct denial_tally *theirs, int *sig)
{
    *sig = 0;
    const struct runner_test *which = side ? (t->against ? t->against : t->under)
                                           : (t->under ? t->under : t->against);
    /* A name comes from the command's output, which a test can forge
     * (a child writing to the runner's stdout): one that starts with
     * '-' would reach the runner as an option, so it is not re-run. */
    char **argv = t->whole_run_entry || which->id[0] == '-'
                      ? NULL : runner_rerun_argv(a->r, a->command, which);
    if (!argv)
        return RERUN_CANNOT;
    if (!budget_left(a)) {
        runner_argv_free(argv);
        t->capped = true;
        a->capped++;
        return RERUN_BOUND;
    }
    if ((*sig = audit_stop_requested(NULL))) {
        runner_argv_free(argv);
        return RERUN_STOPPED;
    }
    struct sandbox_result res;
    char *out = NULL;
    size_t outlen = 0;
    struct runner_parser *p = rerun_argv(a, side, argv, t->own_us, side ? "re-run" : "re-run under the profile",
                                         &res, &out, &outlen);
    runner_argv_free(argv);
    *sig = audit_stop_requested(&res);
    size_t k;
    const struct runner_test *v = runner_parser_tests(p, &k), *found = NULL;
    for (size_t i = 0; i < k && !found; i++)
        if (same_test(&v[i], which))
            found = &v[i];
    enum test_status keep_against = t->j.against;
    bool keep_unobserved = t->j.unobserved_against, keep_rerun = t->rerun[side];
    if (found) {
        t->rerun[side] = true;
        set_result(t, side, found->status);
    }
    char what[64] = "";
    if (side && !*sig && res.timed_out && (!found || found->status == TEST_TIMED_OUT) &&
        !ledger_total(res.ledger)) {
        /* killed at its bound (often what the audit's total bound left)
         * before the test reported or made a call: the run observed
         * nothing, and "made none" would clear a test that was never
         * seen (make bench's vitest suite, all denied, under load), as
         * "timed-out" would overwrite the result the whole run saw */
        if (found) {
            t->rerun[side] = keep_rerun;
            t->j.against = keep_against;
            t->j.unobserved_against = keep_unobserved;
        }
        free(out);
        runner_parser_free(p);
        sandbox_result_free(&res);
        /* The floor was 3 x the quickest re-run: a machine that got
         * busier meanwhile (a CI runner, a sanitizer build) can take
         * longer than that just to start the runner. Once more, with
         * the runner's whole start-up floor, before not-observed. */
        if (!a->full_floor && a->quickest_us && budget_left(a)) {
            a->full_floor = true;
            enum rerun_outcome again = run_alone(a, t, side, theirs, sig);
            a->full_floor = false;
            return again;
        }
        progress(a, which->id, "timed out before its result: not observed");
        a->inexact = true;
        return RERUN_BOUND;
    }
    /* A runner that says where each test starts and stops places the
     * run's denials as the whole run's are: a class's or a module's
     * teardown after the test stopped (tearDownModule, a fixture's
     * finalizer) is the suite's, never the test's, though it ran only
     * because the test did */
    struct denial_tally *placed = side && found && ledger_total(res.ledger)
                                      ? own_placed(a, res.ledger, p, v, k, found) : NULL;
    const struct denial_tally *base = NULL;
    if (side && !*sig && !placed && !(found && found->announced_pos) && ledger_total(res.ledger))
        base = baseline_of(a, which, sig);
    if (side) {
        struct denial_tally *alone = denial_tally_new(), *own = placed ? placed : denial_tally_new();
        bool exact = denial_tally_add(alone, res.ledger);
        bool ambiguous = false;
        if (placed) {
            placed = NULL;  /* own, from now on */
        } else if (found && found->announced_pos) {
            /* what it made before the runner announced it (setUpClass,
             * the imports) is not its own: exact, no baseline needed */
            struct denial_tally *pre = denial_tally_new();
            denial_tally_add_before(pre, res.ledger, found->announced_pos);
            denial_tally_excess(alone, pre, own);
            denial_tally_free(pre);
        } else if (base) {
            denial_tally_excess(alone, base, own);
        } else {
            denial_tally_excess(alone, a->startup, own);
            /* every call it made was one the start-up makes too, and no
             * run said which: they prove nothing against the test */
            ambiguous = !a->startup_certain && !denial_tally_total(own) && denial_tally_total(alone);
            t->by_startup = true;
        }
        if (exact) {
            struct denial_tally *c = a->common ? denial_tally_common(a->common, alone) : NULL;
            if (!c) {
                c = denial_tally_new();
                denial_tally_add_tally(c, alone);
            }
            denial_tally_free(a->common);
            a->common = c;
        }
        t->alone = true;
        t->j.denials_ambiguous = ambiguous;
        t->j.denied = denial_tally_total(ambiguous ? alone : own);
        denial_tally_describe(ambiguous ? alone : own, t->denied_text, sizeof t->denied_text);
        if (!exact)
            a->inexact = true;
        /* with the start-up unknown, a run alone accounts for all it made */
        if (theirs)
            denial_tally_add_tally(theirs, t->by_startup && !a->startup_certain ? alone : own);
        denial_tally_add_tally(a->own_sum, own);
        if (found && status_failed(found->status) && test_output_at_limit(out, outlen, &t->limit))
            t->j.at_limit = true;
        snprintf(what, sizeof what, "%llu denied%s", (unsigned long long)t->j.denied,
                 found ? "" : ", no result");
        denial_tally_free(t->alone_tally);
        denial_tally_free(t->own_tally);
        t->alone_tally = alone;
        t->own_tally = own;
        alone = own = NULL;
        denial_tally_free(own);
    } else {
        snprintf(what, sizeof what, "%s", found ? test_status_name(found->status) : "no result");
    }
    progress(a, which->id, what);
    free(out);
    runner_parser_free(p);
    sandbox_result_free(&res);
    return *sig ? RERUN_STOPPED : RERUN_DONE;
}

/* The whole run's denials, for a test that cannot be re-run alone. */
static void whole_run_denials(const struct reruns *a, struct judged_test *t)
{
    t->j.denied = ledger_total(a->whole);
    t->whole_run = true;
    /* the whole run's calls may be any test's: no false green on them */
    t->j.denials_ambiguous = true;
    describe_denials(a->whole, t->denied_text, sizeof t->denied_text);
}

/* A test whose denials were to come from a run alone that a bound
 * prevented: its own are unknown, so is its verdict where they decide. */
static void not_rerun(struct judged_test *t)
{
    t->capped = true;
    t->j.unobserved_against = true;
}

/* l's rows by their id (LEDGER_MAX_ROW_IDS of them), *have[id] where one
 * is; both to free. */
static struct ledger_entry *rows_by_id(const struct ledger *l, bool **have)
{
    struct ledger_entry *rows = xcalloc(LEDGER_MAX_ROW_IDS, sizeof *rows);
    *have = xcalloc(LEDGER_MAX_ROW_IDS, sizeof **have);
    size_t cursor = 0;
    struct ledger_entry e;
    while (ledger_next(l, &cursor, &e)) {
        rows[e.id] = e;
        (*have)[e.id] = true;
    }
    return rows;
}

/* One run's denials placed in its tests' runs (audit_place_events_suite()):
 * mine[i] the calls of v[i] (NULL: none), between those made between two
 * tests, *startup whether any was made before the first. With verify
 * (nv of them), a call a thread alive before the test started made in its
 * run (audit_place_events_suite()'s leftover) goes to between, and verify[i]
 * says that v[i] must run alone to tell whose it was; without, it is the
 * test's. False, and nothing set, when some cannot be placed so. */
static bool place_run_verified(const struct ledger *l, const struct runner_parser *p, bool by_thread,
                               struct denial_tally **mine, struct denial_tally *between, bool *startup,
                               bool *verify, struct denial_tally *startup_calls)
{
    size_t nv, nspans;
    const struct runner_test *v = runner_parser_tests(p, &nv);
    const struct runner_span *spans = runner_parser_suite_spans(p, &nspans);
    const struct ledger_event *events;
    size_t nevents = ledger_events(l, &events);
    if (ledger_events_dropped(l) || ledger_unlisted(l))
        return false;
    size_t *owner = xcalloc(nevents + 1, sizeof *owner), ninh;
    bool *leftover = verify ? xcalloc(nevents + 1, sizeof *leftover) : NULL;
    const struct runner_inherited *inh = runner_parser_inherited(p, &ninh);
    size_t nruns, nwspans;
    const struct runner_worker_run *runs = runner_parser_worker_runs(p, &nruns);
    const struct runner_worker_span *wspans = runner_parser_worker_spans(p, &nwspans);
    if (!(by_thread ? audit_place_events_by_thread(events, nevents, v, nv, owner)
          : nruns   ? audit_place_events_by_worker(events, nevents, runs, nruns, wspans, nwspans, inh, ninh,
                                                   runner_parser_controller(p), owner, leftover)
                    : audit_place_events_suite(events, nevents, v, nv, spans, nspans, inh, ninh, owner,
                                               leftover))) {
        free(owner);
        free(leftover);
        return false;
    }
    bool *have_row;
    struct ledger_entry *rows = rows_by_id(l, &have_row);
    *startup = false;
    for (size_t k = 0; k < nevents; k++) {
        *startup = *startup || owner[k] == AUDIT_OWNER_STARTUP;
        if (events[k].row >= LEDGER_MAX_ROW_IDS || !have_row[events[k].row])
            continue;
        if (owner[k] == AUDIT_OWNER_STARTUP) {
            if (startup_calls)
                denial_tally_add_entry(startup_calls, &rows[events[k].row], 1);
            continue;
        }
        struct denial_tally *to = between;
        if (leftover && leftover[k])
            verify[owner[k]] = true;
        else if (owner[k] != AUDIT_OWNER_BETWEEN)
            to = mine[owner[k]] ? mine[owner[k]] : (mine[owner[k]] = denial_tally_new());
        denial_tally_add_entry(to, &rows[events[k].row], 1);
    }
    free(rows);
    free(have_row);
    free(owner);
    free(leftover);
    return true;
}

/* Whether r's run parsed by p can have its denials placed without a
 * re-run (runner.h's attributions). */
static bool placeable(const struct runner *r, const struct runner_parser *p)
{
    return r->attribution == RUNNER_ATTRIBUTE_PLACED || r->attribution == RUNNER_ATTRIBUTE_THREAD ||
           (r->attribution == RUNNER_ATTRIBUTE_REPORTED && runner_parser_placeable(p));
}

static bool place_run(const struct ledger *l, const struct runner_parser *p, bool by_thread,
                      struct denial_tally **mine, struct denial_tally *between, bool *startup)
{
    return place_run_verified(l, p, by_thread, mine, between, startup, NULL, NULL);
}

static void set_placed(struct judged_test *t, const struct denial_tally *mine)
{
    t->placed = t->placed_text = true;
    t->j.denied = denial_tally_total(mine);
    denial_tally_describe(mine, t->denied_text, sizeof t->denied_text);
}

static int bisect(struct reruns *a, struct judged_test **set, size_t n, struct denial_tally *known,
                  struct denial_tally **excess);

/* Is t without a result on side, and does the verdict need one? Under
 * --against only where the profile's result leaves it open: a test
 * failing under the profile fails. */
static bool wants_observing(const struct judged_test *t, int side)
{
    bool unobserved = side ? t->j.unobserved_against : t->j.unobserved_under;
    /* no runner runs a fixture alone (and one absent on a side did not
     * fail there: see the rows' making in audit_per_test()) */
    if (t->kind == RUNNER_TEST_FIXTURE)
        return false;
    if (!unobserved || t->capped || t->whole_run_entry || any_of(t)->id[0] == '-')
        return false;
    return !(side && !t->j.unobserved_under && status_failed(t->j.under) &&
             t->j.under != TEST_RUNNING);
}

static int by_id(const void *x, const void *y)
{
    const struct judged_test *a = *(const struct judged_test *const *)x,
                             *b = *(const struct judged_test *const *)y;
    return strcmp(any_of(a)->id, any_of(b)->id);
}

/* id[0..len) and a dot start t's id */
static bool under_prefix(const struct judged_test *t, const char *id, size_t len)
{
    const char *o = any_of(t)->id;
    return !strncmp(o, id, len) && o[len] == '.';
}

/* unittest: the tests of a run of a set, as briefly as unittest selects
 * them. unittest matches every name it loads against every -k pattern:
 * a resumed run of 2,000 of CPython's tests spent seconds on it, each
 * time. A module or class whose every row wants a result (ids sorted,
 * rows under one prefix are adjacent) is selected by one pattern,
 * "m.C.*", as its setUpClass row re-runs a class; the others one by
 * one. *groups gets the rows made for them, to free. */
static size_t brief_set(const struct judged_test *tests, size_t n, int side,
                        bool (*wants)(const struct judged_test *, int),
                        const struct runner_test **which, struct runner_test **groups)
{
    const struct judged_test **rows = xcalloc(n + 1, sizeof *rows);
    size_t m = 0, k = 0, ng = 0;
    for (size_t i = 0; i < n; i++)
        if (!tests[i].whole_run_entry)
            rows[m++] = &tests[i];
    qsort(rows, m, sizeof *rows, by_id);
    *groups = xcalloc(m + 1, sizeof **groups);
    for (size_t i = 0; i < m;) {
        const char *id = any_of(rows[i])->id;
        size_t end = i + 1;
        bool grouped = false;
        /* the module (two dots back), then the class (one) */
        for (int level = 2; level >= 1 && !grouped; level--) {
            const char *dot = id + strlen(id);
            for (int d = 0; d < level && dot; d++) {
                const char *prev = NULL;
                for (const char *c = id; c < dot; c++)
                    if (*c == '.')
                        prev = c;
                dot = prev;
            }
            if (!dot || dot == id)
                continue;
            size_t len = (size_t)(dot - id);
            if (i && under_prefix(rows[i - 1], id, len))
                continue;  /* some of it came before, one by one */
            size_t j = i;
            bool all = true;
            for (; j < m && under_prefix(rows[j], id, len); j++)
                all = all && wants(rows[j], side);
            if (all && j > i + 1) {
                (*groups)[ng] = (struct runner_test){ .id = xasprintf("%.*s.setUpClass", (int)len, id),
                                                      .kind = RUNNER_TEST_FIXTURE };
                which[k++] = &(*groups)[ng++];
                end = j;
                grouped = true;
            }
        }
        if (!grouped && wants(rows[i], side))
            which[k++] = any_of(rows[i]);
        i = end;
    }
    free(rows);
    return k;
}

static void free_groups(struct runner_test *groups)
{
    for (size_t i = 0; groups && groups[i].id; i++)
        free(groups[i].id);
    free(groups);
}

/* A set's run read: its placed denials freed, its progress said. */
static void set_run_done(struct reruns *a, struct denial_tally **mine, size_t nv,
                         struct denial_tally *between, struct test_index *ix, size_t got, size_t k,
                         const char *how)
{
    free_placed(mine, nv);
    denial_tally_free(between);
    free(ix->slot);
    char what[64];
    snprintf(what, sizeof what, "%zu of %zu %s", got, k, how);
    progress(a, "(a set)", what);
}

/* The tests without a result on side run together, as the runner selects
 * a set (runner_rerun_set_argv), again and again while each run gives
 * some of them one: a run that stopped at a test (a crash, a hang) is
 * resumed after it. Those still without one are run alone after. */
static int observe_in_sets(struct reruns *a, struct judged_test *tests, size_t n, int side)
{
    int sig = 0;
    struct judged_test **set = xcalloc(n + 1, sizeof *set);
    const struct runner_test **which = xcalloc(n + 1, sizeof *which);
    for (int round = 0; !sig; round++) {
        size_t k = 0;
        uint64_t own_us = 0;
        for (size_t i = 0; i < n; i++)
            if (wants_observing(&tests[i], side)) {
                set[k] = &tests[i];
                which[k++] = any_of(&tests[i]);
                own_us += tests[i].own_us ? tests[i].own_us : a->default_test_us;
            }
        if (k < 2)
            break;
        char **argv;
        if (a->r->kind == RUNNER_UNITTEST) {
            const struct runner_test **brief = xcalloc(n + 1, sizeof *brief);
            struct runner_test *groups;
            size_t nb = brief_set(tests, n, side, wants_observing, brief, &groups);
            argv = runner_rerun_set_argv(a->r, a->command, brief, nb);
            free_groups(groups);
            free(brief);
        } else {
            argv = runner_rerun_set_argv(a->r, a->command, which, k);
        }
        if (!argv || !budget_left(a) || (sig = audit_stop_requested(NULL))) {
            runner_argv_free(argv);
            break;
        }
        if (!round)
            fprintf(stderr, "sbx: audit: running the %zu together under %s first, resumed after "
                    "any test that stops the run\n", k, a->names[side]);
        struct sandbox_result res;
        bool at_test = false;
        const char *limit = NULL;
        struct runner_parser *p = rerun_argv_clocked(a, side, argv, own_us, "re-run of a set", &res,
                                                     NULL, NULL, &at_test, side ? &limit : NULL);
        /* the tests a set runs under --against share its descriptors as
         * they do in the whole run's */
        if (limit && !a->whole_limit)
            a->whole_limit = limit;
        runner_argv_free(argv);
        sig = audit_stop_requested(&res);
        size_t got = 0, nv;
        const struct runner_test *v = runner_parser_tests(p, &nv);
        struct test_index ix;
        test_index_build(&ix, v, nv);
        /* a runner whose output places each denial (unittest) says whose
         * calls were denied in the set's run as in the whole run: no
         * bisection after */
        struct denial_tally **mine = NULL, *between = NULL;
        bool startup;
        if (side && placeable(a->r, p)) {
            mine = xcalloc(nv + 1, sizeof *mine);
            between = denial_tally_new();
            if (!place_run(res.ledger, p, a->r->attribution == RUNNER_ATTRIBUTE_THREAD, mine, between,
                           &startup)) {
                free(mine);
                mine = NULL;
            }
        }
        for (size_t i = 0; i < k; i++) {
            const struct runner_test *found = find_test(&ix, which[i]);
            /* a result it gave, or the hang the run was stopped in */
            if (!found || found->status == TEST_RUNNING ||
                (found->status == TEST_ERRORED && found->reported_pos == UINT64_MAX))
                continue;
            set_result(set[i], side, found->status);
            set[i]->in_set[side] = true;
            if (mine) {
                set[i]->placed_in_set = set[i]->alone = true;
                set[i]->j.denied = 0;
                set[i]->denied_text[0] = '\0';
                if (mine[found - v])
                    set_placed(set[i], mine[found - v]);
            }
            got++;
        }
        set_run_done(a, mine, nv, between, &ix, got, k, "with a result");
        bool hung = res.timed_out;
        runner_parser_free(p);
        sandbox_result_free(&res);
        /* a run stopped by its bound: the tests after the one that hung
         * are run alone, each with its own bound, not the set's again;
         * stopped at the one test that had its own time (which now has
         * its result: timed out), the rest are resumed together */
        if (!got || (hung && !at_test))
            break;
    }
    free(set);
    free(which);
    return sig;
}

/* Tests without a result on a side are run alone there (issue 25): their
 * process died with another test, the run hit its bound, the runner
 * stopped early (go's test binary after a panic, mocha after a crash). */
static int observe(struct reruns *a, struct judged_test *tests, size_t n)
{
    int sig = 0;
    for (int side = 0; side < 2 && !sig; side++) {
        size_t need = 0, can = 0;
        for (size_t i = 0; i < n; i++) {
            if (!wants_observing(&tests[i], side))
                continue;
            need++;
            char **argv = runner_rerun_argv(a->r, a->command, any_of(&tests[i]));
            can += argv != NULL;
            runner_argv_free(argv);
        }
        if (!need)
            continue;
        if (!can) {
            fprintf(stderr, "sbx: audit: %zu test(s) have no result under %s, and %s cannot run one "
                    "test alone: they are not observed\n", need, a->names[side], a->r->command);
            continue;
        }
        fprintf(stderr, "sbx: audit: %zu test(s) have no result under %s (their process died with "
                "another test, a timeout or a crash): re-running %zu there alone\n", need,
                a->names[side], can);
        a->todo += can;
        sig = observe_in_sets(a, tests, n, side);
        for (size_t i = 0; i < n && !sig; i++) {
            struct judged_test *t = &tests[i];
            if (!wants_observing(t, side))
                continue;
            if (run_alone(a, t, side, NULL, &sig) == RERUN_STOPPED)
                break;
        }
    }
    /* observed in a set under --against: whose calls were denied there is
     * not known yet; groups of them, bisected, tell */
    size_t k = 0;
    struct judged_test **set = xcalloc(n + 1, sizeof *set);
    for (size_t i = 0; i < n; i++)
        if (tests[i].in_set[1] && !tests[i].alone && needs_attribution(&tests[i].j))
            set[k++] = &tests[i];
    if (k && !sig) {
        fprintf(stderr, "sbx: audit: %zu test(s) got their result under %s in a set: bisecting "
                "the set to find their denied calls\n", k, a->names[1]);
        sig = bisect(a, set, k, NULL, NULL);
    }
    free(set);
    return sig;
}

static const char *ledger_argv_of(const void *l, uint16_t idx, size_t *len)
{
    return ledger_argv(l, idx, len);
}

/* prove and make check run each script in a process of its own: each
 * denial is the script's whose process made it, or whose child did, by
 * their command lines (audit_place_events_by_argv), and every test of a
 * script gets that script's calls, without a re-run. False, and nothing
 * set, when some call cannot be placed so (prove's own, a daemon a
 * script left that runs something else, a line the table had no room
 * for): then attribute_by_unit() re-runs the scripts. */
static bool attribute_by_process(struct reruns *a, struct judged_test *tests, size_t n,
                                 const struct runner_parser *pa, const char *against)
{
    const struct ledger *l = a->whole;
    const struct ledger_event *events;
    size_t nevents = ledger_events(l, &events), na;
    if (!nevents || ledger_events_dropped(l) || ledger_unlisted(l))
        return false;
    /* the run's scripts, once each (a script's tests come one after
     * another; one named twice apart matches twice: nothing placed) */
    const struct runner_test *ta = runner_parser_tests(pa, &na);
    const char **units = xcalloc(na + 1, sizeof *units);
    size_t nunits = 0;
    for (size_t i = 0; i < na; i++)
        if (ta[i].unit && (!nunits || strcmp(units[nunits - 1], ta[i].unit)))
            units[nunits++] = ta[i].unit;
    size_t *unit_of = xcalloc(nevents, sizeof *unit_of);
    bool placed = audit_place_events_by_argv(events, nevents, ledger_argv_of, l, units, nunits, unit_of);
    /* every test to judge has its script among them */
    size_t *test_unit = xcalloc(n + 1, sizeof *test_unit);
    for (size_t i = 0, last = SIZE_MAX; placed && i < n; i++) {
        if (tests[i].alone || !needs_attribution(&tests[i].j))
            continue;
        const struct runner_test *which = tests[i].against ? tests[i].against : tests[i].under;
        if (!which->unit) {
            placed = false;
            break;
        }
        if (last == SIZE_MAX || strcmp(units[last], which->unit))
            for (last = 0; last < nunits && strcmp(units[last], which->unit); last++)
                ;
        if (last == nunits) {
            placed = false;
            break;
        }
        test_unit[i] = last;
    }
    if (!placed) {
        free(units);
        free(unit_of);
        free(test_unit);
        return false;
    }
    struct denial_tally **mine = xcalloc(nunits + 1, sizeof *mine);
    bool *have_row;
    struct ledger_entry *rows = rows_by_id(l, &have_row);
    for (size_t e = 0; e < nevents; e++) {
        if (events[e].row >= LEDGER_MAX_ROW_IDS || !have_row[events[e].row])
            continue;
        size_t u = unit_of[e];
        denial_tally_add_entry(mine[u] ? mine[u] : (mine[u] = denial_tally_new()), &rows[events[e].row], 1);
    }
    free(rows);
    free(have_row);
    struct denial_tally *none = denial_tally_new();
    size_t scripts = 0;
    for (size_t u = 0; u < nunits; u++)
        scripts += mine[u] != NULL;
    for (size_t i = 0; i < n; i++) {
        struct judged_test *t = &tests[i];
        if (t->alone || !needs_attribution(&t->j))
            continue;
        t->by_unit = true;
        set_placed(t, mine[test_unit[i]] ? mine[test_unit[i]] : none);
    }
    denial_tally_free(none);
    free_placed(mine, nunits);
    free(units);
    free(unit_of);
    free(test_unit);
    a->attributed = true;
    /* every call was a script's: the runner's start-up made none */
    denial_tally_free(a->startup);
    a->startup = denial_tally_new();
    a->startup_certain = true;
    fprintf(stderr, "sbx: audit: each of the %llu denied call(s) under %s was made by the process of "
            "one script (%zu of them) or by its child, as their command lines name it: attributed "
            "without re-running\n", (unsigned long long)ledger_total(l), against, scripts);
    return true;
}

/* prove and make check re-run a script, not one test: every test of a
 * script gets that script's run, made once. */
static int attribute_by_unit(struct reruns *a, struct judged_test *tests, size_t n,
                             const char *against)
{
    size_t need = 0, scripts = 0;
    const char *unit = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!needs_attribution(&tests[i].j) || tests[i].alone)
            continue;
        const struct runner_test *which = tests[i].against ? tests[i].against : tests[i].under;
        need++;
        if (!which->unit || !unit || strcmp(unit, which->unit))
            scripts++;
        unit = which->unit;
    }
    if (need)
        fprintf(stderr, "sbx: audit: %llu denied call(s) under %s: re-running %zu script(s) one "
                "by one there to attribute them to their %zu test(s)\n",
                (unsigned long long)ledger_total(a->whole), against, scripts, need);
    a->todo += scripts;
    const struct judged_test *last = NULL;
    int sig = 0;
    for (size_t i = 0; i < n && !sig; i++) {
        struct judged_test *t = &tests[i];
        if (!needs_attribution(&t->j) || t->alone)
            continue;
        const struct runner_test *which = t->against ? t->against : t->under;
        if (which->unit) {
            t->by_unit = true;
            /* a script's tests come one after another: the last script
             * re-run is the one to reuse (another order re-runs again,
             * slower, never wrong) */
            const struct runner_test *lw = last ? (last->against ? last->against : last->under) : NULL;
            if (lw && lw->unit && !strcmp(lw->unit, which->unit)) {
                t->j.denied = last->j.denied;
                t->j.denials_ambiguous = last->j.denials_ambiguous;
                t->capped = last->capped;
                t->j.unobserved_against = last->capped;
                memcpy(t->denied_text, last->denied_text, sizeof t->denied_text);
                continue;
            }
            last = t;
        }
        /* the script's run: its result is the script's, not this test's */
        enum test_status keep = t->j.against;
        bool keep_unobserved = t->j.unobserved_against;
        enum rerun_outcome o = run_alone(a, t, 1, NULL, &sig);
        if (o == RERUN_DONE && which->unit) {
            t->j.against = keep;
            t->j.unobserved_against = keep_unobserved;
        }
        if (o == RERUN_CANNOT)
            whole_run_denials(a, t);
        else if (o == RERUN_BOUND)
            not_rerun(t);
    }
    return sig;
}

/* audit_place_events_suite(): each denial in the run of the one test that
 * was running, or the suite's (before the first test, between two),
 * without a re-run; by_thread: audit_place_events_by_thread(), each in the
 * test whose thread made it. False, and nothing set, when some cannot be
 * placed so. between gets the suite's calls made between tests. */
static bool attribute_by_placement(struct reruns *a, struct judged_test *tests, size_t n,
                                   const struct runner_parser *pa, const char *against,
                                   struct denial_tally *between, bool by_thread, int *sig)
{
    size_t na;
    const struct runner_test *ta = runner_parser_tests(pa, &na);
    struct denial_tally **mine = xcalloc(na + 1, sizeof *mine);
    bool startup, *verify = xcalloc(na + 1, sizeof *verify);
    size_t nruns;
    runner_parser_worker_runs(pa, &nruns);
    struct denial_tally *startup_calls = denial_tally_new();
    if (!place_run_verified(a->whole, pa, by_thread, mine, between, &startup, verify, startup_calls)) {
        denial_tally_free(startup_calls);
        free(mine);
        free(verify);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        struct judged_test *t = &tests[i];
        if (t->alone)
            continue;
        if (needs_attribution(&t->j)) {
            t->j.denied = 0;
            t->placed = true;
        }
        if (t->against && !t->whole_run_entry && mine[t->against - ta])
            set_placed(t, mine[t->against - ta]);
    }
    free_placed(mine, na);
    a->attributed = true;
    bool suite = startup || denial_tally_total(between) != 0;
    bool by_worker = !by_thread && nruns;
    if (by_worker) {
        /* the workers' clocks say which calls came before any test ran
         * in their process: the start-up's, exactly */
        denial_tally_free(a->startup);
        a->startup = startup_calls;
        a->startup_certain = true;
        startup_calls = NULL;
    }
    denial_tally_free(startup_calls);
    if (by_thread)
        fprintf(stderr, "sbx: audit: each of the %llu denied call(s) under %s was made by a thread "
                "named after one test (libtest runs each test on a thread of that name): attributed "
                "without re-running\n", (unsigned long long)ledger_total(a->whole), against);
    else if (by_worker)
        fprintf(stderr, "sbx: audit: each of the %llu denied call(s) under %s was made by a worker, or "
                "its child, while it ran one test, by the worker's own clock%s: attributed without "
                "re-running\n", (unsigned long long)ledger_total(a->whole), against,
                suite ? ", or by the suite itself before or between a worker's tests" : "");
    else
        fprintf(stderr, "sbx: audit: each of the %llu denied call(s) under %s was made while one test "
                "ran, announced before it and reported after it%s: attributed without re-running\n",
                (unsigned long long)ledger_total(a->whole), against,
                suite ? ", or by the suite itself before or between tests" : "");
    /* A call made in a test's run by a thread alive before the test
     * started is a server an earlier test left binding late (CPython's
     * test_socket: a pure AF_UNIX test was called a false green for
     * another test's bind), or a pool doing this test's work: only the
     * test's run alone says which. Until then the call is the suite's. */
    size_t nverify = 0;
    for (size_t i = 0; i < n; i++)
        nverify += tests[i].against && verify[tests[i].against - ta] && !tests[i].alone;
    if (nverify) {
        fprintf(stderr, "sbx: audit: %zu test(s) ran while threads alive before them made denied calls "
                "(left by an earlier test, or a pool): re-running them alone under %s to tell whose\n",
                nverify, against);
        a->todo += nverify;
    }
    for (size_t i = 0; i < n && nverify && !*sig; i++) {
        struct judged_test *t = &tests[i];
        if (!t->against || !verify[t->against - ta] || t->alone)
            continue;
        t->tried = true;
        enum rerun_outcome o = run_alone(a, t, 1, NULL, sig);
        if (o == RERUN_BOUND || o == RERUN_CANNOT)
            not_rerun(t);
    }
    free(verify);
    return true;
}

/* How many results after a denial may come before that of the test that
 * made it: none for a serial runner whose output is not buffered; the
 * tests running beside it for a parallel one. Past this, every test not
 * re-run yet is. */
static size_t suspect_tiers(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return (size_t)(cpus > 0 ? cpus : 1) + 2;
}

/* Bisection (issue 25): one run of a group under --against; a group
 * whose run makes no denial beyond its start-up holds no test that made
 * one; else its halves are run, down to single tests, which are run
 * alone. Far fewer runs than one per test when few tests are denied,
 * about two per denied test when many are. */
static void cleared_set(struct judged_test **set, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        set[i]->j.denied = 0;
        set[i]->grouped = true;
    }
}

/* known: this set's calls beyond the start-up, already known from its
 * parent's runs (its group is not run again); excess: where this set's
 * run gives them exactly, a tally of them for the caller (NULL else). */
static int bisect(struct reruns *a, struct judged_test **set, size_t n, struct denial_tally *known,
                  struct denial_tally **excess)
{
    int sig = 0;
    if (excess)
        *excess = NULL;
    if (n == 1) {
        enum rerun_outcome o = run_alone(a, set[0], 1, NULL, &sig);
        if (o == RERUN_CANNOT)
            whole_run_denials(a, set[0]);
        else if (o == RERUN_BOUND)
            not_rerun(set[0]);
        return sig;
    }
    const struct runner_test **which = xcalloc(n, sizeof *which);
    for (size_t i = 0; i < n; i++)
        which[i] = set[i]->against ? set[i]->against : set[i]->under;
    char **argv = runner_rerun_set_argv(a->r, a->command, which, n);
    bool have_set = argv != NULL, cleared = false;
    struct denial_tally *mine = NULL;
    if (argv && known) {
        /* its parent's runs said what it made: straight to its halves */
        mine = denial_tally_new();
        denial_tally_add_tally(mine, known);
    } else if (argv && budget_left(a) && !(sig = audit_stop_requested(NULL))) {
        const struct denial_tally *base = baseline_of(a, which[0], &sig);
        if (!sig) {
            struct sandbox_result res;
            uint64_t own_us = 0;
            for (size_t i = 0; i < n; i++)
                own_us += set[i]->own_us ? set[i]->own_us : a->default_test_us;
            struct runner_parser *p = rerun_argv(a, 1, argv, own_us, "re-run of a group", &res,
                                                 NULL, NULL);
            sig = audit_stop_requested(&res);
            struct denial_tally *group = denial_tally_new(), *over = denial_tally_new();
            bool exact = denial_tally_add(group, res.ledger);
            uint64_t beyond = denial_tally_excess(group, base ? base : a->startup, over);
            /* nothing beyond the start-up, known to be the start-up's;
             * a run killed at its bound may have stopped before its
             * tests ran: that proves nothing */
            bool sure = res.command_ran && !res.timed_out && exact;
            cleared = sure && (!denial_tally_total(group) || (!beyond && (base || a->startup_certain)));
            if (sure && (base || a->startup_certain))
                mine = over;
            else
                denial_tally_free(over);
            char what[64];
            snprintf(what, sizeof what, "%zu tests, %s", n, cleared ? "none denied" : "some denied");
            progress(a, "(a group)", what);
            denial_tally_free(group);
            runner_parser_free(p);
            sandbox_result_free(&res);
        }
    } else if (argv && !sig) {
        for (size_t i = 0; i < n; i++)
            not_rerun(set[i]);
        a->capped += n;
        runner_argv_free(argv);
        free(which);
        return 0;
    }
    runner_argv_free(argv);
    free(which);
    if (sig || cleared || !have_set) {
        if (cleared && !sig)
            cleared_set(set, n);
        /* the runner cannot select a set: one by one */
        for (size_t i = 0; !sig && !cleared && i < n; i++)
            sig = bisect(a, &set[i], 1, NULL, NULL);
        if (excess && cleared)
            *excess = mine;
        else
            denial_tally_free(mine);
        return sig;
    }
    /* the halves: when the first made every call of the set, call by
     * call, the second made none; when it made none, the second made
     * them all (one group run fewer either way: the runs are
     * deterministic enough for the proofs above already) */
    struct denial_tally *first = NULL;
    sig = bisect(a, set, n / 2, NULL, &first);
    if (!sig && first && mine && denial_tally_equal(first, mine))
        cleared_set(set + n / 2, n - n / 2);
    else if (!sig)
        sig = bisect(a, set + n / 2, n - n / 2,
                     first && mine && !denial_tally_total(first) && denial_tally_total(mine) ? mine : NULL,
                     NULL);
    denial_tally_free(first);
    if (excess && !sig)
        *excess = mine;
    else
        denial_tally_free(mine);
    return sig;
}

/* Below this many tests to re-run, one by one is as fast as groups. */
#define AUDIT_BISECT_MIN 8

/* audit_attrib.h: the tests that reported right after a denial alone
 * first; the rest only when those, with the start-up once, do not
 * account for every denial. */
static int attribute_by_suspects(struct reruns *a, struct judged_test *tests, size_t n,
                                 const struct runner_test *ta, size_t na, const char *against)
{
    const struct ledger_event *events;
    size_t nevents = ledger_events(a->whole, &events);
    bool *suspect = xcalloc(na + 1, sizeof *suspect);
    bool done[LEDGER_MAX_ROW_IDS];
    uint64_t total = ledger_total(a->whole);
    struct denial_tally *whole = denial_tally_new(), *theirs = denial_tally_new();
    /* the start-up made its calls once in the whole run (a guess is no
     * account of anything) */
    if (a->startup_certain)
        denial_tally_add_tally(theirs, a->startup);
    /* the proof is the tally, not the events: with events dropped the
     * suspects may miss the test of one, and then the tallies differ */
    bool exact = denial_tally_add(whole, a->whole), accounted = false;
    int sig = 0;
    char **probe_one = n ? runner_rerun_argv(a->r, a->command, any_of(&tests[0])) : NULL;
    bool can_rerun = probe_one != NULL;
    runner_argv_free(probe_one);
    if (!can_rerun) {
        /* never say that re-runs happen when none can (issue 34) */
        size_t charged = 0;
        for (size_t i = 0; i < n; i++)
            if (!tests[i].alone && needs_attribution(&tests[i].j)) {
                whole_run_denials(a, &tests[i]);
                charged++;
            }
        if (charged)
            fprintf(stderr, "sbx: audit: %s cannot run one test: the %llu denied call(s) under %s "
                    "are the whole run's, which prove nothing against any one of its %zu test(s)\n",
                    a->r->command, (unsigned long long)total, against, charged);
        free(suspect);
        denial_tally_free(whole);
        denial_tally_free(theirs);
        return 0;
    }
    /* tests already run alone (observed there) count for the tally */
    /* (only those that ran in the whole run: a test that never ran there
     * made none of its calls) */
    for (size_t i = 0; i < n; i++)
        if (tests[i].alone && tests[i].against && !tests[i].rerun[1])
            denial_tally_add_tally(theirs, tests[i].by_startup && !a->startup_certain
                                               ? tests[i].alone_tally : tests[i].own_tally);
    accounted = exact && denial_tally_equal(whole, theirs) && !a->inexact;
    for (size_t tier = 0, tiers = suspect_tiers(); tier < tiers && exact && !sig && !accounted; tier++) {
        denial_tally_rows_done(theirs, a->whole, done);
        if (!audit_suspects(events, nevents, tier ? done : NULL, ta, na, tier, suspect))
            continue;
        size_t now = 0;
        for (size_t i = 0; i < n; i++)
            if (tests[i].against && suspect[tests[i].against - ta] && !tests[i].alone &&
                !tests[i].tried)
                now++;
        if (!now)
            continue;
        a->todo += now;
        fprintf(stderr, "sbx: audit: %llu denied call(s) under %s: re-running there alone the "
                "%zu test(s) %s\n", (unsigned long long)total, against, now,
                tier ? "that reported next after those not accounted for"
                     : "that reported right after one");
        for (size_t i = 0; i < n && !sig; i++) {
            struct judged_test *t = &tests[i];
            if (!t->against || !suspect[t->against - ta] || t->alone || t->tried)
                continue;
            t->tried = true;
            enum rerun_outcome o = run_alone(a, t, 1, theirs, &sig);
            /* an ambiguous split still adds up: resolve_startup() says
             * later which part was the start-up's */
            if (o == RERUN_CANNOT || o == RERUN_BOUND)
                exact = false;
            if (o == RERUN_BOUND)
                not_rerun(t);
        }
        /* every denial of the whole run, call by call, made by a run
         * alone (or the start-up): no other test made one */
        if (!sig && exact && !a->inexact && denial_tally_equal(whole, theirs))
            accounted = true;
    }
    free(suspect);
    size_t rest = 0;
    for (size_t i = 0; i < n; i++)
        rest += !tests[i].alone && !tests[i].capped && needs_attribution(&tests[i].j);
    if (!sig && accounted) {
        a->attributed = true;
        if (rest)
            fprintf(stderr, "sbx: audit: those runs%s made the %llu denied call(s) of the whole "
                    "run, call by call: the other %zu test(s) made none\n",
                    denial_tally_total(a->startup) ? " and the start-up" : "",
                    (unsigned long long)total, rest);
        for (size_t i = 0; i < n; i++)
            if (!tests[i].alone && !tests[i].capped && needs_attribution(&tests[i].j)) {
                tests[i].j.denied = 0;
                tests[i].accounted = true;
            }
    } else if (!sig && rest) {
        struct judged_test **set = xcalloc(rest, sizeof *set);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (!tests[i].alone && !tests[i].capped && needs_attribution(&tests[i].j))
                set[k++] = &tests[i];
        const struct runner_test *two[2] = { any_of(set[0]), any_of(set[rest > 1 ? 1 : 0]) };
        char **probe = rest >= AUDIT_BISECT_MIN ? runner_rerun_set_argv(a->r, a->command, two, 2) : NULL;
        bool groups = probe != NULL;
        runner_argv_free(probe);
        fprintf(stderr, "sbx: audit: %s%llu denied call(s) under %s: re-running the other %zu "
                "test(s) %s there to attribute them\n",
                a->done ? "the runs alone did not account for all " : "",
                (unsigned long long)total, against, rest, groups ? "in groups, bisected," : "one by one");
        a->todo += groups ? 2 * rest / 3 + 1 : rest;
        a->all_rerun = true;
        sig = bisect(a, set, groups ? rest : 1, NULL, NULL);
        for (size_t i = groups ? rest : 1; i < rest && !sig; i++)
            sig = bisect(a, &set[i], 1, NULL, NULL);
        free(set);
    }
    denial_tally_free(whole);
    denial_tally_free(theirs);
    return sig;
}

/* The whole run denied calls before its first result, and its output
 * cannot say whether the start-up or the first test made them (issue 33).
 * The start-up makes its calls in every run of a test alone: a call that
 * one of them did not make is not the start-up's. When the runs alone made
 * so far all made it, one more of a test that passed on both sides and
 * was not suspected (most likely pure) is asked. What is left is the
 * start-up's; tests whose runs alone were judged against the first guess
 * are judged again. */
static int resolve_startup(struct reruns *a, struct judged_test *tests, size_t n)
{
    int sig = 0;
    if (a->startup_certain || !denial_tally_total(a->startup))
        return 0;
    a->startup_guess = a->startup;
    a->startup = denial_tally_new();
    denial_tally_add_tally(a->startup, a->startup_guess);
    struct denial_tally *c = a->common ? denial_tally_common(a->startup, a->common) : NULL;
    if (c && !denial_tally_total(c)) {
        denial_tally_free(a->startup);
        a->startup = c;
        a->startup_certain = true;
        c = NULL;
    }
    /* every test that needed it was run alone, the pure ones too, and
     * each run made these: they are the start-up's */
    bool all = true;
    for (size_t i = 0; i < n && all; i++)
        all = !needs_attribution(&tests[i].j) || tests[i].alone || tests[i].whole_run_entry;
    if (!a->startup_certain && c && (a->all_rerun || all)) {
        /* unless the runs alone, added up, made the whole run's calls,
         * call by call: a start-up's calls come once in the whole run and
         * once in every run alone, so with two runs or more that sum is
         * the tests' own and the start-up made none (make bench: 200 prove
         * scripts, each binding once, were all "unaffected", trustworthy) */
        struct denial_tally *whole = denial_tally_new(), *sum = denial_tally_new();
        size_t runs = 0;
        bool exact = denial_tally_add(whole, a->whole) && !a->inexact;
        for (size_t i = 0; i < n; i++)
            if (tests[i].alone && tests[i].alone_tally && !tests[i].whole_run_entry) {
                denial_tally_add_tally(sum, tests[i].alone_tally);
                runs++;
            }
        if (exact && runs > 1 && denial_tally_equal(whole, sum)) {
            denial_tally_free(c);
            c = denial_tally_new();
        }
        denial_tally_free(whole);
        denial_tally_free(sum);
    }
    if (!a->startup_certain && c && (a->all_rerun || all)) {
        denial_tally_free(a->startup);
        a->startup = c;
        a->startup_certain = true;
        c = NULL;
    }
    denial_tally_free(c);
    /* two witnesses: a test that passed on both sides may still be a
     * lenient one that makes the same call; both making it is the
     * start-up's */
    struct denial_tally *seen = NULL;
    for (int round = 0; round < 2 && !a->startup_certain && !sig; round++) {
        struct judged_test *witness = NULL;
        for (size_t i = 0; i < n; i++) {
            struct judged_test *t = &tests[i];
            if (t->under && t->against && t->kind == RUNNER_TEST_CASE && !t->subtests &&
                !t->alone && !t->tried && !t->witness && t->j.under == TEST_PASSED &&
                t->j.against == TEST_PASSED && !t->j.unobserved_against &&
                t->against->id[0] != '-' &&
                (!witness || t->against->reported_pos > witness->against->reported_pos))
                witness = t;
        }
        char **argv = witness ? runner_rerun_argv(a->r, a->command, witness->against) : NULL;
        if (!argv)
            break;
        witness->witness = true;
        if (budget_left(a) && !(sig = audit_stop_requested(NULL))) {
            struct sandbox_result res;
            struct runner_parser *p = rerun_argv(a, 1, argv, witness->own_us, "start-up witness",
                                                 &res, NULL, NULL);
            progress(a, witness->against->id, "for the start-up");
            sig = audit_stop_requested(&res);
            struct denial_tally *w = denial_tally_new();
            if (!sig && res.command_ran && denial_tally_add(w, res.ledger)) {
                struct denial_tally *k = denial_tally_common(seen ? seen : a->startup, w);
                denial_tally_free(seen);
                seen = k;
                /* a call a witness did not make is not the start-up's;
                 * one both made is */
                if (!denial_tally_total(seen) || round == 1) {
                    denial_tally_free(a->startup);
                    a->startup = seen;
                    seen = NULL;
                    a->startup_certain = true;
                }
            }
            denial_tally_free(w);
            runner_parser_free(p);
            sandbox_result_free(&res);
        }
        runner_argv_free(argv);
    }
    if (seen && !a->startup_certain) {
        /* one witness, and no second to ask: what it made is the start-up's */
        denial_tally_free(a->startup);
        a->startup = seen;
        seen = NULL;
        a->startup_certain = true;
    }
    denial_tally_free(seen);
    if (!a->startup_certain)
        return sig;
    /* judged again, against the start-up now known */
    struct denial_tally *sum = denial_tally_new();
    for (size_t i = 0; i < n; i++) {
        struct judged_test *t = &tests[i];
        if (t->alone_tally && t->by_startup) {
            struct denial_tally *own = denial_tally_new();
            denial_tally_excess(t->alone_tally, a->startup, own);
            t->j.denials_ambiguous = false;
            t->j.denied = denial_tally_total(own);
            denial_tally_describe(own, t->denied_text, sizeof t->denied_text);
            denial_tally_free(t->own_tally);
            t->own_tally = own;
        }
        denial_tally_add_tally(sum, t->own_tally);
    }
    denial_tally_free(a->own_sum);
    a->own_sum = sum;
    return sig;
}

/* Tests that passed under the profile and failed under --against without
 * a denial of their own: run alone there to see why, once, when they were
 * not yet (a limit it sets, EMFILE, or another test's leftovers). */
static bool wants_limit_check(const struct judged_test *t)
{
    /* a parent is judged by its subtests; no runner runs a fixture alone */
    return t->kind == RUNNER_TEST_CASE && !t->rerun[1] && !t->whole_run_entry &&
           !t->limit_by_set && test_verdict_of(&t->j) == TEST_FAILS_WITHOUT_DENIAL;
}

/* What a check of t (failed under --against without a denial in the whole
 * run) concluded: passes, it passed there alone or in its set; the whole
 * run's result (keep) stands, and so do its denials (none of its own:
 * denied, text) unless the check found some. */
static void limit_checked(struct reruns *a, struct judged_test *t, bool passes, enum test_status keep,
                          uint64_t denied, const char *text)
{
    t->passes_alone = passes;
    if (!t->j.at_limit && passes && a->whole_limit) {
        /* it passes without the whole run's other tests and that run ran
         * out of descriptors: its failure there was the limit's */
        t->j.at_limit = true;
        t->limit = a->whole_limit;
    }
    t->j.against = keep;
    if (!t->j.at_limit && (!t->j.denied || t->j.denials_ambiguous)) {
        t->j.denied = denied;
        t->j.denials_ambiguous = false;
        snprintf(t->denied_text, sizeof t->denied_text, "%s", text);
    }
}

static bool in_limit_set(const struct judged_test *t, int side)
{
    (void)side;
    return t->limit_in_set;
}

/* The module of a unittest id (m.C.test, subtests by their parent's), its
 * length: the id up to its second dot from the end; 0 without one. */
static size_t module_len(const struct judged_test *t)
{
    const struct runner_test *any = any_of(t);
    const char *id = any->parent ? any->parent : any->id;
    const char *last = NULL, *before = NULL;
    for (const char *c = id; *c && *c != ' '; c++)
        if (*c == '.') {
            before = last;
            last = c;
        }
    return before ? (size_t)(before - id) : 0;
}

static bool same_module(const struct judged_test *t, const struct judged_test *u, size_t len)
{
    const struct runner_test *x = any_of(t), *y = any_of(u);
    const char *a = x->parent ? x->parent : x->id, *b = y->parent ? y->parent : y->id;
    return module_len(u) == len && !strncmp(a, b, len);
}

/* One run of the set marked limit_in_set (issue 33): the runner's channel
 * says when each test starts and ends, and the ledger's events say where
 * each denial was made, so the one process gives every test of the set
 * its own result and calls, as a run of it alone would. A test settled
 * there: it passes (its failure in the whole run was the limit's or an
 * earlier test's), or it fails on a call of its own (exercised), or it
 * fails again without one, as in the whole run, the set's output showing
 * no limit reached (it fails by itself: fails-without-denial; a test of
 * the set before it could be why, as in the whole run, and both runs
 * agree that the sandbox denied it nothing). A test the run stopped at
 * runs alone. Left open, for the set again without the tests settled: a
 * failure in a set that reached a limit (whose?), a test the run did not
 * reach. Returns how many it settled or sent alone; *resume when the set
 * can run again (stopped at a test's own bound, or a limit reached). */
static size_t limit_set_run(struct reruns *a, struct judged_test *tests, size_t n, size_t k,
                            uint64_t own_us, bool *resume, int *sig)
{
    *resume = false;
    const struct runner_test **brief = xcalloc(n + 1, sizeof *brief);
    struct runner_test *groups;
    size_t nb = brief_set(tests, n, 1, in_limit_set, brief, &groups);
    char **argv = runner_rerun_set_argv(a->r, a->command, brief, nb);
    free_groups(groups);
    free(brief);
    if (!argv || !budget_left(a) || (*sig = audit_stop_requested(NULL))) {
        runner_argv_free(argv);
        return 0;
    }
    struct sandbox_result res;
    bool at_test = false;
    const char *limit = NULL;
    struct runner_parser *p = rerun_argv_clocked(a, 1, argv, own_us, "re-run of a set", &res, NULL,
                                                 NULL, &at_test, &limit);
    runner_argv_free(argv);
    *sig = audit_stop_requested(&res);
    size_t nv, settled = 0, at_limit = 0;
    const struct runner_test *v = runner_parser_tests(p, &nv);
    struct test_index ix;
    test_index_build(&ix, v, nv);
    struct denial_tally **mine = xcalloc(nv + 1, sizeof *mine), *between = denial_tally_new();
    bool startup, placed = !*sig && place_run(res.ledger, p, false, mine, between, &startup);
    for (size_t i = 0; i < n && placed; i++) {
        struct judged_test *t = &tests[i];
        if (!t->limit_in_set)
            continue;
        const struct runner_test *found = find_test(&ix, any_of(t));
        if (!found)
            continue;  /* not reached: resumed */
        const struct denial_tally *own = mine[found - v];
        uint64_t made = own ? denial_tally_total(own) : 0;
        bool passes = !status_failed(found->status);
        /* where the run stopped: alone, with its own bound, not the
         * set's again */
        if (found->status == TEST_RUNNING || found->status == TEST_TIMED_OUT ||
            (found->status == TEST_ERRORED && found->reported_pos == UINT64_MAX)) {
            t->limit_alone = true;
            settled++;
            continue;
        }
        /* whose were the descriptors? The set again without the tests
         * settled now (those that failed on their denied calls leak as in
         * the whole run), then alone */
        if (!passes && !made && limit) {
            at_limit++;
            continue;
        }
        uint64_t denied = t->j.denied;
        char text[sizeof t->denied_text];
        memcpy(text, t->denied_text, sizeof text);
        if (made) {
            t->j.denied = made;
            t->j.denials_ambiguous = false;
            denial_tally_describe(own, t->denied_text, sizeof t->denied_text);
            t->placed = t->placed_text = true;
        }
        t->limit_by_set = true;
        limit_checked(a, t, passes, t->j.against, denied, text);
        settled++;
    }
    set_run_done(a, mine, nv, between, &ix, settled, k, "settled");
    *resume = placed && ((res.timed_out && at_test) || at_limit);
    runner_parser_free(p);
    sandbox_result_free(&res);
    return settled;
}

/* Each module's tests to check run as a set first, resumed after a test
 * that stops the run; what a set leaves open runs alone after. */
static int check_limits_in_sets(struct reruns *a, struct judged_test *tests, size_t n)
{
    int sig = 0;
    for (size_t first = 0; first < n && !sig; first++) {
        struct judged_test *f = &tests[first];
        size_t len = module_len(f);
        if (!wants_limit_check(f) || f->limit_alone || !len)
            continue;
        for (bool resume = true; resume && !sig;) {
            size_t k = 0;
            uint64_t own_us = 0;
            for (size_t i = first; i < n; i++) {
                struct judged_test *t = &tests[i];
                t->limit_in_set = wants_limit_check(t) && !t->limit_alone && same_module(f, t, len);
                k += t->limit_in_set;
                own_us += t->limit_in_set ? (t->own_us ? t->own_us : a->default_test_us) : 0;
            }
            /* one left: its run alone is that set */
            if (k < 2)
                break;
            size_t settled = limit_set_run(a, tests, n, k, own_us, &resume, &sig);
            resume = resume && settled;
            if (!settled && !resume)
                for (size_t i = first; i < n; i++)
                    tests[i].limit_alone = tests[i].limit_alone || tests[i].limit_in_set;
        }
        for (size_t i = first; i < n; i++)
            tests[i].limit_in_set = false;
    }
    return sig;
}

static int check_limits(struct reruns *a, struct judged_test *tests, size_t n)
{
    size_t need = 0;
    for (size_t i = 0; i < n; i++)
        need += wants_limit_check(&tests[i]);
    char **probe = need ? runner_rerun_argv(a->r, a->command, any_of(&tests[0])) : NULL;
    if (!probe)
        return 0;
    runner_argv_free(probe);
    bool sets = a->r->kind == RUNNER_UNITTEST && a->r->attribution == RUNNER_ATTRIBUTE_PLACED;
    fprintf(stderr, "sbx: audit: %zu test(s) failed under %s without a denial: re-running them "
            "%s there to see whether a limit of its made them fail\n", need, a->names[1],
            sets ? "by module, each module's in one run," : "alone");
    /* a run per module, as far as is known now (progress() counts on when
     * a set leaves some to run alone) */
    size_t runs = need;
    if (sets) {
        runs = 0;
        for (size_t i = 0; i < n; i++) {
            size_t len = wants_limit_check(&tests[i]) ? module_len(&tests[i]) : 0;
            bool first = true;
            for (size_t j = 0; j < i && first && len; j++)
                first = !(wants_limit_check(&tests[j]) && same_module(&tests[i], &tests[j], len));
            runs += wants_limit_check(&tests[i]) && first;
        }
    }
    a->todo += runs;
    int sig = sets ? check_limits_in_sets(a, tests, n) : 0;
    for (size_t i = 0; i < n && !sig; i++) {
        struct judged_test *t = &tests[i];
        if (!wants_limit_check(t))
            continue;
        /* its result in the whole run stands: it failed there */
        enum test_status keep = t->j.against;
        uint64_t denied = t->j.denied;
        char text[sizeof t->denied_text];
        memcpy(text, t->denied_text, sizeof text);
        enum rerun_outcome o = run_alone(a, t, 1, NULL, &sig);
        t->limit_alone = t->limit_alone || o == RERUN_DONE;
        limit_checked(a, t, o == RERUN_DONE && t->rerun[1] && !status_failed(t->j.against), keep,
                      denied, text);
    }
    return sig;
}

/* The re-runs' phases, timed for --report: the tests without a result
 * observed, the denials attributed, the start-up resolved, the failures
 * without a denial checked. */
enum { PHASE_OBSERVE, PHASE_ATTRIBUTE, PHASE_STARTUP, PHASE_LIMITS, PHASE_COUNT };
static const char *const phase_names[PHASE_COUNT] = { "observe", "attribute", "startup", "limits" };
struct phase_time {
    uint64_t ms, reruns;
};

static void phase_begin(struct phase_time *p, const struct reruns *a)
{
    p->ms = monotonic_ms();
    p->reruns = a->started;
}

static void phase_end(struct phase_time *p, const struct reruns *a)
{
    p->ms = monotonic_ms() - p->ms;
    p->reruns = a->started - p->reruns;
}

/* The audit's own bounds (issue 25): the re-runs, in number, and the
 * whole audit, a multiple of the two runs (at least a minute: a small
 * suite's runs are mostly a runner's start). */
#define AUDIT_MAX_RERUNS 500
#define AUDIT_TOTAL_FACTOR 5
#define AUDIT_TOTAL_FLOOR_MS 60000

/* The order of the table: what needs reading first. */
static int group_order(enum test_verdict v)
{
    static const int order[TEST_VERDICT_COUNT] = {
        [TEST_FALSE_GREEN_HIDING_FAILURE] = 0, [TEST_FALSE_GREEN] = 1, [TEST_NOT_OBSERVED] = 2,
        [TEST_FAILS] = 3, [TEST_EXERCISED] = 4, [TEST_FAILS_AT_LIMIT] = 5,
        [TEST_FAILS_WITHOUT_DENIAL] = 6, [TEST_SKIPPED_HERE] = 7, [TEST_SKIPPED_BOTH] = 8,
        [TEST_UNAFFECTED] = 9,
    };
    return (unsigned)v < TEST_VERDICT_COUNT ? order[v] : 9;
}

/* Rows shown of one verdict without -v: the rest are in --report. */
#define AUDIT_ROWS_PER_GROUP 25

/* Why a row says what it says, for people: " (from its 2 subtest(s))". */
static void row_note(const struct judged_test *t, const struct reruns *a, char *note, size_t len)
{
    note[0] = '\0';
    if (t->kind == RUNNER_TEST_PARENT && t->subtests)
        snprintf(note, len, " (from its %zu subtest(s))", t->subtests);
    else if (t->verdict == TEST_FAILS_AT_LIMIT) {
        unsigned long long nofile = nofile_value(a->profiles[1]);
        if (nofile)
            snprintf(note, len, " (%s: the descriptor limit of %s, nofile = %llu)", t->limit,
                     a->names[1], nofile);
        else
            snprintf(note, len, " (%s: a descriptor limit)", t->limit);
    } else if (t->verdict == TEST_NOT_OBSERVED && t->capped)
        snprintf(note, len, " (not re-run: a bound of the audit came first)");
    else if (t->verdict == TEST_NOT_OBSERVED && t->j.denials_ambiguous && !t->whole_run)
        snprintf(note, len, " (the suite's start-up makes these calls too: not told apart)");
    else if (t->whole_run)
        snprintf(note, len, "%s", t->whole_run_entry ? " (the whole run's)"
                 : " (the whole run's: this runner cannot run one test)");
    else if (t->by_unit && t->denied_text[0])
        snprintf(note, len, t->placed ? " (its script's: made by its process or a child of it)"
                                      : " (its script's: the runner re-runs a script, not one test)");
    else if (t->by_suite)
        snprintf(note, len, " (the suite's start-up's or a fixture's: it failed with them)");
}

static const char *side_status(const struct judged_test *t, int side)
{
    if (side ? t->j.unobserved_against : t->j.unobserved_under)
        return "not-observed";
    return test_status_name(side ? t->j.against : t->j.under);
}

static void print_row(const struct judged_test *t, const struct reruns *a)
{
    const struct runner_test *any = any_of(t);
    char note[256];
    row_note(t, a, note, sizeof note);
    bool denials = t->denied_text[0] && t->verdict != TEST_FAILS_AT_LIMIT;
    fprintf(stderr, "  %-26s %s / %s: %s%s%s%s%s\n", test_verdict_name(t->verdict),
            side_status(t, 0), side_status(t, 1), t->kind == RUNNER_TEST_FIXTURE ? "fixture " : "",
            any->id, denials ? "; denied: " : "", denials ? t->denied_text : "", note);
}

/* --junit, --tap, $GITHUB_STEP_SUMMARY (audit_ci.h). */
static bool write_ci(const struct audit_ci_outputs *ci, const struct runner *r,
                     const struct judged_test *tests, size_t n, const struct reruns *a,
                     const char *summary)
{
    if (!ci->junit && !ci->tap && !ci->step_summary)
        return true;
    struct audit_ci_row *rows = xcalloc(n + 1, sizeof *rows);
    char (*notes)[256] = xcalloc(n + 1, sizeof *notes);
    for (size_t i = 0; i < n; i++) {
        const struct judged_test *t = &tests[i];
        row_note(t, a, notes[i], sizeof notes[i]);
        rows[i] = (struct audit_ci_row){
            .name = any_of(t)->id, .unit = any_of(t)->unit, .kind = kind_name(t->kind),
            .verdict = test_verdict_name(t->verdict), .under = side_status(t, 0),
            .against = side_status(t, 1), .denied = t->denied_text, .note = notes[i],
            .seconds = (double)t->own_us / 1e6,
        };
    }
    bool ok = audit_ci_write(ci, r->name, summary, rows, n);
    free(rows);
    free(notes);
    return ok;
}

static int by_group(const void *x, const void *y, void *data)
{
    const struct judged_test *tests = data;
    size_t i = *(const size_t *)x, k = *(const size_t *)y;
    int gi = group_order(tests[i].verdict), gk = group_order(tests[k].verdict);
    if (gi != gk)
        return gi < gk ? -1 : 1;
    return i < k ? -1 : i > k;
}

/* Does the runner's own count (runner_parser_counts) agree with the
 * cases parsed? One line naming the difference when it does not. */
static bool counts_agree(struct runner_parser *p, const char *profile)
{
    struct runner_counts c;
    runner_parser_counts(p, &c);
    if (!c.seen)
        return true;
    size_t n, cases = 0;
    const struct runner_test *v = runner_parser_tests(p, &n);
    for (size_t i = 0; i < n; i++)
        cases += v[i].kind == RUNNER_TEST_CASE;
    if (c.total == cases)
        return true;
    fprintf(stderr, "sbx: audit: under %s the runner counted %llu test(s) itself, and sbx read %zu "
            "from its report: the difference is not judged\n", profile,
            (unsigned long long)c.total, cases);
    return false;
}

int audit_per_test(const struct runner *r, char *const *command, const char *cwd,
                   const struct profile *profiles[2], const char *names[2],
                   const struct audit_per_test_options *o, char *why, size_t why_size)
{
    bool report = o->report;
    struct audit_bound bound = { 0 };
    struct runner_command rc;
    char err[512];
    if (!runner_command(r, command, &rc, err, sizeof err)) {
        snprintf(why, why_size, "%s: %s", r->command, err);
        return -1;
    }
    if (rc.note[0])
        fprintf(stderr, "sbx: audit: %s: %s\n", r->command, rc.note);
    memset(&channel_seen, 0, sizeof channel_seen);
    /* a runner sbx can add a reporter to, in a form it cannot (pytest run
     * as a program, regrtest -j): its output is read as the fallback */
    if (!rc.report && runner_has_reporter(r)) {
        channel_seen.fallback = true;
        snprintf(channel_seen.fallback_why, sizeof channel_seen.fallback_why,
                 "sbx could not add its result reporter to this form of the command: the results were "
                 "read from the output, where a test's own printed line can imitate one");
    }

    const char *labels[2] = { "run 1 of 2", "run 2 of 2" };
    struct runner_parser *parsers[2] = { NULL, NULL };
    struct sandbox_result results[2];
    int statuses[2];
    memset(results, 0, sizeof results);
    int sig = 0, status;
    struct judged_test *tests = NULL;
    struct reruns alone = { 0 };
    struct denial_tally *between = denial_tally_new();
    size_t *order = NULL, ntests = 0;
    const char *whole_limit = NULL;
    bool quiet = log_verbosity < LOG_VERBOSE;
    struct run_tail tails[2] = { 0 };
    /* each test's time under the profile, measured; under --against, a
     * bound on each (test_clock) */
    struct test_clock clocks[2];
    struct own_times own = { 0 };
    bool have_own = false;
    clock_init(&clocks[0], true, NULL);
    clock_init(&clocks[1], false, NULL);
    for (int i = 0; i < 2; i++) {
        if ((sig = audit_stop_requested(NULL))) {
            status = interrupted(sig, i - 1, names, report);
            goto out;
        }
        char label[128];
        snprintf(label, sizeof label, "%s, under %s", labels[i], names[i]);
        fprintf(stderr, "sbx: audit: ---- %s ----\n", label);
        uint64_t timeout_ms = 0;
        if (i == 1) {
            bound = audit_against_bound(results[0].duration_us, o->against_timeout_set,
                                        o->against_timeout_ms, profiles[1]->timeout_ms);
            audit_print_bound(stderr, &bound);
            timeout_ms = bound.timeout_ms;
            size_t n0, cases0 = 0;
            const struct runner_test *v0 = runner_parser_tests(parsers[0], &n0);
            for (size_t k = 0; k < n0; k++)
                cases0 += v0[k].kind == RUNNER_TEST_CASE;
            own_times_build(&own, v0, n0, &clocks[0],
                            cases0 ? results[0].duration_us / cases0 : results[0].duration_us);
            have_own = true;
            clocks[1].own = &own;
        }
        fflush(stderr);
        if (report) {
            report_audit_begin_run(i, label);
            record_profile(profiles[i]);
            record_command(rc.argv, cwd);
            if (i == 1)
                report_audit_against_timeout(bound.timeout_ms, audit_bound_source_name(bound.source));
        }
        parsers[i] = run_side(r, profiles[i], rc.argv, rc.report, cwd, label, quiet, timeout_ms,
                              &results[i], &statuses[i], NULL, NULL, i == 1 ? &whole_limit : NULL,
                              quiet ? &tails[i] : NULL, &clocks[i]);
        int exit_status = results[i].command_ran || results[i].exit_status ? results[i].exit_status
                                                                           : statuses[i];
        if (!results[i].not_started && !quiet) {
            fprintf(stderr, "sbx: audit: ---- end of %s ----\n", label);
        } else if (!results[i].not_started) {
            size_t nr;
            runner_parser_tests(parsers[i], &nr);
            fprintf(stderr, "sbx: audit: ---- end of %s: exit %d, %zu result(s) read, %" PRIu64
                    " bytes of output not shown (-v shows them) ----\n", label, exit_status, nr,
                    tails[i].total);
            /* why a run failed is what a person needs of its output
             * (under --against failing is expected: its tail is in the
             * record) */
            if (i == 0 && exit_status != 0)
                show_tail(&tails[i]);
        }
        if (report) {
            report_audit_end_run(i, &results[i], exit_status);
            if (quiet)
                report_audit_run_output(i, tails[i].bytes, tails[i].len, tails[i].total);
            if (i == 1)
                report_audit_against_timed_out(results[i].timed_out);
        }
        if ((sig = audit_stop_requested(&results[i]))) {
            status = interrupted(sig, results[i].not_started ? i - 1 : i, names, report);
            goto out;
        }
        if (i == 1 && results[i].timed_out && clocks[1].fired) {
            fprintf(stderr, "sbx: audit: the run under %s timed out at a test's own bound: %s ran "
                    "%.1f s, past %d x its time under %s and a floor; it counts as timed out, "
                    "those not started are re-run\n", names[1], clocks[1].fired_test,
                    (double)clocks[1].fired_after_ms / 1000, AUDIT_AGAINST_FACTOR, names[0]);
        } else if (i == 1 && results[i].timed_out)
            fprintf(stderr, "sbx: audit: the run under %s timed out: the test it was running counts "
                    "as timed out there, those it had not started are re-run alone\n", names[1]);
        if (exit_status == SBX_EXIT_FAILURE && !results[i].command_ran) {
            /* sbx's own reason went into the output not shown */
            if (quiet && i == 1)
                show_tail(&tails[i]);
            fprintf(stderr, "sbx: audit: no verdict: the sandbox could not run the command under %s\n",
                    names[i]);
            if (report)
                report_audit_write(NULL, SBX_EXIT_FAILURE);
            status = SBX_EXIT_FAILURE;
            goto out;
        }
    }

    size_t nu, na;
    const struct runner_test *tu = runner_parser_tests(parsers[0], &nu);
    const struct runner_test *ta = runner_parser_tests(parsers[1], &na);
    tests = xcalloc(nu + na + 2, sizeof *tests);
    size_t n = 0;
    struct test_index iu, ia;
    test_index_build(&iu, tu, nu);
    test_index_build(&ia, ta, na);
    for (size_t i = 0; i < nu; i++)
        tests[n++] = (struct judged_test){ .under = &tu[i], .against = find_test(&ia, &tu[i]) };
    for (size_t i = 0; i < na; i++)
        if (!find_test(&iu, &ta[i]))
            tests[n++] = (struct judged_test){ .against = &ta[i] };
    size_t ncases = 0;
    for (size_t i = 0; i < n; i++) {
        struct judged_test *t = &tests[i];
        /* not reported in a run: never observed there (it died before) */
        t->j.under = t->under ? t->under->status : TEST_ERRORED;
        t->j.against = t->against ? t->against->status : TEST_ERRORED;
        t->j.unobserved_under = !t->under;
        t->j.unobserved_against = !t->against;
        t->kind = t->under && t->under->kind != RUNNER_TEST_CASE ? t->under->kind
                  : t->against ? t->against->kind : RUNNER_TEST_CASE;
        /* a fixture's row is there only where it failed: absent on a
         * side, it did not fail there (nothing to observe or re-run) */
        if (t->kind == RUNNER_TEST_FIXTURE && !t->under) {
            t->j.under = TEST_PASSED;
            t->j.unobserved_under = false;
        }
        if (t->kind == RUNNER_TEST_FIXTURE && !t->against) {
            t->j.against = TEST_PASSED;
            t->j.unobserved_against = false;
        }
        t->own_us = t->under && t->under->duration_us ? t->under->duration_us
                    : t->under && t->under - tu < (ptrdiff_t)own.n ? own.us[t->under - tu]
                    : t->against ? t->against->duration_us : 0;
        ncases += t->kind == RUNNER_TEST_CASE;
    }
    /* parents, found by name among the rows; a parent is listed before its
     * subtests, so the rows are visited from the last for nested ones */
    {
        struct test_index *ix[2] = { &iu, &ia };
        size_t *row_of[2] = { xcalloc(nu + 1, sizeof(size_t)), xcalloc(na + 1, sizeof(size_t)) };
        for (size_t i = 0; i < n; i++) {
            if (tests[i].under)
                row_of[0][tests[i].under - tu] = i + 1;
            if (tests[i].against)
                row_of[1][tests[i].against - ta] = i + 1;
        }
        for (size_t i = 0; i < n; i++) {
            const struct runner_test *any = any_of(&tests[i]);
            if (!any->parent)
                continue;
            for (int side = 0; side < 2 && !tests[i].parent; side++) {
                size_t k = find_name(ix[side], any->parent, any->unit);
                if (k && row_of[side][k - 1] && row_of[side][k - 1] != i + 1)
                    tests[i].parent = row_of[side][k - 1];
            }
            if (tests[i].parent)
                tests[tests[i].parent - 1].subtests++;
        }
        free(row_of[0]);
        free(row_of[1]);
    }
    free(iu.slot);
    free(ia.slot);

    /* A side that failed without any test failing (a build error, a crash
     * between tests, a runner that could not start) is a failure of its
     * own: judged as "(the run itself)", so that a red run is never
     * summed up as green tests. */
    static const struct runner_test whole_run = { .id = "(the run itself)", .status = TEST_PASSED };
    bool side_failed[2];
    for (int i = 0; i < 2; i++) {
        int st = results[i].command_ran || results[i].exit_status ? results[i].exit_status : statuses[i];
        bool test_failed = false;
        size_t k;
        const struct runner_test *v = runner_parser_tests(parsers[i], &k);
        for (size_t t = 0; t < k; t++)
            if (status_failed(v[t].status))
                test_failed = true;
        /* tests without a result there explain a failed run: they are
         * re-run alone, or not-observed */
        bool unobserved = false;
        for (size_t t = 0; t < n && !unobserved; t++)
            unobserved = i ? tests[t].j.unobserved_against : tests[t].j.unobserved_under;
        side_failed[i] = st != 0 && !test_failed && !unobserved;
    }
    /* a run that stopped before every test ran is no failure of its own
     * once those tests are re-run alone: only with none to re-run */
    if (side_failed[0] || side_failed[1]) {
        tests[n] = (struct judged_test){ .under = &whole_run, .against = &whole_run };
        tests[n].j.under = side_failed[0] ? TEST_ERRORED : TEST_PASSED;
        tests[n].j.against = side_failed[1] ? TEST_ERRORED : TEST_PASSED;
        tests[n].whole_run_entry = true;
        n++;
    }
    ntests = n;

    bool incomplete = false;
    for (int i = 0; i < 2; i++)
        if (!counts_agree(parsers[i], names[i]))
            incomplete = true;

    uint64_t total = ledger_total(results[1].ledger);
    alone = (struct reruns){
        .r = r, .command = command, .cwd = cwd, .profiles = { profiles[0], profiles[1] },
        .names = { names[0], names[1] }, .whole_bound_ms = bound.timeout_ms,
        .default_test_us = ncases ? results[0].duration_us / ncases : results[0].duration_us,
        .whole = results[1].ledger, .startup = denial_tally_new(), .max = AUDIT_MAX_RERUNS,
        .tty = isatty(STDERR_FILENO) == 1, .whole_limit = whole_limit,
        .own_sum = denial_tally_new(), .own = have_own ? &own : NULL,
        .stopped_at_bound = clocks[1].fired && results[1].timed_out,
    };
    uint64_t both_ms = (results[0].duration_us + results[1].duration_us) / 1000;
    uint64_t total_ms = both_ms * AUDIT_TOTAL_FACTOR;
    if (total_ms < AUDIT_TOTAL_FLOOR_MS)
        total_ms = AUDIT_TOTAL_FLOOR_MS;
    alone.deadline_ms = monotonic_ms() + total_ms;
    {
        bool certain;
        uint64_t begin = audit_tests_begin(ta, na, &certain);
        denial_tally_add_before(alone.startup, results[1].ledger, begin);
        alone.startup_certain = certain || !denial_tally_total(alone.startup);
    }
    /* where the re-runs' time goes, for --report (issue 33): each phase's
     * wall time and re-runs */
    struct phase_time phases[PHASE_COUNT] = { { 0 } };
    phase_begin(&phases[PHASE_OBSERVE], &alone);
    sig = observe(&alone, tests, n);
    phase_end(&phases[PHASE_OBSERVE], &alone);
    phase_begin(&phases[PHASE_ATTRIBUTE], &alone);
    if (!sig && total) {
        if (r->kind == RUNNER_PROVE || r->kind == RUNNER_AUTOMAKE) {
            if (!attribute_by_process(&alone, tests, n, parsers[1], names[1]))
                sig = attribute_by_unit(&alone, tests, n, names[1]);
        }
        else if (!(placeable(r, parsers[1]) &&
                   attribute_by_placement(&alone, tests, n, parsers[1], names[1], between,
                                          r->attribution == RUNNER_ATTRIBUTE_THREAD, &sig)))
            sig = attribute_by_suspects(&alone, tests, n, ta, na, names[1]);
    }
    phase_end(&phases[PHASE_ATTRIBUTE], &alone);
    phase_begin(&phases[PHASE_STARTUP], &alone);
    if (!sig)
        sig = resolve_startup(&alone, tests, n);
    phase_end(&phases[PHASE_STARTUP], &alone);
    phase_begin(&phases[PHASE_LIMITS], &alone);
    if (!sig)
        sig = check_limits(&alone, tests, n);
    phase_end(&phases[PHASE_LIMITS], &alone);
    progress_end(&alone);
    if (sig) {
        status = interrupted(sig, 2, names, report);
        goto out;
    }

    /* What no test, start-up or fixture made: the whole run's denials
     * that the attribution left over (a call made only when the whole
     * module runs, at import: issue 25), or that only the whole run's
     * count charges (a runner that cannot run one test). */
    uint64_t unattributed = 0;
    char unattributed_text[256] = "";
    bool by_unit = false, by_whole = false;
    for (size_t i = 0; i < n; i++) {
        by_unit = by_unit || tests[i].by_unit;
        by_whole = by_whole || (tests[i].whole_run && !tests[i].whole_run_entry);
    }
    if (total && by_whole) {
        unattributed = total;
        describe_denials(results[1].ledger, unattributed_text, sizeof unattributed_text);
    } else if (total && !alone.attributed && !by_unit) {
        struct denial_tally *whole = denial_tally_new(), *made = denial_tally_new(),
                            *left = denial_tally_new();
        denial_tally_add(whole, results[1].ledger);
        denial_tally_add_tally(made, alone.startup);
        denial_tally_add_tally(made, between);
        denial_tally_add_tally(made, alone.own_sum);
        unattributed = denial_tally_excess(whole, made, left);
        denial_tally_describe(left, unattributed_text, sizeof unattributed_text);
        denial_tally_free(whole);
        denial_tally_free(made);
        denial_tally_free(left);
    }
    /* No test read at all (a make check the runner cannot parse: its
     * output is unittest's, not automake's), yet calls were denied: no test
     * was judged, so nothing is trustworthy (docs/agents.md's workflow of
     * plain steps passed a false green so) */
    if (total && !n && !unattributed) {
        unattributed = total;
        describe_denials(results[1].ledger, unattributed_text, sizeof unattributed_text);
    }
    if (unattributed)
        incomplete = true;

    /* verdicts: subtests before their parents (a parent comes first) */
    size_t counts[TEST_VERDICT_COUNT] = { 0 };
    for (size_t i = 0; i < n; i++)
        tests[i].verdict = test_verdict_of(&tests[i].j);
    for (size_t i = n; i-- > 0;)
        if (tests[i].parent) {
            struct judged_test *p = &tests[tests[i].parent - 1];
            enum test_verdict pair[2] = { p->subtests_seen ? p->verdict : tests[i].verdict,
                                          tests[i].verdict };
            p->verdict = test_verdict_of_parent(p->verdict, pair, 2);
            p->subtests_seen = true;
        }
    /* A test that fails under --against where only the suite's start-up or
     * a fixture had calls denied (a server started at import, a
     * setUpClass) noticed them: exercised by the suite's denials. (A
     * test that passes there is not charged with them: issue 33.) */
    char suite_text[256] = "";
    {
        struct denial_tally *suite_calls = denial_tally_new();
        denial_tally_add_tally(suite_calls, alone.startup);
        denial_tally_add_tally(suite_calls, between);
        denial_tally_describe(suite_calls, suite_text, sizeof suite_text);
        denial_tally_free(suite_calls);
    }
    for (size_t i = 0; i < n && suite_text[0]; i++) {
        struct judged_test *t = &tests[i];
        /* alone there it made the suite's calls too, and passed: they
         * are not why it failed (another test's leftovers are) */
        if (t->verdict == TEST_FAILS_WITHOUT_DENIAL && !t->whole_run_entry && !t->passes_alone) {
            t->verdict = TEST_EXERCISED;
            t->by_suite = true;
            snprintf(t->denied_text, sizeof t->denied_text, "%s", suite_text);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const struct judged_test *t = &tests[i];
        /* fixtures are the suite's, parents counted through their subtests */
        if (t->kind == RUNNER_TEST_FIXTURE || (t->kind == RUNNER_TEST_PARENT && t->subtests))
            continue;
        counts[t->verdict]++;
    }

    char startup_text[256], between_text[256];
    denial_tally_describe(alone.startup, startup_text, sizeof startup_text);
    denial_tally_describe(between, between_text, sizeof between_text);
    if (denial_tally_total(alone.startup) && alone.startup_certain)
        fprintf(stderr, "sbx: audit: the suite's start-up made denied calls: %s (before any test "
                "ran; charged to no test)\n", startup_text);
    else if (denial_tally_total(alone.startup))
        fprintf(stderr, "sbx: audit: denied calls before the first test's result: %s (the "
                "start-up's or the first test's: the output does not tell)\n", startup_text);
    if (denial_tally_total(between))
        fprintf(stderr, "sbx: audit: a class or module fixture made denied calls between tests: %s "
                "(the suite's, charged to no test: a test that relied on it is judged by its own "
                "calls)\n", between_text);
    if (unattributed)
        fprintf(stderr, "sbx: audit: %llu denied call(s) of the whole run were made by no test run "
                "alone nor by the start-up: %s\n", (unsigned long long)unattributed,
                unattributed_text);

    fprintf(stderr, "sbx: audit: test by test (%s), under %s and under %s:\n", r->command, names[0],
            names[1]);
    order = xcalloc(n + 1, sizeof *order);
    size_t shown = 0;
    for (size_t i = 0; i < n; i++)
        if (tests[i].verdict != TEST_UNAFFECTED)
            order[shown++] = i;
    qsort_r(order, shown, sizeof *order, by_group, tests);
    size_t in_group = 0;
    for (size_t k = 0; k < shown; k++) {
        const struct judged_test *t = &tests[order[k]];
        in_group = k && tests[order[k - 1]].verdict == t->verdict ? in_group + 1 : 0;
        if (log_verbosity < LOG_VERBOSE && in_group >= AUDIT_ROWS_PER_GROUP) {
            size_t more = 0;
            while (k + more < shown && tests[order[k + more]].verdict == t->verdict)
                more++;
            fprintf(stderr, "  %-26s ... and %zu more (-v or --report lists them)\n",
                    test_verdict_name(t->verdict), more);
            k += more - 1;
            continue;
        }
        print_row(t, &alone);
    }
    if (!shown)
        fprintf(stderr, "  (every test unaffected)\n");
    char line[512];
    test_verdicts_summary(counts, line, sizeof line);
    fprintf(stderr, "sbx: audit: %s\n", line);
    if (counts[TEST_FAILS_AT_LIMIT]) {
        /* issue 31: a refusal an agent can act on, here the limit's */
        const char *limit = NULL;
        for (size_t i = 0; i < n && !limit; i++)
            if (tests[i].verdict == TEST_FAILS_AT_LIMIT)
                limit = tests[i].limit;
        struct fix f;
        char text[800];
        fix_for_limit(limit, names[1], nofile_value(profiles[1]), &f);
        fix_format(&f, text, sizeof text);
        fprintf(stderr, "sbx: fix: %s (the %zu test(s) that fail at the descriptor limit of %s)\n",
                text, counts[TEST_FAILS_AT_LIMIT], names[1]);
    }
    if (alone.capped)
        fprintf(stderr, "sbx: audit: %zu test(s) were not re-run: the audit's bounds (%d re-runs, "
                "%d x the two runs) came first; they are not observed\n", alone.capped,
                AUDIT_MAX_RERUNS, AUDIT_TOTAL_FACTOR);
    if (runner_parser_truncated(parsers[0]) || runner_parser_truncated(parsers[1])) {
        fprintf(stderr, "sbx: audit: warning: the output held more tests or longer lines than sbx "
                "keeps (%d tests, %d bytes a line): the rest are not judged\n",
                RUNNER_MAX_TESTS, RUNNER_MAX_LINE);
        incomplete = true;
    }
    if (channel_seen.forged) {
        fprintf(stderr, "sbx: audit: warning: the result channel was written by something other than "
                "sbx's reporter: %s; the records after it were ignored, the tests they would have "
                "reported are not observed there\n", channel_seen.forged_why);
        incomplete = true;
    }
    if (channel_seen.fallback)
        fprintf(stderr, "sbx: audit: results read from the output, as a fallback: %s\n",
                channel_seen.fallback_why);
    int exit_status = test_verdicts_exit_status_of(counts, incomplete);
    size_t greens = counts[TEST_FALSE_GREEN] + counts[TEST_FALSE_GREEN_HIDING_FAILURE];
    /* issue 34: a test failing under the profile never hides the others'
     * verdicts; it is named, and the rest judged */
    if (counts[TEST_FAILS]) {
        fprintf(stderr, "sbx: audit: %zu test(s) fail under %s itself, which proves nothing about "
                "them:", counts[TEST_FAILS], names[0]);
        size_t named = 0;
        for (size_t i = 0; i < n && named < 5; i++)
            if (tests[i].verdict == TEST_FAILS && tests[i].kind != RUNNER_TEST_FIXTURE) {
                fprintf(stderr, "%s %s", named ? "," : "", any_of(&tests[i])->id);
                named++;
            }
        fprintf(stderr, "%s; the others are judged\n", counts[TEST_FAILS] > named ? ", ..." : "");
    }
    if (greens)
        fprintf(stderr, "sbx: verdict: FALSE GREEN: %zu test(s) passed under %s although calls "
                "they made were denied%s\n", greens, names[1],
                counts[TEST_FALSE_GREEN_HIDING_FAILURE] ? ", hiding a failure under the profile" : "");
    else if (exit_status == SBX_EXIT_INCONCLUSIVE)
        fprintf(stderr, "sbx: verdict: incomplete, not trustworthy: %s%s%s (exit %d)\n",
                counts[TEST_NOT_OBSERVED] ? "some tests were not observed" : "",
                counts[TEST_NOT_OBSERVED] && unattributed ? ", " : "",
                unattributed ? "some denials are no test's" : counts[TEST_NOT_OBSERVED] ? ""
                : channel_seen.forged ? "the result channel was forged"
                : "the runner's own count disagrees with the tests read", SBX_EXIT_INCONCLUSIVE);
    else if (counts[TEST_FAILS])
        fprintf(stderr, "sbx: verdict: %zu test(s) fail under %s itself: fix that first; of the "
                "others, %s\n", counts[TEST_FAILS], names[0],
                total ? "every test that made denied calls failed or skipped itself" :
                        "none touches the network");
    else if (total)
        fprintf(stderr, "sbx: verdict: trustworthy: every test that made denied calls failed or "
                "skipped itself under %s%s\n", names[1],
                channel_seen.fallback ? " (as read from the output, the fallback: a line a test "
                                        "printed could have imitated a failure)" : "");
    else
        fprintf(stderr, "sbx: verdict: the tests do not touch the network (nothing denied under %s)\n",
                names[1]);

    status = exit_status;
    if (!write_ci(&o->ci, r, tests, n, &alone, line))
        status = SBX_EXIT_FAILURE;
    if (report) {
        struct json_object *arr = json_object_new_array();
        for (size_t i = 0; i < n; i++)
            json_object_array_add(arr, test_json(&tests[i], names, profiles[1]));
        report_audit_set_tests(r->name, arr);
        struct json_object *pt = json_object_new_object();
        json_object_object_add(pt, "startup_denied", json_object_new_string(startup_text));
        json_object_object_add(pt, "startup_certain", json_object_new_boolean(alone.startup_certain));
        json_object_object_add(pt, "between_tests_denied", json_object_new_string(between_text));
        json_object_object_add(pt, "unattributed_count", json_object_new_int64((int64_t)unattributed));
        json_object_object_add(pt, "unattributed", json_object_new_string(unattributed_text));
        json_object_object_add(pt, "results_from",
                               json_object_new_string(channel_seen.fallback ? "output-fallback"
                                                      : rc.report && runner_has_reporter(r) ? "reporter" : "output"));
        json_object_object_add(pt, "channel_forged",
                               channel_seen.forged ? json_object_new_string(channel_seen.forged_why) : NULL);
        json_object_object_add(pt, "reruns", json_object_new_int64((int64_t)alone.started));
        json_object_object_add(pt, "reruns_max", json_object_new_int(AUDIT_MAX_RERUNS));
        struct json_object *ph = json_object_new_object();
        for (int i = 0; i < PHASE_COUNT; i++) {
            struct json_object *one = json_object_new_object();
            json_object_object_add(one, "ms", json_object_new_int64((int64_t)phases[i].ms));
            json_object_object_add(one, "reruns", json_object_new_int64((int64_t)phases[i].reruns));
            json_object_object_add(ph, phase_names[i], one);
        }
        json_object_object_add(pt, "phases", ph);
        struct json_object *rt = json_object_new_array();
        for (int i = 0; i < 2; i++)
            json_object_array_add(rt, json_object_new_int64((int64_t)(results[i].duration_us / 1000)));
        json_object_object_add(pt, "runs_ms", rt);
        json_object_object_add(pt, "stopped_at_test_bound",
                               json_object_new_int64((int64_t)alone.stopped_at_bound));
        json_object_object_add(pt, "not_rerun_for_bounds", json_object_new_int64((int64_t)alone.capped));
        json_object_object_add(pt, "incomplete", json_object_new_boolean(exit_status == SBX_EXIT_INCONCLUSIVE));
        report_audit_set_per_test(pt);
        /* the suite's verdict, in the command-level names (audit.h) */
        const char *verdict = greens ? audit_verdict_name(AUDIT_FALSE_GREEN)
                              : exit_status == SBX_EXIT_INCONCLUSIVE ? "incomplete"
                              : counts[TEST_FAILS] ? audit_verdict_name(AUDIT_FAILS_UNDER_PROFILE)
                              : total ? audit_verdict_name(AUDIT_TRUSTWORTHY)
                                      : audit_verdict_name(AUDIT_NO_NETWORK);
        if (!report_audit_write(verdict, status))
            status = SBX_EXIT_FAILURE;
    }
out:
    clock_free(&clocks[0]);
    clock_free(&clocks[1]);
    if (have_own)
        own_times_free(&own);
    free(order);
    for (size_t i = 0; tests && i < ntests; i++) {
        denial_tally_free(tests[i].alone_tally);
        denial_tally_free(tests[i].own_tally);
    }
    denial_tally_free(alone.startup_guess);
    free(tests);
    denial_tally_free(alone.common);
    for (size_t i = 0; i < alone.nbaselines; i++) {
        free(alone.baselines[i].key);
        denial_tally_free(alone.baselines[i].tally);
    }
    free(alone.baselines);
    denial_tally_free(alone.startup);
    denial_tally_free(alone.own_sum);
    denial_tally_free(between);
    for (int i = 0; i < 2; i++) {
        runner_parser_free(parsers[i]);
        sandbox_result_free(&results[i]);
        free(tails[i].bytes);
    }
    runner_command_free(&rc);
    return status;
}
