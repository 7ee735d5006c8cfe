/* The mount plan, without mounting anything: order, overrides, symlinks
 * resolved once, optional and missing paths, and which profile files the
 * command could rewrite. The filesystem is faked by a resolver table. */
#include "config.h"

#include "mount-plan.h"
#include "../tap.h"
#include "util.h"

#include <errno.h>
#include <string.h>

struct fake_path {
    const char *asked;      /* as written in the profile */
    const char *canonical;  /* NULL: missing */
    bool is_dir;
};

static const struct fake_path fake_fs[] = {
    { "/home/u", "/home/u", true },
    { "/home/u/p", "/home/u/p", true },
    { "/home/u/p/.ssh", "/home/u/p/.ssh", true },
    { "/home/u/.netrc", "/home/u/.netrc", false },
    { "/home/u/link", "/data", true },          /* a symlink pointing outside */
    { "/home/u/p/../q", "/home/u/q", true },    /* ".." resolved */
    { "/usr", "/usr", true },
    { "/tmp", "/tmp", true },
    { "/tmp/proj", "/tmp/proj", true },
    { "/dev/shm", "/dev/shm", true },
    { "/proc", "/proc", true },
    { "/etc", "/etc", true },
    { "/etc/x", "/etc/x", true },
    { "/etc/resolv.conf", "/etc/resolv.conf", false },
    { "/missing", NULL, false },
    { "/home/u/.cache/git/credential", "(denied)", false }, /* below another user's 0700 directory */
    { "/w/wt", "/w/wt", true },
    { "/w/main/.git", "/w/main/.git", true },
    { "/w/main/.git/worktrees", "/w/main/.git/worktrees", true },
    { "/w/main/.git/worktrees/wt", "/w/main/.git/worktrees/wt", true },
};

static int fake_resolve(const char *path, unsigned flags, struct mount_resolved *out, void *ctx)
{
    (void)flags;
    int *calls = ctx;
    (*calls)++;
    for (size_t i = 0; i < sizeof fake_fs / sizeof fake_fs[0]; i++) {
        if (strcmp(fake_fs[i].asked, path))
            continue;
        if (!fake_fs[i].canonical)
            return ENOENT;
        if (!strcmp(fake_fs[i].canonical, "(denied)"))
            return EACCES;
        out->path = xstrdup(fake_fs[i].canonical);
        out->fd = -1;
        out->is_dir = fake_fs[i].is_dir;
        out->mode = fake_fs[i].is_dir ? 0755 : 0644;
        return 0;
    }
    return ENOENT;
}

static void add(struct profile *p, enum fs_kind kind, const char *path, bool optional)
{
    xgrow((void **)&p->fs, &p->capfs, p->nfs + 1, sizeof *p->fs);
    unsigned line = (unsigned)p->nfs + 1;
    p->fs[p->nfs++] = (struct fs_rule){
        .kind = kind, .path = xstrdup(path), .optional = optional,
        .at = { .file = "t.ini", .line = line },
    };
}

static void profile_reset(struct profile *p, enum root_mode root, bool proc, enum dev_mode dev)
{
    for (size_t i = 0; i < p->nfs; i++)
        free(p->fs[i].path);
    free(p->fs);
    memset(p, 0, sizeof *p);
    p->root = root;
    p->proc = proc;
    p->dev = dev;
    p->ns[NS_PID] = true;
}

/* "op:path op:path ..." for compact comparisons */
static char *plan_text(const struct mount_plan *plan)
{
    char *s = xstrdup("");
    for (size_t i = 0; i < plan->n; i++) {
        char *t = xasprintf("%s%s%s:%s", s, i ? " " : "", mount_op_name(plan->v[i].op),
                            plan->v[i].path);
        free(s);
        s = t;
    }
    return s;
}

