#include "config.h"

#include "project.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How deep submodules may nest while the walk looks for the superproject
 * of one (each level is a walk of its own). */
#define PROJECT_MAX_NESTING 8
/* A "gitdir:" file is one line; git's own limit is a path. */
#define GITFILE_MAX 4096

static char *join(const char *dir, const char *name)
{
    return xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", name);
}

static char *parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

static bool within(const char *path, const char *dir)
{
    if (!strcmp(dir, "/"))
        return path[0] == '/';
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

static void strip_trailing_space(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
}

/* A path read from a file of git's: relative to the directory holding
 * that file (gitrepository-layout(5): "gitdir", "commondir"; the "gitdir:"
 * file, gitglossary(7) "gitfile"), then canonical. */
static char *canonical_from(const struct project_fs *fs, const char *dir, const char *text)
{
    if (!text[0])
        return NULL;
    autofree char *path = text[0] == '/' ? xstrdup(text) : join(dir, text);
    return fs->canonical(path, fs->ctx);
}

static bool is_dir_of(const struct project_fs *fs, const char *path, uid_t *owner)
{
    uid_t o = (uid_t)-1;
    bool dir = fs->node(path, &o, fs->ctx) == PROJECT_NODE_DIR;
    if (owner)
        *owner = o;
    return dir;
}

static bool has_dir(const struct project_fs *fs, const char *dir, const char *name)
{
    autofree char *p = join(dir, name);
    return is_dir_of(fs, p, NULL);
}

/* What makes a directory a git directory for git itself (setup.c,
 * is_git_directory(): HEAD, objects/ and refs/, the last two in the common
 * directory when a "commondir" file names one), and for sbx also that the
 * caller owns it. *common is set for a worktree's git directory. NULL, or
 * why not (malloc'd). */
static char *not_a_git_dir(const struct project_fs *fs, const char *dir, uid_t uid, char **common)
{
    *common = NULL;
    uid_t owner = (uid_t)-1;
    if (!is_dir_of(fs, dir, &owner))
        return xasprintf("%s is not a directory", dir);
    if (owner != uid)
        return xasprintf("%s is owned by uid %u, not by you (uid %u)", dir, (unsigned)owner,
                         (unsigned)uid);
    autofree char *head = join(dir, "HEAD");
    enum project_node h = fs->node(head, &owner, fs->ctx);
    if (h != PROJECT_NODE_FILE && h != PROJECT_NODE_LINK)
        return xasprintf("%s is no git directory (it has no HEAD)", dir);
    autofree char *commondir_file = join(dir, "commondir");
    const char *objects_in = dir;
    autofree char *c = NULL;
    if (fs->node(commondir_file, &owner, fs->ctx) == PROJECT_NODE_FILE) {
        char text[GITFILE_MAX];
        if (!fs->read(commondir_file, text, sizeof text, fs->ctx))
            return xasprintf("%s cannot be read", commondir_file);
        strip_trailing_space(text);
        c = canonical_from(fs, dir, text);
        if (!c)
            return xasprintf("%s names '%s', which does not exist", commondir_file, text);
        if (!is_dir_of(fs, c, &owner) || owner != uid)
            return xasprintf("%s names %s, which is not a directory of yours", commondir_file, c);
        objects_in = c;
    }
    if (!has_dir(fs, objects_in, "objects") || !has_dir(fs, objects_in, "refs"))
        return xasprintf("%s is no git directory (it has no objects/ and refs/)", objects_in);
    *common = c;
    c = NULL;
    return NULL;
}

/* Writable with the project, a git directory must not hold what a project
 * must not: / or $HOME (a "gitdir: /" file), or the work tree itself. */
static char *too_wide(const char *dir, const char *work_tree, const char *home)
{
    if (!strcmp(dir, "/"))
        return xstrdup("that is the whole host");
    if (home && within(home, dir))
        return xasprintf("%s holds your home directory", dir);
    if (within(work_tree, dir))
        return xasprintf("%s holds the work tree itself", dir);
    return NULL;
}

struct git_link {
    char *git_dir, *common_dir, *text;
};

static void git_link_free(struct git_link *l)
{
    free(l->git_dir);
    free(l->common_dir);
    free(l->text);
    *l = (struct git_link){ 0 };
}

static char *resolve_link(const struct project_fs *fs, const char *top, enum project_node node,
                          const char *home, uid_t uid, int depth, struct git_link *out);

/* The git directory of the work tree holding `from` (its superproject),
 * or NULL with *error set when a .git on the way is refused. */
static char *superproject_git_dir(const struct project_fs *fs, const char *from, const char *home,
                                  uid_t uid, int depth, char **error)
{
    *error = NULL;
    autofree char *dir = xstrdup(from);
    for (;;) {
        autofree char *marker = join(dir, ".git");
        uid_t owner;
        enum project_node node = fs->node(marker, &owner, fs->ctx);
        if (node == PROJECT_NODE_DIR) {
            autofree char *common = NULL;
            autofree char *why = not_a_git_dir(fs, marker, uid, &common);
            if (!why && !common)
                return xstrdup(marker);
        } else if (node == PROJECT_NODE_FILE || node == PROJECT_NODE_LINK) {
            struct git_link link = { 0 };
            *error = resolve_link(fs, dir, node, home, uid, depth + 1, &link);
            if (*error) {
                git_link_free(&link);
                return NULL;
            }
            char *g = link.git_dir;
            link.git_dir = NULL;
            git_link_free(&link);
            return g;
        }
        if (!strcmp(dir, "/"))
            return NULL;
        char *up = parent_of(dir);
        free(dir);
        dir = up;
    }
}

/* TOP/.git is a file ("gitdir: PATH") or a symlink: the git directory is
 * elsewhere, and sbx makes it writable with the project. The file lies in
 * the writable project, so a sandbox could have written it (in a
 * subdirectory, where no protection covers it): "gitdir: /" or "gitdir:
 * /home/u" must not hand the next sandbox the host or the home directory.
 * So the directory it names must be a git directory of the caller's
 * (HEAD, objects/, refs/) that lies outside $HOME's ancestors, and one of:
 *  - a worktree's (a "commondir" file), whose own "gitdir" file names
 *    TOP/.git back (git worktree add writes both; git worktree prune
 *    trusts the back link the same way);
 *  - a submodule's, inside the modules/ directory of the git directory of
 *    the superproject, the work tree above TOP (gitsubmodules(7): "the
 *    git directory is ... $GIT_DIR/modules/").
 * Any other (git init --separate-git-dir) is refused: NULL or why not. */
static char *resolve_link(const struct project_fs *fs, const char *top, enum project_node node,
                          const char *home, uid_t uid, int depth, struct git_link *out)
{
    *out = (struct git_link){ 0 };
    autofree char *marker = join(top, ".git");
    if (depth > PROJECT_MAX_NESTING)
        return xasprintf("%s: submodules nest more than %d deep", marker, PROJECT_MAX_NESTING);
    uid_t owner = (uid_t)-1;
    fs->node(marker, &owner, fs->ctx);
    if (owner != uid)
        return xasprintf("%s is not yours (uid %u): a git file of another user's is not followed",
                         marker, (unsigned)uid);
    autofree char *target = NULL;
    if (node == PROJECT_NODE_FILE) {
        char text[GITFILE_MAX];
        if (!fs->read(marker, text, sizeof text, fs->ctx))
            return xasprintf("%s cannot be read", marker);
        strip_trailing_space(text);
        if (strncmp(text, "gitdir: ", 8))
            return xasprintf("%s is a file without 'gitdir: ' (git says: not a git repository)",
                             marker);
        out->text = xstrdup(text);
        target = canonical_from(fs, top, text + 8);
        if (!target)
            return xasprintf("%s: %s: no such directory", marker, text);
    } else {
        target = fs->canonical(marker, fs->ctx);
        out->text = xasprintf("-> %s", target ? target : "(nowhere)");
        if (!target)
            return xasprintf("%s is a symlink to nothing", marker);
    }
    autofree char *common = NULL;
    char *why = not_a_git_dir(fs, target, uid, &common);
    if (!why)
        why = too_wide(target, top, home);
    if (!why && common)
        why = too_wide(common, top, home);
    if (!why && common) {
        /* git worktree add makes COMMON/worktrees/NAME, and commondir
         * names COMMON: a git directory elsewhere with a commondir (one
         * planted in a project by an earlier run, naming another
         * repository of yours) would get that repository made writable */
        autofree char *holder = parent_of(target);
        autofree char *expected = join(common, "worktrees");
        if (strcmp(holder, expected))
            why = xasprintf("%s is not in the worktrees/ of the repository its commondir names "
                            "(%s): git makes a worktree's git directory as %s/NAME", target,
                            common, expected);
    }
    if (!why && common) {
        /* a worktree: its gitdir file names this .git back */
        autofree char *back_file = join(target, "gitdir");
        char text[GITFILE_MAX];
        autofree char *back = NULL;
        if (fs->read(back_file, text, sizeof text, fs->ctx)) {
            strip_trailing_space(text);
            autofree char *p = text[0] == '/' ? xstrdup(text) : join(target, text);
            autofree char *dir = parent_of(p);
            autofree char *dir_real = fs->canonical(dir, fs->ctx);
            const char *base = strrchr(p, '/') + 1;
            if (dir_real)
                back = join(dir_real, base);
        }
        if (!back || strcmp(back, marker))
            why = xasprintf("%s is a worktree's git directory whose %s does not name %s back",
                            target, back_file, marker);
    } else if (!why) {
        autofree char *up = parent_of(top);
        char *error = NULL;
        autofree char *super = strcmp(top, "/") ? superproject_git_dir(fs, up, home, uid, depth, &error)
                                                : NULL;
        if (error)
            return error;
        autofree char *modules = super ? join(super, "modules") : NULL;
        if (!modules || !within(target, modules) || !strcmp(target, modules))
            why = xasprintf("%s is neither a worktree's git directory nor a submodule's (below "
                            "%s)", target, modules ? modules : "the modules/ of a superproject's "
                            "git directory");
    }
    if (why) {
        char *e = xasprintf("%s (%s): %s; sbx makes no such directory writable (a sandbox may "
                            "have written this file: check it and remove it, or start sbx "
                            "elsewhere: --chdir DIR)",
                            marker, out->text, why);
        free(why);
        return e;
    }
    out->git_dir = target;
    out->common_dir = common;
    target = NULL;
    common = NULL;
    return NULL;
}

static void note(struct project *out, char *text)
{
    if (!out->not_taken)
        out->not_taken = text;
    else
        free(text);
}

/* The marker of a work tree at dir, if any: its kind, or PROJECT_CWD. */
static enum project_kind marker_at(const struct project_fs *fs, const char *dir, uid_t uid,
                                   struct project *out, enum project_node *git_node)
{
    static const struct { const char *name; enum project_kind kind; } markers[] = {
        { ".git", PROJECT_GIT }, { ".jj", PROJECT_JJ }, { ".hg", PROJECT_HG },
    };
    for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++) {
        autofree char *m = join(dir, markers[i].name);
        uid_t owner = (uid_t)-1;
        enum project_node node = fs->node(m, &owner, fs->ctx);
        if (markers[i].kind == PROJECT_GIT) {
            *git_node = node;
            if (node == PROJECT_NODE_FILE || node == PROJECT_NODE_LINK)
                return PROJECT_GIT_LINK;
            /* another user's: project_find() stops there */
            if (node == PROJECT_NODE_DIR && owner != uid)
                return PROJECT_GIT;
            if (node == PROJECT_NODE_DIR) {
                autofree char *common = NULL;
                char *why = not_a_git_dir(fs, m, uid, &common);
                if (!why && !common)
                    return PROJECT_GIT;
                /* as git does: a .git that is no repository is passed over */
                note(out, why ? xasprintf("%s passed over: %s", m, why)
                              : xasprintf("%s passed over: a worktree's git directory in place "
                                          "of a work tree's", m));
                free(why);
            }
        } else if (node == PROJECT_NODE_DIR) {
            return markers[i].kind;
        }
    }
    return PROJECT_CWD;
}

