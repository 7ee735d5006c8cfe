/* The profile engine's loader: profile files, with their includes, into a
 * struct profile.
 *
 * Pure: the only system calls are the ones that read profile files. Profile
 * bytes are untrusted: every malformed input ends in an error message that
 * names the file and line, never in a crash, a hang or a silent cut.
 *
 * A file is read in two passes. The first is the INI front end
 * (profile_ini.c): the bytes into KEY = VALUE entries with their line
 * numbers. The second applies the entries (profile_values.c): `include`s
 * first, in order, then the file's own keys, so the file overrides what it
 * includes. What a key is and means is in its row of the key table
 * (profile_keys.c). */
#include "config.h"

#include "profile.h"

#include "lookup.h"
#include "profile_ini.h"
#include "profile_keys.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* More than this many errors in one load are counted, not printed. */
#define MAX_REPORTED_ERRORS 100

/* ------------------------------------------------------------------ */
/* Errors                                                               */

void add_error(struct loader *L, const struct origin *at, const char *fmt, ...)
{
    L->nerrors++;
    if (L->errs->n >= MAX_REPORTED_ERRORS)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    char where[PATH_MAX + 32];
    char *line = msg;
    if (at && at->file) {
        line = xasprintf("%s: %s", origin_format(at, where, sizeof where), msg);
        free(msg);
    }
    xgrow((void **)&L->errs->msg, &L->errs->cap, L->errs->n + 1, sizeof *L->errs->msg);
    L->errs->msg[L->errs->n++] = line;
}

/* Appended once at the end when errors were dropped. */
static void finish_errors(struct loader *L)
{
    strv_free(&L->loaded);
    if (L->nerrors > L->errs->n) {
        size_t more = L->nerrors - L->errs->n;
        xgrow((void **)&L->errs->msg, &L->errs->cap, L->errs->n + 1, sizeof *L->errs->msg);
        L->errs->msg[L->errs->n++] = xasprintf("... and %zu more error%s", more, more == 1 ? "" : "s");
    }
}

void profile_errors_free(struct profile_errors *errs)
{
    for (size_t i = 0; i < errs->n; i++)
        free(errs->msg[i]);
    free(errs->msg);
    errs->msg = NULL;
    errs->n = errs->cap = 0;
}

void suggest(const char *word, const char *const *candidates, char *out, size_t len)
{
    size_t best = SIZE_MAX;
    const char *pick = NULL;
    for (; *candidates; candidates++) {
        size_t d = edit_distance(word, *candidates);
        if (d < best) {
            best = d;
            pick = *candidates;
        }
    }
    size_t wl = strlen(word);
    if (pick && best <= 2 && best < wl)
        snprintf(out, len, " (did you mean '%s'?)", pick);
    else
        out[0] = '\0';
}

/* ------------------------------------------------------------------ */
/* Defaults                                                             */

/* Each row's default, parsed as if a file said it: the built-in profile
 * is written in the same language as the others. A default that does not
 * parse is a bug in the table, found by every test. */
void profile_init_defaults(struct profile *p)
{
    memset(p, 0, sizeof *p);
    struct profile_errors errs = {0};
    struct loader L = {.p = p, .errs = &errs};
    static const struct origin builtin = {NULL, 0};
    for (size_t i = 0; i < profile_nkeys; i++) {
        const struct key_def *d = &profile_keys[i];
        if (!d->dflt)
            continue;
        autofree char *value = xstrdup(d->dflt);
        struct key_input in = {&L, p, &builtin, value, false, false};
        if (!d->parse(&in, d)) {
            fprintf(stderr, "sbx: bug: the default of %s = %s does not parse: %s\n", d->name,
                    d->dflt, errs.n ? errs.msg[0] : "?");
            abort();
        }
    }
}

