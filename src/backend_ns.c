#include "config.h"

/* The namespaces backend (backend.h; sbx(1) TIERS): clone() into a user,
 * mount, network, PID, IPC and UTS namespace of the sandbox's own. Its
 * part of the plan is the namespaces' own: the clone flags, the kept
 * capabilities, the network (lo, pasta, [network] allow's no-route rule)
 * and the mount plan resolved on the host; init writes the id maps and
 * applies the mounts, the command drops its privileges. */

#include "backend.h"

#include "apparmor.h"
#include "caps.h"
#include "channel.h"
#include "cli.h"
#include "egress.h"
#include "env_paths.h"
#include "hosts.h"
#include "init.h"
#include "layers.h"
#include "log.h"
#include "mount.h"
#include "net.h"
#include "ns.h"
#include "outbound.h"
#include "plan.h"
#include "project.h"
#include "protect.h"
#include "report.h"
#include "seccomp.h"
#include "tier.h"
#include "util.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <unistd.h>

/* The namespaces' part of the plan. */
struct ns_part {
    int clone_flags;           /* CLONE_NEW* from ns_clone_flags() */
    uint64_t caps_kept;        /* capabilities = , as a mask (caps.h), cap_net_raw of ours */
    struct outbound outbound;  /* network: pasta's plan and the sandbox's resolv.conf */
    bool loopback;             /* own network namespace with lo up (init: and handed out) */
    bool has_mounts;           /* CLONE_NEWNS: `mounts` is resolved and sealed */
    struct mount_plan mounts;  /* mount.h: resolved on the host, applied by init */
};

static void describe_network(const struct profile *p, int flags)
{
    if (p->net_mode == NET_HOST)
        verbose("network: mode = host: the command shares the host's network namespace "
                "(no network isolation)");
    else if (!(flags & CLONE_NEWNET))
        verbose("network: net = no in [namespaces]: the command shares the host's network "
                "namespace (no network isolation; mode = %s has no effect)",
                net_mode_name(p->net_mode));
    else if (p->net_mode == NET_NONE)
        verbose("network: mode = none: own network namespace, lo left down");
    else if (p->outbound)
        verbose("network: mode = loopback, outbound = yes: own network namespace and lo, "
                "outbound TCP/UDP/DNS through pasta; host loopback ports forwarded: %zu",
                p->nforward);
    else if (p->allow.n)
        verbose("network: mode = loopback, allow = %zu entries: own network namespace and lo, "
                "no route; out only through sbx's proxy on 127.0.0.1:%d, names through its "
                "DNS stub", p->allow.n, EGRESS_PROXY_PORT);
    else
        verbose("network: mode = loopback: own network namespace, lo up (127.0.0.1, ::1)");
}

/* CAP_NET_RAW for a command that is root in its own network namespace
 * (caps.c says why that grants nothing outside it), said with -v either
 * way when it is root inside. */
static uint64_t net_raw_planned(const struct profile *p, bool caller_is_root)
{
    if (privileges_keep(p, CAP_NET_RAW))
        return 0; /* the profile's own choice, in the mask already */
    switch (privileges_net_raw_grant(p, caller_is_root)) {
    case NET_RAW_GRANTED:
        verbose("capabilities: cap_net_raw kept: the command is uid 0 in a network namespace "
                "of the sandbox's own, where raw and packet-level access reaches only it "
                "(AF_PACKET and AF_XDP stay denied by seccomp)");
        return UINT64_C(1) << CAP_NET_RAW;
    case NET_RAW_HOST_NETNS:
        verbose("capabilities: no cap_net_raw: the command shares the host's network namespace "
                "(raw sockets would act on the host's)");
        break;
    case NET_RAW_UNGUARDED:
        verbose("capabilities: no cap_net_raw: %s would leave AF_PACKET sockets open",
                p->seccomp != SECCOMP_DEFAULT ? "seccomp = none"
                : p->io_uring                  ? "io_uring = yes"
                                               : "no packet-socket filter on this architecture");
        break;
    case NET_RAW_PROFILE_NO:
        verbose("capabilities: no cap_net_raw: the profile says net_raw = no");
        break;
    case NET_RAW_NOT_ROOT:
        break;
    }
    return 0;
}

