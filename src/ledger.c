#include "config.h"

#include "ledger.h"

#include "ledger_argv.h"

#include "fix.h"
#include "landlock_meta.h"
#include "landlock_net.h"
#include "log.h"
#include "net_families.h"
#include "refusals.h"
#include "seccomp.h"
#include "util.h"

#include <arpa/inet.h>
#include <json-c/json.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/kcmp.h>
#include <linux/net.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL  /* linux/pidfd.h, Linux 6.9 */
#endif

#define ADDRESS_MAX 64
#define X32_SYSCALL_BIT 0x40000000u

struct ledger_rule {
    char *syscall;
    uint64_t families;  /* 0: every family */
    int errnum;
    bool no_route;      /* deny_rule.no_route: loopback and AF_UNSPEC pass */
    bool supervisor_makes; /* deny_rule.supervisor_makes: landlock_net.h makes those */
    char *text;         /* the rule as written (NULL: made by sbx), for its fix */
};

struct ledger_row {
    const char *syscall;        /* points into a rule (lives as long as l) */
    int family;
    int socket_family, address_family;
    char address[ADDRESS_MAX];
    bool other_addresses;       /* the overflow row of its call */
    int errnum;
    uint64_t count;
    struct ledger_process pids[LEDGER_MAX_PIDS];
    size_t npids;
    uint64_t more_pids;
    struct ledger_thread threads[LEDGER_MAX_THREADS];
    size_t nthreads;
    uint64_t threads_unlisted_count;
};

struct ledger {
    struct ledger_rule *rules;
    size_t nrules;
    bool own_network;   /* no way out of the sandbox's network (fix.h) */
    struct ledger_row *rows;    /* LEDGER_MAX_ROWS + overflow rows */
    size_t nrows, caprows;
    uint64_t total;
    uint64_t allowed;
    uint64_t unlisted;          /* denials not in any row (table full) */
    struct ledger_event *events;    /* LEDGER_MAX_EVENTS, allocated once */
    size_t nevents;
    uint64_t events_dropped;
    uint64_t (*output_position)(void *);  /* ledger_set_output_position */
    void *output_position_data;
    ledger_address_namer *namer;            /* ledger_set_address_namer */
    void *namer_data;
    ledger_address_passes *passes;          /* ledger_set_address_passes */
    void *passes_data;
    ledger_connect_hook *connect_hook;      /* ledger_set_connect_hook */
    void *connect_hook_data;
    struct seccomp_notif *req;
    struct seccomp_notif_resp *resp;
    size_t req_size;

    /* The thread that answers notifications (ledger_start). `lock`
     * guards the counters and rows it writes; once `stopped` is set it
     * records nothing more, so the run core reads them without the lock. */
    pthread_mutex_t lock;
    pthread_cond_t thread_exited_cond;
    pthread_t thread;
    bool thread_running;    /* started and not joined */
    bool thread_exited;     /* under lock */
    bool stopped;           /* under lock */
    bool abandoned;         /* the thread was left in a call on the command */
    int notify_fd;          /* owned by the thread while it runs */
    int stop_fd;            /* eventfd: ledger_stop() wakes the thread */
    /* SBX_TEST_NO_PIDFD_THREAD: behave as on a kernel before 6.9, so the
     * tests reach the fail-closed path. It only ever denies more. */
    bool test_no_pidfd_thread;
    /* The Landlock tier: what its metadata calls may change, and the
     * thread's effective capabilities dropped (ledger.h) */
    struct strv landlock_writable;
    bool drop_caps;
    /* The write observer's notifications (refusals.h); NULL: none */
    struct refusals *refusals;
    /* Parents of recent callers (read_caller): their pid here, a pidfd
     * that tells whether they are still alive, their pid as the command
     * sees it. Only the ledger's thread touches it. */
    struct parent_entry {
        pid_t host_pid;
        int pidfd;          /* -1: empty */
        pid_t inner_pid;
        int depth;
        uint16_t argv;      /* its command line (argvs), read with its status */
    } parents[8];
    /* ledger_set_record_argv(): the callers' command lines; NULL: off */
    struct argv_table *argvs;
    size_t next_parent;     /* round-robin replacement */
};

struct ledger *ledger_new(const struct profile *p)
{
    struct ledger *l = xcalloc(1, sizeof *l);
    l->nrules = p->ndeny;
    l->rules = xcalloc(p->ndeny ? p->ndeny : 1, sizeof *l->rules);
    for (size_t i = 0; i < p->ndeny; i++) {
        l->rules[i].syscall = xstrdup(p->deny[i].syscall);
        l->rules[i].families = p->deny[i].families;
        l->rules[i].errnum = p->deny[i].errnum;
        l->rules[i].no_route = p->deny[i].no_route;
        l->rules[i].supervisor_makes = p->deny[i].supervisor_makes;
        /* sbx's own rules (no route, the Landlock tier's) have no
         * `-deny =` that would lift them: no fix is offered for them */
        l->rules[i].text = p->deny[i].text && !p->deny[i].no_route && !p->deny[i].supervisor_makes
                               ? xstrdup(p->deny[i].text)
                               : NULL;
    }
    l->own_network = p->net_mode != NET_HOST && !p->outbound;
    l->caprows = LEDGER_MAX_ROWS + LEDGER_MAX_OVERFLOW_ROWS;
    l->rows = xcalloc(l->caprows, sizeof *l->rows);
    l->events = xcalloc(LEDGER_MAX_EVENTS, sizeof *l->events);
    int rc = seccomp_notify_alloc(&l->req, &l->resp);
    if (rc < 0)
        die_with_errno(-rc, "seccomp: cannot size user notifications (SECCOMP_GET_NOTIF_SIZES)");
    pthread_mutex_init(&l->lock, NULL);
    /* ledger_stop() waits on it for a while: a wall clock set meanwhile
     * must not shorten or stretch that wait. */
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&l->thread_exited_cond, &monotonic);
    pthread_condattr_destroy(&monotonic);
    l->notify_fd = -1;
    l->stop_fd = -1;
    for (size_t i = 0; i < sizeof l->parents / sizeof l->parents[0]; i++)
        l->parents[i].pidfd = -1;
    l->test_no_pidfd_thread = getenv("SBX_TEST_NO_PIDFD_THREAD") != NULL;
    return l;
}

void ledger_free(struct ledger *l)
{
    if (!l)
        return;
    ledger_stop(l);
    /* A thread left in a call on the command (see ledger_stop) may still
     * touch l when that call returns: l stays allocated until exit. */
    if (l->abandoned)
        return;
    pthread_mutex_destroy(&l->lock);
    pthread_cond_destroy(&l->thread_exited_cond);
    for (size_t i = 0; i < sizeof l->parents / sizeof l->parents[0]; i++)
        if (l->parents[i].pidfd >= 0)
            close(l->parents[i].pidfd);
    for (size_t i = 0; i < l->nrules; i++) {
        free(l->rules[i].syscall);
        free(l->rules[i].text);
    }
    free(l->rules);
    strv_free(&l->landlock_writable);
    refusals_free(l->refusals);
    free(l->rows);
    free(l->events);
    argv_table_free(l->argvs);
    seccomp_notify_free(l->req, l->resp);
    free(l);
}

size_t ledger_memory_bytes(const struct ledger *l)
{
    size_t n = sizeof *l + l->caprows * sizeof *l->rows + l->nrules * sizeof *l->rules +
               LEDGER_MAX_EVENTS * sizeof *l->events + argv_table_memory(l->argvs);
    for (size_t i = 0; i < l->nrules; i++)
        n += strlen(l->rules[i].syscall) + 1;
    return n;
}

uint64_t ledger_total(const struct ledger *l) { return l ? l->total : 0; }
uint64_t ledger_allowed(const struct ledger *l) { return l ? l->allowed : 0; }
uint64_t ledger_unlisted(const struct ledger *l) { return l ? l->unlisted : 0; }
uint64_t ledger_events_dropped(const struct ledger *l) { return l ? l->events_dropped : 0; }

