/* `sbx audit`, test by test (issue 16): both runs with the runner told to
 * report every test (runner.h), its output read as it goes by (capture.h)
 * and still shown, then each denial attributed to the test that made it,
 * and a verdict per test (audit_tests.h).
 *
 * Attribution is exact rather than fast: when the run under --against had
 * denials, every test whose verdict depends on them is run again alone
 * under --against, and that run's denials are its own. A test that runs
 * in a child process, or on a thread of a parallel runner, is covered
 * alike: nothing else runs then. A runner that cannot run one test (TAP)
 * gets the whole run's denials, and says so. */
#include "config.h"

#include "audit_per_test.h"

#include "audit.h"
#include "audit_signals.h"
#include "audit_tests.h"
#include "capture.h"
#include "exit.h"
#include "ledger.h"
#include "log.h"
#include "report.h"
#include "runner.h"
#include "sandbox.h"
#include "util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void feed_parser(int stream, const char *bytes, size_t len, void *data)
{
    (void)stream;
    runner_parser_feed(data, bytes, len);
}

/* One run of argv under p, within timeout_ms (0: the profile's), its
 * output parsed by a new parser (returned). */
static struct runner_parser *run_side(const struct runner *r, const struct profile *p,
                                      char *const *argv, const char *cwd, const char *label,
                                      bool quiet, uint64_t timeout_ms, struct sandbox_result *res,
                                      int *status)
{
    struct runner_parser *parser = runner_parser_new(r);
    struct capture *cap = capture_start(feed_parser, parser,
                                        CAPTURE_MERGED | (quiet ? CAPTURE_QUIET : 0));
    struct sandbox_request req = {
        .profile = p, .argv = argv, .cwd = cwd, .label = label, .timeout_ms = timeout_ms,
        .may_start = audit_may_start, .stop_signals = audit_caught_signals(),
    };
    *status = sandbox_run(&req, res);
    capture_stop(cap);
    runner_parser_finish(parser, res->timed_out);
    return parser;
}

struct judged_test {
    const struct runner_test *under, *against; /* NULL: not reported in that run */
    struct test_judged j;
    enum test_verdict verdict;
    char denied_text[256]; /* the calls denied to it, for people */
    bool whole_run;        /* the run's denials, not attributed to it alone */
    bool whole_run_entry;  /* "(the run itself)": no test of its own to re-run */
    bool by_unit;          /* counted in a run of its script (prove, make check) */
};

/* The tests of one run by (unit, id), so that joining two runs of up to
 * RUNNER_MAX_TESTS tests each is linear, not quadratic. */
struct test_index {
    const struct runner_test *v;
    size_t *slot;          /* index + 1; 0: empty */
    size_t size;           /* a power of two, at least twice the tests */
};

