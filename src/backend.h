/* The backends that make a sandbox (sbx(1) TIERS): the namespaces
 * (backend_ns.c) and the Landlock tier (backend_landlock.c). The plan
 * (plan.h) has a part every backend reads, `struct sandbox_plan`, and a
 * part of the backend's own, `sandbox_plan.part`, whose type only that
 * backend's file defines: the namespaces' code cannot name the Landlock
 * tier's part, nor the other way round, so no decision of one can reach a
 * run of the other. The backend is chosen first (tier_choose(), the
 * one-child probe), before anything is planned; sandbox.c, init.c and
 * command.c call the operations below and never branch on the tier. */
#ifndef SBX_BACKEND_H
#define SBX_BACKEND_H

#include "env.h"
#include "profile.h"
#include "sandbox.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ledger;
struct outbound;
struct sandbox_plan;

struct backend {
    enum sandbox_tier tier;
    const char *name;          /* "namespaces" or "landlock" (tier_name()) */
    size_t part_size;          /* of the backend's part, zeroed before `rules` */
    /* The write observer may hold the listener (seccomp_observe.h): not
     * where the backend's own checks need it. */
    bool observes_writes;
    /* The seccomp program of the backend's inet protocols is built
     * (seccomp_packet.h: MPTCP, SCTP, TCP Fast Open refused). */
    bool inet_filter;
    /* With the profile's mount namespace, the protect list keeps its paths
     * read-only to the command (mount-plan.h): sbx's own state below
     * $HOME (the compiled filters, seccomp_cache.h) is safe to reuse. */
    bool protects_paths;

    /* In the supervisor, first: the profile this backend runs, the rules
     * of sbx's own that it needs added (plan_with_rules()), and the checks
     * that must come before the filter compiles. why: why tier_choose()
     * chose it (empty for the namespaces). Dies (125) on a refusal. */
    const struct profile *(*rules)(struct sandbox_plan *plan, void *part,
                                   const struct profile *p, const char *why);
    /* In the supervisor, before clone(): everything else the backend
     * decides and checks (the proxy and its environment, capabilities,
     * the namespaces' network and mount plan; the Landlock tier's TMPDIR),
     * with the environment's diff for the record. */
    void (*prepare)(struct sandbox_plan *plan, void *part, struct env_diff *diff);
    /* In the supervisor: init's process in the backend's sandbox (0 in
     * the child); fills what res says of the sandbox made. */
    pid_t (*spawn)(struct sandbox_plan *plan, void *part, struct sandbox_result *res);
    /* In init, first: what the backend sets up inside (id maps, hostname,
     * the mount plan); then, once in the pids cgroup, `ready`: waits for
     * what the supervisor brings up (lo, the proxy's sockets, pasta). */
    void (*enter)(struct sandbox_plan *plan, void *part);
    void (*ready)(struct sandbox_plan *plan, void *part);
    /* In the command's process (vfork: allocates nothing), just before its
     * seccomp filter: privileges dropped, the backend's confinement applied. */
    void (*apply)(const struct sandbox_plan *plan, const void *part);
    /* In the supervisor, once the listener came: what the ledger's thread
     * needs of the backend (NULL: nothing). */
    void (*ledger)(const void *part, struct ledger *l);
    /* The network the supervisor starts for the sandbox (pasta), or NULL. */
    struct outbound *(*outbound)(void *part);
    /* In the supervisor, at the end: frees the part and removes what the
     * backend made for the run. */
    void (*free)(void *part);
};

extern const struct backend backend_namespaces;
extern const struct backend backend_landlock;

const struct backend *backend_of(enum sandbox_tier tier);

/* Every profile key and what a backend does with it, for the tests that
 * walk the profile parser's key table (profile_keys.c; a key added there
 * without a row in each backend fails them): the backend's own way
 * (BACKEND_SAME: what the key says, by the backend's own means),
 * something else instead (said at start), or refused by file:line. A
 * refused key names a line that refuses it (section and KEY = VALUE). */
enum backend_fate { BACKEND_UNKNOWN, BACKEND_SAME, BACKEND_EXPRESSED, BACKEND_INSTEAD,
                    BACKEND_REFUSED };
struct backend_key_fate {
    enum backend_fate fate;
    const char *how;
    const char *section, *refused_line; /* BACKEND_REFUSED: an example */
};
/* The namespaces' row (backend_ns.c); NULL: none. */
const struct backend_key_fate *backend_ns_key_fate(enum profile_key k);

#endif
