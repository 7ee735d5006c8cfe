/* ${PROJECT}: the walk up from the working directory (src/project.c) over
 * a fake filesystem: git, worktrees, submodules, jj, hg, and the .git
 * files a sandbox could have written to widen the next sandbox. */
#include "config.h"

#include "project.h"

#include "../tap.h"
#include "util.h"

#include <string.h>

struct fake_node {
    const char *path;
    enum project_node node;
    uid_t owner;
    const char *content;   /* FILE: its bytes; LINK: its canonical target */
};

static const struct fake_node *nodes;

static const struct fake_node *lookup(const char *path)
{
    for (const struct fake_node *n = nodes; n && n->path; n++)
        if (!strcmp(n->path, path))
            return n;
    return NULL;
}

static enum project_node fake_node(const char *path, uid_t *owner, void *ctx)
{
    (void)ctx;
    const struct fake_node *n = lookup(path);
    if (!n)
        return PROJECT_NODE_MISSING;
    *owner = n->owner;
    return n->node;
}

static bool fake_read(const char *path, char *buf, size_t cap, void *ctx)
{
    (void)ctx;
    const struct fake_node *n = lookup(path);
    if (!n || n->node != PROJECT_NODE_FILE)
        return false;
    snprintf(buf, cap, "%s", n->content);
    return true;
}

/* realpath over the table: "." and ".." lexically, a LINK replaced by its
 * (canonical) target, NULL when the result is missing. */
static char *fake_canonical(const char *path, void *ctx)
{
    (void)ctx;
    char out[4096] = "";
    autofree char *copy = xstrdup(path);
    char *save = NULL;
    for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, "."))
            continue;
        if (!strcmp(c, "..")) {
            char *slash = strrchr(out, '/');
            if (slash)
                *slash = '\0';
            continue;
        }
        size_t len = strlen(out);
        snprintf(out + len, sizeof out - len, "/%s", c);
        const struct fake_node *n = lookup(out);
        if (n && n->node == PROJECT_NODE_LINK)
            snprintf(out, sizeof out, "%s", strcmp(n->content, "/") ? n->content : "");
    }
    if (!out[0])
        return xstrdup("/");
    return lookup(out) ? xstrdup(out) : NULL;
}

static const struct project_fs fake_fs = {
    .node = fake_node, .read = fake_read, .canonical = fake_canonical, .ctx = NULL,
};

#define ME 1000
#define D(p) { p, PROJECT_NODE_DIR, ME, NULL }
#define F(p, c) { p, PROJECT_NODE_FILE, ME, c }
#define L(p, t) { p, PROJECT_NODE_LINK, ME, t }
/* a git directory at p */
#define GITDIR(p) D(p), F(p "/HEAD", "ref: refs/heads/main\n"), D(p "/objects"), D(p "/refs")

static void find(struct project *p, const struct fake_node *table, const char *cwd, const char *home)
{
    nodes = table;
    project_find(p, cwd, home, NULL, ME, &fake_fs);
}

static void test_git(void)
{
    const struct fake_node t[] = {
        D("/"), D("/w"), D("/w/ws"), GITDIR("/w/ws/.git"), D("/w/ws/crates"), D("/w/ws/crates/a"),
        D("/w/x"), D("/w/ws/crates/b"), D("/w/ws/crates/b/.git"), {0},
    };
    struct project p;
    find(&p, t, "/w/ws/crates/a", "/home/u");
    is_int(p.kind, PROJECT_GIT, "a Cargo member in a git checkout: a git work tree");
    is_str(p.root, "/w/ws", "the project is the top of the work tree, not the member");
    is_str(p.marker, "/w/ws/.git", "found by its .git");
    ok(!p.error && !p.git_dir, "a .git directory names no other directory");
    autofree char *d = project_describe(&p);
    is_str(d, "git work tree: /w/ws/.git", "-v says why");
    project_free(&p);

    find(&p, t, "/w/ws", "/home/u");
    is_str(p.root, "/w/ws", "started at the top: the same project");
    project_free(&p);

    find(&p, t, "/w/x", "/home/u");
    is_int(p.kind, PROJECT_CWD, "no work tree above: the working directory");
    is_str(p.root, "/w/x", "the project is then the working directory itself");
    project_free(&p);

    /* an empty .git (no HEAD): git passes over it, and so does the walk */
    find(&p, t, "/w/ws/crates/b", "/home/u");
    is_str(p.root, "/w/ws", "a .git that is no repository is passed over, as git does");
    like_str(p.not_taken ? p.not_taken : "", "crates/b/.git passed over", "and -v says so");
    project_free(&p);
}

