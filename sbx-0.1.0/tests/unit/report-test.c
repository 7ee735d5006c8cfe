/* The run record without a sandbox: events from the supervisor and from a
 * forked child, the verdicts, setup failures through die(), names-only
 * environment, bytes that are not UTF-8, and the pure assembly of the
 * document (run_document). */
#include "config.h"

#include "env.h"
#include "json_bytes.h"
#include "ledger.h"
#include "log.h"
#include "ns.h"
#include "profile.h"
#include "report.h"
#include "report_document.h"
#include "rlimits.h"
#include "sandbox.h"
#include "util.h"

#include "../tap.h"

#include <json-c/json.h>
#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/sbx-report-test.XXXXXX";

static struct json_object *get(struct json_object *o, const char *dotted)
{
    char *copy = xstrdup(dotted), *save = NULL;
    for (char *k = strtok_r(copy, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
        struct json_object *next = NULL;
        if (json_object_is_type(o, json_type_array))
            next = json_object_array_get_idx(o, (size_t)atoi(k));
        else if (!json_object_object_get_ex(o, k, &next))
            next = NULL;
        o = next;
    }
    free(copy);
    return o;
}

static const char *get_str(struct json_object *o, const char *dotted)
{
    struct json_object *v = get(o, dotted);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static long long get_int(struct json_object *o, const char *dotted)
{
    struct json_object *v = get(o, dotted);
    return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -999;
}

static void test_json_bytes(void)
{
    char *b;
    const char *vectors[][2] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
                                {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    for (size_t i = 0; i < sizeof vectors / sizeof *vectors; i++) {
        b = base64_encode((const unsigned char *)vectors[i][0], strlen(vectors[i][0]));
        is_str(b, vectors[i][1], "base64 of \"%s\" (RFC 4648 test vector)", vectors[i][0]);
        free(b);
    }
    struct json_object *s = json_cstr_new("caf\xc3\xa9");
    ok(json_object_is_type(s, json_type_string), "valid UTF-8 stays a JSON string");
    is_str(json_object_get_string(s), "caf\xc3\xa9", "with its bytes");
    json_object_put(s);

    struct json_object *o = json_cstr_new("a\xff" "b\xc3");
    ok(json_object_is_type(o, json_type_object), "invalid UTF-8 becomes an object");
    is_str(get_str(o, "base64"), "Yf9iww==", "base64 holds the exact bytes");
    is_str(get_str(o, "text"), "a\xef\xbf\xbd" "b\xef\xbf\xbd", "text has U+FFFD per bad byte");
    json_object_put(o);

    char *l = utf8_lossy("\xed\xa0\x80", 3);  /* a UTF-16 surrogate, invalid in UTF-8 */
    is_str(l, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "an encoded surrogate is replaced byte by byte");
    free(l);
    ok(json_cstr_new(NULL) == NULL, "NULL is JSON null");
}

static struct json_object *read_json(const char *path)
{
    struct json_object *o = json_object_from_file(path);
    if (!o)
        diag("cannot parse %s: %s", path, json_util_get_last_err());
    return o;
}

static void load_profile(struct profile *p)
{
    profile_init_defaults(p);
    p->name = xstrdup("unit");
    p->limits[LIMIT_NOFILE].set = true;
    p->limits[LIMIT_NOFILE].max = true;
    p->timeout_ms = 1500;
}

/* A ledger as the supervisor's would hold after n denials of one call. */
static struct ledger *ledger_of(const struct profile *p, int n, const char *syscall, int family,
                                const char *address, pid_t pid, const char *comm)
{
    struct ledger *l = ledger_new(p);
    for (int i = 0; i < n; i++)
        ledger_record(l, syscall, family, address, EPERM, pid, comm);
    return l;
}

/* What sandbox_run() does with the caller's environment, for the record. */
static void build_environment(const struct profile *p)
{
    extern char **environ;
    struct strv env = { 0 };
    struct env_diff diff = { 0 };
    env_build(p, environ, &env, &diff);
    record_environment(&diff);
    env_diff_free(&diff);
    strv_free(&env);
}

static void test_killed_run(void)
{
    char *path = xasprintf("%s/killed.json", tmpdir);
    setenv("SBX_TEST_API_TOKEN", "hunter2-value", 1);
    struct profile p;
    load_profile(&p);
    struct run_record *rec = report_open(path);
    ok(rec != NULL, "report_open creates a record");
    /* output_file.h: the record is put in place of the name at the end,
     * never written through what the name holds during the run */
    ok(access(path, F_OK) != 0, "nothing is created at the report's name before the end");
    record_profile(&p);
    char *argv[] = {"sh", "-c", "kill -9 $$", "\xff\xfe", NULL};
    record_command(argv, "/work");
    build_environment(&p);
    record_step("supervisor step");
    /* what ns_write_id_maps() returns in init */
    struct ns_id_maps maps = { .uid = { 0, 1000, 1 }, .gid = { 0, 1000, 1 } };
    record_id_maps(&maps);

    pid_t pid = fork();
    if (pid == 0) {
        record_step("child step");
        record_mount("ro", "/", "/", NULL);
        record_mount("rw", "/work", "/work", "skipped: missing (rw?)");
        /* what limits_apply() returns in the command's process */
        struct limits_applied applied = { 0 };
        applied.limit[LIMIT_NOFILE].set = true;
        applied.limit[LIMIT_NOFILE].now = (struct rlimit){ 1024, RLIM_INFINITY };
        record_limits(&applied);
        record_network("lo", "up");
        _exit(0);
    }
    int ws;
    waitpid(pid, &ws, 0);

    struct sandbox_result res = {
        .exit_status = 128 + SIGKILL, .wait_status = SIGKILL, .term_signal = SIGKILL,
        .command_ran = true, .duration_us = 4242,
        .ledger = ledger_of(&p, 3, "bind", AF_INET, "127.0.0.1:0", 12, "runner"),
    };
    ok(report_write(rec, &res, 128 + SIGKILL), "report_write succeeds");
    ledger_free(res.ledger);
    ok(record_current() == NULL, "the written record is no longer current");

    struct json_object *o = read_json(path);
    ok(o != NULL, "the file is valid JSON");
    is_int(get_int(o, "format"), 1, "format 1");
    is_str(get_str(o, "kind"), "run", "kind run");
    is_str(get_str(o, "verdict"), "killed_by_signal", "verdict killed_by_signal");
    is_int(get_int(o, "result.signal"), SIGKILL, "result.signal 9");
    is_str(get_str(o, "result.signal_name"), "SIGKILL", "result.signal_name SIGKILL");
    is_int(get_int(o, "result.exit_status"), 137, "result.exit_status 137");
    ok(get(o, "result.exit_code") == NULL, "no exit_code when killed");
    is_int(get_int(o, "duration_us"), 4242, "duration from the result");
    is_str(get_str(o, "profile.name"), "unit", "profile name");
    is_str(get_str(o, "limits.asked.nofile"), "max", "nofile asked: max");
    is_int(get_int(o, "limits.applied.nofile.soft"), 1024, "nofile applied soft, from a child");
    is_str(get_str(o, "limits.applied.nofile.hard"), "unlimited", "RLIM_INFINITY is \"unlimited\"");
    is_int(get_int(o, "timeout.timeout_ms"), 1500, "timeout asked");
    is_str(get_str(o, "mounts.done.1.note"), "skipped: missing (rw?)", "mount note from a child");
    is_str(get_str(o, "mounts.done.0.target"), "/", "first mount target");
    is_int((long long)json_object_array_length(get(o, "steps")), 2, "steps from both processes");
    is_str(get_str(o, "steps.1.step"), "child step", "the child's step, in order");
    is_int(get_int(o, "ids.uid_map.0.outside"), 1000, "uid map");
    is_str(get_str(o, "network.state.lo"), "up", "network state");
    is_str(get_str(o, "network.mode"), "loopback", "network mode");
    is_int(get_int(o, "denials.total"), 3, "denials counted");
    is_str(get_str(o, "denials.denials.0.errno"), "EPERM", "denial errno name");
    is_str(get_str(o, "denials.denials.0.address"), "127.0.0.1:0", "denial address");
    is_str(get_str(o, "denials.denials.0.family"), "AF_INET", "denial family");
    is_int(get_int(o, "denials.denials.0.processes.0.pid"), 12, "denial process pid");
    is_str(get_str(o, "denials.denials.0.processes.0.comm"), "runner", "denial process name");
    ok(get(o, "denials.denials.0.t_us") == NULL, "no recorder's t_us in a denial row");
    is_str(get_str(o, "argv.2"), "kill -9 $$", "argv kept");
    is_str(get_str(o, "argv.3.base64"), "//4=", "non-UTF-8 argv as base64");
    ok(get(o, "failure") == NULL && json_object_object_get_ex(o, "failure", NULL),
       "failure is null when sbx did not fail");
    struct json_object *secret = get(o, "environment.secret_looking_passed");
    bool found = false;
    for (size_t i = 0; secret && i < json_object_array_length(secret); i++)
        found |= !strcmp(json_object_get_string(json_object_array_get_idx(secret, i)),
                         "SBX_TEST_API_TOKEN");
    ok(found, "a secret-looking name that reaches the command is listed");
    char *text = read_file_text(path, 1 << 22, NULL);
    ok(text && !strstr(text, "hunter2-value"), "no environment value is ever written");
    free(text);
    json_object_put(o);
    profile_free(&p);
    unsetenv("SBX_TEST_API_TOKEN");
    free(path);
}

static struct json_object *run_result(int exit_status, int wait_status, int sig, bool ran,
                                      bool timed_out, int denials)
{
    char *path = xasprintf("%s/r.json", tmpdir);
    struct profile p;
    load_profile(&p);
    struct run_record *rec = report_open(path);
    record_profile(&p);
    struct sandbox_result res = {.exit_status = exit_status, .wait_status = wait_status,
                                 .term_signal = sig, .command_ran = ran, .timed_out = timed_out,
                                 .ledger = denials ? ledger_of(&p, denials, "connect", -1, NULL,
                                                               0, "") : NULL};
    report_write(rec, &res, exit_status);
    ledger_free(res.ledger);
    struct json_object *o = read_json(path);
    profile_free(&p);
    free(path);
    return o;
}

static void test_verdicts(void)
{
    struct {
        int exit_status, wait_status, sig;
        bool ran, timed_out;
        int denials;
        const char *verdict;
    } cases[] = {
        {0, 0, 0, true, false, 0, "passed"},
        {1, 1 << 8, 0, true, false, 0, "failed"},
        {0, 0, 0, true, false, 2, "false_green_suspected"},
        {124, SIGKILL, SIGKILL, true, true, 0, "timed_out"},
        {127, 0, 0, false, false, 0, "command_not_found"},
        {126, 0, 0, false, false, 0, "command_not_executable"},
        {125, 0, 0, false, false, 0, "setup_failed"},
        {125, 125 << 8, 0, true, false, 0, "failed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct json_object *o = run_result(cases[i].exit_status, cases[i].wait_status, cases[i].sig,
                                           cases[i].ran, cases[i].timed_out, cases[i].denials);
        is_str(get_str(o, "verdict"), cases[i].verdict, "exit %d ran=%d timed_out=%d denials=%d: %s",
               cases[i].exit_status, cases[i].ran, cases[i].timed_out, cases[i].denials,
               cases[i].verdict);
        json_object_put(o);
    }
}

/* die() in the supervisor writes the record with the failed step. */
static void test_setup_failure(void)
{
    char *path = xasprintf("%s/fail.json", tmpdir);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        struct profile p;
        load_profile(&p);
        report_open(path);
        record_profile(&p);
        record_step("create namespaces");
        /* a child of "the supervisor" that fails: only its event arrives */
        pid_t child = fork();
        if (child == 0) {
            log_use_underscore_exit = 1;
            record_step("mount plan");
            die("mount /nonexistent: No such file or directory");
        }
        int ws;
        waitpid(child, &ws, 0);
        die("setup failed in the sandbox (exit %d)", WEXITSTATUS(ws));
    }
    int ws;
    waitpid(pid, &ws, 0);
    ok(WIFEXITED(ws) && WEXITSTATUS(ws) == 125, "die() exits 125 with a record open");
    struct json_object *o = read_json(path);
    ok(o != NULL, "the record was written by die_hook");
    is_str(get_str(o, "verdict"), "setup_failed", "verdict setup_failed");
    is_str(get_str(o, "failure.step"), "mount plan", "failure.step is the last step recorded");
    is_str(get_str(o, "failure.message"), "mount /nonexistent: No such file or directory",
           "failure.message is the first die() message (the child's)");
    is_int((long long)json_object_array_length(get(o, "failure.messages")), 2,
           "both messages kept");
    is_int(get_int(o, "result.exit_status"), 125, "exit_status 125");
    ok(get(o, "result.command_ran") && !json_object_get_boolean(get(o, "result.command_ran")),
       "command_ran false");
    json_object_put(o);
    free(path);
}

static void test_unwritable(void)
{
    fflush(stdout);
    int pipefd[2];
    if (pipe(pipefd) < 0)
        bail_out("pipe");
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        report_open("/nonexistent-sbx-dir/r.json");
        _exit(0);
    }
    close(pipefd[1]);
    char buf[512] = {0};
    ssize_t n = read(pipefd[0], buf, sizeof buf - 1);
    (void)n;
    close(pipefd[0]);
    int ws;
    waitpid(pid, &ws, 0);
    ok(WIFEXITED(ws) && WEXITSTATUS(ws) == 125, "an unwritable --report path exits 125");
    like_str(buf, "sbx: --report: cannot open /nonexistent-sbx-dir/r.json for writing: No such file",
             "and names the file and errno");
}

static void test_audit(void)
{
    ok(report_audit_begin_run(0, "no file") == NULL && record_current() == NULL,
       "audit without --report: nothing is recorded (LeakSanitizer would see it)");

    char *path = xasprintf("%s/audit.json", tmpdir);
    struct profile p;
    load_profile(&p);
    char *argv[] = {"make", "check", NULL};
    report_audit_open(path);
    report_audit_begin_run(0, "under qa");
    record_profile(&p);
    record_command(argv, "/src");
    struct sandbox_result pass = {.command_ran = true};
    report_audit_end_run(0, &pass, 0);
    report_audit_begin_run(1, "against restrictive");
    record_profile(&p);
    record_command(argv, "/src");
    struct sandbox_result denied = {.command_ran = true,
                                    .ledger = ledger_of(&p, 4, "bind", AF_INET, "127.0.0.1:0",
                                                        7, "t")};
    report_audit_end_run(1, &denied, 0);
    ledger_free(denied.ledger);
    ok(report_audit_write("false-green", 3), "report_audit_write succeeds");
    struct json_object *o = read_json(path);
    is_str(get_str(o, "kind"), "audit", "audit: kind audit");
    is_str(get_str(o, "argv.1"), "check", "audit: argv");
    is_str(get_str(o, "verdict"), "false-green", "audit: the verdict, as audit names it");
    is_int(get_int(o, "exit_status"), 3, "audit: exit_status");
    is_str(get_str(o, "runs.0.label"), "under qa", "audit: under.label");
    is_str(get_str(o, "runs.0.verdict"), "passed", "audit: under passed");
    is_str(get_str(o, "runs.1.verdict"), "false_green_suspected", "audit: against is a false green");
    is_int(get_int(o, "runs.1.denials.total"), 4, "audit: against's denials");
    is_int(get_int(o, "runs.0.denials.total"), 0, "audit: each run has its own event log");
    json_object_put(o);

    /* sbx fails during the second run: both runs are in the file */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        report_audit_open(path);
        report_audit_begin_run(0, "under qa");
        report_audit_end_run(0, &pass, 0);
        report_audit_begin_run(1, "against restrictive");
        record_step("create namespaces (clone)");
        die("clone: Operation not permitted");
    }
    int ws;
    waitpid(pid, &ws, 0);
    is_int(WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, 125, "audit: die() during a run exits 125");
    o = read_json(path);
    ok(get(o, "verdict") == NULL, "audit after die(): no verdict");
    is_int(get_int(o, "exit_status"), 125, "audit after die(): exit_status 125");
    is_str(get_str(o, "runs.0.verdict"), "passed", "audit after die(): the first run is kept");
    is_str(get_str(o, "runs.1.verdict"), "setup_failed", "audit after die(): the second failed in setup");
    is_str(get_str(o, "runs.1.failure.step"), "create namespaces (clone)", "audit after die(): its step");
    json_object_put(o);
    profile_free(&p);
    free(path);
}

