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

int walk_path(const char *path, walk_link_fn on_link, walk_create_fn may_create, void *data,
              bool create, const char *file_content, struct walk_result *out)
{
    *out = (struct walk_result){ .fd = -1 };
    if (!path || path[0] != '/')
        return EINVAL;
    int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    char *canon = xstrdup("");   /* the directory fd is at; "" is "/" */
    char *todo = xstrdup(path);
    char *cursor = todo;
    int links = 0, err = 0;
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
                close(fd);
                fd = up;
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
            close(fd);
            fd = next;
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
            close(fd);
            fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
            if (fd < 0) {
                err = errno;
                goto done;
            }
            canon[0] = '\0';
        }
    }
    out->found = WALK_OBJECT;
    out->path = xstrdup(canon[0] ? canon : "/");
    if (fstat(fd, &out->st) < 0) {
        err = errno;
        goto done;
    }
    out->fd = fd;
    fd = -1;
done:
    if (fd >= 0)
        close(fd);
    free(canon);
    free(todo);
    if (err)
        walk_result_free(out);
    return err;
}
