/* Unit tests of the run core's pure parts and its descriptor plumbing:
 * exit-status mapping, the environment, clone flags, the channel (with
 * SCM_RIGHTS), the supervisor's watched fds, the limits plan, what
 * env_build() and limits_apply() return for the run record, and which
 * owners and bits refuse a root command without CAP_DAC_OVERRIDE. */
#include "config.h"

#include "../tap.h"

#include "channel.h"
#include "env.h"
#include "foreign_owner.h"
#include "ns.h"
#include "profile.h"
#include "rlimits.h"
#include "supervise.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void add(struct str_list *l, const char *v)
{
    xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n++] = (struct str_entry){ .value = xstrdup(v) };
}

static const char *env_get(const struct strv *env, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < env->n; i++)
        if (!strncmp(env->v[i], name, len) && env->v[i][len] == '=')
            return env->v[i] + len + 1;
    return NULL;
}

static char *strv_join(const struct strv *sv)
{
    char *out = xstrdup("");
    for (size_t i = 0; i < sv->n; i++) {
        char *next = xasprintf("%s%s%s", out, i ? " " : "", sv->v[i]);
        free(out);
        out = next;
    }
    return out;
}

static void test_exit_status(void)
{
    is_int(exit_status_from_wait(0), 0, "exit 0 -> 0");
    is_int(exit_status_from_wait(42 << 8), 42, "exit 42 -> 42");
    is_int(exit_status_from_wait(SIGSEGV), 139, "SIGSEGV -> 139");
    is_int(exit_status_from_wait(SIGABRT | 0x80), 134, "SIGABRT with core -> 134");
    is_int(exit_status_from_wait(SIGKILL), 137, "SIGKILL -> 137");
}

static void test_env(void)
{
    char *base[] = { "PATH=/bin", "HOME=/root", "SECRET=x", "NOEQUALS", "container=docker", NULL };
    struct profile p;
    profile_init_defaults(&p);
    p.name = xstrdup("qa");

    struct strv env = { 0 };
    env_build(&p, base, &env, NULL);
    is_str(env_get(&env, "PATH"), "/bin", "clear = no keeps PATH");
    is_str(env_get(&env, "SECRET"), "x", "clear = no keeps everything");
    is_str(env_get(&env, "container"), "sbx", "container=sbx replaces the caller's");
    is_str(env_get(&env, "SBX_PROFILE"), "qa", "SBX_PROFILE is the profile's name");
    int noeq = 0;
    for (size_t i = 0; i < env.n; i++)
        noeq += !strcmp(env.v[i], "NOEQUALS");
    is_int(noeq, 0, "an entry without '=' is dropped");
    is_int(env.n, 5, "PATH HOME SECRET container SBX_PROFILE");
    ok(env.v[env.n] == NULL, "the vector is NULL-terminated");
    strv_free(&env);

    add(&p.env_unset, "SECRET HOME");
    add(&p.env_set, "CI=true");
    add(&p.env_set, "PATH=/usr/bin:/bin");
    env_build(&p, base, &env, NULL);
    ok(env_get(&env, "SECRET") == NULL && env_get(&env, "HOME") == NULL,
       "unset removes every listed name");
    is_str(env_get(&env, "CI"), "true", "set adds");
    is_str(env_get(&env, "PATH"), "/usr/bin:/bin", "set replaces");
    strv_free(&env);

    p.env_clear = true;
    add(&p.env_keep, "HOME");
    add(&p.env_keep, "SECRET");
    env_build(&p, base, &env, NULL);
    ok(env_get(&env, "HOME") == NULL, "unset wins over keep");
    ok(env_get(&env, "SECRET") == NULL, "unset wins over keep (2)");
    is_str(env_get(&env, "PATH"), "/usr/bin:/bin", "clear = yes still applies set");
    is_int(env.n, 4, "clear = yes: PATH CI container SBX_PROFILE only");
    strv_free(&env);
    profile_free(&p);
}

/* keep/unset patterns and their order (env.h): what default.ini's
 * `unset = *TOKEN*` and qa-session's `keep = ANTHROPIC_API_KEY` rely on. */
static void add_seq(struct str_list *l, const char *v, unsigned long seq)
{
    add(l, v);
    l->v[l->n - 1].seq = seq;
}

