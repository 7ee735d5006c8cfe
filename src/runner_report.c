/* A runner's result reporter, read (runner_report.h): its records parsed
 * and checked, and the tests they name entered in the parser's table, in
 * place of what the output says (runner.h). Pure.
 *
 * What a record proves, and what it does not: the channel is a socket
 * whose only writer should be the reporter, and nothing the command
 * prints reaches it, so no line a test prints (a forged "FAIL: test_x",
 * an "AttributeError" without its newline before unittest's own line)
 * can name a test or change a result. A test runs in the reporter's
 * process, though, and can write to the descriptor itself: a record
 * without the run's key (which only the reporter read, before any test
 * code was imported), one out of sequence, malformed, or out of order
 * (a result for a test other than the one running, a test started while
 * another runs, in a serial runner) marks the channel forged: the
 * records after it are ignored and the audit never ends trustworthy. A
 * test that digs the key and the count out of the reporter's memory (it
 * is Python: gc.get_objects() reaches them) can still write a record that
 * passes; so can one that replaces unittest's result methods, as it could
 * replace the runner itself. That is the residual limit: the channel
 * stops what a suite prints, by accident or to look green, and detects
 * a blind write to it; it cannot stop code that sets out to subvert the
 * interpreter it shares with the reporter. */
#include "config.h"

#include "runner_report.h"

#include "runner_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one record ---- */

static bool number(const char **s, const char *end, uint64_t *out)
{
    const char *c = *s;
    uint64_t n = 0;
    if (c == end || *c < '0' || *c > '9' || (*c == '0' && c + 1 < end && c[1] >= '0' && c[1] <= '9'))
        return false;
    for (; c < end && *c >= '0' && *c <= '9'; c++) {
        if (n > (UINT64_MAX - 9) / 10)
            return false;
        n = n * 10 + (uint64_t)(*c - '0');
    }
    *s = c;
    *out = n;
    return true;
}

/* " WORD": the word after one space, up to the next space or the end. */
static bool word(const char **s, const char *end, const char **w, size_t *wlen)
{
    const char *c = *s;
    if (c == end || *c != ' ')
        return false;
    c++;
    const char *start = c;
    while (c < end && *c != ' ')
        c++;
    if (c == start)
        return false;
    *w = start;
    *wlen = (size_t)(c - start);
    *s = c;
    return true;
}

/* One more thread id in r (threads, ran records); false, r's ids
 * dropped, for a malformed one or one past RUNNER_MAX_THREADS. */
static bool add_tid(struct runner_record *r, uint64_t tid, bool parsed, size_t *cap)
{
    if (!parsed || !tid || tid > INT32_MAX || r->ntids == RUNNER_MAX_THREADS) {
        free(r->tids);
        r->tids = NULL;
        r->ntids = 0;
        return false;
    }
    xgrow((void **)&r->tids, cap, r->ntids + 1, sizeof *r->tids);
    r->tids[r->ntids++] = (int)tid;
    return true;
}

static bool is(const char *w, size_t wlen, const char *lit)
{
    return wlen == strlen(lit) && !memcmp(w, lit, wlen);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The id from " ID" to the end, decoded; NULL when malformed. */
static char *id_of(const char *s, const char *end)
{
    if (s == end || *s != ' ' || s + 1 == end)
        return NULL;
    s++;
    char *out = xmalloc((size_t)(end - s) + 1), *o = out;
    while (s < end) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\') {
            if (s + 1 < end && s[1] == '\\') {
                *o++ = '\\';
                s += 2;
                continue;
            }
            int hi, lo;
            if (end - s >= 4 && s[1] == 'x' && (hi = hex_digit(s[2])) >= 0 && (lo = hex_digit(s[3])) >= 0 && (hi || lo)) {
                *o++ = (char)(hi * 16 + lo);
                s += 4;
                continue;
            }
            free(out);
            return NULL;
        }
        if (c < 0x20 || c == 0x7f) {
            free(out);
            return NULL;
        }
        *o++ = (char)c;
        s++;
    }
    *o = '\0';
    return out;
}

static bool bad(char *why, size_t why_size, const char *what)
{
    snprintf(why, why_size, "%s", what);
    return false;
}

/* r emptied; "KEY ": past the key, at the sequence number; NULL with why
 * filled. */
