/* The denial ledger: the supervisor's side of the `deny =` rules.
 *
 * Each call a deny rule names stops in the kernel and raises a seccomp user
 * notification. ledger_handle() receives it, reads what the call would do
 * (family from the socket, address from the target's memory), answers with
 * the rule's errno or lets a call of another family through, and counts
 * the denial. Denials are aggregated by (call, family, address, errno) in a
 * bounded table, so a command that makes 100 000 denied calls costs the
 * supervisor kilobytes. */
#ifndef SBX_LEDGER_H
#define SBX_LEDGER_H

#include "profile.h"
#include "util.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* At most this many distinct (call, family, address, errno) rows are kept;
 * later distinct denials are still counted, in ledger_total() and in the
 * row "other" of their call. */
#define LEDGER_MAX_ROWS 256
/* Overflow rows, one per (call, family, errno), once the table is full. */
#define LEDGER_MAX_OVERFLOW_ROWS 64
/* Every ledger_entry.id is below this. */
#define LEDGER_MAX_ROW_IDS (LEDGER_MAX_ROWS + LEDGER_MAX_OVERFLOW_ROWS)
/* Processes named per row: the first ones seen. */
#define LEDGER_MAX_PIDS 4
/* Threads named per row: the first distinct (tgid, tid, comm) seen; the
 * denials of the others are counted (threads_unlisted_count). */
#define LEDGER_MAX_THREADS 8
/* Denials kept one by one, in the order they were answered: the first
 * ones; later ones are counted (ledger_events_dropped()). 56 bytes each,
 * allocated once. */
#define LEDGER_MAX_EVENTS 8192
/* The row of an event the table had no room for (ledger_unlisted()). */
#define LEDGER_NO_ROW UINT32_MAX

struct ledger_process {
    pid_t pid;          /* as seen inside the sandbox's PID namespace */
    char comm[16];      /* the name of the first thread seen (raw bytes) */
    char exe[64];       /* its executable's file name (see ledger_thread) */
};

/* Who made one denied call. Read from /proc while the thread waited in
 * the call, and kept only if the notification was still valid after the
 * reads (so the tid was not reused meanwhile). Ids are as the command
 * sees them (gettid(), getpid(), getppid()): those of the innermost PID
 * namespace the caller is in. */
struct ledger_caller {
    pid_t tid;          /* the calling thread (seccomp_notif.pid) */
    pid_t tgid;         /* its process */
    pid_t ppid;         /* its parent process; 0 when the parent is outside
                         * the caller's PID namespace (as getppid()), -1
                         * when that cannot be told (it changed while it
                         * was read; no pidfd_open) */
    char comm[16];      /* the thread's name at the call (15 bytes at most,
                         * raw: any byte but NUL; a forked child keeps its
                         * parent thread's name until it execs) */
    /* With ledger_set_record_argv(): the command lines of its process and
     * of its parent (ledger_argv()); 0 when not recorded or unreadable */
    uint16_t argv, parent_argv;
};

/* One caller of a row. */
struct ledger_thread {
    struct ledger_caller who;
    char exe[64];       /* the file name of its process's executable
                         * (/proc/TID/exe, at most 63 bytes; read only when
                         * comm is 15 bytes long, "" otherwise or when it
                         * cannot be read): the part of the thread's name
                         * that comm cuts (TASK_COMM_LEN is 16: a Rust test
                         * binary "integration_tests-1f2e3d" is
                         * "integration_tes"). Not in events: 8192 of them. */
    uint64_t count;     /* this row's denials by this (tgid, tid, comm) */
    uint64_t first_ns, last_ns;  /* CLOCK_MONOTONIC, see ledger_event */
};

/* One denial, in the order they were answered. */
struct ledger_event {
    uint64_t ns;        /* CLOCK_MONOTONIC (ns) when the supervisor received
                         * the notification: the clock the command reads
                         * too (sbx makes no time namespace) */
    struct ledger_caller who;
    uint32_t row;       /* ledger_entry.id of its row, or LEDGER_NO_ROW */
    /* How many bytes of output the command had written when the call
     * stopped (ledger_set_output_position), or LEDGER_NO_POS: `sbx audit`
     * joins it with where each test's result line ends. */
    uint64_t output_pos;
};
#define LEDGER_NO_POS UINT64_MAX