static void test_env_patterns(void)
{
    ok(env_word_is_pattern("*_TOKEN") && env_word_is_pattern("A?C") && !env_word_is_pattern("PATH"),
       "patterns: '*' or '?' make a pattern");
    ok(env_word_matches("*TOKEN*", "GITHUB_TOKEN", 12), "patterns: *TOKEN* matches GITHUB_TOKEN");
    ok(env_word_matches("*TOKEN*", "npm_config__authToken", 21),
       "patterns: a pattern ignores case (npm_config__authToken)");
    ok(env_word_matches("*TOKEN*", "npm_config_//registry.npmjs.org/:_authToken", 43),
       "patterns: '*' spans '/' and ':' (no FNM_PATHNAME)");
    ok(env_word_matches("AWS_*", "AWS_SECRET_ACCESS_KEY=x", 21), "patterns: only the name's bytes count");
    ok(!env_word_matches("AWS_*", "MY_AWS_X", 8), "patterns: anchored at both ends");
    ok(env_word_matches("A?C", "ABC", 3) && !env_word_matches("A?C", "AC", 2), "patterns: '?' is one byte");
    ok(!env_word_matches("PATH", "path", 4), "patterns: an exact name keeps its case");
    ok(!env_word_matches("PATH", "PATHX", 4 + 1), "patterns: an exact name is the whole name");
    char longname[600];
    memset(longname, 'A', sizeof longname - 7);
    memcpy(longname + sizeof longname - 7, "_TOKEN", 7);
    ok(env_word_matches("*_TOKEN", longname, strlen(longname)), "patterns: a name longer than the stack buffer");

    char *base[] = { "PATH=/bin", "GITHUB_TOKEN=g", "ANTHROPIC_API_KEY=a", "AWS_REGION=r",
                     "HOME=/h", NULL };
    struct profile p;
    profile_init_defaults(&p);
    p.name = xstrdup("qa");
    add_seq(&p.env_unset, "*TOKEN* *KEY*", 1);
    add_seq(&p.env_unset, "AWS_*", 2);
    struct strv env = { 0 };
    env_build(&p, base, &env, NULL);
    ok(!env_get(&env, "GITHUB_TOKEN") && !env_get(&env, "ANTHROPIC_API_KEY") && !env_get(&env, "AWS_REGION"),
       "unset patterns remove every matching name");
    ok(env_get(&env, "PATH") && env_get(&env, "HOME"), "unset patterns leave the rest");
    ok(!env_passes(&p, "GITHUB_TOKEN", 12) && env_passes(&p, "PATH", 4), "env_passes agrees");
    strv_free(&env);

    add_seq(&p.env_keep, "ANTHROPIC_API_KEY", 3);
    env_build(&p, base, &env, NULL);
    is_str(env_get(&env, "ANTHROPIC_API_KEY"), "a", "a later keep wins over an earlier unset pattern");
    ok(!env_get(&env, "GITHUB_TOKEN"), "... for its name only");
    strv_free(&env);

    add_seq(&p.env_unset, "ANTHROPIC_API_KEY", 4);
    env_build(&p, base, &env, NULL);
    ok(!env_get(&env, "ANTHROPIC_API_KEY"), "a later unset (--unsetenv) wins over the keep");
    strv_free(&env);

    p.env_clear = true;
    add_seq(&p.env_keep, "PATH AWS_*", 5);
    env_build(&p, base, &env, NULL);
    ok(env_get(&env, "PATH") && env_get(&env, "AWS_REGION"), "clear = yes: keep patterns pass names in");
    ok(!env_get(&env, "HOME") && !env_get(&env, "GITHUB_TOKEN"), "clear = yes: the rest is dropped");
    strv_free(&env);
    profile_free(&p);
}

static void test_clone_flags(void)
{
    struct profile p;
    profile_init_defaults(&p);
    char buf[200];
    int all = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC |
              CLONE_NEWUTS;
    is_int(ns_clone_flags(&p), all, "defaults: all six namespaces");
    p.net_mode = NET_HOST;
    is_int(ns_clone_flags(&p), all & ~CLONE_NEWNET, "mode = host: no network namespace");
    p.net_mode = NET_NONE;
    p.ns[NS_PID] = false;
    is_int(ns_clone_flags(&p), all & ~CLONE_NEWPID, "pid = no: no PID namespace");
    is_str(ns_flags_text(CLONE_NEWUSER | CLONE_NEWNET, buf, sizeof buf),
           "CLONE_NEWUSER|CLONE_NEWNET", "flags are named in messages");
    like_str(ns_explain_failure(EUSERS, CLONE_NEWUSER, buf, sizeof buf), "32 levels",
             "EUSERS is explained as nesting depth");
    like_str(ns_explain_failure(EINVAL, CLONE_NEWUSER, buf, sizeof buf), "CONFIG_USER_NS",
             "EINVAL is explained as a missing kernel feature");
    p.uid.current = false;
    p.uid.value = 0;
    is_int(ns_inside_uid(&p, 1000), 0, "uid = 0 maps to 0 inside");
    is_int(ns_inside_gid(&p, 1000), 1000, "gid = current stays the caller's");
    profile_free(&p);
}

