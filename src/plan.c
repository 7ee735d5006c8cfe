#include "config.h"

#include "plan.h"

#include "apparmor.h"
#include "caps.h"
#include "channel.h"
#include "env_paths.h"
#include "cli.h"
#include "hosts.h"
#include "layers.h"
#include "log.h"
#include "lookup.h"
#include "mount.h"
#include "ns.h"
#include "project.h"
#include "report.h"
#include "tier.h"
#include "seccomp.h"
#include "seccomp_cache.h"
#include "seccomp_packet.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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

/* -v: which directory ${PROJECT} is, and why, when the profile uses it. */
static void describe_project(const struct profile *p, const struct project *project,
                             const char *cwd)
{
    bool used = false;
    for (size_t i = 0; i < p->nfs && !used; i++)
        used = p->fs[i].written && strstr(p->fs[i].written, "${PROJECT}");
    if (!used || !project->root)
        return;
    autofree char *why = project_describe(project);
    verbose("project root %s (%s), working directory %s", project->root, why, cwd);
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

/* What stays read-only inside whatever the profile makes writable
 * (protect.h): composed here, from the caller's environment, before
 * anything is created; the mount plan below holds it (mount.h). */
void plan_protect_list(struct protect_list *list, const char *home, const struct project *project)
{
    struct profile_search search;
    profile_search_from_env(&search);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0)
        exe[n] = '\0';
    struct protect_inputs in = {
        .home = home, .xdg_config_home = getenv("XDG_CONFIG_HOME"), .path_env = getenv("PATH"),
        .exe = n > 0 ? exe : NULL, .search_dirs = search.dirs, .nsearch = search.n,
    };
    protect_list_build(list, &in);
    /* The cache rules' layers: a sandbox writes them only through its
     * overlays, or it could plant what a later cache = PATH shows */
    autofree char *layers = layers_root(home, getenv("XDG_STATE_HOME"));
    protect_list_add(list, layers, PROTECT_DIR, PROTECT_MISSING_CREATE, true,
                     "sbx's private write layers (cache rules): later runs read them", NULL);
    /* The compiled seccomp filters (seccomp_cache.h): a later run loads
     * what is there into its command's kernel */
    autofree char *filters = seccomp_cache_dir(home, getenv("XDG_CACHE_HOME"));
    protect_list_add(list, filters, PROTECT_DIR, PROTECT_MISSING_CREATE, true,
                     "sbx's cache of compiled seccomp filters: later runs load them", NULL);
    /* A worktree's or submodule's git directory lies outside the work
     * tree, where the names below every writable directory do not reach. */
    if (project->kind == PROJECT_GIT_LINK) {
        protect_list_add_git_dir(list, project->git_dir, !project->common_dir);
        protect_list_add_git_dir(list, project->common_dir, true);
    }
    /* Inside the repository's git directory, writable with the project:
     * its worktrees' and submodules' git directories, whose config,
     * commondir and hooks git reads in that worktree or submodule. */
    const char *repo = project->kind == PROJECT_GIT ? project->marker
                       : project->kind == PROJECT_GIT_LINK
                           ? (project->common_dir ? project->common_dir : project->git_dir)
                           : NULL;
    struct strv inner = { 0 };
    project_inner_git_dirs(repo, &inner);
    for (size_t i = 0; i < inner.n; i++)
        protect_list_add_git_dir(list, inner.v[i], !strstr(inner.v[i], "/worktrees/"));
    strv_free(&inner);
    profile_search_free(&search);
}

static bool origin_is_option(const struct profile *p, const struct origin *o)
{
    for (size_t i = 0; i < p->nlabels; i++)
        if (o->file == p->labels[i])
            return true;
    return false;
}

/* --rw DIR on the command line for this very directory. */
static bool explicitly_writable(const struct profile *p, const char *path)
{
    for (size_t i = 0; i < p->nfs; i++)
        if (p->fs[i].kind == FS_RW && origin_is_option(p, &p->fs[i].at) &&
            !strcmp(p->fs[i].path, path))
            return true;
    return false;
}

/* layers.h: plain rw rules on what the host runs later. A $HOME strictly
 * inside the project that is not the account's is a build's (project.h):
 * /etc/passwd is asked only then. */
