#include "config.h"

#include "seccomp_cache.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file: MAGIC, key length (u32), instruction count (u32), checksum
 * (u64, of everything before it and after it), the key, the program. In
 * the host's byte order: the key holds the architecture anyway. */
static const char magic[8] = "SBXSCF1\n";
enum { HEADER = 8 + 4 + 4 + 8 };
#define FILE_MAX (HEADER + SECCOMP_CACHE_KEY_MAX + BPF_MAXINSNS * sizeof(struct sock_filter))

void seccomp_cache_key_add(struct seccomp_cache_key *k, const void *p, size_t n)
{
    if (k->too_long || n > SECCOMP_CACHE_KEY_MAX - k->len) {
        k->too_long = true;
        return;
    }
    if (k->len + n > k->cap) {
        k->cap = (k->len + n) * 2 > 256 ? (k->len + n) * 2 : 256;
        k->bytes = xrealloc(k->bytes, k->cap);
    }
    memcpy(k->bytes + k->len, p, n);
    k->len += n;
}

void seccomp_cache_key_free(struct seccomp_cache_key *k)
{
    free(k->bytes);
    memset(k, 0, sizeof *k);
}

uint64_t seccomp_cache_hash(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *b = p;
    uint64_t h = seed ? seed : 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t checksum(const unsigned char *file, size_t n)
{
    uint64_t h = seccomp_cache_hash(file, 16, 0);
    return seccomp_cache_hash(file + HEADER, n - HEADER, h);
}

unsigned char *seccomp_cache_encode(const struct seccomp_cache_key *k, const struct sock_fprog *prog,
                                    size_t *len)
{
    size_t code = (size_t)prog->len * sizeof(struct sock_filter);
    *len = HEADER + k->len + code;
    unsigned char *f = xmalloc(*len);
    uint32_t klen = (uint32_t)k->len, plen = prog->len;
    memcpy(f, magic, 8);
    memcpy(f + 8, &klen, 4);
    memcpy(f + 12, &plen, 4);
    memcpy(f + HEADER, k->bytes, k->len);
    memcpy(f + HEADER + k->len, prog->filter, code);
    uint64_t sum = checksum(f, *len);
    memcpy(f + 16, &sum, 8);
    return f;
}

bool seccomp_cache_decode(const unsigned char *buf, size_t n, const struct seccomp_cache_key *k,
                          struct sock_fprog *out)
{
    uint32_t klen, plen;
    uint64_t sum;
    if (n < HEADER || n > FILE_MAX || memcmp(buf, magic, 8))
        return false;
    memcpy(&klen, buf + 8, 4);
    memcpy(&plen, buf + 12, 4);
    memcpy(&sum, buf + 16, 8);
    /* the sizes first, so that nothing below reads past the buffer */
    if (klen != k->len || plen == 0 || plen > BPF_MAXINSNS ||
        n != HEADER + (size_t)klen + (size_t)plen * sizeof(struct sock_filter))
        return false;
    if (memcmp(buf + HEADER, k->bytes, klen) || checksum(buf, n) != sum)
        return false;
    out->len = (unsigned short)plen;
    out->filter = xmalloc((size_t)plen * sizeof(struct sock_filter));
    memcpy(out->filter, buf + HEADER + klen, (size_t)plen * sizeof(struct sock_filter));
    return true;
}

void seccomp_cache_name(const struct seccomp_cache_key *k, char *buf, size_t size)
{
    snprintf(buf, size, "filter-%016llx", (unsigned long long)seccomp_cache_hash(k->bytes, k->len, 0));
}

char *seccomp_cache_dir(const char *home, const char *xdg_cache_home)
{
    if (xdg_cache_home && xdg_cache_home[0] == '/')
        return xasprintf("%s/sbx", xdg_cache_home);
    if (!home || home[0] != '/')
        return NULL;
    return xasprintf("%s/.cache/sbx", strcmp(home, "/") ? home : "");
}

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