static void test_channel(void)
{
    int sv[2];
    ok(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0, "socketpair");
    struct channel_msg m;
    int fd;
    is_int(channel_recv(sv[0], &m, &fd, true), 0, "nothing queued: 0 without blocking");

    int pipefd[2];
    ok(pipe(pipefd) == 0, "pipe");
    ok(channel_send(sv[1], CHANNEL_NOTIFY_FD, 7, pipefd[1]), "send with an fd");
    ok(channel_send(sv[1], CHANNEL_COMMAND_STATUS, 42 << 8, -1), "send without");
    is_int(channel_recv(sv[0], &m, &fd, false), 1, "first message");
    is_int(m.type, CHANNEL_NOTIFY_FD, "its type");
    is_int(m.value, 7, "its value");
    ok(fd >= 0 && fd != pipefd[1], "an fd arrived, a new number");
    ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "received close-on-exec");
    ok(fd >= 0 && write(fd, "x", 1) == 1, "it is the pipe's write end");
    char c = 0;
    ok(read(pipefd[0], &c, 1) == 1 && c == 'x', "the byte came through");
    is_int(channel_recv(sv[0], &m, &fd, false), 1, "second message");
    is_int(m.value, 42 << 8, "a wait status survives");
    is_int(fd, -1, "no fd with it");
    close(sv[1]);
    is_int(channel_recv(sv[0], &m, &fd, false), 0, "end of file once the peer closed");
    close(sv[0]);
    close(pipefd[0]);
    close(pipefd[1]);
}

struct counter {
    int calls;
    char last;
};

/* Counts bytes; a 'q' means "done with this fd". */
static bool on_ready(void *data, int fd)
{
    struct counter *c = data;
    char b;
    if (read(fd, &b, 1) == 1) {
        c->calls++;
        c->last = b;
    }
    return b != 'q';
}

static void test_watched_fds(void)
{
    struct supervisor s;
    supervise_init(&s, -1, -1, 0);
    int p1[2], p2[2];
    ok(pipe(p1) == 0 && pipe(p2) == 0, "pipes");
    struct counter c1 = { 0 }, c2 = { 0 };
    supervise_add_fd(&s, p1[0], on_ready, &c1);
    supervise_add_fd(&s, p2[0], on_ready, &c2);
    is_int(supervise_poll_watched(&s, 0), 0, "nothing ready");
    ok(write(p2[1], "b", 1) == 1, "write to the second");
    is_int(supervise_poll_watched(&s, 1000), 1, "one fd ready");
    is_int(c2.calls, 1, "its handler ran once");
    is_int(c2.last, 'b', "and read the byte");
    is_int(c1.calls, 0, "the other handler did not run");
    close(p1[1]);
    supervise_poll_watched(&s, 1000);
    is_int(s.nwatched, 1, "a hung-up fd is dropped");
    is_int(s.watched[0].fd, p2[0], "the live one stays");
    errno = 0;
    ok(fcntl(p1[0], F_GETFD) < 0 && errno == EBADF, "the dropped fd was closed");

    int p3[2];
    ok(pipe(p3) == 0, "a third pipe");
    struct counter c3 = { 0 };
    supervise_add_fd(&s, p3[0], on_ready, &c3);
    ok(write(p3[1], "q", 1) == 1, "write 'q' to it");
    supervise_poll_watched(&s, 1000);
    is_int(c3.calls, 1, "its handler ran");
    is_int(s.nwatched, 1, "a handler returning false drops its fd");
    close(p3[1]);

    supervise_free(&s);
    errno = 0;
    ok(fcntl(p2[0], F_GETFD) < 0 && errno == EBADF, "supervise_free closes what it watched");
    close(p2[1]);
}

/* What env_build() returns for the run record: names, never values; each
 * name in one list; `set` takes a name off removed. */
