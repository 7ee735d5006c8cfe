#include "config.h"

#include "mount-walk.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* As the kernel's own limit on nested links (MAXSYMLINKS). */
#define WALK_MAX_LINKS 40

void walk_made_free(struct walk_made *made, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (made[i].dirfd >= 0)
            close(made[i].dirfd);
        free(made[i].name);
    }
    free(made);
}

void walk_result_free(struct walk_result *r)
{
    walk_made_free(r->made, r->nmade);
    r->made = NULL;
    r->nmade = 0;
    free(r->path);
    free(r->target);
    if (r->fd >= 0)
        close(r->fd);
    r->path = r->target = NULL;
    r->fd = -1;
}

/* canon + "/" + name; canon "" is the root. */
static char *child(const char *canon, const char *name)
{
    return xasprintf("%s/%s", canon, name);
}

/* O_EXCL and O_NOFOLLOW: a file or link that appeared meanwhile is never
 * written through. *made: whether this call made it. */
static int make_file(int dirfd, const char *name, const char *content, bool *made)
{
    int f = openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (f < 0)
        return errno == EEXIST ? 0 : errno;
    *made = true;
    int err = write_all(f, content, strlen(content)) ? 0 : errno;
    close(f);
    return err;
}

static void forget_missing(struct walk_cache *c)
{
    for (size_t i = 0; c && i < c->nmissing; i++)
        free(c->missing[i]);
    if (c)
        c->nmissing = 0;
}

/* The missing path an earlier walk found that begins path, or NULL. A
 * recorded path is canonical (its parent reached through no symlink,
 * as a cached directory's canon), so a textual prefix names the same
 * components, and a walk of path would stop there just the same: that
 * answer is one lookup old, as it would be a moment after any walk. */
static const char *known_missing(const struct walk_cache *c, const char *path)
{
    for (size_t i = 0; c && i < c->nmissing; i++) {
        size_t len = strlen(c->missing[i]);
        if (!strncmp(path, c->missing[i], len) && (path[len] == '/' || path[len] == '\0'))
            return c->missing[i];
    }
    return NULL;
}

static void remember_missing(struct walk_cache *c, const char *path)
{
    if (c && c->nmissing < sizeof c->missing / sizeof c->missing[0])
        c->missing[c->nmissing++] = xstrdup(path);
}

void walk_cache_free(struct walk_cache *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].canon);
        close(c->v[i].fd);
    }
    c->n = 0;
    forget_missing(c);
}

static bool cached_fd(const struct walk_cache *c, int fd)
{
    for (size_t i = 0; c && i < c->n; i++)
        if (c->v[i].fd == fd)
            return true;
    return false;
}

/* Leaving the directory fd (canonical canon) for one below it: kept for
 * the next walk, or closed. Only directories reached through no symlink
 * get here (every component opened O_NOFOLLOW, a link spliced away), so
 * a cached canon is what a fresh walk of it would reach; a swap after
 * this point is what init's reopen refuses (mount_reopen_planned()), as
 * for any path resolved here. */
static void leave_dir(struct walk_cache *c, int fd, const char *canon)
{
    if (cached_fd(c, fd))
        return;
    if (c && c->n < sizeof c->v / sizeof c->v[0]) {
        c->v[c->n].canon = xstrdup(canon);
        c->v[c->n].fd = fd;
        c->n++;
        return;
    }
    close(fd);
}

/* The deepest cached directory whose canonical path starts path (index),
 * or -1. A cached canon holds no ".", ".." or "//", so a textual prefix
 * names the same components. */
static int cached_prefix(const struct walk_cache *c, const char *path)
{
    int best = -1;
    size_t best_len = 0;
    for (size_t i = 0; c && i < c->n; i++) {
        size_t len = strlen(c->v[i].canon);
        if ((best < 0 || len > best_len) && !strncmp(path, c->v[i].canon, len) &&
            (path[len] == '/' || path[len] == '\0')) {
            best = (int)i;
            best_len = len;
        }
    }
    return best;
}