static uint64_t test_hash(const struct runner_test *t)
{
    uint64_t h = 1469598103934665603u;
    for (const char *s = t->id; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    h = (h ^ 0xff) * 1099511628211u;
    for (const char *s = t->unit ? t->unit : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static bool same_test(const struct runner_test *a, const struct runner_test *b)
{
    return !strcmp(a->id, b->id) &&
           ((!a->unit && !b->unit) || (a->unit && b->unit && !strcmp(a->unit, b->unit)));
}

static void test_index_build(struct test_index *x, const struct runner_test *v, size_t n)
{
    x->v = v;
    x->size = 16;
    while (x->size < 2 * n)
        x->size *= 2;
    x->slot = xcalloc(x->size, sizeof *x->slot);
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)test_hash(&v[i]) & (x->size - 1);
        while (x->slot[k])
            k = (k + 1) & (x->size - 1);
        x->slot[k] = i + 1;
    }
}

static const struct runner_test *find_test(const struct test_index *x, const struct runner_test *t)
{
    for (size_t k = (size_t)test_hash(t) & (x->size - 1); x->slot[k]; k = (k + 1) & (x->size - 1))
        if (same_test(&x->v[x->slot[k] - 1], t))
            return &x->v[x->slot[k] - 1];
    return NULL;
}

static void describe_denials(const struct ledger *l, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t cursor = 0, used = 0;
    struct ledger_entry e;
    while (l && ledger_next(l, &cursor, &e) && used + 4 < len) {
        char one[200];
        ledger_format_entry(&e, one, sizeof one);
        int n = snprintf(buf + used, len - used, "%s%s", used ? "; " : "", one);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
}

/* Does the verdict of this test depend on how many denials are its own? */
static bool needs_attribution(const struct test_judged *j)
{
    bool under_passed = j->under == TEST_PASSED;
    bool under_failed = j->under != TEST_PASSED && j->under != TEST_SKIPPED;
    if (under_passed)
        return j->against != TEST_SKIPPED;
    return under_failed && j->against == TEST_PASSED;
}

static struct json_object *test_json(const struct judged_test *t, const char *names[2])
{
    const struct runner_test *any = t->under ? t->under : t->against;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(any->id));
    json_object_object_add(o, "unit", any->unit ? json_object_new_string(any->unit) : NULL);
    struct json_object *u = json_object_new_object();
    json_object_object_add(u, "profile", json_object_new_string(names[0]));
    json_object_object_add(u, "status", json_object_new_string(test_status_name(t->j.under)));
    json_object_object_add(o, "under", u);
    struct json_object *a = json_object_new_object();
    json_object_object_add(a, "profile", json_object_new_string(names[1]));
    json_object_object_add(a, "status", json_object_new_string(test_status_name(t->j.against)));
    json_object_object_add(o, "against", a);
    json_object_object_add(o, "denied_count", json_object_new_int64((int64_t)t->j.denied));
    json_object_object_add(o, "denied", json_object_new_string(t->denied_text));
    json_object_object_add(o, "attributed", json_object_new_string(t->whole_run ? "whole-run"
                                                                   : t->by_unit ? "unit"
                                                                                : "alone"));
    json_object_object_add(o, "verdict", json_object_new_string(test_verdict_name(t->verdict)));
    return o;
}

/* sbx(1) AUDIT: 128+N, and no verdict from a part of the evidence. */
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

    const char *labels[2] = { "run 1 of 2", "run 2 of 2" };
    struct runner_parser *parsers[2] = { NULL, NULL };
    struct sandbox_result results[2];
    int statuses[2];
    memset(results, 0, sizeof results);
    int sig = 0, status;
    struct judged_test *tests = NULL;
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
        }
        fflush(stderr);
        if (report) {
            report_audit_begin_run(i, label);
            record_profile(profiles[i]);
            record_command(rc.argv, cwd);
            if (i == 1)
                report_audit_against_timeout(bound.timeout_ms, audit_bound_source_name(bound.source));
        }
        parsers[i] = run_side(r, profiles[i], rc.argv, cwd, label, false, timeout_ms, &results[i],
                              &statuses[i]);
        int exit_status = results[i].command_ran || results[i].exit_status ? results[i].exit_status
                                                                           : statuses[i];
        if (!results[i].not_started)
            fprintf(stderr, "sbx: audit: ---- end of %s ----\n", label);
        if (report) {
            report_audit_end_run(i, &results[i], exit_status);
            if (i == 1)
                report_audit_against_timed_out(results[i].timed_out);
        }
        if ((sig = audit_stop_requested(&results[i]))) {
            status = interrupted(sig, results[i].not_started ? i - 1 : i, names, report);
            goto out;
        }
        if (i == 1 && results[i].timed_out)
            fprintf(stderr, "sbx: audit: the run under %s timed out: the tests it had not finished "
                    "count as timed out there\n", names[1]);
        if (exit_status == SBX_EXIT_FAILURE && !results[i].command_ran) {
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
    free(iu.slot);
    free(ia.slot);
    for (size_t i = 0; i < n; i++) {
        /* not reported in a run: it died before (errored there) */
        tests[i].j.under = tests[i].under ? tests[i].under->status : TEST_ERRORED;
        tests[i].j.against = tests[i].against ? tests[i].against->status : TEST_ERRORED;
    }

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
            if (v[t].status != TEST_PASSED && v[t].status != TEST_SKIPPED)
                test_failed = true;
        side_failed[i] = st != 0 && !test_failed;
    }
    if (side_failed[0] || side_failed[1]) {
        tests[n] = (struct judged_test){ .under = &whole_run, .against = &whole_run };
        tests[n].j.under = side_failed[0] ? TEST_ERRORED : TEST_PASSED;
        tests[n].j.against = side_failed[1] ? TEST_ERRORED : TEST_PASSED;
        tests[n].whole_run_entry = true;
        n++;
    }

    uint64_t total = ledger_total(results[1].ledger);
    size_t todo = 0;
    for (size_t i = 0; i < n; i++)
        if (total && needs_attribution(&tests[i].j))
            todo++;
    if (todo)
        fprintf(stderr, "sbx: audit: %llu denied call(s) under %s: re-running %zu test(s) one by one "
                "there to attribute them\n", (unsigned long long)total, names[1], todo);
    size_t done = 0;
    bool unit_granular = r->kind == RUNNER_PROVE || r->kind == RUNNER_AUTOMAKE;
    const struct runner_test *last_unit = NULL;
    const struct judged_test *last_unit_test = NULL;
    for (size_t i = 0; i < n && todo; i++) {
        struct judged_test *t = &tests[i];
        if (!needs_attribution(&t->j))
            continue;
        const struct runner_test *which = t->against ? t->against : t->under;
        /* prove and make check re-run a script, not one test: every test
         * of a script gets that script's run, made once */
        if (unit_granular && which->unit) {
            /* a script's tests come one after another: the last script
             * re-run is the one to reuse (another order re-runs again,
             * slower, never wrong) */
            t->by_unit = true;
            if (last_unit && !strcmp(last_unit->unit, which->unit)) {
                t->j.denied = last_unit_test->j.denied;
                memcpy(t->denied_text, last_unit_test->denied_text, sizeof t->denied_text);
                continue;
            }
            last_unit = which;
            last_unit_test = t;
        }
        /* A name comes from the command's output, which a test can forge
         * (a child writing to the runner's stdout): one that starts with
         * '-' would reach the runner as an option, so it is not re-run. */
        char **alone = t->whole_run_entry || which->id[0] == '-'
                           ? NULL : runner_rerun_argv(r, command, which);
        if (!alone) {
            t->j.denied = total;
            t->whole_run = true;
            describe_denials(results[1].ledger, t->denied_text, sizeof t->denied_text);
            continue;
        }
        struct runner_command rerun;
        char rerr[512];
        bool have = runner_command(r, alone, &rerun, rerr, sizeof rerr);
        struct sandbox_result res;
        memset(&res, 0, sizeof res);
        int st;
        if ((sig = audit_stop_requested(NULL))) {
            if (have)
                runner_command_free(&rerun);
            runner_argv_free(alone);
            break;
        }
        struct runner_parser *p = run_side(r, profiles[1], have ? rerun.argv : alone, cwd,
                                           "attribution", true, bound.timeout_ms, &res, &st);
        sig = audit_stop_requested(&res);
        t->j.denied = ledger_total(res.ledger);
        describe_denials(res.ledger, t->denied_text, sizeof t->denied_text);
        fprintf(stderr, "sbx: audit: [%zu/%zu] %s: %llu denied\n", ++done, todo, which->id,
                (unsigned long long)t->j.denied);
        runner_parser_free(p);
        sandbox_result_free(&res);
        if (have)
            runner_command_free(&rerun);
        runner_argv_free(alone);
        if (sig)
            break;
    }
    if (sig) {
        status = interrupted(sig, 1, names, report);
        goto out;
    }

    size_t counts[TEST_VERDICT_COUNT] = { 0 };
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        tests[i].verdict = test_verdict_of(&tests[i].j);
        counts[tests[i].verdict]++;
    }
    fprintf(stderr, "sbx: audit: test by test (%s), under %s and under %s:\n", r->command, names[0],
            names[1]);
    for (size_t i = 0; i < n; i++) {
        const struct judged_test *t = &tests[i];
        if (t->verdict == TEST_UNAFFECTED)
            continue;
        const struct runner_test *any = t->under ? t->under : t->against;
        fprintf(stderr, "  %-26s %s / %s: %s%s%s%s\n", test_verdict_name(t->verdict),
                test_status_name(t->j.under), test_status_name(t->j.against), any->id,
                t->denied_text[0] ? "; denied: " : "", t->denied_text,
                t->whole_run ? (t->whole_run_entry ? " (the whole run's)"
                                                   : " (the whole run's: this runner cannot run one test)")
                : t->by_unit && t->denied_text[0] ? " (its script's: the runner re-runs a script, not one test)"
                                                  : "");
        shown++;
    }
    if (!shown)
        fprintf(stderr, "  (every test unaffected)\n");
    char line[512];
    test_verdicts_summary(counts, line, sizeof line);
    fprintf(stderr, "sbx: audit: %s\n", line);
    if (runner_parser_truncated(parsers[0]) || runner_parser_truncated(parsers[1]))
        fprintf(stderr, "sbx: audit: warning: the output held more tests or longer lines than sbx "
                "keeps (%d tests, %d bytes a line): the rest are not judged\n",
                RUNNER_MAX_TESTS, RUNNER_MAX_LINE);
    int exit_status = test_verdicts_exit_status(counts);
    size_t greens = counts[TEST_FALSE_GREEN] + counts[TEST_FALSE_GREEN_HIDING_FAILURE];
    if (greens)
        fprintf(stderr, "sbx: verdict: FALSE GREEN: %zu test(s) passed under %s although calls "
                "they made were denied%s\n", greens, names[1],
                counts[TEST_FALSE_GREEN_HIDING_FAILURE] ? ", hiding a failure under the profile" : "");
    else if (counts[TEST_FAILS])
        fprintf(stderr, "sbx: verdict: %zu test(s) fail under %s itself: fix that first\n",
                counts[TEST_FAILS], names[0]);
    else if (total)
        fprintf(stderr, "sbx: verdict: trustworthy: every test that made denied calls failed or "
                "skipped itself under %s\n", names[1]);
    else
        fprintf(stderr, "sbx: verdict: the tests do not touch the network (nothing denied under %s)\n",
                names[1]);

    status = exit_status;
    if (report) {
        struct json_object *arr = json_object_new_array();
        for (size_t i = 0; i < n; i++)
            json_object_array_add(arr, test_json(&tests[i], names));
        report_audit_set_tests(r->name, arr);
        /* the suite's verdict, in the command-level names (audit.h) */
        enum audit_verdict whole = counts[TEST_FALSE_GREEN] || counts[TEST_FALSE_GREEN_HIDING_FAILURE]
                                       ? AUDIT_FALSE_GREEN
                                   : counts[TEST_FAILS] ? AUDIT_FAILS_UNDER_PROFILE
                                   : total ? AUDIT_TRUSTWORTHY
                                           : AUDIT_NO_NETWORK;
        const char *verdict = audit_verdict_name(whole);
        if (!report_audit_write(verdict, exit_status))
            status = SBX_EXIT_FAILURE;
    }
out:
    free(tests);
    for (int i = 0; i < 2; i++) {
        runner_parser_free(parsers[i]);
        sandbox_result_free(&results[i]);
    }
    runner_command_free(&rc);
    return status;
}