size_t ledger_events(const struct ledger *l, const struct ledger_event **events)
{
    *events = l ? l->events : NULL;
    return l ? l->nevents : 0;
}

/* Interns a call name so rows never own strings: rule names, or a fixed
 * name for calls recorded by tests without a matching rule. */
static const char *intern_syscall(struct ledger *l, const char *name)
{
    for (size_t i = 0; i < l->nrules; i++)
        if (strcmp(l->rules[i].syscall, name) == 0)
            return l->rules[i].syscall;
    /* A name with no rule (only ledger_record() from tests can do this):
     * keep it as a rule that matches nothing. */
    l->rules = xrealloc(l->rules, (l->nrules + 1) * sizeof *l->rules);
    l->rules[l->nrules] = (struct ledger_rule){ .syscall = xstrdup(name), .families = 0, .errnum = -1 };
    return l->rules[l->nrules++].syscall;
}

static void row_add_process(struct ledger_row *row, pid_t pid, const char *comm, const char *exe)
{
    for (size_t i = 0; i < row->npids; i++)
        if (row->pids[i].pid == pid)
            return;
    if (row->npids < LEDGER_MAX_PIDS) {
        struct ledger_process *pr = &row->pids[row->npids++];
        pr->pid = pid;
        snprintf(pr->comm, sizeof pr->comm, "%s", comm ? comm : "?");
        snprintf(pr->exe, sizeof pr->exe, "%s", exe ? exe : "");
    } else {
        /* Counted, not named: the first processes identify the culprit. */
        row->more_pids++;
    }
}

/* Threads are told apart by (tgid, tid, comm): libtest names each test's
 * thread after the test, and a pool thread that a runner renames for its
 * next test is a new caller. */
static void row_add_thread(struct ledger_row *row, const struct ledger_caller *who, const char *exe,
                           uint64_t ns)
{
    for (size_t i = 0; i < row->nthreads; i++) {
        struct ledger_thread *t = &row->threads[i];
        if (t->who.tid == who->tid && t->who.tgid == who->tgid &&
            strncmp(t->who.comm, who->comm, sizeof t->who.comm) == 0) {
            t->count++;
            t->last_ns = ns;
            return;
        }
    }
    if (row->nthreads == LEDGER_MAX_THREADS) {
        row->threads_unlisted_count++;  /* the events still have them */
        return;
    }
    struct ledger_thread *t = &row->threads[row->nthreads++];
    *t = (struct ledger_thread){ .who = *who, .count = 1, .first_ns = ns, .last_ns = ns };
    t->who.comm[sizeof t->who.comm - 1] = '\0';
    snprintf(t->exe, sizeof t->exe, "%s", exe);
}

static void add_event(struct ledger *l, const struct ledger_denial *d, uint32_t row)
{
    if (l->nevents == LEDGER_MAX_EVENTS) {
        l->events_dropped++;
        return;
    }
    struct ledger_event *ev = &l->events[l->nevents++];
    *ev = (struct ledger_event){ .ns = d->ns, .who = d->who, .row = row, .output_pos = d->output_pos };
    ev->who.comm[sizeof ev->who.comm - 1] = '\0';
}

void ledger_record(struct ledger *l, const char *syscall, int family,
                   const char *address, int errnum, pid_t pid, const char *comm)
{
    struct ledger_denial d = {
        .syscall = syscall, .family = family, .socket_family = family,
        .address_family = address && *address ? family : -1,
        .address = address, .errnum = errnum,
        .who = { .tid = pid, .tgid = pid, .ppid = -1 }, .output_pos = LEDGER_NO_POS,
    };
    snprintf(d.who.comm, sizeof d.who.comm, "%s", comm ? comm : "?");
    ledger_record_call(l, &d);
}

void ledger_record_call(struct ledger *l, const struct ledger_denial *d)
{
    const char *name = intern_syscall(l, d->syscall);
    int family = d->family, errnum = d->errnum;
    int address_family = d->address_family;
    char addr[ADDRESS_MAX];
    snprintf(addr, sizeof addr, "%s", d->address ? d->address : "");
    l->total++;

    struct ledger_row *row = NULL;
    for (size_t i = 0; i < l->nrows && !row; i++) {
        struct ledger_row *r = &l->rows[i];
        if (r->syscall == name && r->family == family && r->errnum == errnum &&
            r->socket_family == d->socket_family && r->address_family == address_family &&
            (r->other_addresses || strcmp(r->address, addr) == 0))
            row = r;
    }
    if (!row) {
        size_t detailed = 0;
        for (size_t i = 0; i < l->nrows; i++)
            detailed += !l->rows[i].other_addresses;
        bool overflow = detailed >= LEDGER_MAX_ROWS;
        if (l->nrows == l->caprows) {
            l->unlisted++;
            add_event(l, d, LEDGER_NO_ROW);
            return;
        }
        row = &l->rows[l->nrows++];
        *row = (struct ledger_row){ .syscall = name, .family = family, .errnum = errnum,
                                    .socket_family = d->socket_family,
                                    .address_family = address_family,
                                    .other_addresses = overflow };
        snprintf(row->address, sizeof row->address, "%s", overflow ? "other addresses" : addr);
    }
    row->count++;
    row_add_process(row, d->who.tgid, d->who.comm, d->exe);
    row_add_thread(row, &d->who, d->exe, d->ns);
    add_event(l, d, (uint32_t)(row - l->rows));
}

static int compare_rows(const void *a, const void *b)
{
    const struct ledger_row *x = *(const struct ledger_row *const *)a;
    const struct ledger_row *y = *(const struct ledger_row *const *)b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x < y ? -1 : x > y;  /* stable: first seen first */
}

bool ledger_next(const struct ledger *l, size_t *cursor, struct ledger_entry *out)
{
    if (!l || *cursor >= l->nrows)
        return false;
    /* Rows are few (bounded): sorting on each step keeps the ledger free
     * of a second index and the iterator free of allocations that leak. */
    const struct ledger_row *order[LEDGER_MAX_ROWS + LEDGER_MAX_OVERFLOW_ROWS];
    for (size_t i = 0; i < l->nrows; i++)
        order[i] = &l->rows[i];
    qsort(order, l->nrows, sizeof order[0], compare_rows);
    const struct ledger_row *r = order[(*cursor)++];
    *out = (struct ledger_entry){
        .id = (uint32_t)(r - l->rows),
        .syscall = r->syscall, .family = r->family, .address = r->address,
        .socket_family = r->socket_family,
        .address_family = r->address_family,
        .errnum = r->errnum, .count = r->count, .pids = r->pids,
        .npids = r->npids, .more_pids = r->more_pids,
        .threads = r->threads, .nthreads = r->nthreads,
        .threads_unlisted_count = r->threads_unlisted_count,
    };
    return true;
}

const char *ledger_family_name(int family, char *buf, size_t len)
{
    return net_family_name(family, buf, len);
}

static size_t append(char *buf, size_t len, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t append(char *buf, size_t len, size_t at, const char *fmt, ...)
{
    if (at >= len)
        return at;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + at, len - at, fmt, ap);
    va_end(ap);
    if (n < 0)
        return at;
    return at + (size_t)n >= len ? len - 1 : at + (size_t)n;
}

void ledger_printable_comm(const char *comm, char out[16])
{
    size_t j = 0;
    for (size_t i = 0; i < 15 && comm[i]; i++)
        out[j++] = (comm[i] >= 0x20 && comm[i] < 0x7f) ? comm[i] : '?';
    out[j] = '\0';
}

void ledger_whole_name(const char *comm, const char *exe, char out[64])
{
    /* comm is exe cut when it is 15 bytes long and exe starts with it
     * (prctl(PR_SET_NAME) and pthread_setname_np cut the same way) */
    size_t n = strnlen(comm, 15);
    const char *name = exe[0] && (!n || (n == 15 && strncmp(exe, comm, 15) == 0)) ? exe : comm;
    size_t j = 0;
    for (size_t i = 0; i < 63 && name[i]; i++)
        out[j++] = (name[i] >= 0x20 && name[i] < 0x7f) ? name[i] : '?';
    out[j] = '\0';
}

