/* The mount plan (pure): which mounts, on which canonical paths, in which
 * order, built from a profile's [filesystem] section. Resolving a path is
 * injected (mount_resolve_fn) so unit tests can fake the filesystem; the
 * side effects live in mount.c. */
#ifndef SBX_MOUNT_PLAN_H
#define SBX_MOUNT_PLAN_H

#include "profile.h"
#include "protect.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum mount_op {
    MOUNT_OP_ROOT_RO,      /* host / cloned recursively, read-only, nosuid, nodev */
    MOUNT_OP_ROOT_TMPFS,   /* root = tmpfs: empty, only what the rules add */
    MOUNT_OP_ROOT_HOST,    /* root = host: host / cloned recursively, as it is */
    MOUNT_OP_BIND_RW,
    MOUNT_OP_BIND_RO,
    MOUNT_OP_TMPFS,
    MOUNT_OP_HIDE,         /* empty read-only tmpfs (dir) or empty file (other) */
    MOUNT_OP_PROC,         /* a new proc of the sandbox's PID namespace */
    MOUNT_OP_PROC_HOST,    /* pid = no: the host's /proc is the sandbox's; bound */
    MOUNT_OP_DEV_MINIMAL,
    MOUNT_OP_GENERATED_FILE, /* a read-only file made by sbx (content), e.g. resolv.conf */
    MOUNT_OP_CACHE,        /* overlay: the host's directory below, the profile's layer above */
};

struct mount_entry {
    enum mount_op op;
    char *path;            /* canonical, absolute: the host object and the target inside */
    int fd;                /* O_PATH fd of the host object, -1 when none (proc, dev, root) */
    bool is_dir;
    unsigned mode;         /* permission bits of the host object (tmpfs copies them) */
    struct origin at;      /* the profile line that asked for it */
    char *content;         /* MOUNT_OP_GENERATED_FILE: the file's bytes (a C string) */
    bool at_link;          /* the mount point is the path itself, even a symlink there */
    const char *why;       /* static; protected paths: who reads or runs it later */
    bool sealed;           /* fd closed, dev/ino kept: the plan crossed clone() (mount.h) */
    dev_t dev;             /* sealed: the identity of the host object (or link) resolved */
    ino_t ino;
    bool id_known;         /* dev and ino already fd's (the resolver stat'ed it): sealing
                            * needs no fstat of its own */
    /* MOUNT_OP_CACHE: the layer directory (holding upper/ and work/),
     * canonical, set by mount.c once it is made; its identity when sealed */
    char *layer;
    bool layer_temporary;  /* no writable layers root here: a layer of the run's own, on tmpfs */
    bool layer_lower;      /* layer in use: `layer` is a snapshot of it, a lower below a tmpfs
                            * upper (layer_store_snapshot()) */
    int layer_fd;
    bool locked;           /* lock_fd holds the layer's lock (layer_store.h) until freed */
    int lock_fd;
    dev_t layer_dev;
    ino_t layer_ino;
};

struct mount_plan {
    struct mount_entry *v;
    size_t n, cap;
    struct strv warnings;  /* for the caller to print: rules skipped, links covered */
    struct strv notes;     /* for -v: protections made, directories created */
};

/* What resolving a profile path found: the canonical path of the object it
 * names (every symlink and ".." followed, once) and an O_PATH fd on it. */
struct mount_resolved {
    char *path;            /* malloc'd */
    int fd;                /* -1 allowed (unit tests) */
    bool is_dir;
    unsigned mode;
    char *refused_link;    /* EPERM: "LINK -> TARGET", the link a sandbox could have made */
    bool id_known;         /* dev and ino: fd's, from the resolver's own fstat */
    dev_t dev;
    ino_t ino;
};

/* flags of a resolve call */
#define MOUNT_RESOLVE_WRITABLE 1u  /* an rw rule: follow no symlink a sandbox could have made */
#define MOUNT_RESOLVE_OPTIONAL 2u  /* missing is no error: may be known missing unopened */

/* Returns 0 and fills *out, or an errno value (ENOENT: the path is missing;
 * EPERM with refused_link set: a symlink on the way is refused). */
typedef int (*mount_resolve_fn)(const char *path, unsigned flags, struct mount_resolved *out,
                                void *ctx);

/* Builds the ordered plan: the root first, then every rule, /proc and /dev
 * parent-first (by path depth, stable), a later rule on the same canonical
 * path replacing an earlier one. Optional rules whose path is missing are
 * dropped. Returns false with *error set (malloc'd, "FILE:LINE: ...") on
 * the first bad rule. */
bool mount_plan_build(struct mount_plan *plan, const struct profile *p,
                      mount_resolve_fn resolve, void *ctx, char **error);
