/* The --report file (report.h): opened before anything runs, written once
 * at the end, or by die_hook when the supervisor fails, or by an atexit
 * handler when sbx exits without either (a profile error); and `sbx
 * audit`'s file, which holds both runs. Gathers each record's inputs (the
 * event log replayed, sbx's clock) for run_document(). */
#include "config.h"

#include "report_document.h"
#include "report_record.h"

#include "cli.h"
#include "exit.h"
#include "json_bytes.h"
#include "log.h"
#include "mount.h"
#include "output_file.h"
#include "project.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The one --report file of this sbx process: a run record (sbx run), or
 * an audit holding one record per run. */
struct report_file {
    struct output_file out;     /* !output_file_usable(): written (or given up) */
    pid_t owner;                /* the supervisor: the only writer of the file */
    ino_t owner_pidns;          /* with owner: see is_owner() */
    bool audit;
    struct run_record *run;     /* sbx run: the record */
    /* sbx audit: each run, as JSON once it ended (NULL: did not end) */
    struct json_object *audit_runs[2];
    struct json_object *audit_argv;     /* the command, from record_command() */
    struct run_record *audit_open[2];   /* runs begun, not yet ended */
    char *audit_runner;                 /* audit test by test: the runner's name */
    struct json_object *audit_tests;    /* and the tests, judged */
    struct json_object *audit_per_test; /* the suite's start-up, re-runs, what is incomplete */
    /* sbx audit: the bound of the --against run (null until known) */
    struct json_object *audit_against_timeout;
    /* sbx audit: the signal that stopped it (null: none) */
    struct json_object *audit_interrupted;
};

static struct report_file *file;

static bool report_file_finish(struct json_object *doc);
static struct json_object *audit_document(const char *verdict, int exit_status);

static ino_t pidns_inode(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? st.st_ino : 0;
}

/* Whether this process is the one that opened the file. A pid alone is
 * not enough: init is pid 1 in its namespace, and so is sbx when it runs
 * as a container's first process. */
static bool is_owner(void)
{
    return file && getpid() == file->owner && pidns_inode() == file->owner_pidns;
}

/* sbx failing (die) or leaving without writing the file (a profile error
 * exits 125 directly): write what is known, rather than leave an empty
 * file behind. The run under way counts as failed in setup. */
static void report_write_unfinished(void)
{
    if (!is_owner() || !output_file_usable(&file->out))
        return;
    if (file->audit) {
        for (int i = 0; i < 2; i++)
            if (file->audit_open[i] && !file->audit_runs[i])
                file->audit_runs[i] = record_to_json(file->audit_open[i], NULL, SBX_EXIT_FAILURE);
        report_file_finish(audit_document(NULL, SBX_EXIT_FAILURE));
    } else if (file->run) {
        report_write(file->run, NULL, SBX_EXIT_FAILURE);
    }
}

static void report_atexit(void)
{
    report_write_unfinished();
}

/* die() in the supervisor while a report is open: the message joins the
 * record under way, and the file is written. */
static void report_die_hook(const char *message)
{
    record_failure(message);
    report_write_unfinished();
}

void report_writable_places(struct strv *out)
{
    const struct profile_vars *v = cli_profile_vars();
    const struct project *pr = cli_project();
    struct mount_inputs in = {
        .cwd = v->cwd, .home = v->home,
        .project_root = pr->kind == PROJECT_GIT_LINK ? pr->root : NULL,
        .git_dirs = { pr->git_dir, pr->common_dir },
    };
    mount_writable_places(NULL, &in, out);
    if (pr->root)
        strv_push(out, xstrdup(pr->root));
}

/* Opens the file's directory now: an unwritable report path must stop
 * sbx before the command runs, not after. The record itself is written
 * at the end as a new file put in place of the name (output_file.h: the
 * sandbox may have swapped the name for a link to a secret). O_CLOEXEC:
 * the sandbox never inherits the directory fd, and init closes it. */
static void report_file_open(const char *path, bool audit)
{
    static bool atexit_done;
    if (file)
        die("--report: a report file is already open (%s)", file->out.path);
    struct output_file out;
    __attribute__((cleanup(strv_free))) struct strv writable = { 0 };
    report_writable_places(&writable);
    output_file_open(&out, path, "--report", &writable);
    file = xcalloc(1, sizeof *file);
    file->out = out;
    file->owner = getpid();
    file->owner_pidns = pidns_inode();
    file->audit = audit;
    die_hook = report_die_hook;
    if (!atexit_done) {
        atexit_done = true;
        atexit(report_atexit);
    }
}