/* The bracket names each process by the first thread name it showed; the
 * threads are worth printing when they are more than that: a thread other
 * than a process's first, another name, or callers that did not fit. */
static bool threads_say_more(const struct ledger_entry *e)
{
    if (e->threads_unlisted_count)
        return true;
    for (size_t i = 0; i < e->nthreads; i++) {
        const struct ledger_caller *t = &e->threads[i].who;
        if (t->tid != t->tgid)
            return true;
        const struct ledger_process *p = NULL;
        for (size_t k = 0; k < e->npids && !p; k++)
            if (e->pids[k].pid == t->tgid)
                p = &e->pids[k];
        if (!p || strncmp(p->comm, t->comm, sizeof p->comm) != 0)
            return true;
    }
    return false;
}

const char *(*ledger_thread_test_hook)(const struct ledger_caller *who);

void ledger_format_entry(const struct ledger_entry *e, char *buf, size_t len)
{
    char famb[16], famb2[16], name[64], exe[64];
    size_t at = 0;
    buf[0] = '\0';
    at = append(buf, len, at, "%s(", e->syscall);
    bool address_printed = e->address && e->address[0];
    if (e->socket_family >= 0 && e->address_family >= 0 && e->socket_family != e->address_family) {
        /* What the kernel was given, not one family for both: an AF_INET6
         * socket handed an AF_INET sockaddr (UDP connects it as IPv4;
         * TCP refuses it) is not an IPv6 connect to 127.0.0.1. */
        at = append(buf, len, at, "%s socket, %s address",
                    ledger_family_name(e->socket_family, famb, sizeof famb),
                    ledger_family_name(e->address_family, famb2, sizeof famb2));
        if (address_printed)
            at = append(buf, len, at, " %s", e->address);
    } else {
        if (e->family >= 0)
            at = append(buf, len, at, "%s", ledger_family_name(e->family, famb, sizeof famb));
        else if (seccomp_syscall_has_family(e->syscall))
            at = append(buf, len, at, "?");  /* a socket call whose family could not be read */
        if (address_printed)
            at = append(buf, len, at, "%s%s", e->family >= 0 ? " " : "", e->address);
    }
    const char *ename = errno_name(e->errnum);
    at = append(buf, len, at, ") x%llu -> ", (unsigned long long)e->count);
    if (ename)
        at = append(buf, len, at, "%s", ename);
    else
        at = append(buf, len, at, "errno %d", e->errnum);
    if (e->npids) {
        at = append(buf, len, at, " [");
        for (size_t i = 0; i < e->npids; i++) {
            ledger_whole_name(e->pids[i].comm, e->pids[i].exe, name);
            at = append(buf, len, at, "%spid %d \"%s\"", i ? ", " : "",
                        (int)e->pids[i].pid, name);
        }
        if (e->more_pids)
            at = append(buf, len, at, " and %llu more", (unsigned long long)e->more_pids);
        at = append(buf, len, at, "]");
    }
    if (e->nthreads && threads_say_more(e)) {
        size_t shown = e->nthreads < LEDGER_SUMMARY_THREADS ? e->nthreads : LEDGER_SUMMARY_THREADS;
        at = append(buf, len, at, " by ");
        for (size_t i = 0; i < shown; i++) {
            const struct ledger_caller *who = &e->threads[i].who;
            ledger_whole_name(who->comm, e->threads[i].exe, name);
            /* a thread whose name the kernel may have cut (15 bytes) and
             * is not its program's: which program */
            ledger_whole_name("", e->threads[i].exe, exe);
            bool of = who->tid != who->tgid && exe[0] && strcmp(exe, name) != 0 &&
                      strnlen(who->comm, sizeof who->comm) == 15;
            const char *test = ledger_thread_test_hook ? ledger_thread_test_hook(who) : NULL;
            at = append(buf, len, at, "%s%s (tid %d%s%s%s%s%s)", i ? ", " : "", name,
                        (int)who->tid, of ? " of " : "", of ? exe : "",
                        test ? ", test \"" : "", test ? test : "", test ? "\"" : "");
        }
        /* Callers that did not fit the row are at least one more. */
        size_t more = e->nthreads - shown + (e->threads_unlisted_count ? 1 : 0);
        if (more)
            at = append(buf, len, at, " and %zu%s more", more,
                        e->threads_unlisted_count ? "+" : "");
    }
}

struct json_object *ledger_to_json(const struct ledger *l)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "total", json_object_new_int64((int64_t)ledger_total(l)));
    json_object_object_add(o, "allowed", json_object_new_int64((int64_t)ledger_allowed(l)));
    json_object_object_add(o, "unlisted", json_object_new_int64(l ? (int64_t)l->unlisted : 0));
    struct json_object *rows = json_object_new_array();
    size_t cursor = 0;
    struct ledger_entry e;
    while (ledger_next(l, &cursor, &e)) {
        struct json_object *row = json_object_new_object();
        char famb[16];
        json_object_object_add(row, "syscall", json_object_new_string(e.syscall));
        json_object_object_add(row, "family", e.family >= 0
            ? json_object_new_string(ledger_family_name(e.family, famb, sizeof famb)) : NULL);
        json_object_object_add(row, "address", e.address[0] ? json_object_new_string(e.address) : NULL);
        const char *ename = errno_name(e.errnum);
        json_object_object_add(row, "errno", ename ? json_object_new_string(ename)
                                                   : json_object_new_int(e.errnum));
        json_object_object_add(row, "count", json_object_new_int64((int64_t)e.count));
        struct json_object *procs = json_object_new_array();
        for (size_t i = 0; i < e.npids; i++) {
            struct json_object *pr = json_object_new_object();
            json_object_object_add(pr, "pid", json_object_new_int(e.pids[i].pid));
            json_object_object_add(pr, "comm", json_object_new_string(e.pids[i].comm));
            json_object_array_add(procs, pr);
        }
        json_object_object_add(row, "processes", procs);
        json_object_object_add(row, "more_processes", json_object_new_int64((int64_t)e.more_pids));
        json_object_array_add(rows, row);
    }
    json_object_object_add(o, "denials", rows);
    return o;
}

/* Rows printed at exit; the rest are summed up in one line (the run record
 * has them all). */
#define SUMMARY_ROWS 10
#define SUMMARY_FIXES SUMMARY_ROWS

/* The fix of a row (fix.h): the rule that refused it is the first whose
 * call, errno and families match the row, as match_rule() chose it. */
void ledger_entry_fix(const struct ledger *l, const struct ledger_entry *e, struct fix *f)
{
    const struct ledger_rule *rule = NULL;
    for (size_t i = 0; l && i < l->nrules && !rule; i++) {
        const struct ledger_rule *r = &l->rules[i];
        if (strcmp(r->syscall, e->syscall) || r->errnum != e->errnum)
            continue;
        if (r->families && !(e->family >= 0 && e->family < 64 && (r->families >> e->family) & 1))
            continue;
        rule = r;
    }
    char name[256];
    bool named = rule && rule->no_route && l->namer &&
                 l->namer(l->namer_data, e->address, name, sizeof name);
    fix_for_denial(e->syscall, e->family, e->address, rule ? rule->text : NULL,
                   rule && rule->no_route, named ? name : NULL, l && l->own_network, f);
}

/* One line per distinct fix of the rows printed, after them. */
static void print_fixes(const struct ledger *l, FILE *out)
{
    char seen[SUMMARY_FIXES][sizeof ((struct fix *)0)->line];
    size_t nseen = 0, cursor = 0, rows = 0;
    struct ledger_entry e;
    while (ledger_next(l, &cursor, &e) && rows++ < SUMMARY_ROWS) {
        struct fix f;
        ledger_entry_fix(l, &e, &f);
        if (!f.section)
            continue;
        bool dup = false;
        for (size_t i = 0; i < nseen && !dup; i++)
            dup = !strcmp(seen[i], f.line);
        if (dup || nseen == SUMMARY_FIXES)
            continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", f.line);
        char line[700];
        fix_format(&f, line, sizeof line);
        fprintf(out, "%sfix: %s\n", log_prefix, line);
    }
}


