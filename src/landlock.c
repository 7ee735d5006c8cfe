#include "config.h"

#include "landlock.h"

#include "caps.h"
#include "cli.h"
#include "egress.h"
#include "log.h"
#include "lookup.h"
#include "mount-plan.h"
#include "plan.h"
#include "protect.h"
#include "util.h"

#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/landlock.h>

/* Debian's linux-libc-dev may predate the ABI this kernel has: the
 * constants below are the kernel's uapi values (include/uapi/linux/
 * landlock.h), fixed once released. The attribute struct is our own,
 * with the fields of ABI 6, and its size tells the kernel which fields
 * we know (it accepts a smaller one from older callers). */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#define SBX_LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define SBX_LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define SBX_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SBX_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#define SBX_LANDLOCK_RULE_NET_PORT 2

struct sbx_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct sbx_landlock_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

#define FS_READ_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE)
#define FS_READ (FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
/* the rights the kernel accepts on a rule whose object is not a directory */
#define FS_FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
                        LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
                        LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define FS_DEVICE (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
                   LANDLOCK_ACCESS_FS_IOCTL_DEV | LANDLOCK_ACCESS_FS_READ_DIR)

int landlock_abi_version(void)
{
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return v < 0 ? -1 : (int)v;
}

/* The filesystem rights each ABI handles: an ABI 1 kernel rejects a
 * ruleset naming a right it does not know. */
static uint64_t fs_rights_of_abi(int abi)
{
    uint64_t r = (1ULL << 13) - 1; /* ABI 1: EXECUTE .. MAKE_SYM */
    if (abi >= 2)
        r |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        r |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5)
        r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return r;
}

/* `sbx profile show --tier landlock`: what the tier would do, collected
 * here instead of said, and nothing made (landlock_plan_describe()). */
static struct strv *dry_said;

