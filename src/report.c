/* The run record (see report.h for how it is filled, docs/run-record.md
 * for the keys).
 *
 * Two kinds of data:
 *  - what the CLI knows in the supervisor (profile, command): kept as
 *    json-c objects in the supervisor's memory;
 *  - what the run core does, possibly in a forked child (mounts, limits,
 *    maps, the failing step): appended as JSON lines to an event log in a
 *    MAP_SHARED anonymous mapping, so children's writes survive them.
 *    Appends reserve space with an atomic add, so processes appending at
 *    once never overlap. The supervisor parses the log when it writes the
 *    file and treats it as untrusted input: each line goes through
 *    json_tokener, a line that does not parse is counted, not trusted. */
#include "config.h"

#include "report.h"

#include "env.h"
#include "exit.h"
#include "fault_hook.h"
#include "json_bytes.h"
#include "ledger.h"
#include "log.h"
#include "output_file.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Room for the events of one run. Pages are only touched as events are
 * appended; a run that overflows it is marked "events_truncated". */
#define RECORD_ARENA_SIZE (4u << 20)
/* One event line at most (a mount of a PATH_MAX path is well below). */
#define RECORD_EVENT_MAX (64u << 10)

struct record_arena {
    size_t used;        /* bytes reserved so far (atomic) */
    int truncated;      /* an append did not fit (atomic) */
    char data[];
};

struct run_record {
    struct record_arena *arena;
    size_t arena_size;
    struct timespec start_real;
    long long start_mono_us;
    char *label;
    struct json_object *profile;      /* record_profile() */
    struct json_object *environment;  /* record_profile() */
    struct json_object *command;      /* record_command() */
};

/* The one --report file of this sbx process: a run record (sbx run), or
 * an audit holding one record per run. */
struct report_file {
    struct output_file out;     /* out.dir_fd < 0: written (or given up) */
    pid_t owner;                /* the supervisor: the only writer of the file */
    ino_t owner_pidns;          /* with owner: see is_owner() */
    bool audit;
    struct run_record *run;     /* sbx run: the record */
    /* sbx audit: each run, as JSON once it ended (NULL: did not end) */
    struct json_object *audit_runs[2];
    struct json_object *audit_argv;     /* the command, from record_command() */
    struct run_record *audit_open[2];   /* runs begun, not yet ended */
};

static struct run_record *current;
static struct report_file *file;

static long long mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void report_die_hook(const char *message);
static void warn_with_errno_name(int errnum, const char *path);
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
    if (!is_owner() || file->out.dir_fd < 0)
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