static void test_jj_hg(void)
{
    const struct fake_node t[] = {
        D("/"), D("/w"), D("/w/j"), D("/w/j/.jj"), D("/w/j/src"), D("/w/h"), D("/w/h/.hg"),
        D("/w/h/a"), D("/w/h/a/b"), D("/w/c"), GITDIR("/w/c/.git"), D("/w/c/.jj"),
        D("/w/c/lib"), {0},
    };
    struct project p;
    find(&p, t, "/w/j/src", NULL);
    is_int(p.kind, PROJECT_JJ, "a .jj directory marks a jj work tree");
    is_str(p.root, "/w/j", "its top is the project");
    project_free(&p);
    find(&p, t, "/w/h/a/b", NULL);
    is_int(p.kind, PROJECT_HG, "a .hg directory marks a Mercurial work tree");
    is_str(p.root, "/w/h", "two levels up");
    project_free(&p);
    find(&p, t, "/w/c/lib", NULL);
    is_int(p.kind, PROJECT_GIT, "jj colocated with git: git's marker is named");
    is_str(p.root, "/w/c", "the same top either way");
    project_free(&p);
}

static void test_worktree_submodule(void)
{
    const struct fake_node t[] = {
        D("/"), D("/w"), D("/w/main"), GITDIR("/w/main/.git"), D("/w/main/.git/worktrees"),
        D("/w/main/.git/worktrees/wt"), F("/w/main/.git/worktrees/wt/HEAD", "ref: refs/heads/b\n"),
        F("/w/main/.git/worktrees/wt/commondir", "../..\n"),
        F("/w/main/.git/worktrees/wt/gitdir", "/w/wt/.git\n"),
        D("/w/wt"), F("/w/wt/.git", "gitdir: /w/main/.git/worktrees/wt\n"), D("/w/wt/src"),
        /* a second worktree whose gitdir file names another checkout */
        D("/w/main/.git/worktrees/stolen"), F("/w/main/.git/worktrees/stolen/HEAD", "x\n"),
        F("/w/main/.git/worktrees/stolen/commondir", "../..\n"),
        F("/w/main/.git/worktrees/stolen/gitdir", "/w/elsewhere/.git\n"),
        D("/w/thief"), F("/w/thief/.git", "gitdir: ../main/.git/worktrees/stolen"),
        /* a submodule, absorbed into the superproject's git directory */
        D("/w/ws"), GITDIR("/w/ws/.git"), D("/w/ws/.git/modules"), GITDIR("/w/ws/.git/modules/sub"),
        D("/w/ws/.git/modules/sub/modules"), GITDIR("/w/ws/.git/modules/sub/modules/deep"),
        D("/w/ws/sub"), F("/w/ws/sub/.git", "gitdir: ../.git/modules/sub\n"), D("/w/ws/sub/x"),
        D("/w/ws/sub/deep"), F("/w/ws/sub/deep/.git", "gitdir: ../../.git/modules/sub/modules/deep\n"),
        /* issue 27: a run plants a fake worktree git directory in its
         * project, its commondir naming another repository of the user's
         * and its gitdir naming the .git that points at it */
        GITDIR("/w/other/.git"), D("/w/p"), D("/w/p/fakewt"), F("/w/p/fakewt/HEAD", "x\n"),
        F("/w/p/fakewt/commondir", "/w/other/.git\n"), F("/w/p/fakewt/gitdir", "/w/p/sub/.git\n"),
        D("/w/p/sub"), F("/w/p/sub/.git", "gitdir: ../fakewt\n"),
        /* the same through a symlinked .git */
        F("/w/p/fakewt2/HEAD", "x\n"), D("/w/p/fakewt2"),
        F("/w/p/fakewt2/commondir", "/w/other/.git\n"), F("/w/p/fakewt2/gitdir", "/w/p/lnk/.git\n"),
        D("/w/p/lnk"), L("/w/p/lnk/.git", "/w/p/fakewt2"),
        {0},
    };
    struct project p;
    find(&p, t, "/w/wt/src", "/home/u");
    is_int(p.kind, PROJECT_GIT_LINK, "a worktree: its .git is a file");
    is_str(p.root, "/w/wt", "the project is the worktree's top");
    is_str(p.git_dir, "/w/main/.git/worktrees/wt", "its git directory is the one the file names");
    is_str(p.common_dir, "/w/main/.git", "and the common directory its commondir names");
    ok(!p.error, "accepted: its gitdir file names this .git back");
    autofree char *d = project_describe(&p);
    like_str(d, "git worktree: /w/wt/.git names /w/main/.git/worktrees/wt, common directory /w/main/.git",
             "-v names both");
    project_free(&p);

    find(&p, t, "/w/thief", "/home/u");
    ok(p.error && !p.root, "a worktree's git directory that names another .git back is refused");
    like_str(p.error ? p.error : "", "does not name /w/thief/.git back", "saying so");
    project_free(&p);

    find(&p, t, "/w/p/sub", "/home/u");
    ok(p.error && !p.root && !p.common_dir,
       "a planted worktree git directory whose commondir names another repository is refused");
    like_str(p.error ? p.error : "", "/w/p/fakewt is not in the worktrees/ of the repository "
             "its commondir names (/w/other/.git)", "naming the directory and the repository");
    project_free(&p);
    find(&p, t, "/w/p/lnk", "/home/u");
    ok(p.error && !p.root, "a symlinked .git to such a directory is refused too");
    like_str(p.error ? p.error : "", "/w/p/lnk/.git (-> /w/p/fakewt2)", "naming the link");
    project_free(&p);

    find(&p, t, "/w/ws/sub/x", "/home/u");
    is_int(p.kind, PROJECT_GIT_LINK, "a submodule: its .git is a file");
    is_str(p.root, "/w/ws/sub", "the project is the submodule's top");
    is_str(p.git_dir, "/w/ws/.git/modules/sub", "its git directory is below the superproject's modules/");
    ok(!p.common_dir, "a submodule has no common directory");
    project_free(&p);

    find(&p, t, "/w/ws/sub/deep", "/home/u");
    is_str(p.git_dir, "/w/ws/.git/modules/sub/modules/deep",
           "a submodule of a submodule: below its superproject's (a submodule's) modules/");
    ok(!p.error, "accepted");
    project_free(&p);
}

