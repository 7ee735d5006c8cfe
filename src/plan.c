#include "config.h"

#include "plan.h"

#include "backend.h"
#include "channel.h"
#include "cli.h"
#include "layers.h"
#include "log.h"
#include "lookup.h"
#include "mount.h"
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

const struct profile *plan_with_rules(struct sandbox_plan *plan, const struct profile *p,
                                      const struct deny_rule *extra, size_t nextra)
{
    plan->own_rules = xcalloc(p->ndeny + nextra, sizeof *plan->own_rules);
    if (p->ndeny)
        memcpy(plan->own_rules, p->deny, p->ndeny * sizeof *p->deny);
    memcpy(plan->own_rules + p->ndeny, extra, nextra * sizeof *extra);
    plan->with_rules = *p;
    plan->with_rules.deny = plan->own_rules;
    plan->with_rules.ndeny = plan->with_rules.capdeny = p->ndeny + nextra;
    return &plan->with_rules;
}

void sandbox_plan_build(struct sandbox_plan *plan, const struct sandbox_request *req,
                        struct rlimit caller_nofile, int channel_fd)
{
    /* The backend first (tier.h): from here on, each decision below is
     * made by and for the backend that runs, never made and then undone. */
    char why[512];
    const struct backend *backend = backend_of(tier_choose(req->profile, geteuid(), why,
                                                           sizeof why));
    *plan = (struct sandbox_plan){
        .argv = req->argv,
        .cwd = req->cwd,
        .outer_uid = geteuid(),
        .outer_gid = getegid(),
        .caller_nofile = caller_nofile,
        .home = cli_profile_vars()->home,
        .channel_fd = channel_fd,
        .backend = backend,
        .part = xcalloc(1, backend->part_size),
    };
    const struct profile *p = backend->rules(plan, plan->part, req->profile, why);
    plan->profile = p;
    verbose_step("backend: the %s tier", backend->name);
    /* What the filter cannot express is refused here, in this thread;
     * the trap is for libseccomp's own failures. The compile starts first:
     * it overlaps everything below, up to the join. */
    seccomp_check(p);
    /* The filter kept across runs (seccomp_cache.h) only where no sandbox
     * can write it: with a mount namespace, whose protect list (below,
     * plan_protect_list) keeps the directory read-only. The Landlock tier
     * has none, and a profile there may make the directory writable. */
    autofree char *filter_cache = seccomp_cache_enabled() && backend->protects_paths && p->ns[NS_MOUNT]
                                      ? seccomp_cache_dir(plan->home, getenv("XDG_CACHE_HOME"))
                                      : NULL;
    seccomp_use_cache(filter_cache);
    plan->compiling = xcalloc(1, sizeof *plan->compiling);
    *plan->compiling = (struct filter_job){
        .profile = p, .caller_is_root = plan->outer_uid == 0, .channel_fd = channel_fd,
        .out = &plan->seccomp, .observe = p->observe_writes && backend->observes_writes,
    };
    filter_job_start(plan->compiling);

    const struct project *project = cli_project();
    /* one realpath() of $HOME for both checks, on every start */
    const char *home_real = plan->home && plan->home[0] == '/' ? cli_home_real(plan->home) : NULL;
    refuse_whole_tree_writable(p, plan->home, home_real, project);
    warn_rw_host_runs(p, plan->home, home_real, project);
    record_step("prepare: environment and limits");
    struct env_diff env_diff = { 0 };
    env_build(p, environ, &plan->env, &env_diff);
    limits_prepare(p, &plan->limits);
    backend->prepare(plan, plan->part, &env_diff);
    record_environment(&env_diff);
    env_diff_free(&env_diff);
    describe_project(p, project, plan->cwd);
}

void sandbox_plan_finish(struct sandbox_plan *plan)
{
    if (!plan->compiling)
        return;
    filter_job_finish(plan->compiling);
    long long compile_us = plan->compiling->compile_us;
    free(plan->compiling);
    plan->compiling = NULL;
    if (plan->backend->inet_filter && plan->seccomp.active)
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
    plan->egress = NULL;
    free(plan->own_rules);
    plan->own_rules = NULL;
    seccomp_program_free(&plan->seccomp);
    foreign_owner_free(&plan->foreign);
    if (plan->part)
        plan->backend->free(plan->part);
    free(plan->part);
    plan->part = NULL;
}
