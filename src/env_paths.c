#include "config.h"

#include "env_paths.h"

#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Variables whose value is a directory or a list of them, that tools read
 * from (not only write to: a cache under a fresh tmpfs is merely cold). */
static const char *const path_vars[] = {
    "PATH", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "VIRTUAL_ENV", "NODE_PATH",
    "LD_LIBRARY_PATH", "GOPATH", "GOROOT", "GOMODCACHE", "CARGO_HOME", "RUSTUP_HOME",
    "PERL5LIB", "PERLLIB", "RUBYLIB", "GEM_HOME", "GEM_PATH", "CLASSPATH", "JAVA_HOME",
    "PKG_CONFIG_PATH", "CPATH", "LIBRARY_PATH", "MANPATH", "XDG_DATA_DIRS", "NPM_CONFIG_PREFIX",
    "npm_config_prefix", "CONDA_PREFIX", "PIPX_HOME", "UV_PYTHON_INSTALL_DIR",
};

static bool is_path_var(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof path_vars / sizeof path_vars[0]; i++)
        if (strlen(path_vars[i]) == len && !strncmp(path_vars[i], name, len))
            return true;
    return false;
}

/* When the entry that decides dir leaves it empty: a fresh tmpfs or a
 * hidden directory, at dir or above it. */
static const struct mount_entry *emptied(const struct mount_plan *plan, const char *dir)
{
    const struct mount_entry *decides = mount_plan_deciding(plan, dir);
    if (decides && (decides->op == MOUNT_OP_TMPFS || decides->op == MOUNT_OP_HIDE ||
                    decides->op == MOUNT_OP_ROOT_TMPFS))
        return decides;
    return NULL;
}

size_t env_paths_hidden(char *const *env, size_t n, const struct mount_plan *plan, struct strv *out)
{
    size_t added = 0;
    for (size_t i = 0; i < n && env && env[i]; i++) {
        const char *eq = strchr(env[i], '=');
        if (!eq || !is_path_var(env[i], (size_t)(eq - env[i])))
            continue;
        const char *v = eq + 1;
        while (*v) {
            size_t len = strcspn(v, ":");
            if (len && v[0] == '/') {
                char *dir = xstrndup(v, len);
                /* "/x/" and "/x" are one directory */
                while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
                    dir[strlen(dir) - 1] = '\0';
                const struct mount_entry *e = emptied(plan, dir);
                if (e) {
                    char at[512];
                    origin_format(&e->at, at, sizeof at);
                    strv_push(out, xasprintf("%.*s names %s, which the sandbox %s (%s %s, at %s): "
                                             "the command finds nothing there; move it, or make "
                                             "it visible with --ro %s",
                                             (int)(eq - env[i]), env[i], dir,
                                             e->op == MOUNT_OP_HIDE ? "hides"
                                                                    : "replaces with an empty tmpfs",
                                             mount_op_name(e->op), e->path, at, dir));
                    added++;
                }
                free(dir);
            }
            v += len;
            if (*v == ':')
                v++;
        }
    }
    return added;
}
