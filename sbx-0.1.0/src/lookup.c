#include "config.h"

#include "lookup.h"

#include "util.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool profile_name_is_path(const char *name)
{
    size_t n = strlen(name);
    return strchr(name, '/') != NULL || (n >= 4 && !strcmp(name + n - 4, ".ini"));
}

void profile_search_add(struct profile_search *s, const char *dir)
{
    if (!dir || !*dir)
        return;
    s->dirs = xrealloc(s->dirs, (s->n + 1) * sizeof *s->dirs);
    s->dirs[s->n++] = xstrdup(dir);
}

void profile_search_free(struct profile_search *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->dirs[i]);
    free(s->dirs);
    s->dirs = NULL;
    s->n = 0;
}

/* True when this binary is the one in the build tree it was built in (or
 * its dynamic twin for valgrind, src/local.mk), so the shipped profiles
 * are found before `make install`. */
static bool running_from_build_tree(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    static const char built[] = SBX_ABS_BUILDDIR "/src/sbx";
    return strncmp(exe, built, sizeof built - 1) == 0 &&
           (!strcmp(exe + sizeof built - 1, "") || !strcmp(exe + sizeof built - 1, "-dynamic"));
}

void profile_search_from_env(struct profile_search *s)
{
    memset(s, 0, sizeof *s);
    const char *env = getenv("SBX_PROFILE_PATH");
    if (env) {
        char *copy = xstrdup(env);
        char *save = NULL;
        for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
            profile_search_add(s, tok);
        free(copy);
    }
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (xdg && xdg[0] == '/') {
        char *d = xasprintf("%s/sbx/profiles", xdg);
        profile_search_add(s, d);
        free(d);
    } else if (home && home[0] == '/') {
        char *d = xasprintf("%s/.config/sbx/profiles", home);
        profile_search_add(s, d);
        free(d);
    }
    profile_search_add(s, SBX_SYSCONFDIR "/sbx/profiles");
    profile_search_add(s, SBX_PKGDATADIR "/profiles");
    if (running_from_build_tree())
        profile_search_add(s, SBX_ABS_SRCDIR "/profiles");
}

char *profile_search_find(const struct profile_search *s, const char *name, const char *skip)
{
    for (size_t i = 0; i < s->n; i++) {
        char *path = xasprintf("%s/%s.ini", s->dirs[i], name);
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
            char canon[PATH_MAX];
            if (!(skip && realpath(path, canon) && !strcmp(canon, skip)))
                return path;
        }
        free(path);
    }
    return NULL;
}

void profile_search_each(const struct profile_search *s,
                         void (*fn)(const char *dir, const char *name, void *ctx), void *ctx)
{
    for (size_t i = 0; s && i < s->n; i++) {
        DIR *dir = opendir(s->dirs[i]);
        if (!dir)
            continue;
        struct dirent *de;
        while ((de = readdir(dir))) {
            size_t len = strlen(de->d_name);
            if (len <= 4 || strcmp(de->d_name + len - 4, ".ini") || de->d_name[0] == '.')
                continue;
            char *name = xstrndup(de->d_name, len - 4);
            fn(s->dirs[i], name, ctx);
            free(name);
        }
        closedir(dir);
    }
}

struct nearest {
    const char *asked;
    char *best;
    size_t distance;
};

static void consider_nearest(const char *dir, const char *name, void *ctx)
{
    (void)dir;
    struct nearest *n = ctx;
    size_t d;
    if (near_word(n->asked, name, &d) && d < n->distance) {
        free(n->best);
        n->best = xstrdup(name);
        n->distance = d;
    }
}

char *profile_search_nearest(const struct profile_search *s, const char *name)
{
    struct nearest n = { name, NULL, SIZE_MAX };
    profile_search_each(s, consider_nearest, &n);
    return n.best;
}

char *profile_search_describe(const struct profile_search *s)
{
    if (!s || s->n == 0)
        return xstrdup("(no directories)");
    size_t len = 1;
    for (size_t i = 0; i < s->n; i++)
        len += strlen(s->dirs[i]) + 2;
    char *out = xmalloc(len);
    out[0] = '\0';
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            strcat(out, ", ");
        strcat(out, s->dirs[i]);
    }
    return out;
}
