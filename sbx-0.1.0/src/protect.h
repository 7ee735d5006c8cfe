/* Protected paths (pure): what stays read-only inside every sandbox,
 * whatever the profile makes writable around it, because the host reads it
 * later as configuration or runs it as code (sbx-profile(5), PROTECTED
 * PATHS; docs/security.md, "Persistence").
 *
 * Two lists:
 *  - paths of the caller: sbx's own profile search path and binary, git's
 *    configuration, shell start-up files, editors' start-up files, user
 *    services, the directories on $PATH under $HOME, agents' settings;
 *  - names below every writable directory of the plan (a project): the
 *    repository's .git/config and .git/hooks, .envrc, editor and agent
 *    settings of the project.
 * This module only composes the paths; mount-plan.c decides which of them
 * a sandbox could reach, and mount.c looks at the host. */
#ifndef SBX_PROTECT_H
#define SBX_PROTECT_H

#include <stdbool.h>
#include <stddef.h>

enum protect_kind { PROTECT_DIR, PROTECT_FILE };

/* What to do when the path does not exist and the sandbox could create it. */
enum protect_missing {
    PROTECT_MISSING_IGNORE,  /* project names: creating them is the project's own business
                              * (git shows them as new files; direnv asks before it runs a
                              * new .envrc) */
    PROTECT_MISSING_CREATE,  /* sbx creates it (a directory empty, a file with a content that
                              * means what no file means) and mounts it read-only */
    PROTECT_MISSING_REFUSE,  /* sbx refuses to start: any file there would change what the
                              * host does (an empty ~/.bash_profile hides ~/.profile) */
};

struct protected_path {
    char *path;                 /* absolute, composed from $HOME etc., not resolved */
    enum protect_kind kind;
    enum protect_missing missing;
    bool own;                   /* sbx's own configuration or binary: no opt-out */
    const char *why;            /* static: who runs or reads it later */
    const char *placeholder;    /* static: a file made when missing (PROTECT_MISSING_CREATE) */
};

struct protect_list {
    struct protected_path *v;
    size_t n, cap;
    /* writable directories that are no project (the shipped caches and
     * agents' state below $HOME): the project names are not looked for
     * below them */
    char **not_projects;
    size_t nnot_projects;
};

/* What the list is made from: the caller's environment as sbx sees it. */
struct protect_inputs {
    const char *home;            /* NULL or relative: the $HOME list is left out */
    const char *xdg_config_home; /* NULL: ~/.config */
    const char *path_env;        /* the caller's $PATH, for its directories under $HOME */
    const char *exe;             /* the sbx binary, canonical; NULL when unknown */
    char *const *search_dirs;    /* the profile search path (lookup.c) */
    size_t nsearch;
};

/* Builds the caller's list (duplicates dropped, order kept). */
void protect_list_build(struct protect_list *out, const struct protect_inputs *in);

/* The names protected below every writable directory of a plan, relative
 * ("/.git/config"), with their kind and missing rule; n is set. */
struct protected_name {
    const char *name;            /* "/.git/config": appended to the directory */
    enum protect_kind kind;
    enum protect_missing missing;
    const char *why;
};
const struct protected_name *protect_project_names(size_t *n);

/* The directories below $HOME that the shipped profiles make writable
 * (".cache", ...): a symlink there may be an earlier sandbox's. A test
 * checks it against every rw rule of the shipped profiles. */
const char *const *protect_shipped_writable(size_t *n);

/* Adds what keeps a git directory outside the work tree (a worktree's or
 * a submodule's, project.h) from running the command's code in git:
 * config, config.worktree, commondir, and hooks (made when missing where
 * hooks_run_here: a worktree's own git directory runs the common one's). */
void protect_list_add_git_dir(struct protect_list *l, const char *git_dir, bool hooks_run_here);

/* Adds one entry (the path is copied); an existing entry on the same path
 * is kept. */
void protect_list_add(struct protect_list *l, const char *path, enum protect_kind kind,
                      enum protect_missing missing, bool own, const char *why,
                      const char *placeholder);
void protect_list_free(struct protect_list *l);

#endif