static void warn_rw_host_runs(const struct profile *p, const char *home, const char *home_real,
                              const struct project *project)
{
    bool home_is_builds = false;
    if (home_real && project->root && mount_path_within(home_real, project->root) &&
        strcmp(home_real, project->root)) {
        const char *account = cli_account_home();
        home_is_builds = account && strcmp(account, home_real);
    }
    struct strv advice = { 0 };
    layers_rw_warnings(p, home_real ? home_real : home, home_is_builds, &advice);
    for (size_t i = 0; i < advice.n; i++)
        warn("%s", advice.v[i]);
    strv_free(&advice);
}

/* Started from / or from $HOME, `rw = ${CWD}` would hand the command the
 * whole tree: every later login, every project, sbx's own configuration.
 * A profile's rule on such a directory is refused; one given on the
 * command line (--rw ~) is the caller's explicit choice. A $HOME inside
 * the project's work tree that is not the account's home (debhelper sets
 * one in debian/.debhelper) is the build's, and no reason to refuse the
 * project (project_too_wide_rw()). */
static void refuse_whole_tree_writable(const struct profile *p, const char *home,
                                       const char *home_real, const struct project *project)
{
    for (size_t i = 0; i < p->nfs; i++) {
        const struct fs_rule *r = &p->fs[i];
        if (r->kind != FS_RW || !r->path || origin_is_option(p, &r->at))
            continue;
        /* The path as written (${CWD} is canonical already): a symlink in
         * it is judged by the mount plan's own rule, not followed here.
         * Without the account's home first (no /etc/passwd read on every
         * start): it can only lift a refusal. */
        const char *what = NULL;
        for (int pass = 0; pass < 2 && (pass == 0 || what); pass++) {
            const char *account = pass ? cli_account_home() : NULL;
            what = project_too_wide_rw(r->path, home_real ? home_real : home, account, project);
            if (!what && home_real && home && strcmp(home, home_real))
                what = project_too_wide_rw(r->path, home, account, project);
        }
        if (!what || explicitly_writable(p, r->path))
            continue;
        char at[512];
        die("%s: rw = %s would make %s writable by the command: start sbx in the "
            "project's directory (cd there, or --chdir DIR), or give the directory "
            "explicitly with --rw %s if that is really what you want",
            origin_format(&r->at, at, sizeof at), r->path, what, r->path);
    }
}

/* What the listener rides with to the supervisor (seccomp.h). */
static const struct channel_msg notify_msg = { .type = CHANNEL_NOTIFY_FD, .value = 0 };

/* libseccomp compiles the filter on the CPU while resolving the mount
 * plan waits on the filesystem: the two overlap in a thread of ours, which
 * is joined before clone() (clone copies only the calling thread). The
 * thread dies through a die_trap (log.h): its message is re-raised here. */
struct filter_job {
    const struct profile *profile;
    bool caller_is_root;
    bool observe;           /* add the write observer (seccomp_observe.h) */
    int channel_fd;
    struct seccomp_program *out;
    struct die_trap trap;
    pthread_t thread;
    bool threaded;
    long long compile_us;   /* the compile's own time, overlapped in its thread */
};

/* Whether the sandbox sbx runs in holds the one seccomp listener of the
 * filter chain, so that the write observer cannot have one. Most runs
 * are under no filter at all: PR_GET_SECCOMP says so (0) without the fork
 * of tier_outer_listener(), and without /proc/self/status, whose read
 * waits for the mmap lock the main thread's mount plan takes (1 ms). */
static bool outer_listener(void)
{
    return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0 && tier_outer_listener();
}

static void compile(struct filter_job *job)
{
    seccomp_compile_observing(job->profile, job->caller_is_root, job->channel_fd, &notify_msg,
                              sizeof notify_msg, job->observe, job->out);
    /* Only while no deny rule needs the listener (seccomp.h); an outer
     * sbx's observer or deny rules hold it, and that sbx reports. */
    if (job->observe && !job->out->notify && job->out->active && !outer_listener())
        seccomp_program_observe(job->out, job->channel_fd, &notify_msg, sizeof notify_msg);
}

static long long monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static void *compile_filter(void *arg)
{
    struct filter_job *job = arg;
    die_trap = &job->trap; /* this thread's own (thread-local) */
    long long t0 = monotonic_us();
    compile(job);
    job->compile_us = monotonic_us() - t0;
    return NULL;
}

static void filter_job_start(struct filter_job *job)
{
    /* Signals stay with the main thread (sigprocmask is per thread). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    job->threaded = pthread_create(&job->thread, NULL, compile_filter, job) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* No thread (RLIMIT_NPROC reached, say): compiled here, untrapped, so
     * that a die() is this thread's own exit 125, never a pthread_exit()
     * of the main thread. */
    if (!job->threaded)
        compile(job);
}