void project_find(struct project *out, const char *cwd, const char *home,
                  const char *(*account_home)(void), uid_t uid, const struct project_fs *fs)
{
    *out = (struct project){ 0 };
    autofree char *dir = xstrdup(cwd);
    /* A $HOME that is not the account's own (debhelper's
     * debian/.debhelper/generated/_source/home, a test's scratch home) is
     * a directory of the build: the work tree holding it is still the
     * project. Asked only when a work tree holds $HOME (reading
     * /etc/passwd is work no other start pays); where the account's home
     * is unknown, $HOME is taken as it. */
    const char *real_home = NULL;
    bool looked = false;
    for (;;) {
        bool start = !strcmp(dir, cwd);
        enum project_node git_node = PROJECT_NODE_MISSING;
        enum project_kind kind = marker_at(fs, dir, uid, out, &git_node);
        /* /, $HOME, and any directory holding $HOME: above them the walk
         * does not go, unless that $HOME is a build's in this work tree */
        bool holds_home = home && strcmp(dir, home) && within(home, dir);
        bool top_of_tree = !strcmp(dir, "/") || (home && !strcmp(dir, home)) || holds_home;
        if (holds_home && kind != PROJECT_CWD && !start) {
            if (!looked) {
                looked = true;
                real_home = account_home ? account_home() : NULL;
            }
            if (real_home && strcmp(real_home, home) && !within(real_home, dir))
                top_of_tree = false;
        }
        if (kind != PROJECT_CWD && top_of_tree && !start) {
            /* A dotfiles repository in $HOME (or a / under git) is no
             * project of every directory below: rw = ${PROJECT} would
             * hand the command every project of the caller's. */
            note(out, xasprintf("the work tree at %s is not taken as the project: that would "
                                "make %s writable", dir,
                                !strcmp(dir, "/") ? "the whole host"
                                : home && !strcmp(dir, home) ? "your whole home directory"
                                                             : "your home directory, which it holds,"));
            break;
        }
        if (kind != PROJECT_CWD) {
            const char *names[] = { [PROJECT_GIT] = ".git", [PROJECT_GIT_LINK] = ".git",
                                    [PROJECT_JJ] = ".jj", [PROJECT_HG] = ".hg" };
            autofree char *marker = join(dir, names[kind]);
            uid_t marker_owner = (uid_t)-1, dir_owner = (uid_t)-1;
            fs->node(marker, &marker_owner, fs->ctx);
            fs->node(dir, &dir_owner, fs->ctx);
            if (marker_owner != uid || dir_owner != uid) {
                /* Another user's directory (a /tmp/.git planted for
                 * whoever works below /tmp): not a project of ours, and
                 * the walk goes no higher. */
                note(out, xasprintf("%s is not taken as the project: %s is owned by uid %u, not "
                                    "by you (uid %u)", dir, marker_owner != uid ? marker : dir,
                                    (unsigned)(marker_owner != uid ? marker_owner : dir_owner),
                                    (unsigned)uid));
                break;
            }
            if (kind == PROJECT_GIT_LINK) {
                struct git_link link = { 0 };
                char *error = resolve_link(fs, dir, git_node, home, uid, 0, &link);
                if (error) {
                    out->error = error;
                    git_link_free(&link);
                    free(out->not_taken);
                    out->not_taken = NULL;
                    return;
                }
                out->git_dir = link.git_dir;
                out->common_dir = link.common_dir;
                out->link_text = link.text;
            }
            out->kind = kind;
            out->root = xstrdup(dir);
            out->marker = xstrdup(marker);
            return;
        }
        if (top_of_tree || !strcmp(dir, "/"))
            break;
        char *up = parent_of(dir);
        free(dir);
        dir = up;
    }
    out->kind = PROJECT_CWD;
    out->root = xstrdup(cwd);
}

