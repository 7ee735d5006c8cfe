#include "config.h"

#include "protect.h"

#include "util.h"

#include <string.h>

/* Below $HOME: what the caller's own programs read as configuration or run
 * as code once the sandbox has exited. The reason is shown by -v and in
 * errors. Sources: git-config(1) FILES and core.fsmonitor/core.hooksPath;
 * bash(1) INVOCATION; zsh(1) STARTUP/SHUTDOWN FILES; fish's
 * ~/.config/fish/config.fish; vim's and neovim's start-up files;
 * systemd.unit(5) user unit search path; the XDG autostart specification;
 * environment.d(5); ssh(1) FILES (config, rc) and sshd(8)
 * (authorized_keys); ripgrep's RIPGREP_CONFIG_PATH file (--pre runs a
 * program); Claude Code's and Codex CLI's settings (hooks, notify
 * commands). The same files are what Anthropic's sandbox-runtime and Codex
 * keep out of a writable workspace. */
struct home_entry {
    const char *rel;
    enum protect_kind kind;
    const char *why;
    /* files: what sbx writes when the file is missing and a sandbox could
     * create it; NULL when any file there changes what the host does (sbx
     * then refuses to start) */
    const char *placeholder;
};

#define NO_FILE NULL

/* Where any file changes what the program does, the placeholder does what
 * the program does when the file is missing: bash's login shell reads the
 * first of ~/.bash_profile, ~/.bash_login, ~/.profile (bash(1),
 * INVOCATION); vim reads ~/.vim/vimrc, or else defaults.vim, when there is
 * no ~/.vimrc (:help defaults.vim, :help vimrc). */
#define MADE_BY_SBX "made by sbx so that no sandbox can create this file (sbx-profile(5), " \
                    "PROTECTED PATHS); it does what a missing file does"
static const char bash_profile_placeholder[] =
    "# " MADE_BY_SBX "\n"
    "if [ -f \"$HOME/.bash_login\" ]; then . \"$HOME/.bash_login\"; "
    "elif [ -f \"$HOME/.profile\" ]; then . \"$HOME/.profile\"; fi\n";
static const char bash_login_placeholder[] =
    "# " MADE_BY_SBX "\n"
    "if [ -f \"$HOME/.profile\" ]; then . \"$HOME/.profile\"; fi\n";
/* sshd(8), SSHRC: without ~/.ssh/rc, sshd runs /etc/ssh/sshrc, or else
 * adds the X11 cookie with xauth; this is the man page's own example. */
static const char ssh_rc_placeholder[] =
    "# " MADE_BY_SBX "\n"
    "if [ -f /etc/ssh/sshrc ]; then . /etc/ssh/sshrc; "
    "elif read proto cookie && [ -n \"$DISPLAY\" ]; then\n"
    "  if [ \"$(echo \"$DISPLAY\" | cut -c1-10)\" = 'localhost:' ]; then\n"
    "    echo add \"unix:$(echo \"$DISPLAY\" | cut -c11-)\" \"$proto\" \"$cookie\"\n"
    "  else\n    echo add \"$DISPLAY\" \"$proto\" \"$cookie\"\n  fi | xauth -q -\nfi\n";
static const char vimrc_placeholder[] =
    "\" " MADE_BY_SBX "\n"
    "if filereadable(expand('~/.vim/vimrc'))\n  source ~/.vim/vimrc\nelse\n"
    "  unlet! skip_defaults_vim\n  source $VIMRUNTIME/defaults.vim\nendif\n";

