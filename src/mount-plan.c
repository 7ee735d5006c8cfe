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

static enum mount_op op_for_rule(enum fs_kind kind)
{
    switch (kind) {
    case FS_RW: return MOUNT_OP_BIND_RW;
    case FS_RO: return MOUNT_OP_BIND_RO;
    case FS_TMPFS: return MOUNT_OP_TMPFS;
    case FS_HIDE: return MOUNT_OP_HIDE;
    }
    return MOUNT_OP_BIND_RO;
}

static void entry_free(struct mount_entry *e)
{
    free(e->path);
    e->path = NULL;
    free(e->content);
    e->content = NULL;
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
        struct mount_resolved res = { NULL, -1, false, 0 };
        int err = resolve("/proc", &res, ctx);
        if (err) {
            char where[512];
            *error = xasprintf("%s: proc = yes with pid = no: the host's /proc cannot be "
                               "opened: %s", origin_format(&p->at[K_FS_PROC], where, sizeof where),
                               strerror(err));
            return false;
        }
        plan_put(plan, (struct mount_entry){
            .op = MOUNT_OP_PROC_HOST, .path = res.path, .fd = res.fd,
            .is_dir = true, .mode = 0555, .at = p->at[K_FS_PROC],
        });
    }
    if (p->dev == DEV_MINIMAL)
        plan_put(plan, (struct mount_entry){
            .op = MOUNT_OP_DEV_MINIMAL, .path = xstrdup("/dev"), .fd = -1,
            .is_dir = true, .mode = 0755, .at = p->at[K_FS_DEV],
        });

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
        struct mount_resolved res = { NULL, -1, false, 0 };
        int err = resolve(r->path, &res, ctx);
        if (err == ENOENT || err == ENOTDIR) {
            if (r->optional)
                continue;
            *error = xasprintf("%s: %s path %s does not exist (create it, or write "
                               "'%s?' to skip it when missing): %s",
                               where, fs_kind_name(r->kind), r->path,
                               fs_kind_name(r->kind), strerror(err));
            return false;
        }
        if (err) {
            *error = xasprintf("%s: %s path %s cannot be opened: %s", where,
                               fs_kind_name(r->kind), r->path, strerror(err));
            return false;
        }
        if (r->kind == FS_TMPFS && !res.is_dir) {
            *error = xasprintf("%s: tmpfs path %s (%s) is not a directory "
                               "(use 'hide' to cover a file)", where, r->path, res.path);
            free(res.path);
            if (res.fd >= 0)
                close(res.fd);
            return false;
        }
        plan_put(plan, (struct mount_entry){
            .op = op_for_rule(r->kind), .path = res.path, .fd = res.fd,
            .is_dir = res.is_dir, .mode = res.mode, .at = default_origin(&r->at),
        });
    }
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