/* A row of [network] allow's rule: why the tool met no route. */
static void append_no_route(const struct ledger *l, const struct ledger_entry *e, char *line,
                            size_t len)
{
    bool ours = false;
    for (size_t i = 0; i < l->nrules && !ours; i++)
        ours = l->rules[i].no_route && l->rules[i].syscall == e->syscall;
    if (!ours)
        return;
    size_t al = strlen(e->address);
    const char *var = al > 4 && !strcmp(e->address + al - 4, ":443") ? "HTTPS_PROXY"
                      : al > 3 && !strcmp(e->address + al - 3, ":80") ? "HTTP_PROXY"
                      : "the proxy variables (ALL_PROXY, HTTPS_PROXY)";
    size_t used = strlen(line);
    snprintf(line + used, len - used, ": no route: this tool ignores %s", var);
    char name[256];
    if (l->namer && l->namer(l->namer_data, e->address, name, sizeof name)) {
        used = strlen(line);
        snprintf(line + used, len - used, " (the DNS stub gave this address for %s: reach it "
                 "through the proxy)", name);
    }
}

void ledger_print_summary(const struct ledger *l, FILE *out, int exit_status)
{
    if (!l || l->total == 0)
        return;
    size_t cursor = 0;
    struct ledger_entry e;
    char line[1024];
    uint64_t shown = 0;
    size_t rows = 0;
    while (ledger_next(l, &cursor, &e)) {
        ledger_format_entry(&e, line, sizeof line);
        append_no_route(l, &e, line, sizeof line);
        if (rows == 0)
            fprintf(out, "%s%llu operation%s denied: %s\n", log_prefix, (unsigned long long)l->total,
                    l->total == 1 ? "" : "s", line);
        else if (rows < SUMMARY_ROWS)
            fprintf(out, "%s  %s\n", log_prefix, line);
        else
            break;
        shown += e.count;
        rows++;
    }
    if (shown < l->total)
        fprintf(out, "%s  and %llu more denied operation%s (see --report)\n", log_prefix,
                (unsigned long long)(l->total - shown), l->total - shown == 1 ? "" : "s");
    print_fixes(l, out);
    if (exit_status == 0)
        fprintf(out, "%sthe command exited 0 after denials: "
                     "this green does not prove network code works\n", log_prefix);
    fflush(out);
}

/* ---- Reading the caller ------------------------------------------------ */

bool ledger_read_target(pid_t pid, uint64_t addr, void *buf, size_t len)
{
    if (addr == 0 || len == 0)
        return false;
    struct iovec local = { .iov_base = buf, .iov_len = len };
    struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
    /* process_vm_readv neither stops the target nor opens a file; a bad
     * pointer gives EFAULT, not a signal in either process. */
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    return n == (ssize_t)len;
}

/* The domain of the caller's socket fd: from the socket itself (its domain
 * is fixed at creation), so a sendmsg without an address or a listen() is
 * judged as well as a bind().
 *
 * The fd table is the calling thread's: a thread that ran
 * unshare(CLONE_FILES) has its own, and the same number there can be an
 * AF_INET socket where its thread-group leader has an AF_UNIX one.
 * pidfd_open(tid, PIDFD_THREAD) (Linux 6.9) names the thread, and
 * pidfd_getfd() then reads that thread's table (checked on 6.18; a kernel
 * that resolved a thread's pidfd to its thread group would find no task
 * for a non-leader, ESRCH, and the call would be denied). Older kernels
 * refuse the flag (EINVAL) and only the leader's table can be read. For a
 * thread other than the leader, kcmp(KCMP_FILE) must show that what was
 * duplicated is the very file the thread has at that number, or the
 * family stays unknown (and the call is denied); only with PIDFD_THREAD
 * is a kernel without kcmp (CONFIG_KCMP off, ENOSYS) trusted.
 *
 * The duplicate is returned in *dup_fd for the caller to close *after*
 * answering: if the command closed its own copy meanwhile, ours is the
 * last reference, and closing a TCP socket with SO_LINGER whose peer
 * advertises a zero window waits for the linger time (inet_release skips
 * that wait only for an exiting task, PF_EXITING). */
int ledger_target_fd(pid_t tid, pid_t tgid, uint64_t fd_arg, bool old_kernel)
{
    int fd = (int)(uint32_t)fd_arg;
    if (fd < 0)
        return -1;
    bool thread_pidfd = !old_kernel;
    int pidfd = old_kernel ? -1 : (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
    if (old_kernel || (pidfd < 0 && errno == EINVAL)) {
        thread_pidfd = false;
        pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
    }
    if (pidfd < 0)
        return -1;
    int dup = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    close(pidfd);  /* a pidfd's release never waits */
    if (dup < 0)
        return -1;
    if (tid != tgid) {
        long same = syscall(SYS_kcmp, (pid_t)getpid(), tid, KCMP_FILE,
                            (unsigned long)dup, (unsigned long)fd);
        if (same != 0 && !(same < 0 && errno == ENOSYS && thread_pidfd)) {
            close(dup);  /* not the thread's file, or nothing can tell */
            return -1;
        }
    }
    return dup;
}

static int target_socket_family(pid_t tid, pid_t tgid, uint64_t fd_arg, bool old_kernel,
                                int *dup_fd)
{
    int sock = *dup_fd = ledger_target_fd(tid, tgid, fd_arg, old_kernel);
    if (sock < 0)
        return -1;
    int domain = -1;
    socklen_t len = sizeof domain;
    if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
        domain = -1;
    return domain;
}

static void sanitize_into(char *dst, size_t dlen, const char *src, size_t slen)
{
    size_t j = 0;
    for (size_t i = 0; i < slen && src[i] && j + 1 < dlen; i++)
        dst[j++] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
    dst[j] = '\0';
}

int ledger_format_sockaddr(const void *rawp, size_t len, char *out, size_t outlen)
{
    const unsigned char *raw = rawp;
    if (outlen == 0)
        return -1;
    out[0] = '\0';
    sa_family_t family;
    if (len < sizeof family)
        return -1;
    memcpy(&family, raw, sizeof family);
    if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        struct sockaddr_in sin;
        memcpy(&sin, raw, sizeof sin);
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &sin.sin_addr, ip, sizeof ip);
        snprintf(out, outlen, "%s:%u", ip, ntohs(sin.sin_port));
    } else if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 sin6;
        memcpy(&sin6, raw, sizeof sin6);
        char ip[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, &sin6.sin6_addr, ip, sizeof ip);
        snprintf(out, outlen, "[%s]:%u", ip, ntohs(sin6.sin6_port));
    } else if (family == AF_UNIX) {
        size_t off = offsetof(struct sockaddr_un, sun_path);
        if (len <= off) {
            snprintf(out, outlen, "unnamed");
        } else if (raw[off] == '\0') {
            char name[48];
            sanitize_into(name, sizeof name, (const char *)raw + off + 1,
                          len - off - 1 < sizeof name - 1 ? len - off - 1 : sizeof name - 1);
            snprintf(out, outlen, "@%s", name);
        } else {
            char path[ADDRESS_MAX - 4];
            sanitize_into(path, sizeof path, (const char *)raw + off, len - off);
            snprintf(out, outlen, "%s", path);
        }
    }
    return family;
}

/* What was read, kept where a call is made from it (landlock_net.h):
 * read once, never again. */
struct raw_address {
    unsigned char bytes[sizeof(struct sockaddr_storage)];
    size_t len;
    bool whole;        /* the length asked for fitted, and was read */
};