static const struct home_entry home_files[] = {
    { ".gitconfig", PROTECT_FILE, "git's configuration: core.fsmonitor, hooks and aliases run commands", "" },
    { ".bashrc", PROTECT_FILE, "bash start-up file", "" },
    { ".bash_profile", PROTECT_FILE, "bash login start-up file", bash_profile_placeholder },
    { ".bash_login", PROTECT_FILE, "bash login start-up file", bash_login_placeholder },
    { ".bash_logout", PROTECT_FILE, "bash logout file", "" },
    { ".profile", PROTECT_FILE, "login shell start-up file", "" },
    { ".zshenv", PROTECT_FILE, "zsh start-up file", "" },
    { ".zshrc", PROTECT_FILE, "zsh start-up file", "" },
    { ".zprofile", PROTECT_FILE, "zsh login start-up file", "" },
    { ".zlogin", PROTECT_FILE, "zsh login start-up file", "" },
    { ".zlogout", PROTECT_FILE, "zsh logout file", "" },
    { ".xprofile", PROTECT_FILE, "X session start-up file", "" },
    { ".xsessionrc", PROTECT_FILE, "X session start-up file", "" },
    { ".vimrc", PROTECT_FILE, "vim start-up file", vimrc_placeholder },
    { ".ripgreprc", PROTECT_FILE, "ripgrep configuration (--pre runs a program)", "" },
    { ".ssh/config", PROTECT_FILE, "ssh configuration (ProxyCommand, LocalCommand run commands)", "" },
    { ".ssh/rc", PROTECT_FILE, "run by sshd at every login", ssh_rc_placeholder },
    { ".ssh/authorized_keys", PROTECT_FILE, "who may log in as you", "" },
    { ".claude/settings.json", PROTECT_FILE, "Claude Code settings (hooks run commands)", "{}\n" },
    { ".codex/config.toml", PROTECT_FILE, "Codex CLI configuration (notify runs a command; sandbox mode)", "" },
    { ".vim", PROTECT_DIR, "vim plugins" },
    { ".emacs.d", PROTECT_DIR, "emacs start-up files" },
    { ".local/bin", PROTECT_DIR, "programs on your PATH" },
    { "bin", PROTECT_DIR, "programs on your PATH" },
    { ".cargo/bin", PROTECT_DIR, "programs on your PATH" },
    { ".local/share/systemd", PROTECT_DIR, "systemd user units" },
};

/* Below $XDG_CONFIG_HOME (~/.config). */
static const struct home_entry config_dirs[] = {
    { "git", PROTECT_DIR, "git's configuration: core.fsmonitor, hooks and aliases run commands" },
    { "systemd", PROTECT_DIR, "systemd user units" },
    { "autostart", PROTECT_DIR, "programs started at login" },
    { "environment.d", PROTECT_DIR, "the environment of your user services" },
    { "fish", PROTECT_DIR, "fish start-up files" },
    { "nvim", PROTECT_DIR, "neovim start-up files" },
};

/* Below every writable directory of the plan. Directories of git are
 * listed so that git inside can still commit (objects, refs, the index and
 * logs stay writable) while nothing it runs or reads as configuration can
 * change. "/.git" itself is pinned by mount-plan.c (its own mount point), so
 * it cannot be renamed away and replaced by a directory of the command's. */