/* The sandbox's /etc/hosts (hosts.h) when it has a hostname of its own,
 * or NULL: with the UTS namespace shared, the hostname is the host's and
 * so is the file that resolves it; with root = tmpfs the sandbox has only
 * what its rules add, and no /etc of the host's to complete. */
static char *sandbox_hosts_file(const struct profile *p, int flags)
{
    if (!(flags & CLONE_NEWUTS) || !p->hostname || !*p->hostname)
        return NULL;
    if (p->root == ROOT_TMPFS) {
        verbose("mount: /etc/hosts is not made by sbx with root = tmpfs: the hostname %s "
                "resolves only if the profile's rules give it a file",
                p->hostname);
        return NULL;
    }
    size_t len = 0;
    char *host = read_file_text("/etc/hosts", HOSTS_HOST_MAX, &len);
    if (!host && errno != ENOENT) {
        warn_errno("warning: reading the host's /etc/hosts for the sandbox's copy failed; "
                   "it stays the host's, where the sandbox's hostname %s does not resolve",
                   p->hostname);
        return NULL;
    }
    char *text = hosts_file_generate(host, len, p->hostname);
    free(host);
    return text;
}

/* [network] allow leaves the sandbox no route: a tool that ignores the
 * proxy variables gets ENETUNREACH from its connect() at once. A deny
 * rule of sbx's own, on connect() to IPv4 and IPv6 addresses that are not
 * loopback, puts each such call in the ledger with that same errno, so the
 * summary can say which tool went around the proxy. io_uring's connect
 * passes no filter: with io_uring = yes the calls still fail, unrecorded. */
static const struct profile *add_no_route_rule(struct sandbox_plan *plan, const struct profile *p)
{
    if (!p->allow.n || !p->ns[NS_NET] || p->io_uring)
        return p;
    struct deny_rule rule = {
        .syscall = (char *)"connect", .nr = seccomp_syscall_number("connect"),
        .families = (UINT64_C(1) << AF_INET) | (UINT64_C(1) << AF_INET6),
        .errnum = ENETUNREACH, .text = (char *)"connect:inet,inet6 ENETUNREACH ([network] allow)",
        .at = p->allow.v[0].at, .no_route = true,
    };
    return plan_with_rules(plan, p, &rule, 1);
}


static const struct profile *ns_rules(struct sandbox_plan *plan, void *part,
                                      const struct profile *p, const char *why)
{
    (void)why;
    struct ns_part *ns = part;
    p = add_no_route_rule(plan, p);
    ns->clone_flags = ns_clone_flags(p);
    plan->pid_namespace = ns->clone_flags & CLONE_NEWPID;
    return p;
}

/* The mount plan: the whole of [filesystem] resolved on the host
 * (mount.h); init applies it: private propagation, the new root, the
 * rules, /proc, /dev, pivot_root, the working directory. */
