#include "config.h"

#include "env.h"

#include "log.h"

#include <stdbool.h>
#include <string.h>

/* True when `name` is one of the space-separated words of list's entries. */
static bool list_has_name(const struct str_list *list, const char *name, size_t len)
{
    for (size_t i = 0; i < list->n; i++) {
        const char *s = list->v[i].value;
        while (*s) {
            s += strspn(s, " \t");
            size_t n = strcspn(s, " \t");
            if (n == len && !strncmp(s, name, len))
                return true;
            s += n;
        }
    }
    return false;
}

static size_t name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* Replaces NAME=... in out, or appends. */
static void env_put(struct strv *out, char *owned)
{
    size_t len = name_len(owned);
    for (size_t i = 0; i < out->n; i++) {
        if (name_len(out->v[i]) == len && !strncmp(out->v[i], owned, len)) {
            free(out->v[i]);
            out->v[i] = owned;
            return;
        }
    }
    strv_push(out, owned);
}

void env_build(const struct profile *p, char *const *base, struct strv *out)
{
    for (char *const *e = base; e && *e; e++) {
        /* An entry without '=' is not a variable; execve() would pass it
         * on, but no program can read it: drop it. */
        if (!strchr(*e, '='))
            continue;
        size_t len = name_len(*e);
        if (p->env_clear && !list_has_name(&p->env_keep, *e, len))
            continue;
        if (list_has_name(&p->env_unset, *e, len))
            continue;
        env_put(out, xstrdup(*e));
    }
    for (size_t i = 0; i < p->env_set.n; i++) {
        const char *s = p->env_set.v[i].value;
        const char *eq = strchr(s, '=');
        if (!eq || eq == s)
            die("[environment] set = '%s': expected NAME=VALUE", s);
        env_put(out, xstrdup(s));
    }
    env_put(out, xstrdup("container=sbx"));
    env_put(out, xasprintf("SBX_PROFILE=%s", p->name ? p->name : "default"));
}
