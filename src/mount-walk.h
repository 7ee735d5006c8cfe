/* Walking a host path one component at a time, deciding at every symlink
 * whether to follow it (the resolvers of mount-plan.h use it in the
 * supervisor, before clone(); init uses it to open a planned path again
 * where openat2 is missing). Every step is relative to the descriptor of the
 * directory reached so far, so the walk cannot be redirected between the
 * check of a link and its use. */
#ifndef SBX_MOUNT_WALK_H
#define SBX_MOUNT_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

enum walk_link { WALK_FOLLOW, WALK_STOP, WALK_REFUSE };

/* Asked at every symlink: link is its canonical path, st its lstat. */
typedef enum walk_link (*walk_link_fn)(const char *link, const struct stat *st, void *data);
/* With create: may a missing directory be made in dir (canonical)? */
typedef bool (*walk_create_fn)(const char *dir, void *data);

enum walk_found {
    WALK_OBJECT,     /* path: canonical path of what the path names */
    WALK_LINK,       /* WALK_STOP: path is the link's own path, target what it points at */
    WALK_MISSING,    /* path: the first missing component */
    WALK_REFUSED,    /* WALK_REFUSE: path and target are the link's */
};

/* What a walk with create made, in order: each found again by a
 * descriptor of its directory and its name, and known by its identity
 * (mount-placeholders.h removes them after the run). */
struct walk_made {
    int dirfd;       /* O_PATH on the directory it was made in */
    char *name;      /* malloc'd */
    bool is_dir;
    dev_t dev;
    ino_t ino;
};

struct walk_result {
    enum walk_found found;
    struct walk_made *made;  /* malloc'd; nmade of them */
    size_t nmade;
    char *path;      /* malloc'd */
    char *target;    /* malloc'd, links only */
    int fd;          /* O_PATH: the object or the link itself; -1 otherwise */
    struct stat st;
};

/* Walks the absolute `path` from the host's "/". With create (and
 * may_create saying yes), missing components are made on the way:
 * directories (0700), and the last one a file holding file_content (0644)
 * when that is not NULL. Returns 0 and fills *out, or an errno value. */
int walk_path(const char *path, walk_link_fn on_link, walk_create_fn may_create, void *data,
              bool create, const char *file_content, struct walk_result *out);
void walk_result_free(struct walk_result *r);
void walk_made_free(struct walk_made *made, size_t n);

/* The directories walks have gone through, kept open (O_PATH) so that the
 * next walk below one of them starts there: the protected paths are ~40
 * paths below a few directories of $HOME, each walked from "/" otherwise
 * (issue 30). Valid while the caller holds it, for one plan. */
struct walk_cache {
    size_t n;
    struct { char *canon; int fd; } v[48];
    /* canonical paths a walk without create found missing: the protect
     * list asks for .git, .git/config, .git/hooks... one after another,
     * and each asked the kernel again (issue 30). Forgotten whenever a
     * walk makes something. */
    size_t nmissing;
    char *missing[32];
};
/* walk_path(), starting from the deepest cached directory that begins
 * path, and caching the directories it passes; a walk without create
 * below a path an earlier one found missing is answered from the cache
 * (WALK_MISSING, that path). cache NULL is walk_path(). */
int walk_path_cached(struct walk_cache *cache, const char *path, walk_link_fn on_link,
                     walk_create_fn may_create, void *data, bool create,
                     const char *file_content, struct walk_result *out);
void walk_cache_free(struct walk_cache *c);

#endif
