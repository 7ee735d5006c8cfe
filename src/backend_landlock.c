#include "config.h"

/* The Landlock tier's backend (backend.h; sbx(1) TIERS): no namespace at
 * all, chosen only where the profile asks for fallback = landlock and the
 * user namespace is refused. Its part of the plan is the Landlock ruleset
 * (landlock.c), the run's TMPDIR, why the namespaces could not be had,
 * and the rules of sbx's own through which the supervisor keeps what
 * Landlock cannot: inet bind, connect, listen and datagrams on the
 * loopback only (landlock_net.h), metadata changes inside the writable
 * paths only (landlock_meta.h). init sets nothing up; the command drops
 * its privileges and restricts itself. */

#include "backend.h"

#include "egress.h"
#include "landlock.h"
#include "ledger.h"
#include "log.h"
#include "plan.h"
#include "seccomp.h"
#include "tier.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The Landlock tier's part of the plan. */
struct landlock_part {
    struct landlock_plan ruleset;
    char userns_refused[512];  /* why the user namespace could not be had */
};

/* The Landlock tier's network (sbx(1) TIERS): the host's, where Landlock
 * can refuse TCP by port, never by address. So bind, connect and listen
 * on inet sockets stop in the kernel and reach the supervisor (ledger.c),
 * which makes the loopback ones itself, on the command's socket, with the
 * address it read and checked: the kernel never reads the command's
 * memory again after the check. Everything else inet is refused (EACCES,
 * as Landlock says) and counted. mode = none: nothing inet at all. */
static const char *const metadata_calls[] = {
    "chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "lchown", "fchown", "fchownat",
    "utime", "utimes", "futimesat", "utimensat", "setxattr", "lsetxattr", "fsetxattr",
    "removexattr", "lremovexattr", "fremovexattr",
};

static const struct profile *add_landlock_rules(struct sandbox_plan *plan, const struct profile *p,
                                                const struct landlock_plan *landlock)
{
    struct deny_rule rules[7 + sizeof metadata_calls / sizeof metadata_calls[0]];
    size_t n = 0;
    /* chmod, chown, utimes and xattrs outside the writable paths, which
     * Landlock does not cover: made by the supervisor inside them
     * (landlock_meta.h), refused elsewhere and counted */
    for (size_t i = 0; landlock->metadata && i < sizeof metadata_calls / sizeof metadata_calls[0]; i++) {
        int nr = seccomp_syscall_number(metadata_calls[i]);
        if (nr >= 0)
            rules[n++] = (struct deny_rule){
                .syscall = (char *)metadata_calls[i], .nr = nr, .errnum = EPERM,
                .text = (char *)"EPERM outside the writable paths (the Landlock tier)",
                .at = p->at[K_FS_ROOT], .supervisor_makes = true,
            };
    }
    if (!landlock->handled_net)
        return plan_with_rules(plan, p, rules, n);
    bool loopback = p->net_mode == NET_LOOPBACK;
    const uint64_t inet = (UINT64_C(1) << AF_INET) | (UINT64_C(1) << AF_INET6);
    /* Every inet datagram socket (UDP, ping) is made by the supervisor and
     * bound to lo (landlock_net.h): a call the kernel makes on one after a
     * continue (a dup2() over a descriptor checked as TCP or unix) stays
     * on the loopback. Stream sockets are continued. */
    rules[n++] = (struct deny_rule){
        .syscall = (char *)"socket", .nr = seccomp_syscall_number("socket"),
        .families = inet, .errnum = EACCES,
        .text = (char *)"socket:inet,inet6 datagram sockets bound to lo (the Landlock tier)",
        .at = p->at[K_NET_MODE], .supervisor_makes = true,
    };
    static const char *const calls[] = { "bind", "connect", "listen" };
    static const char *const texts[3][3] = {
        { "bind:inet,inet6 EACCES (the Landlock tier: mode = none)",
          "connect:inet,inet6 EACCES (the Landlock tier: mode = none)",
          "listen:inet,inet6 EACCES (the Landlock tier: mode = none)" },
        { "bind:inet,inet6 EACCES but loopback (the Landlock tier)",
          "connect:inet,inet6 EACCES but loopback (the Landlock tier)",
          "listen:inet,inet6 EACCES but on loopback (the Landlock tier)" },
        { "bind:inet,inet6 EACCES but loopback (the Landlock tier)",
          "connect:inet,inet6 EACCES but loopback: out only through sbx's proxy "
          "([network] allow, the Landlock tier)",
          "listen:inet,inet6 EACCES but on loopback (the Landlock tier)" },
    };
    int row = loopback ? (landlock->proxy ? 2 : 1) : 0;
    for (size_t i = 0; i < 3; i++)
        rules[n++] = (struct deny_rule){
            .syscall = (char *)calls[i], .nr = seccomp_syscall_number(calls[i]),
            .families = inet, .errnum = EACCES, .text = (char *)texts[row][i],
            .at = p->at[K_NET_MODE], .supervisor_makes = loopback,
        };
    /* Datagrams (UDP, ping sockets), which Landlock does not restrict at
     * all: each one that names an address is checked and sent by the
     * supervisor from what it read (landlock_net.h); sendto() without
     * one (send(), every TCP write of many programs) never wakes it */
    static const char *const sends[] = { "sendto", "sendmsg", "sendmmsg" };
    for (size_t i = 0; i < 3; i++)
        rules[n++] = (struct deny_rule){
            .syscall = (char *)sends[i], .nr = seccomp_syscall_number(sends[i]),
            .families = inet, .errnum = EACCES,
            .text = loopback ? (char *)"send*:inet,inet6 EACCES but to loopback (the Landlock tier)"
                             : (char *)"send*:inet,inet6 EACCES (the Landlock tier: mode = none)",
            .at = p->at[K_NET_MODE], .supervisor_makes = loopback, .with_address = true,
        };
    return plan_with_rules(plan, p, rules, n);
}