static struct run_record *record_new(void)
{
    struct run_record *rec = xcalloc(1, sizeof *rec);
    clock_gettime(CLOCK_REALTIME, &rec->start_real);
    rec->start_mono_us = mono_us();
    rec->arena_size = RECORD_ARENA_SIZE;
    void *m = mmap(NULL, rec->arena_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        die_errno("--report: cannot map %u bytes for the run record", RECORD_ARENA_SIZE);
    rec->arena = m;
    return rec;
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
    output_file_open(&out, path, "--report");
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
    free(file);
    file = NULL;
    if (die_hook == report_die_hook)
        die_hook = NULL;
}

struct run_record *report_open(const char *path)
{
    struct run_record *rec = record_new();
    current = rec;
    if (path) {
        report_file_open(path, false);
        file->run = rec;
    }
    return rec;
}

void record_set_current(struct run_record *rec)
{
    current = rec;
}

struct run_record *record_current(void)
{
    return current;
}

void record_free(struct run_record *rec)
{
    if (!rec)
        return;
    if (current == rec)
        current = NULL;
    if (file && file->run == rec)
        file->run = NULL;
    for (int i = 0; file && i < 2; i++)
        if (file->audit_open[i] == rec)
            file->audit_open[i] = NULL;
    if (rec->arena)
        munmap(rec->arena, rec->arena_size);
    free(rec->label);
    json_object_put(rec->profile);
    json_object_put(rec->environment);
    json_object_put(rec->command);
    free(rec);
}

/* ---- the event log --------------------------------------------------- */

/* Appends ev (consumed) with its process and time. Safe in any process
 * that shares the mapping; never fails loudly: a full log is marked. */
static void event_append(const char *type, struct json_object *ev)
{
    struct run_record *rec = current;
    if (!rec || !rec->arena) {
        json_object_put(ev);
        return;
    }
    struct json_object *line = json_object_new_object();
    json_object_object_add(line, "event", json_object_new_string(type));
    json_object_object_add(line, "pid", json_object_new_int64(getpid()));
    json_object_object_add(line, "t_us", json_object_new_int64(mono_us() - rec->start_mono_us));
    json_object_object_foreach(ev, key, val)
        json_object_object_add(line, key, json_object_get(val));
    json_object_put(ev);
    const char *text = json_object_to_json_string_ext(line, JSON_C_TO_STRING_PLAIN |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t len = strlen(text);
    size_t room = rec->arena_size - offsetof(struct record_arena, data);
    if (len + 1 > RECORD_EVENT_MAX) {
        __atomic_store_n(&rec->arena->truncated, 1, __ATOMIC_RELAXED);
    } else {
        size_t at = __atomic_fetch_add(&rec->arena->used, len + 1, __ATOMIC_RELAXED);
        if (at + len + 1 > room) {
            __atomic_store_n(&rec->arena->truncated, 1, __ATOMIC_RELAXED);
        } else {
            memcpy(rec->arena->data + at, text, len);
            rec->arena->data[at + len] = '\n';
        }
    }
    json_object_put(line);
}

void record_append_raw(const char *bytes, size_t len)
{
    struct run_record *rec = current;
    if (!rec || !rec->arena)
        return;
    size_t room = rec->arena_size - offsetof(struct record_arena, data);
    size_t at = __atomic_fetch_add(&rec->arena->used, len, __ATOMIC_RELAXED);
    if (at + len > room)
        __atomic_store_n(&rec->arena->truncated, 1, __ATOMIC_RELAXED);
    else
        memcpy(rec->arena->data + at, bytes, len);
}

static struct json_object *new_event(void)
{
    return json_object_new_object();
}

void record_step(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    fault_hook_step(s);
    if (!current) {
        free(s);
        return;
    }
    struct json_object *ev = new_event();
    json_object_object_add(ev, "step", json_cstr_new(s));
    free(s);
    event_append("step", ev);
}

void record_namespace(const char *name, bool created)
{
    if (!current)
        return;
    struct json_object *ev = new_event();
    json_object_object_add(ev, "name", json_cstr_new(name));
    json_object_object_add(ev, "created", json_object_new_boolean(created));
    event_append("namespace", ev);
}

void record_id_map(const char *which, uint32_t inside, uint32_t outside, uint32_t count)
{
    if (!current)
        return;
    struct json_object *ev = new_event();
    json_object_object_add(ev, "which", json_cstr_new(which));
    json_object_object_add(ev, "inside", json_object_new_int64(inside));
    json_object_object_add(ev, "outside", json_object_new_int64(outside));
    json_object_object_add(ev, "count", json_object_new_int64(count));
    event_append("id_map", ev);
}

static struct json_object *json_rlim(uint64_t v)
{
    if (v == (uint64_t)RLIM_INFINITY || v > (uint64_t)INT64_MAX)
        return json_object_new_string("unlimited");
    return json_object_new_int64((int64_t)v);
}

void record_limit(const char *name, uint64_t soft, uint64_t hard)
{
    if (!current)
        return;
    struct json_object *ev = new_event();
    json_object_object_add(ev, "name", json_cstr_new(name));
    json_object_object_add(ev, "soft", json_rlim(soft));
    json_object_object_add(ev, "hard", json_rlim(hard));
    event_append("limit", ev);
}

void record_nproc_enforcement(const char *by, const char *cgroup, bool enforced,
                              const char *why_not)
{
    if (!current)
        return;
    struct json_object *ev = new_event();
    json_object_object_add(ev, "by", json_cstr_new(by));
    json_object_object_add(ev, "cgroup", json_cstr_new(cgroup));
    json_object_object_add(ev, "enforced", json_object_new_boolean(enforced));
    json_object_object_add(ev, "why_not", json_cstr_new(why_not));
    event_append("nproc_enforcement", ev);
}

void record_network(const char *key, const char *value)
{
    if (!current)
        return;
    struct json_object *ev = new_event();
    json_object_object_add(ev, "key", json_cstr_new(key));
    json_object_object_add(ev, "value", json_cstr_new(value));
    event_append("network", ev);
}

void record_mount(const char *kind, const char *source, const char *target, const char *note)
{
    if (!current)
        return;
    struct json_object *ev = new_event();
    json_object_object_add(ev, "kind", json_cstr_new(kind));
    json_object_object_add(ev, "source", json_cstr_new(source));
    json_object_object_add(ev, "target", json_cstr_new(target));
    json_object_object_add(ev, "note", json_cstr_new(note));
    event_append("mount", ev);
}

void record_env(const char *action, const char *name)
{
    if (!current)
        return;
    struct json_object *ev = new_event();
    json_object_object_add(ev, "action", json_cstr_new(action));
    json_object_object_add(ev, "name", json_cstr_new(name));
    event_append("env", ev);
}

/* One row of denials.denials, in the shape of ledger_to_json()'s rows. */
static struct json_object *denial_entry(const char *syscall, const char *family,
                                        const char *address, int errnum, uint64_t count,
                                        struct json_object *processes, uint64_t more_processes)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "syscall", json_cstr_new(syscall));
    json_object_object_add(o, "family", json_cstr_new(family));
    json_object_object_add(o, "address", json_cstr_new(address && *address ? address : NULL));
    const char *en = errnum ? errno_name(errnum) : NULL;
    json_object_object_add(o, "errno", en ? json_object_new_string(en) : NULL);
    json_object_object_add(o, "count", json_object_new_int64(count > INT64_MAX ? INT64_MAX
                                                                              : (int64_t)count));
    json_object_object_add(o, "processes", processes ? processes : json_object_new_array());
    json_object_object_add(o, "more_processes",
                           json_object_new_int64(more_processes > INT64_MAX ? INT64_MAX
                                                                           : (int64_t)more_processes));
    return o;
}

static struct json_object *denial_process(long pid, const char *comm)
{
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "pid", json_object_new_int64(pid));
    json_object_object_add(p, "comm", json_cstr_new(comm));
    return p;
}