int main(void)
{
    plan(66);
    struct profile p;
    memset(&p, 0, sizeof p);
    struct mount_plan mp = { 0 };
    char *err = NULL, *text;
    int calls = 0;

    is_int(mount_path_depth("/"), 0, "depth of /");
    is_int(mount_path_depth("/a"), 1, "depth of /a");
    is_int(mount_path_depth("/a/b/c"), 3, "depth of /a/b/c");
    ok(mount_path_within("/a/b", "/a"), "/a/b is within /a");
    ok(mount_path_within("/a", "/a"), "/a is within itself");
    ok(!mount_path_within("/ab", "/a"), "/ab is not within /a (components, not bytes)");
    ok(mount_path_within("/x", "/"), "everything is within /");

    /* Nested rules in the wrong order come out parent first. */
    profile_reset(&p, ROOT_RO, true, DEV_MINIMAL);
    add(&p, FS_HIDE, "/home/u/p/.ssh", false);
    add(&p, FS_RW, "/home/u/p", false);
    add(&p, FS_TMPFS, "/home/u", false);
    add(&p, FS_RO, "/usr", false);
    add(&p, FS_TMPFS, "/dev/shm", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "nested plan builds");
    text = plan_text(&mp);
    is_str(text, "root (read-only):/ proc:/proc dev (minimal):/dev ro:/usr tmpfs:/home/u "
                 "tmpfs:/dev/shm rw:/home/u/p hide:/home/u/p/.ssh",
           "parent first whatever the order in the file, siblings in file order");
    free(text);
    is_int(calls, 5, "each path resolved exactly once");
    is_int(mp.v[6].at.line, 2, "an entry keeps the line of its rule");
    mount_plan_free(&mp);

    /* Every order of four nested rules gives parents before children. */
    {
        static const char *const nested[] = { "/home/u", "/home/u/p", "/home/u/p/.ssh", "/usr" };
        int perm[4] = { 0, 1, 2, 3 }, bad = 0, orders = 0;
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                for (int c = 0; c < 4; c++)
                    for (int d = 0; d < 4; d++) {
                        if (a == b || a == c || a == d || b == c || b == d || c == d)
                            continue;
                        perm[0] = a, perm[1] = b, perm[2] = c, perm[3] = d;
                        profile_reset(&p, ROOT_RO, false, DEV_NONE);
                        for (int k = 0; k < 4; k++)
                            add(&p, FS_RO, nested[perm[k]], false);
                        if (!mount_plan_build(&mp, &p, fake_resolve, &calls, &err)) {
                            bad++;
                            continue;
                        }
                        orders++;
                        for (size_t i = 0; i < mp.n; i++)
                            for (size_t j = i + 1; j < mp.n; j++)
                                if (mount_path_within(mp.v[i].path, mp.v[j].path) &&
                                    strcmp(mp.v[i].path, mp.v[j].path))
                                    bad++;
                        mount_plan_free(&mp);
                    }
        is_int(orders, 24, "all 24 orders of four rules build");
        is_int(bad, 0, "and in each a parent comes before its children");
    }

    /* A later rule on the same path replaces the earlier one. */
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_RW, "/usr", false);
    add(&p, FS_RO, "/usr", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "override plan builds");
    text = plan_text(&mp);
    is_str(text, "root (read-only):/ ro:/usr", "the later rule wins, once");
    free(text);
    is_int(mp.v[1].at.line, 2, "with the later rule's line");
    mount_plan_free(&mp);

    /* An exact rule on /proc replaces proc = yes. */
    profile_reset(&p, ROOT_RO, true, DEV_NONE);
    add(&p, FS_RO, "/proc", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "rule on /proc builds");
    text = plan_text(&mp);
    is_str(text, "root (read-only):/ ro:/proc", "a rule on /proc replaces the new proc");
    free(text);
    mount_plan_free(&mp);

    /* pid = no: the host's /proc is the sandbox's, bound rather than made. */
    profile_reset(&p, ROOT_RO, true, DEV_NONE);
    p.ns[NS_PID] = false;
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "pid = no plan builds");
    text = plan_text(&mp);
    is_str(text, "root (read-only):/ proc (the host's: no PID namespace):/proc",
           "proc = yes without a PID namespace binds the host's /proc");
    free(text);
    mount_plan_free(&mp);

    /* Symlinks and ".." are resolved before anything is planned: the
     * target is the canonical path, and nested order uses it. */
    profile_reset(&p, ROOT_TMPFS, false, DEV_NONE);
    add(&p, FS_RW, "/home/u/link", false);
    add(&p, FS_RO, "/home/u/p/../q", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "symlinked plan builds");
    text = plan_text(&mp);
    is_str(text, "root (empty tmpfs):/ rw:/data ro:/home/u/q",
           "a symlink is bound where it points, '..' is gone");
    free(text);
    mount_plan_free(&mp);

    /* Missing paths. */
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_RO, "/usr", false);
    add(&p, FS_RW, "/missing", true);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "an optional missing path is skipped");
    is_int(mp.n, 2, "and leaves no entry");
    mount_plan_free(&mp);

    add(&p, FS_RW, "/missing", false);
    ok(!mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "a required missing path fails");
    like_str(err, "t.ini:3: rw path /missing does not exist", "the error names file:line and path");
    like_str(err, "'rw?'", "and says how to make it optional");
    free(err);
    err = NULL;
    mount_plan_free(&mp);

    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_RO, "usr/share", false);
    ok(!mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "a relative path fails");
    like_str(err, "t.ini:1: ro path 'usr/share' is not absolute", "naming the line");
    free(err);
    err = NULL;
    mount_plan_free(&mp);

    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_TMPFS, "/home/u/.netrc", false);
    ok(!mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "tmpfs over a file fails");
    like_str(err, "t.ini:1: tmpfs path /home/u/.netrc", "naming the line and path");
    free(err);
    err = NULL;
    mount_plan_free(&mp);

    /* cache: an overlay entry on the canonical path, a directory only,
     * and nothing the command writes there is the host's (no holder) */
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_CACHE, "/home/u/link", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "cache on a directory builds");
    ok(mp.n == 2 && mp.v[1].op == MOUNT_OP_CACHE && !strcmp(mp.v[1].path, "/data"),
       "cache: an overlay entry on the canonical path");
    ok(!mount_plan_writable_holder(&mp, "/data/sbx/x.ini"), "a file below a cache is not the host's to lose");
    mount_plan_free(&mp);
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_CACHE, "/home/u/.netrc", false);
    ok(!mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "cache over a file fails");
    like_str(err, "t.ini:1: cache path /home/u/.netrc (/home/u/.netrc) is not a directory",
             "naming the line and path");
    free(err);
    err = NULL;
    mount_plan_free(&mp);

    /* Which profile files the command could rewrite. */
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_RW, "/home/u", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "rw home builds");
    const struct mount_entry *e = mount_plan_writable_holder(&mp, "/home/u/.config/sbx/x.ini");
    ok(e && !strcmp(e->path, "/home/u"), "a profile under rw ~ is writable");
    ok(!mount_plan_writable_holder(&mp, "/etc/sbx/profiles/x.ini"), "one under /etc is not");
    mount_plan_free(&mp);
    add(&p, FS_RO, "/home/u/p", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "rw ~ + ro ~/p builds");
    ok(!mount_plan_writable_holder(&mp, "/home/u/p/sbx.ini"), "a deeper ro rule protects it");
    mount_plan_free(&mp);

    profile_reset(&p, ROOT_HOST, false, DEV_NONE);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "root = host builds");
    e = mount_plan_writable_holder(&mp, "/etc/sbx/profiles/x.ini");
    ok(e && e->op == MOUNT_OP_ROOT_HOST, "with root = host every profile is writable");
    mount_plan_free(&mp);
    add(&p, FS_HIDE, "/home/u", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "root = host + hide ~ builds");
    ok(!mount_plan_writable_holder(&mp, "/home/u/x.ini"), "but not one under a hidden path");
    mount_plan_free(&mp);

    /* Which working directories the plan leaves invisible: below a fresh
     * tmpfs or a hidden directory, unless a deeper rule shows it. */
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_TMPFS, "/tmp", false);
    add(&p, FS_RW, "/tmp/proj", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "tmpfs /tmp + rw /tmp/proj builds");
    e = mount_plan_hiding(&mp, "/tmp/other");
    ok(e && !strcmp(e->path, "/tmp"), "a directory under the tmpfs is hidden by it");
    ok(!mount_plan_hiding(&mp, "/tmp"), "the tmpfs's own top is not");
    ok(!mount_plan_hiding(&mp, "/tmp/proj/src"), "nor one under a deeper rw rule");
    ok(!mount_plan_hiding(&mp, "/usr/src"), "nor one the read-only root shows");
    mount_plan_free(&mp);
    profile_reset(&p, ROOT_TMPFS, false, DEV_NONE);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "root = tmpfs builds");
    e = mount_plan_hiding(&mp, "/home/u");
    ok(e && e->op == MOUNT_OP_ROOT_TMPFS, "with root = tmpfs every directory is hidden");
    mount_plan_free(&mp);

    /* A generated file (outbound DNS: /etc/resolv.conf) goes after its
     * parents; a rule on that very path wins. */
    profile_reset(&p, ROOT_RO, true, DEV_NONE);
    add(&p, FS_TMPFS, "/etc/x", false);
    add(&p, FS_TMPFS, "/etc", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "plan with /etc builds");
    ok(mount_plan_add_generated(&mp, "/etc/resolv.conf", "nameserver 1.2.3.4\n",
                                (struct origin){ NULL, 0 }),
       "a generated /etc/resolv.conf is added");
    text = plan_text(&mp);
    is_str(text, "root (read-only):/ proc:/proc tmpfs:/etc tmpfs:/etc/x "
                 "generated file:/etc/resolv.conf", "it comes after /etc, parent first");
    free(text);
    mount_plan_free(&mp);
    add(&p, FS_HIDE, "/etc/resolv.conf", false);
    mount_plan_build(&mp, &p, fake_resolve, &calls, &err);
    ok(!mount_plan_add_generated(&mp, "/etc/resolv.conf", "x", (struct origin){ NULL, 0 }),
       "hide = /etc/resolv.conf wins over the generated file");
    mount_plan_free(&mp);

    /* A worktree's git directories come with an rw rule on its top, the
     * directory between them pinned; no rule on the top, no git dirs. */
    const char *git_dirs[] = { "/w/main/.git/worktrees/wt", "/w/main/.git" };
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_RW, "/w/wt", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err), "rw = the worktree's top builds");
    ok(mount_plan_add_git_dirs(&mp, "/w/wt", git_dirs, 2, fake_resolve, &calls, &err),
       "its git directories are added");
    text = plan_text(&mp);
    is_str(text, "root (read-only):/ rw:/w/wt rw:/w/main/.git rw:/w/main/.git/worktrees "
           "rw:/w/main/.git/worktrees/wt",
           "both writable, worktrees/ between them pinned, parent first");
    free(text);
    is_int(mp.v[4].at.line, 1, "with the origin of the rule on the top");
    mount_plan_free(&mp);
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_RW, "/tmp/proj", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err) &&
       mount_plan_add_git_dirs(&mp, "/w/wt", git_dirs, 2, fake_resolve, &calls, &err),
       "no rule on the worktree's top builds");
    is_int((int)mp.n, 2, "and adds no git directory");
    mount_plan_free(&mp);
    /* rw = /tmp (started in /tmp) and the later tmpfs = /tmp: said */
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_RW, "/tmp", false);
    add(&p, FS_TMPFS, "/tmp", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err) && mp.warnings.n == 1 &&
       strstr(mp.warnings.v[0], "t.ini:1: rw = /tmp is replaced by the later tmpfs = /tmp (t.ini:2)"),
       "an rw rule replaced by a later tmpfs is warned about");
    mount_plan_free(&mp);
    add(&p, FS_RW, "/tmp", false);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err) && mp.warnings.n == 0,
       "not when a still later rw rule gives it back");
    mount_plan_free(&mp);

    /* a hide below a directory the caller cannot enter: the command
     * cannot either, nothing to hide; any other rule there stops */
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    add(&p, FS_HIDE, "/home/u/.cache/git/credential", true);
    ok(mount_plan_build(&mp, &p, fake_resolve, &calls, &err) && mp.n == 1,
       "a hide the caller cannot reach (EACCES) plans nothing and starts");
    mount_plan_free(&mp);
    add(&p, FS_RO, "/home/u/.cache/git/credential", true);
    ok(!mount_plan_build(&mp, &p, fake_resolve, &calls, &err) && err && strstr(err, "Permission denied"),
       "a ro rule there is refused, naming the errno");
    free(err);
    err = NULL;
    mount_plan_free(&mp);
    profile_reset(&p, ROOT_RO, false, DEV_NONE);
    return done_testing();
}