static void filter_job_finish(struct filter_job *job)
{
    if (job->threaded) {
        int err = pthread_join(job->thread, NULL);
        if (err)
            die_with_errno(err, "joining the thread that compiled the seccomp filter");
    }
    if (job->trap.tripped) {
        record_step("seccomp filter");
        die("%s", job->trap.message);
    }
}

/* The profile plus rules of sbx's own (never read from a profile): a
 * shallow copy, every pointer but deny the caller's, never freed here. */
static const struct profile *with_rules(struct sandbox_plan *plan, const struct profile *p,
                                        const struct deny_rule *extra, size_t nextra)
{
    plan->no_route_rules = xcalloc(p->ndeny + nextra, sizeof *plan->no_route_rules);
    if (p->ndeny)
        memcpy(plan->no_route_rules, p->deny, p->ndeny * sizeof *p->deny);
    memcpy(plan->no_route_rules + p->ndeny, extra, nextra * sizeof *extra);
    plan->with_no_route = *p;
    plan->with_no_route.deny = plan->no_route_rules;
    plan->with_no_route.ndeny = plan->with_no_route.capdeny = p->ndeny + nextra;
    return &plan->with_no_route;
}

/* [network] allow leaves the sandbox no route: a tool that ignores the
 * proxy variables gets ENETUNREACH from its connect() at once. A deny
 * rule of sbx's own, on connect() to IPv4 and IPv6 addresses that are not
 * loopback, puts each such call in the ledger with that same errno, so the
 * summary can say which tool went around the proxy. io_uring's connect
 * passes no filter: with io_uring = yes the calls still fail, unrecorded. */
static const struct profile *add_no_route_rule(struct sandbox_plan *plan, const struct profile *p)
{
    plan->no_route_rules = NULL;
    if (!p->allow.n || !p->ns[NS_NET] || p->io_uring)
        return p;
    struct deny_rule rule = {
        .syscall = (char *)"connect", .nr = seccomp_syscall_number("connect"),
        .families = (UINT64_C(1) << AF_INET) | (UINT64_C(1) << AF_INET6),
        .errnum = ENETUNREACH, .text = (char *)"connect:inet,inet6 ENETUNREACH ([network] allow)",
        .at = p->allow.v[0].at, .no_route = true,
    };
    return with_rules(plan, p, &rule, 1);
}

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
    plan->no_route_rules = NULL;
    struct deny_rule rules[6 + sizeof metadata_calls / sizeof metadata_calls[0]];
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
        return with_rules(plan, p, rules, n);
    bool loopback = p->net_mode == NET_LOOPBACK;
    const uint64_t inet = (UINT64_C(1) << AF_INET) | (UINT64_C(1) << AF_INET6);
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
    return with_rules(plan, p, rules, n);
}