static const struct profile *ll_rules(struct sandbox_plan *plan, void *part,
                                      const struct profile *p, const char *why)
{
    struct landlock_part *ll = part;
    snprintf(ll->userns_refused, sizeof ll->userns_refused, "%s", why);
    landlock_plan_prepare(&ll->ruleset, p, plan->home);
    const struct profile *with = add_landlock_rules(plan, p, &ll->ruleset);
    /* the Landlock tier's own checks need the supervisor's listener */
    if (with->ndeny > p->ndeny && tier_outer_listener())
        die("the Landlock tier checks bind, connect and listen on inet sockets, and chmod, "
            "chown, utimes and xattrs, through a seccomp listener, and the sandbox sbx runs in "
            "holds the one the kernel allows (an outer sbx with deny rules or [network] allow?): "
            "run the outer sandbox without them, or give it a network namespace with only lo "
            "and a read-only root, where the tier needs no listener");
    return with;
}

static void ll_prepare(struct sandbox_plan *plan, void *part, struct env_diff *env_diff)
{
    struct landlock_part *ll = part;
    /* [network] allow: the proxy on the host's loopback (egress.h), with
     * no stub and no resolv.conf of its own (landlock.c says so) */
    uint16_t proxy_port = EGRESS_PROXY_PORT;
    if (ll->ruleset.proxy)
        plan->egress = egress_prepare_host_loopback(plan->profile, &proxy_port);
    if (plan->egress)
        egress_set_env(&plan->env, &env_diff->set_by_sbx, proxy_port);
    landlock_set_env(&ll->ruleset, &plan->env);
}

static pid_t fork_raw(void)
{
    /* fork() semantics, as ns_clone() (ns.c says why) */
    return (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL, NULL, NULL);
}

static pid_t ll_spawn(struct sandbox_plan *plan, void *part, struct sandbox_result *res)
{
    struct landlock_part *ll = part;
    res->tier = TIER_LANDLOCK;
    tier_reap_probe();
    snprintf(res->userns_refusal, sizeof res->userns_refusal, "%s", ll->userns_refused);
    res->landlock_abi = ll->ruleset.abi;
    landlock_make_tmpdir(&ll->ruleset);
    pid_t pid = fork_raw();
    if (pid < 0)
        die_errno("starting the Landlock tier's init (fork)");
    if (pid == 0)
        return pid;
    res->uid_outside = res->uid_inside = plan->outer_uid;
    res->gid_outside = res->gid_inside = plan->outer_gid;
    verbose_step("Landlock tier, init is pid %d outside", (int)pid);
    return pid;
}

static void ll_apply(const struct sandbox_plan *plan, const void *part)
{
    const struct landlock_part *ll = part;
    /* no_new_privs first: landlock_restrict_self() needs it */
    landlock_drop_privileges();
    landlock_apply(&ll->ruleset, plan->terminal_slave);
}

static void ll_ledger(const void *part, struct ledger *l)
{
    const struct landlock_part *ll = part;
    struct strv writable = { 0 };
    landlock_writable_paths(&ll->ruleset, &writable);
    ledger_set_landlock_writable(l, &writable);
    strv_free(&writable);
}

static void ll_free(void *part)
{
    struct landlock_part *ll = part;
    landlock_plan_free(&ll->ruleset);
}

const struct backend backend_landlock = {
    .tier = TIER_LANDLOCK, .name = "landlock", .part_size = sizeof(struct landlock_part),
    /* its refusals are EACCES from Landlock, and its checks need the listener */
    .observes_writes = false, .inet_filter = true, .protects_paths = false,
    .rules = ll_rules, .prepare = ll_prepare, .spawn = ll_spawn, .enter = NULL, .ready = NULL,
    .apply = ll_apply, .ledger = ll_ledger, .outbound = NULL, .free = ll_free,
};
