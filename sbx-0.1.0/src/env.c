#include "config.h"

#include "env.h"

#include "log.h"

#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

bool env_word_is_pattern(const char *word)
{
    return strpbrk(word, "*?") != NULL;
}

bool env_word_matches(const char *word, const char *name, size_t len)
{
    if (!env_word_is_pattern(word))
        return strlen(word) == len && !memcmp(word, name, len);
    /* No FNM_PATHNAME/FNM_PERIOD: a variable's name may hold any byte but
     * '=' and NUL (npm reads `npm_config_//host/:_authToken`), and '*'
     * must cover them all. */
    char stack[256];
    char *copy = len < sizeof stack ? stack : xstrndup(name, len);
    if (copy == stack) {
        memcpy(stack, name, len);
        stack[len] = '\0';
    }
    bool match = fnmatch(word, copy, FNM_CASEFOLD) == 0;
    if (copy != stack)
        free(copy);
    return match;
}

/* The latest entry of list (by seq) whose words match name; NULL if none. */
static const struct str_entry *last_match(const struct str_list *list, const char *name,
                                          size_t len)
{
    const struct str_entry *found = NULL;
    for (size_t i = 0; i < list->n; i++) {
        const char *s = list->v[i].value;
        while (*s) {
            s += strspn(s, " \t");
            size_t n = strcspn(s, " \t");
            if (n) {
                char word[256];
                if (n < sizeof word) {
                    memcpy(word, s, n);
                    word[n] = '\0';
                    if (env_word_matches(word, name, len) &&
                        (!found || list->v[i].seq >= found->seq))
                        found = &list->v[i];
                }
            }
            s += n;
        }
    }
    return found;
}

bool env_passes(const struct profile *p, const char *name, size_t len)
{
    const struct str_entry *keep = last_match(&p->env_keep, name, len);
    const struct str_entry *unset = last_match(&p->env_unset, name, len);
    if (unset && (!keep || unset->seq >= keep->seq))
        return false;
    if (keep)
        return true;
    return !p->env_clear;
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

/* Whether a `set` entry of p gives NAME (len bytes) a value. */
static bool set_has_name(const struct profile *p, const char *name, size_t len)
{
    for (size_t i = 0; i < p->env_set.n; i++) {
        const char *s = p->env_set.v[i].value;
        if (name_len(s) == len && !memcmp(s, name, len))
            return true;
    }
    return false;
}

void env_build(const struct profile *p, char *const *base, struct strv *out,
               struct env_diff *diff)
{
    for (char *const *e = base; e && *e; e++) {
        size_t len = name_len(*e);
        /* An entry without '=' is not a variable; execve() would pass it
         * on, but no program can read it: drop it. */
        bool passes = strchr(*e, '=') && env_passes(p, *e, len);
        if (diff && passes)
            strv_push(&diff->passed, xstrndup(*e, len));
        else if (diff && !set_has_name(p, *e, len))
            strv_push(&diff->removed, xstrndup(*e, len));
        if (passes)
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
    if (diff) {
        strv_push(&diff->set_by_sbx, xstrdup("container"));
        strv_push(&diff->set_by_sbx, xstrdup("SBX_PROFILE"));
    }
}

void env_diff_free(struct env_diff *diff)
{
    strv_free(&diff->passed);
    strv_free(&diff->removed);
    strv_free(&diff->set_by_sbx);
}