static void tell(bool warning, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tell(bool warning, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = xvasprintf(fmt, ap);
    va_end(ap);
    if (dry_said) {
        strv_push(dry_said, what);
        return;
    }
    if (warning)
        warn("%s", what);
    else
        notice("%s", what);
    free(what);
}

/* What the checks below found: refusals stop the run, notes are printed. */
struct findings {
    struct strv refused;
    const struct profile *p;
};

static void refuse(struct findings *f, const struct origin *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void refuse(struct findings *f, const struct origin *at, const char *fmt, ...)
{
    char where[512];
    origin_format(at, where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    char *what = xvasprintf(fmt, ap);
    va_end(ap);
    strv_push(&f->refused, xasprintf("%s: %s", where, what));
    free(what);
}

static void add_rule_of(struct landlock_plan *plan, const char *path, uint64_t access,
                        bool is_dir, bool listed)
{
    access &= plan->handled_fs;
    if (!is_dir)
        access &= FS_FILE_RIGHTS;
    if (!access)
        return;
    xgrow((void **)&plan->rules, &plan->caprules, plan->nrules + 1, sizeof *plan->rules);
    plan->rules[plan->nrules++] = (struct landlock_path_rule){ xstrdup(path), access, listed };
}

static void add_rule(struct landlock_plan *plan, const char *path, uint64_t access, bool is_dir)
{
    add_rule_of(plan, path, access, is_dir, false);
}

/* Paths the tier takes out of the read-only host: hidden objects, and
 * /dev or /proc when the profile wants them other than the host's. */
struct excluded {
    char **v;
    size_t n, cap;
};

static void exclude(struct excluded *x, const char *path)
{
    xgrow((void **)&x->v, &x->cap, x->n + 1, sizeof *x->v);
    x->v[x->n++] = xstrdup(path);
}

static bool is_excluded(const struct excluded *x, const char *path)
{
    for (size_t i = 0; i < x->n; i++)
        if (!strcmp(x->v[i], path))
            return true;
    return false;
}

static bool holds_excluded(const struct excluded *x, const char *dir)
{
    for (size_t i = 0; i < x->n; i++)
        if (strcmp(x->v[i], dir) && mount_path_within(x->v[i], dir))
            return true;
    return false;
}

/* Landlock only ever adds: a right granted on a directory holds for
 * everything beneath it, and no rule can take it back below. So "the
 * host readable except these paths" is granted piecewise: a directory
 * with nothing excluded below it gets `access` whole; one that holds an
 * excluded path gets READ_DIR only (listing, which then also holds below
 * it: the names in a hidden directory stay listable, not its files'
 * contents) and each of its entries is granted the same way, the
 * excluded ones skipped. Symlinks are skipped: a rule applies to the
 * object a path walk reaches, and their targets get their own rule where
 * they are. The walk reads the host's directories as they are now: an
 * entry made later next to an excluded path (only possible in a
 * directory the caller can write) gets nothing. */
static void grant_except(struct landlock_plan *plan, const struct excluded *x, const char *dir,
                         uint64_t access)
{
    if (is_excluded(x, dir))
        return;
    if (!holds_excluded(x, dir)) {
        add_rule(plan, dir, access, true);
        return;
    }
    add_rule(plan, dir, LANDLOCK_ACCESS_FS_READ_DIR, true);
    DIR *d = opendir(dir);
    if (!d)
        die_errno("listing %s to take the hidden paths below it out of the "
                  "read-only host", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *child = xasprintf("%s%s%s", dir, strcmp(dir, "/") ? "/" : "", e->d_name);
        struct stat st;
        if (!is_excluded(x, child) && lstat(child, &st) == 0 && !S_ISLNK(st.st_mode)) {
            if (S_ISDIR(st.st_mode) && holds_excluded(x, child))
                grant_except(plan, x, child, access);
            else
                add_rule_of(plan, child, access, S_ISDIR(st.st_mode), true);
        }
        free(child);
    }
    closedir(d);
}

/* The first unix socket below a directory to hide (nftw: no symlink
 * followed, no other file system entered), or NULL. */
static char *socket_found;

static int note_socket(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)type;
    (void)ftw;
    if (!S_ISSOCK(st->st_mode))
        return 0;
    socket_found = xstrdup(path);
    return 1;
}

static char *socket_below(const char *dir)
{
    socket_found = NULL;
    nftw(dir, note_socket, 16, FTW_PHYS | FTW_MOUNT);
    return socket_found;
}

/* A rule's path as the kernel will see it: every symlink followed. NULL
 * when it does not exist (errno set). */
static char *canonical(const char *path)
{
    return realpath(path, NULL);
}

/* tmpfs = PATH has no equivalent without a mount namespace: the host's
 * PATH stays read-only (as every path outside rw), and where PATH is the
 * temporary directory (/tmp, or the caller's $TMPDIR) the command gets a
 * directory of its own there instead, empty, mode 0700, writable, named
 * by TMPDIR, removed when the run ends. Said on every run, not silently. */
static void tmpfs_instead(struct findings *f, struct landlock_plan *plan, const struct fs_rule *r,
                          const char *path)
{
    char at[512];
    origin_format(&r->at, at, sizeof at);
    const char *tmpdir = getenv("TMPDIR");
    autofree char *caller_tmp = tmpdir && *tmpdir ? canonical(tmpdir) : NULL;
    bool is_tmp = !strcmp(path, "/tmp") || (caller_tmp && !strcmp(path, caller_tmp));
    if (!is_tmp || plan->tmpdir) {
        tell(false, "%s: tmpfs = %s: the Landlock tier has no private directory there: the host's "
               "%s stays read-only", at, r->path, path);
        return;
    }
    if (dry_said) {
        tell(false, "%s: tmpfs = %s: the Landlock tier has no private %s: the host's stays "
             "read-only, and the command's TMPDIR is a directory of the run's own there (mode "
             "0700), removed at the end", at, r->path, path);
        return;
    }
    char *dir = xasprintf("%s/sbx-landlock.XXXXXX", path);
    int e = mkdtemp(dir) ? 0 : errno;
    if (e == EROFS && caller_tmp && strcmp(caller_tmp, path)) {
        /* an outer sandbox's read-only /tmp with a TMPDIR of its own: ours
         * goes there */
        free(dir);
        dir = xasprintf("%s/sbx-landlock.XXXXXX", caller_tmp);
        e = mkdtemp(dir) ? 0 : errno;
    }
    if (e == EROFS) {
        tell(false, "%s: tmpfs = %s: %s is on a read-only mount here (an outer sandbox's) and "
               "stays so; the command gets no temporary directory of this run's", at, r->path,
               path);
        free(dir);
        return;
    }
    if (e) {
        refuse(f, &r->at, "tmpfs = %s: the Landlock tier gives the command a directory of its "
               "own there instead, and creating %s failed: %s", r->path, dir, strerror(e));
        free(dir);
        return;
    }
    /* Made again when the tier starts (landlock_make_tmpdir()), so that a
     * refusal between here and there leaves nothing behind; mkdir() then
     * refuses a name someone else took meanwhile (EEXIST). */
    rmdir(dir);
    plan->tmpdir = dir;
    tell(false, "%s: tmpfs = %s: the Landlock tier has no private %s: the host's stays read-only, "
           "and the command's TMPDIR is %s, a directory of this run's (mode 0700; the caller's "
           "other processes can reach it), removed at the end", at, r->path, path, dir);
}

struct rw_dir {
    char *path;            /* canonical */
    const struct fs_rule *rule;
    bool is_dir;
};

/* Whether path, or the directory it would be made in, is on a read-only
 * mount: the kernel's flag, not a guess; nothing in the Landlock tier can
 * remount it. */
static bool already_read_only(const char *path)
{
    struct statvfs sv;
    if (statvfs(path, &sv) == 0)
        return sv.f_flag & ST_RDONLY;
    if (errno != ENOENT)
        return false;
    autofree char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return false;
    *slash = '\0';
    return statvfs(dir, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

/* A ro or hide rule inside an rw rule: kept out of the rw directory's
 * grant like a protected path (check_protected()). */
struct inner_rule {
    char *path;            /* canonical */
    const struct fs_rule *rule;
};

/* A directory where a file is protected (.git of a plain repository, not
 * the "gitdir:" file of a worktree): nothing reads it as that file, as in
 * the namespace tier (mount-plan.c); what it holds is protected apart. */
static bool dir_for_a_file(const struct stat *st, enum protect_kind kind)
{
    return st && S_ISDIR(st->st_mode) && kind == PROTECT_FILE;
}

/* The protected paths (protect.h) that a writable rule holds: the
 * namespace tier binds them read-only there; Landlock cannot take write
 * access back below a writable directory, so each rw directory holding
 * one that exists (or that sbx would have to make) is granted entry by
 * entry around it, and so around the profile's ro and hide rules inside
 * it (inner); under root = host a protected one is refused, with the way
 * out. */

static void check_protected(struct findings *f, struct landlock_plan *plan,
                            const struct profile *p, const char *home, const struct rw_dir *rw,
                            size_t nrw, const struct inner_rule *inner, size_t ninner)
{
    struct protect_list list = { 0 };
    plan_protect_list(&list, home, cli_project());

    struct strv candidates = { 0 };
    struct strv whys = { 0 };
    for (size_t i = 0; i < list.n; i++) {
        bool unprotected = false;
        for (size_t u = 0; !list.v[i].own && u < p->unprotect.n; u++)
            unprotected |= !strcmp(p->unprotect.v[u].value, list.v[i].path);
        struct stat st;
        bool exists = lstat(list.v[i].path, &st) == 0;
        if (unprotected || (!exists && list.v[i].missing == PROTECT_MISSING_IGNORE) ||
            dir_for_a_file(exists ? &st : NULL, list.v[i].kind))
            continue;
        strv_push(&candidates, xstrdup(list.v[i].path));
        strv_push(&whys, xstrdup(list.v[i].why ? list.v[i].why : "the host reads it later"));
    }
    size_t nnames;
    const struct protected_name *names = protect_project_names(&nnames);
    for (size_t r = 0; r < nrw; r++) {
        for (size_t k = 0; k < nnames; k++) {
            char *path = xasprintf("%s%s", rw[r].path, names[k].name);
            bool unprotected = false;
            for (size_t u = 0; u < p->unprotect.n; u++)
                unprotected |= !strcmp(p->unprotect.v[u].value, path);
            /* as the namespace tier does: a directory where a file is read
             * is no such file; a missing name sbx would make read-only
             * there (.hg/hgrc, .git/hooks) is one the command could create,
             * once its first component (.hg) exists */
            struct stat st;
            /* one the namespace tier would create (.git/hooks, .hg/hgrc,
             * once .git or .hg exists): kept from being made, its
             * directory granted entry by entry */
            bool made = false;
            if (names[k].missing == PROTECT_MISSING_CREATE && lstat(path, &st) < 0 &&
                errno == ENOENT) {
                const char *second = strchr(names[k].name + 1, '/');
                autofree char *top = second ? xasprintf("%s%.*s", rw[r].path,
                                                        (int)(second - names[k].name),
                                                        names[k].name)
                                            : NULL;
                made = top && stat(top, &st) == 0 && S_ISDIR(st.st_mode);
            }
            if (!unprotected && (made || (lstat(path, &st) == 0 &&
                                          !dir_for_a_file(&st, names[k].kind)))) {
                strv_push(&candidates, path);
                strv_push(&whys, xstrdup(names[k].why ? names[k].why : "the host reads it later"));
            } else {
                free(path);
            }
        }
    }
    /* What an outer sandbox already keeps read-only (Codex's P/.git, an
     * outer sbx's protected paths) needs nothing of Landlock. */
    bool *outer_ro = xcalloc(candidates.n ? candidates.n : 1, sizeof *outer_ro);
    for (size_t c = 0; c < candidates.n; c++)
        if ((outer_ro[c] = already_read_only(candidates.v[c])))
            verbose("protect: %s is on a read-only mount here already", candidates.v[c]);
    for (size_t r = 0; r < nrw; r++) {
        struct excluded held = { 0 };
        char held_names[1024] = "", rule_names[2048] = "";
        size_t used = 0, rules_used = 0;
        for (size_t c = 0; c < candidates.n; c++) {
            if (outer_ro[c] || !mount_path_within(candidates.v[c], rw[r].path))
                continue;
            if (p->root == ROOT_HOST) {
                refuse(f, &rw[r].rule->at,
                       "rw = %s holds the protected %s (%s), which the namespace tier keeps "
                       "read-only; under root = host Landlock cannot take write access back: "
                       "set root = ro, or accept it with `unprotect = %s`",
                       rw[r].rule->path, candidates.v[c], whys.v[c], candidates.v[c]);
                continue;
            }
            exclude(&held, candidates.v[c]);
            if (used < sizeof held_names)
                used += (size_t)snprintf(held_names + used, sizeof held_names - used, "%s%s",
                                         used ? ", " : "", candidates.v[c]);
        }
        bool protected_only = held.n > 0;
        size_t nprotected = held.n;
        for (size_t i = 0; i < ninner; i++) {
            if (!mount_path_within(inner[i].path, rw[r].path) || !strcmp(inner[i].path, rw[r].path))
                continue;
            protected_only = false;
            exclude(&held, inner[i].path);
            char where[512];
            origin_format(&inner[i].rule->at, where, sizeof where);
            if (rules_used < sizeof rule_names)
                rules_used += (size_t)snprintf(rule_names + rules_used,
                                               sizeof rule_names - rules_used, "%s%s = %s at %s",
                                               rules_used ? ", " : "",
                                               fs_kind_name(inner[i].rule->kind),
                                               inner[i].rule->path, where);
        }
        if (!held.n) {
            add_rule(plan, rw[r].path, plan->handled_fs, rw[r].is_dir);
            continue;
        }
        /* Landlock only adds rights, and a right on a directory holds for
         * all below it: so the directory is granted entry by entry, the
         * protected ones left out (read-only, as the host), and those on
         * the way to one get listing only. What that costs is said. */
        grant_except(plan, &held, rw[r].path, plan->handled_fs);
        char at[512];
        origin_format(&rw[r].rule->at, at, sizeof at);
        if (protected_only)
            tell(false, "%s: rw = %s holds protected paths (%s), which stay read-only: Landlock "
                 "cannot take write access back below a writable directory, so the Landlock tier "
                 "grants %s entry by entry: what exists in it is writable, but no new entry can "
                 "be made directly in it, nor in a directory holding a protected path (accept "
                 "them with unprotect = to have %s whole)",
                 at, rw[r].rule->path, held_names, rw[r].rule->path, rw[r].rule->path);
        else
            /* A new entry next to a hidden or read-only one would need a
             * create right on their directory, and that right would hold
             * for a rename() or link() of the hidden one there too (it is
             * not the object but the directory Landlock checks, and REFER
             * allows what keeps its rights): so no entry can be made,
             * removed or renamed in those directories; their other
             * entries, existing now, keep every right. */
            tell(false, "%s: rw = %s holds read-only or hidden paths (%s)%s%s%s, which Landlock "
                 "cannot take access back from below a writable directory: the Landlock tier "
                 "grants %s entry by entry, those left out (ro and protected paths: read-only; "
                 "hide: no access at all): what exists in it is writable, but no entry can be "
                 "made, removed or renamed directly in it, nor in a directory on the way to one "
                 "of them%s",
                 at, rw[r].rule->path, rule_names, nprotected ? " and protected paths (" : "",
                 nprotected ? held_names : "", nprotected ? ")" : "", rw[r].rule->path,
                 nprotected ? " (accept the protected ones with unprotect =)" : "");
        for (size_t i = 0; i < held.n; i++)
            free(held.v[i]);
        free(held.v);
    }
    free(outer_ro);
    strv_free(&candidates);
    strv_free(&whys);
    protect_list_free(&list);
}

static void check_filesystem(struct findings *f, struct landlock_plan *plan,
                             const struct profile *p, const char *home)
{
    struct excluded x = { 0 };
    struct rw_dir *rw = NULL;
    size_t nrw = 0, caprw = 0;
    /* ro and hide rules as planned, to be found inside rw below */
    struct inner_rule *inner = NULL;
    size_t ninner = 0, capinner = 0;
    uint64_t base = 0;

    if (p->root == ROOT_TMPFS)
        refuse(f, &p->at[K_FS_ROOT], "root = tmpfs: an empty root needs a mount namespace; "
               "the Landlock tier shows the host read-only (root = ro)");
    else if (p->root == ROOT_RO && plan->abi < 3)
        refuse(f, &p->at[K_FS_ROOT], "root = ro: Landlock ABI %d cannot refuse truncate(2) "
               "(ABI 3, Linux 6.2): the host would not be read-only", plan->abi);
    base = p->root == ROOT_HOST ? plan->handled_fs : FS_READ;

    /* A later rule on the same path wins, as in the mount plan. */
    char **paths = xcalloc(p->nfs ? p->nfs : 1, sizeof *paths);
    int *errs = xcalloc(p->nfs ? p->nfs : 1, sizeof *errs);
    for (size_t i = 0; i < p->nfs; i++) {
        paths[i] = canonical(p->fs[i].path);
        errs[i] = paths[i] ? 0 : errno;
    }
    for (size_t i = 0; i < p->nfs; i++) {
        const struct fs_rule *r = &p->fs[i];
        char *path = paths[i];
        if (!path) {
            if (!(r->optional && errs[i] == ENOENT))
                refuse(f, &r->at, "%s = %s: %s", fs_kind_name(r->kind), r->path,
                       strerror(errs[i]));
            continue;
        }
        bool shadowed = false;
        for (size_t j = i + 1; j < p->nfs; j++)
            shadowed |= paths[j] && !strcmp(paths[j], path);
        if (shadowed)
            continue;
        struct stat st;
        bool is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
        switch (r->kind) {
        case FS_TMPFS:
            tmpfs_instead(f, plan, r, path);
            break;
        case FS_HIDE:
            /* Landlock can refuse access, not make a path vanish: the
             * command still sees that it exists (stat, the listing of its
             * parent, the names inside a hidden directory), never what
             * its files hold. sbx takes that as the expression of hide,
             * except where Landlock cannot refuse at all: connect(2) to
             * a unix socket is not a Landlock right (up to ABI 7). */
            char *sock = S_ISDIR(st.st_mode) ? socket_below(path) : NULL;
            if (S_ISSOCK(st.st_mode))
                refuse(f, &r->at, "hide = %s: a unix socket: Landlock cannot refuse connect(2) "
                       "to it, and only a mount namespace can hide it", r->path);
            else if (sock)
                refuse(f, &r->at, "hide = %s holds the unix socket %s: Landlock cannot refuse "
                       "connect(2) to it, and only a mount namespace can hide it", r->path, sock);
            else if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
                refuse(f, &r->at, "hide = %s: neither a file nor a directory: only a mount "
                       "namespace can hide it", r->path);
            else {
                exclude(&x, path);
                xgrow((void **)&inner, &capinner, ninner + 1, sizeof *inner);
                inner[ninner++] = (struct inner_rule){ path, r };
            }
            free(sock);
            break;
        case FS_RW:
            xgrow((void **)&rw, &caprw, nrw + 1, sizeof *rw);
            rw[nrw++] = (struct rw_dir){ xstrdup(path), r, is_dir };
            break; /* its rules: check_protected() */
        case FS_RO:
            if (p->root == ROOT_HOST)
                refuse(f, &r->at, "ro = %s under root = host: Landlock cannot take write access "
                       "back below what it granted", r->path);
            else {
                add_rule(plan, path, FS_READ, is_dir);
                xgrow((void **)&inner, &capinner, ninner + 1, sizeof *inner);
                inner[ninner++] = (struct inner_rule){ path, r };
            }
            break;
        case FS_CACHE: {
            /* A private write layer needs a mount namespace; writable, the
             * host would run what the command leaves there. Read-only
             * keeps the promise that matters, and is said. */
            char at[512];
            if (p->root == ROOT_HOST)
                refuse(f, &r->at, "cache = %s under root = host: Landlock cannot take write "
                       "access back below what it granted", r->path);
            else {
                warn("%s: cache = %s is read-only in the Landlock tier: a private write layer "
                     "needs a mount namespace (builds that write there fail with EACCES)",
                     origin_format(&r->at, at, sizeof at), r->path);
                add_rule(plan, path, FS_READ, is_dir);
            }
            break;
        }
        }
    }

    /* Rules inside a writable directory: Landlock grants, never takes
     * back, so a ro or hide rule below an rw rule is kept out of its grant
     * (check_protected()); under root = host everything is granted on /
     * already, and nothing can be taken out (hide there is refused). */
    size_t kept = 0;
    for (size_t i = 0; i < ninner; i++) {
        bool within = false;
        for (size_t w = 0; w < nrw && !within; w++)
            within = mount_path_within(inner[i].path, rw[w].path) &&
                     strcmp(inner[i].path, rw[w].path);
        if (!within)
            continue;
        if (p->root == ROOT_HOST) {
            refuse(f, &inner[i].rule->at, "%s = %s lies inside an rw rule under root = host: "
                   "Landlock cannot take access back below what it granted: set root = ro",
                   fs_kind_name(inner[i].rule->kind), inner[i].rule->path);
            continue;
        }
        inner[kept++] = inner[i];
    }
    ninner = kept;

    if (!p->proc)
        exclude(&x, "/proc");
    if (p->dev == DEV_MINIMAL) {
        /* dev = minimal: what the namespace tier's /dev holds, the host's
         * nodes, and nothing else of the host's /dev (a root caller could
         * read a disk: a block device is root's by mode alone). /dev/shm
         * stays the host's, read-only. */
        exclude(&x, "/dev");
        static const char *const nodes[] = { "/dev/null", "/dev/zero", "/dev/full",
                                             "/dev/random", "/dev/urandom", "/dev/tty",
                                             "/dev/ptmx" };
        for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
            if (access(nodes[i], F_OK) == 0)
                add_rule(plan, nodes[i], FS_DEVICE, false);
        /* Not the host's /dev/pts: its other terminals are the caller's
         * other sessions (a password typed there could be read). New
         * ptys come through /dev/ptmx and TIOCGPTPEER; the command's own
         * terminal is open already, and /dev/tty names it. */
        if (access("/dev/pts", F_OK) == 0)
            add_rule(plan, "/dev/pts", LANDLOCK_ACCESS_FS_READ_DIR, true);
        add_rule(plan, "/dev", LANDLOCK_ACCESS_FS_READ_DIR, true);
    }
    if (p->root != ROOT_TMPFS)
        grant_except(plan, &x, "/", base);

    check_protected(f, plan, p, home, rw, nrw, inner, ninner);
    free(inner); /* its paths are paths[]'s */
    /* Metadata outside rw: the supervisor's to check, unless the whole
     * host is on a read-only mount here (an outer sandbox's root), where
     * chmod and the rest fail with EROFS whatever sbx does; and no
     * listener then, which an outer sbx may already hold (EBUSY). */
    if (p->root != ROOT_HOST) {
        plan->metadata = !already_read_only("/");
        if (!plan->metadata)
            tell(false, "the root file system is read-only here (an outer sandbox's): metadata "
                   "changes outside its writable mounts fail with EROFS, without sbx's checks");
    }
    for (size_t i = 0; i < p->nfs; i++)
        free(paths[i]);
    free(paths);
    free(errs);
    for (size_t i = 0; i < nrw; i++)
        free(rw[i].path);
    free(rw);
    for (size_t i = 0; i < x.n; i++)
        free(x.v[i]);
    free(x.v);
}

/* Whether the network namespace we are in has no interface but lo:
 * counted, not assumed. */
static bool only_a_loopback_here(void)
{
    struct if_nameindex *ifs = if_nameindex();
    if (!ifs)
        return false;
    size_t n = 0;
    bool lo = false;
    for (struct if_nameindex *i = ifs; i->if_index; i++, n++)
        lo |= !strcmp(i->if_name, "lo");
    if_freenameindex(ifs);
    return n == 1 && lo;
}

static void check_network(struct findings *f, struct landlock_plan *plan, const struct profile *p)
{
    bool own_net = p->ns[NS_NET] && p->net_mode != NET_HOST;
    if (!own_net)
        return;
    if (p->outbound)
        refuse(f, &p->at[K_NET_OUTBOUND], "outbound = yes: pasta's network needs a network "
               "namespace; the Landlock tier has none (mode = host gives the host's network)");
    if (plan->abi < 4) {
        refuse(f, &p->at[K_NET_MODE], "mode = %s: Landlock ABI %d cannot refuse TCP (ABI 4, "
               "Linux 6.7), and there is no network namespace: set mode = host to run with the "
               "host's network", net_mode_name(p->net_mode), plan->abi);
        return;
    }
    if (only_a_loopback_here()) {
        /* An outer sandbox's network namespace (an outer sbx): nothing
         * but lo to reach, so the kernel alone keeps the promise, and no
         * listener of ours is needed (the kernel allows one per filter
         * chain, and the outer sbx may hold it). */
        char at[512];
        tell(false, "%s: mode = %s: the network namespace sbx runs in has no interface but lo (an "
               "outer sandbox's): bind and connect on its loopback work, nothing else is "
               "reachable", origin_format(&p->at[K_NET_MODE], at, sizeof at),
               net_mode_name(p->net_mode));
        if (p->allow.n)
            refuse(f, &p->allow.v[0].at, "allow = %s...: the allowlist proxy needs a network "
                   "namespace of the sandbox's own", p->allow.v[0].value);
        return;
    }
    if (p->allow.n) {
        /* No network namespace, so no sandbox's own loopback for the
         * proxy, no route to take away: the proxy listens on the host's
         * loopback instead, and what keeps the command from going around
         * it is the supervisor's inet rules below, which refuse (and
         * count) every connect outside the loopback. */
        plan->proxy = true;
        char at[512];
        tell(true, "%s: allow = %s...: the Landlock tier has no network namespace: sbx's proxy "
             "listens on the host's loopback, %s and a port of this run's, which HTTP_PROXY, "
             "HTTPS_PROXY and ALL_PROXY name; the allowed destinations are reached through it "
             "only, every connect outside the loopback is refused and counted; names resolve "
             "through the proxy only (no DNS stub, no transparent egress: a tool that ignores "
             "the proxy variables gets EACCES); other processes of the host can connect to that "
             "port, and are refused (the proxy serves only the connections the supervisor made "
             "for the command)",
             origin_format(&p->allow.v[0].at, at, sizeof at), p->allow.v[0].value,
             EGRESS_PROXY_ADDR);
    }
    /* Landlock refuses the command every TCP bind and connect itself;
     * the supervisor, which Landlock does not restrict, makes the loopback
     * ones for it (plan.c, ledger.c). */
    plan->handled_net = SBX_LANDLOCK_ACCESS_NET_BIND_TCP | SBX_LANDLOCK_ACCESS_NET_CONNECT_TCP;
    if (p->net_mode == NET_LOOPBACK && p->nforward) {
        plan->connect_ports = xcalloc(p->nforward, sizeof *plan->connect_ports);
        memcpy(plan->connect_ports, p->forward, p->nforward * sizeof *p->forward);
        plan->nports = p->nforward;
    }
    char at[512];
    /* Not refused: the profile asked for less network than the host's,
     * and TCP is most of it; what is left open is said on every run. */
    if (p->net_mode == NET_LOOPBACK)
        tell(true, "%s: mode = loopback: no network namespace here, so the loopback is the host's "
             "(or the container's): bind and connect on 127.0.0.1 and ::1 work, and reach every "
             "service listening there, the host's own included; every other inet bind, connect "
             "and listen, and every UDP or ICMP datagram to another address, is refused and "
             "counted; MPTCP, SCTP and raw sockets are refused",
             origin_format(&p->at[K_NET_MODE], at, sizeof at));
    else
        tell(true, "%s: mode = %s: no network namespace here: every inet bind, connect, listen "
             "and datagram sent to an address is refused and counted%s; MPTCP, SCTP and raw "
             "sockets are refused",
             origin_format(&p->at[K_NET_MODE], at, sizeof at), net_mode_name(p->net_mode),
             plan->nports ? " (TCP connect to the forward ports aside)" : "");
}

static void check_identity(struct findings *f, const struct profile *p)
{
    if (!p->uid.current)
        refuse(f, &p->at[K_UID], "uid = %u: another uid inside needs a user namespace",
               (unsigned)p->uid.value);
    if (!p->gid.current)
        refuse(f, &p->at[K_GID], "gid = %u: another gid inside needs a user namespace",
               (unsigned)p->gid.value);
    if (p->capabilities.n)
        refuse(f, &p->at[K_SEC_CAPABILITIES], "capabilities = %s...: without a user namespace "
               "a kept capability is one over the host", p->capabilities.v[0].value);
    if (p->io_uring)
        refuse(f, &p->at[K_SEC_IO_URING], "io_uring = yes: its operations (connect, bind, "
               "setxattr) pass no seccomp filter, and the supervisor's checks are one");
    if (!p->no_new_privs)
        refuse(f, &p->at[K_SEC_NO_NEW_PRIVS], "no_new_privs = no: Landlock and the seccomp "
               "filter are installed without privilege only under no_new_privs, and nothing "
               "else keeps a set-user-ID program from running as its owner on the host");
}

/* What the namespaces would have been, said once per run: the profile's
 * [namespaces] describe the namespace tier, and the caller chose a tier
 * that has none. What stands in for them is named. */
static void describe_tier(const struct landlock_plan *plan, const struct profile *p)
{
    char shared[256] = "";
    size_t used = 0;
    if (p->ns[NS_PID])
        used += (size_t)snprintf(shared + used, sizeof shared - used, "%sprocesses (pid)",
                                 used ? ", " : "");
    if (p->ns[NS_IPC] && used < sizeof shared)
        used += (size_t)snprintf(shared + used, sizeof shared - used, "%sSystem V IPC and POSIX "
                                 "message queues (ipc)", used ? ", " : "");
    if (p->ns[NS_UTS] && used < sizeof shared)
        snprintf(shared + used, sizeof shared - used, "%shostname (uts%s%s)", used ? ", " : "",
                 p->hostname ? ": not " : "", p->hostname ? p->hostname : "");
    tell(false, "the Landlock tier (Landlock ABI %d) has no namespaces: the command shares the "
           "host's %s; signals and abstract unix sockets %s; it runs as uid %u, the caller; "
           "outside rw, Landlock keeps file contents read-only and %s",
           plan->abi, *shared ? shared : "namespaces",
           plan->scoped ? "are scoped to the sandbox" : "are not scoped (Landlock ABI < 6)",
           (unsigned)getuid(),
           plan->metadata ? "the supervisor refuses metadata changes (chmod, chown, utimes, xattrs)"
                          : "the read-only root refuses metadata changes (EROFS)");
}

static bool prepare(struct landlock_plan *plan, const struct profile *p, const char *home,
                    struct strv *refused)
{
    memset(plan, 0, sizeof *plan);
    plan->abi = landlock_abi_version();
    if (plan->abi < 1 && dry_said) {
        strv_push(refused, xasprintf("Landlock is not available here (landlock_create_ruleset: "
                                     "%s)", strerror(errno)));
        return false;
    }
    if (plan->abi < 1)
        die_errno("Landlock is not available (landlock_create_ruleset); the "
                  "kernel needs CONFIG_SECURITY_LANDLOCK and landlock in its lsm= list");
    plan->handled_fs = fs_rights_of_abi(plan->abi);
    struct findings f = { .p = p };
    check_identity(&f, p);
    if (plan->abi >= 6)
        plan->scoped = SBX_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | SBX_LANDLOCK_SCOPE_SIGNAL;
    else {
        /* Without scoping, the command signals every process of the
         * caller's uid and connects to every abstract socket of the
         * host's network namespace: what pid and net namespaces stop. */
        if (p->ns[NS_PID])
            refuse(&f, &p->at[K_NS_PID], "pid = yes: Landlock ABI %d cannot keep the command "
                   "from signalling host processes (ABI 6, Linux 6.12): set pid = no to accept "
                   "that", plan->abi);
        if (p->ns[NS_NET] && p->net_mode != NET_HOST)
            refuse(&f, &p->at[K_NS_NET], "net = yes: Landlock ABI %d cannot keep the command "
                   "from the host's abstract unix sockets (ABI 6, Linux 6.12): set mode = host "
                   "to accept that", plan->abi);
    }
    check_network(&f, plan, p);
    check_filesystem(&f, plan, p, home);
    *refused = f.refused;
    if (refused->n)
        return false;
    describe_tier(plan, p);
    return true;
}

void landlock_plan_prepare(struct landlock_plan *plan, const struct profile *p, const char *home)
{
    struct strv refused = { 0 };
    if (!prepare(plan, p, home, &refused)) {
        for (size_t i = 0; i < refused.n; i++)
            warn("%s", refused.v[i]);
        size_t n = refused.n;
        strv_free(&refused);
        die("%zu rule%s of profile %s cannot be expressed without namespaces "
            "(above); nothing was started", n, n == 1 ? "" : "s", p->name ? p->name : "(built-in)");
    }
    /* create = serves the cache rules, read-only in this tier (above) */
    for (size_t i = 0; i < p->create.n; i++) {
        char at[512];
        verbose("%s: create = %s: not made in the Landlock tier (its cache rules are read-only "
                "here)", origin_format(&p->create.v[i].at, at, sizeof at), p->create.v[i].value);
    }
    verbose_step("%zu path rules, %zu TCP connect ports", plan->nrules, plan->nports);
}

bool landlock_plan_describe(const struct profile *p, const char *home, struct strv *said,
                            struct strv *refused)
{
    struct landlock_plan plan;
    dry_said = said;
    bool ok = prepare(&plan, p, home, refused);
    dry_said = NULL;
    landlock_plan_free(&plan);
    return ok;
}

void landlock_make_tmpdir(struct landlock_plan *plan)
{
    if (!plan->tmpdir)
        return;
    if (mkdir(plan->tmpdir, 0700) < 0)
        die_errno("creating the run's TMPDIR %s (tmpfs = /tmp in the Landlock tier)",
                  plan->tmpdir);
    plan->tmpdir_made = true;
    add_rule(plan, plan->tmpdir, plan->handled_fs, true);
}

void landlock_writable_paths(const struct landlock_plan *plan, struct strv *out)
{
    /* what rw (and the run's TMPDIR) granted: MAKE_REG on a directory,
     * TRUNCATE on a file; a device's rule (/dev/null) is neither */
    for (size_t i = 0; i < plan->nrules; i++)
        if (plan->rules[i].access & (LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_TRUNCATE))
            strv_push(out, xstrdup(plan->rules[i].path));
}

void landlock_set_env(const struct landlock_plan *plan, struct strv *env)
{
    if (!plan->tmpdir)
        return;
    size_t w = 0;
    for (size_t i = 0; i < env->n; i++) {
        if (!strncmp(env->v[i], "TMPDIR=", 7))
            free(env->v[i]);
        else
            env->v[w++] = env->v[i];
    }
    env->n = w;
    strv_push(env, xasprintf("TMPDIR=%s", plan->tmpdir));
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

void landlock_plan_free(struct landlock_plan *plan)
{
    /* the run's TMPDIR: every process of the command is gone by now (init
     * was a subreaper that killed them); no symlink followed, no other
     * file system entered */
    if (plan->tmpdir_made)
        nftw(plan->tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
    free(plan->tmpdir);
    for (size_t i = 0; i < plan->nrules; i++)
        free(plan->rules[i].path);
    free(plan->rules);
    free(plan->connect_ports);
    memset(plan, 0, sizeof *plan);
}

void landlock_apply(const struct landlock_plan *plan, int own_tty)
{
    struct sbx_landlock_ruleset_attr attr = {
        .handled_access_fs = plan->handled_fs,
        .handled_access_net = plan->handled_net,
        .scoped = plan->scoped,
    };
    /* The size says which fields we fill: an ABI 1..3 kernel refuses
     * (E2BIG) an attribute with non-zero fields it does not know. */
    size_t size = plan->abi >= 6 ? sizeof attr
                  : plan->abi >= 4 ? offsetof(struct sbx_landlock_ruleset_attr, scoped)
                                   : sizeof attr.handled_access_fs;
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0)
        die_errno("landlock_create_ruleset");
    for (size_t i = 0; i < plan->nrules; i++) {
        int fd = open(plan->rules[i].path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        /* an entry next to a hidden path, removed since sbx listed it
         * (a temporary file in /tmp): nothing left to grant */
        if (fd < 0 && errno == ENOENT && plan->rules[i].listed)
            continue;
        if (fd < 0)
            die_errno("opening %s for its Landlock rule", plan->rules[i].path);
        /* what was a directory when listed may be a file now: the kernel
         * takes only file rights on a file (EINVAL otherwise) */
        struct stat st;
        uint64_t access = plan->rules[i].access;
        if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
            access &= FS_FILE_RIGHTS;
        struct landlock_path_beneath_attr rule = { .allowed_access = access, .parent_fd = fd };
        if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
            die_errno("landlock_add_rule on %s", plan->rules[i].path);
        close(fd);
    }
    /* The command's own pty (its /dev/pts/N, opened by init), by its
     * descriptor: reopened by name it is the only one under /dev/pts */
    if (own_tty >= 0 && isatty(own_tty)) {
        struct landlock_path_beneath_attr rule = {
            .allowed_access = FS_DEVICE & FS_FILE_RIGHTS & plan->handled_fs,
            .parent_fd = own_tty,
        };
        if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
            die_errno("landlock_add_rule on the command's own pty");
    }
    for (size_t i = 0; i < plan->nports; i++) {
        struct sbx_landlock_net_port_attr port = {
            .allowed_access = SBX_LANDLOCK_ACCESS_NET_CONNECT_TCP, .port = plan->connect_ports[i],
        };
        if (syscall(SYS_landlock_add_rule, ruleset, SBX_LANDLOCK_RULE_NET_PORT, &port, 0) < 0)
            die_errno("landlock_add_rule for TCP port %u",
                      (unsigned)plan->connect_ports[i]);
    }
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
        die_errno("landlock_restrict_self");
    close(ruleset);
}

void landlock_drop_privileges(void)
{
    if (capability_in_effective_set(CAP_SETPCAP)) {
        privileges_drop(0, true);
        return;
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
        die_errno("clearing the ambient capability set");
    cap_t none = cap_init();
    if (!none)
        die_errno("cap_init");
    if (cap_set_proc(none) < 0)
        die_errno("clearing the capability sets");
    cap_free(none);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        die_errno("prctl(PR_SET_NO_NEW_PRIVS)");
}

static const struct backend_key_fate key_fates[K_COUNT] = {
    [K_DESCRIPTION] = { BACKEND_SAME, "text only", NULL, NULL },
    [K_INCLUDE] = { BACKEND_SAME, "profiles read the same way", NULL, NULL },
    [K_SANDBOX_FALLBACK] = { BACKEND_SAME, "what chose this tier", NULL, NULL },
    [K_NS_USER] = { BACKEND_INSTEAD, "no user namespace: the caller's ids, no capability", NULL, NULL },
    [K_NS_MOUNT] = { BACKEND_INSTEAD, "no mount namespace: Landlock rules on the host's paths", NULL, NULL },
    [K_NS_NET] = { BACKEND_INSTEAD, "the host's network, kept by the supervisor's inet rules "
                   "(below ABI 6: refused)", NULL, NULL },
    [K_NS_PID] = { BACKEND_INSTEAD, "the host's processes, signals scoped (below ABI 6: refused)",
                   NULL, NULL },
    [K_NS_IPC] = { BACKEND_INSTEAD, "the host's System V IPC, said", NULL, NULL },
    [K_NS_UTS] = { BACKEND_INSTEAD, "the host's hostname, said", NULL, NULL },
    [K_UID] = { BACKEND_REFUSED, "another uid needs a user namespace", "namespaces", "uid = 0" },
    [K_GID] = { BACKEND_REFUSED, "another gid needs a user namespace", "namespaces", "gid = 0" },
    [K_HOSTNAME] = { BACKEND_INSTEAD, "not set: the host's, said", NULL, NULL },
    [K_NESTED_USERNS] = { BACKEND_SAME, "the seccomp filter", NULL, NULL },
    [K_NET_MODE] = { BACKEND_EXPRESSED, "loopback: the supervisor makes loopback calls, refuses "
                     "the rest; none: every inet call refused; host: the host's", NULL, NULL },
    [K_NET_OUTBOUND] = { BACKEND_REFUSED, "pasta needs a network namespace", "network",
                         "outbound = yes" },
    [K_NET_FORWARD] = { BACKEND_EXPRESSED, "TCP connect to the port (Landlock)", NULL, NULL },
    [K_NET_ALLOW] = { BACKEND_INSTEAD, "sbx's proxy on the host's loopback, every other connect "
                      "outside it refused (in an outer network of lo only: refused)", NULL, NULL },
    [K_LIMIT_NOFILE] = { BACKEND_SAME, "setrlimit", NULL, NULL },
    [K_LIMIT_NPROC] = { BACKEND_SAME, "setrlimit, the pids cgroup for root", NULL, NULL },
    [K_LIMIT_CORE] = { BACKEND_SAME, "setrlimit", NULL, NULL },
    [K_LIMIT_CPU] = { BACKEND_SAME, "setrlimit", NULL, NULL },
    [K_LIMIT_FSIZE] = { BACKEND_SAME, "setrlimit", NULL, NULL },
    [K_LIMIT_AS] = { BACKEND_SAME, "setrlimit", NULL, NULL },
    [K_LIMIT_STACK] = { BACKEND_SAME, "setrlimit", NULL, NULL },
    [K_LIMIT_MEMLOCK] = { BACKEND_SAME, "setrlimit", NULL, NULL },
    [K_LIMIT_SIGPENDING] = { BACKEND_SAME, "setrlimit", NULL, NULL },
    [K_TIMEOUT] = { BACKEND_SAME, "the supervisor's timer", NULL, NULL },
    [K_FS_ROOT] = { BACKEND_REFUSED, "ro: read and execute only; host: everything; tmpfs: refused",
                    "filesystem", "root = tmpfs" },
    [K_FS_RW] = { BACKEND_EXPRESSED, "Landlock rights on the path, entry by entry around "
                  "protected paths", NULL, NULL },
    [K_FS_RO] = { BACKEND_EXPRESSED, "read rights; inside rw, the rw directory granted entry by "
                  "entry around it (under root = host: refused)", NULL, NULL },
    [K_FS_TMPFS] = { BACKEND_INSTEAD, "the host's path read-only; for /tmp a TMPDIR of the run's",
                     NULL, NULL },
    [K_FS_HIDE] = { BACKEND_EXPRESSED, "no rights on the path, granted around (inside rw too); a "
                    "unix socket: refused", NULL, NULL },
    [K_FS_CACHE] = { BACKEND_INSTEAD, "read-only (a private write layer needs a mount namespace)",
                     NULL, NULL },
    [K_FS_UNPROTECT] = { BACKEND_SAME, "the protected path granted with its directory", NULL, NULL },
    [K_FS_CREATE] = { BACKEND_INSTEAD, "not made: what it serves, a cache rule, is read-only here",
                      NULL, NULL },
    [K_FS_PROC] = { BACKEND_EXPRESSED, "no: /proc unreadable; yes: the host's, scoped", NULL, NULL },
    [K_FS_DEV] = { BACKEND_EXPRESSED, "minimal: the host's null, zero, ..., ptmx, the own pty", NULL,
                   NULL },
    [K_FS_OBSERVE_WRITES] = { BACKEND_INSTEAD, "not observed: Landlock refuses with EACCES, "
                              "unseen by the supervisor", NULL, NULL },
    [K_ENV_CLEAR] = { BACKEND_SAME, "the environment", NULL, NULL },
    [K_ENV_KEEP] = { BACKEND_SAME, "the environment", NULL, NULL },
    [K_ENV_SET] = { BACKEND_SAME, "the environment", NULL, NULL },
    [K_ENV_UNSET] = { BACKEND_SAME, "the environment", NULL, NULL },
    [K_ENV_UNSET_SECRET_VALUES] = { BACKEND_SAME, "the environment", NULL, NULL },
    [K_SEC_NO_NEW_PRIVS] = { BACKEND_REFUSED, "no: refused (Landlock and seccomp need it)",
                             "security", "no_new_privs = no" },
    [K_SEC_CAPABILITIES] = { BACKEND_REFUSED, "a kept capability would be one over the host",
                             "security", "capabilities = cap_kill" },
    [K_SEC_NET_RAW] = { BACKEND_INSTEAD, "not given: without a network namespace it would be the "
                        "host's raw sockets", NULL, NULL },
    [K_SEC_SECCOMP] = { BACKEND_SAME, "the same filter", NULL, NULL },
    [K_SEC_IO_URING] = { BACKEND_REFUSED, "yes: io_uring would bypass the supervisor's checks",
                         "security", "io_uring = yes" },
    [K_SEC_DENY] = { BACKEND_SAME, "the same rules and ledger", NULL, NULL },
};

const struct backend_key_fate *landlock_key_fate(enum profile_key k)
{
    return (unsigned)k < K_COUNT ? &key_fates[k] : NULL;
}
