#include "config.h"

#include "refusals.h"

#include "credential_stores.h"
#include "fix.h"
#include "json_bytes.h"
#include "ledger.h"
#include "log.h"
#include "protect.h"
#include "seccomp_observe.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef ST_RDONLY
#define ST_RDONLY 1
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

struct guarded {
    char *path;
    const char *why;
};

struct refusals {
    struct refusal rows[REFUSALS_MAX_ROWS];
    size_t nrows;
    uint64_t total, unlisted, observed;
    char *home, *project;
    struct guarded *guarded;   /* protected paths and credential stores */
    size_t nguarded;
};

static char *dup_or_null(const char *s) { return s && s[0] == '/' ? xstrdup(s) : NULL; }

static void guard(struct refusals *r, char *path, const char *why)
{
    r->guarded = xrealloc(r->guarded, (r->nguarded + 1) * sizeof *r->guarded);
    r->guarded[r->nguarded++] = (struct guarded){ path, why };
}

struct refusals *refusals_new(const char *home, const char *project, const char *path_env)
{
    struct refusals *r = xcalloc(1, sizeof *r);
    r->home = dup_or_null(home);
    r->project = dup_or_null(project);
    struct protect_list list = { 0 };
    struct protect_inputs in = { .home = r->home, .path_env = path_env };
    protect_list_build(&list, &in);
    for (size_t i = 0; i < list.n; i++)
        guard(r, xstrdup(list.v[i].path), list.v[i].why);
    protect_list_free(&list);
    if (r->project) {
        size_t n;
        const struct protected_name *names = protect_project_names(&n);
        for (size_t i = 0; i < n; i++)
            guard(r, xasprintf("%s%s", r->project, names[i].name), names[i].why);
    }
    for (size_t i = 0; i < credential_stores_n; i++) {
        const struct credential_store *c = &credential_stores[i];
        if (c->path[0] == '/')
            guard(r, xstrdup(c->path), c->label);
        else if (r->home)
            guard(r, xasprintf("%s/%s", r->home, c->path), c->label);
    }
    return r;
}

void refusals_free(struct refusals *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nguarded; i++)
        free(r->guarded[i].path);
    free(r->guarded);
    free(r->home);
    free(r->project);
    free(r);
}

uint64_t refusals_total(const struct refusals *r) { return r ? r->total : 0; }
uint64_t refusals_observed(const struct refusals *r) { return r ? r->observed : 0; }

size_t refusals_rows(const struct refusals *r, const struct refusal **rows)
{
    *rows = r ? r->rows : NULL;
    return r ? r->nrows : 0;
}

/* ---- Before the answer -------------------------------------------------- */

/* A NUL-terminated string of at most len - 1 bytes at addr in tid's
 * memory, read page by page: a string that ends just before an unmapped
 * page is read whole, and one with no NUL in len bytes is refused (the
 * kernel answers ENAMETOOLONG for it). */
static bool read_string(pid_t tid, uint64_t addr, char *out, size_t len)
{
    size_t got = 0;
    while (addr && got + 1 < len) {
        size_t page = 4096 - (size_t)((addr + got) % 4096);
        size_t want = page < len - 1 - got ? page : len - 1 - got;
        struct iovec local = { .iov_base = out + got, .iov_len = want };
        struct iovec remote = { .iov_base = (void *)(uintptr_t)(addr + got), .iov_len = want };
        ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
        if (n <= 0)
            return false;
        char *nul = memchr(out + got, '\0', (size_t)n);
        if (nul)
            return true;
        got += (size_t)n;
    }
    return false;
}

/* The directory a relative path starts from, as the caller's mount
 * namespace names it: /proc/TID/cwd or /proc/TID/fd/N. readlink() of
 * those prints the path from the caller's root; a deleted directory, an
 * anonymous file or one outside the caller's root gives nothing usable. */
static bool base_dir(pid_t tid, int dirfd, char *out, size_t len)
{
    char link[64];
    if (dirfd == AT_FDCWD)
        snprintf(link, sizeof link, "/proc/%d/cwd", (int)tid);
    else if (dirfd >= 0)
        snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)tid, dirfd);
    else
        return false;
    ssize_t n = readlink(link, out, len - 1);
    if (n <= 0 || out[0] != '/')
        return false;
    out[n] = '\0';
    return !strstr(out, " (deleted)");
}

