/* Protected paths without touching the host: the list protect.c composes,
 * and what mount_plan_protect() adds to a plan for each state of the
 * filesystem (present, missing, a symlink, already read-only), faked by a
 * probe table; and the shipped profiles' writable places against
 * protect_shipped_writable(). */
#include "config.h"

#include "mount-plan.h"
#include "protect.h"
#include "../tap.h"
#include "util.h"

#include <errno.h>
#include <string.h>

static bool listed(const struct protect_list *l, const char *path, bool own)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].path, path))
            return l->v[i].own == own;
    return false;
}

/* The fake host: a path present (dir or file), a symlink, or missing. */
struct fake {
    const char *path;
    enum mount_found found;
    bool is_dir;
};
static const struct fake fs[] = {
    { "/home/u", MOUNT_FOUND_OBJECT, true },
    { "/home/u/.bashrc", MOUNT_FOUND_OBJECT, false },
    { "/home/u/.config", MOUNT_FOUND_OBJECT, true },
    { "/home/u/.config/git", MOUNT_FOUND_LINK, false },
    { "/p", MOUNT_FOUND_OBJECT, true },
    { "/p/.git", MOUNT_FOUND_OBJECT, true },
    { "/p/.git/config", MOUNT_FOUND_OBJECT, false },
    { "/p/.git/hooks", MOUNT_FOUND_OBJECT, true },
};
static int created;

static int fake_probe(const char *path, bool create, const char *content,
                      const struct mount_plan *plan, struct mount_probe *out, void *ctx)
{
    (void)plan;
    (void)ctx;
    *out = (struct mount_probe){ .fd = -1 };
    for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) {
        if (strcmp(fs[i].path, path))
            continue;
        out->found = fs[i].found;
        out->path = xstrdup(path);
        out->is_dir = fs[i].is_dir;
        out->mode = 0755;
        if (fs[i].found == MOUNT_FOUND_LINK)
            out->link_target = xstrdup("/elsewhere");
        return 0;
    }
    if (create) {
        created++;
        out->found = MOUNT_FOUND_OBJECT;
        out->path = xstrdup(path);
        out->is_dir = content == NULL;
        return 0;
    }
    out->found = MOUNT_FOUND_MISSING;
    out->path = xstrdup(path);
    return 0;
}

static int fake_resolve(const char *path, unsigned flags, struct mount_resolved *out, void *ctx)
{
    (void)flags;
    (void)ctx;
    out->path = xstrdup(path);
    out->fd = -1;
    out->is_dir = true;
    out->mode = 0755;
    return 0;
}

static const struct mount_entry *entry(const struct mount_plan *mp, const char *path)
{
    for (size_t i = 0; i < mp->n; i++)
        if (!strcmp(mp->v[i].path, path))
            return &mp->v[i];
    return NULL;
}

static void add_rule(struct profile *p, enum fs_kind kind, const char *path)
{
    xgrow((void **)&p->fs, &p->capfs, p->nfs + 1, sizeof *p->fs);
    p->fs[p->nfs++] = (struct fs_rule){ .kind = kind, .path = xstrdup(path),
                                         .at = { "t.ini", (unsigned)p->nfs + 1 } };
}

static void profile_clear(struct profile *p)
{
    for (size_t i = 0; i < p->nfs; i++)
        free(p->fs[i].path);
    free(p->fs);
    for (size_t i = 0; i < p->unprotect.n; i++)
        free(p->unprotect.v[i].value);
    free(p->unprotect.v);
    memset(p, 0, sizeof *p);
}