void sandbox_plan_build(struct sandbox_plan *plan, const struct sandbox_request *req,
                        struct rlimit caller_nofile, int channel_fd)
{
    /* The backend first (tier.h): from here on, each decision below is
     * made for the tier that runs, never made and then undone. */
    char userns_refused[sizeof plan->userns_refused];
    enum sandbox_tier tier = tier_choose(req->profile, geteuid(), userns_refused,
                                         sizeof userns_refused);
    struct landlock_plan landlock = { 0 };
    if (tier == TIER_LANDLOCK)
        landlock_plan_prepare(&landlock, req->profile, cli_profile_vars()->home);
    const struct profile *p = tier == TIER_LANDLOCK
                                  ? add_landlock_rules(plan, req->profile, &landlock)
                                  : add_no_route_rule(plan, req->profile);
    /* the Landlock tier's own checks need the supervisor's listener */
    if (tier == TIER_LANDLOCK && p->ndeny > req->profile->ndeny && tier_outer_listener())
        die("the Landlock tier checks bind, connect and listen on inet sockets, and chmod, "
            "chown, utimes and xattrs, through a seccomp listener, and the sandbox sbx runs in "
            "holds the one the kernel allows (an outer sbx with deny rules or [network] allow?): "
            "run the outer sandbox without them, or give it a network namespace with only lo "
            "and a read-only root, where the tier needs no listener");
    struct deny_rule *no_route_rules = plan->no_route_rules;
    struct profile with_no_route = plan->with_no_route;
    *plan = (struct sandbox_plan){
        .profile = p,
        .with_no_route = with_no_route, .no_route_rules = no_route_rules,
        .argv = req->argv,
        .cwd = req->cwd,
        .clone_flags = tier == TIER_LANDLOCK ? 0 : ns_clone_flags(p),
        .outer_uid = geteuid(),
        .outer_gid = getegid(),
        .caller_nofile = caller_nofile,
        .home = cli_profile_vars()->home,
        .channel_fd = channel_fd,
        .tier = tier,
        .landlock = landlock,
    };
    snprintf(plan->userns_refused, sizeof plan->userns_refused, "%s", userns_refused);
    verbose_step("backend: the %s tier", tier_name(tier));
    /* What the filter cannot express is refused here, in this thread;
     * the trap is for libseccomp's own failures. The compile starts first:
     * it overlaps everything below, up to the join. */
    seccomp_check(p);
    /* The filter kept across runs (seccomp_cache.h) only where no sandbox
     * can write it: with a mount namespace, whose protect list (below,
     * plan_protect_list) keeps the directory read-only. The Landlock tier
     * has none, and a profile there may make the directory writable. */
    autofree char *filter_cache = seccomp_cache_enabled() && (plan->clone_flags & CLONE_NEWNS)
                                      ? seccomp_cache_dir(plan->home, getenv("XDG_CACHE_HOME"))
                                      : NULL;
    seccomp_use_cache(filter_cache);
    plan->compiling = xcalloc(1, sizeof *plan->compiling);
    *plan->compiling = (struct filter_job){
        .profile = p, .caller_is_root = plan->outer_uid == 0, .channel_fd = channel_fd,
        .out = &plan->seccomp,
        /* the Landlock tier's refusals are EACCES from Landlock, and its
         * checks need the listener */
        .observe = p->observe_writes && tier != TIER_LANDLOCK,
    };
    filter_job_start(plan->compiling);

    const struct project *project = cli_project();
    /* one realpath() of $HOME for both checks, on every start */
    autofree char *home_real = plan->home && plan->home[0] == '/' ? realpath(plan->home, NULL)
                                                                  : NULL;
    refuse_whole_tree_writable(p, plan->home, home_real, project);
    warn_rw_host_runs(p, plan->home, home_real, project);
    struct protect_list protect = { 0 };
    if (plan->clone_flags & CLONE_NEWNS) {
        plan_protect_list(&protect, plan->home, project);
        verbose_step("protect list: %zu paths", protect.n);
    }
    record_step("prepare: environment and limits");
    struct env_diff env_diff = { 0 };
    env_build(p, environ, &plan->env, &env_diff);
    /* [network] allow: the proxy on the sandbox's own loopback, or, in
     * the Landlock tier, on the host's (egress.h) */
    uint16_t proxy_port = EGRESS_PROXY_PORT;
    plan->egress = plan->tier == TIER_LANDLOCK
                       ? (plan->landlock.proxy ? egress_prepare_host_loopback(p, &proxy_port) : NULL)
                       : egress_prepare(p, plan->clone_flags);
    if (plan->egress)
        egress_set_env(&plan->env, &env_diff.set_by_sbx, proxy_port);
    record_environment(&env_diff);
    env_diff_free(&env_diff);
    limits_prepare(p, &plan->limits);
    if (plan->tier == TIER_LANDLOCK)
        landlock_set_env(&plan->landlock, &plan->env);
    /* Kept capabilities are refused in the Landlock tier (landlock.c), and
     * cap_net_raw is planned for a network namespace of the sandbox's own
     * (caps.c), which it has not: there it would be the host's. */
    plan->caps_kept = plan->tier == TIER_LANDLOCK ? 0 : privileges_kept_mask(p);
    apparmor_refuse_kept_capabilities(plan->caps_kept);
    /* cap_net_raw is sbx's own addition, not the profile's: where AppArmor
     * denies the command every capability, it is left out, not refused */
    if (apparmor_denies_command_capabilities())
        verbose("capabilities: no cap_net_raw: AppArmor's sbx profile denies the command every "
                "capability");
    else if (plan->tier != TIER_LANDLOCK)
        plan->caps_kept |= net_raw_planned(p, plan->outer_uid == 0);
    outbound_prepare(&plan->outbound, p, plan->clone_flags);
    const char *resolv_conf = plan->outbound.resolv_conf;
    /* the stub's resolv.conf is for a sandbox's own loopback and mounts:
     * the Landlock tier has neither, and no stub (landlock.c says so) */
    if (plan->egress && plan->tier != TIER_LANDLOCK)
        resolv_conf = egress_resolv_conf();
    if (resolv_conf && !(plan->clone_flags & CLONE_NEWNS))
        warn("warning: %s with mount = no: /etc/resolv.conf stays the host's, "
             "so DNS works only if it names a resolver %s",
             plan->egress ? "[network] allow" : "outbound network",
             plan->egress ? "on 127.0.0.1 (sbx's stub)"
                          : "pasta can reach (not the host's loopback)");
    plan->loopback = (plan->clone_flags & CLONE_NEWNET) && p->net_mode == NET_LOOPBACK;
    if (plan->clone_flags & CLONE_NEWUSER)
        ns_check_uid_map_allowed(plan->outer_uid);