/* The event log is written by processes the supervisor does not trust to
 * finish (or to behave): torn lines, NULs of a slot never filled, invalid
 * UTF-8 and JSON of the wrong shape must neither crash nor leak through. */
static void test_hostile_events(void)
{
    char *path = xasprintf("%s/hostile.json", tmpdir);
    struct run_record *rec = report_open(path);
    record_step("before");
    static const char nul_slot[8] = {0};
    record_append_raw(nul_slot, sizeof nul_slot);
    record_append_raw("\n", 1);
    const char *lines[] = {
        "{\"event\":\"step\",\"pid\":1,\"t_us\":5,\"step\":\"torn",  /* no end: next line */
        "\n",
        "[1,2,3]\n",
        "{\"event\":\"step\",\"step\":\"bad \xff\xfe bytes\"}\n",
        "{\"event\":\"limit\",\"name\":42}\n",
        "{\"event\":\"mount\",\"target\":{\"nested\":[1]}}\n",
        "{\"event\":\"no-such-event\"}\n",
        "{\"event\":\"denial\",\"count\":\"many\"}\n",
        "{\"event\":\"denial\",\"count\":9223372036854775807}\n",
        "{\"event\":\"denial\",\"count\":9223372036854775807}\n",
        "not json at all\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        record_append_raw(lines[i], strlen(lines[i]));
    record_step("after");
    struct sandbox_result res = {.command_ran = true};
    ok(report_write(rec, &res, 0), "hostile events: the record is written");
    char *text = read_file_text(path, 1 << 22, NULL);
    ok(text && utf8_valid(text, strlen(text)), "hostile events: the file is valid UTF-8");
    free(text);
    struct json_object *o = read_json(path);
    ok(o != NULL, "hostile events: the file is valid JSON");
    is_str(get_str(o, "steps.0.step"), "before", "hostile events: the good steps survive");
    long long unreadable = get_int(o, "events_unreadable");
    ok(unreadable >= 4, "hostile events: unreadable lines are counted (%lld)", unreadable);
    /* denials are the supervisor's ledger's alone (run_document()): the
     * two forged rows of INT64_MAX denials above neither count nor overflow */
    is_int(get_int(o, "denials.total"), 0, "hostile events: a child cannot forge denials");
    json_object_put(o);
    free(path);
}

/* run_document() alone: the document from inputs built by hand, no
 * record, no process. Each "done" key comes from what the acting modules
 * returned, never from what was asked. */
static struct json_object *line_of(const char *json)
{
    struct json_object *o = json_tokener_parse(json);
    if (!o)
        bail_out("bad JSON in the test");
    return o;
}

static void test_document(void)
{
    struct profile p;
    load_profile(&p);   /* asks nofile = max */
    struct run_events ev;
    run_events_init(&ev);
    json_object_array_add(ev.uid_map, line_of("{\"inside\": 0, \"outside\": 1000, \"count\": 1}"));
    json_object_array_add(ev.steps, line_of("{\"pid\": 1, \"t_us\": 3, \"step\": \"mounts\"}"));
    json_object_object_add(ev.network_state, "dns", json_object_new_string("pasta"));
    struct env_diff env = { 0 };
    strv_push(&env.passed, xstrdup("PATH"));
    strv_push(&env.passed, xstrdup("MY_API_KEY"));
    strv_push(&env.removed, xstrdup("GITHUB_TOKEN"));
    struct json_object *rules = line_of("{\"clear\": false, \"set\": [\"A\"], "
                                        "\"unset_rules\": [\"*TOKEN*\"], \"keep_rules\": []}");
    struct json_object *asked = line_of("{\"name\": \"unit\", \"limits\": {\"nofile\": \"max\"}}");
    struct run_facts facts = {
        .label = "run 1", .start_real = { 1000, 5000000 }, .elapsed_us = 77,
        .profile = asked, .env_rules = rules, .env = &env, .events = &ev,
    };
    const char *before = xstrdup(json_object_to_json_string(ev.uid_map));

    struct json_object *o = run_document(&facts, NULL, 125);
    is_str(get_str(o, "verdict"), "setup_failed", "document: no result is setup_failed");
    is_int(get_int(o, "duration_us"), 77, "document: no result: sbx's own clock");
    is_str(get_str(o, "start_time"), "1970-01-01T00:16:40.005Z", "document: start_time in UTC");
    is_int(get_int(o, "start_time_unix_ms"), 1000005, "document: start_time_unix_ms");
    is_str(get_str(o, "label"), "run 1", "document: label");
    is_str(get_str(o, "failure.step"), "mounts", "document: the failed step is the last one");
    is_int(get_int(o, "ids.uid_map.0.outside"), 1000, "document: uid_map is what init wrote");
    is_str(get_str(o, "limits.asked.nofile"), "max", "document: limits asked");
    is_int((long long)json_object_object_length(get(o, "limits.applied")), 0,
           "document: no limit applied reported: none in applied, whatever was asked");
    is_int((long long)json_object_object_length(get(o, "namespaces.created")), 0,
           "document: no result: no namespace known created");
    ok(get(o, "network.state.lo") == NULL, "document: no result: lo unknown");
    is_str(get_str(o, "network.state.dns"), "pasta", "document: network state reported");
    is_str(get_str(o, "environment.removed.0"), "GITHUB_TOKEN", "document: removed from env_build()'s diff");
    is_int((long long)json_object_array_length(get(o, "environment.secret_looking_passed")), 1,
           "document: only secret-looking passed names are listed");
    is_str(get_str(o, "environment.secret_looking_passed.0"), "MY_API_KEY", "document: ... by name");
    is_str(get_str(o, "environment.unset_rules.0"), "*TOKEN*", "document: the rules as asked");
    char *first = xstrdup(json_object_to_json_string(o));
    json_object_put(o);
    is_str(json_object_to_json_string(ev.uid_map), before, "document: the inputs are not changed");
    free((char *)before);

    o = run_document(&facts, NULL, 125);
    is_str(json_object_to_json_string(o), first, "document: the same inputs, the same document");
    json_object_put(o);
    free(first);

    facts.env = NULL;
    struct sandbox_result res = { .command_ran = true, .duration_us = 9,
                                  .ns_created = { [NS_USER] = true, [NS_NET] = true },
                                  .loopback_up = true,   /* planned; not reported: */
                                  .ledger = ledger_of(&p, 2, "connect", AF_INET, "10.0.0.1:443",
                                                      42, "curl") };
    o = run_document(&facts, &res, 0);
    is_str(get_str(o, "verdict"), "false_green_suspected", "document: exit 0 after the ledger's denials");
    is_int(get_int(o, "denials.total"), 2, "document: denials from the ledger");
    is_str(get_str(o, "denials.denials.0.processes.0.comm"), "curl", "document: ... with who made them");
    json_object_put(o);
    /* A second thread of that process, with a name that is not UTF-8,
     * connecting an AF_INET6 socket to an AF_INET address. */
    struct ledger_denial d = {
        .syscall = "connect", .family = AF_INET6, .socket_family = AF_INET6,
        .address_family = AF_INET, .address = "10.0.0.1:443", .errnum = EPERM,
        .who = { .tid = 43, .tgid = 42, .ppid = 1, .comm = "t\xffx" }, .ns = 77,
    };
    ledger_record_call(res.ledger, &d);
    o = run_document(&facts, &res, 0);
    is_int(get_int(o, "denials.denials.0.threads.0.tid"), 42, "document: a row's threads, by tid");
    ok(get(o, "denials.denials.0.threads.0.ppid") == NULL, "document: an unknown ppid is null");
    is_str(get_str(o, "denials.denials.1.socket_family"), "AF_INET6", "document: the socket's family");
    is_str(get_str(o, "denials.denials.1.address_family"), "AF_INET", "document: the address's own family");
    is_str(get_str(o, "denials.denials.1.family"), "AF_INET6", "document: family as it always was");
    is_int(get_int(o, "denials.denials.1.threads.0.pid"), 42, "document: the thread's process");
    is_int(get_int(o, "denials.denials.1.threads.0.ppid"), 1, "document: and its parent");
    is_str(get_str(o, "denials.denials.1.threads.0.comm.base64"), "dP94",
           "document: a thread name that is not UTF-8 keeps its bytes");
    is_int((long long)json_object_array_length(get(o, "denials.events")), 3, "document: every denial an event");
    ok(get_int(o, "denials.events.2.ns") == 77 && get_int(o, "denials.events.2.tid") == 43 &&
       get_int(o, "denials.events.2.row") == get_int(o, "denials.denials.1.id"),
       "document: an event's time, thread and row");
    is_int(get_int(o, "denials.events_dropped"), 0, "document: no event dropped");
    is_int(get_int(o, "duration_us"), 9, "document: the run core's duration");
    ok(get(o, "failure") == NULL, "document: no failure");
    is_str(get_str(o, "network.state.lo"), "down",
           "document: lo of a namespace of its own is up only when reported so");
    ok(json_object_get_boolean(get(o, "namespaces.created.user")) &&
       !json_object_get_boolean(get(o, "namespaces.created.pid")),
       "document: namespaces created as sandbox_run() made them");
    is_int((long long)json_object_array_length(get(o, "environment.removed")), 0,
           "document: environment never built: nothing listed as removed");
    json_object_put(o);
    ledger_free(res.ledger);

    json_object_put(rules);
    json_object_put(asked);
    env_diff_free(&env);
    run_events_free(&ev);
    profile_free(&p);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        bail_out("mkdtemp");
    test_json_bytes();
    test_killed_run();
    test_verdicts();
    test_setup_failure();
    test_unwritable();
    test_audit();
    test_hostile_events();
    test_document();
    char *cmd = xasprintf("rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        diag("could not remove %s", tmpdir);
    free(cmd);
    return done_testing();
}
