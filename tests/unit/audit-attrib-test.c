/* Attributing denials without re-running every test (audit_attrib.c):
 * where unittest's output places a call, which tests are suspects of a
 * denial, and the tally that proves the suspects made them all. The
 * positions come from the parser fed real unittest output, in pieces. */
#include "config.h"

#include "../tap.h"

#include "audit_attrib.h"
#include "ledger_argv.h"
#include "runner.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>


static const char output[] =
    "test_a (m.T.test_a) ... ok\n"       /* test_a: announced at 24, ends at 27 */
    "test_b (m.T.test_b) ... warning\n"  /* test_b: output of its own, then */
    "ok\n"                               /* its result */
    "test_c (m.T.test_c) ... ok\n";

/* Feeds s in pieces of `step` bytes: a line split across reads. */
static struct runner_parser *parse(const char *s, size_t step)
{
    const char *near;
    struct runner_parser *p = runner_parser_new(runner_by_name("unittest", &near));
    for (size_t at = 0, len = strlen(s); at < len; at += step)
        runner_parser_feed(p, s + at, len - at < step ? len - at : step);
    runner_parser_finish(p, false);
    return p;
}

static uint64_t pos_after(const char *needle)
{
    return (uint64_t)(strstr(output, needle) - output) + strlen(needle);
}

static const char *argv_of_table(const void *t, uint16_t idx, size_t *len)
{
    return argv_table_get(t, idx, len);
}

static struct ledger_event at(uint64_t pos)
{
    return (struct ledger_event){ .output_pos = pos, .row = 0 };
}