void report_recheck_places(const struct strv *writable)
{
    if (is_owner())
        output_file_recheck(&file->out, "--report", writable);
}

static void report_file_free(void)
{
    if (!file)
        return;
    output_file_close(&file->out);
    for (int i = 0; i < 2; i++) {
        json_object_put(file->audit_runs[i]);
        record_free(file->audit_open[i]);
    }
    json_object_put(file->audit_argv);
    json_object_put(file->audit_tests);
    json_object_put(file->audit_per_test);
    free(file->audit_runner);
    json_object_put(file->audit_against_timeout);
    json_object_put(file->audit_interrupted);
    free(file);
    file = NULL;
    if (die_hook == report_die_hook)
        die_hook = NULL;
}

struct run_record *report_open(const char *path)
{
    struct run_record *rec = record_new();
    record_set_current(rec);
    if (path) {
        report_file_open(path, false);
        file->run = rec;
    }
    return rec;
}

void report_file_forget(const struct run_record *rec)
{
    if (file && file->run == rec)
        file->run = NULL;
    for (int i = 0; file && i < 2; i++)
        if (file->audit_open[i] == rec)
            file->audit_open[i] = NULL;
}

void report_file_note_argv(struct json_object *argv)
{
    if (file && file->audit) {
        json_object_put(file->audit_argv);
        file->audit_argv = json_object_get(argv);
    }
}

struct json_object *record_to_json(struct run_record *rec, const struct sandbox_result *res,
                                   int exit_status)
{
    struct run_events events;
    run_events_read(rec, &events);
    struct run_facts facts = {
        .label = rec->label,
        .start_real = rec->start_real,
        .elapsed_us = record_mono_us() - rec->start_mono_us,
        .profile = rec->profile,
        .env_rules = rec->environment,
        .command = rec->command,
        .env = rec->env,
        .events = &events,
    };
    struct json_object *o = run_document(&facts, res, exit_status);
    run_events_free(&events);
    return o;
}

static void warn_with_errno_name(int errnum, const char *path)
{
    errno = errnum;
    warn_errno("--report: cannot write the run record to %s", path);
}

/* Writes doc (consumed) to the open file, closes it and frees the file
 * state. Returns false after a warning naming the file. */
static bool report_file_finish(struct json_object *doc)
{
    bool ok = true;
    if (file && output_file_usable(&file->out)) {
        const char *json = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
                                                                   JSON_C_TO_STRING_SPACED |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
        char *text = xasprintf("%s\n", json);
        ok = output_file_publish(&file->out, text, strlen(text), "--report");
        int e = errno;
        free(text);
        if (!ok)
            warn_with_errno_name(e, file->out.path);
        /* written or given up: never again (die_hook, atexit) */
        output_file_close(&file->out);
    }
    json_object_put(doc);
    report_file_free();
    return ok;
}

bool report_write(struct run_record *rec, const struct sandbox_result *res, int exit_status)
{
    if (!rec)
        return true;
    struct json_object *o = record_to_json(rec, res, exit_status);
    bool ok = true;
    if (file && file->run == rec) {
        file->run = NULL;
        ok = report_file_finish(o);
    } else {
        json_object_put(o);
    }
    record_free(rec);
    return ok;
}

/* ---- sbx audit --------------------------------------------------------- */

void report_audit_open(const char *path)
{
    report_file_open(path, true);
}

struct run_record *report_audit_begin_run(int index, const char *label)
{
    /* Without --report nothing is recorded (and nothing mapped). */
    if (!file || !file->audit || index < 0 || index > 1)
        return NULL;
    struct run_record *rec = record_new();
    rec->label = label ? xstrdup(label) : NULL;
    record_set_current(rec);
    record_free(file->audit_open[index]);
    file->audit_open[index] = rec;
    return rec;
}

void report_audit_end_run(int index, const struct sandbox_result *res, int exit_status)
{
    if (!file || !file->audit || index < 0 || index > 1 || !file->audit_open[index])
        return;
    struct run_record *rec = file->audit_open[index];
    if (res && res->not_started) {
        /* stopped before clone(): the run stays null */
        record_free(rec);
        return;
    }
    json_object_put(file->audit_runs[index]);
    file->audit_runs[index] = record_to_json(rec, res, exit_status);
    record_free(rec);
}

