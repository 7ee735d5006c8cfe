/* Private write layers without touching the host: layer names and their
 * inverse, the layers root, the profile's directory name, and the warning
 * for a plainly writable path the host runs code from (layers.h); the
 * shipped profiles give none. */
#include "config.h"

#include "layers.h"
#include "lookup.h"
#include "../tap.h"
#include "util.h"

#include <limits.h>
#include <string.h>

static const struct profile_vars vars = { .home = "/home/u", .cwd = "/p", .user = "u",
                                          .uid = "1000", .gid = "1000", .tmpdir = "/tmp",
                                          .project = "/p" };

static void load(struct profile *p, const char *text)
{
    struct profile_search s = { 0 };
    struct profile_errors e = { 0 };
    profile_init_defaults(p);
    bool loaded = profile_load_buffer(p, "/t/x.ini", text, strlen(text), &s, &vars, &e);
    ok(loaded, "loads: %.40s", text);
    for (size_t i = 0; i < e.n; i++)
        diag("%s", e.msg[i]);
    profile_errors_free(&e);
}

static size_t warnings_of(const char *text, struct strv *w)
{
    struct profile p;
    load(&p, text);
    *w = (struct strv){ 0 };
    layers_rw_warnings(&p, "/home/u", false, w);
    profile_free(&p);
    return w->n;
}

