/* The ledger's aggregation, bounds and formats, without a kernel:
 * ledger_record() is what ledger_handle() calls for each denial. */
#include "config.h"

#include "ledger.h"
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

int main(void)
{
    plan(19);

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
    ok(bytes == bytes_before && bytes < 128 * 1024,
       "the ledger holds %zu bytes after 100 000 denials, as before them (< 128 KiB)", bytes);
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
    return done_testing();
}