static bool read_path(pid_t tid, const uint64_t args[6], int dirfd_arg, int path_arg, char *out,
                      size_t len)
{
    char rel[4096];
    if (path_arg < 0 || !read_string(tid, args[path_arg], rel, sizeof rel) || !rel[0])
        return false;
    if (rel[0] == '/') {
        snprintf(out, len, "%s", rel);
        return true;
    }
    char base[4096];
    int dirfd = dirfd_arg < 0 ? AT_FDCWD : (int)(int32_t)args[dirfd_arg];
    if (!base_dir(tid, dirfd, base, sizeof base))
        return false;
    int n = snprintf(out, len, "%s/%s", strcmp(base, "/") ? base : "", rel);
    return n > 0 && (size_t)n < len;
}

bool refusals_probe(pid_t tid, const char *name, const uint64_t args[6], struct refusal_probe *p)
{
    memset(p, 0, sizeof *p);
    p->root_fd = p->ns_fd = -1;
    p->call = seccomp_observe_call(name);
    if (!p->call)
        return false;
    snprintf(p->name, sizeof p->name, "%s", name);
    if (p->call->op == OBSERVE_OPEN)
        p->flags = p->call->flags < 0 ? (uint64_t)(O_CREAT | O_WRONLY | O_TRUNC)
                                      : (uint32_t)args[p->call->flags];
    bool one = read_path(tid, args, p->call->dirfd, p->call->path, p->path[0], sizeof p->path[0]);
    bool two = p->call->path2 >= 0 &&
               read_path(tid, args, p->call->dirfd2, p->call->path2, p->path[1], sizeof p->path[1]);
    if (!one && !two)
        return false;
    char at[64];
    snprintf(at, sizeof at, "/proc/%d/ns/mnt", (int)tid);
    p->ns_fd = open(at, O_RDONLY | O_CLOEXEC);
    if (p->ns_fd < 0)
        return false;
    snprintf(at, sizeof at, "/proc/%d/root", (int)tid);
    p->root_fd = open(at, O_PATH | O_CLOEXEC | O_DIRECTORY);
    if (p->root_fd < 0) {
        close(p->ns_fd);
        p->ns_fd = -1;
    }
    return p->root_fd >= 0;
}

void refusals_probe_close(struct refusal_probe *p)
{
    if (p->root_fd >= 0)
        close(p->root_fd);
    if (p->ns_fd >= 0)
        close(p->ns_fd);
    p->root_fd = p->ns_fd = -1;
}

/* ---- After the answer --------------------------------------------------- */

/* PATH (absolute, inside the caller's root) as an O_PATH descriptor,
 * resolved as the caller would but never out of its root: absolute
 * symlinks and ".." stay below root_fd, /proc's magic links are refused. */