static int read_sockaddr_raw(pid_t pid, uint64_t addr, uint64_t len, char *out, size_t outlen,
                             struct raw_address *raw)
{
    struct raw_address scratch;
    if (!raw)
        raw = &scratch;
    size_t n = len > sizeof raw->bytes ? sizeof raw->bytes : (size_t)len;
    raw->len = 0;
    raw->whole = false;
    if (!ledger_read_target(pid, addr, raw->bytes, n)) {
        out[0] = '\0';
        return -1;
    }
    raw->len = n;
    raw->whole = n == len;
    return ledger_format_sockaddr(raw->bytes, n, out, outlen);
}

static int read_sockaddr(pid_t pid, uint64_t addr, uint64_t len, char *out, size_t outlen)
{
    return read_sockaddr_raw(pid, addr, len, out, outlen, NULL);
}

/* msg_name of a struct msghdr (or the i386 layout, two 32-bit words). */
static int read_msghdr_name(pid_t pid, uint64_t msg, bool compat, char *out, size_t outlen)
{
    uint64_t name = 0, namelen = 0;
    if (compat) {
        uint32_t words[2];
        if (!ledger_read_target(pid, msg, words, sizeof words))
            return -1;
        name = words[0];
        namelen = words[1];
    } else {
        struct msghdr m;
        if (!ledger_read_target(pid, msg, &m, sizeof m))
            return -1;
        name = (uint64_t)(uintptr_t)m.msg_name;
        namelen = m.msg_namelen;
    }
    if (!name)
        return -1;
    return read_sockaddr(pid, name, namelen, out, outlen);
}

/* The last field of a status line of ids ("NSpid:\t812\t3"): the id in
 * the innermost PID namespace; *fields says how deep that is. */
static pid_t innermost_id(const char *values, int *fields)
{
    int n = 0;
    pid_t last = -1;
    for (const char *p = values; *p;) {
        while (*p == '\t' || *p == ' ')
            p++;
        if (!*p)
            break;
        last = (pid_t)atoi(p);
        n++;
        while (*p && *p != '\t' && *p != ' ')
            p++;
    }
    *fields = n;
    return last;
}

struct proc_status {
    pid_t tgid, ppid;            /* in our PID namespace */
    pid_t inner_tid, inner_tgid; /* in the task's innermost one */
    int depth;                   /* PID namespaces the task is in */
};

static bool read_status(pid_t pid, struct proc_status *st)
{
    *st = (struct proc_status){ .tgid = pid, .ppid = -1, .inner_tid = pid, .inner_tgid = pid };
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    char *text = read_file_text(path, 8192, NULL);
    if (!text)
        return false;
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        int fields;
        if (strncmp(line, "Tgid:\t", 6) == 0)
            st->tgid = (pid_t)atoi(line + 6);
        else if (strncmp(line, "PPid:\t", 6) == 0)
            st->ppid = (pid_t)atoi(line + 6);
        else if (strncmp(line, "NSpid:", 6) == 0)
            st->inner_tid = innermost_id(line + 6, &fields);
        else if (strncmp(line, "NStgid:", 7) == 0)
            st->inner_tgid = innermost_id(line + 7, &st->depth);
        line = next;
    }
    free(text);
    return true;
}

/* /proc/TID/comm: the raw name (status escapes it), then '\n'. */
static void read_comm(pid_t tid, char *comm, size_t commlen)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)tid);
    size_t n = 0;
    char *text = read_file_text(path, 64, &n);
    if (!text)
        return;
    if (n && text[n - 1] == '\n')
        n--;
    if (n > commlen - 1)
        n = commlen - 1;
    memcpy(comm, text, n);
    comm[n] = '\0';
    free(text);
}

/* The file name of /proc/TID/exe: what comm cuts. A deleted executable
 * reads "NAME (deleted)"; any bytes (the command names its files), made
 * printable where printed. Unreadable (a kernel thread, no ptrace access):
 * "" and the ledger names the thread by comm alone. */
static void read_exe(pid_t tid, char *exe, size_t len)
{
    char path[64], target[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)tid);
    ssize_t n = readlink(path, target, sizeof target - 1);
    exe[0] = '\0';
    if (n <= 0)
        return;
    target[n] = '\0';
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    size_t k = strnlen(base, len - 1);
    memcpy(exe, base, k);
    exe[k] = '\0';
}

static bool pidfd_alive(int pidfd)
{
    /* a pidfd polls readable once its process has exited */
    struct pollfd p = { .fd = pidfd, .events = POLLIN };
    return poll(&p, 1, 0) == 0;
}

/* /proc/PID/cmdline, interned: 0 when unreadable or empty (a zombie, a
 * kernel thread) or when not asked for. */
static uint16_t read_argv(struct ledger *l, pid_t pid)
{
    if (!l->argvs)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    size_t n = 0;
    char *text = read_file_text(path, LEDGER_ARGV_MAX + 1, &n);
    if (!text)
        return 0;
    uint16_t idx = argv_table_intern(l->argvs, text, n);
    free(text);
    return idx;
}

void ledger_set_record_argv(struct ledger *l)
{
    if (!l->argvs)
        l->argvs = argv_table_new();
}

const char *ledger_argv(const struct ledger *l, uint16_t idx, size_t *len)
{
    return l ? argv_table_get(l->argvs, idx, len) : NULL;
}

/* The pid, as seen in its own innermost namespace, of the process that
 * has pid host_pid here, and how deep that namespace is; false when that
 * cannot be told for sure. *cached: it was known and alive. A pidfd that is still alive after the status
 * was read proves the status was that process's (a pid is not reused
 * before its process has exited), and keeps proving it for later calls:
 * the entry serves until the process exits. */
static bool parent_ids(struct ledger *l, pid_t host_pid, pid_t *inner, int *depth, uint16_t *argv,
                       bool *cached)
{
    const size_t n = sizeof l->parents / sizeof l->parents[0];
    *cached = false;
    for (size_t i = 0; i < n; i++) {
        struct parent_entry *p = &l->parents[i];
        if (p->pidfd < 0 || p->host_pid != host_pid)
            continue;
        if (pidfd_alive(p->pidfd)) {
            *inner = p->inner_pid;
            *depth = p->depth;
            *argv = p->argv;
            *cached = true;
            return true;
        }
        close(p->pidfd);  /* a pidfd's release never waits */
        p->pidfd = -1;
    }
    int pidfd = (int)syscall(SYS_pidfd_open, host_pid, 0);
    if (pidfd < 0)
        return false;
    struct proc_status st;
    /* both read while the pidfd says the process is the one it opened */
    bool read = read_status(host_pid, &st);
    uint16_t its_argv = read ? read_argv(l, host_pid) : 0;
    if (!read || !pidfd_alive(pidfd)) {
        close(pidfd);
        return false;
    }
    struct parent_entry *p = &l->parents[l->next_parent++ % n];
    if (p->pidfd >= 0)
        close(p->pidfd);
    *p = (struct parent_entry){ .host_pid = host_pid, .pidfd = pidfd,
                                .inner_pid = st.inner_tgid, .depth = st.depth, .argv = its_argv };
    *inner = p->inner_pid;
    *depth = p->depth;
    *argv = p->argv;
    return true;
}

/* Who waits in the call: the thread (seccomp_notif.pid is the caller's
 * tid, in our PID namespace), its process, its parent process, and the
 * thread's name, as the command sees them. In *host_tgid its process in
 * ours (whose fd table pidfd_getfd reads on old kernels).
 *
 * The thread cannot go away or be reused while it waits in the call, and
 * ledger_handle() keeps what was read only if the notification is still
 * valid afterwards. Its parent can: it may exit after PPid was read and
 * its pid be reused before parent_ids() looks at it. A parent that exits
 * reparents the child before its own pid is freed, so when the caller's
 * PPid is unchanged after a new parent was looked up, that parent was the
 * caller's; otherwise the ppid stays -1. A parent already known (the usual
 * case: init, the test runner) was alive all along, so it had that pid
 * when PPid was read: one poll().
 *
 * Two small /proc reads per denial (four for a new parent). Like every
 * other read of the command's objects they happen in the ledger's
 * thread, the one that may be made to wait (ledger_start). */