    char flags_text[160];
    verbose_step("profile %s: namespaces %s", p->name ? p->name : "(built-in)",
                 ns_flags_text(plan->clone_flags, flags_text, sizeof flags_text));
    /* the Landlock tier says its own (landlock.c) */
    if (plan->tier != TIER_LANDLOCK)
        describe_network(p, plan->clone_flags);
    if (plan->clone_flags & CLONE_NEWNET) {
        autofree char *unused = profile_unused_warning(p);
        if (unused)
            warn("warning: %s", unused);
    }
    describe_project(p, project, plan->cwd);

    /* The whole of [filesystem] resolved on the host (mount.h); init
     * applies it: private propagation, the new root, the rules, /proc,
     * /dev, pivot_root, the working directory. */
    if (plan->clone_flags & CLONE_NEWNS) {
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
        autofree char *hosts = sandbox_hosts_file(p, plan->clone_flags);
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
            .protect = &protect, .outer_uid = plan->outer_uid, .home = plan->home,
            .project_root = project->kind == PROJECT_GIT_LINK ? project->root : NULL,
            .git_dirs = { project->git_dir, project->common_dir },
        };
        /* The --report path against every place this profile's sandbox can
         * write, its rw rules included (output_file.h): the list the plan
         * worked out. */
        __attribute__((cleanup(strv_free))) struct strv writable = { 0 };
        in.writable_out = &writable;
        mount_plan_prepare(p, &in, &plan->mounts);
        plan->has_mounts = true;
        if (project->root)
            strv_push(&writable, xstrdup(project->root));
        report_recheck_places(&writable);
        verbose_step("mount plan: %zu mounts resolved on the host", plan->mounts.n);
        const struct mount_entry *hides = mount_plan_hiding(&plan->mounts, plan->cwd);
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
        env_paths_hidden(plan->env.v, plan->env.n, &plan->mounts, &hidden);
        for (size_t i = 0; i < hidden.n; i++)
            warn("warning: %s", hidden.v[i]);
        strv_free(&hidden);
        /* Kernel uid 0 keeps a CAP_DAC_OVERRIDE that works only without a
         * user namespace: foreign_owner.h. */
        bool dac_override = plan->caps_kept & (UINT64_C(1) << CAP_DAC_OVERRIDE);
        if (plan->outer_uid == 0 && ((plan->clone_flags & CLONE_NEWUSER) || !dac_override))
            foreign_owner_scan(&plan->foreign, &plan->mounts, plan->cwd, dac_override);
    }
    protect_list_free(&protect);
}

void sandbox_plan_finish(struct sandbox_plan *plan)
{
    if (!plan->compiling)
        return;
    filter_job_finish(plan->compiling);
    long long compile_us = plan->compiling->compile_us;
    free(plan->compiling);
    plan->compiling = NULL;
    if (plan->tier == TIER_LANDLOCK && plan->seccomp.active)
        seccomp_inet_filter_build(&plan->seccomp.inet);
    if (plan->seccomp.active)
        verbose_step("seccomp filter compiled: %u + %u instructions (%lld us in its thread, "
                     "beside the plan; %s)", plan->seccomp.filter.len, plan->seccomp.extra.len,
                     compile_us, plan->seccomp.origin[0] ? plan->seccomp.origin : "compiled");
}

void sandbox_plan_free(struct sandbox_plan *plan)
{
    sandbox_plan_finish(plan);
    strv_free(&plan->env);
    egress_free(plan->egress);  /* NULL once sandbox_run() moved it to the result */
    free(plan->no_route_rules);
    plan->no_route_rules = NULL;
    plan->egress = NULL;
    mount_plan_free(&plan->mounts);
    seccomp_program_free(&plan->seccomp);
    landlock_plan_free(&plan->landlock);
    foreign_owner_free(&plan->foreign);
}
