#include "config.h"

#include "cgroup.h"

#include "log.h"
#include "report.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
    char *out = s;
    for (char *in = s; *in;) {
        if (in[0] == '\\' && in[1] >= '0' && in[1] <= '7' && in[2] >= '0' && in[2] <= '7' &&
            in[3] >= '0' && in[3] <= '7') {
            *out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
            in += 4;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
}

static bool list_has(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *s = list; s && *s;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        if (len == n && !strncmp(s, word, n))
            return true;
        s = comma ? comma + 1 : NULL;
    }
    return false;
}

/* The path of this process's cgroup in the hierarchy that holds
 * `controller` (v1), or in the v2 hierarchy (controller NULL). */
static char *self_cgroup_path(const char *self_cgroup, const char *controller)
{
    char *text = xstrdup(self_cgroup), *save = NULL, *found = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        bool match = controller ? list_has(c1 + 1, controller)
                                : !strcmp(line, "0") && c1[1] == '\0';
        if (match) {
            found = xstrdup(c2 + 1);
            break;
        }
    }
    free(text);
    return found;
}

char *cgroup_pids_home(const char *mountinfo, const char *self_cgroup, bool *v2, char *why,
                       size_t whylen)
{
    char *text = xstrdup(mountinfo), *save = NULL;
    char *v1_point = NULL, *v1_root = NULL, *v2_point = NULL, *v2_root = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *sep = strstr(line, " - ");
        if (!sep)
            continue;
        *sep = '\0';
        char *f[5] = {0}, *s2 = NULL;
        char *p = line;
        int n = 0;
        for (char *tok = strtok_r(p, " ", &s2); tok && n < 5; tok = strtok_r(NULL, " ", &s2))
            f[n++] = tok;
        char *after = sep + 3, *s3 = NULL;
        char *fstype = strtok_r(after, " ", &s3);
        char *source = fstype ? strtok_r(NULL, " ", &s3) : NULL;
        char *super = source ? strtok_r(NULL, " ", &s3) : NULL;
        if (n < 5 || !fstype)
            continue;
        if (!strcmp(fstype, "cgroup") && super && list_has(super, "pids") && !v1_point) {
            v1_root = xstrdup(f[3]);
            v1_point = xstrdup(f[4]);
        } else if (!strcmp(fstype, "cgroup2") && !v2_point) {
            v2_root = xstrdup(f[3]);
            v2_point = xstrdup(f[4]);
        }
    }
    free(text);

    /* A controller is in one hierarchy at a time: a v1 pids mount means
     * the v2 one (a hybrid host's /sys/fs/cgroup/unified) has none. */
    char *home = NULL;
    *v2 = !v1_point;
    char *point = v1_point ? v1_point : v2_point, *root = v1_point ? v1_root : v2_root;
    if (!point) {
        snprintf(why, whylen, "no cgroup hierarchy with the pids controller is mounted "
                              "(/proc/self/mountinfo)");
        goto out;
    }
    unescape_octal(point);
    unescape_octal(root);
    char *path = self_cgroup_path(self_cgroup, *v2 ? NULL : "pids");
    if (!path) {
        snprintf(why, whylen, "/proc/self/cgroup names no %s cgroup for sbx",
                 *v2 ? "cgroup v2" : "pids");
        goto out;
    }
    /* The mount shows the hierarchy from `root` down; a cgroup namespace
     * or a bind of a subtree can leave sbx's own cgroup outside it. */
    size_t rl = strcmp(root, "/") ? strlen(root) : 0;
    if (rl && (strncmp(path, root, rl) || (path[rl] && path[rl] != '/'))) {
        snprintf(why, whylen, "sbx's cgroup %s is outside the part %s of the hierarchy "
                              "mounted on %s", path, root, point);
        free(path);
        goto out;
    }
    const char *rest = path + rl;
    home = xasprintf("%s%s%s", point, *rest && *rest != '/' ? "/" : "",
                     strcmp(rest, "/") ? rest : "");
    free(path);
out:
    free(v1_point);
    free(v1_root);
    free(v2_point);
    free(v2_root);
    return home;
}

static bool file_has_word(const char *path, const char *word)
{
    char *text = read_file_text(path, 1 << 16, NULL);
    if (!text)
        return false;
    bool found = false;
    char *save = NULL;
    for (char *w = strtok_r(text, " \n", &save); w && !found; w = strtok_r(NULL, " \n", &save))
        found = !strcmp(w, word);
    free(text);
    return found;
}

static bool write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = write_all(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return ok;
}

/* On cgroup v2 a cgroup with processes of its own cannot give its
 * children controllers (the "no internal processes" rule; the root is
 * exempt): sbx's own cgroup serves when pids is enabled in its
 * cgroup.subtree_control, which in practice means the root, else its
 * parent does, which then holds the sandbox's cgroup next to sbx's. */