static void read_caller(struct ledger *l, pid_t tid, pid_t *host_tgid, struct ledger_caller *who)
{
    *who = (struct ledger_caller){ .tid = tid, .tgid = tid, .ppid = -1 };
    snprintf(who->comm, sizeof who->comm, "?");
    *host_tgid = tid;
    struct proc_status st;
    if (!read_status(tid, &st))
        return;
    *host_tgid = st.tgid;
    who->tid = st.inner_tid;
    who->tgid = st.inner_tgid;
    read_comm(tid, who->comm, sizeof who->comm);
    who->argv = read_argv(l, tid);
    if (st.ppid <= 0)
        return;
    pid_t inner;
    int depth;
    bool known;
    uint16_t parent_argv;
    if (!parent_ids(l, st.ppid, &inner, &depth, &parent_argv, &known))
        return;
    if (!known) {
        struct proc_status again;
        if (!read_status(tid, &again) || again.ppid != st.ppid)
            return;
    }
    who->parent_argv = parent_argv;
    /* getppid() says 0 for a parent outside the caller's namespace (sbx
     * itself, for the sandbox's init) */
    if (depth == st.depth)
        who->ppid = inner;
    else if (depth < st.depth)
        who->ppid = 0;
}

/* socketcall(2)'s sub-calls (linux/net.h), by their syscall names. */
static const char *socketcall_name(uint64_t call)
{
    static const char *const names[] = {
        [SYS_SOCKET] = "socket", [SYS_BIND] = "bind", [SYS_CONNECT] = "connect",
        [SYS_LISTEN] = "listen", [SYS_ACCEPT] = "accept", [SYS_GETSOCKNAME] = "getsockname",
        [SYS_GETPEERNAME] = "getpeername", [SYS_SOCKETPAIR] = "socketpair",
        [SYS_SEND] = "send", [SYS_RECV] = "recv", [SYS_SENDTO] = "sendto",
        [SYS_RECVFROM] = "recvfrom", [SYS_SHUTDOWN] = "shutdown",
        [SYS_SETSOCKOPT] = "setsockopt", [SYS_GETSOCKOPT] = "getsockopt",
        [SYS_SENDMSG] = "sendmsg", [SYS_RECVMSG] = "recvmsg", [SYS_ACCEPT4] = "accept4",
        [SYS_RECVMMSG] = "recvmmsg", [SYS_SENDMMSG] = "sendmmsg",
    };
    if (call >= sizeof names / sizeof names[0] || !names[call])
        return NULL;
    return names[call];
}

struct decoded_call {
    char name[32];
    char multiplexer[16];  /* "socketcall" when name is one of its sub-calls */
    uint64_t args[6];
    bool compat;           /* i386: 32-bit pointers and layouts */
    bool args_readable;
};

static void decode_call(const struct seccomp_notif *req, struct decoded_call *c)
{
    memset(c, 0, sizeof *c);
    memcpy(c->args, req->data.args, sizeof c->args);
    c->args_readable = true;
    c->compat = req->data.arch == SCMP_ARCH_X86;
    char *name = seccomp_syscall_resolve_num_arch(req->data.arch, req->data.nr);
    if (!name && req->data.arch == SCMP_ARCH_X86_64 && ((uint32_t)req->data.nr & X32_SYSCALL_BIT))
        name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X32, req->data.nr);
    snprintf(c->name, sizeof c->name, "%s", name ? name : "?");
    free(name);

    if (c->compat && strcmp(c->name, "socketcall") == 0) {
        /* The multiplexer hides the call's arguments in memory: BPF let
         * every socketcall of a denied kind through to us, and the real
         * decision is made on the arguments read here. */
        const char *sub = socketcall_name(c->args[0]);
        snprintf(c->multiplexer, sizeof c->multiplexer, "socketcall");
        if (sub)
            snprintf(c->name, sizeof c->name, "%s", sub);
        uint32_t words[6];
        if (ledger_read_target((pid_t)req->pid, c->args[1], words, sizeof words)) {
            for (int i = 0; i < 6; i++)
                c->args[i] = words[i];
        } else {
            c->args_readable = false;
        }
    }
}

/* What a socket call acts on, as read from the caller. */
struct call_families {
    int fd_family;     /* the socket's domain; -1 unknown */
    int addr_family;   /* the address's family; -1 none or unreadable */
    int dup_fd;        /* our duplicate of the socket, closed after the answer */
    struct raw_address raw; /* bind, connect: the address as read */
};

/* pid: the calling thread (its memory and fd table); tgid: its process. */
static void inspect_call(const struct ledger *l, pid_t pid, pid_t tgid, const struct decoded_call *c,
                         struct call_families *f, char *addr, size_t addrlen)
{
    f->fd_family = f->addr_family = f->dup_fd = -1;
    f->raw.len = 0;
    f->raw.whole = false;
    addr[0] = '\0';
    if (!c->args_readable || !seccomp_syscall_has_family(c->name))
        return;
    if (strcmp(c->name, "socket") == 0 || strcmp(c->name, "socketpair") == 0) {
        f->fd_family = (int)(uint32_t)c->args[0];
        return;
    }
    if (strcmp(c->name, "bind") == 0 || strcmp(c->name, "connect") == 0)
        f->addr_family = read_sockaddr_raw(pid, c->args[1], c->args[2], addr, addrlen, &f->raw);
    else if (strcmp(c->name, "sendto") == 0)
        f->addr_family = read_sockaddr(pid, c->args[4], c->args[5], addr, addrlen);
    else if (strcmp(c->name, "sendmsg") == 0 || strcmp(c->name, "sendmmsg") == 0)
        /* sendmmsg: the first message's header leads its struct mmsghdr */
        f->addr_family = read_msghdr_name(pid, c->args[1], c->compat, addr, addrlen);
    f->fd_family = target_socket_family(pid, tgid, c->args[0], l->test_no_pidfd_thread, &f->dup_fd);
}

static bool rule_names_family(const struct ledger_rule *r, int family)
{
    return family >= 0 && family < 64 && (r->families & (UINT64_C(1) << family));
}

/* The rule that denies the call, and in *family the family to record. */
/* The sandbox's own loopback, as ledger_format_sockaddr() writes it. */
static bool address_is_loopback(const char *addr)
{
    return !strncmp(addr, "127.", 4) || !strncmp(addr, "[::1]:", 6) ||
           !strncmp(addr, "[::ffff:127.", 12);
}

static const struct ledger_rule *match_rule(const struct ledger *l, const char *name,
                                            const struct call_families *f, int *family,
                                            const char *addr)
{
    /* "send"/"recv" exist only as socketcall sub-calls; they are sendto
     * and recvfrom without an address. */
    if (strcmp(name, "send") == 0)
        name = "sendto";
    else if (strcmp(name, "recv") == 0)
        name = "recvfrom";
    *family = f->fd_family >= 0 ? f->fd_family : f->addr_family;
    for (size_t i = 0; i < l->nrules; i++) {
        const struct ledger_rule *r = &l->rules[i];
        if (r->errnum <= 0 || strcmp(r->syscall, name) != 0)
            continue;
        /* [network] allow: the proxy on the sandbox's loopback is the way
         * out, and connect(AF_UNSPEC) dissolves a UDP association. What
         * passes is continued, and the kernel finds no route for anything
         * else: an address swapped in memory after this read gains
         * nothing. */
        if (r->no_route && (address_is_loopback(addr) ||
                            (f->addr_family != AF_INET && f->addr_family != AF_INET6) ||
                            (l->passes && l->passes(l->passes_data, addr))))
            continue;
        /* An unknown socket (fd gone, not a socket, another thread's
         * table we cannot read) is denied: the rule reproduces a
         * restrictive sandbox, and erring towards denial keeps the ledger
         * from missing one. */
        if (!r->families || f->fd_family < 0 || rule_names_family(r, f->fd_family))
            return r;
        /* The address counts too: the fd the kernel acts on after
         * SECCOMP_USER_NOTIF_FLAG_CONTINUE is whatever the number names
         * by then (dup2 from another thread), so a bind(AF_UNIX socket,
         * AF_INET address) is denied as AF_INET. Swapping the address in
         * memory as well still wins: see docs/seccomp.md, "Limits". */
        if (rule_names_family(r, f->addr_family)) {
            *family = f->addr_family;
            return r;
        }
    }
    return NULL;
}