void record_denial(const char *syscall, const char *family, const char *address, int errnum,
                   uint64_t count, long pid, const char *comm)
{
    if (!current)
        return;
    struct json_object *procs = json_object_new_array();
    if (pid > 0)
        json_object_array_add(procs, denial_process(pid, comm));
    event_append("denial", denial_entry(syscall, family, address, errnum, count, procs, 0));
}

void record_failure(const char *message)
{
    if (!current)
        return;
    struct json_object *ev = new_event();
    json_object_object_add(ev, "message", json_cstr_new(message));
    event_append("failure", ev);
}

/* die() in the supervisor while a report is open: the message joins the
 * record under way, and the file is written. */
static void report_die_hook(const char *message)
{
    record_failure(message);
    report_write_unfinished();
}

void report_child_die_hook(const char *message)
{
    record_failure(message);
}

/* ---- what the CLI knows ---------------------------------------------- */

static struct json_object *json_str_list(const struct str_list *l)
{
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; i < l->n; i++)
        json_object_array_add(a, json_cstr_new(l->v[i].value));
    return a;
}

static struct json_object *json_limit_asked(const struct limit_setting *s)
{
    if (!s->set)
        return NULL;
    if (s->max)
        return json_object_new_string("max");
    if (s->unlimited)
        return json_object_new_string("unlimited");
    return json_object_new_int64(s->value > INT64_MAX ? INT64_MAX : (int64_t)s->value);
}

static struct json_object *json_id_setting(const struct id_setting *s)
{
    return s->current ? json_object_new_string("current") : json_object_new_int64(s->value);
}

static const char *root_mode_name(enum root_mode m)
{
    switch (m) {
    case ROOT_RO: return "ro";
    case ROOT_TMPFS: return "tmpfs";
    case ROOT_HOST: return "host";
    }
    return "?";
}

static struct json_object *environment_changes(const struct profile *p);

void record_profile(const struct profile *p)
{
    struct run_record *rec = current;
    if (!rec)
        return;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_cstr_new(p->name));
    json_object_object_add(o, "path", json_cstr_new(p->path));
    json_object_object_add(o, "description", json_cstr_new(p->description));
    struct json_object *files = json_object_new_array();
    for (size_t i = 0; i < p->nfiles; i++)
        json_object_array_add(files, json_cstr_new(p->files[i]));
    json_object_object_add(o, "files", files);

    struct json_object *ns = json_object_new_object();
    for (int k = 0; k < NS_COUNT; k++)
        json_object_object_add(ns, ns_kind_name((enum ns_kind)k), json_object_new_boolean(p->ns[k]));
    json_object_object_add(o, "namespaces", ns);
    json_object_object_add(o, "uid", json_id_setting(&p->uid));
    json_object_object_add(o, "gid", json_id_setting(&p->gid));
    json_object_object_add(o, "hostname", json_cstr_new(p->hostname));
    json_object_object_add(o, "nested_userns", json_object_new_boolean(p->nested_userns));

    struct json_object *net = json_object_new_object();
    json_object_object_add(net, "mode", json_object_new_string(net_mode_name(p->net_mode)));
    json_object_object_add(net, "outbound", json_object_new_boolean(p->outbound));
    struct json_object *fwd = json_object_new_array();
    for (size_t i = 0; i < p->nforward; i++)
        json_object_array_add(fwd, json_object_new_int(p->forward[i]));
    json_object_object_add(net, "forward", fwd);
    json_object_object_add(o, "network", net);

    struct json_object *limits = json_object_new_object();
    for (int k = 0; k < LIMIT_COUNT; k++)
        json_object_object_add(limits, limit_kind_name((enum limit_kind)k),
                               json_limit_asked(&p->limits[k]));
    json_object_object_add(o, "limits", limits);
    json_object_object_add(o, "timeout_ms", p->timeout_ms ? json_object_new_int64(
                                                               p->timeout_ms > INT64_MAX ? INT64_MAX
                                                               : (int64_t)p->timeout_ms)
                                                          : NULL);

    struct json_object *fs = json_object_new_object();
    json_object_object_add(fs, "root", json_object_new_string(root_mode_name(p->root)));
    struct json_object *rules = json_object_new_array();
    for (size_t i = 0; i < p->nfs; i++) {
        struct json_object *r = json_object_new_object();
        json_object_object_add(r, "kind", json_object_new_string(fs_kind_name(p->fs[i].kind)));
        json_object_object_add(r, "path", json_cstr_new(p->fs[i].path));
        json_object_object_add(r, "optional", json_object_new_boolean(p->fs[i].optional));
        json_object_array_add(rules, r);
    }
    json_object_object_add(fs, "rules", rules);
    json_object_object_add(fs, "unprotect", json_str_list(&p->unprotect));
    json_object_object_add(fs, "proc", json_object_new_boolean(p->proc));
    json_object_object_add(fs, "dev", json_object_new_string(p->dev == DEV_MINIMAL ? "minimal" : "none"));
    json_object_object_add(o, "filesystem", fs);

    struct json_object *sec = json_object_new_object();
    json_object_object_add(sec, "no_new_privs", json_object_new_boolean(p->no_new_privs));
    json_object_object_add(sec, "capabilities", json_str_list(&p->capabilities));
    json_object_object_add(sec, "seccomp", json_object_new_string(p->seccomp == SECCOMP_DEFAULT
                                                                       ? "default" : "none"));
    json_object_object_add(sec, "io_uring", json_object_new_boolean(p->io_uring));
    struct json_object *deny = json_object_new_array();
    for (size_t i = 0; i < p->ndeny; i++)
        json_object_array_add(deny, json_cstr_new(p->deny[i].text));
    json_object_object_add(sec, "deny", deny);
    json_object_object_add(o, "security", sec);

    json_object_put(rec->profile);
    rec->profile = o;
    json_object_put(rec->environment);
    rec->environment = environment_changes(p);
}

