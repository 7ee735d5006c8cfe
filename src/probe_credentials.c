/* Credential-like files this process can read (probe_credentials.h).
 *
 * Two ways to find them: known stores, checked by path (the table
 * credential_stores.c, which profiles/default.ini hides), and a
 * bounded walk of $HOME and the working directory that flags key files by
 * name and small text files by content markers. A hidden path reads as
 * an empty file or an empty directory, so it is not a hit. Symlinks are
 * never followed by the walk: a loop or a link to /proc cannot stall it. */
#include "config.h"

#include "probe_credentials.h"

#include "credential_stores.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* File names that are key material whatever they hold. */
static const struct {
    const char *pattern;
    const char *label;
} key_names[] = {
    {"id_rsa", "an SSH private key"},
    {"id_dsa", "an SSH private key"},
    {"id_ecdsa", "an SSH private key"},
    {"id_ed25519", "an SSH private key"},
    {"id_ecdsa_sk", "an SSH private key"},
    {"id_ed25519_sk", "an SSH private key"},
    {"*.pem", "a PEM file (key or certificate)"},
    {"*.key", "a key file"},
    {"*.p12", "a PKCS#12 key store"},
    {"*.pfx", "a PKCS#12 key store"},
    {"*.jks", "a Java key store"},
    {"*.keystore", "a Java key store"},
    {".git-credentials", "git credential store"},
    {".netrc", "netrc passwords"},
    {".pgpass", "PostgreSQL passwords"},
    {".pypirc", "PyPI credentials"},
    {".vault-token", "Vault token"},
    {"credentials", "a credentials file"},
    {"credentials.toml", "a credentials file"},
    {"credentials.tfrc.json", "Terraform Cloud token"},
};

/* What the content of a credential file shows. The labels never repeat
 * the marker, so a report of the probe cannot itself become a hit. */
static const struct {
    const char *marker;
    const char *label;
} markers[] = {
    {"_authToken", "an npm auth token"},
    {"npmAuthToken", "an npm auth token"},
    {"oauth_token", "an OAuth token"},
    {"refresh_token", "an OAuth refresh token"},
    {"client_secret", "an OAuth client secret"},
    {"aws_secret_access_key", "an AWS secret key"},
    {"\"auths\"", "container registry auths"},
    {"<password>", "a password (Maven settings)"},
    {"ghp_", "a GitHub token"},
    {"gho_", "a GitHub token"},
    {"github_pat_", "a GitHub token"},
    {"glpat-", "a GitLab token"},
    {"sk-ant-", "an Anthropic API key"},
    {"xoxb-", "a Slack token"},
    {"xoxp-", "a Slack token"},
};

/* Directories the walk does not enter: caches and toolchains that are big,
 * hold no credentials of their own, and would eat the bounds. */
static const char *const skipped_dirs[] = {
    ".git", "node_modules", "target", ".cache", ".rustup", ".npm", ".pyenv", ".nvm",
    ".venv", "venv", "__pycache__", "registry", ".gradle", "go", NULL,
};

/* Source code and documentation name markers as text (sbx's own sources
 * do); their contents are not read. Key names still count. */
static const char *const unread_suffixes[] = {
    ".c", ".h", ".cc", ".cpp", ".hpp", ".rs", ".go", ".py", ".js", ".mjs", ".ts", ".java",
    ".rb", ".sh", ".bash", ".md", ".rst", ".1", ".5", ".7", ".8", ".am", ".in", ".ac", ".m4",
    ".html", ".log", ".trs", NULL,
};

const char *cred_content_marker(const char *buf, size_t len)
{
    /* a private key in PEM or OpenSSH form: "-----BEGIN ... PRIVATE KEY-----" */
    const char *end = memmem(buf, len, "PRIVATE KEY-----", 16);
    if (end && memmem(buf, (size_t)(end - buf), "-----BEGIN ", 11))
        return "a private key";
    for (size_t i = 0; i < sizeof markers / sizeof *markers; i++)
        if (memmem(buf, len, markers[i].marker, strlen(markers[i].marker)))
            return markers[i].label;
    return NULL;
}

const char *cred_name_label(const char *name)
{
    for (size_t i = 0; i < sizeof key_names / sizeof *key_names; i++)
        if (fnmatch(key_names[i].pattern, name, 0) == 0)
            return key_names[i].label;
    return NULL;
}

static bool has_unread_suffix(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; unread_suffixes[i]; i++) {
        size_t k = strlen(unread_suffixes[i]);
        if (n > k && !strcmp(name + n - k, unread_suffixes[i]))
            return true;
    }
    return false;
}

static bool is_skipped_dir(const char *name)
{
    for (size_t i = 0; skipped_dirs[i]; i++)
        if (!strcmp(name, skipped_dirs[i]))
            return true;
    return false;
}

static bool already_hit(const struct cred_scan *s, const struct stat *st)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->hits[i].dev == st->st_dev && s->hits[i].ino == st->st_ino)
            return true;
    return false;
}