/* What a sandbox could write in its writable project, for the next one:
 * every case is a .git git would follow. */
static void test_attacks(void)
{
    const struct fake_node t[] = {
        D("/"), D("/home"), D("/home/u"), F("/home/u/HEAD", "x"), D("/home/u/objects"),
        D("/home/u/refs"), D("/home/u/p"), GITDIR("/home/u/p/.git"), D("/home/u/p/a"),
        D("/w"), D("/w/ws"), GITDIR("/w/ws/.git"), D("/w/ws/c"),
        D("/w/ws/c/root"), F("/w/ws/c/root/.git", "gitdir: /\n"),
        D("/w/ws/c/home"), F("/w/ws/c/home/.git", "gitdir: /home/u\n"),
        D("/w/ws/c/rel"), F("/w/ws/c/rel/.git", "gitdir: ../../../../home/u\n"),
        D("/w/ws/c/link"), L("/w/ws/c/link/.git", "/home/u"),
        D("/w/ws/c/other"), F("/w/ws/c/other/.git", "gitdir: /home/u/p/.git"),
        D("/w/ws/c/self"), F("/w/ws/c/self/.git", "gitdir: /w/ws/.git"),
        D("/w/ws/c/junk"), F("/w/ws/c/junk/.git", "not a gitdir line"),
        D("/w/ws/c/gone"), F("/w/ws/c/gone/.git", "gitdir: /nowhere"),
        D("/w/ws/c/common"), F("/w/ws/c/common/.git", "gitdir: /w/ws/.git/worktrees/x"),
        D("/w/ws/.git/worktrees"), D("/w/ws/.git/worktrees/x"), F("/w/ws/.git/worktrees/x/HEAD", "x"),
        F("/w/ws/.git/worktrees/x/commondir", "/home/u\n"),
        F("/w/ws/.git/worktrees/x/gitdir", "/w/ws/c/common/.git\n"),
        D("/w/sep"), F("/w/sep/.git", "gitdir: /w/store.git"), GITDIR("/w/store.git"),
        {0},
    };
    struct project p;
    find(&p, t, "/w/ws/c/root", "/home/u");
    ok(p.error && !p.root, "gitdir: / is refused (${PROJECT} has no value)");
    like_str(p.error ? p.error : "", "/w/ws/c/root/.git (gitdir: /)", "the error names the file and its line");
    project_free(&p);

    const char *home_cases[] = { "/w/ws/c/home", "/w/ws/c/rel", "/w/ws/c/link" };
    const char *what[] = { "gitdir: /home/u", "gitdir: ../../../../home/u", "a .git symlink to /home/u" };
    for (size_t i = 0; i < 3; i++) {
        find(&p, t, home_cases[i], "/home/u");
        ok(p.error && !p.root && !p.git_dir, "%s (made to look like a git directory) is refused", what[i]);
        like_str(p.error ? p.error : "", "holds your home directory", "because it holds $HOME");
        project_free(&p);
    }
    find(&p, t, "/w/ws/c/other", "/home/u");
    ok(p.error && !p.root, "gitdir: another checkout's .git is refused");
    like_str(p.error ? p.error : "", "neither a worktree's git directory nor a submodule's",
             "it is neither a worktree's nor a submodule's");
    project_free(&p);
    find(&p, t, "/w/ws/c/self", "/home/u");
    ok(p.error != NULL, "gitdir: the superproject's own .git is refused (not below its modules/)");
    project_free(&p);
    find(&p, t, "/w/ws/c/junk", "/home/u");
    like_str(p.error ? p.error : "", "without 'gitdir: '", "a .git file without 'gitdir: ' is refused");
    project_free(&p);
    find(&p, t, "/w/ws/c/gone", "/home/u");
    like_str(p.error ? p.error : "", "no such directory", "a gitdir that does not exist is refused");
    project_free(&p);
    find(&p, t, "/w/ws/c/common", "/home/u");
    ok(p.error && !p.common_dir, "a worktree whose commondir names $HOME is refused");
    project_free(&p);
    find(&p, t, "/w/sep", "/home/u");
    like_str(p.error ? p.error : "", "/w/store.git is neither a worktree's",
             "git init --separate-git-dir: refused, said why");
    project_free(&p);
}