bool env_name_looks_secret(const char *name)
{
    static const char *const words[] = {
        "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "KEY", "CREDENTIAL",
        "AUTH", "COOKIE", "SESSION", "PRIVATE", "SIGNATURE", "CERT",
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcasestr(name, words[i]))
            return true;
    return false;
}

static bool set_has_name(const struct str_list *l, const char *name, size_t namelen)
{
    for (size_t i = 0; i < l->n; i++) {
        const char *eq = strchr(l->v[i].value, '=');
        size_t n = eq ? (size_t)(eq - l->v[i].value) : strlen(l->v[i].value);
        if (n == namelen && !memcmp(l->v[i].value, name, n))
            return true;
    }
    return false;
}

/* What the command's environment loses, gains and keeps compared with the
 * caller's: names only. Values are never recorded: the file is evidence
 * that gets attached to CI logs, and values are where secrets live. */
static struct json_object *environment_changes(const struct profile *p)
{
    extern char **environ;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "clear", json_object_new_boolean(p->env_clear));
    struct json_object *set = json_object_new_array();
    for (size_t i = 0; i < p->env_set.n; i++) {
        const char *v = p->env_set.v[i].value;
        const char *eq = strchr(v, '=');
        json_object_array_add(set, json_bytes_new(v, eq ? (size_t)(eq - v) : strlen(v)));
    }
    json_object_object_add(o, "set", set);
    struct json_object *removed = json_object_new_array();
    struct json_object *secret = json_object_new_array();
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        bool gone = !env_passes(p, *e, n);
        bool overwritten = set_has_name(&p->env_set, *e, n);
        if (gone && !overwritten)
            json_object_array_add(removed, json_bytes_new(*e, n));
        if (!gone) {
            char *name = xstrndup(*e, n);
            if (env_name_looks_secret(name))
                json_object_array_add(secret, json_bytes_new(*e, n));
            free(name);
        }
    }
    json_object_object_add(o, "removed", removed);
    json_object_object_add(o, "unset_rules", json_str_list(&p->env_unset));
    json_object_object_add(o, "keep_rules", json_str_list(&p->env_keep));
    json_object_object_add(o, "secret_looking_passed", secret);
    return o;
}

void record_command(char *const *argv, const char *cwd)
{
    struct run_record *rec = current;
    if (!rec)
        return;
    struct json_object *o = json_object_new_object();
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; argv && argv[i]; i++)
        json_object_array_add(a, json_cstr_new(argv[i]));
    json_object_object_add(o, "argv", a);
    json_object_object_add(o, "cwd", json_cstr_new(cwd));
    json_object_put(rec->command);
    rec->command = o;
    if (file && file->audit) {
        json_object_put(file->audit_argv);
        file->audit_argv = json_object_get(a);
    }
}


/* ---- assembling the document ----------------------------------------- */

static char *iso8601(const struct timespec *ts)
{
    struct tm tm;
    gmtime_r(&ts->tv_sec, &tm);
    char buf[64];
    size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, sizeof buf - n, ".%03ldZ", ts->tv_nsec / 1000000);
    return xstrdup(buf);
}

/* ---- reading the event log back ------------------------------------- *
 * Every value is copied as its documented type or becomes null, and every
 * string goes through json_bytes again: json_tokener accepts raw bytes
 * that are not UTF-8 inside strings, and a child may have written any. */

enum field_type { F_TEXT, F_INT, F_BOOL, F_INT_OR_TEXT, F_PROCESSES };

struct field {
    const char *key;
    enum field_type type;
};

static struct json_object *copy_text(struct json_object *v)
{
    if (json_object_is_type(v, json_type_string))
        return json_bytes_new(json_object_get_string(v), (size_t)json_object_get_string_len(v));
    /* json_bytes' own {"base64", "text"} form, if it is well-formed */
    struct json_object *b64, *text;
    if (json_object_is_type(v, json_type_object) && json_object_object_length(v) == 2 &&
        json_object_object_get_ex(v, "base64", &b64) && json_object_is_type(b64, json_type_string) &&
        json_object_object_get_ex(v, "text", &text) && json_object_is_type(text, json_type_string) &&
        utf8_valid(json_object_get_string(b64), (size_t)json_object_get_string_len(b64)) &&
        utf8_valid(json_object_get_string(text), (size_t)json_object_get_string_len(text))) {
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "base64", json_object_get(b64));
        json_object_object_add(o, "text", json_object_get(text));
        return o;
    }
    return NULL;
}