static const char *after_key(struct runner_record *r, const char *line, size_t len, const char *key, char *why,
                             size_t why_size)
{
    memset(r, 0, sizeof *r);
    size_t klen = strlen(key);
    if (memchr(line, '\0', len)) {
        bad(why, why_size, "a record holds a NUL byte");
        return NULL;
    }
    if (len < klen + 1 || memcmp(line, key, klen) || line[klen] != ' ') {
        bad(why, why_size, "a record without the run's key");
        return NULL;
    }
    return line + klen + 1;
}

static bool record_body(const char *s, const char *end, struct runner_record *r, char *why, size_t why_size);

bool runner_record_parse(const char *line, size_t len, const char *key, uint64_t seq,
                         struct runner_record *r, char *why, size_t why_size)
{
    const char *s = after_key(r, line, len, key, why, why_size), *end = line + len;
    if (!s)
        return false;
    uint64_t n;
    if (!number(&s, end, &n))
        return bad(why, why_size, "a record without its sequence number");
    if (n != seq) {
        snprintf(why, why_size, "record %llu came where %llu was due", (unsigned long long)n,
                 (unsigned long long)seq);
        return false;
    }
    r->seq = n;
    return record_body(s, end, r, why, why_size);
}

bool runner_worker_record_parse(const char *line, size_t len, const char *key, int *pid,
                                struct runner_record *r, char *why, size_t why_size)
{
    const char *s = after_key(r, line, len, key, why, why_size), *end = line + len;
    if (!s)
        return false;
    uint64_t writer;
    if (!number(&s, end, &writer) || !writer || writer > INT32_MAX || s == end || *s++ != ':' ||
        !number(&s, end, &r->seq))
        return bad(why, why_size, "a worker's record without its pid and sequence number");
    *pid = (int)writer;
    if (!record_body(s, end, r, why, why_size))
        return false;
    /* a worker speaks for itself only */
    bool ran = r->verb == RECORD_RAN;
    if ((ran && r->n[0] != writer) || (!ran && r->verb != RECORD_CONTROLLER && r->verb != RECORD_UNIT)) {
        runner_record_free(r);
        return bad(why, why_size, ran ? "a worker's ran record for another process"
                                      : "a worker's record of a kind only a reporter writes");
    }
    return true;
}

