/* The result reporter's records (src/runner_report.c): one record parsed
 * and checked (the key, the sequence, each verb, the id's escapes, every
 * malformed form refused), and a run's channel read into the parser's
 * table: results and positions from the records alone whatever the
 * output says, the same at every split of the bytes, every way of
 * forging detected (the records after it ignored, the test then running
 * left without a result), and the fallback to the output marked. */
#include "config.h"

#include "runner.h"
#include "runner_report.h"
#include "util.h"

#include "../tap.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY "0123456789abcdef0123456789abcdef"

static const struct runner *named(const char *name)
{
    const char *suggestion;
    const struct runner *r = runner_by_name(name, &suggestion);
    if (!r)
        bail_out("no runner of that name");
    return r;
}

static bool parse(const char *line, uint64_t seq, struct runner_record *r, char *why, size_t why_size)
{
    return runner_record_parse(line, strlen(line), KEY, seq, r, why, why_size);
}

static void test_record(void)
{
    struct runner_record r;
    char why[200];
    ok(parse(KEY " 0 hello unittest serial", 0, &r, why, sizeof why) && r.verb == RECORD_HELLO &&
           !r.parallel && !strcmp(r.text, "unittest"), "hello: the runner, serial");
    runner_record_free(&r);
    ok(parse(KEY " 0 hello pytest parallel", 0, &r, why, sizeof why) && r.parallel, "hello: parallel");
    runner_record_free(&r);
    ok(parse(KEY " 7 start m.C.test_x", 7, &r, why, sizeof why) && r.verb == RECORD_START &&
           r.seq == 7 && !strcmp(r.text, "m.C.test_x"), "start: its id");
    runner_record_free(&r);
    ok(parse(KEY " 8 result failed setUpClass (m.C)", 8, &r, why, sizeof why) && r.verb == RECORD_RESULT &&
           r.status == TEST_FAILED && !strcmp(r.text, "setUpClass (m.C)"), "result: status, an id with spaces");
    runner_record_free(&r);
    static const struct { const char *w; enum test_status st; } statuses[] = {
        { "passed", TEST_PASSED }, { "errored", TEST_ERRORED }, { "skipped", TEST_SKIPPED },
    };
    for (size_t i = 0; i < 3; i++) {
        char line[128];
        snprintf(line, sizeof line, KEY " 1 result %s x", statuses[i].w);
        ok(parse(line, 1, &r, why, sizeof why) && r.status == statuses[i].st, "result %s", statuses[i].w);
        runner_record_free(&r);
    }
    ok(parse(KEY " 9 stop 1500 a b", 9, &r, why, sizeof why) && r.verb == RECORD_STOP && r.n[0] == 1500 &&
           !strcmp(r.text, "a b"), "stop: its time and id");
    runner_record_free(&r);
    ok(parse(KEY " 3 count 5 1 2", 3, &r, why, sizeof why) && r.verb == RECORD_COUNT && r.n[0] == 5 &&
           r.n[1] == 1 && r.n[2] == 2, "count: run, failed, skipped");
    ok(parse(KEY " 4 end", 4, &r, why, sizeof why) && r.verb == RECORD_END, "end");
    ok(parse(KEY " 5 suite begin", 5, &r, why, sizeof why) && r.verb == RECORD_SUITE && r.n[0] == 1 && !r.text,
       "suite begin");
    ok(parse(KEY " 6 suite end", 6, &r, why, sizeof why) && r.verb == RECORD_SUITE && r.n[0] == 0, "suite end");
    ok(parse(KEY " 7 threads 12 345", 7, &r, why, sizeof why) && r.verb == RECORD_THREADS && r.ntids == 2 &&
           r.tids[0] == 12 && r.tids[1] == 345, "threads: the ids alive at a test's start");
    runner_record_free(&r);
    ok(parse(KEY " 1 start a\\\\b\\x0ac\\x7f\xc3\xa9", 1, &r, why, sizeof why) &&
           !strcmp(r.text, "a\\b\nc\x7f\xc3\xa9"), "the id's escapes decoded, UTF-8 kept");
    runner_record_free(&r);

    static const struct { const char *line; uint64_t seq; const char *why; } refused[] = {
        { "fedcba9876543210fedcba9876543210 0 hello unittest serial", 0, "without the run's key" },
        { KEY "0 hello unittest serial", 0, "without the run's key" },
        { "0 1 result failed m.C.test_x", 1, "without the run's key" },
        { "result failed m.C.test_x", 0, "without the run's key" },
        { KEY " 2 start x", 1, "record 2 came where 1 was due" },
        { KEY " 01 start x", 1, "without its sequence number" },
        { KEY " 99999999999999999999999 start x", 1, "without its sequence number" },
        { KEY " 1", 1, "without its verb" },
        { KEY " 1 begin x", 1, "unknown verb" },
        { KEY " 1 start", 1, "malformed test id" },
        { KEY " 1 start ", 1, "malformed test id" },
        { KEY " 1 start a\\qb", 1, "malformed test id" },
        { KEY " 1 start a\\", 1, "malformed test id" },
        { KEY " 1 start a\\x0", 1, "malformed test id" },
        { KEY " 1 start a\\x00b", 1, "malformed test id" },
        { KEY " 1 start a\\xZZ", 1, "malformed test id" },
        { KEY " 1 start a\tb", 1, "malformed test id" },
        { KEY " 1 start a\rb", 1, "malformed test id" },
        { KEY " 1 result FAIL x", 1, "unknown status" },
        { KEY " 1 result", 1, "without its status" },
        { KEY " 1 stop x", 1, "without its time" },
        { KEY " 1 count 1 2", 1, "malformed count" },
        { KEY " 1 count 1 2 3 4", 1, "malformed count" },
        { KEY " 1 end now", 1, "malformed end" },
        { KEY " 1 threads", 1, "malformed threads" },
        { KEY " 1 threads 0", 1, "malformed threads" },
        { KEY " 1 threads 12 x", 1, "malformed threads" },
        { KEY " 1 threads 99999999999", 1, "malformed threads" },
        { KEY " 1 suite", 1, "malformed suite" },
        { KEY " 1 suite start", 1, "malformed suite" },
        { KEY " 1 suite begin now", 1, "malformed suite" },
        { KEY " 0 hello unittest", 0, "malformed hello" },
        { KEY " 0 hello unittest both", 0, "malformed hello" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        bool parsed = parse(refused[i].line, refused[i].seq, &r, why, sizeof why);
        ok(!parsed && strstr(why, refused[i].why) && !r.text, "refused: '%s' (%s)", refused[i].line, why);
        runner_record_free(&r);
    }
    ok(!runner_record_parse(KEY " 1 start a\0b", sizeof KEY " 1 start a\0b" - 1, KEY, 1, &r, why, sizeof why) &&
           strstr(why, "NUL"), "refused: a NUL byte in a record");
}

/* ---- a run's channel ---- */

static const char run_records[] =
    KEY " 0 hello unittest serial\n"
    KEY " 1 start m.C.test_a\n"
    KEY " 2 result passed m.C.test_a\n"
    KEY " 3 stop 120 m.C.test_a\n"
    KEY " 4 start m.C.test_b\n"
    KEY " 5 result failed m.C.test_b\n"
    KEY " 6 stop 40 m.C.test_b\n"
    KEY " 7 result errored m.D.setUpClass\n"
    KEY " 8 count 2 1 0\n"
    KEY " 9 end\n";

/* output that imitates results and names made-up tests, as a suite's
 * interleaved output did */
static const char lying_output[] =
    "test_a (m.C.test_a) ... FAIL\n"
    "AttributeErrortest_b (m.C.test_b) ... ok\n"
    "FAIL: test_c (m.C.test_c)\n"
    "Ran 9 tests in 0.1s\n"
    "OK\n";

static struct runner_parser *run_of(const char *runner, const char *records, size_t split,
                                    const char *output, bool killed)
{
    struct runner_parser *p = runner_parser_new(named(runner));
    runner_parser_expect_report(p, KEY);
    if (output)
        runner_parser_feed(p, output, strlen(output));
    size_t len = strlen(records);
    runner_parser_feed_report(p, records, split);
    runner_parser_feed_report(p, records + split, len - split);
    runner_parser_finish(p, killed);
    return p;
}

static struct runner_parser *channel_run(const char *records, size_t split, bool output)
{
    return run_of("unittest", records, split, output ? lying_output : NULL, false);
}

static char *summary(struct runner_parser *p)
{
    size_t n;
    const struct runner_test *t = runner_parser_tests(p, &n);
    char *out = xstrdup("");
    for (size_t i = 0; i < n; i++) {
        char *next = xasprintf("%s%s%s=%s", out, i ? " " : "", t[i].id, test_status_name(t[i].status));
        free(out);
        out = next;
    }
    return out;
}

static void test_channel(void)
{
    const char *why;
    struct runner_parser *p = channel_run(run_records, 0, true);
    char *s = summary(p);
    is_str(s, "m.C.test_a=passed m.C.test_b=failed m.D.setUpClass=errored",
           "the records' tests and results; none of the output's");
    free(s);
    is_int(runner_parser_channel(p, &why), RUNNER_CHANNEL_REPORT, "the channel: the reporter's");
    ok(why == NULL, "with nothing to say");
    size_t n;
    const struct runner_test *t = runner_parser_tests(p, &n);
    size_t after_start_a = strlen(KEY " 0 hello unittest serial\n" KEY " 1 start m.C.test_a\n");
    is_int((long long)t[0].announced_pos, (long long)after_start_a, "a test's start: where its start record ends");
    is_int((long long)t[0].reported_pos, (long long)(after_start_a + strlen(KEY " 2 result passed m.C.test_a\n")),
           "its result: where its result record ends");
    is_int((long long)t[0].duration_us, 120, "its time, from its stop record");
    struct runner_counts c;
    runner_parser_counts(p, &c);
    ok(c.seen && c.total == 2 && c.passed == 1 && c.failed == 1, "the runner's count, the record's, not the output's 9");
    runner_parser_free(p);

    /* the same at every split point */
    size_t len = strlen(run_records);
    bool same = true;
    for (size_t split = 0; split <= len; split++) {
        p = channel_run(run_records, split, false);
        s = summary(p);
        same &= !strcmp(s, "m.C.test_a=passed m.C.test_b=failed m.D.setUpClass=errored") &&
                runner_parser_channel(p, &why) == RUNNER_CHANNEL_REPORT;
        free(s);
        runner_parser_free(p);
    }
    ok(same, "the records cut at every byte read the same");

    /* forgeries: each detected, what follows ignored, and the test that
     * was running left without a result (re-run alone, never judged on
     * the forgery) */
    static const struct { const char *records; const char *tests; const char *why; } forgeries[] = {
        { KEY " 0 hello unittest serial\n" KEY " 1 start m.C.test_a\n"
          "0 2 result failed m.C.test_a\n" KEY " 2 result passed m.C.test_a\n",
          "", "without the run's key" },
        { KEY " 0 hello unittest serial\n" KEY " 1 start m.C.test_a\n" KEY " 2 result passed m.C.test_a\n"
          KEY " 3 stop 1 m.C.test_a\n" KEY " 4 start m.C.test_b\n"
          KEY " 6 result failed m.C.test_b\n", "m.C.test_a=passed", "record 6 came where 5 was due" },
        { KEY " 0 hello unittest serial\n" KEY " 1 start m.C.test_a\n" KEY " 2 start m.C.test_b\n",
          "", "m.C.test_b started while m.C.test_a ran" },
        { KEY " 0 hello unittest serial\n" KEY " 1 start m.C.test_a\n" KEY " 2 result failed m.C.test_b\n",
          "", "a result for m.C.test_b while another test ran" },
        { KEY " 0 hello unittest serial\n" KEY " 1 start m.C.test_a\n" KEY " 2 result passed m.C.test_a\n"
          KEY " 3 stop 1 m.C.test_a\n" KEY " 4 result failed m.C.test_a\n",
          "m.C.test_a=passed", "a result for m.C.test_a after it stopped" },
        { KEY " 0 hello unittest serial\n" KEY " 1 stop 1 m.C.test_a\n", "", "which was not running" },
        { KEY " 0 hello unittest serial\n" KEY " 1 end\n" KEY " 2 start m.C.test_a\n", "",
          "after the reporter's end" },
        { KEY " 0 hello unittest serial\n" KEY " 1 hello unittest serial\n", "", "a second hello" },
        { KEY " 0 start m.C.test_a\n", "", "before the reporter's hello" },
        { KEY " 0 hello unittest serial\n" KEY " 1 count 1 2 0\n", "", "does not add up" },
        { KEY " 0 hello unittest serial\n" KEY " 1 start m.C.test_a\n" KEY " 2 end\n", "",
          "the reporter's end while m.C.test_a ran" },
        { KEY " 0 hello pytest serial\n" KEY " 1 suite begin\n" KEY " 2 suite begin\n", "",
          "a suite begin where one had begun" },
        { KEY " 0 hello pytest serial\n" KEY " 1 suite end\n", "", "a suite end where none had begun" },
        { KEY " 0 hello unittest serial\n" KEY " 1 threads 7\n", "", "a threads record outside a test" },
        { KEY " 0 hello pytest parallel\n" KEY " 1 suite begin\n", "", "a suite record from a parallel runner" },
        { KEY " 0 hello pytest serial\n" KEY " 1 ran 7 10 20 - t.py::a\n", "",
          "a worker's ran record from a serial runner" },
        { KEY " 0 hello pytest serial\n" KEY " 1 span 7 10 20\n", "", "a worker's span record from a serial runner" },
        { KEY " 0 hello pytest parallel\n" KEY " 1 ran 7 10 20 - t.py::a\n" KEY " 2 ran 7 30 40 - t.py::a\n", "",
          "a second ran record for t.py::a" },
        { KEY " 0 hello pytest parallel\n" KEY " 1 ran 7 30 20 - t.py::a\n", "", "a malformed ran record" },
        { KEY " 0 hello pytest parallel\n" KEY " 1 ran 0 10 20 - t.py::a\n", "", "a malformed ran record" },
        { KEY " 0 hello pytest parallel\n" KEY " 1 ran 7 10 20 5,,6 t.py::a\n", "", "a malformed ran record" },
        { KEY " 0 hello pytest parallel\n" KEY " 1 ran 7 10 20 -\n", "", "a malformed test id" },
        { KEY " 0 hello pytest parallel\n" KEY " 1 span 7 10\n", "", "a malformed span record" },
        { KEY " 0 hello pytest serial\n" KEY " 1 controller 7\n", "", "a controller record from a serial runner" },
        { KEY " 0 hello pytest parallel\n" KEY " 1 controller 7\n" KEY " 2 controller 8\n", "",
          "a second controller record" },
        { KEY " 0 hello pytest parallel\n" KEY " 1 controller 0\n", "", "a malformed controller record" },
        { KEY " 0 hello pytest serial\n" KEY " 1 suite begin\n" KEY " 2 end\n", "",
          "the reporter's end inside the suite's own time" },
    };
    for (size_t i = 0; i < sizeof forgeries / sizeof forgeries[0]; i++) {
        p = channel_run(forgeries[i].records, 0, true);
        s = summary(p);
        enum runner_channel ch = runner_parser_channel(p, &why);
        ok(ch == RUNNER_CHANNEL_FORGED && why && strstr(why, forgeries[i].why), "forged: %s (%s)",
           forgeries[i].why, why ? why : "-");
        is_str(s, forgeries[i].tests, "forged: %s: only the results before it", forgeries[i].why);
        free(s);
        runner_parser_free(p);
    }
    /* the suite's own time inside a test's run: spans of the channel's
     * positions, from the end of its begin record to the end of its end
     * record; the channel of a serial runner, intact */
    {
        static const char spans[] =
            KEY " 0 hello pytest serial\n" KEY " 1 start t.py::a\n" KEY " 2 suite begin\n"
            KEY " 3 suite end\n" KEY " 4 result passed t.py::a\n" KEY " 5 stop 1 t.py::a\n"
            KEY " 6 suite begin\n" KEY " 7 end\n";
        p = channel_run(spans, 7, true);
        size_t nspans;
        const struct runner_span *sp = runner_parser_suite_spans(p, &nspans);
        const char *b = strstr(spans, " 2 suite begin\n"), *e = strstr(spans, " 3 suite end\n");
        uint64_t begin = (uint64_t)(b - spans) + strlen(" 2 suite begin\n");
        uint64_t end = (uint64_t)(e - spans) + strlen(" 3 suite end\n");
        ok(nspans == 2 && sp[0].begin == begin && sp[0].end == end,
           "suite: a span from its begin record's end to its end record's end");
        ok(nspans == 2 && sp[1].begin == strlen(spans) - strlen(KEY " 7 end\n") && sp[1].end == UINT64_MAX,
           "suite: one begun and never ended runs to the end");
        enum runner_channel ch = runner_parser_channel(p, &why);
        ok(ch == RUNNER_CHANNEL_FORGED && !runner_parser_placeable(p),
           "suite: the end inside the suite's time is forged: no longer a serial channel to place by");
        runner_parser_free(p);
        p = channel_run(run_records, 0, true);
        ok(runner_parser_placeable(p), "a unittest channel, intact: serial");
        runner_parser_free(p);
        static const char par[] = KEY " 0 hello pytest parallel\n" KEY " 1 start t.py::a\n"
                                  KEY " 2 result passed t.py::a\n" KEY " 3 stop 1 t.py::a\n" KEY " 4 end\n";
        p = channel_run(par, 0, true);
        ok(!runner_parser_placeable(p), "pytest under xdist: parallel, not placed");
        runner_parser_free(p);
        static const char par_threads[] = KEY " 0 hello pytest parallel\n" KEY " 1 start t.py::a\n"
                                          KEY " 2 threads 9\n" KEY " 3 result passed t.py::a\n"
                                          KEY " 4 stop 1 t.py::a\n" KEY " 5 end\n";
        p = channel_run(par_threads, 0, false);
        size_t nin;
        ok(runner_parser_channel(p, &why) == RUNNER_CHANNEL_REPORT && !runner_parser_inherited(p, &nin) && !nin,
           "threads from a parallel runner (xdist's controller): ignored, not a forgery");
        runner_parser_free(p);
        static const char thr[] = KEY " 0 hello unittest serial\n" KEY " 1 start m.C.test_a\n"
                                  KEY " 2 result passed m.C.test_a\n" KEY " 3 stop 1 m.C.test_a\n"
                                  KEY " 4 start m.C.test_b\n" KEY " 5 threads 41 42\n"
                                  KEY " 6 result passed m.C.test_b\n" KEY " 7 stop 1 m.C.test_b\n" KEY " 8 end\n";
        p = channel_run(thr, 0, false);
        size_t ninh;
        const struct runner_inherited *inh = runner_parser_inherited(p, &ninh);
        size_t nt;
        const struct runner_test *tt = runner_parser_tests(p, &nt);
        ok(ninh == 2 && !strcmp(tt[inh[0].test].id, "m.C.test_b") && inh[0].tid == 41 && inh[1].tid == 42,
           "threads: the ids alive when test_b started, as test_b's");
        runner_parser_free(p);
    }
    /* an overlong record */
    size_t big = RUNNER_MAX_LINE + 100;
    char *longrec = xmalloc(big + 200);
    snprintf(longrec, big + 200, "%s 0 hello unittest serial\n%s 1 start ", KEY, KEY);
    size_t at = strlen(longrec);
    memset(longrec + at, 'a', big);
    strcpy(longrec + at + big, "\n");
    p = channel_run(longrec, 0, false);
    ok(runner_parser_channel(p, &why) == RUNNER_CHANNEL_FORGED && strstr(why, "longer than"),
       "forged: a record longer than the bound");
    runner_parser_free(p);
    free(longrec);

    /* a test killed mid-run: the test running then timed out, not forged */
    p = run_of("unittest", KEY " 0 hello unittest serial\n" KEY " 1 start m.C.test_a\n" KEY " 2 res", 0, NULL,
               true);
    s = summary(p);
    is_str(s, "m.C.test_a=timed-out", "killed mid-test: the test running timed out");
    free(s);
    is_int(runner_parser_channel(p, &why), RUNNER_CHANNEL_REPORT, "killed: an unfinished record is no forgery");
    runner_parser_free(p);

    /* the reporter never spoke: the output, marked as the fallback, with
     * no position that could place a denial */
    static const char plain[] = "test_a (m.C.test_a) ... ok\nRan 1 test in 0.1s\nOK\n";
    p = run_of("unittest", "", 0, plain, false);
    s = summary(p);
    is_str(s, "m.C.test_a=passed", "no reporter: the output's tests");
    free(s);
    t = runner_parser_tests(p, &n);
    ok(n == 1 && t[0].announced_pos == 0, "no reporter: no test placed by the output's positions");
    is_int(runner_parser_channel(p, &why), RUNNER_CHANNEL_FALLBACK, "no reporter: the fallback");
    like_str(why, "read from the output", "and why");
    runner_parser_free(p);

    /* a reporter that saw no test where the output names one */
    p = run_of("unittest", KEY " 0 hello unittest serial\n", 0, plain, false);
    runner_parser_tests(p, &n);
    ok(n == 0 && runner_parser_channel(p, &why) == RUNNER_CHANNEL_FORGED && strstr(why, "saw no test"),
       "a silent reporter: the output is not taken instead");
    runner_parser_free(p);

    /* without a reporter, nothing changes */
    p = runner_parser_new(named("unittest"));
    runner_parser_feed(p, plain, sizeof plain - 1);
    runner_parser_finish(p, false);
    is_int(runner_parser_channel(p, &why), RUNNER_CHANNEL_OUTPUT, "no reporter expected: the output");
    runner_parser_free(p);

    /* pytest-xdist: tests side by side */
    p = run_of("pytest",
               KEY " 0 hello pytest parallel\n" KEY " 1 start t.py::a\n" KEY " 2 start t.py::b\n"
               KEY " 3 result passed t.py::b\n" KEY " 4 result skipped t.py::a\n" KEY " 5 stop 1 t.py::a\n"
               KEY " 6 stop 1 t.py::b\n" KEY " 7 result errored t.py\n" KEY " 8 end\n", 0, NULL, false);
    s = summary(p);
    is_str(s, "t.py::a=skipped t.py::b=passed t.py=errored", "parallel: tests side by side, a collection error");
    free(s);
    t = runner_parser_tests(p, &n);
    ok(n == 3 && !t[0].announced_pos && !t[1].announced_pos,
       "parallel: a start places nothing (it arrives after the test may have run)");
    is_int(runner_parser_channel(p, &why), RUNNER_CHANNEL_REPORT, "parallel: no forgery");
    runner_parser_free(p);
}

/* ---- what the runners add ---- */

static void test_command(void)
{
    static const struct { const char *runner; const char *argv[8]; bool report; const char *has; } cases[] = {
        { "unittest", { "python3", "-m", "unittest", "test_x", NULL }, true, "-c" },
        { "unittest", { "python3", "-munittest", "discover", NULL }, true, "-c" },
        { "unittest", { "python3", "-bm", "unittest", "m.C", NULL }, true, "-b" },
        { "regrtest", { "python3", "-m", "test", "test_socket", NULL }, true, "-c" },
        { "regrtest", { "python3", "-m", "test", "-j4", "test_socket", NULL }, false, "-m" },
        { "pytest", { "python3", "-m", "pytest", "t.py", NULL }, true, "-c" },
        { "pytest", { "/nonexistent/pytest", "-m", "slow", "t.py", NULL }, false, "slow" },
        { "go", { "go", "test", "./...", NULL }, false, "-json" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct runner_command c;
        char err[256];
        const struct runner *r = named(cases[i].runner);
        bool made = runner_command(r, (char *const *)cases[i].argv, &c, err, sizeof err);
        bool has = false, boot = false;
        for (char **a = c.argv; made && *a; a++) {
            has |= !strcmp(*a, cases[i].has);
            boot |= !strncmp(*a, "import os;exec(", 15);
        }
        ok(made && c.report == cases[i].report && has && boot == cases[i].report, "%s %s: reporter %s",
           cases[i].runner, cases[i].argv[2] ? cases[i].argv[2] : "", cases[i].report ? "added" : "not added");
        if (made && c.report) {
            /* a re-run's command made from it again: unchanged */
            struct runner_command again;
            bool same = runner_command(r, c.argv, &again, err, sizeof err) && again.report;
            for (size_t k = 0; same && (c.argv[k] || again.argv[k]); k++)
                same = c.argv[k] && again.argv[k] && !strcmp(c.argv[k], again.argv[k]);
            ok(same, "%s: applied twice, the same command", cases[i].runner);
            runner_command_free(&again);
            size_t len;
            char *g = runner_report_greeting(r, KEY, &len);
            ok(g && len == strlen(g) && strstr(g, "_sbx(b'" KEY "', MAIN, FD, globals().get('SCRIPT'))"), "%s: the greeting holds the key",
               cases[i].runner);
            free(g);
        }
        if (made)
            runner_command_free(&c);
    }
    size_t len;
    ok(!runner_report_greeting(named("go"), KEY, &len) && !runner_has_reporter(named("go")),
       "go: no reporter (go test -json is its own channel)");

    /* pytest as a program: its #! line's python runs its start */
    char dir[] = "/tmp/sbxpytestXXXXXX";
    if (!mkdtemp(dir))
        bail_out("cannot make a directory in /tmp");
    char *script = xasprintf("%s/pytest", dir);
    int fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0700);
    if (fd < 0 || write(fd, "#!/usr/bin/python3\nimport pytest\n", 33) != 33)
        bail_out("cannot write a script in /tmp");
    close(fd);
    const char *argv[] = { script, "-m", "slow", "t.py", NULL };
    struct runner_command c;
    char err[256];
    bool made = runner_command(named("pytest"), (char *const *)argv, &c, err, sizeof err);
    char *want = xasprintf("'SCRIPT':'%s'", script);
    ok(made && c.report && !strcmp(c.argv[0], "/usr/bin/python3") && !strcmp(c.argv[1], "-c") &&
           strstr(c.argv[2], want) && !strcmp(c.argv[3], "-m") && !strcmp(c.argv[4], "slow"),
       "pytest as a program: its interpreter runs it with the reporter, its -m MARK kept");
    if (made)
        runner_command_free(&c);
    free(want);
    fd = open(script, O_WRONLY | O_TRUNC);
    if (fd < 0 || write(fd, "#!/bin/sh -e\n", 13) != 13)
        bail_out("cannot rewrite the script");
    close(fd);
    made = runner_command(named("pytest"), (char *const *)argv, &c, err, sizeof err);
    ok(made && !c.report && strstr(c.note, "not a script whose #! line names python"),
       "a pytest that is no python script: no reporter, the note says why");
    if (made)
        runner_command_free(&c);
    unlink(script);
    rmdir(dir);
    free(script);
}

/* mocha's reporter: a hook's run starts with "fixture" and makes a row
 * of kind fixture; a channel that held places denials, one that was
 * forged or never spoke does not */
static void test_fixture_records(void)
{
    struct runner_record r;
    char why[200];
    ok(runner_record_parse(KEY " 1 fixture s \"before all\" hook for \"a\"",
                           strlen(KEY " 1 fixture s \"before all\" hook for \"a\""), KEY, 1, &r, why, sizeof why) &&
           r.verb == RECORD_START && r.fixture && !strcmp(r.text, "s \"before all\" hook for \"a\""),
       "fixture: a start, marked, its id");
    runner_record_free(&r);
    ok(runner_record_parse(KEY " 1 start s a", strlen(KEY " 1 start s a"), KEY, 1, &r, why, sizeof why) &&
           !r.fixture, "start: no fixture");
    runner_record_free(&r);
    static const char recs[] =
        KEY " 0 hello mocha serial\n"
        KEY " 1 fixture s \"before all\" hook for \"a\"\n"
        KEY " 2 result errored s \"before all\" hook for \"a\"\n"
        KEY " 3 stop 5 s \"before all\" hook for \"a\"\n"
        KEY " 4 start s a\n"
        KEY " 5 result passed s a\n"
        KEY " 6 stop 7 s a\n"
        KEY " 7 end\n";
    struct runner_parser *p = run_of("mocha", recs, 11, "{\"stats\":{}}\n", false);
    size_t n;
    const struct runner_test *t = runner_parser_tests(p, &n);
    ok(n == 2 && t[0].kind == RUNNER_TEST_FIXTURE && t[0].status == TEST_ERRORED && t[1].kind == RUNNER_TEST_CASE &&
           t[1].status == TEST_PASSED, "a hook's run: a fixture row; the test: a case");
    ok(runner_parser_placeable(p), "a serial channel that held: placed");
    runner_parser_free(p);
    p = run_of("mocha", KEY " 0 hello mocha serial\n" KEY " 2 start s a\n", 0, NULL, false);
    ok(!runner_parser_placeable(p), "a forged channel: not placed");
    runner_parser_free(p);
    p = run_of("mocha", "", 0, NULL, false);
    ok(!runner_parser_placeable(p), "a channel that never spoke: not placed");
    runner_parser_free(p);
    p = run_of("pytest", KEY " 0 hello pytest parallel\n" KEY " 1 start t.py::a\n" KEY " 2 result passed t.py::a\n"
               KEY " 3 stop 1 t.py::a\n", 0, NULL, false);
    ok(!runner_parser_placeable(p), "a parallel channel: not placed");
    runner_parser_free(p);
    /* xdist's workers: each test's run by the worker's clock, relayed by
     * the controller; placed once every test started has one */
    static const char workers[] =
        KEY " 0 hello pytest parallel\n" KEY " 1 controller 20\n" KEY " 2 start t.py::a\n" KEY " 3 start t.py::b\n"
        KEY " 4 result passed t.py::a\n" KEY " 5 ran 21 100 200 31,32 t.py::a\n" KEY " 6 span 21 110 120\n"
        KEY " 7 stop 1 t.py::a\n" KEY " 8 result passed t.py::b\n" KEY " 9 ran 22 150 300 - t.py::b\n"
        KEY " 10 stop 1 t.py::b\n" KEY " 11 end\n";
    p = run_of("pytest", workers, 0, NULL, false);
    size_t nr, nsp, ninh, nt;
    const struct runner_worker_run *wr = runner_parser_worker_runs(p, &nr);
    const struct runner_worker_span *ws = runner_parser_worker_spans(p, &nsp);
    const struct runner_inherited *wi = runner_parser_inherited(p, &ninh);
    const struct runner_test *wt = runner_parser_tests(p, &nt);
    const char *channel_why;
    ok(runner_parser_channel(p, &channel_why) == RUNNER_CHANNEL_REPORT && runner_parser_placeable(p),
       "workers: every test ran in a worker, the channel intact: placed");
    ok(nr == 2 && nt == 2 && !strcmp(wt[wr[0].test].id, "t.py::a") && wr[0].pid == 21 && wr[0].begin_ns == 100 &&
           wr[0].end_ns == 200 && !strcmp(wt[wr[1].test].id, "t.py::b") && wr[1].pid == 22,
       "workers: each run's test, worker, begin and end");
    ok(nsp == 1 && ws[0].pid == 21 && ws[0].begin_ns == 110 && ws[0].end_ns == 120, "workers: the suite's span");
    is_int(runner_parser_controller(p), 20, "workers: the controller's pid");
    ok(ninh == 2 && wi[0].tid == 31 && wi[1].tid == 32 && !strcmp(wt[wi[0].test].id, "t.py::a"),
       "workers: the threads alive at a run's begin, under its test");
    runner_parser_free(p);
    static const char lost[] =
        KEY " 0 hello pytest parallel\n" KEY " 1 start t.py::a\n" KEY " 2 start t.py::b\n"
        KEY " 3 ran 21 100 200 - t.py::a\n" KEY " 4 result passed t.py::b\n" KEY " 5 end\n";
    p = run_of("pytest", lost, 0, NULL, false);
    ok(!runner_parser_placeable(p), "workers: a test with a result and no run (its worker died): nothing placed");
    runner_parser_free(p);
}

/* ---- workers that write themselves (node --test's clock) ---- */

static const char node_tap[] =
    "TAP version 13\n"
    "# Subtest: parent\n"
    "    # Subtest: child\n"
    "    ok 1 - child\n"
    "    1..1\n"
    "ok 1 - parent\n"
    "# Subtest: suite\n"
    "    # Subtest: inner\n"
    "    ok 1 - inner\n"
    "    1..1\n"
    "ok 2 - suite\n"
    "# Subtest: skipped\n"
    "ok 3 - skipped # SKIP\n"
    "# Subtest: lenient\n"
    "ok 4 - lenient\n"
    "1..4\n";

/* two files' processes, 31 and 32, their records interleaved */
static const char node_clock[] =
    KEY " 31:0 controller 30\n"
    KEY " 32:0 controller 30\n"
    KEY " 31:1 ran 31 100 110 - parent\n"
    KEY " 32:1 ran 32 105 300 - lenient\n"
    KEY " 31:2 ran 31 110 150 - parent > child\n"
    KEY " 31:3 ran 31 150 160 - parent\n"
    KEY " 31:4 ran 31 170 180 - suite > inner\n";

static struct runner_parser *clock_run(const char *tap, const char *records, size_t split)
{
    struct runner_parser *p = runner_parser_new(named("node"));
    runner_parser_expect_clock(p, KEY);
    size_t len = strlen(records);
    runner_parser_feed_report(p, records, split);
    runner_parser_feed(p, tap, strlen(tap));
    runner_parser_feed_report(p, records + split, len - split);
    runner_parser_finish(p, false);
    return p;
}

static bool clock_placed(const char *records, const char *tap)
{
    struct runner_parser *p = clock_run(tap ? tap : node_tap, records, strlen(records) / 2);
    bool placed = runner_parser_placeable(p);
    runner_parser_free(p);
    return placed;
}

static void test_worker_records(void)
{
    struct runner_record r;
    char why[200];
    int pid = 0;
#define WPARSE(line) runner_worker_record_parse(line, strlen(line), KEY, &pid, &r, why, sizeof why)
    ok(WPARSE(KEY " 31:4 ran 31 100 200 - a > b") && pid == 31 && r.seq == 4 && r.verb == RECORD_RAN &&
           r.n[0] == 31 && !strcmp(r.text, "a > b"), "worker record: its writer, its number, the run");
    runner_record_free(&r);
    ok(WPARSE(KEY " 31:0 controller 30") && r.verb == RECORD_CONTROLLER && r.n[0] == 30, "worker record: the controller");
    runner_record_free(&r);
    ok(!WPARSE(KEY " 31:1 ran 32 100 200 - a") && strstr(why, "another process"),
       "refused: a ran record for another process (%s)", why);
    static const char *const bad[] = {
        KEY " 31:1 start a", KEY " 31:1 result passed a", KEY " 31:1 hello node parallel", KEY " 31:1 end",
        KEY " 31:1 span 31 1 2", KEY " 31 ran 31 1 2 - a", KEY " 0:1 ran 0 1 2 - a", KEY " 31:x ran 31 1 2 - a",
        KEY " 99999999999:1 controller 3", "fedcba9876543210fedcba9876543210 31:1 controller 3",
        KEY " 31:1 ran 31 2 1 - a", KEY " 31:1 ran 31 1 2 -", KEY " 31:01 controller 3",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ok(!WPARSE(bad[i]), "refused: %s (%s)", bad[i] + strlen(KEY), why);
        runner_record_free(&r);
    }
#undef WPARSE

    /* a run: the results are the output's, every split the same */
    for (size_t split = 0; split <= strlen(node_clock); split += 37) {
        struct runner_parser *p = clock_run(node_tap, node_clock, split);
        const char *cwhy;
        size_t nr, nt;
        const struct runner_worker_run *wr = runner_parser_worker_runs(p, &nr);
        const struct runner_test *t = runner_parser_tests(p, &nt);
        char *sum = summary(p);
        if (split == 0) {
            is_str(sum, "parent > child=passed parent=passed suite > inner=passed suite=passed skipped=skipped "
                        "lenient=passed", "clock: the results are the output's");
            ok(runner_parser_channel(p, &cwhy) == RUNNER_CHANNEL_OUTPUT && !cwhy, "clock: the channel is the output's");
            ok(nr == 5 && !strcmp(t[wr[0].test].id, "parent") && wr[0].pid == 31 && wr[0].begin_ns == 100 &&
                   wr[0].end_ns == 110 && !strcmp(t[wr[1].test].id, "lenient") && wr[1].pid == 32 &&
                   !strcmp(t[wr[2].test].id, "parent > child") && !strcmp(t[wr[3].test].id, "parent"),
               "clock: each stretch, its test and process, a parent's two");
            is_int(runner_parser_controller(p), 30, "clock: the controller the workers name");
        }
        ok(runner_parser_placeable(p), "clock, split at %zu: every test that ran has a run: placed", split);
        free(sum);
        runner_parser_free(p);
    }

    /* what turns placement off, the results left as the output gives them */
    ok(!clock_placed(KEY " 31:0 controller 30\n" KEY " 31:1 ran 31 100 110 - parent\n"
                     KEY " 31:2 ran 31 110 150 - parent > child\n", NULL),
       "clock: a test that ran (lenient, suite > inner) without a run: not placed");
    char *extra = xasprintf("%s" KEY " 32:2 ran 32 400 500 - not in the output\n", node_clock);
    ok(!clock_placed(extra, NULL), "clock: a run of a test the output does not name: not placed");
    free(extra);
    extra = xasprintf("%s" KEY " 32:3 ran 32 400 500 - lenient\n", node_clock);
    ok(!clock_placed(extra, NULL), "clock: a writer's record out of its sequence: not placed");
    free(extra);
    extra = xasprintf("%s" KEY " 33:0 controller 29\n", node_clock);
    ok(!clock_placed(extra, NULL), "clock: workers that name two controllers: not placed");
    free(extra);
    extra = xasprintf("%sok 9 - lenient\n", node_clock);
    ok(!clock_placed(extra, NULL), "clock: a line that is no record: not placed");
    free(extra);
    extra = xasprintf("%s" KEY " 31:5 start x\n", node_clock);
    ok(!clock_placed(extra, NULL), "clock: a reporter's verb from a worker: not placed");
    free(extra);
    ok(!clock_placed("", NULL), "clock: a channel that stayed silent (an old node): not placed");
    /* a file whose process died: node's row for the file stands for its
     * lost tests */
    char *dead = xasprintf("%s# Subtest: /p/t.test.js\nnot ok 5 - /p/t.test.js\n  ---\n  exitCode: 1\n  ...\n",
                           node_tap);
    ok(!clock_placed(node_clock, dead), "clock: a file's process that died: not placed");
    free(dead);
    struct runner_parser *p = clock_run(node_tap, KEY " 31:0 controller 30\n" KEY " 31:1 start x\n", 0);
    char *sum = summary(p);
    is_str(sum, "parent > child=passed parent=passed suite > inner=passed suite=passed skipped=skipped "
                "lenient=passed", "clock: a forged channel leaves the output's results as they are");
    free(sum);
    runner_parser_free(p);
    /* jest's clock: a unit record names the file its runs are in; every
     * test needs a run there, an empty one for a skipped test, which may
     * have started and run code before it skipped itself */
    static const char jest_doc[] =
        "{\"numPassedTests\":1,\"numFailedTests\":0,\"numPendingTests\":1,\"numTotalTests\":2,"
        "\"testResults\":[{\"name\":\"/p/a.test.js\",\"status\":\"passed\",\"assertionResults\":["
        "{\"fullName\":\"group lenient\",\"status\":\"passed\"},{\"fullName\":\"skips\",\"status\":\"pending\"}]}]}\n";
    static const char jest_runs[] =
        KEY " 41:0 unit /p/a.test.js\n" KEY " 41:1 ran 41 100 200 - group lenient\n";
    struct runner_parser *jp = runner_parser_new(named("jest"));
    runner_parser_expect_clock(jp, KEY);
    runner_parser_feed_report(jp, jest_runs, strlen(jest_runs));
    runner_parser_feed(jp, jest_doc, strlen(jest_doc));
    runner_parser_finish(jp, false);
    size_t jn, jr;
    const struct runner_test *jt = runner_parser_tests(jp, &jn);
    const struct runner_worker_run *jw = runner_parser_worker_runs(jp, &jr);
    ok(jr == 1 && jn == 2 && !strcmp(jt[jw[0].test].id, "group lenient") && !strcmp(jt[jw[0].test].unit, "/p/a.test.js"),
       "jest clock: a run, looked up by its file and its id");
    ok(!runner_parser_placeable(jp), "jest clock: a skipped test without a run: not placed");
    runner_parser_free(jp);
    char *with_skip = xasprintf("%s" KEY " 41:2 ran 41 200 200 - skips\n", jest_runs);
    jp = runner_parser_new(named("jest"));
    runner_parser_expect_clock(jp, KEY);
    runner_parser_feed_report(jp, with_skip, strlen(with_skip));
    runner_parser_feed(jp, jest_doc, strlen(jest_doc));
    runner_parser_finish(jp, false);
    ok(runner_parser_placeable(jp), "jest clock: every test with a run, an empty one for the skipped: placed");
    runner_parser_free(jp);
    free(with_skip);
    static const char jest_no_unit[] = KEY " 41:0 ran 41 100 200 - group lenient\n" KEY " 41:1 ran 41 200 200 - skips\n";
    jp = runner_parser_new(named("jest"));
    runner_parser_expect_clock(jp, KEY);
    runner_parser_feed_report(jp, jest_no_unit, strlen(jest_no_unit));
    runner_parser_feed(jp, jest_doc, strlen(jest_doc));
    runner_parser_finish(jp, false);
    ok(!runner_parser_placeable(jp), "jest clock: runs without their file name no test: not placed");
    runner_parser_free(jp);
    char *bad_unit = xasprintf("%s" KEY " 31:5 unit \n", node_clock);
    ok(!clock_placed(bad_unit, NULL), "clock: a malformed unit record: not placed");
    free(bad_unit);

    /* writers: many, each its own count; one too many turns it off
     * (node_clock's two, after the others) */
    for (int extra_writers = RUNNER_MAX_WORKERS - 2; extra_writers <= RUNNER_MAX_WORKERS - 1; extra_writers++) {
        struct strv recs = { 0 };
        for (int w = 0; w < extra_writers; w++)
            strv_push(&recs, xasprintf(KEY " %d:0 controller 30\n", w + 100));
        strv_push(&recs, xstrdup(node_clock));
        size_t total = 0;
        for (size_t i = 0; i < recs.n; i++)
            total += strlen(recs.v[i]);
        char *all = xmalloc(total + 1), *o = all;
        *o = '\0';
        for (size_t i = 0; i < recs.n; i++)
            o = stpcpy(o, recs.v[i]);
        bool fits = extra_writers + 2 <= RUNNER_MAX_WORKERS;
        ok(clock_placed(all, NULL) == fits, "clock: %d writers: %s", extra_writers + 2,
           fits ? "placed" : "too many, not placed");
        free(all);
        strv_free(&recs);
    }
}

int main(void)
{
    test_record();
    test_channel();
    test_fixture_records();
    test_worker_records();
    test_command();
    return done_testing();
}