/* A package build's $HOME (debhelper: debian/.debhelper/generated/_source/home)
 * or a test's scratch home inside the work tree, the account's home elsewhere. */
static const char *account;
static const char *fake_account_home(void)
{
    return account;
}

static void test_build_home(void)
{
    const struct fake_node t[] = {
        D("/"), D("/home"), D("/home/u"), D("/b"), D("/b/sbx"), GITDIR("/b/sbx/.git"),
        D("/b/sbx/tests"), D("/b/sbx/debian"), D("/b/sbx/debian/home"), {0},
    };
    struct project p;
    nodes = t;
    account = "/home/u";
    project_find(&p, "/b/sbx/tests", "/b/sbx/debian/home", fake_account_home, ME, &fake_fs);
    is_str(p.root, "/b/sbx", "a work tree holding a build's $HOME (not the account's) is the project");
    is_str(project_too_wide_rw("/b/sbx", "/b/sbx/debian/home", "/home/u", &p), NULL,
           "and rw on it is not refused for that home");
    is_str(project_too_wide_rw("/b", "/b/sbx/debian/home", "/home/u", &p), "your whole home directory",
           "rw on a directory above the work tree still is");
    is_str(project_too_wide_rw("/b/sbx/debian/home", "/b/sbx/debian/home", "/home/u", &p),
           "your whole home directory", "and rw on that $HOME itself");
    is_str(project_too_wide_rw("/b/sbx", "/b/sbx/debian/home", NULL, &p), "your whole home directory",
           "with no passwd home, $HOME counts as the account's");
    is_str(project_too_wide_rw("/b/sbx", "/b/sbx/debian/home", "/b/sbx/debian/home", &p),
           "your whole home directory", "nor when $HOME is the account's home");
    is_str(project_too_wide_rw("/", NULL, NULL, &p), "the whole host", "/ is the whole host");
    is_str(project_too_wide_rw("/home", "/b/sbx/debian/home", "/home/u", &p),
           "your whole home directory", "a directory holding the account's home is refused");
    project_free(&p);
    account = "/b/sbx/debian/home";
    project_find(&p, "/b/sbx/tests", "/b/sbx/debian/home", fake_account_home, ME, &fake_fs);
    is_int(p.kind, PROJECT_CWD, "the account's own home inside a work tree: the tree is not taken");
    like_str(p.not_taken ? p.not_taken : "", "your home directory, which it holds", "saying why");
    project_free(&p);
    account = NULL;
    project_find(&p, "/b/sbx/tests", "/b/sbx/debian/home", fake_account_home, ME, &fake_fs);
    is_int(p.kind, PROJECT_CWD, "no passwd entry: $HOME is the account's, the tree is not taken");
    project_free(&p);
}

