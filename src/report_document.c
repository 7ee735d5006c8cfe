/* The run record's document (report_document.h): a pure function of what
 * was asked, what the acting modules returned and what sandbox_run()
 * returned. The keys are docs/run-record.md's; which input each comes
 * from is said there too. */
#include "config.h"

#include "report_document.h"

#include "exit.h"
#include "json_bytes.h"
#include "egress.h"
#include "fix.h"
#include "ledger.h"
#include "refusals.h"
#include "log.h"
#include "report.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

void run_events_init(struct run_events *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->steps = json_object_new_array();
    ev->uid_map = json_object_new_array();
    ev->gid_map = json_object_new_array();
    ev->limits_applied = json_object_new_object();
    ev->network_state = json_object_new_object();
    ev->mounts = json_object_new_array();
    ev->env_by_sbx = json_object_new_array();
    ev->failures = json_object_new_array();
}

void run_events_free(struct run_events *ev)
{
    json_object_put(ev->steps);
    json_object_put(ev->uid_map);
    json_object_put(ev->gid_map);
    json_object_put(ev->limits_applied);
    json_object_put(ev->nproc_enforcement);
    json_object_put(ev->network_state);
    json_object_put(ev->mounts);
    json_object_put(ev->env_by_sbx);
    json_object_put(ev->failures);
    memset(ev, 0, sizeof *ev);
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

static char *iso8601(const struct timespec *ts)
{
    struct tm tm;
    gmtime_r(&ts->tv_sec, &tm);
    char buf[64];
    size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, sizeof buf - n, ".%03ldZ", ts->tv_nsec / 1000000);
    return xstrdup(buf);
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

static int64_t clamp_i64(uint64_t v)
{
    return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The member key of o (a new reference), or NULL. */
static struct json_object *member(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    return o && json_object_object_get_ex(o, key, &v) ? json_object_get(v) : NULL;
}

/* The last step recorded before the first failure, or the last step. */
static struct json_object *failed_step(const struct run_events *ev)
{
    size_t n = json_object_array_length(ev->steps);
    if (n == 0)
        return NULL;
    return member(json_object_array_get_idx(ev->steps, n - 1), "step");
}

static struct json_object *json_names(const struct strv *names, bool secret_looking_only)
{
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; names && i < names->n; i++)
        if (!secret_looking_only || env_name_looks_secret(names->v[i]))
            json_object_array_add(a, json_bytes_new(names->v[i], strlen(names->v[i])));
    return a;
}

/* The rules as asked, and what env_build() did with the caller's
 * environment: names only, never a value. */
static struct json_object *environment(const struct run_facts *f)
{
    struct json_object *o = json_object_new_object();
    if (f->env_rules) {
        json_object_object_add(o, "clear", member(f->env_rules, "clear"));
        json_object_object_add(o, "set", member(f->env_rules, "set"));
        json_object_object_add(o, "removed", json_names(f->env ? &f->env->removed : NULL, false));
        json_object_object_add(o, "unset_rules", member(f->env_rules, "unset_rules"));
        json_object_object_add(o, "keep_rules", member(f->env_rules, "keep_rules"));
        json_object_object_add(o, "secret_looking_passed",
                               json_names(f->env ? &f->env->passed : NULL, true));
    }
    json_object_object_add(o, "changed_by_sbx", json_object_get(f->events->env_by_sbx));
    return o;
}

static struct json_object *family_or_null(int family)
{
    char fam[32];
    return family >= 0 ? json_cstr_new(ledger_family_name(family, fam, sizeof fam)) : NULL;
}

/* The keys a thread (a row's caller, or an event's) shares. */
static void add_caller(struct json_object *o, const struct ledger_caller *who)
{
    json_object_object_add(o, "tid", json_object_new_int64(who->tid));
    json_object_object_add(o, "pid", json_object_new_int64(who->tgid));
    json_object_object_add(o, "ppid", who->ppid >= 0 ? json_object_new_int64(who->ppid) : NULL);
    json_object_object_add(o, "comm", json_bytes_new(who->comm, strnlen(who->comm,
                                                                         sizeof who->comm)));
}

/* A file name the command chose: null when unknown, else any bytes. */
static struct json_object *exe_or_null(const char *exe, size_t size)
{
    return exe[0] ? json_bytes_new(exe, strnlen(exe, size)) : NULL;
}

/* One row of denials.denials, in the shape of ledger_to_json()'s rows
 * plus the threads and both families.
 * Every string goes through json_bytes: a comm or an AF_UNIX path read
 * from the command's memory may hold any byte. */
static struct json_object *denial_row(const struct ledger *l, const struct ledger_entry *e)
{
    char fam[32];
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "syscall", json_cstr_new(e->syscall));
    json_object_object_add(o, "family", e->family >= 0 ? json_cstr_new(ledger_family_name(
                                                             e->family, fam, sizeof fam))
                                                       : NULL);
    json_object_object_add(o, "address", json_cstr_new(e->address && *e->address ? e->address
                                                                                 : NULL));
    const char *en = e->errnum ? errno_name(e->errnum) : NULL;
    json_object_object_add(o, "errno", en ? json_object_new_string(en) : NULL);
    json_object_object_add(o, "count", json_object_new_int64(clamp_i64(e->count)));
    struct json_object *procs = json_object_new_array();
    for (size_t i = 0; i < e->npids; i++) {
        struct json_object *p = json_object_new_object();
        json_object_object_add(p, "pid", json_object_new_int64(e->pids[i].pid));
        json_object_object_add(p, "comm", json_bytes_new(e->pids[i].comm,
                                                         strnlen(e->pids[i].comm,
                                                                 sizeof e->pids[i].comm)));
        json_object_object_add(p, "exe", exe_or_null(e->pids[i].exe, sizeof e->pids[i].exe));
        json_object_array_add(procs, p);
    }
    json_object_object_add(o, "processes", procs);
    json_object_object_add(o, "more_processes", json_object_new_int64(clamp_i64(e->more_pids)));
    json_object_object_add(o, "id", json_object_new_int64(e->id));
    struct fix fx;
    ledger_entry_fix(l, e, &fx);
    json_object_object_add(o, "fix", fix_to_json(&fx));
    json_object_object_add(o, "socket_family", family_or_null(e->socket_family));
    json_object_object_add(o, "address_family", family_or_null(e->address_family));
    struct json_object *threads = json_object_new_array();
    for (size_t i = 0; i < e->nthreads; i++) {
        const struct ledger_thread *t = &e->threads[i];
        struct json_object *th = json_object_new_object();
        add_caller(th, &t->who);
        json_object_object_add(th, "exe", exe_or_null(t->exe, sizeof t->exe));
        json_object_object_add(th, "count", json_object_new_int64(clamp_i64(t->count)));
        json_object_object_add(th, "first_ns", json_object_new_int64(clamp_i64(t->first_ns)));
        json_object_object_add(th, "last_ns", json_object_new_int64(clamp_i64(t->last_ns)));
        json_object_array_add(threads, th);
    }
    json_object_object_add(o, "threads", threads);
    json_object_object_add(o, "threads_unlisted_count",
                           json_object_new_int64(clamp_i64(e->threads_unlisted_count)));
    return o;
}

