#include "config.h"

#include "layers.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *layers_root(const char *home, const char *xdg_state_home)
{
    if (xdg_state_home && xdg_state_home[0] == '/')
        return xasprintf("%s/sbx/layers", xdg_state_home);
    if (!home || home[0] != '/')
        return NULL;
    return xasprintf("%s/.local/state/sbx/layers", strcmp(home, "/") ? home : "");
}

static bool kept(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

char *layer_name(const char *path)
{
    if (!path || path[0] != '/' || !path[1])
        return NULL;
    size_t n = strlen(path + 1);
    if (n > NAME_MAX)
        return NULL;
    char *out = xmalloc(3 * n + 1), *w = out;
    for (const unsigned char *s = (const unsigned char *)path + 1; *s; s++) {
        if (kept(*s))
            *w++ = (char)*s;
        else
            w += sprintf(w, "%%%02X", *s);
    }
    *w = '\0';
    if ((size_t)(w - out) > NAME_MAX) {
        free(out);
        return NULL;
    }
    return out;
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

char *layer_name_path(const char *name)
{
    if (!name || !name[0])
        return NULL;
    size_t n = strlen(name);
    char *out = xmalloc(n + 2), *w = out;
    *w++ = '/';
    for (const char *s = name; *s; s++) {
        if (kept((unsigned char)*s)) {
            *w++ = *s;
            continue;
        }
        int hi = *s == '%' ? hex(s[1]) : -1, lo = hi < 0 ? -1 : hex(s[2]);
        /* only what layer_name() writes: upper-case escapes of bytes it escapes */
        if (lo < 0 || kept((unsigned char)(hi * 16 + lo)) || hi * 16 + lo == 0) {
            free(out);
            return NULL;
        }
        *w++ = (char)(hi * 16 + lo);
        s += 2;
    }
    *w = '\0';
    return out;
}

char *layers_profile_name(const struct profile *p)
{
    bool plain = p->name && p->name[0] && strcmp(p->name, ".") && strcmp(p->name, "..") &&
                 !strstr(p->name, ".ini") && strlen(p->name) <= NAME_MAX;
    for (const char *s = p->name; plain && *s; s++)
        plain = kept((unsigned char)*s);
    if (plain)
        return xstrdup(p->name);
    return p->path ? layer_name(p->path) : NULL;
}

/* Below $HOME: what the host runs from these directories once a sandbox
 * has written there (the attacks of issue 27, each shown by a test). */
static const struct {
    const char *rel;
    const char *runs;
} host_runs[] = {
    { "go/pkg/mod", "go builds compile the module sources there (GOMODCACHE)" },
    { ".cargo/registry", "cargo builds compile the crate sources there" },
    { ".cargo/git", "cargo builds compile the git dependencies checked out there" },
    { ".npm", "npm installs packages from its cache there (_cacache)" },
    { ".m2/repository", "maven runs the plugins and builds against the jars there" },
    { ".gradle/caches", "gradle runs the plugins and build logic cached there" },
    { ".cache", "tools run what they cache there (go-build outputs, pip wheels, pre-commit hooks)" },
    { ".rustup", "rustup's toolchains: cargo and rustc run from there" },
    { ".pyenv", "pyenv's shims run libexec/pyenv and the pythons there" },
    { ".nvm", "nvm's node and npm run from there" },
    { ".local/share/virtualenvs", "the virtualenvs' python and scripts run from there" },
    { ".local/share/pnpm", "pnpm runs from there and installs from its store" },
    { ".yarn", "yarn installs from its cache there" },
    { ".bun/install/cache", "bun installs packages from its cache there" },
    { ".config", "tools read their configuration there: go/env (GOFLAGS=-toolexec), tmux.conf, "
                 "gdbinit, hg/hgrc run commands" },
};

bool layers_host_runs(const char *rel, const char **dir, const char **runs)
{
    for (size_t i = 0; i < sizeof host_runs / sizeof host_runs[0]; i++) {
        size_t n = strlen(host_runs[i].rel);
        if (!strncmp(rel, host_runs[i].rel, n) && (rel[n] == '\0' || rel[n] == '/')) {
            *dir = host_runs[i].rel;
            *runs = host_runs[i].runs;
            return true;
        }
    }
    return false;
}

static char *home_join(const char *home, const char *rel)
{
    size_t n = strlen(home);
    while (n > 1 && home[n - 1] == '/')
        n--;
    return xasprintf("%.*s/%s", (int)(n == 1 ? 0 : n), home, rel);
}

static bool path_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

void layers_rw_warnings(const struct profile *p, const char *home, bool home_is_builds,
                        struct strv *out)
{
    if (!home || home[0] != '/')
        return;
    for (size_t i = 0; i < p->nfs; i++) {
        const struct fs_rule *r = &p->fs[i];
        if (r->kind != FS_RW || !r->path)
            continue;
        /* a later rule on the same path decides */
        bool later = false;
        for (size_t j = i + 1; j < p->nfs; j++)
            later |= p->fs[j].path && !strcmp(p->fs[j].path, r->path);
        if (later || (home_is_builds && path_within(home, r->path)))
            continue;
        for (size_t k = 0; k < sizeof host_runs / sizeof host_runs[0]; k++) {
            autofree char *dir = home_join(home, host_runs[k].rel);
            /* the directory itself, one inside it, or one holding it */
            if (!path_within(r->path, dir) && !path_within(dir, r->path))
                continue;
            char at[512];
            strv_push(out, xasprintf("warning: %s: rw%s = %s: the host runs code from %s "
                                     "(%s): what the command writes there runs later outside "
                                     "the sandbox; write 'cache%s = %s' to give the sandbox a "
                                     "private write layer instead",
                                     origin_format(&r->at, at, sizeof at), r->optional ? "?" : "",
                                     r->path, dir, host_runs[k].runs, r->optional ? "?" : "",
                                     r->path));
            break;
        }
    }
}