static bool record_body(const char *s, const char *end, struct runner_record *r, char *why, size_t why_size)
{
    const char *w;
    size_t wlen;
    if (!word(&s, end, &w, &wlen))
        return bad(why, why_size, "a record without its verb");
    if (is(w, wlen, "hello")) {
        const char *name, *mode;
        size_t nlen, mlen;
        if (!word(&s, end, &name, &nlen) || !word(&s, end, &mode, &mlen) || s != end ||
            !(is(mode, mlen, "serial") || is(mode, mlen, "parallel")))
            return bad(why, why_size, "a malformed hello record");
        r->verb = RECORD_HELLO;
        r->parallel = is(mode, mlen, "parallel");
        r->text = xstrndup(name, nlen);
        return true;
    }
    if (is(w, wlen, "end")) {
        if (s != end)
            return bad(why, why_size, "a malformed end record");
        r->verb = RECORD_END;
        return true;
    }
    if (is(w, wlen, "threads")) {
        r->verb = RECORD_THREADS;
        size_t cap = 0;
        while (s != end) {
            uint64_t tid = 0;
            bool parsed = *s++ == ' ' && number(&s, end, &tid);
            if (!add_tid(r, tid, parsed, &cap))
                return bad(why, why_size, "a malformed threads record");
        }
        if (!r->ntids)
            return bad(why, why_size, "a malformed threads record");
        return true;
    }
    if (is(w, wlen, "unit")) {
        r->verb = RECORD_UNIT;
        r->text = id_of(s, end);
        return r->text ? true : bad(why, why_size, "a malformed unit record");
    }
    if (is(w, wlen, "controller")) {
        if (s == end || *s++ != ' ' || !number(&s, end, &r->n[0]) || s != end || !r->n[0] ||
            r->n[0] > INT32_MAX)
            return bad(why, why_size, "a malformed controller record");
        r->verb = RECORD_CONTROLLER;
        return true;
    }
    if (is(w, wlen, "ran") || is(w, wlen, "span")) {
        bool ran = is(w, wlen, "ran");
        for (int i = 0; i < 3; i++)
            if (s == end || *s++ != ' ' || !number(&s, end, &r->n[i]))
                return bad(why, why_size, ran ? "a malformed ran record" : "a malformed span record");
        if (!r->n[0] || r->n[0] > INT32_MAX || r->n[1] > r->n[2])
            return bad(why, why_size, ran ? "a malformed ran record" : "a malformed span record");
        if (!ran) {
            if (s != end)
                return bad(why, why_size, "a malformed span record");
            r->verb = RECORD_SPAN;
            return true;
        }
        /* TIDS: "-", or ids joined by commas */
        if (s == end || *s++ != ' ')
            return bad(why, why_size, "a malformed ran record");
        if (s < end && *s == '-') {
            s++;
        } else {
            size_t cap = 0;
            for (;;) {
                uint64_t tid = 0;
                bool parsed = number(&s, end, &tid);
                if (!add_tid(r, tid, parsed, &cap))
                    return bad(why, why_size, "a malformed ran record");
                if (s == end || *s != ',')
                    break;
                s++;
            }
        }
        r->verb = RECORD_RAN;
        r->text = id_of(s, end);
        if (!r->text) {
            free(r->tids);
            r->tids = NULL;
            r->ntids = 0;
            return bad(why, why_size, "a record with a malformed test id");
        }
        return true;
    }
    if (is(w, wlen, "suite")) {
        const char *edge;
        size_t elen;
        if (!word(&s, end, &edge, &elen) || s != end || !(is(edge, elen, "begin") || is(edge, elen, "end")))
            return bad(why, why_size, "a malformed suite record");
        r->verb = RECORD_SUITE;
        r->n[0] = is(edge, elen, "begin");
        return true;
    }
    if (is(w, wlen, "count")) {
        for (int i = 0; i < 3; i++)
            if (s == end || *s++ != ' ' || !number(&s, end, &r->n[i]))
                return bad(why, why_size, "a malformed count record");
        if (s != end)
            return bad(why, why_size, "a malformed count record");
        r->verb = RECORD_COUNT;
        return true;
    }
    if (is(w, wlen, "start") || is(w, wlen, "fixture")) {
        r->verb = RECORD_START;
        r->fixture = is(w, wlen, "fixture");
    } else if (is(w, wlen, "stop")) {
        r->verb = RECORD_STOP;
        if (s == end || *s++ != ' ' || !number(&s, end, &r->n[0]))
            return bad(why, why_size, "a stop record without its time");
    } else if (is(w, wlen, "result")) {
        static const struct { const char *w; enum test_status st; } statuses[] = {
            { "passed", TEST_PASSED }, { "failed", TEST_FAILED },
            { "errored", TEST_ERRORED }, { "skipped", TEST_SKIPPED },
        };
        const char *st;
        size_t stlen;
        if (!word(&s, end, &st, &stlen))
            return bad(why, why_size, "a result record without its status");
        size_t k = 0;
        while (k < 4 && !is(st, stlen, statuses[k].w))
            k++;
        if (k == 4)
            return bad(why, why_size, "a result record with an unknown status");
        r->verb = RECORD_RESULT;
        r->status = statuses[k].st;
    } else {
        return bad(why, why_size, "a record with an unknown verb");
    }
    r->text = id_of(s, end);
    if (!r->text)
        return bad(why, why_size, "a record with a malformed test id");
    return true;
}

void runner_record_free(struct runner_record *r)
{
    free(r->text);
    r->text = NULL;
    free(r->tids);
    r->tids = NULL;
    r->ntids = 0;
}

/* ---- the channel of one run ---- */

enum phase { PHASE_NONE, PHASE_STARTED, PHASE_STOPPED };

struct report_state {
    char key[RUNNER_KEY_LEN + 1];
    uint64_t seq;
    uint64_t fed;          /* the channel's bytes so far: its positions */
    char *line;
    size_t len, cap;
    bool overlong;
    bool hello, parallel, ended;
    bool in_suite;         /* between a suite begin and its end */
    enum runner_channel channel;
    char why[256];
    size_t running;        /* serial: the test between its start and stop */
    unsigned char *phase;  /* per test of the table: enum phase */
    bool *ran;             /* per test: a worker's ran record came (parallel) */
    size_t nphase;
    /* workers that write themselves (runner_parser_expect_clock) */
    bool clock;
    struct clock_writer {
        int pid;
        uint64_t next;     /* its next record's number */
        char *unit;        /* its last unit record's, or NULL */
    } *writers;
    size_t nwriters, cap_writers;
    struct clock_run {     /* a ran record, its id not yet looked up */
        int pid;
        uint64_t begin_ns, end_ns;
        char *unit, *id;
        int *tids;
        size_t ntids;
    } *pending;
    size_t npending, cap_pending;
    bool unplaced;         /* a ran record names no test of the output's */
};