static void add_hit(struct cred_scan *s, const char *path, const struct stat *st,
                    const char *kind, const char *label)
{
    if (already_hit(s, st))
        return;
    if (s->n >= CRED_SCAN_MAX_HITS) {
        if (s->complete) {
            s->complete = false;
            s->stopped_by = xasprintf("%d hits listed", CRED_SCAN_MAX_HITS);
        }
        return;
    }
    xgrow((void **)&s->hits, &s->cap, s->n + 1, sizeof *s->hits);
    s->hits[s->n++] = (struct cred_hit){
        .path = xstrdup(path), .why = xasprintf("%s: %s", kind, label),
        .dev = st->st_dev, .ino = st->st_ino,
    };
}

/* A directory with any entry, or a regular file with any byte, that this
 * process can open for reading. */
static bool readable_with_content(int fd, const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return st->st_size > 0;
    if (!S_ISDIR(st->st_mode))
        return false;
    int dup_fd = dup(fd);
    if (dup_fd < 0)
        return false;
    DIR *d = fdopendir(dup_fd);
    if (!d) {
        close(dup_fd);
        return false;
    }
    bool any = false;
    struct dirent *e;
    while (!any && (e = readdir(d)))
        any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return any;
}

static void check_known_stores(struct cred_scan *s, const char *home)
{
    for (size_t i = 0; i < credential_stores_n; i++) {
        const struct credential_store *c = &credential_stores[i];
        const char *rel = c->probe ? c->probe : c->path;
        if (rel[0] != '/' && !home)
            continue;
        char *path = rel[0] == '/' ? xstrdup(rel) : xasprintf("%s/%s", home, rel);
        /* O_NONBLOCK: a FIFO planted at a known name must not hang us */
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && readable_with_content(fd, &st))
            add_hit(s, path, &st, "name", c->label);
        if (fd >= 0)
            close(fd);
        free(path);
    }
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct walk {
    struct cred_scan *s;
    long long deadline_ms;
    char buf[CRED_SCAN_MAX_FILE_BYTES];
};

static bool walk_bounded(struct walk *w)
{
    struct cred_scan *s = w->s;
    if (!s->complete)
        return false;
    if (s->entries >= CRED_SCAN_MAX_ENTRIES) {
        s->complete = false;
        s->stopped_by = xasprintf("%d entries looked at", CRED_SCAN_MAX_ENTRIES);
        return false;
    }
    if (now_ms() > w->deadline_ms) {
        s->complete = false;
        s->stopped_by = xasprintf("%d ms spent", CRED_SCAN_MAX_MS);
        return false;
    }
    return true;
}

static void check_file(struct walk *w, int dirfd, const char *name, const char *path,
                       const struct stat *st)
{
    const char *label = cred_name_label(name);
    if (label) {
        int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd >= 0) {
            if (st->st_size > 0)
                add_hit(w->s, path, st, "name", label);
            close(fd);
        }
        return;
    }
    if (st->st_size <= 0 || st->st_size > CRED_SCAN_MAX_FILE_BYTES || has_unread_suffix(name))
        return;
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return;
    size_t len = 0;
    while (len < sizeof w->buf) {
        ssize_t r = read(fd, w->buf + len, sizeof w->buf - len);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    /* a NUL byte: a binary (an object file holds these very markers) */
    if (memchr(w->buf, '\0', len))
        return;
    const char *marker = cred_content_marker(w->buf, len);
    if (marker)
        add_hit(w->s, path, st, "content", marker);
}

static void walk_dir(struct walk *w, int dirfd, const char *path, int depth)
{
    DIR *d = fdopendir(dirfd);
    if (!d) {
        close(dirfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) && walk_bounded(w)) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        w->s->entries++;
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        char *child = xasprintf("%s/%s", strcmp(path, "/") ? path : "", e->d_name);
        if (S_ISREG(st.st_mode)) {
            check_file(w, dirfd, e->d_name, child, &st);
        } else if (S_ISDIR(st.st_mode) && depth < CRED_SCAN_MAX_DEPTH &&
                   !is_skipped_dir(e->d_name) && !already_hit(w->s, &st)) {
            int fd = openat(dirfd, e->d_name,
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
            if (fd >= 0)
                walk_dir(w, fd, child, depth + 1);
        }
        free(child);
    }
    closedir(d);
}

void cred_scan_run(struct cred_scan *s, const char *home, const char *cwd)
{
    memset(s, 0, sizeof *s);
    s->complete = true;
    if (home && home[0] != '/')
        home = NULL;
    if (cwd && cwd[0] != '/')
        cwd = NULL;
    /* copies: the caller's cwd may be a buffer of its own stack frame */
    s->roots[0] = home ? xstrdup(home) : NULL;
    s->roots[1] = cwd ? xstrdup(cwd) : NULL;
    check_known_stores(s, home);
    struct walk *w = xmalloc(sizeof *w);
    w->s = s;
    w->deadline_ms = now_ms() + CRED_SCAN_MAX_MS;
    for (int i = 0; i < 2; i++) {
        if (!s->roots[i] || (i == 1 && home && !strcmp(home, cwd)))
            continue;
        int fd = open(s->roots[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
        if (fd >= 0)
            walk_dir(w, fd, s->roots[i], 0);
    }
    free(w);
}

void cred_scan_free(struct cred_scan *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->hits[i].path);
        free(s->hits[i].why);
    }
    free(s->hits);
    free(s->stopped_by);
    free(s->roots[0]);
    free(s->roots[1]);
    memset(s, 0, sizeof *s);
}