const char *project_too_wide_rw(const char *path, const char *home, const char *real_home,
                                const struct project *project)
{
    if (!strcmp(path, "/"))
        return "the whole host";
    if (real_home && within(real_home, path))
        return "your whole home directory";
    if (!home || !within(home, path))
        return NULL;
    bool build_home = real_home && strcmp(home, real_home) && project && project->root &&
                      project->kind != PROJECT_CWD && strcmp(home, project->root) && strcmp(home, path) &&
                      within(home, project->root) && within(path, project->root);
    return build_home ? NULL : "your whole home directory";
}

void project_free(struct project *p)
{
    free(p->root);
    free(p->marker);
    free(p->git_dir);
    free(p->common_dir);
    free(p->link_text);
    free(p->not_taken);
    free(p->error);
    *p = (struct project){ 0 };
}

char *project_describe(const struct project *p)
{
    switch (p->kind) {
    case PROJECT_GIT:
        return xasprintf("git work tree: %s", p->marker);
    case PROJECT_GIT_LINK:
        if (p->common_dir)
            return xasprintf("git worktree: %s names %s, common directory %s", p->marker,
                             p->git_dir, p->common_dir);
        return xasprintf("git submodule: %s names %s", p->marker, p->git_dir);
    case PROJECT_JJ:
        return xasprintf("jj work tree: %s", p->marker);
    case PROJECT_HG:
        return xasprintf("hg work tree: %s", p->marker);
    case PROJECT_CWD:
        break;
    }
    return xasprintf("no git, jj or hg work tree holds it%s%s", p->not_taken ? "; " : "",
                     p->not_taken ? p->not_taken : "");
}