void mount_plan_free(struct mount_plan *plan);

/* Adds to a built plan the git directories a work tree's .git file names
 * (a worktree's own and its common directory, a submodule's: project.h),
 * writable with the work tree, wherever a writable entry of the plan is
 * that work tree's top (`root`): git there reads and writes them on every
 * status and commit. A rule of the profile on one of them wins. Returns
 * false with *error set when one cannot be opened. */
bool mount_plan_add_git_dirs(struct mount_plan *plan, const char *root, const char *const *dirs,
                             size_t ndirs, mount_resolve_fn resolve, void *ctx, char **error);

/* Adds, to a built plan, a read-only file holding `content` at `path` (an
 * absolute path taken as it is: when it is a symlink inside, the file is
 * mounted over the link itself, so that it is what the path shows). A
 * rule of the profile on that very path wins: it asked for something else
 * there. Returns false then, and adds nothing. Keeps the parent-first
 * order. */
bool mount_plan_add_generated(struct mount_plan *plan, const char *path, const char *content,
                              struct origin at);

/* What the host shows at a protected path. Symlinks are followed only
 * outside the plan's writable entries, where no sandbox could have made
 * them; one met inside is reported, not followed. */
enum mount_found { MOUNT_FOUND_OBJECT, MOUNT_FOUND_LINK, MOUNT_FOUND_MISSING };
struct mount_probe {
    enum mount_found found;
    char *path;            /* canonical: the object, the link itself, or the first missing component */
    int fd;                /* O_PATH on the object or on the link itself; -1 when missing */
    bool is_dir;
    unsigned mode;
    char *link_target;     /* MOUNT_FOUND_LINK: what the link points at */
    bool id_known;         /* dev and ino: fd's, from the walk's own fstat */
    dev_t dev;
    ino_t ino;
};
/* With create, what is missing of `path` is made first (only below a
 * writable entry of the plan): directories, and the last component a file
 * holding file_content when that is not NULL. Returns 0 or an errno value. */
typedef int (*mount_probe_fn)(const char *path, bool create, const char *file_content,
                              const struct mount_plan *plan, struct mount_probe *out, void *ctx);

/* Adds to a built plan what keeps the protected paths (protect.h) read-only
 * where a writable entry holds them: a read-only bind on each one that
 * exists, an empty read-only file over a symlink found there, the missing
 * directories made first; and the directories between the writable entry and
 * the path each pinned (bound on itself), so that none can be renamed away
 * and replaced. `list` is the caller's list; the project names are added
 * below every writable directory entry. Paths the profile lists in
 * `unprotect` are left alone, except sbx's own. Returns false with *error
 * set (malloc'd) when a protected file is missing where the command could
 * create it. */
bool mount_plan_protect(struct mount_plan *plan, const struct protect_list *list,
                        const struct profile *p, mount_probe_fn probe, void *ctx, char **error);
void mount_probe_free(struct mount_probe *pr);

/* Pure path helpers (canonical absolute paths, no trailing slash but "/"). */
size_t mount_path_depth(const char *path);
bool mount_path_within(const char *path, const char *dir);

/* "FILE:LINE: rw path P does not exist (...)": a required rule whose path
 * is missing (err: ENOENT or ENOTDIR), as run and `profile check` say it. */
char *mount_missing_rule_error(const struct fs_rule *r, int err);

/* Whether a sandbox could have made the symlink at `link` (canonical),
 * owned by `owner`: a sandbox creates files only as the caller (`self`:
 * root's for a root caller), and only in the places some profile makes
 * writable (`writable`, mount_writable_places()). Strictly below one: a
 * place itself is a mount point inside, which no sandbox can replace. A
 * link of the caller's there is taken as planted; any other is the host's
 * own (~/.cargo -> /data, /var/run -> /run, /dev/stdout). */
bool mount_link_maybe_planted(const char *link, uid_t owner, uid_t self,
                              const struct strv *writable);
const char *mount_op_name(enum mount_op op);

/* The rw entry whose path contains `file` (a canonical path), or NULL: a
 * profile file there could be rewritten by the command it sandboxes. */
const struct mount_entry *mount_plan_writable_holder(const struct mount_plan *plan,
                                                    const char *file);

/* The entry that makes `path` (canonical) invisible inside, or NULL: a
 * fresh tmpfs or an empty hidden directory above it, which has nothing
 * but its own top. A working directory there cannot be entered. */
const struct mount_entry *mount_plan_hiding(const struct mount_plan *plan, const char *path);
/* The deepest entry whose path holds `path` (the last of equals): the
 * one that decides what the command sees there; NULL: none. */
const struct mount_entry *mount_plan_deciding(const struct mount_plan *plan, const char *path);

#endif
