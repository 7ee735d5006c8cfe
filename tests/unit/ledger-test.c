/* The ledger's aggregation, bounds and formats, without a kernel:
 * ledger_record() is what ledger_handle() calls for each denial. */
#include "config.h"

#include "ledger.h"
#include "ledger_argv.h"
#include "profile.h"
#include "../tap.h"

#include <json-c/json.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static struct ledger *new_ledger(void)
{
    struct profile p;
    memset(&p, 0, sizeof p);
    struct deny_rule rule = { .syscall = "bind", .nr = 49, .families = 1u << AF_INET, .errnum = EPERM };
    p.deny = &rule;
    p.ndeny = 1;
    return ledger_new(&p);
}

static char *summary(const struct ledger *l, int status)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ledger_print_summary(l, f, status);
    fclose(f);
    return buf;
}

static struct ledger_denial bind_by(pid_t tid, pid_t tgid, const char *comm, uint64_t ns)
{
    struct ledger_denial d = {
        .syscall = "bind", .family = AF_INET, .socket_family = AF_INET,
        .address_family = AF_INET, .address = "127.0.0.1:0", .errnum = EPERM,
        .who = { .tid = tid, .tgid = tgid, .ppid = 1 }, .ns = ns,
    };
    snprintf(d.who.comm, sizeof d.who.comm, "%s", comm);
    return d;
}

static void record(struct ledger *l, struct ledger_denial d)
{
    ledger_record_call(l, &d);
}

static const char *fake_test_name(const struct ledger_caller *who)
{
    return who->tid == 13 ? "tests::test_bind_to_loopback_and_more" : NULL;
}

/* Each denial says which thread made it: libtest runs each test in a
 * thread named after it, all in one process. */
/* The whole name: exe where comm is exe cut to 15 bytes, else comm;
 * another thread's line names its program too. */
static void test_whole_names(void)
{
    char out[64];
    ledger_whole_name("integration_tes", "integration_tests-0123456789abcdef", out);
    is_str(out, "integration_tests-0123456789abcdef", "comm that is exe cut: exe's whole name");
    ledger_whole_name("pytest", "python3.11", out);
    is_str(out, "pytest", "comm of a script (not exe cut): comm");
    ledger_whole_name("integration_te", "integration_tests-0123", out);
    is_str(out, "integration_te", "a 14-byte prefix was not cut by the kernel: comm");
    ledger_whole_name("t\x01st", "", out);
    is_str(out, "t?st", "no exe: comm, made printable");
    ledger_whole_name("", "a\x7f", out);
    is_str(out, "a?", "no comm: exe, made printable");

    struct ledger *l = new_ledger();
    struct ledger_denial d = bind_by(13, 12, "tests::binds_to", 100);
    snprintf(d.exe, sizeof d.exe, "%s", "integration_tests-0123456789abcdef");
    record(l, d);
    d = bind_by(12, 12, "integration_tes", 200);
    snprintf(d.exe, sizeof d.exe, "%s", "integration_tests-0123456789abcdef");
    record(l, d);
    char *s = summary(l, 1);
    like_str(s, "[pid 12 \"tests::binds_to\"] by tests::binds_to (tid 13 of integration_tests-0123456789abcdef), "
                "integration_tests-0123456789abcdef (tid 12)",
             "a test thread names its program; the main thread its whole name");
    free(s);
    ledger_free(l);
}