/* ------------------------------------------------------------------ */
/* The host                                                             */

static enum project_node host_node(const char *path, uid_t *owner, void *ctx)
{
    (void)ctx;
    struct stat st;
    if (lstat(path, &st) < 0)
        return PROJECT_NODE_MISSING;
    *owner = st.st_uid;
    if (S_ISDIR(st.st_mode))
        return PROJECT_NODE_DIR;
    if (S_ISREG(st.st_mode))
        return PROJECT_NODE_FILE;
    if (S_ISLNK(st.st_mode))
        return PROJECT_NODE_LINK;
    return PROJECT_NODE_OTHER;
}

static bool host_read(const char *path, char *buf, size_t cap, void *ctx)
{
    (void)ctx;
    /* O_NONBLOCK: a FIFO planted as .git must not hang sbx; fstat below
     * refuses it anyway. */
    autoclose int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        return false;
    size_t len = 0;
    while (len < cap - 1) {
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    return strlen(buf) == len;
}

static char *host_canonical(const char *path, void *ctx)
{
    (void)ctx;
    return realpath(path, NULL);
}

const struct project_fs project_host_fs = {
    .node = host_node, .read = host_read, .canonical = host_canonical, .ctx = NULL,
};

/* modules/ holds a submodule's git directory at its name, which may have
 * slashes (modules/libs/foo): below modules/, a directory without HEAD
 * is descended into. Symlinks are not followed (lstat, O_NOFOLLOW): what
 * lies inside the project's .git is the command's to make. */
static void inner_walk(const char *dir, bool descend_without_head, int depth, struct strv *out)
{
    if (depth > PROJECT_MAX_NESTING * 2 || out->n >= PROJECT_MAX_INNER)
        return;
    autoclose int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    DIR *d = fdopendir(fd);
    if (!d)
        return;
    fd = -1;
    struct dirent *de;
    while ((de = readdir(d)) && out->n < PROJECT_MAX_INNER) {
        if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
            continue;
        autofree char *sub = join(dir, de->d_name);
        struct stat st;
        if (lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
            continue;
        autofree char *head = join(sub, "HEAD");
        if (lstat(head, &st) == 0) {
            strv_push(out, xstrdup(sub));
            project_inner_git_dirs(sub, out);
        } else if (descend_without_head) {
            inner_walk(sub, true, depth + 1, out);
        }
    }
    closedir(d);
}

void project_inner_git_dirs(const char *git_dir, struct strv *out)
{
    if (!git_dir)
        return;
    autofree char *worktrees = join(git_dir, "worktrees");
    autofree char *modules = join(git_dir, "modules");
    inner_walk(worktrees, false, 0, out);
    inner_walk(modules, true, 0, out);
}