static struct report_state *report_state_new(struct runner_parser *p, const char *key)
{
    struct report_state *rs = xcalloc(1, sizeof *rs);
    snprintf(rs->key, sizeof rs->key, "%s", key);
    rs->running = SIZE_MAX;
    rs->channel = RUNNER_CHANNEL_REPORT;
    rs->cap = 256;
    rs->line = xmalloc(rs->cap);
    p->report = rs;
    return rs;
}

void runner_parser_expect_report(struct runner_parser *p, const char *key)
{
    if (p->report || p->fed)
        return;
    report_state_new(p, key);
    p->fallback = runner_parser_new(p->r);
}

void runner_parser_expect_clock(struct runner_parser *p, const char *key)
{
    if (p->report || p->fed)
        return;
    report_state_new(p, key)->clock = true;
}

static void forged(struct report_state *rs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void forged(struct report_state *rs, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rs->channel = RUNNER_CHANNEL_FORGED;
    vsnprintf(rs->why, sizeof rs->why, fmt, ap);
    va_end(ap);
}

static unsigned char *phase_of(struct report_state *rs, size_t i)
{
    if (i >= rs->nphase) {
        size_t n = rs->nphase ? rs->nphase : 64;
        while (n <= i)
            n *= 2;
        rs->phase = xrealloc(rs->phase, n);
        memset(rs->phase + rs->nphase, PHASE_NONE, n - rs->nphase);
        rs->ran = xrealloc(rs->ran, n * sizeof *rs->ran);
        memset(rs->ran + rs->nphase, 0, (n - rs->nphase) * sizeof *rs->ran);
        rs->nphase = n;
    }
    return &rs->phase[i];
}

static void apply(struct runner_parser *p, struct report_state *rs, struct runner_record *r)
{
    if (r->verb == RECORD_HELLO) {
        if (rs->hello)
            return forged(rs, "a second hello record");
        rs->hello = true;
        rs->parallel = r->parallel;
        return;
    }
    if (!rs->hello)
        return forged(rs, "a record before the reporter's hello");
    if (rs->ended)
        return forged(rs, "a record after the reporter's end");
    const char *running = rs->running != SIZE_MAX ? p->tests[rs->running].id : NULL;
    size_t i = r->text ? find_test(p, NULL, r->text, false) : SIZE_MAX;
    unsigned char none = PHASE_NONE, *ph = i != SIZE_MAX ? phase_of(rs, i) : &none;
    p->line_end = rs->fed;
    switch (r->verb) {
    case RECORD_START:
        if (!rs->parallel && running)
            return forged(rs, "%.100s started while %.100s ran", r->text, running);
        if (*ph == PHASE_STARTED)
            return forged(rs, "%.100s started twice", r->text);
        i = test_started(p, NULL, r->text);
        if (i == SIZE_MAX)
            return;
        /* a serial runner's start is written before the test runs; a
         * parallel one's (pytest-xdist's controller) when a worker's
         * report of it arrives, after the test may have made its calls:
         * no position to place them by */
        if (!rs->parallel && !p->tests[i].announced_pos)
            p->tests[i].announced_pos = rs->fed;
        /* the test running now, for sbx audit's bound per test
         * (runner_parser_announced()): from the channel, never from the
         * output */
        if (!rs->parallel)
            p->last_announced = i;
        /* a hook's run (mocha's before/after all/each): the suite's, a
         * fixture row, never a test's */
        if (r->fixture)
            test_kind(p, i, RUNNER_TEST_FIXTURE);
        *phase_of(rs, i) = PHASE_STARTED;
        if (!rs->parallel)
            rs->running = i;
        return;
    case RECORD_RESULT:
        /* outside every test: a class or module fixture's, a collection
         * error; never a test's that has stopped */
        if (running ? i != rs->running : *ph == PHASE_STOPPED)
            return forged(rs, "a result for %.100s%s", r->text,
                          running ? " while another test ran" : " after it stopped");
        if (rs->parallel && *ph != PHASE_STARTED && i != SIZE_MAX && p->entries[i].has_result)
            return forged(rs, "a second result for %.100s outside its run", r->text);
        i = test_result(p, NULL, r->text, r->status);
        /* result_at() ends a test; here only its stop does */
        if (i != SIZE_MAX && *phase_of(rs, i) == PHASE_STARTED)
            p->entries[i].running = true;
        return;
    case RECORD_STOP:
        if (*ph != PHASE_STARTED || (!rs->parallel && i != rs->running))
            return forged(rs, "a stop for %.100s, which was not running", r->text);
        *ph = PHASE_STOPPED;
        p->entries[i].running = false;
        test_duration(p, i, r->n[0]);
        if (!p->entries[i].has_result) {
            /* stopped without any result: the runner lost it */
            result_at(p, i, TEST_ERRORED);
        }
        if (!rs->parallel)
            rs->running = SIZE_MAX;
        return;
    case RECORD_COUNT: {
        uint64_t run = r->n[0], failed = r->n[1], skipped = r->n[2];
        if (failed > run || skipped > run - failed)
            return forged(rs, "a count record that does not add up");
        runner_count(p, run - failed - skipped, failed, skipped, 0);
        return;
    }
    case RECORD_END:
        if (running)
            return forged(rs, "the reporter's end while %.100s ran", running);
        if (rs->in_suite)
            return forged(rs, "the reporter's end inside the suite's own time");
        rs->ended = true;
        return;
    case RECORD_THREADS:
        /* a parallel runner's starts place nothing, so neither do their
         * threads (pytest-xdist's controller runs execnet's) */
        if (rs->parallel)
            return;
        if (!running)
            return forged(rs, "a threads record outside a test");
        for (size_t k = 0; k < r->ntids; k++) {
            xgrow((void **)&p->inherited, &p->cap_inherited, p->ninherited + 1, sizeof *p->inherited);
            p->inherited[p->ninherited++] = (struct runner_inherited){ rs->running, r->tids[k] };
        }
        return;
    case RECORD_RAN:
        /* a worker's own account of one test's run: only a parallel
         * runner has workers, and a test runs once */
        if (!rs->parallel)
            return forged(rs, "a worker's ran record from a serial runner");
        i = test_started(p, NULL, r->text);
        if (i == SIZE_MAX)
            return;
        phase_of(rs, i);  /* sizes ran[] too */
        if (rs->ran[i])
            return forged(rs, "a second ran record for %.100s", r->text);
        rs->ran[i] = true;
        xgrow((void **)&p->worker_runs, &p->cap_worker_runs, p->nworker_runs + 1, sizeof *p->worker_runs);
        p->worker_runs[p->nworker_runs++] =
            (struct runner_worker_run){ i, (int)r->n[0], r->n[1], r->n[2] };
        for (size_t k = 0; k < r->ntids; k++) {
            xgrow((void **)&p->inherited, &p->cap_inherited, p->ninherited + 1, sizeof *p->inherited);
            p->inherited[p->ninherited++] = (struct runner_inherited){ i, r->tids[k] };
        }
        return;
    case RECORD_SPAN:
        if (!rs->parallel)
            return forged(rs, "a worker's span record from a serial runner");
        xgrow((void **)&p->worker_spans, &p->cap_worker_spans, p->nworker_spans + 1, sizeof *p->worker_spans);
        p->worker_spans[p->nworker_spans++] = (struct runner_worker_span){ (int)r->n[0], r->n[1], r->n[2] };
        return;
    case RECORD_CONTROLLER:
        if (!rs->parallel)
            return forged(rs, "a controller record from a serial runner");
        if (p->controller_pid)
            return forged(rs, "a second controller record");
        p->controller_pid = (int)r->n[0];
        return;
    case RECORD_SUITE:
        if (rs->parallel)
            return forged(rs, "a suite record from a parallel runner");
        if (r->n[0] == rs->in_suite)
            return forged(rs, "a suite %s where %s", r->n[0] ? "begin" : "end",
                          r->n[0] ? "one had begun" : "none had begun");
        rs->in_suite = r->n[0];
        /* the span runs from the end of its begin record to the end of
         * its end record: a call made in the fixture waited while at least
         * the first and at most the second had been written */
        if (r->n[0]) {
            xgrow((void **)&p->suite_spans, &p->cap_suite_spans, p->nsuite_spans + 1, sizeof *p->suite_spans);
            p->suite_spans[p->nsuite_spans++] = (struct runner_span){ rs->fed, UINT64_MAX };
        } else {
            p->suite_spans[p->nsuite_spans - 1].end = rs->fed;
        }
        return;
    case RECORD_UNIT:
        return forged(rs, "a worker's unit record from the reporter");
    case RECORD_HELLO:
        return;
    }
}

/* A worker's record (runner_report.h): in its writer's sequence; a ran
 * record kept until the output's table is complete (report_resolve()). */
static void clock_record(struct runner_parser *p, struct report_state *rs)
{
    struct runner_record r;
    char why[200];
    int pid;
    if (!runner_worker_record_parse(rs->line, rs->len, rs->key, &pid, &r, why, sizeof why)) {
        forged(rs, "%s", why);
        return;
    }
    size_t w = 0;
    while (w < rs->nwriters && rs->writers[w].pid != pid)
        w++;
    if (w == rs->nwriters) {
        if (w == RUNNER_MAX_WORKERS) {
            runner_record_free(&r);
            return forged(rs, "records from more than %d workers", RUNNER_MAX_WORKERS);
        }
        xgrow((void **)&rs->writers, &rs->cap_writers, w + 1, sizeof *rs->writers);
        rs->writers[rs->nwriters++] = (struct clock_writer){ pid, 0, NULL };
    }
    if (r.seq != rs->writers[w].next) {
        forged(rs, "worker %d's record %llu came where %llu was due", pid, (unsigned long long)r.seq,
               (unsigned long long)rs->writers[w].next);
    } else if (r.verb == RECORD_CONTROLLER) {
        rs->writers[w].next++;
        if (p->controller_pid && p->controller_pid != (int)r.n[0])
            forged(rs, "workers that name two controllers, %d and %llu", p->controller_pid,
                   (unsigned long long)r.n[0]);
        else
            p->controller_pid = (int)r.n[0];
    } else if (r.verb == RECORD_UNIT) {
        rs->writers[w].next++;
        free(rs->writers[w].unit);
        rs->writers[w].unit = r.text;
        r.text = NULL;
    } else if (rs->npending >= 4 * (size_t)RUNNER_MAX_TESTS) {
        forged(rs, "more than %d ran records", 4 * RUNNER_MAX_TESTS);
    } else {
        rs->writers[w].next++;
        xgrow((void **)&rs->pending, &rs->cap_pending, rs->npending + 1, sizeof *rs->pending);
        const char *unit = rs->writers[w].unit;
        rs->pending[rs->npending++] =
            (struct clock_run){ pid, r.n[1], r.n[2], unit ? xstrdup(unit) : NULL, r.text, r.tids, r.ntids };
        r.text = NULL;
        r.tids = NULL;
    }
    runner_record_free(&r);
}

static void record(struct runner_parser *p, struct report_state *rs)
{
    struct runner_record r;
    char why[200];
    if (rs->overlong) {
        forged(rs, "a record longer than %d bytes", RUNNER_MAX_LINE);
        return;
    }
    if (rs->clock)
        return clock_record(p, rs);
    if (!runner_record_parse(rs->line, rs->len, rs->key, rs->seq, &r, why, sizeof why)) {
        forged(rs, "%s", why);
        return;
    }
    rs->seq++;
    apply(p, rs, &r);
    runner_record_free(&r);
}

void runner_parser_feed_report(struct runner_parser *p, const void *bytes, size_t len)
{
    struct report_state *rs = p->report;
    const char *b = bytes;
    if (!rs || p->finished)
        return;
    while (len && rs->channel != RUNNER_CHANNEL_FORGED) {
        const char *nl = memchr(b, '\n', len);
        size_t take = nl ? (size_t)(nl - b) : len;
        size_t room = RUNNER_MAX_LINE - rs->len;
        size_t copy = take < room ? take : room;
        if (copy < take)
            rs->overlong = true;
        if (rs->len + copy + 1 > rs->cap) {
            while (rs->len + copy + 1 > rs->cap)
                rs->cap *= 2;
            rs->line = xrealloc(rs->line, rs->cap);
        }
        memcpy(rs->line + rs->len, b, copy);
        rs->len += copy;
        rs->fed += nl ? take + 1 : take;
        if (!nl)
            return;
        record(p, rs);
        rs->len = 0;
        rs->overlong = false;
        b = nl + 1;
        len -= take + 1;
    }
}

/* After a forged record: a test the channel gave no result for before it
 * has none at all (not the crash's "errored" a run that ended mid-test
 * gets), so that it is re-run alone or not-observed, never judged on
 * what came after the forgery. */
static void drop_unreported(struct runner_parser *p)
{
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (!p->entries[i].has_result) {
            free(p->tests[i].id);
            free(p->tests[i].unit);
            free(p->tests[i].parent);
            continue;
        }
        p->tests[k] = p->tests[i];
        p->entries[k] = p->entries[i];
        k++;
    }
    p->n = k;
    p->ninherited = 0;  /* indices of the table before: placement is off anyway */
    tests_reindex(p);
}