static const struct protected_name project_names[] = {
    /* a worktree's or submodule's "gitdir: PATH" file: re-pointed, git
     * would read a configuration of the command's */
    { "/.git", PROTECT_FILE, PROTECT_MISSING_IGNORE, "where git finds the repository (gitdir: file)" },
    { "/.git/config", PROTECT_FILE, PROTECT_MISSING_IGNORE,
      "the repository's git configuration: core.fsmonitor, core.hooksPath run commands" },
    { "/.git/config.worktree", PROTECT_FILE, PROTECT_MISSING_IGNORE,
      "the repository's per-worktree git configuration" },
    /* created when missing (.git/hooks is made by git init anyway), but
     * only in a repository: mount-plan.c never creates the first component */
    { "/.git/hooks", PROTECT_DIR, PROTECT_MISSING_CREATE, "git hooks: run by git commit, checkout, push" },
    { "/.gitmodules", PROTECT_FILE, PROTECT_MISSING_IGNORE, "where git fetches submodules from" },
    /* Mercurial (hg help config, "Files"; hg help internals.requirements):
     * the repository's hgrc runs hooks and loads extensions (Python) on
     * the host's next hg status; an empty one means what a missing one
     * does, so one is made where a repository has none. A share reads the
     * source's configuration through sharedpath (and requires says it is
     * a share); share-safe adds hgrc-not-shared. */
    { "/.hg/hgrc", PROTECT_FILE, PROTECT_MISSING_CREATE,
      "Mercurial's repository configuration: hooks and extensions run commands" },
    { "/.hg/hgrc-not-shared", PROTECT_FILE, PROTECT_MISSING_IGNORE,
      "Mercurial's per-share configuration: hooks and extensions run commands" },
    { "/.hg/sharedpath", PROTECT_FILE, PROTECT_MISSING_IGNORE,
      "where a Mercurial share finds its repository and its configuration" },
    { "/.hg/requires", PROTECT_FILE, PROTECT_MISSING_IGNORE,
      "the features Mercurial reads the repository with (share, share-safe)" },
    /* jj (docs/config.md, "Repo config"): the repository's config.toml
     * sets ui.pager, ui.diff-editor, fsmonitor, all commands; made empty
     * (valid TOML, no setting) where there is none. A secondary
     * workspace's .jj/repo is a file naming the repository; store/git_target
     * names the git directory jj reads. */
    { "/.jj/repo", PROTECT_FILE, PROTECT_MISSING_IGNORE,
      "where a jj workspace finds its repository (a file in a secondary workspace)" },
    { "/.jj/repo/config.toml", PROTECT_FILE, PROTECT_MISSING_CREATE,
      "jj's repository configuration: ui.pager, ui.diff-editor, fsmonitor run commands" },
    { "/.jj/repo/store/git_target", PROTECT_FILE, PROTECT_MISSING_IGNORE,
      "where jj finds the git repository it reads" },
    { "/.envrc", PROTECT_FILE, PROTECT_MISSING_IGNORE, "run by direnv when you enter the directory" },
    { "/.vscode", PROTECT_DIR, PROTECT_MISSING_IGNORE, "editor tasks and settings" },
    { "/.idea", PROTECT_DIR, PROTECT_MISSING_IGNORE, "editor run configurations" },
    { "/.mcp.json", PROTECT_FILE, PROTECT_MISSING_IGNORE, "MCP servers an agent starts" },
    { "/.claude/settings.json", PROTECT_FILE, PROTECT_MISSING_IGNORE, "Claude Code project settings (hooks)" },
    { "/.claude/settings.local.json", PROTECT_FILE, PROTECT_MISSING_IGNORE,
      "Claude Code project settings (hooks)" },
    { "/.codex", PROTECT_DIR, PROTECT_MISSING_IGNORE, "Codex CLI project configuration" },
};

static const char *const shipped_writable[] = {
    ".cache", ".cargo/registry", ".cargo/git", ".npm", ".m2/repository", ".gradle/caches",
    "go/pkg/mod", ".rustup", ".local/share/virtualenvs", ".pyenv", ".nvm", ".claude",
    ".claude.json", ".codex", ".gemini", ".config", ".local/state", ".local/share/pnpm", ".yarn",
    ".bun/install/cache",
};

const char *const *protect_shipped_writable(size_t *n)
{
    *n = sizeof shipped_writable / sizeof shipped_writable[0];
    return shipped_writable;
}

const struct protected_name *protect_project_names(size_t *n)
{
    *n = sizeof project_names / sizeof project_names[0];
    return project_names;
}

void protect_list_add(struct protect_list *l, const char *path, enum protect_kind kind,
                      enum protect_missing missing, bool own, const char *why,
                      const char *placeholder)
{
    if (!path || path[0] != '/')
        return;
    for (size_t i = 0; i < l->n; i++) {
        if (!strcmp(l->v[i].path, path)) {
            l->v[i].own |= own;
            return;
        }
    }
    xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n++] = (struct protected_path){
        .path = xstrdup(path), .kind = kind, .missing = missing, .own = own, .why = why,
        .placeholder = placeholder,
    };
}

static enum protect_missing missing_rule(const struct home_entry *e)
{
    return e->kind == PROTECT_DIR || e->placeholder ? PROTECT_MISSING_CREATE : PROTECT_MISSING_REFUSE;
}

/* "/home/u/" + "bin", without a doubled slash when home is "/". */
static char *join(const char *dir, const char *rel)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return xasprintf("%.*s/%s", (int)(n == 1 && dir[0] == '/' ? 0 : n), dir, rel);
}

static bool within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

