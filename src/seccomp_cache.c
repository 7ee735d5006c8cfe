#include "config.h"

#include "seccomp_cache.h"

#include "util.h"

#define HEADER SECCOMP_CACHE_HEADER
#define FILE_MAX SECCOMP_CACHE_FILE_MAX

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

bool seccomp_cache_enabled(void)
{
    const char *v = getenv("SBX_SECCOMP_CACHE");
    return !v || !(strcmp(v, "0") == 0 || strcmp(v, "off") == 0 || strcmp(v, "no") == 0);
}

/* Only the caller may have written what is there. */
static const char *untrusted(const struct stat *st, mode_t type)
{
    if ((st->st_mode & S_IFMT) != type)
        return type == S_IFDIR ? "not a directory" : "not a regular file";
    if (st->st_uid != geteuid())
        return "not the caller's own";
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return "writable by group or others";
    return NULL;
}

int seccomp_cache_open_dir(const char *path, bool create, const char **why)
{
    const char *slash = strrchr(path, '/');
    if (!slash || !slash[1]) {
        *why = "not an absolute path";
        return -1;
    }
    autofree char *parent = slash == path ? xstrdup("/") : xasprintf("%.*s", (int)(slash - path), path);
    const char *name = slash + 1;
    /* The parent ($XDG_CACHE_HOME or ~/.cache) is the caller's to choose
     * and may be a symlink; the directory itself may not. */
    int pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    /* EEXIST: made meanwhile (the protect list's mounts make it too) */
    if (pfd < 0 && errno == ENOENT && create && (mkdir(parent, 0700) == 0 || errno == EEXIST))
        pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0) {
        *why = "its parent directory cannot be opened";
        return -1;
    }
    int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create && (mkdirat(pfd, name, 0700) == 0 || errno == EEXIST))
        fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    close(pfd);
    if (fd < 0) {
        *why = e == ELOOP || e == ENOTDIR ? "a symbolic link or not a directory"
               : e == ENOENT              ? "missing"
                                          : "cannot be opened";
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || (*why = untrusted(&st, S_IFDIR))) {
        if (!*why)
            *why = "cannot be examined";
        close(fd);
        return -1;
    }
    return fd;
}

/* The whole file, read once through one descriptor: at most FILE_MAX
 * bytes, and no more than fstat said (a file growing while read is
 * refused). */
static unsigned char *read_entry(int fd, size_t *n, const char **why)
{
    struct stat st;
    if (fstat(fd, &st) < 0) {
        *why = "cannot be examined";
        return NULL;
    }
    if ((*why = untrusted(&st, S_IFREG)))
        return NULL;
    if (st.st_size < HEADER || (unsigned long long)st.st_size > FILE_MAX) {
        *why = "of a size no entry has";
        return NULL;
    }
    size_t size = (size_t)st.st_size, got = 0;
    unsigned char *buf = xmalloc(size + 1);
    while (got <= size) {
        ssize_t r = read(fd, buf + got, size + 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got != size) {
        *why = "changed while read";
        free(buf);
        return NULL;
    }
    *n = size;
    return buf;
}

bool seccomp_cache_load(int dirfd, const struct seccomp_cache_key *k, struct sock_fprog *out,
                        const char **why)
{
    char name[64];
    seccomp_cache_name(k, name, sizeof name);
    /* O_NONBLOCK: a FIFO planted there must not hang the run */
    autoclose int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *why = errno == ENOENT ? "no entry" : errno == ELOOP ? "a symbolic link" : "cannot be opened";
        return false;
    }
    size_t n = 0;
    autofree unsigned char *buf = read_entry(fd, &n, why);
    if (!buf)
        return false;
    if (!seccomp_cache_decode(buf, n, k, out)) {
        *why = "does not verify";
        return false;
    }
    return true;
}

bool seccomp_cache_store(int dirfd, const struct seccomp_cache_key *k, const struct sock_fprog *prog,
                         const char **why)
{
    char name[64], tmp[96];
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r)
        r = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
    seccomp_cache_name(k, name, sizeof name);
    snprintf(tmp, sizeof tmp, ".%s.%d.%016llx", name, (int)getpid(), (unsigned long long)r);
    size_t len = 0;
    autofree unsigned char *file = seccomp_cache_encode(k, prog, &len);
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        *why = "cannot create a file there";
        return false;
    }
    bool ok = write_all(fd, file, len);
    ok = close(fd) == 0 && ok;
    /* rename() replaces whatever has the name (a symlink too, never its
     * target): a reader sees the old entry or the new one */
    if (!ok || renameat(dirfd, tmp, dirfd, name) < 0) {
        *why = ok ? "cannot rename the new entry into place" : "cannot write the new entry";
        unlinkat(dirfd, tmp, 0);
        return false;
    }
    return true;
}