static void clock_free(struct report_state *rs)
{
    for (size_t k = 0; k < rs->npending; k++) {
        free(rs->pending[k].unit);
        free(rs->pending[k].id);
        free(rs->pending[k].tids);
    }
    free(rs->pending);
    rs->pending = NULL;
    rs->npending = 0;
}

void report_resolve(struct runner_parser *p)
{
    struct report_state *rs = p->report;
    if (!rs || !rs->clock)
        return;
    for (size_t k = 0; k < rs->npending && rs->channel == RUNNER_CHANNEL_REPORT && !rs->unplaced; k++) {
        const struct clock_run *c = &rs->pending[k];
        size_t i = find_test(p, c->unit, c->id, false);
        if (i == SIZE_MAX) {
            /* a test the output does not name (an id node spells
             * otherwise, a node --test a test runs itself): its calls
             * would be placed in no row */
            rs->unplaced = true;
            break;
        }
        phase_of(rs, i);
        rs->ran[i] = true;
        xgrow((void **)&p->worker_runs, &p->cap_worker_runs, p->nworker_runs + 1, sizeof *p->worker_runs);
        p->worker_runs[p->nworker_runs++] = (struct runner_worker_run){ i, c->pid, c->begin_ns, c->end_ns };
        for (size_t t = 0; t < c->ntids; t++) {
            xgrow((void **)&p->inherited, &p->cap_inherited, p->ninherited + 1, sizeof *p->inherited);
            p->inherited[p->ninherited++] = (struct runner_inherited){ i, c->tids[t] };
        }
    }
    clock_free(rs);
}

