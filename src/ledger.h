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

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* At most this many distinct (call, family, address, errno) rows are kept;
 * later distinct denials are still counted, in ledger_total() and in the
 * row "other" of their call. */
#define LEDGER_MAX_ROWS 256
/* Processes named per row: the first ones seen. */
#define LEDGER_MAX_PIDS 4

struct ledger_process {
    pid_t pid;          /* as seen inside the sandbox's PID namespace */
    char comm[16];      /* the thread's name (/proc/PID/comm) */
};

/* One aggregated row, as the iterator yields it. */
struct ledger_entry {
    const char *syscall;  /* "bind" */
    int family;           /* AF_INET, or -1 when unknown or not a socket call */
    const char *address;  /* "127.0.0.1:0", "[::1]:443", "/run/x.sock", "" */
    int errnum;           /* the errno answered */
    uint64_t count;
    const struct ledger_process *pids;
    size_t npids;         /* <= LEDGER_MAX_PIDS */
    uint64_t more_pids;   /* further distinct processes, not named */
};

struct ledger;

/* Takes what it needs from p (copies the deny rules); p may be freed. */
struct ledger *ledger_new(const struct profile *p);

/* Answers notify_fd (owned from now on) in a thread of the ledger's own,
 * until every filtered process has exited or ledger_stop(). What the
 * ledger does on the command's objects (read its memory, duplicate and
 * close its sockets, read /proc) can be made to wait by the command: a
 * socket with SO_LINGER whose last reference is ours, memory whose
 * page-in stalls. It waits in that thread, never in the supervisor's
 * loop, which must always see signals and the timeout. Dies (125) when
 * the thread cannot be started. */
void ledger_start(struct ledger *l, int notify_fd);

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
 * denials (the rows are allocated once, in ledger_new()). */
size_t ledger_memory_bytes(const struct ledger *l);

/* Rows, the most frequent first. *cursor starts at 0. */
bool ledger_next(const struct ledger *l, size_t *cursor, struct ledger_entry *out);

/* "bind(AF_INET 127.0.0.1:0) x3 -> EPERM [pid 12 "test-runner"]" */
void ledger_format_entry(const struct ledger_entry *e, char *buf, size_t len);

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
 * family and address are null when unknown or not a socket call. A NULL
 * ledger (no deny rule) gives total 0 and no denials. */
struct json_object *ledger_to_json(const struct ledger *l);

/* Stops the thread (ledger_stop) and frees l. */
void ledger_free(struct ledger *l);

/* For tests of the aggregation without a kernel: records one denial as if
 * received. address may be NULL. */
void ledger_record(struct ledger *l, const char *syscall, int family,
                   const char *address, int errnum, pid_t pid, const char *comm);

/* Formats len bytes of a sockaddr as read from the target (untrusted: any
 * length, any bytes): "127.0.0.1:80", "[::1]:443", "/path", "@abstract",
 * "unnamed", or "" for other families or short input. Returns the family,
 * or -1 when len cannot hold one. out always ends in NUL. */
int ledger_format_sockaddr(const void *raw, size_t len, char *out, size_t outlen);

/* "AF_INET", "AF_INET6", "AF_UNIX", ..., or "AF_<n>". */
const char *ledger_family_name(int family, char *buf, size_t len);

#endif
