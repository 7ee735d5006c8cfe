/* The run record: `sbx run --report FILE` (and `sbx audit --report FILE`)
 * writes, as JSON, what the sandbox really was and how the command ended,
 * so a test result can be read next to its evidence. Keys:
 * docs/run-record.md.
 *
 * How the pieces fill it:
 *  - the CLI opens it (report_open) before loading the profile, hands it
 *    the profile and command (record_profile, record_command) and, after
 *    sandbox_run(), writes it (report_write).
 *  - the run core reports what it actually did, from any process: the
 *    supervisor, init inside, or the command's pre-exec setup. The
 *    modules that act return what they did (ns_write_id_maps(),
 *    limits_apply(), env_build()) and their caller records that, so the
 *    record never re-derives it from the profile. The record
 *    lives in a MAP_SHARED anonymous mapping made before any fork, so
 *    record_*() calls in forked children reach the supervisor without a
 *    pipe. Each call appends one JSON line; nothing is lost at exec since
 *    the command never calls them.
 *  - die() anywhere: report_open() installs die_hook; in the supervisor it
 *    writes the record with the failed step. Children set die_hook =
 *    report_child_die_hook, which only appends the message; the supervisor
 *    writes the file when sandbox_run() returns 125.
 *  - exit() without a record written (cli_load_profile() exits 125 on a
 *    bad profile): an atexit handler writes it, so no empty file remains.
 *
 * Every record_*() is a no-op when no record is open (no --report), so
 * the run core calls them unconditionally. The files: report_record.h. */
#ifndef SBX_REPORT_H
#define SBX_REPORT_H

#include "profile.h"
#include "sandbox.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct run_record;
struct ns_id_maps;
struct limits_applied;
struct env_diff;

/* Creates the record and makes it current. path: the file, whose
 * directory is opened and checked now so that an unwritable path fails
 * before the command runs (die(), 125); the record replaces the name at
 * the end (output_file.h); NULL: no file (unit tests). Installs
 * die_hook (the supervisor's) and an atexit handler. */
struct run_record *report_open(const char *path);

/* Once the profile is known, before the sandbox starts: decides the
 * --report path again with every place a sandbox of this profile could
 * have written (output_file_recheck(): a symlink on the way that lies in
 * one of them now refuses the run, 125). No file open: nothing. */
struct strv;
void report_recheck_places(const struct strv *writable);
/* The places a sandbox could have written that are known before a
 * profile is loaded (mount_writable_places() without rules): the working
 * directory, its project and git directories, the shipped writable
 * directories below $HOME. Appended to out. For the files sbx writes on
 * the caller's behalf (--report here, the audit's --junit, --tap and
 * $GITHUB_STEP_SUMMARY): output_file.h. */
struct strv;
void report_writable_places(struct strv *out);


/* Makes rec the record that record_*() calls go to (NULL: none). */
void record_set_current(struct run_record *rec);
struct run_record *record_current(void);

/* --- filled by the CLI ------------------------------------------------ */

/* The effective profile (after command-line overrides): name, path,
 * included files, namespaces, ids, limits asked, network, filesystem
 * rules, environment changes (names only), security settings. */
void record_profile(const struct profile *p);
/* The command and where it starts. */
void record_command(char *const *argv, const char *cwd);

/* --- filled by the run core (any process, before exec) --------------- */

/* A setup step about to run ("create namespaces", "mount plan", ...):
 * when sbx fails, the last step recorded is the one that failed. */
void record_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The id maps init wrote (ns_write_id_maps()). */
void record_id_maps(const struct ns_id_maps *written);
/* The limits as the command's process has them just before exec
 * (limits_apply()); RLIM_INFINITY is recorded as "unlimited". Formats on
 * the stack: it runs after setrlimit(), under the command's `as`. */
void record_limits(const struct limits_applied *applied);
/* How [limits] nproc is held (cgroup.h): by "RLIMIT_NPROC", "pids
 * cgroup" or "enclosing pids cgroup" (cgroup: its directory), or not at all (by NULL, enforced
 * false, why_not: the reason). Not called when nproc is not a number. */
void record_nproc_enforcement(const char *by, const char *cgroup, bool enforced,
                              const char *why_not);