static void plan_mounts(struct sandbox_plan *plan, struct ns_part *ns, const char *resolv_conf,
                        struct protect_list *protect)
{
    const struct profile *p = plan->profile;
    const struct project *project = cli_project();
    record_step("mount plan");
    struct mount_generated generated[2];
    size_t ngenerated = 0;
    if (resolv_conf)
        generated[ngenerated++] = (struct mount_generated){
            .path = "/etc/resolv.conf", .content = resolv_conf,
            .why = plan->egress ? "DNS through sbx's stub ([network] allow)"
                                : "DNS through pasta's forwarding address",
            .at = plan->egress ? p->allow.v[0].at : p->at[K_NET_OUTBOUND],
        };
    autofree char *hosts = sandbox_hosts_file(p, ns->clone_flags);
    if (hosts)
        generated[ngenerated++] = (struct mount_generated){
            .path = "/etc/hosts", .content = hosts,
            .why = "the host's file and the sandbox's hostname on " HOSTS_SANDBOX_ADDRESS,
            .at = p->at[K_HOSTNAME],
        };
    autofree char *layers = layers_root(plan->home, getenv("XDG_STATE_HOME"));
    autofree char *layers_profile = layers_profile_name(p);
    struct mount_inputs in = {
        .layers_root = layers, .layers_profile = layers_profile,
        .cwd = plan->cwd, .generated = generated, .ngenerated = ngenerated,
        .protect = protect, .outer_uid = plan->outer_uid, .home = plan->home,
        .project_root = project->kind == PROJECT_GIT_LINK ? project->root : NULL,
        .git_dirs = { project->git_dir, project->common_dir },
    };
    /* The --report path against every place this profile's sandbox can
     * write, its rw rules included (output_file.h): the list the plan
     * worked out. */
    __attribute__((cleanup(strv_free))) struct strv writable = { 0 };
    in.writable_out = &writable;
    mount_plan_prepare(p, &in, &ns->mounts);
    ns->has_mounts = true;
    if (project->root)
        strv_push(&writable, xstrdup(project->root));
    report_recheck_places(&writable);
    verbose_step("mount plan: %zu mounts resolved on the host", ns->mounts.n);
    const struct mount_entry *hides = mount_plan_hiding(&ns->mounts, plan->cwd);
    if (hides) {
        char at[512];
        die("working directory %s is not visible inside the sandbox (%s: %s %s covers it; "
            "make it visible with --ro/--rw %s, or start elsewhere with --chdir)",
            plan->cwd, origin_format(&hides->at, at, sizeof at), mount_op_name(hides->op),
            hides->path, plan->cwd);
    }
    /* issue 34: a PYTHONPATH under a private /tmp imports nothing,
     * silently; say so before the command runs */
    struct strv hidden = { 0 };
    env_paths_hidden(plan->env.v, plan->env.n, &ns->mounts, &hidden);
    for (size_t i = 0; i < hidden.n; i++)
        warn("warning: %s", hidden.v[i]);
    strv_free(&hidden);
    /* Kernel uid 0 keeps a CAP_DAC_OVERRIDE that works only without a
     * user namespace: foreign_owner.h. */
    bool dac_override = ns->caps_kept & (UINT64_C(1) << CAP_DAC_OVERRIDE);
    if (plan->outer_uid == 0 && ((ns->clone_flags & CLONE_NEWUSER) || !dac_override))
        foreign_owner_scan(&plan->foreign, &ns->mounts, plan->cwd, dac_override);
}

