/* Test helper: runs a command with mount_setup() applied, without the rest
 * of sbx (no seccomp, no network namespace), so the mount concern can be
 * tested on its own and on both mount APIs.
 *
 *   mount-sandbox [--root ro|tmpfs|host] [--rw[?] P] [--ro[?] P]
 *                 [--tmpfs[?] P] [--hide[?] P] [--no-proc] [--dev none]
 *                 [--chdir DIR] [--legacy] [--profile-file F] [-v]
 *                 [--swap-link LINK NEW-TARGET] [--swap-dir PATH REPLACEMENT]
 *                 [--generated PATH TEXT]
 *                 -- COMMAND [ARG...]
 *
 * --swap-dir renames PATH to PATH.sbx-old and REPLACEMENT (a directory
 * or a symlink) to PATH at the same moment: a directory of a resolved
 * path replaced after the plan was made, which must be refused.
 *
 * --generated binds a read-only file holding TEXT at PATH (taken as it is:
 * a symlink there is covered), as sbx does for /etc/resolv.conf.
 *
 * --swap-link re-points the symlink LINK at NEW-TARGET after mount_setup()
 * resolved the rules and before it mounts anything: the race a profile
 * path through a symlink must not lose.
 *
 * Rules come from "mount-test.ini", line N for the Nth rule option, so a
 * test can check the file:line an error names. The command runs with no
 * capabilities and no_new_privs, as under sbx, in new user, mount and PID
 * namespaces (the caller's uid and gid mapped to themselves). Exit status:
 * the command's, 128+N for a signal, 125 when setup failed. */
#include "config.h"

#include "log.h"
#include "mount.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_proc(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || !write_all(fd, text, strlen(text)))
        die_errno("writing %s", path);
    close(fd);
}

static int wait_status_to_exit(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 125;
}

static int wait_for(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            die_errno("waitpid");
    return wait_status_to_exit(st);
}

static const char *swap_link, *swap_target;

static void swap_link_now(void)
{
    autofree char *tmp = xasprintf("%s.sbx-swap", swap_link);
    if (symlink(swap_target, tmp) < 0 || rename(tmp, swap_link) < 0)
        die_errno("--swap-link: re-pointing %s at %s", swap_link, swap_target);
}

static const char *swap_dir, *swap_replacement;

static void swap_dir_now(void)
{
    autofree char *old = xasprintf("%s.sbx-old", swap_dir);
    if (rename(swap_dir, old) < 0 || rename(swap_replacement, swap_dir) < 0)
        die_errno("--swap-dir: replacing %s with %s", swap_dir, swap_replacement);
}

static void add_rule(struct profile *p, enum fs_kind kind, bool optional, const char *path)
{
    xgrow((void **)&p->fs, &p->capfs, p->nfs + 1, sizeof *p->fs);
    unsigned line = (unsigned)p->nfs + 1;
    p->fs[p->nfs++] = (struct fs_rule){
        .kind = kind, .path = xstrdup(path), .optional = optional,
        .at = { .file = "mount-test.ini", .line = line },
    };
}

static bool rule_option(struct profile *p, const char *opt, const char *arg)
{
    static const struct { const char *name; enum fs_kind kind; } names[] = {
        { "--rw", FS_RW }, { "--ro", FS_RO }, { "--tmpfs", FS_TMPFS }, { "--hide", FS_HIDE },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i].name);
        if (strncmp(opt, names[i].name, n))
            continue;
        if (opt[n] == '\0' || (opt[n] == '?' && opt[n + 1] == '\0')) {
            add_rule(p, names[i].kind, opt[n] == '?', arg);
            return true;
        }
    }
    return false;
}