/* Every denial kept one by one, in the order answered (ledger_events). */
static struct json_object *denial_events(const struct ledger *l)
{
    const struct ledger_event *ev;
    size_t n = ledger_events(l, &ev);
    struct json_object *events = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "ns", json_object_new_int64(clamp_i64(ev[i].ns)));
        add_caller(o, &ev[i].who);
        json_object_object_add(o, "row", ev[i].row != LEDGER_NO_ROW
                                             ? json_object_new_int64(ev[i].row) : NULL);
        json_object_array_add(events, o);
    }
    return events;
}

/* The supervisor's denial ledger (NULL: no deny rule applied), row by row. */
static struct json_object *denials(const struct ledger *l, int64_t *total_out)
{
    struct json_object *rows = json_object_new_array();
    size_t cursor = 0;
    struct ledger_entry e;
    uint64_t listed = 0;
    while (l && ledger_next(l, &cursor, &e)) {
        json_object_array_add(rows, denial_row(l, &e));
        listed += e.count;
    }
    uint64_t total = l ? ledger_total(l) : 0, allowed = l ? ledger_allowed(l) : 0;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "total", json_object_new_int64(clamp_i64(total)));
    json_object_object_add(o, "allowed", json_object_new_int64(clamp_i64(allowed)));
    json_object_object_add(o, "unlisted", json_object_new_int64(total > listed
                                                                    ? clamp_i64(total - listed)
                                                                    : 0));
    json_object_object_add(o, "denials", rows);
    json_object_object_add(o, "events", denial_events(l));
    json_object_object_add(o, "events_dropped",
                           json_object_new_int64(clamp_i64(ledger_events_dropped(l))));
    *total_out = clamp_i64(total);
    return o;
}