static void add_config_dirs(struct protect_list *l, const char *config)
{
    for (size_t i = 0; i < sizeof config_dirs / sizeof config_dirs[0]; i++) {
        autofree char *p = join(config, config_dirs[i].rel);
        protect_list_add(l, p, config_dirs[i].kind, missing_rule(&config_dirs[i]), false,
                         config_dirs[i].why, NULL);
    }
    autofree char *own = join(config, "sbx");
    protect_list_add(l, own, PROTECT_DIR, PROTECT_MISSING_CREATE, true,
                     "sbx's own profiles: a later run reads them", NULL);
}

void protect_list_build(struct protect_list *out, const struct protect_inputs *in)
{
    /* sbx's own configuration first: it may not be opted out of. */
    if (in->exe && in->exe[0] == '/')
        protect_list_add(out, in->exe, PROTECT_FILE, PROTECT_MISSING_IGNORE, true,
                         "the sbx binary: later runs are this program", NULL);
    for (size_t i = 0; i < in->nsearch; i++)
        protect_list_add(out, in->search_dirs[i], PROTECT_DIR, PROTECT_MISSING_CREATE, true,
                         "sbx's profile search path: a later run reads it", NULL);

    bool home = in->home && in->home[0] == '/';
    if (in->xdg_config_home && in->xdg_config_home[0] == '/')
        add_config_dirs(out, in->xdg_config_home);
    if (!home)
        return;
    /* ~/.config too when XDG_CONFIG_HOME points elsewhere: a later shell
     * may not have it set. */
    autofree char *config = join(in->home, ".config");
    add_config_dirs(out, config);
    size_t nplaces = sizeof shipped_writable / sizeof shipped_writable[0];
    out->not_projects = xcalloc(nplaces, sizeof *out->not_projects);
    for (size_t i = 0; i < nplaces; i++)
        out->not_projects[out->nnot_projects++] = join(in->home, shipped_writable[i]);
    for (size_t i = 0; i < sizeof home_files / sizeof home_files[0]; i++) {
        autofree char *p = join(in->home, home_files[i].rel);
        protect_list_add(out, p, home_files[i].kind, missing_rule(&home_files[i]), false,
                         home_files[i].why, home_files[i].placeholder);
    }
    /* Every directory of the caller's PATH below $HOME: what the caller
     * runs next by name (~/.pyenv/shims, ~/.nvm/.../bin, ~/go/bin...). */
    if (in->path_env) {
        autofree char *copy = xstrdup(in->path_env);
        char *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            if (d[0] != '/' || strstr(d, "/../") || !within(d, in->home) ||
                !strcmp(d, in->home))
                continue;
            size_t n = strlen(d);
            while (n > 1 && d[n - 1] == '/')
                d[--n] = '\0';
            protect_list_add(out, d, PROTECT_DIR, PROTECT_MISSING_CREATE, false,
                             "a directory on your PATH", NULL);
        }
    }
}

/* gitrepository-layout(5): what git reads there as configuration or runs.
 * A worktree's git directory has config.worktree (extensions.worktreeConfig)
 * and commondir, which names where the rest, config included, is read. */
void protect_list_add_git_dir(struct protect_list *l, const char *git_dir, bool hooks_run_here)
{
    if (!git_dir || git_dir[0] != '/')
        return;
    static const struct {
        const char *rel;
        enum protect_kind kind;
        const char *why;
    } names[] = {
        { "config", PROTECT_FILE,
          "the repository's git configuration: core.fsmonitor, core.hooksPath run commands" },
        { "config.worktree", PROTECT_FILE, "the repository's per-worktree git configuration" },
        { "commondir", PROTECT_FILE, "where a worktree's git finds the repository and its configuration" },
        { "hooks", PROTECT_DIR, "git hooks: run by git commit, checkout, push" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        autofree char *p = join(git_dir, names[i].rel);
        bool create = names[i].kind == PROTECT_DIR && hooks_run_here;
        protect_list_add(l, p, names[i].kind, create ? PROTECT_MISSING_CREATE : PROTECT_MISSING_IGNORE,
                         false, names[i].why, NULL);
    }
}

void protect_list_free(struct protect_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].path);
    free(l->v);
    for (size_t i = 0; i < l->nnot_projects; i++)
        free(l->not_projects[i]);
    free(l->not_projects);
    *l = (struct protect_list){ 0 };
}