static void test_env_diff(void)
{
    char *base[] = { "PATH=/bin", "GITHUB_TOKEN=g", "NOEQUALS", "EDITOR=vi", "HOME=/h", NULL };
    struct profile p;
    profile_init_defaults(&p);
    p.name = xstrdup("qa");
    add_seq(&p.env_unset, "*TOKEN* EDITOR", 1);
    add(&p.env_set, "EDITOR=ed");
    struct strv env = { 0 };
    struct env_diff diff = { 0 };
    env_build(&p, base, &env, &diff);
    char *passed = strv_join(&diff.passed), *removed = strv_join(&diff.removed),
         *by_sbx = strv_join(&diff.set_by_sbx);
    is_str(passed, "PATH HOME", "diff: passed, in the caller's order");
    is_str(removed, "GITHUB_TOKEN NOEQUALS",
           "diff: removed: unset, and an entry that is no variable; not a name `set` gives again");
    is_str(by_sbx, "container SBX_PROFILE", "diff: what sbx sets beyond the rules");
    ok(!strstr(passed, "=") && !strstr(removed, "="), "diff: names only, no value");
    free(passed);
    free(removed);
    free(by_sbx);
    env_diff_free(&diff);
    strv_free(&env);
    profile_free(&p);
}

static void test_limits_plan(void)
{
    struct profile p;
    profile_init_defaults(&p);
    struct rlimit cur;
    getrlimit(RLIMIT_NOFILE, &cur);
    p.limits[LIMIT_NOFILE].set = true;
    p.limits[LIMIT_NOFILE].value = 256;
    struct limits_plan plan;
    limits_prepare(&p, &plan);
    ok(plan.target[LIMIT_NOFILE].set, "nofile is planned");
    is_int(plan.target[LIMIT_NOFILE].want.rlim_cur, 256, "a number: soft");
    is_int(plan.target[LIMIT_NOFILE].want.rlim_max, 256, "a number: hard too, as ulimit -n");
    ok(!plan.target[LIMIT_CORE].set, "limits not set are inherited");
    p.limits[LIMIT_NOFILE].value = 0;
    p.limits[LIMIT_NOFILE].max = true;
    limits_prepare(&p, &plan);
    getrlimit(RLIMIT_NOFILE, &cur); /* as root with CAP_SYS_RESOURCE it was raised */
    is_int(plan.target[LIMIT_NOFILE].want.rlim_cur, cur.rlim_max, "max: soft = the hard limit");
    is_int(plan.target[LIMIT_NOFILE].want.rlim_max, cur.rlim_max, "max: the hard limit stays");

    /* Above what can be had: exit 125, never a clamp. */
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        p.limits[LIMIT_NOFILE].max = false;
        p.limits[LIMIT_NOFILE].value = (uint64_t)limits_nr_open() + 1;
        limits_prepare(&p, &plan);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    ok(WIFEXITED(st) && WEXITSTATUS(st) == 125, "nofile above fs.nr_open dies with 125");

    /* limits_apply() returns what getrlimit() says after it, in a child:
     * a lowered hard limit cannot be raised back. */
    fflush(stdout);
    int pipefd[2];
    if (pipe(pipefd) < 0)
        bail_out("pipe");
    pid = fork();
    if (pid == 0) {
        struct limits_plan lowered = { 0 };
        lowered.target[LIMIT_NOFILE].set = true;
        lowered.target[LIMIT_NOFILE].want = (struct rlimit){ 64, 128 };
        struct limits_applied applied;
        limits_apply(&lowered, &applied);
        char line[128];
        int n = snprintf(line, sizeof line, "%d %llu %llu %d", applied.limit[LIMIT_NOFILE].set,
                         (unsigned long long)applied.limit[LIMIT_NOFILE].now.rlim_cur,
                         (unsigned long long)applied.limit[LIMIT_NOFILE].now.rlim_max,
                         applied.limit[LIMIT_CORE].set);
        if (write(pipefd[1], line, (size_t)n) != n)
            _exit(1);
        _exit(0);
    }
    close(pipefd[1]);
    char got[128] = { 0 };
    ssize_t n = read(pipefd[0], got, sizeof got - 1);
    (void)n;
    close(pipefd[0]);
    waitpid(pid, &st, 0);
    is_str(got, "1 64 128 0", "limits_apply: returns getrlimit() after, only for limits it set");
    profile_free(&p);
}

/* kernel uid 0 without CAP_DAC_OVERRIDE: the owner's bits are root's own
 * only for root's files; another uid's are written through group or other */