int main(int argc, char **argv)
{
    struct profile p;
    memset(&p, 0, sizeof p);
    p.root = ROOT_RO;
    p.proc = true;
    p.dev = DEV_MINIMAL;
    p.ns[NS_USER] = p.ns[NS_MOUNT] = p.ns[NS_PID] = true;
    struct mount_generated generated = {
        .why = "--generated", .at = { .file = "mount-test.ini", .line = 0 },
    };
    char cwdbuf[4096];
    const char *cwd = getcwd(cwdbuf, sizeof cwdbuf);
    if (!cwd)
        die_errno("getcwd");

    int i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        const char *o = argv[i];
        const char *arg = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--legacy")) {
            mount_force_legacy_api = true;
        } else if (!strcmp(o, "--no-proc")) {
            p.proc = false;
        } else if (!strcmp(o, "-v")) {
            log_verbosity = LOG_VERBOSE;
        } else if (!arg) {
            die("%s: needs an argument", o);
        } else if (!strcmp(o, "--root")) {
            p.root = !strcmp(arg, "tmpfs") ? ROOT_TMPFS : !strcmp(arg, "host") ? ROOT_HOST : ROOT_RO;
            i++;
        } else if (!strcmp(o, "--dev")) {
            p.dev = !strcmp(arg, "none") ? DEV_NONE : DEV_MINIMAL;
            i++;
        } else if (!strcmp(o, "--swap-link") && i + 2 < argc) {
            swap_link = arg;
            swap_target = argv[i + 2];
            mount_hook_after_resolve = swap_link_now;
            i += 2;
        } else if (!strcmp(o, "--swap-dir") && i + 2 < argc) {
            swap_dir = arg;
            swap_replacement = argv[i + 2];
            mount_hook_after_resolve = swap_dir_now;
            i += 2;
        } else if (!strcmp(o, "--generated") && i + 2 < argc) {
            generated.path = arg;
            generated.content = argv[i + 2];
            i += 2;
        } else if (!strcmp(o, "--chdir")) {
            cwd = arg;
            i++;
        } else if (!strcmp(o, "--profile-file")) {
            xgrow((void **)&p.files, &p.capfiles, p.nfiles + 1, sizeof *p.files);
            p.files[p.nfiles++] = xstrdup(arg);
            i++;
        } else if (rule_option(&p, o, arg)) {
            i++;
        } else {
            die("unknown option %s", o);
        }
    }
    if (i >= argc - 1)
        die("usage: mount-sandbox [OPTIONS] -- COMMAND [ARG...]");
    char **cmd = argv + i + 1;

    uid_t uid = getuid();
    gid_t gid = getgid();
    /* The namespaces are made in a child: after unshare(CLONE_NEWPID) a
     * process cannot create threads, and LeakSanitizer needs one at exit. */
    fflush(NULL);
    pid_t middle = fork();
    if (middle < 0)
        die_errno("fork");
    if (middle == 0) {
        log_use_underscore_exit = 1;
        die_hook = NULL;
        /* Killed with the test's process: init dies with us, and with it
         * the PID namespace (as sbx's supervisor arranges). */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
            die_errno("prctl(PR_SET_PDEATHSIG)");
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) < 0)
            die_errno("unshare(user, mount, pid)");
        char map[64];
        write_proc("/proc/self/setgroups", "deny");
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
        write_proc("/proc/self/uid_map", map);
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
        write_proc("/proc/self/gid_map", map);

        pid_t init = fork();
        if (init < 0)
            die_errno("fork");
        if (init == 0) {
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                die_errno("prctl(PR_SET_PDEATHSIG)");
            struct mount_inputs in = {
                .cwd = cwd, .generated = &generated, .ngenerated = generated.path ? 1 : 0, .outer_uid = uid,
            };
            mount_setup(&p, &in);
            pid_t child = fork();
            if (child < 0)
                die_errno("fork");
            if (child == 0) {
                cap_t none = cap_init();
                if (!none || cap_set_proc(none) < 0)
                    die_errno("dropping capabilities");
                cap_free(none);
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                    die_errno("no_new_privs");
                execvp(cmd[0], cmd);
                int e = errno;
                fprintf(stderr, "mount-sandbox: %s: %s\n", cmd[0], strerror(e));
                _exit(e == ENOENT ? 127 : 126);
            }
            _exit(wait_for(child));
        }
        _exit(wait_for(init));
    }
    int status = wait_for(middle);
    for (size_t k = 0; k < p.nfs; k++)
        free(p.fs[k].path);
    free(p.fs);
    for (size_t k = 0; k < p.nfiles; k++)
        free(p.files[k]);
    free(p.files);
    return status;
}