static void ns_prepare(struct sandbox_plan *plan, void *part, struct env_diff *env_diff)
{
    struct ns_part *ns = part;
    const struct profile *p = plan->profile;
    struct protect_list protect = { 0 };
    if (ns->clone_flags & CLONE_NEWNS) {
        plan_protect_list(&protect, plan->home, cli_project());
        verbose_step("protect list: %zu paths", protect.n);
    }
    /* [network] allow: the proxy on the sandbox's own loopback */
    plan->egress = egress_prepare(p, ns->clone_flags);
    if (plan->egress)
        egress_set_env(&plan->env, &env_diff->set_by_sbx, EGRESS_PROXY_PORT);
    ns->caps_kept = privileges_kept_mask(p);
    apparmor_refuse_kept_capabilities(ns->caps_kept);
    /* cap_net_raw is sbx's own addition, not the profile's: where AppArmor
     * denies the command every capability, it is left out, not refused */
    if (apparmor_denies_command_capabilities())
        verbose("capabilities: no cap_net_raw: AppArmor's sbx profile denies the command every "
                "capability");
    else
        ns->caps_kept |= net_raw_planned(p, plan->outer_uid == 0);
    outbound_prepare(&ns->outbound, p, ns->clone_flags);
    const char *resolv_conf = ns->outbound.resolv_conf;
    if (plan->egress)
        resolv_conf = egress_resolv_conf();
    if (resolv_conf && !(ns->clone_flags & CLONE_NEWNS))
        warn("warning: %s with mount = no: /etc/resolv.conf stays the host's, "
             "so DNS works only if it names a resolver %s",
             plan->egress ? "[network] allow" : "outbound network",
             plan->egress ? "on 127.0.0.1 (sbx's stub)"
                          : "pasta can reach (not the host's loopback)");
    ns->loopback = (ns->clone_flags & CLONE_NEWNET) && p->net_mode == NET_LOOPBACK;
    if (ns->clone_flags & CLONE_NEWUSER)
        ns_check_uid_map_allowed(plan->outer_uid);

    char flags_text[160];
    verbose_step("profile %s: namespaces %s", p->name ? p->name : "(built-in)",
                 ns_flags_text(ns->clone_flags, flags_text, sizeof flags_text));
    describe_network(p, ns->clone_flags);
    if (ns->clone_flags & CLONE_NEWNET) {
        autofree char *unused = profile_unused_warning(p);
        if (unused)
            warn("warning: %s", unused);
    }
    if (ns->clone_flags & CLONE_NEWNS)
        plan_mounts(plan, ns, resolv_conf, &protect);
    protect_list_free(&protect);
}

static pid_t ns_spawn(struct sandbox_plan *plan, void *part, struct sandbox_result *res)
{
    struct ns_part *ns = part;
    res->tier = TIER_NAMESPACES;
    pid_t pid = ns_clone(ns->clone_flags);
    if (pid > 0)
        tier_reap_probe();
    if (pid <= 0)
        return pid;
    /* What the namespaces made by clone() are, and who the command is in
     * them (ns_inside_uid(): the one line of the id maps init writes). */
    static const int ns_flag[NS_COUNT] = {
        [NS_USER] = CLONE_NEWUSER, [NS_MOUNT] = CLONE_NEWNS, [NS_NET] = CLONE_NEWNET,
        [NS_PID] = CLONE_NEWPID,   [NS_IPC] = CLONE_NEWIPC,  [NS_UTS] = CLONE_NEWUTS,
    };
    for (int k = 0; k < NS_COUNT; k++)
        res->ns_created[k] = ns->clone_flags & ns_flag[k];
    bool userns = ns->clone_flags & CLONE_NEWUSER;
    res->uid_outside = plan->outer_uid;
    res->gid_outside = plan->outer_gid;
    res->uid_inside = userns ? ns_inside_uid(plan->profile, plan->outer_uid) : plan->outer_uid;
    res->gid_inside = userns ? ns_inside_gid(plan->profile, plan->outer_gid) : plan->outer_gid;
    verbose_step("namespaces created, init is pid %d outside", (int)pid);
    return pid;
}

/* Bringing lo up takes loading libnl and a netlink round trip; the
 * supervisor does it while we mount, through a socket we open here, in
 * the sandbox's network namespace. rtnetlink wants CAP_NET_ADMIN over the
 * socket's namespace from the sender, and (since CVE-2014-0181) from the
 * socket's opener too (__netlink_ns_capable()). The opener is us; the
 * sender is the supervisor, which as the owner of our user namespace,
 * from its parent namespace, holds every capability in it
 * (user_namespaces(7)), root or not. */
/* An outer sandbox's filter (Codex without network) that refuses
 * socket() for AF_INET and AF_INET6 as well: then no command of ours
 * could use lo either, whether it is up or not. Tried, not assumed. */
static bool outer_filter_refuses_inet(void)
{
    static const int families[] = { AF_INET, AF_INET6 };
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        int fd = socket(families[i], SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd >= 0) {
            close(fd);
            return false;
        }
        if (errno != EPERM && errno != EACCES)
            return false;
    }
    return true;
}