bool report_finish(struct runner_parser *p, bool killed)
{
    struct report_state *rs = p->report;
    struct runner_parser *fb = p->fallback;
    /* workers that write themselves: the output is the results' (read
     * as usual), the channel's runs are looked up once it has ended */
    if (rs->clock)
        return false;
    runner_parser_finish(fb, killed);
    /* an unterminated last record is no record: the reporter writes each
     * whole, so the process died while writing it */
    /* bytes came, but no hello (something wrote first): never the
     * output instead, which the same writer may have printed */
    if (!rs->hello && rs->fed && rs->channel == RUNNER_CHANNEL_REPORT) {
        rs->channel = RUNNER_CHANNEL_FORGED;
        snprintf(rs->why, sizeof rs->why, "the result channel's bytes hold no hello record");
    }
    if (rs->hello || rs->channel == RUNNER_CHANNEL_FORGED) {
        /* a reporter that saw no test where the output names some (code
         * run at import closed its descriptor, the runner re-executed
         * itself): the output is not taken instead, as a test could make
         * that happen and print what it likes */
        if (rs->channel == RUNNER_CHANNEL_REPORT && !p->n && fb->n) {
            rs->channel = RUNNER_CHANNEL_FORGED;
            snprintf(rs->why, sizeof rs->why, "sbx's result reporter saw no test, and the output "
                     "names %zu: the results are not judged", fb->n);
        }
        if (rs->channel == RUNNER_CHANNEL_FORGED)
            drop_unreported(p);
        return false;
    }
    /* the reporter never spoke (nothing at all on the channel: the
     * command is not the program sbx expected, or its tests ran in a
     * process the reporter is not in: mocha with --node-option or
     * --inspect re-executes itself, a .mocharc's parallel): the output,
     * read as without one; its positions are the output's, not the
     * channel's that the denials were placed by, so no test is placed by
     * them (re-runs decide) */
    struct runner_parser t = *p;
    *p = *fb;
    *fb = t;
    p->report = rs;
    p->fallback = fb;
    fb->report = NULL;
    fb->fallback = NULL;
    for (size_t i = 0; i < p->n; i++)
        p->tests[i].announced_pos = 0;
    rs->channel = RUNNER_CHANNEL_FALLBACK;
    snprintf(rs->why, sizeof rs->why, "sbx's result reporter never spoke (is the command the "
             "program sbx expected, its tests run in its own process?): the results were read from "
             "the output, where a test's own printed line can imitate one");
    return true;
}

