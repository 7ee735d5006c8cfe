#include "config.h"

#include "mount-plan.h"

#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *mount_op_name(enum mount_op op)
{
    switch (op) {
    case MOUNT_OP_ROOT_RO: return "root (read-only)";
    case MOUNT_OP_ROOT_TMPFS: return "root (empty tmpfs)";
    case MOUNT_OP_ROOT_HOST: return "root (host, as is)";
    case MOUNT_OP_BIND_RW: return "rw";
    case MOUNT_OP_BIND_RO: return "ro";
    case MOUNT_OP_TMPFS: return "tmpfs";
    case MOUNT_OP_HIDE: return "hide";
    case MOUNT_OP_PROC: return "proc";
    case MOUNT_OP_PROC_HOST: return "proc (the host's: no PID namespace)";
    case MOUNT_OP_DEV_MINIMAL: return "dev (minimal)";
    case MOUNT_OP_GENERATED_FILE: return "generated file";
    case MOUNT_OP_CACHE: return "cache (private write layer)";
    }
    return "?";
}

size_t mount_path_depth(const char *path)
{
    size_t depth = 0;
    for (const char *s = path; *s; s++)
        if (*s == '/' && s[1] && s[1] != '/')
            depth++;
    return depth;
}

bool mount_path_within(const char *path, const char *dir)
{
    if (!strcmp(dir, "/"))
        return path[0] == '/';
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

char *mount_missing_rule_error(const struct fs_rule *r, int err)
{
    char where[512];
    origin_format(&r->at, where, sizeof where);
    return xasprintf("%s: %s path %s does not exist (create it, or write '%s?' to skip it when "
                     "missing): %s", where, fs_kind_name(r->kind), r->path, fs_kind_name(r->kind),
                     strerror(err));
}

bool mount_link_maybe_planted(const char *link, uid_t owner, uid_t self,
                              const struct strv *writable)
{
    if (owner != self)
        return false;
    for (size_t i = 0; i < writable->n; i++)
        if (mount_path_within(link, writable->v[i]) && strcmp(link, writable->v[i]))
            return true;
    return false;
}

static enum mount_op op_for_rule(enum fs_kind kind)
{
    switch (kind) {
    case FS_RW: return MOUNT_OP_BIND_RW;
    case FS_RO: return MOUNT_OP_BIND_RO;
    case FS_TMPFS: return MOUNT_OP_TMPFS;
    case FS_HIDE: return MOUNT_OP_HIDE;
    case FS_CACHE: return MOUNT_OP_CACHE;
    }
    return MOUNT_OP_BIND_RO;
}

static void entry_free(struct mount_entry *e)
{
    free(e->path);
    e->path = NULL;
    free(e->content);
    e->content = NULL;
    if (e->layer && e->layer_fd >= 0)
        close(e->layer_fd);
    if (e->locked)
        close(e->lock_fd);
    e->locked = false;
    free(e->layer);
    e->layer = NULL;
    if (e->fd >= 0)
        close(e->fd);
    e->fd = -1;
}

/* A later rule on the same canonical path replaces the earlier one: a file
 * overrides what it includes, an option overrides the profile. The root
 * (index 0) is never replaced: a rule on "/" is mounted on top of it. */
static void plan_put(struct mount_plan *plan, struct mount_entry e)
{
    for (size_t i = 1; i < plan->n; i++) {
        if (!strcmp(plan->v[i].path, e.path)) {
            entry_free(&plan->v[i]);
            plan->v[i] = e;
            return;
        }
    }
    xgrow((void **)&plan->v, &plan->cap, plan->n + 1, sizeof *plan->v);
    plan->v[plan->n++] = e;
}

/* Parent first: a mount on /a/b made before one on /a would be covered by
 * it. Stable, so siblings keep the profile's order (insertion sort: plans
 * are a few dozen entries). */
static void plan_order(struct mount_plan *plan)
{
    for (size_t i = 1; i < plan->n; i++) {
        struct mount_entry e = plan->v[i];
        size_t d = mount_path_depth(e.path);
        size_t j = i;
        while (j > 0 && mount_path_depth(plan->v[j - 1].path) > d) {
            plan->v[j] = plan->v[j - 1];
            j--;
        }
        plan->v[j] = e;
    }
}

static struct origin default_origin(const struct origin *o)
{
    return o ? *o : (struct origin){ NULL, 0 };
}

bool mount_plan_build(struct mount_plan *plan, const struct profile *p,
                      mount_resolve_fn resolve, void *ctx, char **error)
{
    *error = NULL;
    plan_put(plan, (struct mount_entry){
        .op = p->root == ROOT_RO ? MOUNT_OP_ROOT_RO
              : p->root == ROOT_TMPFS ? MOUNT_OP_ROOT_TMPFS : MOUNT_OP_ROOT_HOST,
        .path = xstrdup("/"), .fd = -1, .is_dir = true, .mode = 0755,
        .at = p->at[K_FS_ROOT],
    });
    /* /proc and /dev go in before the rules so that a rule naming exactly
     * /proc or /dev replaces them, and a rule below them (tmpfs =
     * /dev/shm) lands on top, by the depth order. */
    if (p->proc && p->ns[NS_PID]) {
        plan_put(plan, (struct mount_entry){
            .op = MOUNT_OP_PROC, .path = xstrdup("/proc"), .fd = -1,
            .is_dir = true, .mode = 0555, .at = p->at[K_FS_PROC],
        });
    } else if (p->proc) {
        /* pid = no: the sandbox's PID namespace is the host's, whose proc
         * the kernel lets only its owner mount anew (EPERM in our user
         * namespace). Its existing /proc shows exactly that namespace. */
        struct mount_resolved res = { NULL, -1, false, 0, NULL };
        int err = resolve("/proc", 0, &res, ctx);
        if (err) {
            char where[512];
            *error = xasprintf("%s: proc = yes with pid = no: the host's /proc cannot be "
                               "opened: %s", origin_format(&p->at[K_FS_PROC], where, sizeof where),
                               strerror(err));
            return false;
        }
        plan_put(plan, (struct mount_entry){
            .op = MOUNT_OP_PROC_HOST, .path = res.path, .fd = res.fd, .id_known = res.id_known,
            .dev = res.dev, .ino = res.ino,
            .is_dir = true, .mode = 0555, .at = p->at[K_FS_PROC],
        });
    }
    if (p->dev == DEV_MINIMAL)
        plan_put(plan, (struct mount_entry){
            .op = MOUNT_OP_DEV_MINIMAL, .path = xstrdup("/dev"), .fd = -1,
            .is_dir = true, .mode = 0755, .at = p->at[K_FS_DEV],
        });

    /* rw rules a later tmpfs or hide replaced: freed on every return */
    __attribute__((cleanup(strv_free))) struct strv lost_paths = { 0 }, lost_texts = { 0 };
    for (size_t i = 0; i < p->nfs; i++) {
        const struct fs_rule *r = &p->fs[i];
        char where[512];
        origin_format(&r->at, where, sizeof where);
        if (!r->path || r->path[0] != '/') {
            *error = xasprintf("%s: %s path '%s' is not absolute (write a full path, "
                               "or start it with ${HOME} or ${CWD})",
                               where, fs_kind_name(r->kind), r->path ? r->path : "");
            return false;
        }
        struct mount_resolved res = { NULL, -1, false, 0, NULL };
        int err = resolve(r->path, (r->kind == FS_RW ? MOUNT_RESOLVE_WRITABLE : 0) |
                                       (r->optional ? MOUNT_RESOLVE_OPTIONAL : 0), &res, ctx);
        if (err && res.refused_link) {
            /* A symlink in a place a sandbox can write could have been
             * planted by an earlier run: following it would make its
             * target writable (rw? = ~/.cache/pip -> ~). An optional rule
             * is dropped with a warning; a required one stops the run. */
            autofree char *link = res.refused_link;
            autofree char *text = xasprintf(
                "%s: rw path %s goes through the symlink %s, which a sandbox could have made; "
                "sbx follows no such link for a writable rule (write the path it points to, or "
                "replace the link with the directory itself)", where, r->path, link);
            if (r->optional) {
                strv_push(&plan->warnings, xasprintf("warning: %s; this rule is skipped", text));
                continue;
            }
            *error = xstrdup(text);
            return false;
        }
        if (err == ENOENT || err == ENOTDIR) {
            if (r->optional)
                continue;
            *error = mount_missing_rule_error(r, err);
            return false;
        }
        /* A path sbx cannot reach for lack of permission is one the
         * command cannot reach either: the command never has more access
         * to the host's files than the caller (a user namespace's
         * capabilities cover only inodes its map owns). Hiding it adds
         * nothing; refusing to start would let another user's 0700
         * directory in a shared $HOME (root's ~/.cache in HOME=/nonexistent)
         * stop every run. */
        if (err == EACCES && r->kind == FS_HIDE)
            continue;
        if (err) {
            *error = xasprintf("%s: %s path %s cannot be opened: %s", where,
                               fs_kind_name(r->kind), r->path, strerror(err));
            return false;
        }
        if ((r->kind == FS_TMPFS || r->kind == FS_CACHE) && !res.is_dir) {
            *error = xasprintf(r->kind == FS_TMPFS
                                   ? "%s: tmpfs path %s (%s) is not a directory "
                                     "(use 'hide' to cover a file)"
                                   : "%s: cache path %s (%s) is not a directory (a write "
                                     "layer lies over a directory: name the one holding it)",
                               where, r->path, res.path);
            free(res.path);
            if (res.fd >= 0)
                close(res.fd);
            return false;
        }
        /* Started in /tmp itself, rw = ${PROJECT} is /tmp, and the
         * profile's later tmpfs = /tmp replaces it: the command's writes
         * there vanish with the sandbox, which the user must hear of
         * (unless a still later rw rule, --rw /tmp, gives it back). */
        for (size_t k = 1; k < plan->n; k++) {
            if (strcmp(plan->v[k].path, res.path))
                continue;
            for (size_t w = 0; r->kind == FS_RW && w < lost_paths.n; w++)
                if (lost_paths.v[w][0] && !strcmp(lost_paths.v[w], res.path))
                    lost_paths.v[w][0] = lost_texts.v[w][0] = '\0';
            if (plan->v[k].op != MOUNT_OP_BIND_RW || (r->kind != FS_TMPFS && r->kind != FS_HIDE))
                continue;
            char earlier[512];
            strv_push(&lost_paths, xstrdup(res.path));
            strv_push(&lost_texts,
                      xasprintf("warning: %s: rw = %s is replaced by the later %s = %s (%s): what "
                                "the command writes there does not reach the host (start sbx in "
                                "a directory below it, or --rw it)",
                                origin_format(&plan->v[k].at, earlier, sizeof earlier), res.path,
                                fs_kind_name(r->kind), r->path, where));
        }
        plan_put(plan, (struct mount_entry){
            .op = op_for_rule(r->kind), .path = res.path, .fd = res.fd, .id_known = res.id_known,
            .dev = res.dev, .ino = res.ino,
            .is_dir = res.is_dir, .mode = res.mode, .at = default_origin(&r->at),
        });
    }
    for (size_t w = 0; w < lost_texts.n; w++)
        if (lost_texts.v[w][0])
            strv_push(&plan->warnings, xstrdup(lost_texts.v[w]));
    plan_order(plan);
    return true;
}

void mount_plan_free(struct mount_plan *plan)
{
    for (size_t i = 0; i < plan->n; i++)
        entry_free(&plan->v[i]);
    free(plan->v);
    plan->v = NULL;
    plan->n = plan->cap = 0;
    strv_free(&plan->warnings);
    strv_free(&plan->notes);
}

static const char protect_label[] = "protected path";
static const char git_dir_why[] = "git directory of the work tree";
static bool plan_has_path(const struct mount_plan *plan, const char *path);

bool mount_plan_add_git_dirs(struct mount_plan *plan, const char *root, const char *const *dirs,
                             size_t ndirs, mount_resolve_fn resolve, void *ctx, char **error)
{
    *error = NULL;
    const struct mount_entry *top = NULL;
    for (size_t i = 1; i < plan->n && !top; i++)
        if (plan->v[i].op == MOUNT_OP_BIND_RW && plan->v[i].is_dir && !strcmp(plan->v[i].path, root))
            top = &plan->v[i];
    if (!top)
        return true;
    struct origin at = top->at;
    for (size_t k = 0; k < ndirs; k++) {
        if (!dirs[k] || plan_has_path(plan, dirs[k]))
            continue;
        struct mount_resolved res = { NULL, -1, false, 0, NULL };
        int err = resolve(dirs[k], MOUNT_RESOLVE_WRITABLE, &res, ctx);
        if (err || !res.is_dir) {
            char where[512];
            *error = xasprintf("%s: rw = %s: the git directory %s its .git names cannot be "
                               "opened: %s%s%s", origin_format(&at, where, sizeof where), root,
                               dirs[k], err ? strerror(err) : "not a directory",
                               res.refused_link ? ": " : "", res.refused_link ? res.refused_link : "");
            free(res.refused_link);
            free(res.path);
            if (res.fd >= 0)
                close(res.fd);
            return false;
        }
        plan_put(plan, (struct mount_entry){
            .op = MOUNT_OP_BIND_RW, .path = res.path, .fd = res.fd, .id_known = res.id_known,
            .dev = res.dev, .ino = res.ino, .is_dir = true,
            .mode = res.mode, .at = at, .why = git_dir_why,
        });
        strv_push(&plan->notes, xasprintf("git: %s writable with the work tree %s (%s)",
                                          res.path, root, git_dir_why));
    }
    /* A worktree's git directory lies inside the common one
     * (.git/worktrees/NAME), both writable: its own mount point cannot be
     * renamed (EBUSY), but worktrees/ above it could be, and a directory
     * of the command's put in its place, with a commondir naming a
     * configuration of its own for the host's next git. Each directory in
     * between is pinned, as pin_parents() does for protected paths. */
    for (size_t k = 0; k < ndirs; k++) {
        if (!dirs[k])
            continue;
        const char *outer = NULL;
        for (size_t i = 1; i < plan->n; i++)
            if (plan->v[i].op == MOUNT_OP_BIND_RW && strcmp(plan->v[i].path, dirs[k]) &&
                mount_path_within(dirs[k], plan->v[i].path) &&
                (!outer || mount_path_depth(plan->v[i].path) > mount_path_depth(outer)))
                outer = plan->v[i].path;
        if (!outer)
            continue;
        size_t on = strcmp(outer, "/") ? strlen(outer) : 0;
        autofree char *dir = xstrdup(dirs[k]);
        for (char *slash = strrchr(dir, '/'); slash && (size_t)(slash - dir) > on;
             slash = strrchr(dir, '/')) {
            *slash = '\0';
            if (plan_has_path(plan, dir))
                continue;
            struct mount_resolved res = { NULL, -1, false, 0, NULL };
            if (resolve(dir, MOUNT_RESOLVE_WRITABLE, &res, ctx) == 0 && res.is_dir &&
                !strcmp(res.path, dir)) {
                plan_put(plan, (struct mount_entry){
                    .op = MOUNT_OP_BIND_RW, .path = res.path, .fd = res.fd, .id_known = res.id_known,
            .dev = res.dev, .ino = res.ino, .is_dir = true,
                    .mode = res.mode, .at = { protect_label, 0 },
                    .why = "pinned: a git directory lies below it",
                });
                continue;
            }
            free(res.refused_link);
            free(res.path);
            if (res.fd >= 0)
                close(res.fd);
        }
    }
    plan_order(plan);
    return true;
}

bool mount_plan_add_generated(struct mount_plan *plan, const char *path, const char *content,
                              struct origin at)
{
    for (size_t i = 1; i < plan->n; i++)
        if (!strcmp(plan->v[i].path, path))
            return false;
    plan_put(plan, (struct mount_entry){
        .op = MOUNT_OP_GENERATED_FILE, .path = xstrdup(path), .fd = -1,
        .is_dir = false, .mode = 0444, .at = at, .content = xstrdup(content),
    });
    plan_order(plan);
    return true;
}

const struct mount_entry *mount_plan_writable_holder(const struct mount_plan *plan,
                                                    const char *file)
{
    /* The deepest entry containing the file decides what the command can do
     * to it: rw = ~ with ro = ~/.config/sbx protects a profile there. */
    const struct mount_entry *decides = NULL;
    for (size_t i = 0; i < plan->n; i++) {
        const struct mount_entry *e = &plan->v[i];
        if (!mount_path_within(file, e->path))
            continue;
        if (!decides || mount_path_depth(e->path) >= mount_path_depth(decides->path))
            decides = e;
    }
    if (decides && (decides->op == MOUNT_OP_BIND_RW || decides->op == MOUNT_OP_ROOT_HOST))
        return decides;
    return NULL;
}

const struct mount_entry *mount_plan_deciding(const struct mount_plan *plan, const char *path)
{
    const struct mount_entry *decides = NULL;
    for (size_t i = 0; i < plan->n; i++) {
        const struct mount_entry *e = &plan->v[i];
        if (mount_path_within(path, e->path) &&
            (!decides || mount_path_depth(e->path) >= mount_path_depth(decides->path)))
            decides = e;
    }
    return decides;
}

const struct mount_entry *mount_plan_hiding(const struct mount_plan *plan, const char *path)
{
    const struct mount_entry *decides = mount_plan_deciding(plan, path);
    /* Below a fresh tmpfs (root = tmpfs, tmpfs =, hide = on a directory)
     * only its top exists; whatever else the command sees is another
     * rule's. */
    if (decides && strcmp(decides->path, path) &&
        (decides->op == MOUNT_OP_ROOT_TMPFS || decides->op == MOUNT_OP_TMPFS ||
         decides->op == MOUNT_OP_HIDE))
        return decides;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Protected paths                                                      */


void mount_probe_free(struct mount_probe *pr)
{
    free(pr->path);
    free(pr->link_target);
    if (pr->fd >= 0)
        close(pr->fd);
    *pr = (struct mount_probe){ .fd = -1 };
}

static bool plan_has_path(const struct mount_plan *plan, const char *path)
{
    for (size_t i = 0; i < plan->n; i++)
        if (!strcmp(plan->v[i].path, path))
            return true;
    return false;
}

static bool unprotected(const struct profile *p, const char *asked, const char *canonical)
{
    for (size_t i = 0; i < p->unprotect.n; i++)
        if (!strcmp(p->unprotect.v[i].value, asked) ||
            (canonical && !strcmp(p->unprotect.v[i].value, canonical)))
            return true;
    return false;
}

/* The directories strictly between the writable entry and the protected
 * path get a bind of their own (on themselves, as writable as they were):
 * a mount point cannot be renamed or removed (EBUSY), so the command
 * cannot move ~/.config/sbx or a project's .git aside and put a directory
 * of its own, unprotected, in its place. */
static void pin_parents(struct mount_plan *plan, const char *holder, const char *path,
                        mount_probe_fn probe, void *ctx)
{
    size_t hn = strcmp(holder, "/") ? strlen(holder) : 0;
    autofree char *dir = xstrdup(path);
    for (char *slash = strrchr(dir, '/'); slash && (size_t)(slash - dir) > hn;
         slash = strrchr(dir, '/')) {
        *slash = '\0';
        if (plan_has_path(plan, dir))
            continue;
        struct mount_probe pr = { .fd = -1 };
        if (probe(dir, false, NULL, plan, &pr, ctx) == 0 && pr.found == MOUNT_FOUND_OBJECT && pr.is_dir &&
            !strcmp(pr.path, dir)) {
            plan_put(plan, (struct mount_entry){
                .op = MOUNT_OP_BIND_RW, .path = pr.path, .fd = pr.fd, .id_known = pr.id_known,
            .dev = pr.dev, .ino = pr.ino, .is_dir = true,
                .mode = pr.mode, .at = { protect_label, 0 },
                .why = "pinned: a protected path lies below it",
            });
            pr.path = NULL;
            pr.fd = -1;
        }
        mount_probe_free(&pr);
    }
}

/* The writable entry a rule of the profile made, skipping pins, for
 * messages: the pin is sbx's, the rule is what the user can change. */
static const struct mount_entry *rule_holder(const struct mount_plan *plan, const char *path)
{
    const struct mount_entry *best = &plan->v[0];
    for (size_t i = 0; i < plan->n; i++) {
        const struct mount_entry *e = &plan->v[i];
        if (e->at.file != protect_label && mount_path_within(path, e->path) &&
            mount_path_depth(e->path) >= mount_path_depth(best->path))
            best = e;
    }
    return best;
}

/* One protected path: `asked` as composed, with its kind and rule. */
static bool protect_one(struct mount_plan *plan, const struct profile *p, const char *asked,
                        enum protect_kind kind, enum protect_missing missing, bool own,
                        const char *why, const char *placeholder, mount_probe_fn probe, void *ctx,
                        char **error)
{
    struct mount_probe pr = { .fd = -1 };
    if (probe(asked, false, NULL, plan, &pr, ctx) != 0) {
        mount_probe_free(&pr);
        return true; /* unreachable for us (EACCES): for the command as well */
    }
    const struct mount_entry *holder = mount_plan_writable_holder(plan, pr.path);
    if (!holder) {
        mount_probe_free(&pr);
        return true; /* read-only, hidden or a tmpfs here already */
    }
    if (!own && unprotected(p, asked, pr.found == MOUNT_FOUND_MISSING ? NULL : pr.path)) {
        strv_push(&plan->notes, xasprintf("protect: %s left writable: unprotect = in the profile", asked));
        mount_probe_free(&pr);
        return true;
    }
    if (pr.found == MOUNT_FOUND_OBJECT && pr.is_dir && kind == PROTECT_FILE) {
        /* A directory where a file is read (.git of a plain repository, not
         * the "gitdir:" file of a worktree): nothing reads it as that file. */
        mount_probe_free(&pr);
        return true;
    }
    autofree char *holder_path = xstrdup(holder->path);
    char where[512];
    origin_format(&rule_holder(plan, pr.path)->at, where, sizeof where);
    if (pr.found == MOUNT_FOUND_MISSING) {
        if (missing == PROTECT_MISSING_IGNORE) {
            mount_probe_free(&pr);
            return true;
        }
        if (missing == PROTECT_MISSING_REFUSE) {
            *error = xasprintf("%s does not exist, and %s (%s) makes its directory writable: a "
                               "command could create it, and %s; create it first, make its "
                               "directory read-only, or add 'unprotect = %s' to [filesystem]",
                               asked, holder_path, where, why, asked);
            mount_probe_free(&pr);
            return false;
        }
        mount_probe_free(&pr);
        const char *content = kind == PROTECT_FILE ? (placeholder ? placeholder : "") : NULL;
        int err = probe(asked, true, content, plan, &pr, ctx);
        if (err == EROFS) {
            /* The kernel's own answer that its directory is on a read-only
             * mount: an outer sandbox's (Codex keeps P/.git read-only even
             * where there is no repository). The command cannot create it
             * either: that mount reaches the sandbox locked read-only
             * (copied into a less privileged mount namespace, or under
             * Landlock, where nothing is remounted). */
            strv_push(&plan->notes, xasprintf("protect: %s cannot be created (read-only file "
                                              "system here): it stays absent, as protected", asked));
            mount_probe_free(&pr);
            return true;
        }
        if (err || pr.found != MOUNT_FOUND_OBJECT) {
            *error = xasprintf("%s: cannot create it to keep it read-only (%s): %s", asked,
                               why, err ? strerror(err) : "something else is in the way");
            mount_probe_free(&pr);
            return false;
        }
        strv_push(&plan->notes, xasprintf("protect: created %s (%s) to keep it read-only", pr.path,
                                          content ? (*content ? "a file meaning nothing" : "an empty file")
                                                  : "an empty directory"));
    }
    if (!strcmp(holder_path, pr.path) && holder->at.file != protect_label)
        strv_push(&plan->warnings,
                  xasprintf("warning: %s: rw = %s is a protected path (%s): it stays "
                            "read-only; add 'unprotect = %s' to [filesystem] of a profile if "
                            "the command must write it", where, pr.path, why, pr.path));
    if (pr.found == MOUNT_FOUND_LINK && plan_has_path(plan, pr.path)) {
        /* the same link found on the way to another protected path */
        mount_probe_free(&pr);
        return true;
    }
    if (pr.found == MOUNT_FOUND_LINK) {
        /* The link itself is covered: whatever it points at, the command
         * sees an empty read-only file and cannot re-point it. */
        strv_push(&plan->warnings,
                  xasprintf("warning: %s is a symlink to %s inside %s, which this profile makes "
                            "writable (%s): an earlier sandbox may have planted it (%s); check it "
                            "and remove it", pr.path, pr.link_target, holder_path, where, why));
        plan_put(plan, (struct mount_entry){
            .op = MOUNT_OP_HIDE, .path = pr.path, .fd = pr.fd, .id_known = pr.id_known,
            .dev = pr.dev, .ino = pr.ino, .is_dir = false, .mode = 0444,
            .at = { protect_label, 0 }, .at_link = true, .why = why,
        });
    } else {
        plan_put(plan, (struct mount_entry){
            .op = MOUNT_OP_BIND_RO, .path = pr.path, .fd = pr.fd, .id_known = pr.id_known,
            .dev = pr.dev, .ino = pr.ino, .is_dir = pr.is_dir,
            .mode = pr.mode, .at = { protect_label, 0 }, .why = why,
        });
    }
    autofree char *path = xstrdup(pr.path);
    pr.path = NULL;
    pr.fd = -1;
    mount_probe_free(&pr);
    pin_parents(plan, holder_path, path, probe, ctx);
    return true;
}

static bool not_a_project(const struct protect_list *list, const char *path)
{
    for (size_t i = 0; i < list->nnot_projects; i++)
        if (mount_path_within(path, list->not_projects[i]))
            return true;
    return false;
}

bool mount_plan_protect(struct mount_plan *plan, const struct protect_list *list,
                        const struct profile *p, mount_probe_fn probe, void *ctx, char **error)
{
    *error = NULL;
    for (size_t i = 0; list && i < list->n; i++) {
        const struct protected_path *pp = &list->v[i];
        if (!protect_one(plan, p, pp->path, pp->kind, pp->missing, pp->own, pp->why,
                         pp->placeholder, probe, ctx, error))
            return false;
    }
    /* The writable directories as the profile made them, before pins are
     * added: each may be a project with a repository. */
    struct strv roots = { 0 };
    for (size_t i = 0; i < plan->n; i++)
        if ((plan->v[i].op == MOUNT_OP_BIND_RW || plan->v[i].op == MOUNT_OP_ROOT_HOST) &&
            plan->v[i].is_dir && plan->v[i].at.file != protect_label &&
            plan->v[i].why != git_dir_why && /* protect_list_add_git_dir()'s */
            !(list && not_a_project(list, plan->v[i].path)))
            strv_push(&roots, xstrdup(plan->v[i].path));
    size_t nnames;
    const struct protected_name *names = protect_project_names(&nnames);
    bool ok = true;
    for (size_t r = 0; ok && r < roots.n; r++) {
        const char *root = strcmp(roots.v[r], "/") ? roots.v[r] : "";
        for (size_t k = 0; ok && k < nnames; k++) {
            /* The first component must exist: sbx never creates a .git (or
             * .claude) where a project has none. */
            const char *second = strchr(names[k].name + 1, '/');
            if (second) {
                autofree char *top = xasprintf("%s%.*s", root, (int)(second - names[k].name),
                                               names[k].name);
                struct mount_probe pr = { .fd = -1 };
                bool dir = probe(top, false, NULL, plan, &pr, ctx) == 0 &&
                           pr.found == MOUNT_FOUND_OBJECT && pr.is_dir;
                mount_probe_free(&pr);
                if (!dir)
                    continue;
            }
            autofree char *path = xasprintf("%s%s", root, names[k].name);
            ok = protect_one(plan, p, path, names[k].kind, names[k].missing, false, names[k].why,
                             NULL, probe, ctx, error);
        }
    }
    strv_free(&roots);
    plan_order(plan);
    return ok;
}