static void test_foreign_owner(void)
{
    gid_t groups[] = { 4, 27 };
    struct stat st = { .st_uid = 1000, .st_gid = 1000, .st_mode = S_IFREG | 0644 };
    ok(foreign_owner_blocks_root(&st, 0, groups, 2), "uid 1000's 0644 file: refused");
    st.st_mode = S_IFDIR | 0755;
    ok(foreign_owner_blocks_root(&st, 0, groups, 2), "uid 1000's 0755 directory: refused");
    st.st_mode = S_IFDIR | 0777;
    ok(!foreign_owner_blocks_root(&st, 0, groups, 2), "writable by others: not refused");
    st.st_mode = S_IFREG | 0664;
    ok(foreign_owner_blocks_root(&st, 0, groups, 2), "group-writable, root not in group 1000: refused");
    st.st_gid = 0;
    ok(!foreign_owner_blocks_root(&st, 0, groups, 2), "group-writable, group 0 (root's egid): not refused");
    st.st_gid = 27;
    ok(!foreign_owner_blocks_root(&st, 0, groups, 2), "group-writable, a supplementary group: not refused");
    st.st_uid = 0;
    st.st_gid = 1000;
    st.st_mode = S_IFREG | 0444;
    ok(!foreign_owner_blocks_root(&st, 0, groups, 2), "root's own read-only file: not claimed");
    st.st_uid = 1000;
    st.st_mode = S_IFLNK | 0777;
    ok(!foreign_owner_blocks_root(&st, 0, groups, 2), "a symlink: not claimed");
}

/* Secrets by value (issue 28): what each detector takes, and the look-
 * alikes it must leave (a variable lost for nothing breaks a build). */
static void test_env_secret_values(void)
{
    static const char *const secret[] = {
        "postgres://app:hunter2@db.test:5432/app", "redis://:pw@cache:6379/0",
        "see https://u:p@h.test/x", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaSIsImpvYiI6NDJ9.c2lnbmF0dXJlLW9mLXRoZS1qd3Q",
        "ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "Bearer github_pat_11ABCDEFG0123456789_abcdefghijklmn",
        "glpat-abcdefghijklmnopqrstu", "xoxb-1234567890-abcdefghijkl", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123",
        "sk-abcdefghijklmnopqrstuvwxyz0123456789", "AKIAIOSFODNN7EXAMPLE", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
        "npm_abcdefghijklmnopqrstuvwxyz0123456789", "-----BEGIN RSA PRIVATE KEY-----\nMIIE",
        "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc==;EndpointSuffix=core.windows.net",
        "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=r;SharedAccessKey=abc=",
        "Server=db;Database=app;User Id=sa;Password=pw;",
    };
    static const char *const plain[] = {
        "/usr/local/bin:/usr/bin:/bin", "https://example.test/path?q=1", "http://user@host.test/",
        "hello-world", "sk-short", "ghp_tooshort", "desk-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "eyJ.not.jwt", "en_US.UTF-8", "xterm-256color", "Password=", "AKIA",
        "git@github.com:owner/repo.git", "ssh://git@host.test:22/repo",
    };
    bool all = true;
    for (size_t i = 0; i < sizeof secret / sizeof *secret; i++)
        if (!env_value_looks_secret(secret[i])) {
            diag("not flagged: %s", secret[i]);
            all = false;
        }
    ok(all, "secret values: each kind flagged");
    all = true;
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        if (env_value_looks_secret(plain[i])) {
            diag("flagged: %s (%s)", plain[i], env_value_looks_secret(plain[i]));
            all = false;
        }
    ok(all, "secret values: look-alikes pass");
    is_str(env_value_looks_secret("postgres://a:b@h/d"), "a URL with a password", "the reason is said");

    char *base[] = { "PATH=/bin", "APP_DB=postgres://a:b@h/d", "X=ghp_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                     NULL };
    struct profile p;
    profile_init_defaults(&p);
    struct strv env = { 0 };
    env_build(&p, base, &env, NULL);
    ok(env_get(&env, "APP_DB") != NULL, "unset_secret_values = no: values are not looked at");
    strv_free(&env);
    p.env_unset_secret_values = true;
    add(&p.env_keep, "X");
    env_build(&p, base, &env, NULL);
    ok(env_get(&env, "APP_DB") == NULL, "unset_secret_values = yes: a secret value is removed");
    ok(env_get(&env, "X") != NULL && env_get(&env, "PATH") != NULL, "keep wins; the rest passes");
    strv_free(&env);
    profile_free(&p);
}

int main(void)
{
    plan(102);
    test_exit_status();
    test_env();
    test_env_secret_values();
    test_env_patterns();
    test_env_diff();
    test_clone_flags();
    test_channel();
    test_watched_fds();
    test_limits_plan();
    test_foreign_owner();
    return done_testing();
}