static int resolve(int root_fd, const char *path, bool follow)
{
    struct open_how how = {
        .flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    while (*path == '/')
        path++;
    return (int)syscall(SYS_openat2, root_fd, *path ? path : ".", &how, sizeof how);
}

static bool read_only_mount(int fd)
{
    struct statfs st;
    return fstatfs(fd, &st) == 0 && (st.f_flags & ST_RDONLY);
}

struct node {
    int fd;
    struct statx sx;
};

static bool node_open(int root_fd, const char *path, bool follow, struct node *n)
{
    n->fd = resolve(root_fd, path, follow);
    if (n->fd < 0)
        return false;
    if (syscall(SYS_statx, n->fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_MNT_ID, &n->sx) < 0) {
        close(n->fd);
        n->fd = -1;
        return false;
    }
    return true;
}

static void node_close(struct node *n)
{
    if (n->fd >= 0)
        close(n->fd);
    n->fd = -1;
}

static bool mount_root(const struct node *n)
{
    return (n->sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
           (n->sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

/* The parent of PATH (lexically: the kernel resolves the last component
 * in it), into out. */
static void parent_of(const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s", path);
    size_t n = strlen(out);
    while (n > 1 && out[n - 1] == '/')
        out[--n] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash || slash == out)
        snprintf(out, len, "/");
    else
        *slash = '\0';
}

/* The path of an O_PATH descriptor as the caller's mount namespace names
 * it (readlink of /proc/self/fd/N prints it from that namespace's root,
 * which ours does not reach): canonical, every symlink resolved inside
 * the sandbox. */
static bool fd_path(int fd, char *out, size_t len)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, len - 1);
    if (n <= 0 || out[0] != '/' || (size_t)n >= len - 1)
        return false;
    out[n] = '\0';
    return true;
}

/* What a refusal names: the refused path, canonical, and the directory it
 * is in (or is), which an rw rule can name. */
static void name_refusal(const struct node *target, const struct node *dir, const char *path,
                         struct refusal_probe *p)
{
    char canon[4096], where[4096];
    bool target_is_dir = target->fd >= 0 && S_ISDIR(target->sx.stx_mode);
    if (target->fd >= 0 && fd_path(target->fd, canon, sizeof canon)) {
        if (target_is_dir)
            snprintf(where, sizeof where, "%s", canon);
        else
            parent_of(canon, where, sizeof where);
    } else if (dir->fd >= 0 && fd_path(dir->fd, where, sizeof where)) {
        const char *last = strrchr(path, '/');
        int n = snprintf(canon, sizeof canon, "%s/%s", strcmp(where, "/") ? where : "",
                         last ? last + 1 : path);
        if (n < 0 || (size_t)n >= sizeof canon)
            snprintf(canon, sizeof canon, "%s", path);
    } else {
        snprintf(canon, sizeof canon, "%s", path);
        parent_of(path, where, sizeof where);
    }
    snprintf(p->named, sizeof p->named, "%s", canon);
    /* too long to name in a line: no directory */
    size_t n = strlen(where);
    if (n >= sizeof p->existing)
        n = 0;
    memcpy(p->existing, where, n);
    p->existing[n] = '\0';
}

/* Would the kernel refuse this path's change: EROFS, EBUSY, or 0. */
static int judge(int root_fd, struct refusal_probe *p, const char *path, bool second)
{
    char parent[4096];
    parent_of(path, parent, sizeof parent);
    struct node target = { .fd = -1 }, dir = { .fd = -1 };
    int err = 0;
    switch (p->call->op) {
    case OBSERVE_OPEN: {
        bool writes = p->flags & (O_WRONLY | O_RDWR | O_TRUNC);
        bool follow = !(p->flags & O_NOFOLLOW) && !((p->flags & O_CREAT) && (p->flags & O_EXCL));
        if ((p->flags & 020000000) == 020000000) {  /* O_TMPFILE: in the directory named */
            if (node_open(root_fd, path, true, &dir) && read_only_mount(dir.fd))
                err = EROFS;
        } else if (node_open(root_fd, path, follow, &target)) {
            /* devices, fifos and sockets are written on a read-only mount */
            if (writes && S_ISREG(target.sx.stx_mode) && read_only_mount(target.fd))
                err = EROFS;
        } else if (errno == ENOENT && (p->flags & O_CREAT) && node_open(root_fd, parent, true, &dir) &&
                   read_only_mount(dir.fd)) {
            err = EROFS;
        }
        break;
    }
    case OBSERVE_CREATE:
        /* an existing name is EEXIST before the mount is asked */
        if (!node_open(root_fd, path, false, &target) && errno == ENOENT &&
            node_open(root_fd, parent, true, &dir) && read_only_mount(dir.fd))
            err = EROFS;
        break;
    case OBSERVE_CHANGE:
        if (node_open(root_fd, path, true, &target) && read_only_mount(target.fd))
            err = EROFS;
        break;
    case OBSERVE_LINK:
        if (!second)
            break;  /* the new name is what is written */
        if (!node_open(root_fd, path, false, &target) && errno == ENOENT &&
            node_open(root_fd, parent, true, &dir) && read_only_mount(dir.fd))
            err = EROFS;
        break;
    case OBSERVE_REMOVE:
    case OBSERVE_RENAME:
        if (!node_open(root_fd, path, false, &target)) {
            /* a rename's missing destination is created in its directory */
            if (second && errno == ENOENT && node_open(root_fd, parent, true, &dir) &&
                read_only_mount(dir.fd))
                err = EROFS;
            break;
        }
        if (node_open(root_fd, parent, true, &dir) && read_only_mount(dir.fd))
            err = EROFS;
        else if (mount_root(&target))
            err = EBUSY;  /* a bind mount (a protected file) cannot be replaced or removed */
        break;
    }
    if (err) {
        /* the directory a missing target would be made in */
        if (target.fd < 0 && dir.fd < 0)
            node_open(root_fd, parent, true, &dir);
        name_refusal(&target, &dir, path, p);
    }
    node_close(&target);
    node_close(&dir);
    return err;
}

/* For a rename, both names must be on one mount, or it is EXDEV. */
static bool same_mount(int root_fd, const char *a, const char *b)
{
    char pa[4096], pb[4096];
    parent_of(a, pa, sizeof pa);
    parent_of(b, pb, sizeof pb);
    struct node x = { .fd = -1 }, y = { .fd = -1 };
    bool same = node_open(root_fd, pa, true, &x) && node_open(root_fd, pb, true, &y) &&
                x.sx.stx_mnt_id == y.sx.stx_mnt_id;
    node_close(&x);
    node_close(&y);
    return same;
}

static void printable(char *dst, size_t len, const char *src, bool *cut)
{
    size_t j = 0, n = strlen(src);
    for (size_t i = 0; i < n && j + 1 < len; i++)
        dst[j++] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
    dst[j] = '\0';
    *cut = j < n;
}

static bool within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

void refusals_record(struct refusals *r, const struct refusal_probe *p, const struct ledger_caller *who)
{
    const char *path = p->named, *call = p->name;
    int err = p->errnum;
    r->total++;
    char shown[512];
    bool cut;
    printable(shown, sizeof shown, path, &cut);
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].errnum == err && !strcmp(r->rows[i].path, shown)) {
            r->rows[i].count++;
            return;
        }
    if (r->nrows == REFUSALS_MAX_ROWS) {
        r->unlisted++;
        return;
    }
    struct refusal *row = &r->rows[r->nrows++];
    memset(row, 0, sizeof *row);
    snprintf(row->call, sizeof row->call, "%s", call);
    memcpy(row->path, shown, sizeof row->path);
    row->path_cut = cut;
    row->errnum = err;
    row->count = 1;
    row->pid = who ? who->tgid : 0;
    snprintf(row->comm, sizeof row->comm, "%s", who ? who->comm : "?");
    snprintf(row->existing, sizeof row->existing, "%s", p->existing);
    row->protected_path = p->protected_path;
    row->protected_why = p->protected_why;
}