/* False when lo is left down because nothing could use it (said). */
static bool hand_out_netlink_socket(int channel_fd, bool egress)
{
    int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (sock < 0 && (errno == EPERM || errno == EACCES) && !egress &&
        outer_filter_refuses_inet()) {
        warn("warning: lo stays down: the filter of the sandbox sbx runs in refuses netlink, "
             "AF_INET and AF_INET6 sockets (EPERM), so the command has no network at all, "
             "loopback included; to have it, allow the network in the outer sandbox (Codex: "
             "sandbox_workspace_write.network_access = true)");
        record_network("lo", "down: the outer sandbox refuses inet sockets");
        return false;
    }
    if (sock < 0)
        die_errno("opening an rtnetlink socket in the sandbox's network namespace");
    if (!channel_send(channel_fd, CHANNEL_NETLINK_FD, 0, sock))
        die_errno("passing the rtnetlink socket to the supervisor");
    close(sock);
    return true;
}

static void ns_enter(struct sandbox_plan *plan, void *part)
{
    struct ns_part *ns = part;
    const struct profile *p = plan->profile;
    if (ns->loopback)
        ns->loopback = hand_out_netlink_socket(plan->channel_fd, plan->egress);
    if (ns->clone_flags & CLONE_NEWUSER) {
        record_step("write uid/gid maps");
        struct ns_id_maps written;
        ns_write_id_maps(p, plan->outer_uid, plan->outer_gid, &written);
        record_id_maps(&written);
        verbose_step("uid/gid maps written");
    }
    if (ns->clone_flags & CLONE_NEWUTS)
        ns_set_hostname(p);
    if (ns->clone_flags & CLONE_NEWNET)
        ping_sockets_allow(ns_inside_gid(p, plan->outer_gid), ns->clone_flags & CLONE_NEWUSER);
    /* The mount plan the supervisor resolved (mount.h): private
     * propagation, the new root, the rules, /proc, /dev, pivot_root, the
     * working directory. */
    record_step("mounts");
    if (ns->has_mounts)
        mount_apply(p, &ns->mounts, plan->cwd);
    verbose_step("mounts done");
}

/* The supervisor attaches pasta to our namespaces (it needs the id maps
 * written) and answers once the tap device and routes are configured, so
 * that the command's first connect() already has a route. */
static void wait_for_outbound(int channel_fd)
{
    if (!channel_send(channel_fd, CHANNEL_NETWORK_READY, 0, -1))
        die_errno("asking the supervisor for outbound network");
    init_await_supervisor(channel_fd, CHANNEL_OUTBOUND_READY, "outbound network");
    verbose_step("outbound network ready");
}

static void ns_ready(struct sandbox_plan *plan, void *part)
{
    struct ns_part *ns = part;
    if (ns->loopback) {
        record_step("bring up lo (the supervisor)");
        init_await_supervisor(plan->channel_fd, CHANNEL_LOOPBACK_UP, "lo to come up");
        verbose_step("loopback up");
        /* Bound and listening before the command exists: its first
         * connect() to the proxy is queued, never refused (no race with
         * a helper that starts late). */
        if (plan->egress)
            egress_open_sockets(plan->channel_fd);
    }
    if ((ns->clone_flags & CLONE_NEWNET) && plan->profile->outbound)
        wait_for_outbound(plan->channel_fd);
}

static void ns_apply(const struct sandbox_plan *plan, const void *part)
{
    const struct ns_part *ns = part;
    privileges_drop(ns->caps_kept, plan->profile->no_new_privs);
}

static struct outbound *ns_outbound(void *part)
{
    struct ns_part *ns = part;
    return &ns->outbound;
}

static void ns_free(void *part)
{
    struct ns_part *ns = part;
    mount_plan_free(&ns->mounts);
}