static char *v2_parent(const char *home, char *why, size_t whylen)
{
    char *sc = xasprintf("%s/cgroup.subtree_control", home);
    bool here = file_has_word(sc, "pids");
    free(sc);
    if (here)
        return xstrdup(home);
    char *up = xstrdup(home);
    char *slash = strrchr(up, '/');
    if (slash && slash != up) {
        *slash = '\0';
        char *upsc = xasprintf("%s/cgroup.subtree_control", up);
        bool there = file_has_word(upsc, "pids");
        free(upsc);
        if (there)
            return up;
    }
    free(up);
    snprintf(why, whylen, "the pids controller is not enabled in %s/cgroup.subtree_control "
                          "(cgroup v2) nor in its parent's", home);
    return NULL;
}

/* *home_out: sbx's own pids cgroup (NULL if none was found). */
static char *pids_parent(char **home_out, char *why, size_t whylen)
{
    char *mountinfo = read_file_text("/proc/self/mountinfo", 16 << 20, NULL);
    char *self = read_file_text("/proc/self/cgroup", 1 << 20, NULL);
    char *home = NULL, *parent = NULL;
    bool v2 = false;
    if (!mountinfo || !self)
        snprintf(why, whylen, "cannot read %s: %s", mountinfo ? "/proc/self/cgroup"
                                                               : "/proc/self/mountinfo",
                 strerror(errno));
    else
        home = cgroup_pids_home(mountinfo, self, &v2, why, whylen);
    free(mountinfo);
    free(self);
    if (home)
        parent = v2 ? v2_parent(home, why, whylen) : xstrdup(home);
    *home_out = home;
    return parent;
}

static struct sandbox_cgroup *exit_cleanup; /* removed at exit() after a die() */
static pid_t exit_cleanup_owner;

static void remove_at_exit(void)
{
    if (exit_cleanup && getpid() == exit_cleanup_owner)
        sandbox_cgroup_remove(exit_cleanup);
}

/* A supervisor killed by SIGKILL cannot remove its cgroup; the next sbx
 * removes those of sbx processes that are gone. rmdir(2) only removes an
 * empty cgroup without children, so a live sandbox's never goes. */
static void remove_stale(const char *parent)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        unsigned n;
        char end;
        if (sscanf(e->d_name, "sbx.%ld.%u%c", &pid, &n, &end) != 2 || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char *dir = xasprintf("%s/%s", parent, e->d_name);
        /* The pid may be of another PID namespace (an sbx started by a
         * caller in a container or a sandbox of its own), where it exists
         * though kill() cannot see it: a cgroup made in the last minute is
         * left alone, since its sandbox may not be in it yet (empty, it
         * would go). One that old holds its init, or was left behind. */
        struct stat st;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        if (stat(dir, &st) == 0 && now.tv_sec - st.st_mtim.tv_sec < 60) {
            free(dir);
            continue;
        }
        if (rmdir(dir) == 0)
            verbose("removed %s, left by an sbx that was killed", dir);
        free(dir);
    }
    closedir(d);
}

static bool create_with_max(struct sandbox_cgroup *cg, const char *parent, uint64_t max,
                            char *why, size_t whylen)
{
    static unsigned serial;
    remove_stale(parent);
    char *dir = NULL;
    for (int tries = 0; tries < 100; tries++) {
        free(dir);
        dir = xasprintf("%s/sbx.%ld.%u", parent, (long)getpid(), serial++);
        if (mkdir(dir, 0755) == 0)
            break;
        if (errno != EEXIST) {
            snprintf(why, whylen, "cannot create %s: %s", dir, strerror(errno));
            free(dir);
            return false;
        }
    }
    char *file = xasprintf("%s/pids.max", dir);
    char value[32];
    snprintf(value, sizeof value, "%" PRIu64 "\n", max);
    bool ok = write_text(file, value);
    if (!ok) {
        snprintf(why, whylen, "cannot write %s: %s", file, strerror(errno));
        rmdir(dir);
        free(dir);
    } else {
        cg->dir = dir;
    }
    free(file);
    return ok;
}

/* The nearest pids cgroup from home up with pids.max <= max: sbx runs in
 * it already, and so will the sandbox (a nested sbx inside a sandbox,
 * where /sys/fs/cgroup is read-only, or a container with pids.max). The
 * limit then holds for the sandbox together with its neighbours there.
 * The root cgroup has no pids.max, which ends the walk. */
