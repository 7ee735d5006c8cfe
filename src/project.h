/* ${PROJECT} (pure): the top of the version-control work tree that holds
 * the working directory, found by walking up from it on the host before
 * the sandbox is made. The filesystem is injected (struct project_fs) so
 * unit tests can fake it, as mount-plan.h does with its resolver.
 *
 * A work tree is marked by .git (a git directory, or a "gitdir:" file or a
 * symlink: worktrees, submodules), .jj (jj) or .hg (Mercurial). With none,
 * the project is the working directory itself. A .git that names a git
 * directory elsewhere has that directory (and a worktree's common
 * directory) made writable with the project, so it is checked first: see
 * project.c for what a "gitdir:" file may name. */
#ifndef SBX_PROJECT_H
#define SBX_PROJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum project_kind {
    PROJECT_CWD,        /* no work tree above: the working directory */
    PROJECT_GIT,        /* a .git directory */
    PROJECT_GIT_LINK,   /* a .git file or symlink naming the git directory (worktree, submodule) */
    PROJECT_JJ,
    PROJECT_HG,
};

enum project_node { PROJECT_NODE_MISSING, PROJECT_NODE_DIR, PROJECT_NODE_FILE,
                    PROJECT_NODE_LINK, PROJECT_NODE_OTHER };

/* What the walk may ask of the filesystem. None follows a symlink in the
 * last component but canonical(). */
struct project_fs {
    /* lstat(2): what is at path, and its owner */
    enum project_node (*node)(const char *path, uid_t *owner, void *ctx);
    /* up to cap - 1 bytes of the regular file at path (no symlink), NUL
     * terminated; false when it cannot be read */
    bool (*read)(const char *path, char *buf, size_t cap, void *ctx);
    /* realpath(3), malloc'd, or NULL */
    char *(*canonical)(const char *path, void *ctx);
    void *ctx;
};

struct project {
    char *root;          /* the project: canonical; NULL when error is set */
    enum project_kind kind;
    char *marker;        /* ROOT/.git, ROOT/.jj, ROOT/.hg; NULL for PROJECT_CWD */
    char *git_dir;       /* PROJECT_GIT_LINK: the git directory the marker names (canonical) */
    char *common_dir;    /* PROJECT_GIT_LINK of a worktree: its common directory; else NULL */
    char *link_text;     /* PROJECT_GIT_LINK: "gitdir: ..." as read, or "-> target" */
    char *not_taken;     /* a marker seen and passed over, and why (for -v); NULL */
    char *error;         /* a .git the walk cannot accept, and why: ${PROJECT} has no value */
};

/* Walks up from cwd (canonical, absolute). home is the caller's $HOME
 * (canonical, or NULL): the walk does not take $HOME, a directory that
 * holds it, or / as the project of a directory below them (they would
 * make every project writable). One exception: a work tree holding a
 * $HOME that is not the account's home (account_home(): from the passwd
 * database, canonical, or NULL when unknown; asked only then; the
 * callback may be NULL) and not the account's home either: a package
 * build's or a test's scratch home. It takes no marker that uid does not
 * own (another user's /tmp/.git, as in git's safe.directory,
 * CVE-2022-24765). */
void project_find(struct project *out, const char *cwd, const char *home,
                  const char *(*account_home)(void), uid_t uid, const struct project_fs *fs);

/* Whether a writable rule on `path` (canonical) is refused because it
 * would make the whole host or a whole home writable: "/" (returns
 * "the whole host"), a directory holding real_home, or one holding
 * $HOME, except where $HOME is not the account's home and lies strictly
 * inside the work tree `project` (not PROJECT_CWD) that holds path: that
 * home belongs to the build in the tree (rw on that $HOME itself is still
 * refused). NULL when it may be writable. */
const char *project_too_wide_rw(const char *path, const char *home, const char *real_home,
                                const struct project *project);
void project_free(struct project *p);

/* "git work tree: /x/.git" and the like, for -v. Static storage: no. */
char *project_describe(const struct project *p);

/* The git directories inside git_dir, on the host: each worktree's
 * (worktrees/NAME) and each submodule's (modules/NAME, nested), whose
 * configuration and hooks git reads when run in that worktree or
 * submodule. Bounded (PROJECT_MAX_INNER); appended to out as malloc'd
 * strings, each a directory holding HEAD. */
#define PROJECT_MAX_INNER 256
struct strv;
void project_inner_git_dirs(const char *git_dir, struct strv *out);

/* The project as the host sees it (lstat, realpath). */
extern const struct project_fs project_host_fs;

#endif
