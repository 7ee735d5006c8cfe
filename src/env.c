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

static bool token_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static bool b64url_byte(char c)
{
    return token_byte(c) || c == '=';
}

/* How many token bytes start s. */
static size_t token_run(const char *s)
{
    size_t n = 0;
    while (token_byte(s[n]))
        n++;
    return n;
}

/* scheme://user:password@host: the authority's userinfo with a ':' and a
 * non-empty password after it (RFC 3986 3.2.1). */
static bool url_with_password(const char *v)
{
    for (const char *p = strstr(v, "://"); p; p = strstr(p + 3, "://")) {
        const char *auth = p + 3;
        size_t al = strcspn(auth, "/?# \t\"'");
        const char *at = memrchr(auth, '@', al);
        if (!at)
            continue;
        const char *colon = memchr(auth, ':', (size_t)(at - auth));
        if (colon && colon + 1 < at)
            return true;
    }
    return false;
}

/* header.payload.signature, base64url, the header a JSON object
 * ("eyJ" is base64 of '{"') */
static bool jwt(const char *v)
{
    for (const char *p = strstr(v, "eyJ"); p; p = strstr(p + 1, "eyJ")) {
        if (p != v && b64url_byte(p[-1]))
            continue;
        const char *q = p;
        int parts = 0;
        size_t len[3] = {0};
        for (; parts < 3; parts++) {
            while (b64url_byte(*q)) {
                q++;
                len[parts]++;
            }
            if (*q != '.' || parts == 2) {
                parts++;
                break;
            }
            q++;
        }
        if (parts == 3 && len[0] >= 10 && len[1] >= 10 && len[2] >= 16)
            return true;
    }
    return false;
}

const char *env_value_looks_secret(const char *v)
{
    /* issuers' documented token prefixes, with the least number of
     * token bytes after them that makes a real one (fewer is a word) */
    static const struct {
        const char *prefix;
        size_t min;
        const char *why;
    } tokens[] = {
        {"ghp_", 30, "a GitHub token"}, {"gho_", 30, "a GitHub token"},
        {"ghu_", 30, "a GitHub token"}, {"ghs_", 30, "a GitHub token"},
        {"ghr_", 30, "a GitHub token"}, {"github_pat_", 30, "a GitHub token"},
        {"glpat-", 20, "a GitLab token"}, {"gldt-", 20, "a GitLab token"},
        {"glrt-", 20, "a GitLab token"}, {"glptt-", 20, "a GitLab token"},
        {"xoxb-", 20, "a Slack token"}, {"xoxp-", 20, "a Slack token"},
        {"xoxa-", 20, "a Slack token"}, {"xoxs-", 20, "a Slack token"},
        {"xapp-", 20, "a Slack token"},
        {"sk-ant-", 30, "an Anthropic API key"}, {"sk-proj-", 30, "an OpenAI API key"},
        {"sk-", 30, "an API secret key (OpenAI and others)"},
        {"sk_live_", 20, "a Stripe secret key"}, {"rk_live_", 20, "a Stripe key"},
        {"AKIA", 16, "an AWS access key id"}, {"ASIA", 16, "an AWS access key id"},
        {"hf_", 30, "a Hugging Face token"}, {"npm_", 36, "an npm token"},
        {"pypi-AgE", 50, "a PyPI token"}, {"dop_v1_", 60, "a DigitalOcean token"},
        {"AIza", 35, "a Google API key"}, {"ya29.", 30, "a Google OAuth token"},
        {"SG.", 20, "a SendGrid key"}, {"shpat_", 32, "a Shopify token"},
        {"glsa_", 32, "a Grafana token"}, {"pul-", 40, "a Pulumi token"},
        {"sntrys_", 40, "a Sentry token"}, {"dapi", 32, "a Databricks token"},
        {"AGE-SECRET-KEY-1", 50, "an age secret key"},
    };
    for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
        size_t pl = strlen(tokens[i].prefix);
        for (const char *p = strstr(v, tokens[i].prefix); p; p = strstr(p + 1, tokens[i].prefix))
            if ((p == v || !token_byte(p[-1])) &&
                token_run(p + pl) >= tokens[i].min)
                return tokens[i].why;
    }
    if (url_with_password(v))
        return "a URL with a password";
    if (jwt(v))
        return "a JWT";
    const char *pem = strstr(v, "PRIVATE KEY-----");
    if (pem && strstr(v, "-----BEGIN "))
        return "a private key";
    /* connection strings: ADO.NET, Azure Storage and Service Bus */
    static const char *const fields[] = {"Password=", "Pwd=", "AccountKey=", "SharedAccessKey=",
                                         "SharedAccessSignature="};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        size_t fl = strlen(fields[i]);
        for (const char *p = strcasestr(v, fields[i]); p; p = strcasestr(p + 1, fields[i]))
            if ((p == v || p[-1] == ';' || p[-1] == ' ') && p[fl] && p[fl] != ';')
                return "a connection string with a key or password";
    }
    return NULL;
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
        /* a secret under a name no pattern foresaw (DATABASE_URL,
         * MY_APP_CONFIG=ghp_...): out, unless a keep rule names it */
        if (passes && p->env_unset_secret_values && env_value_looks_secret(strchr(*e, '=') + 1) &&
            !last_match(&p->env_keep, *e, len))
            passes = false;
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