/* A test hook: SBX_TEST_JUDGE_DELAY_MS=N waits N ms before each judge,
 * as a slow supervisor would (ASan), so that the command can be gone by
 * then (tests/integration/run-refused-writes.sh). It grants nothing: it
 * only delays a report. Read once. */
static void judge_delay(void)
{
    static int ms = -1;
    if (ms < 0) {
        const char *v = getenv("SBX_TEST_JUDGE_DELAY_MS");
        ms = v ? atoi(v) : 0;
        if (ms < 0 || ms > 10000)
            ms = 0;
    }
    if (ms)
        usleep((useconds_t)ms * 1000);
}

bool refusals_judge(struct refusals *r, struct refusal_probe *p)
{
    p->errnum = 0;
    if (p->root_fd < 0)
        return false;
    judge_delay();
    __atomic_add_fetch(&r->observed, 1, __ATOMIC_RELAXED);
    bool rename = p->call->op == OBSERVE_RENAME, link = p->call->op == OBSERVE_LINK;
    if ((rename || link) && (!p->path[0][0] || !p->path[1][0] ||
                             !same_mount(p->root_fd, p->path[0], p->path[1])))
        return false;  /* EXDEV (or unreadable): not a mount's refusal */
    for (int i = 0; i < 2 && !p->errnum; i++) {
        if (!p->path[i][0])
            continue;
        p->errnum = judge(p->root_fd, p, p->path[i], i == 1);
        p->which = i;  /* the kernel refuses the call once */
    }
    if (!p->errnum)
        return false;
    const char *path = p->named;
    p->protected_path = p->protected_why = NULL;
    /* the innermost: .git/config rather than a .git file's entry */
    for (size_t i = 0; i < r->nguarded; i++)
        if (within(path, r->guarded[i].path) &&
            (!p->protected_path || strlen(r->guarded[i].path) > strlen(p->protected_path))) {
            p->protected_path = r->guarded[i].path;
            p->protected_why = r->guarded[i].why;
        }
    return true;
}