static void test_boundaries(void)
{
    const struct fake_node t[] = {
        D("/"), GITDIR("/.git"), D("/srv"), D("/srv/x"),
        D("/home"), D("/home/u"), GITDIR("/home/u/.git"), D("/home/u/proj"), D("/home/u/proj/a"),
        { "/tmp", PROJECT_NODE_DIR, 0, NULL }, { "/tmp/.git", PROJECT_NODE_DIR, 666, NULL },
        { "/tmp/.git/HEAD", PROJECT_NODE_FILE, 666, "x" }, { "/tmp/.git/objects", PROJECT_NODE_DIR, 666, NULL },
        { "/tmp/.git/refs", PROJECT_NODE_DIR, 666, NULL }, D("/tmp/mine"),
        { "/tmp/j", PROJECT_NODE_DIR, 666, NULL }, { "/tmp/j/.jj", PROJECT_NODE_DIR, 666, NULL },
        D("/tmp/j/mine"),
        {0},
    };
    struct project p;
    find(&p, t, "/home/u/proj/a", "/home/u");
    is_int(p.kind, PROJECT_CWD, "a dotfiles repository in $HOME is no project of ~/proj/a");
    is_str(p.root, "/home/u/proj/a", "the working directory is");
    like_str(p.not_taken ? p.not_taken : "", "your whole home directory", "and -v says why");
    autofree char *d = project_describe(&p);
    like_str(d, "the work tree at /home/u is not taken", "describe carries the reason");
    project_free(&p);
    find(&p, t, "/home/u", "/home/u");
    is_str(p.root, "/home/u", "started in $HOME itself: $HOME (refused later, as rw = ${CWD} is)");
    project_free(&p);
    find(&p, t, "/home/u/proj/a", "/home/u/other-home");
    is_str(p.root, "/home/u/proj/a", "a work tree holding $HOME is not taken either");
    like_str(p.not_taken ? p.not_taken : "", "your home directory, which it holds", "saying why");
    project_free(&p);
    find(&p, t, "/srv/x", "/home/u");
    is_int(p.kind, PROJECT_CWD, "a repository at / is no project of /srv/x");
    like_str(p.not_taken ? p.not_taken : "", "the whole host", "saying why");
    project_free(&p);
    find(&p, t, "/tmp/mine", "/home/u");
    is_str(p.root, "/tmp/mine", "another user's /tmp/.git is not taken (CVE-2022-24765's shape)");
    like_str(p.not_taken ? p.not_taken : "", "owned by uid 666, not by you (uid 1000)", "said so");
    project_free(&p);
    find(&p, t, "/tmp/j/mine", "/home/u");
    is_str(p.root, "/tmp/j/mine", "nor another user's .jj");
    project_free(&p);
}

int main(void)
{
    test_git();
    test_jj_hg();
    test_worktree_submodule();
    test_attacks();
    test_boundaries();
    test_build_home();
    return done_testing();
}