static void test_threads(void)
{
    struct ledger *l = new_ledger();
    record(l, bind_by(13, 12, "test_bind", 100));
    record(l, bind_by(14, 12, "test_other", 200));
    record(l, bind_by(13, 12, "test_bind", 300));
    char *s = summary(l, 1);
    /* The bracket alone (what the ledger printed before) names the
     * process by its first thread: test_other would be invisible. */
    is_str(s, "sbx: 3 operations denied: bind(AF_INET 127.0.0.1:0) x3 -> EPERM [pid 12 \"test_bind\"]"
              " by test_bind (tid 13), test_other (tid 14)\n",
           "two threads of one process: both named, with their tids");
    free(s);
    /* the audit's hook names the whole test where comm is cut to 15 bytes */
    ledger_thread_test_hook = fake_test_name;
    s = summary(l, 1);
    like_str(s, "by test_bind (tid 13, test \"tests::test_bind_to_loopback_and_more\"), test_other (tid 14)",
             "with the audit's hook, a thread's line names its whole test");
    ledger_thread_test_hook = NULL;
    free(s);
    size_t cur = 0;
    struct ledger_entry e;
    ledger_next(l, &cur, &e);
    is_int(e.nthreads, 2, "two distinct callers in the row");
    ok(e.threads[0].count == 2 && e.threads[0].first_ns == 100 && e.threads[0].last_ns == 300,
       "per caller: its count and first and last time");
    ok(e.threads[1].who.tid == 14 && e.threads[1].who.tgid == 12 && e.threads[1].who.ppid == 1 &&
       strcmp(e.threads[1].who.comm, "test_other") == 0, "per caller: tid, tgid, ppid, comm");
    const struct ledger_event *ev;
    size_t n = ledger_events(l, &ev);
    ok(n == 3 && ev[0].who.tid == 13 && ev[1].who.tid == 14 && ev[2].who.tid == 13 &&
       ev[0].ns == 100 && ev[1].ns == 200 && ev[2].ns == 300,
       "events: every denial, in order, with its thread and time");
    ok(ev[0].row == e.id && ev[1].row == e.id && strcmp(ev[1].who.comm, "test_other") == 0,
       "events: the row they belong to and the thread's name");

    /* A thread renamed for its next test (a pool) is a new caller. */
    record(l, bind_by(14, 12, "test_third", 400));
    cur = 0;
    ledger_next(l, &cur, &e);
    is_int(e.nthreads, 3, "same tid under another name: another caller");
    ledger_free(l);

    /* A single-threaded process keeps the old line, byte for byte. */
    l = new_ledger();
    record(l, bind_by(12, 12, "test-runner", 1));
    s = summary(l, 1);
    is_str(s, "sbx: 1 operation denied: bind(AF_INET 127.0.0.1:0) x1 -> EPERM [pid 12 \"test-runner\"]\n",
           "one main thread: nothing added to the old line");
    free(s);
    /* A forked child keeps its parent thread's name until it execs: a
     * second process, named by its own pid. */
    record(l, bind_by(15, 15, "test-runner", 2));
    s = summary(l, 1);
    is_str(s, "sbx: 2 operations denied: bind(AF_INET 127.0.0.1:0) x2 -> EPERM "
              "[pid 12 \"test-runner\", pid 15 \"test-runner\"]\n",
           "two single-threaded processes: the bracket says it all");
    free(s);
    ledger_free(l);

    /* Many threads: the summary names LEDGER_SUMMARY_THREADS, the row
     * keeps LEDGER_MAX_THREADS and counts the rest. */
    l = new_ledger();
    char name[16];
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "t%d", i);
        record(l, bind_by(100 + i, 99, name, (uint64_t)i));
        record(l, bind_by(100 + i, 99, name, (uint64_t)i));
    }
    cur = 0;
    ledger_next(l, &cur, &e);
    is_int(e.nthreads, LEDGER_MAX_THREADS, "threads per row are bounded");
    is_int(e.threads_unlisted_count, 2 * (20 - LEDGER_MAX_THREADS), "denials of the others are counted");
    s = summary(l, 1);
    like_str(s, "[pid 99 \"t0\"] by t0 (tid 100), t1 (tid 101), t2 (tid 102) and 6+ more\n",
             "the summary names three, then how many more");
    free(s);
    const struct ledger_event *evs;
    n = ledger_events(l, &evs);
    ok(n == 40 && evs[39].who.tid == 119 && strcmp(evs[39].who.comm, "t19") == 0,
       "events keep the callers the row had no room for");
    ledger_free(l);

    /* comm is the command's choice: printed bytes are printable ASCII. */
    l = new_ledger();
    record(l, bind_by(13, 12, "a\033]0;x\nb", 1));
    s = summary(l, 1);
    like_str(s, "[pid 12 \"a?]0;x?b\"] by a?]0;x?b (tid 13)\n", "control bytes of a thread name print as ?");
    free(s);
    struct json_object *j = ledger_to_json(l);
    ok(j != NULL, "ledger_to_json keeps its shape");
    json_object_put(j);
    ledger_free(l);
}

/* The socket's family and the address's family are both what the kernel
 * was given: an AF_INET6 socket with an AF_INET sockaddr is no IPv6
 * connect to 127.0.0.1. */