static bool respond(struct ledger *l, int notify_fd, uint64_t id, int errnum)
{
    memset(l->resp, 0, sizeof *l->resp);
    l->resp->id = id;
    if (errnum) {
        l->resp->error = -errnum;
    } else {
        l->resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    int rc = seccomp_notify_respond(notify_fd, l->resp);
    /* ENOENT: the caller died meanwhile. Anything else is worth one
     * warning, not one per call. */
    static bool warned;
    if (rc < 0 && rc != -ENOENT && !warned) {
        warned = true;
        warn("seccomp: answering notification %llu failed: %s",
             (unsigned long long)id, strerror(-rc));
    }
    return rc == 0;
}

/* The answer to a call the supervisor made itself: its result, never a
 * continue (the kernel must not make it again from the command's memory). */
static bool respond_made(struct ledger *l, int notify_fd, uint64_t id, int err, long val)
{
    memset(l->resp, 0, sizeof *l->resp);
    l->resp->id = id;
    l->resp->error = err ? -err : 0;
    l->resp->val = err ? 0 : val;
    int rc = seccomp_notify_respond(notify_fd, l->resp);
    return rc == 0;
}

/* Lingering closes in threads of their own, at most this many at once. */
#define LINGERING_CLOSERS 8
static int lingering_closers;

static void *close_lingering(void *arg)
{
    close((int)(intptr_t)arg);
    __atomic_sub_fetch(&lingering_closers, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* Our duplicate of the caller's socket, closed once the caller has its
 * answer. It may be the socket's last reference, and a socket whose
 * SO_LINGER the command set waits out its linger time in close() (see
 * target_socket_family): in a thread of its own, so that this one goes on
 * answering, and the write observer's calls (seccomp_observe.h), which
 * share this thread, never wait for a close the command arranged. A
 * command that sets SO_LINGER between the check and the close, or keeps
 * more than LINGERING_CLOSERS such closes going, only makes this thread
 * wait, as before. */
static void close_duplicate(int fd)
{
    struct linger lg = { 0 };
    socklen_t len = sizeof lg;
    bool lingers = getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &len) == 0 && lg.l_onoff &&
                   lg.l_linger > 0;
    if (lingers) {
        if (__atomic_add_fetch(&lingering_closers, 1, __ATOMIC_RELAXED) <= LINGERING_CLOSERS) {
            pthread_attr_t attr;
            pthread_t t;
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            pthread_attr_setstacksize(&attr, 64 * 1024);
            int rc = pthread_create(&t, &attr, close_lingering, (void *)(intptr_t)fd);
            pthread_attr_destroy(&attr);
            if (rc == 0)
                return;
        }
        __atomic_sub_fetch(&lingering_closers, 1, __ATOMIC_RELAXED);
    }
    close(fd);
}

bool ledger_handle(struct ledger *l, int notify_fd)
{
    /* RECV blocks when nothing is pending: only go there when poll says
     * a notification is waiting, whatever the caller believed. */
    struct pollfd pfd = { .fd = notify_fd, .events = POLLIN };
    int pr = poll(&pfd, 1, 0);
    if (pr < 0)
        return errno == EINTR;
    if (pr == 0)
        return true;
    if (!(pfd.revents & POLLIN))
        return !(pfd.revents & (POLLHUP | POLLERR | POLLNVAL));

    memset(l->req, 0, sizeof *l->req);
    int rc = seccomp_notify_receive(notify_fd, l->req);
    if (rc < 0) {
        /* ENOENT: the caller died between poll and here. */
        return rc == -ENOENT || rc == -EINTR || rc == -ECANCELED;
    }
    const struct seccomp_notif *req = l->req;
    pid_t pid = (pid_t)req->pid;
    /* When the call was made, to join with a test runner's own events;
     * the reads below take microseconds to a stalled page-in's time. */
    struct timespec received;
    clock_gettime(CLOCK_MONOTONIC, &received);
    /* the caller waits in the call until answered: all it wrote before is
     * below this position, nothing after (capture.h) */
    uint64_t output_pos = LEDGER_NO_POS;
    /* Under the lock, and never once stopped: a thread left behind in a
     * stuck call (ledger_stop) must not reach the capture, which its
     * owner frees once ledger_stop() has returned. */
    pthread_mutex_lock(&l->lock);
    if (l->output_position && !l->stopped)
        output_pos = l->output_position(l->output_position_data);
    pthread_mutex_unlock(&l->lock);

    struct decoded_call call;
    decode_call(req, &call);
    char addr[ADDRESS_MAX];
    pid_t tgid;
    struct ledger_caller who;
    read_caller(l, pid, &tgid, &who);
    /* only where the kernel may have cut the name (15 bytes): a readlink
     * more in the call's round trip, which a caller's race can widen */
    char exe[64] = "";
    if (strnlen(who.comm, sizeof who.comm) == sizeof who.comm - 1)
        read_exe(pid, exe, sizeof exe);
    struct call_families families;
    inspect_call(l, pid, tgid, &call, &families, addr, sizeof addr);
    /* The write observer's call: what it names is read while the caller
     * waits, judged once it was let through (refusals.h) */
    struct refusal_probe probe;
    bool probing = l->refusals && call.args_readable && !call.multiplexer[0] &&
                   !match_rule(l, call.name, &families, &(int){ 0 }, addr) &&
                   refusals_probe(pid, call.name, call.args, &probe);
    int family;
    const struct ledger_rule *rule = match_rule(l, call.name, &families, &family, addr);
    /* `deny = socketcall ...` names the i386 multiplexer itself */
    if (!rule && call.multiplexer[0])
        rule = match_rule(l, call.multiplexer, &families, &family, addr);

    /* What was read belongs to this call only if the caller is still
     * waiting in it: its pid (and memory) could otherwise be another
     * process's by now. */
    bool judged = false;  /* the probe read this very call's caller */
    if (seccomp_notify_id_valid(notify_fd, req->id) >= 0) {
        /* The Landlock tier: a loopback call is made here, on our
         * duplicate of the socket, from the address read above */
        int made_err = 0;
        long made_val = 0;
        bool made = false;
        bool sends = !strcmp(call.name, "sendto") || !strcmp(call.name, "sendmsg") ||
                     !strcmp(call.name, "sendmmsg");
        bool answered_here = false; /* the socket's ADDFD answered the call */
        if (rule && rule->supervisor_makes && !strcmp(call.name, "socket")) {
            /* an inet datagram socket is the supervisor's, bound to lo */
            enum landlock_send how = call.args_readable
                                         ? landlock_net_make_socket(notify_fd, req->id, call.args,
                                                                    &made_val, &made_err)
                                         : LANDLOCK_SEND_REFUSED;
            if (how == LANDLOCK_SEND_CONTINUE)
                rule = NULL;
            made = how == LANDLOCK_SEND_MADE || how == LANDLOCK_SEND_ANSWERED;
            answered_here = how == LANDLOCK_SEND_ANSWERED;
        } else if (rule && rule->supervisor_makes && sends) {
            /* unreadable arguments or an unknown socket: refused */
            enum landlock_send how = call.args_readable && families.dup_fd >= 0
                                         ? landlock_net_make_send(call.name, families.dup_fd,
                                                                  call.args, call.compat, pid,
                                                                  &made_val, &made_err)
                                         : LANDLOCK_SEND_REFUSED;
            if (how == LANDLOCK_SEND_CONTINUE)
                rule = NULL;
            made = how == LANDLOCK_SEND_MADE;
        } else if (rule && rule->supervisor_makes && landlock_meta_handles(call.name))
            made = call.args_readable &&
                   landlock_meta_make_call(call.name, call.args, call.compat, pid, tgid,
                                           &l->landlock_writable, &made_err);
        else if (rule && rule->supervisor_makes) {
            bool readable = families.dup_fd >= 0 &&
                            (strcmp(call.name, "listen") == 0 || families.raw.whole);
            if (readable && l->connect_hook && !strcmp(call.name, "connect"))
                l->connect_hook(l->connect_hook_data, families.dup_fd, families.raw.bytes,
                                families.raw.len);
            made = readable &&
                   landlock_net_make_call(call.name, families.dup_fd, families.fd_family,
                                          families.raw.bytes, families.raw.len,
                                          (int)call.args[1], &made_err);
        }
        bool answered = answered_here ? made_err == 0
                        : made ? respond_made(l, notify_fd, req->id, made_err, made_val)
                               : respond(l, notify_fd, req->id, rule ? rule->errnum : 0);
        if (made)
            rule = NULL; /* counted as let through, not as a denial */
        judged = answered;
        /* Counted once answered: a call whose caller was killed before
         * the answer never returned the error. */
        pthread_mutex_lock(&l->lock);
        if (answered && !l->stopped) {
            if (!rule)
                l->allowed += !probing;
            else {
                struct ledger_denial d = {
                    .syscall = rule->syscall, .family = family,
                    .socket_family = families.fd_family, .address_family = families.addr_family,
                    .address = addr, .errnum = rule->errnum, .who = who,
                    .ns = (uint64_t)received.tv_sec * 1000000000u + (uint64_t)received.tv_nsec,
                    .output_pos = output_pos,
                };
                memcpy(d.exe, exe, sizeof d.exe);
                ledger_record_call(l, &d);
            }
        }
        pthread_mutex_unlock(&l->lock);
    }
    if (probing) {
        /* after the answer: the caller runs on meanwhile */
        pthread_mutex_lock(&l->lock);
        bool stopped = l->stopped;
        pthread_mutex_unlock(&l->lock);
        /* Judged without the lock: resolving the path may wait on what the
         * command controls (a FUSE mount of its own), and ledger_stop()
         * must still get the lock to leave this thread behind. */
        if (judged && !stopped && refusals_judge(l->refusals, &probe)) {
            pthread_mutex_lock(&l->lock);
            if (!l->stopped)
                refusals_record(l->refusals, &probe, &who);
            pthread_mutex_unlock(&l->lock);
        }
        refusals_probe_close(&probe);
    }
    /* Last, once the caller has its answer: this close may be the
     * socket's last reference and wait out its SO_LINGER time (see
     * target_socket_family); it delays this thread, never the command's
     * answer nor the supervisor's loop. */
    if (families.dup_fd >= 0)
        close_duplicate(families.dup_fd);
    return true;
}

/* ---- The ledger's thread ----------------------------------------------- */

void ledger_observe_writes(struct ledger *l, const char *home, const char *project,
                           const char *path_env)
{
    if (!l->refusals)
        l->refusals = refusals_new(home, project, path_env);
}

const struct refusals *ledger_refusals(const struct ledger *l)
{
    return l ? l->refusals : NULL;
}

void ledger_set_landlock_writable(struct ledger *l, const struct strv *writable)
{
    for (size_t i = 0; i < writable->n; i++)
        strv_push(&l->landlock_writable, xstrdup(writable->v[i]));
    l->drop_caps = true;
}

/* Capabilities are a thread's own to the kernel: capset(2) on this
 * thread alone leaves the supervisor's others as they are. */
static void drop_thread_capabilities(void)
{
    struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &hdr, data) < 0)
        die_errno("capget for the ledger's thread");
    for (int i = 0; i < 2; i++)
        data[i].effective = 0;
    if (syscall(SYS_capset, &hdr, data) < 0)
        die_errno("dropping the ledger thread's effective capabilities (capset)");
}

