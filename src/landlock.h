/* The Landlock tier: a sandbox without namespaces, for hosts that refuse
 * user namespaces (AppArmor's restriction, a container's seccomp profile,
 * user.max_user_namespaces = 0), chosen only by [sandbox] fallback =
 * landlock or --fallback landlock (tier.h decides when it runs).
 *
 * The supervisor checks the whole profile against what Landlock (and the
 * rest of the tier: seccomp, limits, capabilities, a subreaper) can
 * express, refuses at start every rule it cannot, naming it, warns about
 * what the tier gives instead of a namespace, and plans the rules; the
 * command applies them just before its seccomp filter. sbx(1) TIERS has
 * the table of what each tier guarantees. */
#ifndef SBX_LANDLOCK_H
#define SBX_LANDLOCK_H

#include "backend.h"
#include "profile.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One Landlock path-beneath rule: access granted on the object at path
 * (a canonical path, opened O_PATH|O_NOFOLLOW by the command). */
struct landlock_path_rule {
    char *path;
    uint64_t access;
    bool listed;   /* an entry of a directory read at start: gone by now is fine */
};

struct landlock_plan {
    int abi;                  /* the kernel's Landlock ABI version */
    uint64_t handled_fs;      /* every filesystem right this ABI knows */
    uint64_t handled_net;     /* TCP bind/connect (ABI >= 4) unless mode = host */
    uint64_t scoped;          /* abstract unix sockets and signals (ABI >= 6) */
    struct landlock_path_rule *rules;
    size_t nrules, caprules;
    uint16_t *connect_ports;  /* TCP connect allowed to these ([network] forward) */
    size_t nports;
    char *tmpdir;             /* tmpfs = /tmp instead: this run's TMPDIR, or NULL */
    bool tmpdir_made;         /* by landlock_make_tmpdir(): removed at the end */
    bool metadata;            /* chmod & co. checked by the supervisor (landlock_meta.h) */
    bool proxy;               /* [network] allow: the proxy on the host's loopback (egress.h) */
};

/* The kernel's Landlock ABI version, or -1 with errno (ENOSYS: not built
 * in; EOPNOTSUPP: built in but not enabled at boot). */
int landlock_abi_version(void);

/* In the supervisor, before anything of the tier starts: checks every
 * rule of p against what this kernel's Landlock can express, prints each
 * refusal ("FILE:LINE: rule: why") and exits 125 when there is one;
 * prints what the tier gives instead of namespaces; fills plan. */
void landlock_plan_prepare(struct landlock_plan *plan, const struct profile *p, const char *home);
/* `sbx profile show --tier landlock`: what the Landlock tier does with p
 * here, nothing made: each rule it expresses otherwise into said, each it
 * refuses ("FILE:LINE: rule: why") into refused; false when one is. */
bool landlock_plan_describe(const struct profile *p, const char *home, struct strv *said,
                            struct strv *refused);

/* In the supervisor, just before the tier starts: the run's TMPDIR,
 * mode 0700 (dies when the name was taken meanwhile), and its rule. */
void landlock_make_tmpdir(struct landlock_plan *plan);

/* Frees plan, and removes the run's TMPDIR (the supervisor, at the end). */
void landlock_plan_free(struct landlock_plan *plan);

/* The paths the command may write (rw rules, the run's TMPDIR), for the
 * supervisor's metadata checks (landlock_meta.h), pushed onto out. */
void landlock_writable_paths(const struct landlock_plan *plan, struct strv *out);

/* TMPDIR of the command's environment: the run's own directory, where
 * tmpfs = /tmp was planned as one. */
void landlock_set_env(const struct landlock_plan *plan, struct strv *env);

/* In the command's process (a vfork() child: allocates nothing), with
 * no_new_privs set: builds the ruleset and restricts the process. own_tty:
 * the command's pty (init's), the one terminal under /dev/pts it may
 * open by name, or -1. Dies (exit 125) naming the path or the call that
 * failed. */
void landlock_apply(const struct landlock_plan *plan, int own_tty);

/* In the command's process of the Landlock tier, instead of
 * privileges_drop(): without a user namespace a non-root caller has no
 * CAP_SETPCAP to empty the bounding set, and needs none: with
 * no_new_privs no execve() can gain a capability. Clears the ambient,
 * inheritable, permitted and effective sets, and the bounding set where
 * the caller may (root), then sets no_new_privs. */
void landlock_drop_privileges(void);

/* Every profile key and what the Landlock tier does with it (backend.h),
 * for the test that walks the profile parser's key table: the same as
 * the namespaces, expressed by Landlock's own means, something else
 * instead (said at start), or refused by file:line. */
const struct backend_key_fate *landlock_key_fate(enum profile_key k);

#endif