void report_audit_run_output(int index, const char *tail, size_t len, uint64_t total)
{
    if (!file || !file->audit || index < 0 || index > 1 || !file->audit_runs[index])
        return;
    struct json_object *run = file->audit_runs[index];
    json_object_object_add(run, "output_tail", json_bytes_new(tail ? tail : "", tail ? len : 0));
    json_object_object_add(run, "output_bytes", json_object_new_int64(total > INT64_MAX ? INT64_MAX
                                                                                       : (int64_t)total));
}

static struct json_object *audit_document(const char *verdict, int exit_status)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "format", json_object_new_int(1));
    json_object_object_add(o, "sbx_version", json_object_new_string(PACKAGE_VERSION));
    json_object_object_add(o, "kind", json_object_new_string("audit"));
    json_object_object_add(o, "argv", json_object_get(file ? file->audit_argv : NULL));
    json_object_object_add(o, "verdict", json_cstr_new(verdict));
    json_object_object_add(o, "exit_status", json_object_new_int(exit_status));
    struct json_object *runs = json_object_new_array();
    for (int i = 0; i < 2; i++)
        json_object_array_add(runs, json_object_get(file ? file->audit_runs[i] : NULL));
    json_object_object_add(o, "runs", runs);
    /* null: the command's runner was not known, judged as a whole */
    json_object_object_add(o, "runner", file && file->audit_runner
                                            ? json_object_new_string(file->audit_runner) : NULL);
    json_object_object_add(o, "tests", json_object_get(file ? file->audit_tests : NULL));
    json_object_object_add(o, "per_test", json_object_get(file ? file->audit_per_test : NULL));
    json_object_object_add(o, "against_timeout",
                           json_object_get(file ? file->audit_against_timeout : NULL));
    json_object_object_add(o, "interrupted", json_object_get(file ? file->audit_interrupted : NULL));
    return o;
}

void report_audit_set_tests(const char *runner, struct json_object *tests)
{
    if (!file || !file->audit) {
        json_object_put(tests);
        return;
    }
    free(file->audit_runner);
    file->audit_runner = xstrdup(runner);
    json_object_put(file->audit_tests);
    file->audit_tests = tests;
}

void report_audit_set_per_test(struct json_object *o)
{
    if (!file || !file->audit) {
        json_object_put(o);
        return;
    }
    json_object_put(file->audit_per_test);
    file->audit_per_test = o;
}

void report_audit_against_timeout(uint64_t timeout_ms, const char *source)
{
    if (!file || !file->audit)
        return;
    struct json_object *t = json_object_new_object();
    json_object_object_add(t, "timeout_ms",
                           timeout_ms ? json_object_new_int64(timeout_ms > INT64_MAX ? INT64_MAX
                                                                                   : (int64_t)timeout_ms)
                                      : NULL);
    json_object_object_add(t, "source", json_cstr_new(source));
    json_object_object_add(t, "expired", json_object_new_boolean(false));
    json_object_put(file->audit_against_timeout);
    file->audit_against_timeout = t;
}

void report_audit_against_timed_out(bool expired)
{
    if (!file || !file->audit || !file->audit_against_timeout)
        return;
    json_object_object_add(file->audit_against_timeout, "expired", json_object_new_boolean(expired));
}

void report_audit_interrupted(int sig, int during)
{
    if (!file || !file->audit)
        return;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "signal", json_object_new_int(sig));
    const char *abbrev = sigabbrev_np(sig);
    char name[32];
    snprintf(name, sizeof name, "SIG%s", abbrev ? abbrev : "?");
    json_object_object_add(o, "signal_name", abbrev ? json_object_new_string(name) : NULL);
    /* 2: after both runs, while single tests were re-run */
    json_object_object_add(o, "during_run", during < 0 || during > 1 ? NULL : json_object_new_int(during));
    json_object_object_add(o, "phase", json_object_new_string(during < 0 ? "before-runs"
                                                              : during == 0 ? "run-1"
                                                              : during == 1 ? "run-2"
                                                                            : "re-runs"));
    json_object_put(file->audit_interrupted);
    file->audit_interrupted = o;
}

bool report_audit_write(const char *verdict, int exit_status)
{
    if (!file || !file->audit)
        return true;
    return report_file_finish(audit_document(verdict, exit_status));
}