static int open_root(struct walk_cache *c)
{
    int i = c ? cached_prefix(c, "/") : -1;
    /* only the entry for "/" itself ("") */
    if (i >= 0 && !c->v[i].canon[0])
        return c->v[i].fd;
    return open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int walk_path(const char *path, walk_link_fn on_link, walk_create_fn may_create, void *data,
              bool create, const char *file_content, struct walk_result *out)
{
    return walk_path_cached(NULL, path, on_link, may_create, data, create, file_content, out);
}

int walk_path_cached(struct walk_cache *cache, const char *path, walk_link_fn on_link,
                     walk_create_fn may_create, void *data, bool create,
                     const char *file_content, struct walk_result *out)
{
    *out = (struct walk_result){ .fd = -1 };
    if (!path || path[0] != '/')
        return EINVAL;
    const char *gone = create ? NULL : known_missing(cache, path);
    if (gone) {
        out->found = WALK_MISSING;
        out->path = xstrdup(gone);
        return 0;
    }
    if (create)
        forget_missing(cache);  /* what it makes may be one of them */
    int start = cache ? cached_prefix(cache, path) : -1;
    int fd = start >= 0 ? cache->v[start].fd : open_root(cache);
    if (fd < 0)
        return errno;
    /* the directory fd is at; "" is "/" */
    char *canon = xstrdup(start >= 0 ? cache->v[start].canon : "");
    char *todo = xstrdup(path + strlen(canon));
    char *cursor = todo;
    int links = 0, err = 0;
    struct stat fd_st;       /* fd's, once a component moved it */
    bool have_fd_st = false;
    bool just_made = false;
    for (;;) {
        while (*cursor == '/')
            cursor++;
        if (!*cursor)
            break;
        char *end = strchr(cursor, '/');
        size_t len = end ? (size_t)(end - cursor) : strlen(cursor);
        autofree char *name = xstrndup(cursor, len);
        cursor += len;
        if (!strcmp(name, "."))
            continue;
        if (!strcmp(name, "..")) {
            char *slash = strrchr(canon, '/');
            if (slash) {
                int up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (up < 0) {
                    err = errno;
                    goto done;
                }
                if (!cached_fd(cache, fd))
                    close(fd);
                fd = up;
                have_fd_st = false;
                *slash = '\0';
            }
            continue;
        }
        int next = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT && create && may_create && may_create(canon[0] ? canon : "/", data)) {
            bool last = !*cursor || !cursor[strspn(cursor, "/")];
            if (last && file_content)
                err = make_file(fd, name, file_content, &just_made);
            else if (mkdirat(fd, name, 0700) == 0)
                just_made = true;
            else if (errno != EEXIST)
                err = errno;
            if (err)
                goto done;
            next = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        }
        if (next < 0) {
            err = errno;
            if (err == ENOENT) {
                out->found = WALK_MISSING;
                out->path = child(canon, name);
                err = 0;
                if (!create)
                    remember_missing(cache, out->path);
            }
            goto done;
        }
        struct stat st;
        if (fstat(next, &st) < 0) {
            err = errno;
            close(next);
            goto done;
        }
        if (just_made && !S_ISLNK(st.st_mode)) {
            out->made = xrealloc(out->made, (out->nmade + 1) * sizeof *out->made);
            out->made[out->nmade++] = (struct walk_made){
                .dirfd = fcntl(fd, F_DUPFD_CLOEXEC, 0), .name = xstrdup(name),
                .is_dir = S_ISDIR(st.st_mode), .dev = st.st_dev, .ino = st.st_ino,
            };
        }
        just_made = false;
        if (!S_ISLNK(st.st_mode)) {
            if (*cursor && !S_ISDIR(st.st_mode)) {
                close(next);
                err = ENOTDIR;
                goto done;
            }
            leave_dir(cache, fd, canon);
            fd = next;
            fd_st = st;      /* what the end reports: no second fstat */
            have_fd_st = true;
            char *c = child(canon, name);
            free(canon);
            canon = c;
            continue;
        }
        char target[PATH_MAX];
        ssize_t n = readlinkat(next, "", target, sizeof target - 1);
        if (n < 0) {
            err = errno;
            close(next);
            goto done;
        }
        target[n] = '\0';
        autofree char *link = child(canon, name);
        enum walk_link verdict = on_link ? on_link(link, &st, data) : WALK_FOLLOW;
        if (verdict != WALK_FOLLOW) {
            out->found = verdict == WALK_STOP ? WALK_LINK : WALK_REFUSED;
            out->path = xstrdup(link);
            out->target = xstrdup(target);
            out->st = st;
            if (verdict == WALK_STOP) {
                out->fd = next;
                next = -1;
            }
            if (next >= 0)
                close(next);
            goto done;
        }
        close(next);
        if (++links > WALK_MAX_LINKS) {
            err = ELOOP;
            goto done;
        }
        /* Splice the target in front of what is left; an absolute target
         * starts again from the root. */
        char *rest = xasprintf("%s%s%s", target, *cursor ? "/" : "", cursor);
        free(todo);
        todo = cursor = rest;
        if (target[0] == '/') {
            if (!cached_fd(cache, fd))
                close(fd);
            fd = open_root(cache);
            have_fd_st = false;
            if (fd < 0) {
                err = errno;
                goto done;
            }
            canon[0] = '\0';
        }
    }
    out->found = WALK_OBJECT;
    out->path = xstrdup(canon[0] ? canon : "/");
    if (have_fd_st)
        out->st = fd_st;
    else if (fstat(fd, &out->st) < 0) {
        err = errno;
        goto done;
    }
    /* the caller closes what it gets: never a cached descriptor */
    if (cached_fd(cache, fd)) {
        out->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (out->fd < 0) {
            err = errno;
            goto done;
        }
    } else {
        out->fd = fd;
    }
    fd = -1;
done:
    /* fd is the directory the walk stopped in (a missing name, a link) */
    if (fd >= 0 && !err)
        leave_dir(cache, fd, canon);
    else if (fd >= 0 && !cached_fd(cache, fd))
        close(fd);
    free(canon);
    free(todo);
    if (err)
        walk_result_free(out);
    return err;
}