/* What the supervisor and init reported; lo is "up" only when the
 * supervisor brought it up (sandbox.c), else the namespace's own lo is
 * down, or there is none (a run that died in setup has no result). */
static struct json_object *network_state(const struct run_events *ev,
                                         const struct sandbox_result *res)
{
    struct json_object *o = json_object_new_object();
    json_object_object_foreach(ev->network_state, key, val)
        json_object_object_add(o, key, json_object_get(val));
    if (res && !json_object_object_get_ex(o, "lo", NULL))
        json_object_object_add(o, "lo", json_object_new_string(!res->ns_created[NS_NET] ? "host's"
                                                               : "down"));
    return o;
}

static const char *verdict_of(const struct sandbox_result *res, int exit_status, bool setup_failed,
                              bool ran, int sig, int64_t denial_total)
{
    if (setup_failed)
        return "setup_failed";
    if (res->timed_out)
        return "timed_out";
    if (!ran && exit_status == 127)
        return "command_not_found";
    if (!ran && exit_status == 126)
        return "command_not_executable";
    if (!ran)
        return "setup_failed";
    if (sig)
        return "killed_by_signal";
    if (WIFEXITED(res->wait_status) && WEXITSTATUS(res->wait_status) == 0)
        return denial_total ? "false_green_suspected" : "passed";
    return "failed";
}