static void *ledger_thread_main(void *arg)
{
    struct ledger *l = arg;
    if (l->drop_caps)
        drop_thread_capabilities();
    for (;;) {
        struct pollfd pfd[2] = {
            { .fd = l->notify_fd, .events = POLLIN },
            { .fd = l->stop_fd, .events = POLLIN },
        };
        int r = poll(pfd, 2, -1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || pfd[1].revents)
            break;
        if (pfd[0].revents & POLLIN) {
            if (!ledger_handle(l, l->notify_fd))
                break;
        } else if (pfd[0].revents) {
            break;  /* POLLHUP: every filtered process has exited */
        }
    }
    pthread_mutex_lock(&l->lock);
    l->thread_exited = true;
    pthread_cond_signal(&l->thread_exited_cond);
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

void ledger_set_address_namer(struct ledger *l, ledger_address_namer *fn, void *data)
{
    l->namer = fn;
    l->namer_data = data;
}

void ledger_set_address_passes(struct ledger *l, ledger_address_passes *fn, void *data)
{
    l->passes = fn;
    l->passes_data = data;
}

void ledger_set_connect_hook(struct ledger *l, ledger_connect_hook *fn, void *data)
{
    l->connect_hook = fn;
    l->connect_hook_data = data;
}

void ledger_set_output_position(struct ledger *l, uint64_t (*fn)(void *), void *data)
{
    l->output_position = fn;
    l->output_position_data = data;
}

void ledger_defer(struct ledger *l, int notify_fd)
{
    l->notify_fd = notify_fd;
}

void ledger_start(struct ledger *l, int notify_fd)
{
    if (l->thread_running || l->stopped)
        die("seccomp: internal error: the ledger is started twice");
    if (notify_fd >= 0)
        l->notify_fd = notify_fd;
    l->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (l->stop_fd < 0)
        die_errno("seccomp: creating the ledger's stop eventfd");
    /* Every signal stays with the supervisor's loop (its signalfd): the
     * thread inherits this mask, and no signal handler ever runs in it. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&l->thread, NULL, ledger_thread_main, l);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        die_with_errno(rc, "seccomp: starting the ledger's thread");
    l->thread_running = true;
}

/* How long ledger_stop() waits for a thread busy in a call on the
 * command (a lingering close, a page-in of the command's memory) before
 * leaving it behind. An honest notification takes microseconds. */
#define LEDGER_STOP_WAIT_MS 200

void ledger_stop(struct ledger *l)
{
    if (!l)
        return;
    if (!l->thread_running) {
        pthread_mutex_lock(&l->lock);
        bool never_started = !l->stopped && !l->thread_exited;
        l->stopped = true;
        pthread_mutex_unlock(&l->lock);
        /* deferred and never started (ledger_defer): the listener is ours */
        if (never_started && l->notify_fd >= 0) {
            close(l->notify_fd);
            l->notify_fd = -1;
        }
        return;
    }
    uint64_t one = 1;
    if (write(l->stop_fd, &one, sizeof one) != (ssize_t)sizeof one)
        warn_errno("seccomp: waking the ledger's thread");
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_nsec += (long)LEDGER_STOP_WAIT_MS * 1000000L;
    deadline.tv_sec += deadline.tv_nsec / 1000000000L;
    deadline.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&l->lock);
    while (!l->thread_exited &&
           pthread_cond_timedwait(&l->thread_exited_cond, &l->lock, &deadline) == 0)
        ;
    bool exited = l->thread_exited;
    l->stopped = true;
    pthread_mutex_unlock(&l->lock);
    l->thread_running = false;
    if (exited) {
        pthread_join(l->thread, NULL);
        close(l->notify_fd);
        close(l->stop_fd);
        l->notify_fd = l->stop_fd = -1;
        return;
    }
    /* Still inside a call on the command's objects. The counters are
     * final (stopped); the thread, its fds and l are left to the exit,
     * where the kernel ends the call (the exiting sbx's fds are released
     * without a linger wait, PF_EXITING). */
    verbose("seccomp: the ledger's thread is still busy in a call on the command; leaving it");
    pthread_detach(l->thread);
    l->abandoned = true;
}