/* One aggregated row, as the iterator yields it. */
struct ledger_entry {
    uint32_t id;          /* stable: the row's place in first-seen order */
    const char *syscall;  /* "bind" */
    int family;           /* AF_INET, or -1 when unknown or not a socket call:
                           * the family the rule was matched on */
    int socket_family;    /* the socket's own domain; -1 unknown or none */
    int address_family;   /* the address's own family; -1 none or unreadable */
    const char *address;  /* "127.0.0.1:0", "[::1]:443", "/run/x.sock", "" */
    int errnum;           /* the errno answered */
    uint64_t count;
    const struct ledger_process *pids;
    size_t npids;         /* <= LEDGER_MAX_PIDS */
    uint64_t more_pids;   /* denials by further processes, not named */
    const struct ledger_thread *threads;  /* first-seen order */
    size_t nthreads;      /* <= LEDGER_MAX_THREADS */
    uint64_t threads_unlisted_count;  /* denials by callers not in threads */
};

/* One denial as ledger_handle() decoded it, for ledger_record_call(). */
struct ledger_denial {
    const char *syscall;
    int family;           /* as ledger_entry */
    int socket_family;
    int address_family;
    const char *address;  /* may be NULL */
    int errnum;
    struct ledger_caller who;
    char exe[64];         /* as ledger_thread */
    uint64_t ns;
    uint64_t output_pos;  /* as ledger_event */
};

struct ledger;
struct fix;

/* The profile line that answers E's refusal (fix.h). */
void ledger_entry_fix(const struct ledger *l, const struct ledger_entry *e, struct fix *f);

/* Takes what it needs from p (copies the deny rules); p may be freed. */
struct ledger *ledger_new(const struct profile *p);

/* Names an address the summary prints ("198.51.100.7:443"): true with
 * the name written to out. */
typedef bool ledger_address_namer(void *data, const char *address, char *out, size_t len);
/* [network] allow: the summary says which name a no-route address was
 * the DNS stub's answer for (egress_name_of()). */
void ledger_set_address_namer(struct ledger *l, ledger_address_namer *fn, void *data);
/* [network] allow's transparent egress: a connect() to an address for
 * which fn(data, address) is true passes the no-route rule
 * (egress_direct_passes(): the kernel routes it to sbx's listeners). */
typedef bool ledger_address_passes(void *data, const char *address);
void ledger_set_address_passes(struct ledger *l, ledger_address_passes *fn, void *data);

/* The Landlock tier's [network] allow: called on the supervisor's
 * duplicate of the command's socket just before it makes a loopback
 * connect() for the command (landlock_net.h), with the checked address
 * (egress_before_connect()). */
typedef void ledger_connect_hook(void *data, int sock, const void *addr, size_t len);
void ledger_set_connect_hook(struct ledger *l, ledger_connect_hook *fn, void *data);

/* Before ledger_start(): each denial also records fn(data), read while
 * the caller waits in the call (capture_position()). */
void ledger_set_output_position(struct ledger *l, uint64_t (*fn)(void *), void *data);

/* Before ledger_start(): each denial also records the command line of
 * the caller's process and of its parent (ledger_caller.argv,
 * .parent_argv), read from /proc while the caller waits in the call (the
 * parent's while a pidfd proves it is the same process): `sbx audit` for
 * a runner that runs each script in a process of its own (prove, make
 * check). Two small reads more per denial, one for a parent already
 * seen. The bytes are what the process says it runs. */
void ledger_set_record_argv(struct ledger *l);
/* Command line number idx (ledger_caller.argv): its arguments, each
 * ending in NUL, *len bytes in all (ledger_argv.h bounds them); NULL for
 * 0 or when none was recorded. */
const char *ledger_argv(const struct ledger *l, uint16_t idx, size_t *len);