struct json_object *run_document(const struct run_facts *f, const struct sandbox_result *res,
                                 int exit_status)
{
    const struct run_events *ev = f->events;
    struct json_object *prof = f->profile;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "format", json_object_new_int(1));
    json_object_object_add(o, "sbx_version", json_object_new_string(PACKAGE_VERSION));
    json_object_object_add(o, "kind", json_object_new_string("run"));
    json_object_object_add(o, "label", json_cstr_new(f->label));
    char *start = iso8601(&f->start_real);
    json_object_object_add(o, "start_time", json_object_new_string(start));
    free(start);
    json_object_object_add(o, "start_time_unix_ms",
                           json_object_new_int64((int64_t)f->start_real.tv_sec * 1000 +
                                                 f->start_real.tv_nsec / 1000000));
    long long duration = res && res->duration_us ? (long long)res->duration_us : f->elapsed_us;
    json_object_object_add(o, "duration_us", json_object_new_int64(duration));
    json_object_object_add(o, "argv", member(f->command, "argv"));
    json_object_object_add(o, "cwd", member(f->command, "cwd"));

    struct json_object *pp = json_object_new_object();
    json_object_object_add(pp, "name", member(prof, "name"));
    json_object_object_add(pp, "path", member(prof, "path"));
    json_object_object_add(pp, "files", member(prof, "files"));
    json_object_object_add(pp, "description", member(prof, "description"));
    json_object_object_add(o, "profile", pp);

    /* created: sandbox_run() returns only after clone() made every
     * namespace it asked for (ns_clone() never falls back to fewer) */
    struct json_object *ns = json_object_new_object();
    json_object_object_add(ns, "asked", member(prof, "namespaces"));
    struct json_object *created = json_object_new_object();
    for (int k = 0; res && k < NS_COUNT; k++)
        json_object_object_add(created, ns_kind_name((enum ns_kind)k),
                               json_object_new_boolean(res->ns_created[k]));
    json_object_object_add(ns, "created", created);
    json_object_object_add(o, "namespaces", ns);

    /* sbx(1) TIERS: which one ran, and why not the namespaces */
    struct json_object *tier = NULL;
    if (res) {
        bool landlock = res->tier == TIER_LANDLOCK;
        tier = json_object_new_object();
        json_object_object_add(tier, "name",
                               json_object_new_string(landlock ? "landlock" : "namespaces"));
        json_object_object_add(tier, "landlock_abi",
                               landlock ? json_object_new_int(res->landlock_abi) : NULL);
        json_object_object_add(tier, "userns_refused",
                               landlock ? json_object_new_string(res->userns_refusal) : NULL);
    }
    json_object_object_add(o, "tier", tier);

    struct json_object *ids = json_object_new_object();
    json_object_object_add(ids, "uid", member(prof, "uid"));
    json_object_object_add(ids, "gid", member(prof, "gid"));
    json_object_object_add(ids, "uid_map", json_object_get(ev->uid_map));
    json_object_object_add(ids, "gid_map", json_object_get(ev->gid_map));
    json_object_object_add(ids, "hostname", member(prof, "hostname"));
    json_object_object_add(ids, "nested_userns", member(prof, "nested_userns"));
    json_object_object_add(o, "ids", ids);

    struct json_object *limits = json_object_new_object();
    json_object_object_add(limits, "asked", member(prof, "limits"));
    json_object_object_add(limits, "applied", json_object_get(ev->limits_applied));
    json_object_object_add(limits, "nproc_enforcement", json_object_get(ev->nproc_enforcement));
    json_object_object_add(o, "limits", limits);

    struct json_object *timeout = json_object_new_object();
    json_object_object_add(timeout, "timeout_ms", member(prof, "timeout_ms"));
    json_object_object_add(timeout, "expired", json_object_new_boolean(res && res->timed_out));
    json_object_object_add(o, "timeout", timeout);

    struct json_object *net = json_object_new_object();
    struct json_object *pnet = NULL;
    if (prof && json_object_object_get_ex(prof, "network", &pnet)) {
        json_object_object_foreach(pnet, key, val)
            json_object_object_add(net, key, json_object_get(val));
    }
    json_object_object_add(net, "state", network_state(ev, res));
    json_object_object_add(o, "network", net);

    struct json_object *fs = json_object_new_object();
    json_object_object_add(fs, "asked", member(prof, "filesystem"));
    json_object_object_add(fs, "done", json_object_get(ev->mounts));
    json_object_object_add(o, "mounts", fs);

    json_object_object_add(o, "environment", environment(f));
    json_object_object_add(o, "security", member(prof, "security"));
    json_object_object_add(o, "steps", json_object_get(ev->steps));

    /* how it ended; a die() recorded means sbx failed before the command
     * was executed, even where the run core counts its setup process as
     * "the command" (a failed chdir in it exits 125 like the command) */
    size_t nfail = json_object_array_length(ev->failures);
    struct json_object *result = json_object_new_object();
    bool ran = res && res->command_ran && nfail == 0;
    int sig = res ? res->term_signal : 0;
    json_object_object_add(result, "exit_status", json_object_new_int(exit_status));
    json_object_object_add(result, "command_ran", json_object_new_boolean(ran));
    json_object_object_add(result, "exit_code",
                           ran && WIFEXITED(res->wait_status) && !sig
                               ? json_object_new_int(WEXITSTATUS(res->wait_status)) : NULL);
    json_object_object_add(result, "signal", sig ? json_object_new_int(sig) : NULL);
    const char *sname = sig ? signal_name(sig) : NULL;
    json_object_object_add(result, "signal_name", sname ? json_object_new_string(sname) : NULL);
    json_object_object_add(result, "timed_out", json_object_new_boolean(res && res->timed_out));
    json_object_object_add(o, "result", result);

    int64_t denial_total;
    json_object_object_add(o, "denials", denials(res ? res->ledger : NULL, &denial_total));
    /* [network] allow: refused destinations are denials of the run too */
    json_object_object_add(o, "egress", egress_to_json(res ? res->egress : NULL));
    json_object_object_add(o, "refusals",
                           refusals_to_json(res ? ledger_refusals(res->ledger) : NULL));
    if (res)
        denial_total += (int64_t)egress_refused(res->egress);

    /* failure: sbx itself failed (setup), with the step it was on */
    bool setup_failed = !res || nfail > 0 || (!ran && exit_status == SBX_EXIT_FAILURE);
    if (setup_failed) {
        struct json_object *fail = json_object_new_object();
        json_object_object_add(fail, "step", failed_step(ev));
        json_object_object_add(fail, "message",
                               nfail ? member(json_object_array_get_idx(ev->failures, 0), "message")
                                     : NULL);
        json_object_object_add(fail, "messages", json_object_get(ev->failures));
        json_object_object_add(o, "failure", fail);
    } else {
        json_object_object_add(o, "failure", NULL);
    }

    json_object_object_add(o, "verdict", json_object_new_string(verdict_of(
                                             res, exit_status, setup_failed, ran, sig, denial_total)));
    json_object_object_add(o, "events_truncated", json_object_new_boolean(ev->truncated));
    json_object_object_add(o, "events_unreadable", json_object_new_int64((int64_t)ev->bad_lines));
    return o;
}