int main(void)
{
    size_t n;
    struct runner_parser *p = parse(output, 5);
    const struct runner_test *t = runner_parser_tests(p, &n);
    is_int(n, 3, "three tests parsed");
    is_int(t[0].announced_pos, pos_after("test_a (m.T.test_a) ... "), "test_a: announced where ' ... ' ends");
    is_int(t[0].reported_pos, pos_after("test_a (m.T.test_a) ... ok\n"), "test_a: reported where its line ends");
    is_int(t[1].announced_pos, pos_after("test_b (m.T.test_b) ... "), "test_b: announced");
    is_int(t[1].reported_pos, pos_after("warning\nok\n"), "test_b: reported after its own output");

    /* the same bytes fed one at a time give the same positions */
    struct runner_parser *q = parse(output, 1);
    size_t m;
    const struct runner_test *u = runner_parser_tests(q, &m);
    ok(m == 3 && u[1].announced_pos == t[1].announced_pos && u[2].reported_pos == t[2].reported_pos,
       "positions do not depend on how the output was read");
    runner_parser_free(q);

    /* a line cleaned of an escape sequence has no exact offsets */
    struct runner_parser *c = parse("test_a (m.T.test_a) ... \x1b[32mok\x1b[0m\n", 64);
    const struct runner_test *v = runner_parser_tests(c, &m);
    ok(m == 1 && v[0].announced_pos == 0 && v[0].status == TEST_PASSED,
       "a line with escape sequences: its result, no announced position");
    runner_parser_free(c);

    size_t owner[4];
    struct ledger_event in_b[2] = { at(pos_after("test_b (m.T.test_b) ... ")), at(pos_after("warning\n")) };
    ok(audit_place_events(in_b, 2, t, n, owner) && owner[0] == 1 && owner[1] == 1,
       "calls right after test_b's announcement and amid its output are test_b's");
    struct ledger_event in_a = at(pos_after("test_a (m.T.test_a) ... "));
    ok(audit_place_events(&in_a, 1, t, n, owner) && owner[0] == 0, "a call in test_a's run is test_a's");
    struct ledger_event between = at(pos_after("test_a (m.T.test_a) ... ok\n"));
    ok(!audit_place_events(&between, 1, t, n, owner),
       "a call between two tests (a class fixture) is placed in none");
    struct ledger_event before = at(3);
    ok(!audit_place_events(&before, 1, t, n, owner), "a call before the first test (an import): none");
    struct ledger_event nowhere = at(LEDGER_NO_POS);
    ok(!audit_place_events(&nowhere, 1, t, n, owner), "a call without a position: none");
    ok(audit_place_events(NULL, 0, t, n, owner), "no call: nothing to place");

    /* issue 33: the suite's calls, before the first test and between two */
    ok(audit_place_events_suite(&between, 1, t, n, NULL, 0, NULL, 0, owner, NULL) && owner[0] == AUDIT_OWNER_BETWEEN,
       "suite: a call between two tests is the suite's (a class fixture)");
    ok(audit_place_events_suite(&before, 1, t, n, NULL, 0, NULL, 0, owner, NULL) && owner[0] == AUDIT_OWNER_STARTUP,
       "suite: a call before the first test is the start-up's (an import)");
    struct ledger_event mixed[3] = { before, in_a, between };
    ok(audit_place_events_suite(mixed, 3, t, n, NULL, 0, NULL, 0, owner, NULL) && owner[0] == AUDIT_OWNER_STARTUP &&
           owner[1] == 0 && owner[2] == AUDIT_OWNER_BETWEEN,
       "suite: start-up, test_a's, a fixture's, each in its place");
    ok(!audit_place_events_suite(&nowhere, 1, t, n, NULL, 0, NULL, 0, owner, NULL), "suite: a call without a position: none");
    /* a span of the suite's own time inside test_a's run (pytest: a
     * module fixture set up in test_a's setup) */
    struct runner_span span = { in_a.output_pos, in_a.output_pos + 1 };
    ok(audit_place_events_suite(&in_a, 1, t, n, &span, 1, NULL, 0, owner, NULL) && owner[0] == AUDIT_OWNER_BETWEEN,
       "suite: a call in a span of the suite's inside a test's run is the suite's");
    /* a call in test_a's run by a thread alive before test_a started */
    struct runner_inherited inh = { 0, 77 };
    struct ledger_event pair[2] = { in_a, in_a };
    pair[0].who.tid = 77;
    pair[1].who.tid = 78;
    bool leftover[2] = { false, true };
    ok(audit_place_events_suite(pair, 2, t, n, NULL, 0, &inh, 1, owner, leftover) && owner[0] == 0 &&
           leftover[0] && owner[1] == 0 && !leftover[1],
       "inherited: an older thread's call in test_a's run is marked leftover, a new thread's is not");
    struct runner_span later = { in_a.output_pos + 1, UINT64_MAX };
    ok(audit_place_events_suite(&in_a, 1, t, n, &later, 1, NULL, 0, owner, NULL) && owner[0] == 0,
       "suite: a call before the span began is the test's");
    bool certain = false;
    is_int(audit_tests_begin(t, n, &certain), pos_after("test_a (m.T.test_a) ... "),
           "the tests begin where the first is announced");
    ok(certain, "every test announced: a call before that is certainly the start-up's");

    /* two runs that overlap: a runner that is not serial; nothing placed */
    struct runner_test overlap[2] = {
        { .id = "x", .announced_pos = 10, .reported_pos = 50 },
        { .id = "y", .announced_pos = 20, .reported_pos = 60 },
    };
    struct ledger_event mid = at(30);
    ok(!audit_place_events(&mid, 1, overlap, 2, owner), "overlapping runs: nothing is placed");

    /* libtest's threads: each test's named after it, 15 bytes kept */
    struct runner_test lt[5] = {
        { .id = "tests::t_4" }, { .id = "tests::t_40" },
        { .id = "tests::binds_loopback" }, { .id = "tests::binds_loopbacks" },
        { .id = "tests::fixture", .kind = RUNNER_TEST_FIXTURE },
    };
    struct ledger_event th[2] = { { .row = 0 }, { .row = 0 } };
    snprintf(th[0].who.comm, sizeof th[0].who.comm, "tests::t_40");
    snprintf(th[1].who.comm, sizeof th[1].who.comm, "tests::t_4");
    ok(audit_place_events_by_thread(th, 2, lt, 5, owner) && owner[0] == 1 && owner[1] == 0,
       "thread: a whole name is that test's, not the test it begins (t_4 against t_40)");
    snprintf(th[0].who.comm, sizeof th[0].who.comm, "tests::binds_l");
    ok(!audit_place_events_by_thread(th, 1, lt, 5, owner), "thread: a name no test has (14 bytes, not cut): none");
    memcpy(th[0].who.comm, "tests::binds_lo", 16);
    ok(!audit_place_events_by_thread(th, 1, lt, 5, owner),
       "thread: a cut name two tests begin with: nothing placed");
    struct runner_test one_long[2] = { { .id = "tests::binds_loopback" }, { .id = "tests::t_4" } };
    ok(audit_place_events_by_thread(th, 1, one_long, 2, owner) && owner[0] == 0,
       "thread: a cut name one test begins with: that test");
    snprintf(th[0].who.comm, sizeof th[0].who.comm, "tests::fixture");
    ok(!audit_place_events_by_thread(th, 1, lt, 5, owner), "thread: a fixture row is no test's thread");
    snprintf(th[0].who.comm, sizeof th[0].who.comm, "curl");
    ok(!audit_place_events_by_thread(th, 1, lt, 5, owner),
       "thread: a process a test started (execed under its own name): nothing placed");
    struct runner_test reported[1] = { { .id = "tests::pool", .reported_pos = 100 } };
    snprintf(th[0].who.comm, sizeof th[0].who.comm, "tests::pool");
    th[0].output_pos = 99;
    ok(audit_place_events_by_thread(th, 1, reported, 1, owner) && owner[0] == 0,
       "thread: a call before the test's result line: the test's");
    th[0].output_pos = 100;
    ok(!audit_place_events_by_thread(th, 1, reported, 1, owner),
       "thread: a call after it (a pool thread the test left behind): nothing placed");
    th[0].output_pos = LEDGER_NO_POS;
    th[0].who.comm[0] = '\0';
    ok(!audit_place_events_by_thread(th, 1, lt, 5, owner), "thread: no name: nothing placed");
    struct runner_test twice[2] = { { .id = "it_works", .unit = "--lib" }, { .id = "it_works", .unit = "--test a" } };
    snprintf(th[0].who.comm, sizeof th[0].who.comm, "it_works");
    ok(!audit_place_events_by_thread(th, 1, twice, 2, owner),
       "thread: the same name in two test binaries: nothing placed");

    /* suspects: the tier-th test to report after each denial */
    struct runner_test r[4] = {
        { .id = "a", .reported_pos = 10 }, { .id = "b", .reported_pos = 20 },
        { .id = "c", .reported_pos = 30 }, { .id = "d", .reported_pos = 0 },
    };
    is_int(audit_tests_begin(r, 4, &certain), 10, "no announcement: the tests begin by the first result");
    ok(!certain, "and a call before it may be the first test's");
    struct runner_test none[1] = { { .id = "x", .reported_pos = 0 } };
    ok(audit_tests_begin(none, 1, &certain) == UINT64_MAX, "no test reported: no beginning");
    bool suspect[4] = { false };
    struct ledger_event ev[2] = { at(15), at(10) };
    is_int(audit_suspects(ev, 2, NULL, r, 4, 0, suspect), 1, "tier 0: one new suspect for both denials");
    ok(!suspect[0] && suspect[1] && !suspect[2] && !suspect[3],
       "the first to report past each: b (a's line had ended at 10)");
    is_int(audit_suspects(ev, 2, NULL, r, 4, 1, suspect), 1, "tier 1: the next after each");
    ok(suspect[2] && !suspect[0], "c is next; a, which had reported, never");
    is_int(audit_suspects(ev, 2, NULL, r, 4, 2, suspect), 0, "tier 2: nobody left");
    bool done[LEDGER_MAX_ROW_IDS] = { true };
    bool fresh[4] = { false };
    is_int(audit_suspects(ev, 2, done, r, 4, 0, fresh), 0, "a denial whose row is accounted for marks none");
    struct ledger_event late = at(99);
    is_int(audit_suspects(&late, 1, NULL, r, 4, 0, fresh), 0,
           "a denial after every result (the runner's own): no suspect");
    /* go -v: a parent reports before its subtests; a subtest's call is
     * looked for in them, never in the parent (whose re-run would account
     * for it and leave the subtest unjudged) */
    struct runner_test sub[3] = {
        { .id = "TestTable", .reported_pos = 40, .kind = RUNNER_TEST_PARENT },
        { .id = "TestTable/pure_case", .reported_pos = 50, .kind = RUNNER_TEST_CASE },
        { .id = "TestTable/lenient_case", .reported_pos = 60, .kind = RUNNER_TEST_CASE },
    };
    bool ss[3] = { false };
    struct ledger_event in_sub = at(35);
    is_int(audit_suspects(&in_sub, 1, NULL, sub, 3, 0, ss), 1, "subtests: tier 0 marks one");
    ok(!ss[0] && ss[1] && !ss[2], "the first subtest to report after the call, not their parent");
    is_int(audit_suspects(&in_sub, 1, NULL, sub, 3, 1, ss), 1, "subtests: tier 1 marks the next");
    ok(!ss[0] && ss[2], "the second subtest; the parent never");

    /* prove, make check: a call is the script's whose process (or whose
     * child) made it, by the command lines */
#define ARGV(lit) lit, sizeof lit
    ok(audit_argv_runs(ARGV("/usr/bin/perl\0t/a.t"), "t/a.t"), "argv: perl's operand is the script");
    ok(audit_argv_runs(ARGV("/usr/bin/perl\0-w\0-Ilib\0t/a.t"), "t/a.t"), "argv: after perl's switches");
    ok(audit_argv_runs(ARGV("/bin/sh\0./t/a.t"), "t/a.t"), "argv: a #! line's operand, ./ in front");
    ok(audit_argv_runs(ARGV("./tests/unit/x-test\0--flag"), "tests/unit/x-test"), "argv: a binary is argv[0]");
    ok(audit_argv_runs(ARGV("/bin/sh\0/src/proj/t/a.t"), "t/a.t"), "argv: a VPATH build's absolute path");
    ok(!audit_argv_runs(ARGV("/bin/sh\0/src/proj/at/a.t"), "t/a.t"), "argv: a longer name is not it");
    ok(!audit_argv_runs(ARGV("/usr/bin/perl\0/usr/bin/prove\0t/a.t"), "t/a.t"),
       "argv: prove itself, naming the script as its argument, does not run it");
    ok(audit_argv_runs(ARGV("/bin/bash\0../test-driver\0--test-name\0t/a.t\0--log-file\0t/a.log\0--\0./t/a.t"),
                       "t/a.t"),
       "argv: automake's driver runs the test its --test-name names");
    ok(!audit_argv_runs(ARGV("/bin/bash\0../test-driver\0--test-name\0t/b.t\0--\0./t/a.t"), "t/a.t"),
       "argv: and no other (the command after -- is the test's own)");
    ok(audit_argv_runs(ARGV("/bin/sh\0./tap-driver.sh\0--test-name=t/a.t\0--\0perl\0t/a.t"), "t/a.t"),
       "argv: --test-name=NAME too");
    ok(!audit_argv_runs(ARGV("/bin/sh\0x\0--\0--test-name\0t/a.t"), "t/a.t"),
       "argv: a --test-name after -- is the test's argument, not the driver's");
    ok(!audit_argv_runs(ARGV("/bin/sh\0x\0--test-name"), "t/a.t"), "argv: --test-name without its name: none");
    ok(!audit_argv_runs(ARGV("perl\0-e\0code"), "t/a.t"), "argv: perl -e runs no script");
    ok(!audit_argv_runs("t/a.t", 5, "t/a.t"), "argv: bytes without their NUL are refused");
    ok(!audit_argv_runs(ARGV("/bin/sh\0t/a.t"), ""), "argv: an empty unit is no script");
    {
        struct argv_table *tab = argv_table_new();
        uint16_t perl_a = argv_table_intern(tab, ARGV("/usr/bin/perl\0t/a.t"));
        uint16_t perl_b = argv_table_intern(tab, ARGV("/usr/bin/perl\0t/b.t"));
        uint16_t sh_c = argv_table_intern(tab, ARGV("sh\0-c\0nc -l 0"));
        uint16_t prove = argv_table_intern(tab, ARGV("/usr/bin/perl\0/usr/bin/prove\0t/"));
        uint16_t vpath = argv_table_intern(tab, ARGV("/bin/sh\0/x/t/a.t"));
        const char *units[] = { "t/a.t", "t/b.t" }, *twins[] = { "a.t", "t/a.t" };
        struct ledger_event pe[3] = { { .who = { .argv = perl_b } },
                                      { .who = { .argv = sh_c, .parent_argv = perl_a } },
                                      { .who = { .argv = perl_a, .parent_argv = perl_b } } };
        size_t unit_of[3] = { 9, 9, 9 };
        ok(audit_place_events_by_argv(pe, 3, argv_of_table, tab, units, 2, unit_of) && unit_of[0] == 1 &&
               unit_of[1] == 0 && unit_of[2] == 0,
           "by argv: the caller's script, else its parent's; the caller's first");
        struct ledger_event own = { .who = { .argv = prove, .parent_argv = 0 } };
        ok(!audit_place_events_by_argv(&own, 1, argv_of_table, tab, units, 2, unit_of),
           "by argv: prove's own call places nothing");
        struct ledger_event unread = { .who = { .argv = 0, .parent_argv = 0 } };
        ok(!audit_place_events_by_argv(&unread, 1, argv_of_table, tab, units, 2, unit_of),
           "by argv: a caller whose lines were not read places nothing");
        struct ledger_event both = { .who = { .argv = vpath } };
        ok(!audit_place_events_by_argv(&both, 1, argv_of_table, tab, twins, 2, unit_of),
           "by argv: a line that runs two units (a.t, t/a.t) places nothing");
        argv_table_free(tab);
    }
#undef ARGV

    /* xdist's workers: a call in the run its worker had then, by the
     * worker's clock */
    {
        struct runner_worker_run wr[3] = { { 0, 21, 100, 200 }, { 1, 22, 150, 300 }, { 2, 21, 250, 400 } };
        struct runner_worker_span wsp[1] = { { 21, 110, 120 } };
        struct runner_inherited winh[1] = { { 2, 77 } };
        struct ledger_event we[7] = {
            { .ns = 160, .who = { .tid = 21, .tgid = 21, .ppid = 1 } },   /* a, in worker 21 */
            { .ns = 160, .who = { .tid = 22, .tgid = 22, .ppid = 1 } },   /* b, at the same time in 22 */
            { .ns = 260, .who = { .tid = 90, .tgid = 90, .ppid = 22 } },  /* b's child */
            { .ns = 115, .who = { .tid = 21, .tgid = 21, .ppid = 1 } },   /* a module fixture's, in a's run */
            { .ns = 50, .who = { .tid = 21, .tgid = 21, .ppid = 1 } },    /* 21's collection */
            { .ns = 220, .who = { .tid = 21, .tgid = 21, .ppid = 1 } },   /* 21 between a and c */
            { .ns = 300, .who = { .tid = 77, .tgid = 21, .ppid = 1 } },   /* a thread alive at c's begin */
        };
        size_t wo[7];
        bool wl[7];
        ok(audit_place_events_by_worker(we, 7, wr, 3, wsp, 1, winh, 1, 0, wo, wl), "workers: every call placed");
        ok(wo[0] == 0 && wo[1] == 1 && wo[2] == 1, "workers: by the worker's run then; a child's by its parent");
        ok(wo[3] == AUDIT_OWNER_BETWEEN && wo[4] == AUDIT_OWNER_STARTUP && wo[5] == AUDIT_OWNER_BETWEEN,
           "workers: a span's is the suite's; before the first run the start-up's; between runs the suite's");
        ok(wo[6] == 2 && wl[6] && !wl[0], "workers: a thread alive at the run's begin: to be verified alone");
        struct ledger_event ctl = { .ns = 160, .who = { .tid = 5, .tgid = 5, .ppid = 1 } };
        ok(!audit_place_events_by_worker(&ctl, 1, wr, 3, wsp, 1, winh, 1, 0, wo, wl),
           "workers: a call of no worker, the controller not named, places nothing");
        struct ledger_event ctl2[2] = { { .ns = 50, .who = { .tid = 5, .tgid = 5, .ppid = 1 } },
                                        { .ns = 250, .who = { .tid = 6, .tgid = 5, .ppid = 1 } } };
        ok(audit_place_events_by_worker(ctl2, 2, wr, 3, wsp, 1, winh, 1, 5, wo, wl) &&
               wo[0] == AUDIT_OWNER_STARTUP && wo[1] == AUDIT_OWNER_BETWEEN,
           "workers: the controller's calls: the start-up's before any run, the suite's after");
        struct ledger_event deep = { .ns = 160, .who = { .tid = 95, .tgid = 95, .ppid = 90 } };
        ok(!audit_place_events_by_worker(&deep, 1, wr, 3, wsp, 1, winh, 1, 5, wo, wl),
           "workers: nor does a grandchild's");
        struct runner_worker_run overlapping[2] = { { 0, 21, 100, 200 }, { 1, 21, 150, 300 } };
        ok(!audit_place_events_by_worker(we, 1, overlapping, 2, NULL, 0, NULL, 0, 0, wo, wl),
           "workers: one worker's runs that overlap place nothing");
    }

    /* the tally: the same calls, in any split, whoever made them */
    struct profile prof;
    memset(&prof, 0, sizeof prof);
    struct deny_rule rule = { .syscall = "bind", .nr = 49, .families = 1u << AF_INET, .errnum = EPERM };
    prof.deny = &rule;
    prof.ndeny = 1;
    struct ledger *whole = ledger_new(&prof), *one = ledger_new(&prof), *two = ledger_new(&prof);
    ledger_record(whole, "bind", AF_INET, "127.0.0.1:0", EPERM, 2, "python3");
    ledger_record(whole, "bind", AF_INET, "127.0.0.1:0", EPERM, 3, "child");
    ledger_record(one, "bind", AF_INET, "127.0.0.1:0", EPERM, 7, "python3");
    struct denial_tally *w = denial_tally_new(), *s = denial_tally_new();
    ok(denial_tally_add(w, whole) && denial_tally_add(s, one), "tallies taken");
    ok(!denial_tally_equal(w, s), "one of two calls: not accounted for");
    bool rows[LEDGER_MAX_ROW_IDS] = { false };
    denial_tally_rows_done(s, whole, rows);
    ok(!rows[0], "its row is not done");
    ledger_record(two, "bind", AF_INET, "127.0.0.1:0", EPERM, 9, "other");
    denial_tally_add(s, two);
    ok(denial_tally_equal(w, s), "both calls, by other callers: accounted for");
    ledger_record(two, "bind", AF_INET, "127.0.0.1:80", EPERM, 9, "other");
    struct denial_tally *s2 = denial_tally_new();
    denial_tally_add(s2, one);
    denial_tally_add(s2, two);
    ok(!denial_tally_equal(w, s2), "a call the whole run did not make: not equal");
    /* a run alone less its start-up (issue 33) */
    struct denial_tally *startup = denial_tally_new(), *own = denial_tally_new();
    denial_tally_add(startup, one);                 /* bind 127.0.0.1:0 x1 */
    is_int(denial_tally_excess(s2, startup, own), 2, "excess: the calls the start-up does not make");
    char text[256];
    denial_tally_describe(own, text, sizeof text);
    is_str(text, "bind(AF_INET 127.0.0.1:0) x1 -> EPERM; bind(AF_INET 127.0.0.1:80) x1 -> EPERM",
           "described kind by kind with counts");
    is_int(denial_tally_excess(startup, s2, NULL), 0, "nothing beyond what the run made");
    struct denial_tally *common = denial_tally_common(s2, startup);
    is_int(denial_tally_total(common), 1, "common: the smaller count of each kind");
    char tiny[8];
    denial_tally_describe(own, tiny, sizeof tiny);
    ok(strlen(tiny) < sizeof tiny, "a short buffer is cut, not overrun");
    denial_tally_free(startup);
    denial_tally_free(own);
    denial_tally_free(common);
    denial_tally_free(w);
    denial_tally_free(s);
    denial_tally_free(s2);
    ledger_free(whole);
    ledger_free(one);
    ledger_free(two);
    runner_parser_free(p);
    return done_testing();
}
