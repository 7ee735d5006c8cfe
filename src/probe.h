/* `sbx probe`: what can the current environment validate? The results
 * model and the checks (probe.c). Every check runs here, without creating
 * a sandbox (namespace checks fork a child that tries and reports back).
 * The verdicts are pure (probe_verdict.h), the formats probe_output.h, the
 * command line probe_cmd.c; `--profile P` re-runs the same probe inside a
 * sandbox built from P (probe_profile.h).
 *
 * Output formats and the meaning of each key: docs/probe-json.md. */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include "probe_credentials.h"

#include <stdbool.h>
#include <stdio.h>

/* Below this soft RLIMIT_NOFILE an async runtime (tokio, libuv, a test
 * runner with a pool) is likely to hit EMFILE under a real test suite. */
#define PROBE_NOFILE_ENOUGH 4096

enum probe_status {
    PROBE_OK,           /* works */
    PROBE_DENIED,       /* a policy refused: EPERM or EACCES */
    PROBE_UNAVAILABLE,  /* the kernel or the network cannot: any other errno */
    PROBE_LOW,          /* a limit below what tests need */
    PROBE_INFO,         /* a fact about the environment, not a pass/fail */
    PROBE_EXPOSED,      /* credentials readable here (the credentials check) */
};

struct probe_check {
    const char *name;       /* stable key, e.g. "loopback_ipv4_connect" */
    enum probe_status status;
    bool required;          /* a non-ok status fails the check in --tap */
    int errnum;             /* 0 when none */
    bool has_number;        /* value is number, else text (or none) */
    long long number;
    char *text;             /* value as text, or NULL */
    char *detail;           /* what was tried, what failed, the fix */
};

enum probe_check_id {
    CHECK_USER_NS,
    CHECK_NET_NS,
    CHECK_MOUNT_NS,
    CHECK_LO4_BIND,
    CHECK_LO4_CONNECT,
    CHECK_LO6_BIND,
    CHECK_LO6_CONNECT,
    CHECK_UNIX_BIND,
    CHECK_UNIX_CONNECT,
    CHECK_NOFILE_SOFT,
    CHECK_NOFILE_HARD,
    CHECK_NR_OPEN,
    CHECK_SECCOMP,
    CHECK_NO_NEW_PRIVS,
    CHECK_LANDLOCK,
    CHECK_CONTAINER,
    CHECK_INSIDE_SBX,
    CHECK_CREDENTIALS,
    /* appended, so that the TAP numbers of the checks above stay */
    CHECK_PROC_MOUNT,
    CHECK_APPARMOR,
    CHECK_COUNT
};

struct probe_verdict {
    bool ok;
    char *reason;
};

struct probe_results {
    struct probe_check checks[CHECK_COUNT];
    /* -1 when the file does not exist on this kernel */
    long long unprivileged_userns_clone, max_user_namespaces,
        apparmor_restrict_userns, nr_open;
    int apparmor_sbx_loaded;    /* 1, 0, -1 unknown (apparmor.h) */
    char apparmor_label[96];    /* what confines sbx probe; "" unknown */
    bool dockerenv;
    char *container_env, *pid1_comm, *sbx_profile;
    struct probe_verdict network, descriptors, sandbox;
    /* sbx(1) TIERS: where `sbx run` runs here: "namespaces", "landlock"
     * (only under fallback = landlock) or "none"; a static string */
    const char *tier;
    struct cred_scan creds;     /* the credentials check's hits */
};

/* Runs every check (probe.c: the only part that makes system calls) and
 * computes the verdicts (probe_verdict.h). scan_cwd: the working
 * directory the credentials check walks besides $HOME (NULL: getcwd()). */
void probe_run(struct probe_results *r, const char *scan_cwd);
void probe_results_free(struct probe_results *r);

#endif