const struct backend backend_namespaces = {
    .tier = TIER_NAMESPACES, .name = "namespaces", .part_size = sizeof(struct ns_part),
    .observes_writes = true, .inet_filter = false, .protects_paths = true,
    .rules = ns_rules, .prepare = ns_prepare, .spawn = ns_spawn, .enter = ns_enter,
    .ready = ns_ready, .apply = ns_apply, .ledger = NULL, .outbound = ns_outbound,
    .free = ns_free,
};

/* What the namespaces do with each key of the profile parser's table
 * (profile_keys.c), walked by backend-keys-test: every key is expressed,
 * each by the module named; a key added to the parser without a row here
 * is BACKEND_UNKNOWN and fails the test. */
static const struct backend_key_fate key_fates[K_COUNT] = {
    [K_DESCRIPTION] = { BACKEND_SAME, "text only (profile show)", NULL, NULL },
    [K_INCLUDE] = { BACKEND_SAME, "profiles read by the profile engine (lookup.c)", NULL, NULL },
    [K_SANDBOX_FALLBACK] = { BACKEND_SAME, "tier.c tier_choose(): the namespaces unless refused",
                             NULL, NULL },
    [K_NS_USER] = { BACKEND_SAME, "ns.c ns_clone_flags(): CLONE_NEWUSER, id maps by init", NULL, NULL },
    [K_NS_MOUNT] = { BACKEND_SAME, "ns.c ns_clone_flags(): CLONE_NEWNS, the mount plan (mount.c)",
                     NULL, NULL },
    [K_NS_NET] = { BACKEND_SAME, "ns.c ns_clone_flags(): CLONE_NEWNET, lo up (net.c)", NULL, NULL },
    [K_NS_PID] = { BACKEND_SAME, "ns.c ns_clone_flags(): CLONE_NEWPID, init is PID 1", NULL, NULL },
    [K_NS_IPC] = { BACKEND_SAME, "ns.c ns_clone_flags(): CLONE_NEWIPC", NULL, NULL },
    [K_NS_UTS] = { BACKEND_SAME, "ns.c ns_clone_flags(): CLONE_NEWUTS, the hostname", NULL, NULL },
    [K_UID] = { BACKEND_SAME, "ns.c ns_write_id_maps(): the uid map's one line", NULL, NULL },
    [K_GID] = { BACKEND_SAME, "ns.c ns_write_id_maps(): the gid map's one line", NULL, NULL },
    [K_HOSTNAME] = { BACKEND_SAME, "ns.c ns_set_hostname(), /etc/hosts (hosts.c)", NULL, NULL },
    [K_NESTED_USERNS] = { BACKEND_SAME, "seccomp.c: the filter", NULL, NULL },
    [K_NET_MODE] = { BACKEND_SAME, "net.c: lo up or down in the sandbox's network namespace; host: "
                     "no CLONE_NEWNET", NULL, NULL },
    [K_NET_OUTBOUND] = { BACKEND_SAME, "outbound.c: pasta", NULL, NULL },
    [K_NET_FORWARD] = { BACKEND_SAME, "outbound.c: pasta's forwarded host loopback ports", NULL, NULL },
    [K_NET_ALLOW] = { BACKEND_SAME, "egress.c: the proxy and DNS stub on the sandbox's lo, the "
                      "no-route rule (backend_ns.c)", NULL, NULL },
    [K_LIMIT_NOFILE] = { BACKEND_SAME, "rlimits.c: setrlimit", NULL, NULL },
    [K_LIMIT_NPROC] = { BACKEND_SAME, "rlimits.c: setrlimit, the pids cgroup for root (cgroup.c)",
                        NULL, NULL },
    [K_LIMIT_CORE] = { BACKEND_SAME, "rlimits.c: setrlimit", NULL, NULL },
    [K_LIMIT_CPU] = { BACKEND_SAME, "rlimits.c: setrlimit", NULL, NULL },
    [K_LIMIT_FSIZE] = { BACKEND_SAME, "rlimits.c: setrlimit", NULL, NULL },
    [K_LIMIT_AS] = { BACKEND_SAME, "rlimits.c: setrlimit", NULL, NULL },
    [K_LIMIT_STACK] = { BACKEND_SAME, "rlimits.c: setrlimit", NULL, NULL },
    [K_LIMIT_MEMLOCK] = { BACKEND_SAME, "rlimits.c: setrlimit", NULL, NULL },
    [K_LIMIT_SIGPENDING] = { BACKEND_SAME, "rlimits.c: setrlimit", NULL, NULL },
    [K_TIMEOUT] = { BACKEND_SAME, "supervise.c: the supervisor's timer", NULL, NULL },
    [K_FS_ROOT] = { BACKEND_SAME, "mount-plan.c: the new root (the host's read-only, or a tmpfs)",
                    NULL, NULL },
    [K_FS_RW] = { BACKEND_SAME, "mount-plan.c: a writable bind mount", NULL, NULL },
    [K_FS_RO] = { BACKEND_SAME, "mount-plan.c: a read-only bind mount", NULL, NULL },
    [K_FS_TMPFS] = { BACKEND_SAME, "mount-plan.c: a tmpfs of the sandbox's own", NULL, NULL },
    [K_FS_HIDE] = { BACKEND_SAME, "mount-plan.c: an empty read-only file or directory over it",
                    NULL, NULL },
    [K_FS_CACHE] = { BACKEND_SAME, "mount.c: an overlay of the host's path under its layer "
                     "(layers.c)", NULL, NULL },
    [K_FS_UNPROTECT] = { BACKEND_SAME, "protect.c: the protected path left out", NULL, NULL },
    [K_FS_CREATE] = { BACKEND_SAME, "mount.c: the directory made on the host", NULL, NULL },
    [K_FS_PROC] = { BACKEND_SAME, "mount.c: a fresh /proc of the PID namespace", NULL, NULL },
    [K_FS_DEV] = { BACKEND_SAME, "mount.c: a minimal /dev, or the host's", NULL, NULL },
    [K_FS_OBSERVE_WRITES] = { BACKEND_SAME, "seccomp_observe.c, refusals.c: the write observer",
                              NULL, NULL },
    [K_ENV_CLEAR] = { BACKEND_SAME, "env.c: the environment", NULL, NULL },
    [K_ENV_KEEP] = { BACKEND_SAME, "env.c: the environment", NULL, NULL },
    [K_ENV_SET] = { BACKEND_SAME, "env.c: the environment", NULL, NULL },
    [K_ENV_UNSET] = { BACKEND_SAME, "env.c: the environment", NULL, NULL },
    [K_ENV_UNSET_SECRET_VALUES] = { BACKEND_SAME, "env.c: the environment", NULL, NULL },
    [K_SEC_NO_NEW_PRIVS] = { BACKEND_SAME, "caps.c privileges_drop()", NULL, NULL },
    [K_SEC_CAPABILITIES] = { BACKEND_SAME, "caps.c privileges_drop(): kept in the user namespace",
                             NULL, NULL },
    [K_SEC_NET_RAW] = { BACKEND_SAME, "caps.c: cap_net_raw in the sandbox's network namespace",
                        NULL, NULL },
    [K_SEC_SECCOMP] = { BACKEND_SAME, "seccomp.c: the filter", NULL, NULL },
    [K_SEC_IO_URING] = { BACKEND_SAME, "seccomp.c: io_uring allowed or denied", NULL, NULL },
    [K_SEC_DENY] = { BACKEND_SAME, "seccomp.c, ledger.c: the rules and the ledger", NULL, NULL },
};

const struct backend_key_fate *backend_ns_key_fate(enum profile_key k)
{
    return (unsigned)k < K_COUNT ? &key_fates[k] : NULL;
}