void report_free(struct runner_parser *p)
{
    struct report_state *rs = p->report;
    if (rs) {
        free(rs->line);
        free(rs->phase);
        free(rs->ran);
        clock_free(rs);
        for (size_t w = 0; w < rs->nwriters; w++)
            free(rs->writers[w].unit);
        free(rs->writers);
        free(rs);
    }
    p->report = NULL;
    runner_parser_free(p->fallback);
    p->fallback = NULL;
}

/* Workers that write themselves: a run of every test that ran, looked
 * up in the output's table. A row may have none where it ran no code of
 * its own: a parent (node's describe block; a test with subtests has its
 * own stretches), and, for node --test, a test skipped (test.skip): node
 * ends every test that started with its signal, skipped or not. jest's
 * and vitest's clocks give every test a run, an empty one where it never
 * ran: a test there can start and then be skipped (ctx.skip()), and its
 * calls would otherwise fall in no run. A file's row (its process died,
 * its tests' results lost) sends the run back to re-runs, as does a
 * result without a run (its worker died, or spelt its name otherwise). */
static bool clock_placeable(const struct runner_parser *p, const struct report_state *rs)
{
    if (rs->channel != RUNNER_CHANNEL_REPORT || rs->unplaced || !p->nworker_runs)
        return false;
    for (size_t i = 0; i < p->n; i++) {
        if (p->tests[i].kind == RUNNER_TEST_FIXTURE)
            return false;
        if (p->tests[i].kind == RUNNER_TEST_PARENT ||
            (p->r->kind == RUNNER_NODE && p->entries[i].has_result && p->tests[i].status == TEST_SKIPPED))
            continue;
        if (i >= rs->nphase || !rs->ran[i])
            return false;
    }
    return true;
}

