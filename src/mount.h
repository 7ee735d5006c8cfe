/* Filesystem isolation in two steps: the supervisor resolves the mount
 * plan (mount-plan.h) on the host before clone(), with every refusal;
 * the sandbox's init applies it: opens each resolved object again,
 * checks it is the one resolved, builds the new root, mounts the rules,
 * /proc and /dev, pivots and detaches the host's root. */
#ifndef SBX_MOUNT_H
#define SBX_MOUNT_H

#include "dir_listing.h"
#include "mount-plan.h"
#include "profile.h"

#include <stdbool.h>
#include <sys/types.h>

/* The real resolver: open(O_PATH) once, then the canonical path is read back
 * from that fd, so the string and the object bound cannot disagree. */
/* A file sbx makes and binds read-only into the sandbox. */
struct mount_generated {
    const char *path;      /* where inside, taken as it is (a symlink there is covered) */
    const char *content;
    const char *why;       /* for -v */
    struct origin at;      /* the profile line that asked for it */
};

/* What the host resolvers need to tell a symlink a sandbox could have made
 * (sbx-profile(5), SYMLINKS IN RULE PATHS). */
struct mount_host {
    uid_t self;              /* our uid here: a sandbox's files are created as it */
    struct strv writable;    /* places some sandbox may write, as written and canonical */
    struct dir_listings listings;   /* optional rules' paths known missing (dir_listing.h) */
};

/* ctx: a struct mount_host. */
int mount_resolve_host(const char *path, unsigned flags, struct mount_resolved *out, void *ctx);
/* ctx: a struct walk_cache (mount-walk.h), or NULL. */
int mount_probe_host(const char *path, bool create, const char *file_content,
                     const struct mount_plan *plan, struct mount_probe *out, void *ctx);

struct mount_inputs {
    const char *cwd;                          /* where the command starts */
    const struct mount_generated *generated;  /* ngenerated of them */
    size_t ngenerated;
    const struct protect_list *protect;       /* NULL: none (test helpers) */
    uid_t outer_uid;                          /* the caller's uid outside */
    const char *home;                         /* the caller's $HOME, or NULL */
    struct strv *writable_out;                /* set: gets mount_writable_places()'s list */
    /* a work tree whose .git file names its git directories elsewhere
     * (project.h): they are writable where the work tree's top is */
    const char *project_root;
    const char *git_dirs[2];                  /* its git and common directories, or NULL */
    /* cache rules: where their layers are kept (layers.h), and the
     * profile's directory there; NULL: a cache rule is refused */
    const char *layers_root;
    const char *layers_profile;
};

/* The places a sandbox could have written, as written and canonical
 * (sbx-profile(5), SYMLINKS IN RULE PATHS): the working directory, the
 * git directories of a work tree's .git file, p's rw rules (p may be
 * NULL: none), the directories below $HOME that shipped profiles make
 * writable. Appended to out. */
void mount_writable_places(const struct profile *p, const struct mount_inputs *in,
                           struct strv *out);
/* The same, a path its directory's listing says is missing not opened
 * (listings may be NULL: every path opened). */
void mount_writable_places_listed(const struct profile *p, const struct mount_inputs *in,
                                  struct dir_listings *listings, struct strv *out);


/* In the supervisor, before clone(): resolves every rule on the host,
 * adds the protections (creating the placeholders they need) and the
 * generated file, prints the plan's warnings, and seals the plan: each
 * resolved object is kept as its canonical path and identity (dev, ino),
 * not as a descriptor (mount.c says why). Dies (exit 125) naming the
 * profile line and path on any refused rule. generated are files made
 * by sbx and bound read-only (the sandbox's /etc/resolv.conf with
 * outbound network, its /etc/hosts naming its hostname). */
void mount_plan_prepare(const struct profile *p, const struct mount_inputs *in,
                        struct mount_plan *plan);

/* In the sandbox's init (PID 1 of the new PID namespace, in new user and
 * mount namespaces with the id maps written): opens every sealed object
 * again without following a symlink, dies if one is not the object
 * resolved, and mounts the plan. On return the process's root is the
 * sandbox's root and its working directory is cwd. The plan stays the
 * caller's to free. */
void mount_apply(const struct profile *p, struct mount_plan *plan, const char *cwd);

/* Both steps in one process, for the test helpers: prepare, the
 * after-resolve hook, apply. */
void mount_setup(const struct profile *p, const struct mount_inputs *in);

/* Tests only: use the pre-5.12 path (mount(2) and remounts walked through
 * mountinfo, mount-legacy.c) even where open_tree/mount_setattr exist. */
extern bool mount_force_legacy_api;

/* Tests only: called once every path is resolved and before the first
 * mount, so a test can swap a symlink in that window. NULL in sbx. */
extern void (*mount_hook_after_resolve)(void);

#endif