static struct json_object *copy_value(struct json_object *v, enum field_type type)
{
    if (!v)
        return NULL;
    switch (type) {
    case F_TEXT:
        return copy_text(v);
    case F_INT:
        return json_object_is_type(v, json_type_int) ? json_object_new_int64(json_object_get_int64(v))
                                                     : NULL;
    case F_BOOL:
        return json_object_is_type(v, json_type_boolean)
                   ? json_object_new_boolean(json_object_get_boolean(v)) : NULL;
    case F_INT_OR_TEXT:
        return json_object_is_type(v, json_type_int) ? json_object_new_int64(json_object_get_int64(v))
                                                     : copy_text(v);
    case F_PROCESSES: {
        if (!json_object_is_type(v, json_type_array))
            return json_object_new_array();
        struct json_object *a = json_object_new_array();
        size_t n = json_object_array_length(v);
        for (size_t i = 0; i < n && i < 64; i++) {
            struct json_object *e = json_object_array_get_idx(v, i), *pid = NULL, *comm = NULL;
            if (!json_object_is_type(e, json_type_object))
                continue;
            json_object_object_get_ex(e, "pid", &pid);
            json_object_object_get_ex(e, "comm", &comm);
            struct json_object *p = json_object_new_object();
            json_object_object_add(p, "pid", copy_value(pid, F_INT));
            json_object_object_add(p, "comm", copy_value(comm, F_TEXT));
            json_object_array_add(a, p);
        }
        return a;
    }
    }
    return NULL;
}

static struct json_object *copy_fields(struct json_object *ev, const struct field *fields, size_t n)
{
    struct json_object *o = json_object_new_object();
    for (size_t i = 0; i < n; i++) {
        struct json_object *v = NULL;
        json_object_object_get_ex(ev, fields[i].key, &v);
        json_object_object_add(o, fields[i].key, copy_value(v, fields[i].type));
    }
    return o;
}

#define COPY_FIELDS(ev, ...)                                                   \
    copy_fields(ev, (const struct field[]){__VA_ARGS__},                       \
                sizeof((const struct field[]){__VA_ARGS__}) / sizeof(struct field))