static void test_families(void)
{
    struct ledger *l = new_ledger();
    struct ledger_denial d = bind_by(12, 12, "nc", 1);
    d.syscall = "connect";
    d.family = AF_INET6;
    d.socket_family = AF_INET6;
    d.address_family = AF_INET;
    d.address = "127.0.0.1:25";
    record(l, d);
    char *s = summary(l, 1);
    is_str(s, "sbx: 1 operation denied: connect(AF_INET6 socket, AF_INET address 127.0.0.1:25) x1 -> EPERM"
              " [pid 12 \"nc\"]\n", "an AF_INET6 socket given an AF_INET address names both");
    free(s);
    d.address_family = AF_INET6;
    d.address = "[::ffff:127.0.0.1]:25";
    record(l, d);
    d.address = "[::1]:25";
    record(l, d);
    s = summary(l, 1);
    like_str(s, "sbx:   connect(AF_INET6 [::ffff:127.0.0.1]:25) x1 -> EPERM [pid 12 \"nc\"]\n",
             "a v4-mapped address on an AF_INET6 socket: one family, the address as IPv6");
    like_str(s, "sbx:   connect(AF_INET6 [::1]:25) x1 -> EPERM [pid 12 \"nc\"]\n",
             "same families: the old form");
    free(s);
    /* The address decided the rule (the socket's family is not named by
     * it): the row still says which socket it was. */
    d = bind_by(12, 12, "nc", 2);
    d.socket_family = AF_UNIX;
    record(l, d);
    /* listen(): a socket, no address */
    d = bind_by(12, 12, "nc", 3);
    d.syscall = "listen";
    d.address = NULL;
    d.address_family = -1;
    record(l, d);
    s = summary(l, 1);
    like_str(s, "sbx:   bind(AF_UNIX socket, AF_INET address 127.0.0.1:0) x1 -> EPERM",
             "denied by the address's family: both families named");
    like_str(s, "sbx:   listen(AF_INET) x1 -> EPERM", "no address: the socket's family alone");
    free(s);
    size_t cur = 0, rows = 0;
    struct ledger_entry e;
    while (ledger_next(l, &cur, &e))
        rows++;
    is_int(rows, 5, "families are part of a row's key");
    ledger_free(l);
}