/* Answers notify_fd (owned from now on) in a thread of the ledger's own,
 * until every filtered process has exited or ledger_stop(). What the
 * ledger does on the command's objects (read its memory, duplicate and
 * close its sockets, read /proc) can be made to wait by the command: a
 * socket with SO_LINGER whose last reference is ours, memory whose
 * page-in stalls. It waits in that thread, never in the supervisor's
 * loop, which must always see signals and the timeout. Dies (125) when
 * the thread cannot be started. */
void ledger_start(struct ledger *l, int notify_fd);

/* Holds notify_fd (owned from now on) without a thread yet: for the write
 * observer alone, whose first notification may never come (a command
 * that writes nothing), so that such a run pays no thread. The caller
 * watches the listener and calls ledger_start(l, -1) once it is
 * readable. ledger_stop() and ledger_free() close it if never started. */
void ledger_defer(struct ledger *l, int notify_fd);

/* Ends the thread: the counters are final once this returns, and safe to
 * read without locking. A thread stuck in a call on the command for more
 * than 200 ms is left behind (it ends with sbx). Idempotent; also for a
 * ledger never started. */
void ledger_stop(struct ledger *l);

/* Handles one notification from `notify_fd` (readable), as the thread of
 * ledger_start() does; for tests that run their own loop. A call whose
 * memory or socket cannot be read is still answered, and a notification
 * whose caller died is dropped. Returns false only when the listener is
 * gone for good (every filtered process has exited). */
bool ledger_handle(struct ledger *l, int notify_fd);

/* Denied calls, exactly (not bounded by LEDGER_MAX_ROWS). */
uint64_t ledger_total(const struct ledger *l);
/* Calls a rule named that were allowed through (another family). */
uint64_t ledger_allowed(const struct ledger *l);

/* Bytes the ledger holds on the heap: bounded, whatever the number of
 * denials (the rows and the events are allocated once, in ledger_new()). */
size_t ledger_memory_bytes(const struct ledger *l);

/* Rows, the most frequent first. *cursor starts at 0. */
bool ledger_next(const struct ledger *l, size_t *cursor, struct ledger_entry *out);

/* Denials kept one by one (at most LEDGER_MAX_EVENTS, the first ones),
 * oldest first; *events stays valid as long as l. Like the rows, read
 * them once ledger_stop() has returned. For a per-test
 * attribution: join each event's (ns, tid, comm) with the runner's own
 * events. */
size_t ledger_events(const struct ledger *l, const struct ledger_event **events);
/* Denials answered after the event list was full. */
uint64_t ledger_events_dropped(const struct ledger *l);
/* Denials in no row (the table was full): their events say LEDGER_NO_ROW. */
uint64_t ledger_unlisted(const struct ledger *l);

/* "bind(AF_INET 127.0.0.1:0) x3 -> EPERM [pid 12 "test-runner"]", then
 * the threads when they say more than the processes do:
 *   ... [pid 12 "cargo-test"] by test_bind (tid 13), test_other (tid 14)
 * (at most LEDGER_SUMMARY_THREADS, then "and N more"; "N+" when some
 * callers did not fit the row). A socket whose domain differs from its
 * address's family names both:
 *   connect(AF_INET6 socket, AF_INET address 127.0.0.1:25) x1 -> EPERM
 * Bytes of comm and address that are not printable ASCII print as '?'. */
void ledger_format_entry(const struct ledger_entry *e, char *buf, size_t len);
#define LEDGER_SUMMARY_THREADS 3

/* The summary of sbx(1) DENIED OPERATIONS on `out`, nothing when nothing was denied:
 *   sbx: 3 operations denied: bind(AF_INET 127.0.0.1:0) x3 -> EPERM [pid 12 "t"]
 * then, when exit_status is 0, the false-green line. exit_status < 0: the
 * command's status is unknown (the false-green line is left out). */
void ledger_print_summary(const struct ledger *l, FILE *out, int exit_status);

/* The ledger for the run record (--report), a new json-c object:
 *   {"total": 3, "allowed": 0, "unlisted": 0,
 *    "denials": [{"syscall": "bind", "family": "AF_INET",
 *                 "address": "127.0.0.1:0", "errno": "EPERM", "count": 3,
 *                 "processes": [{"pid": 12, "comm": "test-runner"}],
 *                 "more_processes": 0}]}
 * The run record's rows (report_document.c, docs/run-record.md) add the
 * threads, both families and the events to this shape.
 * family and address are null when unknown or not a socket call. A NULL
 * ledger (no deny rule) gives total 0 and no denials. */
