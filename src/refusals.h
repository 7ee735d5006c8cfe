/* Refused writes (sbx(1) REFUSED WRITES): the writes a read-only mount
 * refused (EROFS) and the renames and unlinks a protected file's bind
 * mount refused (EBUSY), seen through the write observer's notifications
 * (seccomp_observe.h) in the ledger's thread, named at exit with the
 * profile line that allows each one (fix.h).
 *
 * The supervisor lets every observed call continue unchanged; it only
 * records. What it reads of the command (the path in its memory, its
 * working directory) is untrusted: a path of any bytes, unterminated, or
 * changed by another thread after the read. It is resolved with
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) below the caller's own
 * root, O_PATH only: a symlink planted by the command resolves inside the
 * sandbox, never out of it with the supervisor's rights, and nothing is
 * opened for reading or writing. The slow part (the resolution) runs
 * after the answer, so the command never waits for it; a path changed
 * meanwhile can only make the report wrong, never grant a write. Rows
 * are bounded. */
#ifndef SBX_REFUSALS_H
#define SBX_REFUSALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct json_object;
struct fix;
struct ledger_caller;

/* Distinct (path, errno) rows kept; later ones are counted. */
#define REFUSALS_MAX_ROWS 32
/* Rows printed at exit (the record has them all). */
#define REFUSALS_SUMMARY_ROWS 5

struct refusal {
    char call[24];        /* "openat" */
    char path[512];       /* as resolved inside the sandbox, printable ASCII ('?' else) */
    bool path_cut;        /* longer than path: cut */
    int errnum;           /* EROFS or EBUSY */
    uint64_t count;
    pid_t pid;            /* the first caller, as the command sees it */
    char comm[16];
    char existing[512];   /* the directory it is in (or is), as the sandbox resolves it */
    const char *protected_path; /* into the context's list, or NULL */
    const char *protected_why;
};

struct refusals;

/* HOME, PROJECT: the caller's (NULL: none); PATH_ENV: the caller's $PATH
 * (its directories below $HOME are protected paths). */
struct refusals *refusals_new(const char *home, const char *project, const char *path_env);
void refusals_free(struct refusals *r);

/* What is read before the answer (the caller waits in the call). */
struct refusal_probe {
    const struct observe_call *call;
    char name[24];
    int root_fd;          /* the caller's root, O_PATH; -1 */
    /* the caller's mount namespace, held until the judge is done: once
     * the sandbox's last process exits, its mounts are taken apart, and
     * a path resolved from root_fd alone would then reach what was
     * under an rw bind mount (the read-only host) and report a write
     * that succeeded as refused; -1 */
    int ns_fd;
    char path[2][4096];   /* absolute, inside the caller's root; "" none */
    uint64_t flags;       /* open's flags */
    /* the verdict (refusals_judge) */
    int errnum;           /* EROFS, EBUSY; 0: not refused */
    int which;            /* path[which] was refused */
    char named[4096];     /* it, canonical inside the sandbox */
    char existing[512];   /* the directory it is in (or is), for an rw line; "" too long */
    const char *protected_path, *protected_why;
};

/* Reads what call NAME (args as decoded) names, from thread TID. False
 * when it is not an observed call or nothing can be read. */
bool refusals_probe(pid_t tid, const char *name, const uint64_t args[6], struct refusal_probe *p);
/* After the answer, without the ledger's lock: whether the kernel
 * refuses the call (the verdict is kept in p). Then, under the lock,
 * refusals_record() counts it. WHO: the caller. */
bool refusals_judge(struct refusals *r, struct refusal_probe *p);
void refusals_record(struct refusals *r, const struct refusal_probe *p, const struct ledger_caller *who);
void refusals_probe_close(struct refusal_probe *p);

uint64_t refusals_total(const struct refusals *r);
size_t refusals_rows(const struct refusals *r, const struct refusal **rows);
/* Observed calls (the filter's notifications answered). */
uint64_t refusals_observed(const struct refusals *r);

void refusals_fix(const struct refusals *r, const struct refusal *row, struct fix *f);

/* At exit, nothing when nothing was refused:
 *   sbx: 2 writes refused: openat /usr/lib/x (EROFS, read-only mount) x1 [pid 3 "npm"]
 *   sbx: fix: [filesystem] rw = ... (review: ...) */
void refusals_print_summary(const struct refusals *r, FILE *out);

/* {"observed": true, "calls": N, "total": N, "unlisted": N, "writes": [
 *   {"syscall", "path", "errno", "count", "pid", "comm", "fix"}]}; a NULL r:
 * observed false (no observer: sbx(1) REFUSED WRITES says when). */
struct json_object *refusals_to_json(const struct refusals *r);

#endif