int main(void)
{
    /* names */
    char *n = layer_name("/home/u/go/pkg/mod");
    is_str(n, "home%2Fu%2Fgo%2Fpkg%2Fmod", "layer name: / escaped, the leading one dropped");
    char *back = layer_name_path(n);
    is_str(back, "/home/u/go/pkg/mod", "and read back");
    free(n);
    free(back);
    n = layer_name("/a b/%x/é");
    back = layer_name_path(n);
    is_str(n, "a%20b%2F%25x%2F%C3%A9", "every other byte as %%XX, '%%' too");
    is_str(back, "/a b/%x/é", "and read back");
    free(n);
    free(back);
    ok(!layer_name("/") && !layer_name("rel") && !layer_name(NULL), "no name for /, a relative path");
    char longp[PATH_MAX];
    memset(longp, 'a', 300);
    longp[0] = '/';
    longp[300] = '\0';
    ok(!layer_name(longp), "no name longer than NAME_MAX");
    ok(!layer_name_path("a/b") && !layer_name_path("a%2f") && !layer_name_path("a%41") &&
       !layer_name_path("a%2") && !layer_name_path("a%00") && !layer_name_path(""),
       "a name layer_name() cannot make is refused (slash, lower-case, needless escape, NUL)");

    /* roots and profile names */
    char *r = layers_root("/home/u", NULL);
    is_str(r, "/home/u/.local/state/sbx/layers", "root: ~/.local/state/sbx/layers");
    free(r);
    r = layers_root("/home/u", "/xdg/state");
    is_str(r, "/xdg/state/sbx/layers", "root: $XDG_STATE_HOME when absolute");
    free(r);
    r = layers_root("/home/u", "rel");
    is_str(r, "/home/u/.local/state/sbx/layers", "a relative $XDG_STATE_HOME is ignored (XDG)");
    free(r);
    ok(!layers_root(NULL, NULL) && !layers_root("rel", NULL), "no root without an absolute home");
    struct profile p = { .name = "qa" };
    r = layers_profile_name(&p);
    is_str(r, "qa", "profile directory: the plain name");
    free(r);
    p = (struct profile){ .name = "./mine.ini", .path = "/home/u/mine.ini" };
    r = layers_profile_name(&p);
    is_str(r, "home%2Fu%2Fmine.ini", "a profile file: its canonical path escaped");
    free(r);
    p = (struct profile){ .name = "..", .path = NULL };
    ok(!layers_profile_name(&p), "'..' names no directory");

    /* the warning */
    struct strv w;
    is_int(warnings_of("[filesystem]\nrw = /home/u/go/pkg/mod\n", &w), 1, "rw = ~/go/pkg/mod warns");
    like_str(w.n ? w.v[0] : NULL, "/t/x.ini:2: rw = /home/u/go/pkg/mod: the host runs code from "
             "/home/u/go/pkg/mod (go builds compile the module sources there",
             "naming the line, the path and what the host runs");
    like_str(w.n ? w.v[0] : NULL, "write 'cache = /home/u/go/pkg/mod'", "and the fix");
    strv_free(&w);
    is_int(warnings_of("[filesystem]\nrw? = /home/u/.pyenv/libexec\n", &w), 1,
           "a directory inside one warns (~/.pyenv/libexec)");
    like_str(w.n ? w.v[0] : NULL, "pyenv", "naming pyenv");
    like_str(w.n ? w.v[0] : NULL, "'cache? = /home/u/.pyenv/libexec'", "the fix keeps the '?'");
    strv_free(&w);
    is_int(warnings_of("[filesystem]\nrw = /home/u/.config\n", &w), 1, "rw = ~/.config warns");
    like_str(w.n ? w.v[0] : NULL, "go/env (GOFLAGS=-toolexec), tmux.conf, gdbinit, hg/hgrc",
             "naming what runs from it");
    strv_free(&w);
    is_int(warnings_of("[filesystem]\nrw = /home/u/.rustup\n", &w), 1, "rw = ~/.rustup warns");
    strv_free(&w);
    is_int(warnings_of("[filesystem]\nrw = /home/u/.cache/pip\n", &w), 1, "rw = ~/.cache/pip warns");
    strv_free(&w);
    is_int(warnings_of("[filesystem]\nrw = /home/u/.claude\nrw = /p\nrw = /home/u/work\n"
                       "cache = /home/u/.cargo/registry\n", &w), 0,
           "no warning for an agent's state, a project, a cache rule");
    strv_free(&w);
    is_int(warnings_of("[filesystem]\nrw = /home/u/.npm\nro = /home/u/.npm\n", &w), 0,
           "nor for an rw rule a later rule on the path replaces");
    strv_free(&w);
    {
        /* a build's $HOME inside the project (debhelper's): the project
         * holding it warns for the account's home, not for the build's */
        struct profile bp;
        load(&bp, "[filesystem]\nrw = /src/pkg\n");
        w = (struct strv){ 0 };
        layers_rw_warnings(&bp, "/src/pkg/debian/home", false, &w);
        is_int(w.n, 1, "rw = PROJECT holding $HOME/go/pkg/mod warns when $HOME is the account's");
        strv_free(&w);
        layers_rw_warnings(&bp, "/src/pkg/debian/home", true, &w);
        is_int(w.n, 0, "and not when $HOME is a build's inside the project");
        strv_free(&w);
        profile_free(&bp);
    }

    /* the shipped profiles */
    static const char *const shipped[] = { "default", "qa", "devbackend", "qa-session",
                                           "devbackend-session", "claude-code",
                                           "codex-workspace-write",
                                           "codex-workspace-write-network", "codex-read-only" };
    char *dirs[] = { (char *)SBX_ABS_SRCDIR "/profiles" };
    struct profile_search s = { .dirs = dirs, .n = 1 };
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++) {
        struct profile sp;
        struct profile_errors e = { 0 };
        profile_init_defaults(&sp);
        bool loaded = profile_load(&sp, shipped[i], &s, &vars, &e);
        w = (struct strv){ 0 };
        layers_rw_warnings(&sp, "/home/u", false, &w);
        ok(loaded && w.n == 0, "shipped profile %s makes no path the host runs from plainly rw",
           shipped[i]);
        for (size_t k = 0; k < w.n; k++)
            diag("%s", w.v[k]);
        strv_free(&w);
        profile_errors_free(&e);
        profile_free(&sp);
    }
    return done_testing();
}