struct json_object *ledger_to_json(const struct ledger *l);

/* Stops the thread (ledger_stop) and frees l. */
void ledger_free(struct ledger *l);

/* Records one denial as ledger_handle() does once it answered it. Also
 * for tests of the aggregation without a kernel. */
void ledger_record_call(struct ledger *l, const struct ledger_denial *d);

/* The same for a single-threaded caller: tid = tgid = pid, the socket's
 * family `family`, no separate address family, no timestamp (0). */
void ledger_record(struct ledger *l, const char *syscall, int family,
                   const char *address, int errnum, pid_t pid, const char *comm);

/* The name a ledger line gives a process or thread: exe where comm is
 * exe cut to 15 bytes (or comm is empty), else comm; every byte that is
 * not printable ASCII replaced by '?'. */
void ledger_whole_name(const char *comm, const char *exe, char out[64]);

/* Writes comm (at most 15 bytes) into out with every byte that is not
 * printable ASCII replaced by '?': what the summary prints. */
void ledger_printable_comm(const char *comm, char out[16]);

/* A thread's name is its comm, which the kernel cuts to 15 bytes (a Rust
 * test thread "tests::binds_to_loopback" is "tests::binds_to"): ledger
 * lines name a process by its executable where its comm is that name cut
 * (pid 12 "integration_tests-1f2e3d"), and a thread of another name with
 * its process's executable (by tests::binds_to (tid 13 of
 * integration_tests-1f2e3d)). What a thread's comm cut is lost in the
 * kernel; where the
 * audit knows which test ran in a thread (src/audit_per_test.c: libtest
 * names each test's thread after the test), it sets
 * this hook to name it: ledger lines then say `by NAME (tid N, test
 * "FULL NAME")`. NULL (the default), or a NULL answer: the comm alone.
 * The answer is copied before the next call. */
extern const char *(*ledger_thread_test_hook)(const struct ledger_caller *who);

/* Formats len bytes of a sockaddr as read from the target (untrusted: any
 * length, any bytes): "127.0.0.1:80", "[::1]:443" (a v4-mapped IPv6
 * address stays IPv6: "[::ffff:127.0.0.1]:25"), "/path", "@abstract",
 * "unnamed", or "" for other families or short input. Returns the family,
 * or -1 when len cannot hold one. out always ends in NUL. */
int ledger_format_sockaddr(const void *raw, size_t len, char *out, size_t outlen);

/* "AF_INET", "AF_INET6", "AF_UNIX", ..., or "AF_<n>". */
const char *ledger_family_name(int family, char *buf, size_t len);

/* For the calls the supervisor makes itself (landlock_net.h,
 * landlock_meta.h): len bytes at addr of process pid's memory (false on
 * a short read); a duplicate of thread tid's descriptor fd (process
 * tgid), checked to be that thread's file (ledger.c says how), or -1. */
bool ledger_read_target(pid_t pid, uint64_t addr, void *buf, size_t len);
int ledger_target_fd(pid_t tid, pid_t tgid, uint64_t fd_arg, bool old_kernel);

/* The Landlock tier: the paths its metadata calls may change
 * (landlock_meta.h), copied; and the ledger's thread drops its effective
 * capabilities, so that what it makes for the command is the caller's
 * uid's to make (a root supervisor would bind ports below 1024, or chown). */
void ledger_set_landlock_writable(struct ledger *l, const struct strv *writable);

/* The write observer's listener (seccomp_observe.h): its calls are let
 * through and judged (refusals.h), with the caller's $HOME, project and
 * $PATH for the fixes. Before ledger_start(). */
void ledger_observe_writes(struct ledger *l, const char *home, const char *project,
                           const char *path_env);
/* NULL when the run had no observer; read once ledger_stop() returned. */
struct refusals;
const struct refusals *ledger_refusals(const struct ledger *l);

#endif