int main(void)
{
    plan(33);

    /* --- the list ---------------------------------------------------- */
    char *dirs[] = { (char *)"/home/u/.config/sbx/profiles", (char *)"/etc/sbx/profiles" };
    struct protect_inputs in = {
        .home = "/home/u", .xdg_config_home = "/xdg",
        .path_env = "/home/u/.pyenv/shims:/usr/bin:relative:/home/u:/home/u/../etc:/home/u/tools/",
        .exe = "/build/src/sbx", .search_dirs = dirs, .nsearch = 2,
    };
    struct protect_list l = { 0 };
    protect_list_build(&l, &in);
    ok(listed(&l, "/build/src/sbx", true), "the sbx binary is protected, as sbx's own");
    ok(listed(&l, "/home/u/.config/sbx/profiles", true), "every search directory, as sbx's own");
    ok(listed(&l, "/xdg/sbx", true) && listed(&l, "/home/u/.config/sbx", true),
       "$XDG_CONFIG_HOME/sbx and ~/.config/sbx both");
    ok(listed(&l, "/xdg/git", false) && listed(&l, "/home/u/.config/git", false),
       "git's configuration under both");
    ok(listed(&l, "/home/u/.gitconfig", false) && listed(&l, "/home/u/.bashrc", false),
       "~/.gitconfig, ~/.bashrc");
    ok(listed(&l, "/home/u/.pyenv/shims", false), "a $PATH directory below $HOME");
    ok(listed(&l, "/home/u/tools", false), "with its trailing slash dropped");
    ok(!listed(&l, "/usr/bin", false) && !listed(&l, "/home/u", false) &&
       !listed(&l, "relative", false) && !listed(&l, "/home/u/../etc", false),
       "not /usr/bin, not $HOME itself, not a relative or '..' entry");
    size_t before = l.n;
    protect_list_add(&l, "/home/u/.bashrc", PROTECT_FILE, PROTECT_MISSING_CREATE, false, "x", "");
    is_int((long)l.n, (long)before, "a path is listed once");
    bool every_placeholder = true;
    for (size_t i = 0; i < l.n; i++)
        if (l.v[i].kind == PROTECT_FILE && l.v[i].missing == PROTECT_MISSING_CREATE &&
            !l.v[i].placeholder)
            every_placeholder = false;
    ok(every_placeholder, "every file sbx creates when missing has its content");
    protect_list_free(&l);
    struct protect_inputs bare = { .home = "relative" };
    protect_list_build(&l, &bare);
    is_int((long)l.n, 0, "no absolute $HOME, no exe, no search path: an empty list");
    protect_list_free(&l);

    /* --- the plan ---------------------------------------------------- */
    struct profile p;
    memset(&p, 0, sizeof p);
    p.root = ROOT_RO;
    add_rule(&p, FS_RW, "/home/u");
    add_rule(&p, FS_RW, "/p");
    struct mount_plan mp = { 0 };
    char *err = NULL;
    ok(mount_plan_build(&mp, &p, fake_resolve, NULL, &err), "a plan with rw ~ and rw /p");
    char *none[] = { NULL };
    struct protect_inputs home_only = { .home = "/home/u", .search_dirs = none };
    protect_list_build(&l, &home_only);
    created = 0;
    ok(mount_plan_protect(&mp, &l, &p, fake_probe, NULL, &err), "protects");
    const struct mount_entry *e = entry(&mp, "/home/u/.bashrc");
    ok(e && e->op == MOUNT_OP_BIND_RO, "an existing ~/.bashrc: a read-only bind");
    e = entry(&mp, "/home/u/.config/git");
    ok(e && e->op == MOUNT_OP_HIDE && e->at_link && !e->is_dir,
       "a symlink at ~/.config/git: an empty file over the link itself");
    ok(mp.warnings.n >= 1 && strstr(mp.warnings.v[0], "/home/u/.config/git is a symlink to /elsewhere"),
       "and a warning naming it");
    e = entry(&mp, "/home/u/.config");
    ok(e && e->op == MOUNT_OP_BIND_RW && e->at.line == 0, "~/.config, between rw ~ and it, is pinned");
    e = entry(&mp, "/home/u/.zshrc");
    ok(e && e->op == MOUNT_OP_BIND_RO && !e->is_dir, "a missing ~/.zshrc is created, then bound read-only");
    ok(created > 0, "through the probe's create");
    e = entry(&mp, "/p/.git/config");
    ok(e && e->op == MOUNT_OP_BIND_RO, "the project's .git/config: read-only");
    const struct mount_entry *git = entry(&mp, "/p/.git");
    ok(entry(&mp, "/p/.git/hooks") && git && git->op == MOUNT_OP_BIND_RW,
       "its hooks read-only, .git pinned");
    ok(!entry(&mp, "/p/.git/config.worktree"), "a missing .git/config.worktree is left alone");
    ok(!entry(&mp, "/p/.envrc") && !entry(&mp, "/p/.claude/settings.json"),
       "nor a missing .envrc, and no .claude is created in a project without one");
    ok(!git || git->op != MOUNT_OP_BIND_RO, ".git as a directory is not made read-only (git inside commits)");
    mount_plan_free(&mp);

    /* unprotect, and a path that nothing writable holds */
    profile_clear(&p);
    p.root = ROOT_RO;
    add_rule(&p, FS_RW, "/home/u");
    add_rule(&p, FS_HIDE, "/home/u/.config");
    xgrow((void **)&p.unprotect.v, &p.unprotect.cap, 1, sizeof *p.unprotect.v);
    p.unprotect.v[p.unprotect.n++] = (struct str_entry){ xstrdup("/home/u/.bashrc"), { "t.ini", 9 } };
    ok(mount_plan_build(&mp, &p, fake_resolve, NULL, &err), "a plan with rw ~, hide ~/.config");
    ok(mount_plan_protect(&mp, &l, &p, fake_probe, NULL, &err), "protects");
    ok(!entry(&mp, "/home/u/.bashrc"), "unprotect = ~/.bashrc leaves it to rw ~");
    ok(!entry(&mp, "/home/u/.config/git"), "a path under a hidden directory is left to the hide");
    bool noted = false;
    for (size_t i = 0; i < mp.notes.n; i++)
        noted |= strstr(mp.notes.v[i], "/home/u/.bashrc left writable") != NULL;
    ok(noted, "-v says which one was left writable");
    mount_plan_free(&mp);
    protect_list_free(&l);
    profile_clear(&p);

    /* --- the shipped profiles' writable places ------------------------- */
    /* Every rw rule below ${HOME} in the shipped profiles must lie in the table
     * the symlink rule uses, or a link planted there would be followed. */
    size_t n;
    const char *const *places = protect_shipped_writable(&n);
    FILE *f = popen("cat " SBX_ABS_SRCDIR "/profiles/*.ini", "r");
    char line[512];
    int rules = 0, outside = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *rel = strstr(line, "= ${HOME}/");
        if ((strncmp(line, "rw", 2) && strncmp(line, "cache", 5)) || !rel)
            continue;
        rel += strlen("= ${HOME}/");
        rules++;
        bool known = false;
        for (size_t i = 0; i < n; i++) {
            size_t len = strlen(places[i]);
            if (!strncmp(rel, places[i], len) && (rel[len] == '/' || rel[len] == '\n' ||
                                                  rel[len] == ' ' || rel[len] == '\0'))
                known = true;
        }
        if (!known) {
            outside++;
            diag("not in protect_shipped_writable(): %s", line);
        }
    }
    if (f)
        pclose(f);
    ok(rules > 10 && outside == 0, "all %d rw and cache rules below ${HOME} of the shipped profiles are known",
       rules);

    /* The git directories of a worktree (elsewhere, project.h) */
    struct protect_list g = { 0 };
    protect_list_add_git_dir(&g, "/w/main/.git/worktrees/wt", false);
    protect_list_add_git_dir(&g, "/w/main/.git", true);
    protect_list_add_git_dir(&g, NULL, true);
    bool cfg = false, commondir = false, hooks_made = false, wt_hooks_left = false;
    for (size_t i = 0; i < g.n; i++) {
        const struct protected_path *gp = &g.v[i];
        cfg |= !strcmp(gp->path, "/w/main/.git/config") && gp->kind == PROTECT_FILE;
        commondir |= !strcmp(gp->path, "/w/main/.git/worktrees/wt/commondir");
        hooks_made |= !strcmp(gp->path, "/w/main/.git/hooks") && gp->missing == PROTECT_MISSING_CREATE;
        wt_hooks_left |= !strcmp(gp->path, "/w/main/.git/worktrees/wt/hooks") &&
                         gp->missing == PROTECT_MISSING_IGNORE;
    }
    ok(cfg && commondir, "a worktree: the common config and its own commondir are protected");
    ok(hooks_made && wt_hooks_left, "hooks made where git runs them (the common directory) only");
    is_int((int)g.n, 8, "four names each, nothing for NULL");
    protect_list_free(&g);
    return done_testing();
}