/* Network state facts: ("lo", "up"), ("ipv4", "127.0.0.1/8"),
 * ("outbound", "pasta pid 123") ... */
void record_network(const char *key, const char *value);
/* One mount as done: kind "ro", "rw", "tmpfs", "hide", "proc", "dev",
 * "root"...; source may be NULL; note: NULL, or why it differs from the
 * plan ("skipped: missing (rw?)"). */
void record_mount(const char *kind, const char *source, const char *target, const char *note);
/* What env_build() did to the caller's environment (names only, never
 * values): in the supervisor, after building it. */
void record_environment(const struct env_diff *diff);
/* A setup failure: the message die() printed. Called by die_hook. */
void record_failure(const char *message);
/* die_hook for forked children of the supervisor (init, the command
 * before exec): only appends the message to the record, never writes the
 * file, so it is safe where the common rule says "die_hook = NULL". */
void report_child_die_hook(const char *message);

/* Tests only: appends bytes to the event log as they are, to check that
 * the supervisor survives whatever a dying or hostile child left there. */
void record_append_raw(const char *bytes, size_t len);

/* --- the file ---------------------------------------------------------- */

/* The record as a JSON object (caller puts it): the event log replayed
 * and handed with the rest to run_document() (report_document.h). res:
 * NULL when sbx failed before sandbox_run() returned. exit_status: what
 * sbx exits with. */
struct json_object *record_to_json(struct run_record *rec, const struct sandbox_result *res,
                                   int exit_status);

/* Writes the record to the file given to report_open(), closes it and
 * frees rec. res: the result of sandbox_run() (NULL if it did not
 * return); exit_status: sbx's own exit status. Returns false (after a
 * warning naming the file) when the file cannot be written: the caller
 * then exits 125, since the evidence it asked for is missing. */
bool report_write(struct run_record *rec, const struct sandbox_result *res, int exit_status);

/* `sbx audit --report FILE`: one object holding both runs and the verdict.
 *   report_audit_open(path);                       before loading profiles
 *   rec = report_audit_begin_run(i, label);        i = 0 (under), 1 (against)
 *   record_profile(...); record_command(...); sandbox_run(...);
 *   report_audit_end_run(i, &result, status);      before sandbox_result_free
 *                                                  (a run that did not start stays null)
 *   report_audit_write(verdict, exit_status);
 * A die() or exit() in between writes what is known (verdict null, the
 * run under way as setup_failed). */
void report_audit_open(const char *path);
/* NULL, and nothing recorded, when no audit file is open (no --report). */
struct run_record *report_audit_begin_run(int index, const char *label);
void report_audit_end_run(int index, const struct sandbox_result *res, int exit_status);
/* A run's output that was not shown (the per-test audit without -v): its
 * last len bytes as "output_tail" and how many it wrote in all as
 * "output_bytes", on the run ended last with that index. */
void report_audit_run_output(int index, const char *tail, size_t len, uint64_t total);
/* Returns false (after a warning) when the file cannot be written. */
bool report_audit_write(const char *verdict, int exit_status);
/* Audit test by test: the runner's name and the tests judged (an array
 * of objects, docs/run-record.md), taken over; before report_audit_write. */
void report_audit_set_tests(const char *runner, struct json_object *tests);
/* The per-test audit's own findings (the suite's start-up denials, the
 * re-runs, why the evidence is incomplete), taken over. */
void report_audit_set_per_test(struct json_object *o);
/* What bounds the --against run (timeout_ms 0: nothing; source as
 * audit_bound_source_name()), before it starts; expired after it ended. */
void report_audit_against_timeout(uint64_t timeout_ms, const char *source);
void report_audit_against_timed_out(bool expired);
/* A signal stopped the audit during (or right after) run `during`; then
 * report_audit_write(NULL, 128 + sig). */
void report_audit_interrupted(int sig, int during);

/* Frees a record without writing it. */
void record_free(struct run_record *rec);

/* True for names that look like they hold secrets (TOKEN, SECRET,
 * PASSWORD, KEY, ...): documented in docs/run-record.md. */
bool env_name_looks_secret(const char *name);

#endif