int main(void)
{

    struct ledger *l = new_ledger();
    is_int(ledger_total(l), 0, "a new ledger is empty");
    char *s = summary(l, 0);
    is_str(s, "", "nothing denied: no summary, no false-green line");
    free(s);

    for (int i = 0; i < 3; i++)
        ledger_record(l, "bind", AF_INET, "127.0.0.1:0", EPERM, 12, "test-runner");
    s = summary(l, 0);
    is_str(s, "sbx: 3 operations denied: bind(AF_INET 127.0.0.1:0) x3 -> EPERM [pid 12 \"test-runner\"]\n"
              "sbx: the command exited 0 after denials: this green does not prove network code works\n",
           "SPEC's summary and false-green line");
    free(s);
    s = summary(l, 1);
    is_str(s, "sbx: 3 operations denied: bind(AF_INET 127.0.0.1:0) x3 -> EPERM [pid 12 \"test-runner\"]\n",
           "no false-green line when the command failed");
    free(s);

    ledger_record(l, "connect", AF_INET6, "[::1]:443", EACCES, 13, "node");
    ledger_record(l, "socket", AF_INET, NULL, EPERM, 14, "py");
    ledger_record(l, "keyctl", -1, NULL, EPERM, 14, "py");
    s = summary(l, 2);
    is_str(s, "sbx: 6 operations denied: bind(AF_INET 127.0.0.1:0) x3 -> EPERM [pid 12 \"test-runner\"]\n"
              "sbx:   connect(AF_INET6 [::1]:443) x1 -> EACCES [pid 13 \"node\"]\n"
              "sbx:   socket(AF_INET) x1 -> EPERM [pid 14 \"py\"]\n"
              "sbx:   keyctl() x1 -> EPERM [pid 14 \"py\"]\n",
           "one row per call, family, address and errno, most frequent first");
    free(s);

    /* Processes: the first LEDGER_MAX_PIDS are named, the rest counted. */
    for (int pid = 100; pid < 110; pid++)
        ledger_record(l, "bind", AF_INET, "127.0.0.1:0", EPERM, pid, "w");
    size_t cur = 0;
    struct ledger_entry e;
    ok(ledger_next(l, &cur, &e), "iterator yields the first row");
    is_int(e.count, 13, "bind row counts 13");
    is_int(e.npids, LEDGER_MAX_PIDS, "4 processes named");
    is_int(e.more_pids, 11 - LEDGER_MAX_PIDS, "the other 7 of 11 processes counted, not named");
    int rows = 1;
    while (ledger_next(l, &cur, &e))
        rows++;
    is_int(rows, 4, "iterator yields every row once");
    ledger_free(l);

    /* 100 000 denials over 100 000 distinct addresses: the total stays
     * exact, the table stays bounded, the summary says what it left out. */
    l = new_ledger();
    size_t bytes_before = ledger_memory_bytes(l);
    char addr[32];
    for (int i = 0; i < 100000; i++) {
        snprintf(addr, sizeof addr, "127.0.0.1:%d", i % 65536);
        ledger_record(l, "bind", AF_INET, addr, EPERM, 1000 + i % 7, "storm");
    }
    is_int(ledger_total(l), 100000, "100 000 denials counted exactly");
    uint64_t sum = 0;
    rows = 0;
    cur = 0;
    while (ledger_next(l, &cur, &e)) {
        sum += e.count;
        rows++;
    }
    is_int(sum, 100000, "rows add up to the total (overflow row included)");
    ok(rows <= LEDGER_MAX_ROWS + 64, "rows stay bounded (%d)", rows);
    size_t bytes = ledger_memory_bytes(l);
    /* rows with their threads, and LEDGER_MAX_EVENTS events of 40 bytes */
    ok(bytes == bytes_before && bytes < 1024 * 1024,
       "the ledger holds %zu bytes after 100 000 denials, as before them (< 1 MiB)", bytes);
    const struct ledger_event *ev;
    is_int(ledger_events(l, &ev), LEDGER_MAX_EVENTS, "the first LEDGER_MAX_EVENTS denials are kept one by one");
    is_int(ledger_events_dropped(l), 100000 - LEDGER_MAX_EVENTS, "the later ones are counted");
    s = summary(l, 0);
    like_str(s, "sbx: 100000 operations denied: ", "summary gives the exact total");
    like_str(s, "more denied operations (see --report)", "summary says what it left out");
    free(s);
    ledger_free(l);

    l = new_ledger();
    ledger_record(l, "bind", AF_INET, "127.0.0.1:0", EPERM, 12, "test-runner");
    ledger_record(l, "keyctl", -1, NULL, EACCES, 12, "test-runner");
    struct json_object *j = ledger_to_json(l);
    is_str(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
           "{\"total\":2,\"allowed\":0,\"unlisted\":0,\"denials\":["
           "{\"syscall\":\"bind\",\"family\":\"AF_INET\",\"address\":\"127.0.0.1:0\",\"errno\":\"EPERM\","
           "\"count\":1,\"processes\":[{\"pid\":12,\"comm\":\"test-runner\"}],\"more_processes\":0},"
           "{\"syscall\":\"keyctl\",\"family\":null,\"address\":null,\"errno\":\"EACCES\","
           "\"count\":1,\"processes\":[{\"pid\":12,\"comm\":\"test-runner\"}],\"more_processes\":0}]}",
           "the run record's ledger");
    json_object_put(j);
    ledger_free(l);
    j = ledger_to_json(NULL);
    is_str(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
           "{\"total\":0,\"allowed\":0,\"unlisted\":0,\"denials\":[]}", "no ledger: nothing denied");
    json_object_put(j);

    char buf[16];
    is_str(ledger_family_name(AF_PACKET, buf, sizeof buf), "AF_PACKET", "family names");

    test_whole_names();
    test_threads();
    test_families();
    /* the callers' command lines: each kept once, bounded */
    struct argv_table *tab = argv_table_new();
    uint16_t a = argv_table_intern(tab, "perl\0t/a.t", 11), b = argv_table_intern(tab, "perl\0t/b.t", 11);
    ok(a && b && a != b && argv_table_intern(tab, "perl\0t/a.t", 11) == a,
       "argv table: one number per distinct line, the same again for the same");
    size_t len = 0;
    const char *got = argv_table_get(tab, b, &len);
    ok(got && len == 11 && !memcmp(got, "perl\0t/b.t", 11), "argv table: its bytes back");
    ok(!argv_table_get(tab, 0, &len) && !argv_table_get(tab, 999, &len), "argv table: 0 or a number never given: none");
    ok(argv_table_intern(tab, "", 0) == 0, "argv table: an empty line (a zombie's) is 0");
    char big[LEDGER_ARGV_MAX + 100];
    memset(big, 'x', sizeof big);
    big[10] = '\0';
    big[sizeof big - 1] = '\0';
    uint16_t cut = argv_table_intern(tab, big, sizeof big);
    got = argv_table_get(tab, cut, &len);
    ok(got && len == 11, "argv table: a line past the bound is cut at the end of its last whole argument");
    memset(big, 'y', sizeof big);
    cut = argv_table_intern(tab, big, sizeof big);
    got = argv_table_get(tab, cut, &len);
    ok(got && len == LEDGER_ARGV_MAX, "argv table: one argument past the bound is cut at the bound");
    size_t added = 0;
    for (int i = 0; i < LEDGER_MAX_ARGVS + 10; i++) {
        char line[32];
        int n = snprintf(line, sizeof line, "sh%c%d", 0, i);
        added += argv_table_intern(tab, line, (size_t)n + 1) != 0;
    }
    ok(added == LEDGER_MAX_ARGVS - 4, "argv table: full at %d lines, later ones are 0 (%zu added)",
       LEDGER_MAX_ARGVS, added);
    ok(argv_table_intern(tab, "perl\0t/a.t", 11) == a, "argv table: a line kept is still found once full");
    argv_table_free(tab);

    return done_testing();
}