bool runner_parser_placeable(const struct runner_parser *p)
{
    if (!p->report)
        return p->announces_serially;
    const struct report_state *rs = p->report;
    if (rs->clock)
        return clock_placeable(p, rs);
    if (rs->channel != RUNNER_CHANNEL_REPORT || !rs->hello)
        return false;
    if (!rs->parallel)
        return true;
    /* a worker's run of every test that started or has a result: a
     * call of a test without one (its worker died) has no run to be
     * placed in, and may be in no other */
    if (!p->nworker_runs)
        return false;
    for (size_t i = 0; i < p->n; i++)
        if ((i < rs->nphase && rs->phase[i] != PHASE_NONE) || p->entries[i].has_result)
            if (i >= rs->nphase || !rs->ran[i])
                return false;
    return true;
}

const struct runner_worker_run *runner_parser_worker_runs(const struct runner_parser *p, size_t *n)
{
    *n = p->nworker_runs;
    return p->worker_runs;
}

int runner_parser_controller(const struct runner_parser *p)
{
    return p->controller_pid;
}

const struct runner_worker_span *runner_parser_worker_spans(const struct runner_parser *p, size_t *n)
{
    *n = p->nworker_spans;
    return p->worker_spans;
}

const struct runner_inherited *runner_parser_inherited(const struct runner_parser *p, size_t *n)
{
    *n = p->ninherited;
    return p->inherited;
}

const struct runner_span *runner_parser_suite_spans(const struct runner_parser *p, size_t *n)
{
    *n = p->nsuite_spans;
    return p->suite_spans;
}

enum runner_channel runner_parser_channel(const struct runner_parser *p, const char **why)
{
    *why = NULL;
    if (!p->report || p->report->clock)
        return RUNNER_CHANNEL_OUTPUT;
    if (p->report->channel != RUNNER_CHANNEL_REPORT)
        *why = p->report->why;
    return p->report->channel;
}
