/* Private write layers (pure): where the `cache` rules of a profile keep
 * what the sandbox writes, and which plainly writable paths the host runs
 * code from.
 *
 * A `cache = PATH` rule mounts an overlay inside the sandbox: the host's
 * PATH below, read-only, and above it a layer of the profile's own,
 * ${XDG_STATE_HOME:-~/.local/state}/sbx/layers/PROFILE/NAME/{upper,work},
 * NAME the canonical PATH escaped (layer_name()). The sandbox sees the
 * host's files and its own earlier writes; the host's PATH never changes,
 * so what a sandbox plants there (a module source, a toolchain binary, a
 * tool's configuration) runs only in later sandboxes of that profile.
 * The layers root is read-only inside every sandbox (protect.h), and made,
 * listed and removed by sbx without following a symlink (layer_store.h). */
#ifndef SBX_LAYERS_H
#define SBX_LAYERS_H

#include "profile.h"
#include "util.h"

/* The layers root: ${XDG_STATE_HOME}/sbx/layers when that is absolute,
 * else HOME/.local/state/sbx/layers; NULL without an absolute home. */
char *layers_root(const char *home, const char *xdg_state_home);

/* The name of a profile's layers directory: the name asked for when it is
 * a plain name ("qa"), else its canonical file escaped as a layer name
 * (two files called qa.ini keep apart); NULL when neither is known. */
char *layers_profile_name(const struct profile *p);

/* One path component for a canonical absolute path (not "/"): the leading
 * "/" dropped, every byte but [A-Za-z0-9_.-] as %XX ("/" is %2F), so that
 * distinct paths get distinct names. NULL when the name would be longer
 * than NAME_MAX. */
char *layer_name(const char *path);
/* The path a layer name stands for, or NULL when it is no layer_name(). */
char *layer_name_path(const char *name);

/* The plainly writable (rw) rules of p on a path the host runs code from
 * later (build caches, toolchains, tools' configuration below home), one
 * warning each, naming what runs and the fix (cache = PATH). Pure.
 * home_is_builds: home is a build's inside the project (a $HOME that is
 * not the account's, strictly inside the project's work tree: project.h,
 * as debhelper sets it); a rule holding it (rw = ${PROJECT}) gets no
 * warning: those caches are the project's, writable with it, and the
 * account's own are elsewhere. */
void layers_rw_warnings(const struct profile *p, const char *home, bool home_is_builds,
                        struct strv *out);

/* The entry of the table above that holds REL (a path relative to
 * $HOME: ".npm/_cacache/x"): its directory (".npm") and what the host
 * runs from it, or false. For the fix of a refused write (fix.h): a
 * cache rule there, never a plain rw. Pure. */
bool layers_host_runs(const char *rel, const char **dir, const char **runs);

#endif
