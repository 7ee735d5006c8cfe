/* libFuzzer target: the test runners' output parsers (src/runner_parse.c),
 * which read bytes every test of an audited suite can print. The first
 * byte picks the runner and where the input is cut in two (lines split
 * across chunks); the rest is the output. Also builds the re-run command
 * of every test found, from a fixed command line of that runner. The
 * same bytes are then read as the result channel of a run with sbx's
 * reporter (src/runner_report.c: records any test of the run can write
 * to), under the fixed key below, which seeds in the corpus carry. */
#include "config.h"

#include "runner.h"
#include "runner_report.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = { "cargo", "unittest", "pytest", "go", "node", "prove", "automake", "tap" };
    static char *const commands[][5] = {
        { "cargo", "test", "--", "--test-threads=2", NULL },
        { "python3", "-m", "unittest", "discover", NULL },
        { "pytest", "-n", "2", "tests", NULL },
        { "go", "test", "-run", "X", NULL },
        { "node", "--test", "t/", NULL, NULL },
        { "prove", "-r", "t", NULL, NULL },
        { "make", "check", NULL, NULL, NULL },
        { "./t", NULL, NULL, NULL, NULL },
    };
    if (size == 0)
        return 0;
    size_t k = data[0] % 8;
    const char *suggestion;
    const struct runner *r = runner_by_name(names[k], &suggestion);
    const uint8_t *out = data + 1;
    size_t len = size - 1, split = len ? (data[0] / 8) % (len + 1) : 0;
    struct runner_parser *p = runner_parser_new(r);
    runner_parser_feed(p, out, split);
    runner_parser_feed(p, out + split, len - split);
    runner_parser_finish(p, data[0] & 0x80);
    size_t n;
    const struct runner_test *t = runner_parser_tests(p, &n);
    for (size_t i = 0; i < n && i < 64; i++) {
        if (!t[i].id || test_status_name(t[i].status)[0] == 'u')
            abort();
        runner_argv_free(runner_rerun_argv(r, commands[k], &t[i]));
    }
    runner_parser_free(p);

    static const char key[] = "0123456789abcdef0123456789abcdef";
    p = runner_parser_new(runner_by_name(k == 2 ? "pytest" : "unittest", &suggestion));
    runner_parser_expect_report(p, key);
    runner_parser_feed_report(p, out, split);
    runner_parser_feed_report(p, out + split, len - split);
    runner_parser_finish(p, data[0] & 0x80);
    t = runner_parser_tests(p, &n);
    for (size_t i = 0; i < n; i++)
        if (!t[i].id || test_status_name(t[i].status)[0] == 'u')
            abort();
    const char *why;
    if (runner_parser_channel(p, &why) == RUNNER_CHANNEL_FORGED && !why)
        abort();
    runner_parser_free(p);
    /* and each line as one record */
    struct runner_record rec;
    char buf[256];
    for (uint64_t seq = 0; seq < 2; seq++)
        if (runner_record_parse((const char *)out, len, key, seq, &rec, buf, sizeof buf))
            runner_record_free(&rec);
    return 0;
}