void refusals_fix(const struct refusals *r, const struct refusal *row, struct fix *f)
{
    fix_for_write(row->path, row->existing, row->errnum, r ? r->home : NULL,
                  r ? r->project : NULL, row->protected_path, row->protected_why, f);
}

static const char *why_refused(int err)
{
    return err == EBUSY ? "a protected file's mount point" : "read-only mount";
}

void refusals_print_summary(const struct refusals *r, FILE *out)
{
    if (!r || !r->total)
        return;
    char seen[REFUSALS_SUMMARY_ROWS][sizeof ((struct fix *)0)->line];
    size_t nseen = 0;
    for (size_t i = 0; i < r->nrows && i < REFUSALS_SUMMARY_ROWS; i++) {
        const struct refusal *row = &r->rows[i];
        char comm[16];
        ledger_printable_comm(row->comm, comm);
        if (i == 0)
            fprintf(out, "%s%llu write%s refused: ", log_prefix, (unsigned long long)r->total,
                    r->total == 1 ? "" : "s");
        else
            fprintf(out, "%s  ", log_prefix);
        fprintf(out, "%s %s%s (%s, %s) x%llu [pid %d \"%s\"]\n", row->call, row->path,
                row->path_cut ? "..." : "", errno_name(row->errnum), why_refused(row->errnum),
                (unsigned long long)row->count, (int)row->pid, comm);
    }
    if (r->nrows > REFUSALS_SUMMARY_ROWS || r->unlisted)
        fprintf(out, "%s  and more refused writes (see --report)\n", log_prefix);
    for (size_t i = 0; i < r->nrows && i < REFUSALS_SUMMARY_ROWS; i++) {
        struct fix f;
        refusals_fix(r, &r->rows[i], &f);
        bool dup = false;
        for (size_t k = 0; k < nseen && !dup; k++)
            dup = !strcmp(seen[k], f.line);
        if (dup)
            continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", f.line);
        char line[700];
        fix_format(&f, line, sizeof line);
        fprintf(out, "%sfix: %s\n", log_prefix, line);
    }
    fflush(out);
}

struct json_object *refusals_to_json(const struct refusals *r)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "observed", json_object_new_boolean(r != NULL));
    json_object_object_add(o, "calls", json_object_new_int64(r ? (int64_t)r->observed : 0));
    json_object_object_add(o, "total", json_object_new_int64(r ? (int64_t)r->total : 0));
    json_object_object_add(o, "unlisted", json_object_new_int64(r ? (int64_t)r->unlisted : 0));
    struct json_object *rows = json_object_new_array();
    for (size_t i = 0; r && i < r->nrows; i++) {
        const struct refusal *row = &r->rows[i];
        struct json_object *w = json_object_new_object();
        json_object_object_add(w, "syscall", json_object_new_string(row->call));
        json_object_object_add(w, "path", json_object_new_string(row->path));
        json_object_object_add(w, "path_cut", json_object_new_boolean(row->path_cut));
        json_object_object_add(w, "errno", json_object_new_string(errno_name(row->errnum)));
        json_object_object_add(w, "count", json_object_new_int64((int64_t)row->count));
        json_object_object_add(w, "pid", json_object_new_int(row->pid));
        json_object_object_add(w, "comm", json_bytes_new(row->comm, strnlen(row->comm, 16)));
        struct fix f;
        refusals_fix(r, row, &f);
        json_object_object_add(w, "fix", fix_to_json(&f));
        json_object_array_add(rows, w);
    }
    json_object_object_add(o, "writes", rows);
    return o;
}