/* A string field usable as an object key: NULL when absent; valid UTF-8. */
static char *event_key(struct json_object *ev, const char *key)
{
    struct json_object *v;
    if (!json_object_object_get_ex(ev, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return utf8_lossy(json_object_get_string(v), (size_t)json_object_get_string_len(v));
}

static bool event_type_is(struct json_object *ev, const char *type)
{
    struct json_object *v;
    return json_object_object_get_ex(ev, "event", &v) && json_object_is_type(v, json_type_string) &&
           !strcmp(json_object_get_string(v), type);
}

/* Counts come from children: a hostile one must not make us overflow. */
static int64_t saturating_add(int64_t a, int64_t b)
{
    int64_t sum;
    return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
}

struct replay {
    struct json_object *steps, *namespaces, *uid_map, *gid_map, *limits_applied,
        *nproc_enforcement, *network_state, *mounts, *env_by_sbx, *denials, *failures;
    int64_t denial_total, denial_allowed, denial_unlisted;
    size_t bad_lines;
    bool truncated;
};

static void replay_events(struct run_record *rec, struct replay *r)
{
    r->steps = json_object_new_array();
    r->namespaces = json_object_new_object();
    r->uid_map = json_object_new_array();
    r->gid_map = json_object_new_array();
    r->limits_applied = json_object_new_object();
    r->network_state = json_object_new_object();
    r->mounts = json_object_new_array();
    r->env_by_sbx = json_object_new_array();
    r->denials = json_object_new_array();
    r->failures = json_object_new_array();
    if (!rec->arena)
        return;
    size_t room = rec->arena_size - offsetof(struct record_arena, data);
    size_t used = __atomic_load_n(&rec->arena->used, __ATOMIC_ACQUIRE);
    if (used > room)
        used = room;
    r->truncated = __atomic_load_n(&rec->arena->truncated, __ATOMIC_ACQUIRE);
    const char *p = rec->arena->data, *end = p + used;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        struct json_object *ev = NULL;
        if (len > 0 && len < RECORD_EVENT_MAX) {
            struct json_tokener *tok = json_tokener_new();
            ev = json_tokener_parse_ex(tok, p, (int)len);
            if (json_tokener_get_error(tok) != json_tokener_success) {
                json_object_put(ev);
                ev = NULL;
            }
            json_tokener_free(tok);
        }
        p += len + 1;
        if (!ev || !json_object_is_type(ev, json_type_object)) {
            /* a reserved slot never filled (a child died mid-append) reads
             * as NUL bytes: also counted here */
            if (len > 0)
                r->bad_lines++;
            json_object_put(ev);
            continue;
        }
        char *key = NULL;
        if (event_type_is(ev, "step")) {
            json_object_array_add(r->steps, COPY_FIELDS(ev, {"pid", F_INT}, {"t_us", F_INT},
                                                        {"step", F_TEXT}));
        } else if (event_type_is(ev, "namespace") && (key = event_key(ev, "name"))) {
            struct json_object *created = NULL;
            json_object_object_get_ex(ev, "created", &created);
            json_object_object_add(r->namespaces, key, copy_value(created, F_BOOL));
        } else if (event_type_is(ev, "id_map")) {
            key = event_key(ev, "which");
            json_object_array_add(key && !strcmp(key, "gid") ? r->gid_map : r->uid_map,
                                  COPY_FIELDS(ev, {"inside", F_INT}, {"outside", F_INT},
                                              {"count", F_INT}));
        } else if (event_type_is(ev, "limit") && (key = event_key(ev, "name"))) {
            json_object_object_add(r->limits_applied, key,
                                   COPY_FIELDS(ev, {"soft", F_INT_OR_TEXT}, {"hard", F_INT_OR_TEXT}));
        } else if (event_type_is(ev, "nproc_enforcement")) {
            json_object_put(r->nproc_enforcement);
            r->nproc_enforcement = COPY_FIELDS(ev, {"by", F_TEXT}, {"cgroup", F_TEXT},
                                               {"enforced", F_BOOL}, {"why_not", F_TEXT});
        } else if (event_type_is(ev, "network") && (key = event_key(ev, "key"))) {
            struct json_object *value = NULL;
            json_object_object_get_ex(ev, "value", &value);
            json_object_object_add(r->network_state, key, copy_value(value, F_TEXT));
        } else if (event_type_is(ev, "mount")) {
            json_object_array_add(r->mounts, COPY_FIELDS(ev, {"pid", F_INT}, {"t_us", F_INT},
                                                         {"kind", F_TEXT}, {"source", F_TEXT},
                                                         {"target", F_TEXT}, {"note", F_TEXT}));
        } else if (event_type_is(ev, "env")) {
            json_object_array_add(r->env_by_sbx, COPY_FIELDS(ev, {"pid", F_INT}, {"t_us", F_INT},
                                                             {"action", F_TEXT}, {"name", F_TEXT}));
        } else if (event_type_is(ev, "denial")) {
            /* who recorded a denial is not who was denied: no pid, t_us */
            struct json_object *row = COPY_FIELDS(ev, {"syscall", F_TEXT}, {"family", F_TEXT},
                                                  {"address", F_TEXT}, {"errno", F_TEXT},
                                                  {"count", F_INT}, {"processes", F_PROCESSES},
                                                  {"more_processes", F_INT});
            struct json_object *c;
            if (json_object_object_get_ex(row, "count", &c) && c && json_object_get_int64(c) > 0)
                r->denial_total = saturating_add(r->denial_total, json_object_get_int64(c));
            json_object_array_add(r->denials, row);
        } else if (event_type_is(ev, "failure")) {
            json_object_array_add(r->failures, COPY_FIELDS(ev, {"pid", F_INT}, {"t_us", F_INT},
                                                           {"message", F_TEXT}));
        } else {
            r->bad_lines++;
        }
        free(key);
        json_object_put(ev);
    }
}

static const char *signal_name(int sig)
{
    const char *abbrev = sigabbrev_np(sig);
    static __thread char buf[16];
    if (!abbrev)
        return NULL;
    snprintf(buf, sizeof buf, "SIG%s", abbrev);
    return buf;
}

/* The last step recorded before the first failure, or the last step. */
static struct json_object *failed_step(struct replay *r)
{
    size_t n = json_object_array_length(r->steps);
    if (n == 0)
        return NULL;
    struct json_object *last = json_object_array_get_idx(r->steps, n - 1);
    struct json_object *s;
    if (!json_object_object_get_ex(last, "step", &s))
        return NULL;
    return json_object_get(s);
}

static struct json_object *json_u64_or_unlimited(uint64_t v)
{
    return v == UINT64_MAX ? json_object_new_string("unlimited") : json_rlim(v);
}

/* What sandbox_run() says it set up, over what the events said: the
 * result is the run core's own account; events fill in where it has none
 * (a run that died in setup has no result). */
static void merge_result_setup(struct replay *r, const struct sandbox_result *res)
{
    for (int k = 0; k < NS_COUNT; k++)
        json_object_object_add(r->namespaces, ns_kind_name((enum ns_kind)k),
                               json_object_new_boolean(res->ns_created[k]));
    if (res->ns_created[NS_USER] && json_object_array_length(r->uid_map) == 0) {
        const uint32_t ids[2][2] = {{res->uid_inside, res->uid_outside},
                                    {res->gid_inside, res->gid_outside}};
        struct json_object *maps[2] = {r->uid_map, r->gid_map};
        for (int i = 0; i < 2; i++) {
            struct json_object *m = json_object_new_object();
            json_object_object_add(m, "inside", json_object_new_int64(ids[i][0]));
            json_object_object_add(m, "outside", json_object_new_int64(ids[i][1]));
            json_object_object_add(m, "count", json_object_new_int64(1));
            json_object_array_add(maps[i], m);
        }
    }
    if (!json_object_object_get_ex(r->network_state, "lo", NULL))
        json_object_object_add(r->network_state, "lo",
                               json_object_new_string(!res->ns_created[NS_NET] ? "host's"
                                                      : res->loopback_up ? "up" : "down"));
    for (int k = 0; k < LIMIT_COUNT; k++) {
        const char *name = limit_kind_name((enum limit_kind)k);
        if (!res->limits[k].set || json_object_object_get_ex(r->limits_applied, name, NULL))
            continue;
        struct json_object *l = json_object_new_object();
        json_object_object_add(l, "soft", json_u64_or_unlimited(res->limits[k].soft));
        json_object_object_add(l, "hard", json_u64_or_unlimited(res->limits[k].hard));
        json_object_object_add(r->limits_applied, name, l);
    }
}

/* The supervisor's denial ledger, row by row. Every string goes through
 * json_bytes: a comm or an AF_UNIX path read from the command's memory
 * may hold any byte. */
static void merge_ledger(struct replay *r, const struct ledger *l)
{
    size_t cursor = 0;
    struct ledger_entry e;
    uint64_t listed = 0;
    while (ledger_next(l, &cursor, &e)) {
        char fam[32];
        struct json_object *procs = json_object_new_array();
        for (size_t i = 0; i < e.npids; i++) {
            struct json_object *p = json_object_new_object();
            json_object_object_add(p, "pid", json_object_new_int64(e.pids[i].pid));
            json_object_object_add(p, "comm", json_bytes_new(e.pids[i].comm,
                                                             strnlen(e.pids[i].comm, sizeof e.pids[i].comm)));
            json_object_array_add(procs, p);
        }
        json_object_array_add(r->denials,
                              denial_entry(e.syscall,
                                           e.family >= 0 ? ledger_family_name(e.family, fam, sizeof fam)
                                                         : NULL,
                                           e.address, e.errnum, e.count, procs, e.more_pids));
        listed += e.count;
    }
    uint64_t total = ledger_total(l), allowed = ledger_allowed(l);
    r->denial_total = saturating_add(r->denial_total, total > INT64_MAX ? INT64_MAX : (int64_t)total);
    r->denial_allowed += allowed > INT64_MAX ? INT64_MAX : (int64_t)allowed;
    r->denial_unlisted += total > listed ? (int64_t)(total - listed) : 0;
}

struct json_object *record_to_json(struct run_record *rec, const struct sandbox_result *res,
                                   int exit_status)
{
    struct replay r = {0};
    replay_events(rec, &r);
    if (res)
        merge_result_setup(&r, res);
    if (res && res->ledger)
        merge_ledger(&r, res->ledger);

    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "format", json_object_new_int(1));
    json_object_object_add(o, "sbx_version", json_object_new_string(PACKAGE_VERSION));
    json_object_object_add(o, "kind", json_object_new_string("run"));
    json_object_object_add(o, "label", json_cstr_new(rec->label));
    char *start = iso8601(&rec->start_real);
    json_object_object_add(o, "start_time", json_object_new_string(start));
    free(start);
    json_object_object_add(o, "start_time_unix_ms",
                           json_object_new_int64((int64_t)rec->start_real.tv_sec * 1000 +
                                                 rec->start_real.tv_nsec / 1000000));
    long long duration = res && res->duration_us ? (long long)res->duration_us
                                                 : mono_us() - rec->start_mono_us;
    json_object_object_add(o, "duration_us", json_object_new_int64(duration));

    struct json_object *argv = NULL, *cwd = NULL;
    if (rec->command) {
        json_object_object_get_ex(rec->command, "argv", &argv);
        json_object_object_get_ex(rec->command, "cwd", &cwd);
    }
    json_object_object_add(o, "argv", json_object_get(argv));
    json_object_object_add(o, "cwd", json_object_get(cwd));

    struct json_object *prof = rec->profile;
    struct json_object *pp = json_object_new_object();
    struct json_object *v;
#define FROM_PROFILE(dst, key) \
    json_object_object_add(dst, key, prof && json_object_object_get_ex(prof, key, &v) ? json_object_get(v) : NULL)
    FROM_PROFILE(pp, "name");
    FROM_PROFILE(pp, "path");
    FROM_PROFILE(pp, "files");
    FROM_PROFILE(pp, "description");
    json_object_object_add(o, "profile", pp);

    struct json_object *ns = json_object_new_object();
    struct json_object *asked = NULL;
    if (prof && json_object_object_get_ex(prof, "namespaces", &asked))
        json_object_object_add(ns, "asked", json_object_get(asked));
    else
        json_object_object_add(ns, "asked", NULL);
    json_object_object_add(ns, "created", r.namespaces);
    json_object_object_add(o, "namespaces", ns);

    struct json_object *ids = json_object_new_object();
    FROM_PROFILE(ids, "uid");
    FROM_PROFILE(ids, "gid");
    json_object_object_add(ids, "uid_map", r.uid_map);
    json_object_object_add(ids, "gid_map", r.gid_map);
    FROM_PROFILE(ids, "hostname");
    FROM_PROFILE(ids, "nested_userns");
    json_object_object_add(o, "ids", ids);

    struct json_object *limits = json_object_new_object();
    struct json_object *lasked = NULL;
    json_object_object_add(limits, "asked", prof && json_object_object_get_ex(prof, "limits", &lasked)
                                                ? json_object_get(lasked) : NULL);
    json_object_object_add(limits, "applied", r.limits_applied);
    json_object_object_add(limits, "nproc_enforcement", r.nproc_enforcement);
    json_object_object_add(o, "limits", limits);

    struct json_object *timeout = json_object_new_object();
    FROM_PROFILE(timeout, "timeout_ms");
    json_object_object_add(timeout, "expired", json_object_new_boolean(res && res->timed_out));
    json_object_object_add(o, "timeout", timeout);

    struct json_object *net = json_object_new_object();
    struct json_object *pnet = NULL;
    if (prof && json_object_object_get_ex(prof, "network", &pnet)) {
        json_object_object_foreach(pnet, key, val)
            json_object_object_add(net, key, json_object_get(val));
    }
    json_object_object_add(net, "state", r.network_state);
    json_object_object_add(o, "network", net);

    struct json_object *fs = json_object_new_object();
    struct json_object *pfs = NULL;
    json_object_object_add(fs, "asked", prof && json_object_object_get_ex(prof, "filesystem", &pfs)
                                            ? json_object_get(pfs) : NULL);
    json_object_object_add(fs, "done", r.mounts);
    json_object_object_add(o, "mounts", fs);

    struct json_object *env = rec->environment ? json_object_get(rec->environment)
                                               : json_object_new_object();
    json_object_object_add(env, "changed_by_sbx", r.env_by_sbx);
    json_object_object_add(o, "environment", env);

    FROM_PROFILE(o, "security");
#undef FROM_PROFILE

    json_object_object_add(o, "steps", r.steps);

    /* how it ended; a die() recorded means sbx failed before the command
     * was executed, even where the run core counts its setup process as
     * "the command" (a failed chdir in it exits 125 like the command) */
    size_t nfail = json_object_array_length(r.failures);
    struct json_object *result = json_object_new_object();
    bool ran = res && res->command_ran && nfail == 0;
    int sig = res ? res->term_signal : 0;
    json_object_object_add(result, "exit_status", json_object_new_int(exit_status));
    json_object_object_add(result, "command_ran", json_object_new_boolean(ran));
    json_object_object_add(result, "exit_code",
                           ran && res && WIFEXITED(res->wait_status) && !sig
                               ? json_object_new_int(WEXITSTATUS(res->wait_status)) : NULL);
    json_object_object_add(result, "signal", sig ? json_object_new_int(sig) : NULL);
    const char *sname = sig ? signal_name(sig) : NULL;
    json_object_object_add(result, "signal_name", sname ? json_object_new_string(sname) : NULL);
    json_object_object_add(result, "timed_out", json_object_new_boolean(res && res->timed_out));
    json_object_object_add(o, "result", result);

    struct json_object *denials = json_object_new_object();
    json_object_object_add(denials, "total", json_object_new_int64(r.denial_total));
    json_object_object_add(denials, "allowed", json_object_new_int64(r.denial_allowed));
    json_object_object_add(denials, "unlisted", json_object_new_int64(r.denial_unlisted));
    json_object_object_add(denials, "denials", r.denials);
    json_object_object_add(o, "denials", denials);

    /* failure: sbx itself failed (setup), with the step it was on */
    bool setup_failed = !res || nfail > 0 || (!ran && exit_status == SBX_EXIT_FAILURE);
    if (setup_failed || nfail) {
        struct json_object *f = json_object_new_object();
        json_object_object_add(f, "step", failed_step(&r));
        struct json_object *msg = NULL;
        if (nfail)
            json_object_object_get_ex(json_object_array_get_idx(r.failures, 0), "message", &msg);
        json_object_object_add(f, "message", json_object_get(msg));
        json_object_object_add(f, "messages", json_object_get(r.failures));
        json_object_object_add(o, "failure", f);
    } else {
        json_object_object_add(o, "failure", NULL);
    }
    json_object_put(r.failures);

    const char *verdict;
    if (setup_failed)
        verdict = "setup_failed";
    else if (res->timed_out)
        verdict = "timed_out";
    else if (!ran && exit_status == 127)
        verdict = "command_not_found";
    else if (!ran && exit_status == 126)
        verdict = "command_not_executable";
    else if (!ran)
        verdict = "setup_failed";
    else if (sig)
        verdict = "killed_by_signal";
    else if (WIFEXITED(res->wait_status) && WEXITSTATUS(res->wait_status) == 0)
        verdict = r.denial_total ? "false_green_suspected" : "passed";
    else
        verdict = "failed";
    json_object_object_add(o, "verdict", json_object_new_string(verdict));

    json_object_object_add(o, "events_truncated", json_object_new_boolean(r.truncated));
    json_object_object_add(o, "events_unreadable", json_object_new_int64((int64_t)r.bad_lines));
    return o;
}

static void warn_with_errno_name(int errnum, const char *path)
{
    errno = errnum;
    warn_errno("--report: cannot write the run record to %s", path);
}

/* ---- files ----------------------------------------------------------- */

/* Writes doc (consumed) to the open file, closes it and frees the file
 * state. Returns false after a warning naming the file. */
static bool report_file_finish(struct json_object *doc)
{
    bool ok = true;
    if (file && file->out.dir_fd >= 0) {
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
        close(file->out.dir_fd);
        file->out.dir_fd = -1;
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
    current = rec;
    record_free(file->audit_open[index]);
    file->audit_open[index] = rec;
    return rec;
}

void report_audit_end_run(int index, const struct sandbox_result *res, int exit_status)
{
    if (!file || !file->audit || index < 0 || index > 1 || !file->audit_open[index])
        return;
    struct run_record *rec = file->audit_open[index];
    json_object_put(file->audit_runs[index]);
    file->audit_runs[index] = record_to_json(rec, res, exit_status);
    record_free(rec);
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
    return o;
}

bool report_audit_write(const char *verdict, int exit_status)
{
    if (!file || !file->audit)
        return true;
    return report_file_finish(audit_document(verdict, exit_status));
}