void profile_free(struct profile *p)
{
    free(p->name);
    free(p->path);
    free(p->description);
    for (size_t i = 0; i < p->nfiles; i++)
        free(p->files[i]);
    free(p->files);
    for (size_t i = 0; i < p->nlabels; i++)
        free(p->labels[i]);
    free(p->labels);
    free(p->hostname);
    free(p->forward);
    str_list_free(&p->allow);
    for (size_t i = 0; i < p->nfs; i++) {
        free(p->fs[i].path);
        free(p->fs[i].written);
    }
    free(p->fs);
    str_list_free(&p->env_keep);
    str_list_free(&p->env_set);
    str_list_free(&p->env_unset);
    str_list_free(&p->capabilities);
    str_list_free(&p->unprotect);
    str_list_free(&p->create);
    for (size_t i = 0; i < p->ndeny; i++) {
        free(p->deny[i].syscall);
        free(p->deny[i].text);
    }
    free(p->deny);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------------ */
/* Files and includes                                                   */

static const char *intern_file(struct profile *p, const char *path)
{
    for (size_t i = 0; i < p->nfiles; i++)
        if (!strcmp(p->files[i], path))
            return p->files[i];
    xgrow((void **)&p->files, &p->capfiles, p->nfiles + 1, sizeof *p->files);
    p->files[p->nfiles] = xstrdup(path);
    return p->files[p->nfiles++];
}

static bool load_text(struct loader *L, const char *label, const char *canon,
                      const char *data, size_t len);

/* Reads one file, with its checks: regular, bounded, readable. The FIFO
 * case matters: open(O_NONBLOCK) keeps a FIFO from hanging us. */
static bool load_file_at(struct loader *L, const char *path, const char *canon,
                         const struct origin *from);

static bool load_file(struct loader *L, const char *path, const struct origin *from)
{
    char canon[PATH_MAX];
    if (!realpath(path, canon)) {
        int e = errno;
        if (e == ELOOP)
            add_error(L, from, "%s: too many levels of symbolic links (a symlink loop?)", path);
        else
            add_error(L, from, "cannot read profile %s: %s", path, strerror(e));
        return false;
    }
    return load_file_at(L, path, canon, from);
}

/* load_file() of path, whose realpath() is canon */
static bool load_file_at(struct loader *L, const char *path, const char *canon,
                         const struct origin *from)
{
    for (int i = 0; i < L->depth; i++) {
        if (L->chain[i] && !strcmp(L->chain[i], canon)) {
            size_t cap = 64, len = 0;
            char *chain = xmalloc(cap);
            chain[0] = '\0';
            for (int j = i; j < L->depth; j++) {
                const char *piece = L->chain[j];
                xgrow((void **)&chain, &cap, len + strlen(piece) + 5, 1);
                len += (size_t)sprintf(chain + len, "%s -> ", piece);
            }
            add_error(L, from, "include cycle: %s%s", chain, canon);
            free(chain);
            return false;
        }
    }
    for (size_t i = 0; i < L->loaded.n; i++)
        if (!strcmp(L->loaded.v[i], canon))
            return true;
    if (L->depth >= PROFILE_MAX_INCLUDE_DEPTH + 1) {
        add_error(L, from, "includes nest deeper than %d levels at %s", PROFILE_MAX_INCLUDE_DEPTH, canon);
        return false;
    }
    int fd = open(canon, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        add_error(L, from, "cannot read profile %s: %s", path, strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        add_error(L, from, "%s is %s, not a profile file", path,
                  S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        close(fd);
        return false;
    }
    if (st.st_size > PROFILE_MAX_FILE_SIZE) {
        add_error(L, from, "%s is %lld bytes; profiles are at most %d", path, (long long)st.st_size,
                  PROFILE_MAX_FILE_SIZE);
        close(fd);
        return false;
    }
    size_t cap = (size_t)st.st_size + 1, len = 0;
    char *data = xmalloc(cap);
    for (;;) {
        ssize_t r = read(fd, data + len, cap - len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            add_error(L, from, "cannot read profile %s: %s", path, strerror(errno));
            free(data);
            close(fd);
            return false;
        }
        if (r == 0)
            break;
        len += (size_t)r;
        if (len == cap) {
            if (len > PROFILE_MAX_FILE_SIZE) {
                add_error(L, from, "%s grew past %d bytes while read", path, PROFILE_MAX_FILE_SIZE);
                free(data);
                close(fd);
                return false;
            }
            cap *= 2;
            data = xrealloc(data, cap);
        }
    }
    close(fd);
    bool ok = load_text(L, path, canon, data, len);
    free(data);
    return ok;
}

static void dirname_of(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, len, ".");
    else if (slash == path)
        snprintf(out, len, "/");
    else
        snprintf(out, len, "%.*s", (int)(slash - path), path);
}

/* The spellings the loader applies before the file's other keys. (The
 * row of `include` takes the rest: "-include?" there does nothing.) */
/* include, include?, and -include / -include? (refused by do_include()) */
static bool is_include(const struct ini_entry *e)
{
    const char *k = e->key + (e->key[0] == '-');
    return !strcmp(e->section, "profile") && (!strcmp(k, "include") || !strcmp(k, "include?"));
}

static bool do_include(struct loader *L, const struct ini_entry *e, const char *file,
                       const char *canon, const char *profile_dir)
{
    struct origin at = {file, e->line};
    bool remove = e->key[0] == '-';
    if (remove) {
        add_error(L, &at, "'%s' is not supported: an include cannot be undone", e->key);
        return false;
    }
    bool optional = !strcmp(e->key, "include?");
    autofree char *name = expand_vars(L, &at, e->value, profile_dir);
    if (!name)
        return false;
    if (!*name) {
        add_error(L, &at, "include: empty value (expected a profile name or path)");
        return false;
    }
    char *path;
    if (profile_name_is_path(name)) {
        const char *rel = name;
        while (rel[0] == '.' && rel[1] == '/')
            rel += 2;
        path = name[0] == '/' ? xstrdup(name) : xasprintf("%s/%s", profile_dir, rel);
        if (access(path, F_OK) != 0 && optional) {
            free(path);
            return true;
        }
    } else {
        /* a file may include the profile it shadows: "default" from a user's
         * default.ini means the next default.ini on the search path */
        path = profile_search_find(L->search, name, canon);
        if (!path) {
            if (optional)
                return true;
            autofree char *tried = profile_search_describe(L->search);
            autofree char *near = profile_search_nearest(L->search, name);
            add_error(L, &at, "include: no profile '%s' (looked for %s.ini in %s)%s%s%s", name,
                      name, tried, near ? " (did you mean '" : "", near ? near : "",
                      near ? "'?)" : "");
            return false;
        }
    }
    bool ok = load_file(L, path, &at);
    free(path);
    return ok;
}

static bool load_text(struct loader *L, const char *label, const char *canon,
                      const char *data, size_t len)
{
    const char *file = intern_file(L->p, label);
    strv_push(&L->loaded, xstrdup(canon));
    L->chain[L->depth++] = canon;
    size_t before = L->nerrors;
    struct ini_entries entries = {0};
    profile_ini_parse(L, file, data, len, &entries);

    char profile_dir[PATH_MAX];
    dirname_of(canon, profile_dir, sizeof profile_dir);

    /* includes first, in order, so this file overrides them */
    for (size_t i = 0; i < entries.n; i++) {
        const struct ini_entry *e = &entries.v[i];
        if (is_include(e))
            do_include(L, e, file, canon, profile_dir);
    }
    for (size_t i = 0; i < entries.n; i++) {
        const struct ini_entry *e = &entries.v[i];
        if (is_include(e))
            continue;
        struct origin at = {file, e->line};
        profile_apply_entry(L, e->section, e->key, e->value, &at, profile_dir);
    }
    ini_entries_free(&entries);
    L->depth--;
    return L->nerrors == before;
}

char *profile_unused_warning(const struct profile *p)
{
    if (!p->nforward || p->outbound || p->net_mode != NET_LOOPBACK || !p->ns[NS_NET])
        return NULL;
    char at[PATH_MAX + 16];
    return xasprintf("%s: forward = %u without outbound = yes: pasta forwards the host's ports "
                     "only with outbound network; here the sandbox's 127.0.0.1:%u is its own and "
                     "a connection to it is refused (add outbound = yes to [network])",
                     origin_format(&p->at[K_NET_FORWARD], at, sizeof at), p->forward[0],
                     p->forward[0]);
}

/* Checks that need the whole profile: settings that contradict each other. */
static void validate(struct loader *L)
{
    struct profile *p = L->p;
    char a[PATH_MAX + 16], b[PATH_MAX + 16];
    if (!p->ns[NS_NET] && p->net_mode != NET_HOST)
        add_error(L, NULL, "%s: net = no contradicts mode = %s (%s); use mode = host to share the host network",
                  origin_format(&p->at[K_NS_NET], a, sizeof a), net_mode_name(p->net_mode),
                  origin_format(&p->at[K_NET_MODE], b, sizeof b));
    if (p->outbound && p->net_mode != NET_LOOPBACK)
        add_error(L, NULL, "%s: outbound = yes needs mode = loopback (mode = %s at %s)",
                  origin_format(&p->at[K_NET_OUTBOUND], a, sizeof a), net_mode_name(p->net_mode),
                  origin_format(&p->at[K_NET_MODE], b, sizeof b));
    if (p->allow.n && p->outbound)
        add_error(L, NULL, "%s: allow = %s contradicts outbound = yes (%s): allow is the only way "
                  "out, through sbx's proxy; outbound = yes is the whole network through pasta. "
                  "Keep one (outbound = no, or allow = none)",
                  origin_format(&p->allow.v[0].at, a, sizeof a), p->allow.v[0].value,
                  origin_format(&p->at[K_NET_OUTBOUND], b, sizeof b));
    else if (p->allow.n && (p->net_mode != NET_LOOPBACK || !p->ns[NS_NET]))
        add_error(L, NULL, "%s: allow = %s needs mode = loopback and net = yes (mode = %s at %s): "
                  "the proxy serves the sandbox's own loopback",
                  origin_format(&p->allow.v[0].at, a, sizeof a), p->allow.v[0].value,
                  net_mode_name(p->net_mode), origin_format(&p->at[K_NET_MODE], b, sizeof b));
    if (!p->ns[NS_MOUNT] && (p->root != ROOT_HOST || p->nfs || p->proc || p->dev != DEV_NONE))
        add_error(L, NULL, "%s: mount = no leaves no way to apply [filesystem]: it needs root = host, "
                  "proc = no, dev = none and no rw/ro/tmpfs/hide rules",
                  origin_format(&p->at[K_NS_MOUNT], a, sizeof a));
    /* io_uring operations (IORING_OP_CONNECT, ...) never pass the filter
     * that the deny rules are in: the ledger would report a clean run. */
    if (p->io_uring && p->ndeny)
        add_error(L, NULL, "%s: io_uring = yes contradicts the deny rules (%s: deny = %s): "
                  "io_uring operations bypass them; drop io_uring = yes, or the deny rules "
                  "(-deny = *)",
                  origin_format(&p->at[K_SEC_IO_URING], a, sizeof a),
                  origin_format(&p->deny[0].at, b, sizeof b), p->deny[0].text);
}

static void loader_init(struct loader *L, struct profile *p, const struct profile_search *search,
                        const struct profile_vars *vars, struct profile_errors *errs)
{
    memset(L, 0, sizeof *L);
    L->p = p;
    L->search = search;
    L->vars = vars;
    L->errs = errs;
}

bool profile_load(struct profile *p, const char *name_or_path, const struct profile_search *search,
                  const struct profile_vars *vars, struct profile_errors *errs)
{
    struct loader L;
    loader_init(&L, p, search, vars, errs);
    free(p->name);
    p->name = xstrdup(name_or_path);
    char *path;
    if (!*name_or_path) {
        add_error(&L, NULL, "empty profile name");
        return false;
    }
    if (profile_name_is_path(name_or_path)) {
        path = xstrdup(name_or_path);
    } else {
        path = profile_search_find(search, name_or_path, NULL);
        if (!path) {
            autofree char *tried = profile_search_describe(search);
            autofree char *near = profile_search_nearest(search, name_or_path);
            add_error(&L, NULL, "no profile '%s' (looked for %s.ini in %s); `sbx profile list` "
                      "shows them%s%s%s", name_or_path, name_or_path, tried,
                      near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
            finish_errors(&L);
            return false;
        }
    }
    /* one realpath() for both (one readlink per component) */
    char canon[PATH_MAX];
    if (realpath(path, canon)) {
        free(p->path);
        p->path = xstrdup(canon);
        load_file_at(&L, path, canon, NULL);
    } else {
        load_file(&L, path, NULL);   /* says why */
    }
    free(path);
    /* every error of every kind at once (profile check): a key that failed
     * kept its default, a valid setting, so the whole-profile checks still
     * judge real values */
    validate(&L);
    finish_errors(&L);
    return L.nerrors == 0;
}

bool profile_load_buffer(struct profile *p, const char *filename, const char *data, size_t len,
                         const struct profile_search *search, const struct profile_vars *vars,
                         struct profile_errors *errs)
{
    struct loader L;
    loader_init(&L, p, search, vars, errs);
    free(p->name);
    p->name = xstrdup(filename);
    if (len > PROFILE_MAX_FILE_SIZE) {
        add_error(&L, NULL, "%s is %zu bytes; profiles are at most %d", filename, len, PROFILE_MAX_FILE_SIZE);
        finish_errors(&L);
        return false;
    }
    char canon[PATH_MAX];
    if (!realpath(filename, canon))
        snprintf(canon, sizeof canon, "%s", filename);
    load_text(&L, filename, canon, data, len);
    if (!L.nerrors)
        validate(&L);
    finish_errors(&L);
    return L.nerrors == 0;
}

/* KEY, "-KEY" or "KEY?" of a row whose value is a path */
static bool is_path_key(const char *section, const char *key)
{
    char name[64];
    snprintf(name, sizeof name, "%s", key + (key[0] == '-'));
    size_t n = strlen(name);
    if (n && name[n - 1] == '?')
        name[n - 1] = '\0';
    const struct key_def *d = profile_key_find(section, name);
    return d && (d->flags & KEY_PATH);
}

bool profile_apply_option(struct profile *p, const char *section, const char *key, const char *value,
                          const char *origin_label, const struct profile_vars *vars,
                          struct profile_errors *errs)
{
    struct loader L;
    loader_init(&L, p, NULL, vars, errs);
    const char *label = NULL;
    for (size_t i = 0; i < p->nlabels; i++)
        if (!strcmp(p->labels[i], origin_label))
            label = p->labels[i];
    if (!label) {
        xgrow((void **)&p->labels, &p->caplabels, p->nlabels + 1, sizeof *p->labels);
        label = p->labels[p->nlabels++] = xstrdup(origin_label);
    }
    struct origin at = {label, 0};
    char cwd[PATH_MAX];
    const char *dir = vars && vars->cwd ? vars->cwd : (getcwd(cwd, sizeof cwd) ? cwd : "/");
    /* a relative path on the command line means relative to the caller */
    autofree char *abs = NULL;
    if (is_path_key(section, key) && value[0] && value[0] != '/' && value[0] != '$')
        value = abs = xasprintf("%s/%s", dir, value);
    profile_apply_entry(&L, section, key, value, &at, NULL);
    if (!L.nerrors)
        validate(&L);
    finish_errors(&L);
    return L.nerrors == 0;
}