static char *enclosing_limit(const char *home, uint64_t max)
{
    char *dir = home ? xstrdup(home) : NULL;
    while (dir) {
        char *file = xasprintf("%s/pids.max", dir);
        char *text = read_file_text(file, 64, NULL);
        free(file);
        if (!text)
            break;
        text[strcspn(text, "\n")] = '\0';
        uint64_t v;
        bool within = parse_u64(text, &v) && v <= max;
        free(text);
        if (within)
            return dir;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            break;
        *slash = '\0';
    }
    free(dir);
    return NULL;
}

bool sandbox_cgroup_prepare(struct sandbox_cgroup *cg, const struct profile *p, uid_t outer_uid)
{
    static bool warned;
    memset(cg, 0, sizeof *cg);
    const struct limit_setting *s = &p->limits[LIMIT_NPROC];
    if (!s->set || s->unlimited || s->max)
        return false;
    /* The kernel exempts the real uid: sbx started by a setuid or sudo
     * wrapper may have either id 0. */
    if (outer_uid != 0 && getuid() != 0) {
        record_nproc_enforcement("RLIMIT_NPROC", NULL, true, NULL);
        return false;
    }
    char why[512] = "";
    char *home = NULL;
    char *parent = pids_parent(&home, why, sizeof why);
    if (parent && create_with_max(cg, parent, s->value, why, sizeof why)) {
        free(parent);
        free(home);
        verbose_step("pids cgroup %s, pids.max = %" PRIu64, cg->dir, s->value);
        record_nproc_enforcement("pids cgroup", cg->dir, true, NULL);
        exit_cleanup = cg;
        static bool atexit_done;
        if (!atexit_done) {
            atexit_done = true;
            atexit(remove_at_exit);
        }
        exit_cleanup_owner = getpid();
        return true;
    }
    free(parent);
    char *enclosing = enclosing_limit(home, s->value);
    free(home);
    if (enclosing) {
        verbose("nproc = %" PRIu64 ": no pids cgroup of its own for the sandbox (%s), but sbx "
                "runs in %s, whose pids.max is lower or equal", s->value, why, enclosing);
        record_nproc_enforcement("enclosing pids cgroup", enclosing, true, NULL);
        free(enclosing);
        return false;
    }
    record_nproc_enforcement(NULL, NULL, false, why);
    if (!warned) {
        warned = true;
        warn("warning: nproc = %" PRIu64 " is not enforced: the command runs as the host's "
             "uid 0, which RLIMIT_NPROC does not limit, and sbx found no pids cgroup to make "
             "for it (%s); mount the pids controller writable (cgroup v1 "
             "/sys/fs/cgroup/pids, or +pids in cgroup.subtree_control on v2), or run sbx as "
             "another user", s->value, why);
    }
    return false;
}

void sandbox_cgroup_enter(struct sandbox_cgroup *cg, pid_t pid)
{
    char *file = xasprintf("%s/cgroup.procs", cg->dir);
    char value[32];
    snprintf(value, sizeof value, "%ld\n", (long)pid);
    if (!write_text(file, value))
        die_errno("moving the sandbox's init into its pids cgroup (%s)", file);
    free(file);
    cg->init_pid = pid;
}

/* Kills every process listed in the cgroup; true when none was listed. */
static bool kill_members(const char *dir)
{
    char *file = xasprintf("%s/cgroup.procs", dir);
    char *text = read_file_text(file, 16 << 20, NULL);
    free(file);
    if (!text)
        return true;
    bool empty = true;
    for (char *s = text; *s;) {
        char *end;
        long pid = strtol(s, &end, 10);
        if (end == s)
            break;
        if (pid > 0) {
            kill((pid_t)pid, SIGKILL);
            empty = false;
        }
        s = end;
    }
    free(text);
    return empty;
}

void sandbox_cgroup_remove(struct sandbox_cgroup *cg)
{
    if (exit_cleanup == cg)
        exit_cleanup = NULL;
    if (!cg->dir)
        return;
    /* Normally empty by now: init killed everything and was reaped, and
     * in a PID namespace its end killed the rest. A supervisor dying in
     * setup, or pid = no, may leave members: they are the sandbox's. A
     * task leaves the pids count when it is reaped, so retry rmdir while
     * the last ones are being released. */
    int err = 0;
    for (int round = 0; round < 300; round++) {
        kill_members(cg->dir);
        if (cg->init_pid > 0 && waitpid(cg->init_pid, NULL, WNOHANG) == cg->init_pid)
            cg->init_pid = 0;
        if (rmdir(cg->dir) == 0 || errno == ENOENT) {
            err = 0;
            break;
        }
        err = errno;
        if (err != EBUSY)
            break;
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    if (err) {
        errno = err;
        warn_errno("warning: cannot remove the sandbox's pids cgroup %s (remove it with rmdir)",
                   cg->dir);
    }
    free(cg->dir);
    cg->dir = NULL;
}
