/* The profile engine: INI files (parsed by inih) into a struct profile.
 *
 * Pure: the only system calls are the ones that read profile files. Profile
 * bytes are untrusted: every malformed input ends in an error message that
 * names the file and line, never in a crash, a hang or a silent cut.
 *
 * A file is read in two passes. The first hands the bytes to inih through a
 * line reader of our own, which checks what inih cannot report well (line
 * length, NUL bytes, UTF-8, syntax), and collects KEY = VALUE entries with
 * their line numbers (Debian's inih does not pass line numbers to handlers).
 * The second applies the entries: `include`s first, in order, then the
 * file's own keys, so the file overrides what it includes. */
#include "config.h"

#include "profile.h"

#include "lookup.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* More than this many errors in one load are counted, not printed. */
#define MAX_REPORTED_ERRORS 100

/* ------------------------------------------------------------------ */
/* The key table                                                        */

enum value_type {
    T_BOOL,
    T_STRING,
    T_HOSTNAME,
    T_ENUM,
    T_ID,
    T_LIMIT_COUNT,
    T_LIMIT_SIZE,
    T_LIMIT_SECONDS,
    T_TIMEOUT,
    T_FS_RULE,
    T_ENV_NAMES,   /* list of variable names */
    T_PATHS,       /* list of absolute paths */
    T_ASSIGN,      /* list: NAME=VALUE */
    T_PORTS,       /* list of ports */
    T_CAPS,        /* scalar holding a set of capability names, or none */
    T_DENY,        /* list */
    T_INCLUDE,     /* list, handled before everything else */
};

struct key_def {
    const char *section;
    const char *name;
    enum profile_key key;
    enum value_type type;
    const char *const *choices; /* T_ENUM, NULL-terminated */
    int aux;                    /* ns index, limit index, fs kind */
    bool list;
};

static const char *const net_modes[] = {"loopback", "none", "host", NULL};
static const char *const root_modes[] = {"ro", "tmpfs", "host", NULL};
static const char *const dev_modes[] = {"minimal", "none", NULL};
static const char *const seccomp_modes[] = {"default", "none", NULL};

static const struct key_def keys[] = {
    {"profile", "description", K_DESCRIPTION, T_STRING, NULL, 0, false},
    {"profile", "include", K_INCLUDE, T_INCLUDE, NULL, 0, true},
    {"namespaces", "user", K_NS_USER, T_BOOL, NULL, NS_USER, false},
    {"namespaces", "mount", K_NS_MOUNT, T_BOOL, NULL, NS_MOUNT, false},
    {"namespaces", "net", K_NS_NET, T_BOOL, NULL, NS_NET, false},
    {"namespaces", "pid", K_NS_PID, T_BOOL, NULL, NS_PID, false},
    {"namespaces", "ipc", K_NS_IPC, T_BOOL, NULL, NS_IPC, false},
    {"namespaces", "uts", K_NS_UTS, T_BOOL, NULL, NS_UTS, false},
    {"namespaces", "uid", K_UID, T_ID, NULL, 0, false},
    {"namespaces", "gid", K_GID, T_ID, NULL, 1, false},
    {"namespaces", "hostname", K_HOSTNAME, T_HOSTNAME, NULL, 0, false},
    {"namespaces", "nested_userns", K_NESTED_USERNS, T_BOOL, NULL, 0, false},
    {"network", "mode", K_NET_MODE, T_ENUM, net_modes, 0, false},
    {"network", "outbound", K_NET_OUTBOUND, T_BOOL, NULL, 0, false},
    {"network", "forward", K_NET_FORWARD, T_PORTS, NULL, 0, true},
    {"limits", "nofile", K_LIMIT_NOFILE, T_LIMIT_COUNT, NULL, LIMIT_NOFILE, false},
    {"limits", "nproc", K_LIMIT_NPROC, T_LIMIT_COUNT, NULL, LIMIT_NPROC, false},
    {"limits", "core", K_LIMIT_CORE, T_LIMIT_SIZE, NULL, LIMIT_CORE, false},
    {"limits", "cpu", K_LIMIT_CPU, T_LIMIT_SECONDS, NULL, LIMIT_CPU, false},
    {"limits", "fsize", K_LIMIT_FSIZE, T_LIMIT_SIZE, NULL, LIMIT_FSIZE, false},
    {"limits", "as", K_LIMIT_AS, T_LIMIT_SIZE, NULL, LIMIT_AS, false},
    {"limits", "stack", K_LIMIT_STACK, T_LIMIT_SIZE, NULL, LIMIT_STACK, false},
    {"limits", "memlock", K_LIMIT_MEMLOCK, T_LIMIT_SIZE, NULL, LIMIT_MEMLOCK, false},
    {"limits", "sigpending", K_LIMIT_SIGPENDING, T_LIMIT_COUNT, NULL, LIMIT_SIGPENDING, false},
    {"limits", "timeout", K_TIMEOUT, T_TIMEOUT, NULL, 0, false},
    {"filesystem", "root", K_FS_ROOT, T_ENUM, root_modes, 0, false},
    {"filesystem", "rw", K_FS_RW, T_FS_RULE, NULL, FS_RW, true},
    {"filesystem", "ro", K_FS_RO, T_FS_RULE, NULL, FS_RO, true},
    {"filesystem", "tmpfs", K_FS_TMPFS, T_FS_RULE, NULL, FS_TMPFS, true},
    {"filesystem", "hide", K_FS_HIDE, T_FS_RULE, NULL, FS_HIDE, true},
    {"filesystem", "unprotect", K_FS_UNPROTECT, T_PATHS, NULL, 0, true},
    {"filesystem", "proc", K_FS_PROC, T_BOOL, NULL, 0, false},
    {"filesystem", "dev", K_FS_DEV, T_ENUM, dev_modes, 0, false},
    {"environment", "clear", K_ENV_CLEAR, T_BOOL, NULL, 0, false},
    {"environment", "keep", K_ENV_KEEP, T_ENV_NAMES, NULL, 0, true},
    {"environment", "set", K_ENV_SET, T_ASSIGN, NULL, 0, true},
    {"environment", "unset", K_ENV_UNSET, T_ENV_NAMES, NULL, 0, true},
    {"security", "no_new_privs", K_SEC_NO_NEW_PRIVS, T_BOOL, NULL, 0, false},
    {"security", "capabilities", K_SEC_CAPABILITIES, T_CAPS, NULL, 0, false},
    {"security", "seccomp", K_SEC_SECCOMP, T_ENUM, seccomp_modes, 0, false},
    {"security", "io_uring", K_SEC_IO_URING, T_BOOL, NULL, 0, false},
    {"security", "deny", K_SEC_DENY, T_DENY, NULL, 0, true},
};
#define NKEYS (sizeof keys / sizeof keys[0])

static const char *const sections[] = {
    "profile", "namespaces", "network", "limits", "filesystem", "environment", "security", NULL,
};

/* ------------------------------------------------------------------ */
/* Names for the sandbox modules                                        */

const char *ns_kind_name(enum ns_kind k)
{
    static const char *const n[NS_COUNT] = {"user", "mount", "net", "pid", "ipc", "uts"};
    return (unsigned)k < NS_COUNT ? n[k] : "?";
}

const char *limit_kind_name(enum limit_kind k)
{
    static const char *const n[LIMIT_COUNT] = {
        "nofile", "nproc", "core", "cpu", "fsize", "as", "stack", "memlock", "sigpending"};
    return (unsigned)k < LIMIT_COUNT ? n[k] : "?";
}

int limit_kind_resource(enum limit_kind k)
{
    static const int r[LIMIT_COUNT] = {
        RLIMIT_NOFILE, RLIMIT_NPROC, RLIMIT_CORE, RLIMIT_CPU, RLIMIT_FSIZE,
        RLIMIT_AS, RLIMIT_STACK, RLIMIT_MEMLOCK, RLIMIT_SIGPENDING};
    return (unsigned)k < LIMIT_COUNT ? r[k] : -1;
}

const char *net_mode_name(enum net_mode m)
{
    return (unsigned)m < 3 ? net_modes[m] : "?";
}

const char *fs_kind_name(enum fs_kind k)
{
    static const char *const n[] = {"rw", "ro", "tmpfs", "hide"};
    return (unsigned)k < 4 ? n[k] : "?";
}

const char *origin_format(const struct origin *o, char *buf, size_t len)
{
    if (!o->file)
        snprintf(buf, len, "default");
    else if (o->line)
        snprintf(buf, len, "%s:%u", o->file, o->line);
    else
        snprintf(buf, len, "%s", o->file);
    return buf;
}

/* Address families a deny rule may name. */
static const struct {
    const char *name;
    int family;
} families[] = {
    {"unix", AF_UNIX},       {"local", AF_UNIX},     {"inet", AF_INET},
    {"inet6", AF_INET6},     {"netlink", AF_NETLINK}, {"packet", AF_PACKET},
    {"vsock", AF_VSOCK},     {"bluetooth", AF_BLUETOOTH}, {"alg", AF_ALG},
    {"can", AF_CAN},         {"xdp", AF_XDP},        {"tipc", AF_TIPC},
    {"key", AF_KEY},         {"appletalk", AF_APPLETALK}, {"ax25", AF_AX25},
    {"x25", AF_X25},         {"ipx", AF_IPX},        {"rds", AF_RDS},
    {"qipcrtr", AF_QIPCRTR}, {"smc", AF_SMC},        {"mctp", 45},
};

/* Calls whose first argument or socket has an address family. */
static const char *const socket_calls[] = {
    "socket", "socketpair", "bind", "connect", "listen", "accept", "accept4",
    "sendto", "sendmsg", "sendmmsg", "recvfrom", "recvmsg", "recvmmsg",
    "getsockname", "getpeername", "setsockopt", "getsockopt", "shutdown", NULL,
};

static bool in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strcmp(*list, s))
            return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */

struct loader {
    struct profile *p;
    const struct profile_search *search;
    const struct profile_vars *vars;
    struct profile_errors *errs;
    size_t nerrors;           /* including those not stored */
    /* the chain of files being read, for cycle detection and messages */
    const char *chain[PROFILE_MAX_INCLUDE_DEPTH + 2];
    int depth;
    /* canonical paths already applied: a file included twice through
     * different paths (a diamond) is applied once, the first time */
    struct strv loaded;
};

static void add_error(struct loader *L, const struct origin *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_error(struct loader *L, const struct origin *at, const char *fmt, ...)
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

/* ------------------------------------------------------------------ */
/* Defaults                                                             */

void profile_init_defaults(struct profile *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < NS_COUNT; i++)
        p->ns[i] = true;
    p->uid.current = true;
    p->gid.current = true;
    p->hostname = xstrdup("sbx");
    p->nested_userns = true;
    p->net_mode = NET_LOOPBACK;
    p->root = ROOT_RO;
    p->proc = true;
    p->dev = DEV_MINIMAL;
    p->no_new_privs = true;
    p->seccomp = SECCOMP_DEFAULT;
}

static void str_list_free(struct str_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].value);
    free(l->v);
    memset(l, 0, sizeof *l);
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
    for (size_t i = 0; i < p->nfs; i++)
        free(p->fs[i].path);
    free(p->fs);
    str_list_free(&p->env_keep);
    str_list_free(&p->env_set);
    str_list_free(&p->env_unset);
    str_list_free(&p->capabilities);
    str_list_free(&p->unprotect);
    for (size_t i = 0; i < p->ndeny; i++) {
        free(p->deny[i].syscall);
        free(p->deny[i].text);
    }
    free(p->deny);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------------------ */
/* Reading one file: the line reader inih pulls from                    */

struct entry {
    char *section;
    char *key;
    char *value;
    unsigned line;
};

struct file_parse {
    struct loader *L;
    const char *file;        /* the label errors use (stored in p->files) */
    const char *data;
    size_t len, pos;
    unsigned line;           /* number of the line just handed to inih */
    bool section_ok;         /* the current [section] is known */
    bool in_section;
    char section[64];
    struct entry *entries;
    size_t nentries, capentries;
};

static void suggest(const char *word, const char *const *candidates, char *out, size_t len)
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

static void check_section(struct file_parse *fp, const char *name, size_t n)
{
    struct origin at = {fp->file, fp->line};
    fp->in_section = true;
    if (n >= sizeof fp->section) {
        add_error(fp->L, &at, "unknown section (name too long)");
        fp->section_ok = false;
        fp->section[0] = '\0';
        return;
    }
    memcpy(fp->section, name, n);
    fp->section[n] = '\0';
    fp->section_ok = in_list(sections, fp->section);
    if (!fp->section_ok) {
        char hint[96];
        suggest(fp->section, sections, hint, sizeof hint);
        add_error(fp->L, &at, "unknown section [%s]%s; sections are [profile] [namespaces] "
                  "[network] [limits] [filesystem] [environment] [security]", fp->section, hint);
    }
}

/* inih's reader: hands over one checked line at a time. A line that is
 * wrong is reported here with its number and replaced by an empty line. */
static char *line_reader(char *str, int num, void *stream)
{
    struct file_parse *fp = stream;
    if (fp->pos >= fp->len)
        return NULL;
    const char *start = fp->data + fp->pos;
    const char *nl = memchr(start, '\n', fp->len - fp->pos);
    size_t linelen = nl ? (size_t)(nl - start) : fp->len - fp->pos;
    fp->pos += linelen + (nl ? 1 : 0);
    fp->line++;
    struct origin at = {fp->file, fp->line};

    size_t content = linelen;
    if (content > 0 && start[content - 1] == '\r')
        content--;
    str[0] = '\n';
    str[1] = '\0';

    /* inih's buffer must hold the line, "\r\n" and "\0". */
    size_t max = num > 3 ? (size_t)num - 3 : 0;
    if (content > max) {
        add_error(fp->L, &at, "line too long (%zu bytes; profile lines hold at most %zu)",
                  content, max);
        return str;
    }
    if (memchr(start, '\0', content)) {
        add_error(fp->L, &at, "NUL byte in line");
        return str;
    }
    if (!utf8_valid(start, content)) {
        add_error(fp->L, &at, "invalid UTF-8");
        return str;
    }
    /* Leading white space is dropped: inih would otherwise read an
     * indented line as the continuation of the previous value. */
    size_t skip = 0;
    while (skip < content && (start[skip] == ' ' || start[skip] == '\t'))
        skip++;
    const char *s = start + skip;
    size_t n = content - skip;
    if (fp->line == 1 && n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
        s += 3;
        n -= 3;
    }
    if (n == 0 || s[0] == '#' || s[0] == ';') {
        return str;
    }
    if (s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close) {
            add_error(fp->L, &at, "unterminated section header (expected ']')");
            return str;
        }
        /* trailing text after ']' other than a comment is a mistake */
        for (const char *q = close + 1; q < s + n; q++) {
            if (*q == ';' || *q == '#')
                break;
            if (*q != ' ' && *q != '\t') {
                add_error(fp->L, &at, "text after section header");
                return str;
            }
        }
        const char *nm = s + 1;
        size_t nn = (size_t)(close - nm);
        while (nn && (*nm == ' ' || *nm == '\t'))
            nm++, nn--;
        while (nn && (nm[nn - 1] == ' ' || nm[nn - 1] == '\t'))
            nn--;
        check_section(fp, nm, nn);
    } else {
        const char *eq = NULL;
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '=' || s[i] == ':') {
                eq = s + i;
                break;
            }
        }
        if (!eq) {
            add_error(fp->L, &at, "expected 'KEY = VALUE', a [section] or a comment");
            return str;
        }
        if (eq == s) {
            add_error(fp->L, &at, "missing key before '%c'", *eq);
            return str;
        }
    }
    memcpy(str, s, n);
    str[n] = '\n';
    str[n + 1] = '\0';
    return str;
}

static int entry_handler(void *user, const char *section, const char *name, const char *value)
{
    struct file_parse *fp = user;
    struct origin at = {fp->file, fp->line};
    if (!fp->in_section) {
        add_error(fp->L, &at, "'%s' is outside any [section]", name);
        return 1;
    }
    if (!fp->section_ok)
        return 1; /* the section header was reported */
    (void)section;
    xgrow((void **)&fp->entries, &fp->capentries, fp->nentries + 1, sizeof *fp->entries);
    struct entry *e = &fp->entries[fp->nentries++];
    e->section = xstrdup(fp->section);
    e->key = xstrdup(name);
    e->value = xstrdup(value);
    e->line = fp->line;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Values                                                               */

/* Expands ${VAR}; "$$" is a literal "$". NULL and an error on failure. */
static char *expand_vars(struct loader *L, const struct origin *at, const char *in,
                         const char *profile_dir)
{
    static const char *const names[] = {"HOME", "CWD", "USER", "UID", "GID", "TMPDIR", "PROFILE_DIR", NULL};
    size_t cap = strlen(in) + 1, len = 0;
    char *out = xmalloc(cap);
    for (const char *p = in; *p;) {
        const char *piece = p;
        size_t plen = 1;
        if (p[0] == '$' && p[1] == '$') {
            plen = 1;
            p += 2;
        } else if (p[0] == '$' && p[1] == '{') {
            const char *close = strchr(p + 2, '}');
            if (!close) {
                add_error(L, at, "unterminated '${' in '%s'", in);
                free(out);
                return NULL;
            }
            size_t nl = (size_t)(close - (p + 2));
            char name[32];
            if (nl == 0 || nl >= sizeof name) {
                add_error(L, at, "unknown variable '${%.*s}' (known: ${HOME} ${CWD} ${USER} "
                          "${UID} ${GID} ${TMPDIR} ${PROFILE_DIR})", (int)(nl > 40 ? 40 : nl), p + 2);
                free(out);
                return NULL;
            }
            memcpy(name, p + 2, nl);
            name[nl] = '\0';
            const char *val = NULL;
            bool known = true;
            if (!strcmp(name, "HOME")) val = L->vars->home;
            else if (!strcmp(name, "CWD")) val = L->vars->cwd;
            else if (!strcmp(name, "USER"))
                val = L->vars->user ? L->vars->user
                                    : L->vars->lookup_user ? L->vars->lookup_user() : NULL;
            else if (!strcmp(name, "UID")) val = L->vars->uid;
            else if (!strcmp(name, "GID")) val = L->vars->gid;
            else if (!strcmp(name, "TMPDIR")) val = L->vars->tmpdir ? L->vars->tmpdir : "/tmp";
            else if (!strcmp(name, "PROFILE_DIR")) val = profile_dir;
            else known = false;
            if (!known) {
                char hint[96];
                suggest(name, names, hint, sizeof hint);
                add_error(L, at, "unknown variable '${%s}'%s (known: ${HOME} ${CWD} ${USER} "
                          "${UID} ${GID} ${TMPDIR} ${PROFILE_DIR})", name, hint);
                free(out);
                return NULL;
            }
            if (!val) {
                if (!strcmp(name, "HOME") || !strcmp(name, "USER"))
                    add_error(L, at, "'${%s}' has no value here (%s in the environment, and the "
                              "password database has no entry for uid %s; set %s)", name,
                              !strcmp(name, "HOME") ? "no absolute $HOME" : "no $USER",
                              L->vars->uid ? L->vars->uid : "?", name);
                else
                    add_error(L, at, "'${%s}' has no value here%s", name,
                              !strcmp(name, "PROFILE_DIR") ? " (not set from a file)"
                                                           : " (unset in the environment)");
                free(out);
                return NULL;
            }
            piece = val;
            plen = strlen(val);
            p = close + 1;
        } else {
            p++;
        }
        xgrow((void **)&out, &cap, len + plen + 1, 1);
        memcpy(out + len, piece, plen);
        len += plen;
    }
    out[len] = '\0';
    return out;
}

static bool parse_bool(const char *v, bool *out)
{
    if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1")) {
        *out = true;
        return true;
    }
    if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0")) {
        *out = false;
        return true;
    }
    return false;
}

static int parse_choice(const char *v, const char *const *choices)
{
    for (int i = 0; choices[i]; i++)
        if (!strcmp(v, choices[i]))
            return i;
    return -1;
}

static char *join_choices(const char *const *choices)
{
    size_t len = 1;
    for (int i = 0; choices[i]; i++)
        len += strlen(choices[i]) + 2;
    char *s = xmalloc(len);
    s[0] = '\0';
    for (int i = 0; choices[i]; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, choices[i]);
    }
    return s;
}

/* Collapses "//" and drops a trailing "/" so that rules compare equal. */
static void normalize_path(char *path)
{
    char *w = path;
    for (char *r = path; *r; r++) {
        if (*r == '/' && w > path && w[-1] == '/')
            continue;
        *w++ = *r;
    }
    if (w > path + 1 && w[-1] == '/')
        w--;
    *w = '\0';
}

static bool valid_env_name(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* keep/unset patterns (env.h): name characters and the wildcards '*' and
 * '?' only, so that no fnmatch bracket or escape rule can surprise. */
static bool valid_env_pattern(const char *s)
{
    if (!*s || !strpbrk(s, "*?"))
        return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '*' || *s == '?'))
            return false;
    return true;
}

static bool valid_hostname(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 64)
        return false;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '.'))
            return false;
    return true;
}

static void str_list_push(struct str_list *l, const char *value, const struct origin *at)
{
    xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n].value = xstrdup(value);
    l->v[l->n].at = *at;
    l->v[l->n].seq = 0;
    l->n++;
}

/* Removes entries equal to value ("*": all). Returns how many. */
static size_t str_list_remove(struct str_list *l, const char *value)
{
    size_t w = 0, removed = 0;
    for (size_t r = 0; r < l->n; r++) {
        const char *v = l->v[r].value;
        bool match = !strcmp(value, "*");
        if (!match) {
            /* NAME=VALUE lists also match by NAME alone */
            size_t vl = strlen(value);
            match = !strcmp(v, value) || (!strchr(value, '=') && !strncmp(v, value, vl) && v[vl] == '=');
        }
        if (match) {
            free(l->v[r].value);
            removed++;
        } else {
            l->v[w++] = l->v[r];
        }
    }
    l->n = w;
    return removed;
}

/* Splits on blanks; calls fn for each word. */
static bool for_each_word(const char *value, bool (*fn)(void *ctx, const char *word), void *ctx)
{
    bool okay = true;
    const char *p = value;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        char *w = xstrndup(s, (size_t)(p - s));
        if (!fn(ctx, w))
            okay = false;
        free(w);
    }
    return okay;
}

struct word_ctx {
    struct loader *L;
    const struct origin *at;
    const struct key_def *def;
    bool remove;
    size_t removed;
};

static bool push_env_name(void *c, const char *w)
{
    struct word_ctx *ctx = c;
    struct profile *p = ctx->L->p;
    struct str_list *l = ctx->def->key == K_ENV_KEEP ? &p->env_keep : &p->env_unset;
    if (ctx->remove) {
        ctx->removed += str_list_remove(l, w);
        return true;
    }
    if (!valid_env_name(w) && !valid_env_pattern(w)) {
        add_error(ctx->L, ctx->at, "'%s' is not a variable name (letters, digits and '_') "
                  "or a pattern of them with '*' and '?'", w);
        return false;
    }
    str_list_push(l, w, ctx->at);
    /* keep and unset share one order: the last rule matching a name decides */
    l->v[l->n - 1].seq = ++p->env_seq;
    return true;
}

static bool push_port(void *c, const char *w)
{
    struct word_ctx *ctx = c;
    struct profile *p = ctx->L->p;
    uint64_t v;
    if (!parse_u64(w, &v) || v == 0 || v > 65535) {
        add_error(ctx->L, ctx->at, "forward: '%s' is not a port (1-65535)", w);
        return false;
    }
    if (ctx->remove) {
        size_t wi = 0;
        for (size_t i = 0; i < p->nforward; i++) {
            if (p->forward[i] == v)
                ctx->removed++;
            else
                p->forward[wi++] = p->forward[i];
        }
        p->nforward = wi;
        return true;
    }
    xgrow((void **)&p->forward, &p->capforward, p->nforward + 1, sizeof *p->forward);
    p->forward[p->nforward++] = (uint16_t)v;
    return true;
}

struct caps_ctx {
    struct loader *L;
    const struct origin *at;
    struct str_list *list;
    bool ok;
};

static bool push_cap(void *c, const char *w)
{
    struct caps_ctx *ctx = c;
    cap_value_t cv;
    if (cap_from_name(w, &cv) != 0) {
        add_error(ctx->L, ctx->at, "unknown capability '%s' (names as in capabilities(7), e.g. cap_net_raw)", w);
        ctx->ok = false;
        return false;
    }
    char *canon = cap_to_name(cv);
    str_list_push(ctx->list, canon ? canon : w, ctx->at);
    cap_free(canon);
    return true;
}

/* deny = SYSCALL[:family,...] ERRNO */
static bool parse_deny(struct loader *L, const struct origin *at, const char *value, struct deny_rule *out)
{
    char call[64], errname[64];
    const char *p = value;
    while (*p == ' ' || *p == '\t')
        p++;
    const char *s = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    size_t cl = (size_t)(p - s);
    while (*p == ' ' || *p == '\t')
        p++;
    const char *e = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    size_t el = (size_t)(p - e);
    while (*p == ' ' || *p == '\t')
        p++;
    if (cl == 0 || el == 0 || *p) {
        add_error(L, at, "deny: expected 'SYSCALL[:family,...] ERRNO', e.g. 'bind EPERM' or "
                  "'socket:inet,inet6 EACCES'");
        return false;
    }
    if (cl >= sizeof call || el >= sizeof errname) {
        add_error(L, at, "deny: name too long");
        return false;
    }
    memcpy(call, s, cl);
    call[cl] = '\0';
    memcpy(errname, e, el);
    errname[el] = '\0';

    uint64_t fams = 0;
    char *colon = strchr(call, ':');
    if (colon) {
        *colon = '\0';
        char *list = colon + 1;
        if (!*list) {
            add_error(L, at, "deny: empty family list after ':'");
            return false;
        }
        for (char *tok = list; tok;) {
            char *comma = strchr(tok, ',');
            if (comma)
                *comma = '\0';
            int fam = -1;
            for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
                if (!strcmp(families[i].name, tok))
                    fam = families[i].family;
            if (fam < 0) {
                add_error(L, at, "deny: unknown address family '%s' (inet, inet6, unix, netlink, packet, vsock, ...)", tok);
                return false;
            }
            fams |= 1ULL << fam;
            tok = comma ? comma + 1 : NULL;
        }
        if (!in_list(socket_calls, call)) {
            add_error(L, at, "deny: '%s' takes no address family (only socket calls do: socket, bind, connect, ...)", call);
            return false;
        }
    }
    int nr = seccomp_syscall_resolve_name(call);
    if (nr == __NR_SCMP_ERROR) {
        add_error(L, at, "deny: unknown system call '%s'", call);
        return false;
    }
    int errnum = errno_from_name(errname);
    if (!errnum) {
        add_error(L, at, "deny: unknown errno '%s' (a name such as EPERM, EACCES, ENETUNREACH)", errname);
        return false;
    }
    out->syscall = xstrdup(call);
    out->nr = nr;
    out->families = fams;
    out->errnum = errnum;
    /* canonical text (single space) for show and for removal */
    out->text = xasprintf("%.*s %s", (int)cl, s, errname);
    out->at = *at;
    return true;
}

static void set_origin(struct profile *p, enum profile_key k, const struct origin *at)
{
    p->at[k] = *at;
}

/* A scalar set twice in one file is a mistake; across includes the later
 * file wins. Command-line labels (line 0) always win. */
static bool scalar_ok(struct loader *L, const struct key_def *d, const struct origin *at)
{
    const struct origin *prev = &L->p->at[d->key];
    if (at->line && prev->file == at->file && prev->line) {
        add_error(L, at, "'%s' is already set in this file at line %u (a key may repeat only if it is a list)",
                  d->name, prev->line);
        return false;
    }
    return true;
}

/* The lowest value of a limit under which no program starts in the
 * sandbox (0: every value can). Such a limit does not fail as a limit: the
 * command dies at exec and looks missing (127) or crashed, so it is refused
 * when the profile is loaded. Measured with prlimit(1) and sbx:
 * - nofile: descriptors 0, 1 and 2 are open and RLIMIT_NOFILE bounds the
 *   next number, so below 4 the dynamic loader cannot open libc ("Error
 *   24", 127); a shell could not open anything either.
 * - nproc: as root it becomes pids.max of the sandbox's pids cgroup
 *   (cgroup.c), which holds sbx's init and the command: below 2 the
 *   command cannot be created. Refused for every caller, so that a
 *   profile means the same for root and for a user.
 * - as, stack: 0 leaves nothing to map the program or its arguments into
 *   (SIGSEGV at exec). Small non-zero values fail too, at a size that
 *   depends on the program, so only 0 is refused. */
static const struct limit_floor {
    uint64_t min;
    const char *why;
} limit_floors[LIMIT_COUNT] = {
    [LIMIT_NOFILE] = {4, "descriptors 0, 1 and 2 are open, and the dynamic loader needs "
                         "descriptor 3 to open libc"},
    [LIMIT_NPROC] = {2, "the sandbox's init and the command are two processes (as root "
                        "nproc is pids.max of the sandbox's pids cgroup)"},
    [LIMIT_AS] = {1, "execve() cannot map the program into no address space"},
    [LIMIT_STACK] = {1, "execve() cannot place the arguments on no stack"},
};

static bool parse_limit(struct loader *L, const struct origin *at, const struct key_def *d,
                        const char *v, struct limit_setting *out)
{
    struct limit_setting ls = {.set = true};
    if (!strcmp(v, "inherit")) {
        ls.set = false;
    } else if (!strcmp(v, "max")) {
        ls.max = true;
    } else if (!strcmp(v, "unlimited") || !strcmp(v, "infinity")) {
        ls.unlimited = true;
    } else {
        bool ok;
        uint64_t ms;
        if (d->type == T_LIMIT_SIZE) {
            ok = parse_size(v, &ls.value);
        } else if (d->type == T_LIMIT_SECONDS) {
            ok = parse_duration_ms(v, &ms) && ms % 1000 == 0;
            ls.value = ms / 1000;
        } else {
            ok = parse_u64(v, &ls.value);
        }
        /* RLIM_INFINITY is all ones: a number may not collide with it */
        if (!ok || ls.value >= (uint64_t)RLIM_INFINITY) {
            const char *form = d->type == T_LIMIT_SIZE ? "a size such as 4096, 64K, 8M, 2G"
                             : d->type == T_LIMIT_SECONDS ? "whole seconds such as 30, 90s, 5m"
                             : "a number";
            add_error(L, at, "%s: '%s' is not valid: expected %s, 'max' (the hard limit), 'unlimited' or 'inherit'",
                      d->name, v, form);
            return false;
        }
        const struct limit_floor *floor = &limit_floors[d->aux];
        if (ls.value < floor->min) {
            add_error(L, at, "%s = %s cannot start a program: %s; give at least %" PRIu64
                      ", or 'inherit'", d->name, v, floor->why, floor->min);
            return false;
        }
    }
    *out = ls;
    return true;
}

/* Applies one entry. Returns false after reporting an error. */
static bool apply_entry(struct loader *L, const char *section, const char *rawkey,
                        const char *rawvalue, const struct origin *at, const char *profile_dir)
{
    struct profile *p = L->p;
    /* "-key": drop inherited list entries; "key?": optional path */
    bool remove = rawkey[0] == '-';
    const char *key = rawkey + (remove ? 1 : 0);
    size_t kl = strlen(key);
    bool optional = kl > 0 && key[kl - 1] == '?';
    char kbuf[64];
    if (kl >= sizeof kbuf) {
        add_error(L, at, "unknown key in [%s] (name too long)", section);
        return false;
    }
    memcpy(kbuf, key, kl - (optional ? 1 : 0));
    kbuf[kl - (optional ? 1 : 0)] = '\0';

    const struct key_def *d = NULL;
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].section, section) && !strcmp(keys[i].name, kbuf))
            d = &keys[i];
    if (!d) {
        const char *cands[NKEYS + 1];
        size_t nc = 0;
        const char *elsewhere = NULL;
        for (size_t i = 0; i < NKEYS; i++) {
            if (!strcmp(keys[i].section, section))
                cands[nc++] = keys[i].name;
            else if (!strcmp(keys[i].name, kbuf))
                elsewhere = keys[i].section;
        }
        cands[nc] = NULL;
        char hint[128];
        if (elsewhere)
            snprintf(hint, sizeof hint, " ('%s' belongs in [%s])", kbuf, elsewhere);
        else
            suggest(kbuf, cands, hint, sizeof hint);
        add_error(L, at, "unknown key '%s' in [%s]%s", kbuf, section, hint);
        return false;
    }
    if (optional && d->type != T_FS_RULE && d->type != T_INCLUDE) {
        add_error(L, at, "'%s?': only filesystem rules and include take the '?' suffix", d->name);
        return false;
    }
    if (remove && !d->list && d->type != T_CAPS) {
        add_error(L, at, "'-%s': only list keys can drop inherited entries; set '%s' again to override it",
                  d->name, d->name);
        return false;
    }
    if (remove && d->type == T_CAPS) {
        add_error(L, at, "'-capabilities': set 'capabilities' again to override it");
        return false;
    }

    autofree char *value = expand_vars(L, at, rawvalue, profile_dir);
    if (!value)
        return false;
    if (!d->list && !scalar_ok(L, d, at))
        return false;

    switch (d->type) {
    case T_BOOL: {
        bool b;
        if (!parse_bool(value, &b)) {
            add_error(L, at, "%s: '%s' is not valid: expected yes or no", d->name, value);
            return false;
        }
        if (d->key >= K_NS_USER && d->key <= K_NS_UTS)
            p->ns[d->aux] = b;
        else if (d->key == K_NESTED_USERNS)
            p->nested_userns = b;
        else if (d->key == K_NET_OUTBOUND)
            p->outbound = b;
        else if (d->key == K_FS_PROC)
            p->proc = b;
        else if (d->key == K_ENV_CLEAR)
            p->env_clear = b;
        else if (d->key == K_SEC_NO_NEW_PRIVS)
            p->no_new_privs = b;
        else if (d->key == K_SEC_IO_URING)
            p->io_uring = b;
        break;
    }
    case T_STRING:
        free(p->description);
        p->description = xstrdup(value);
        break;
    case T_HOSTNAME:
        if (!valid_hostname(value)) {
            add_error(L, at, "hostname: '%s' is not valid: 1-64 letters, digits, '-' and '.'", value);
            return false;
        }
        free(p->hostname);
        p->hostname = xstrdup(value);
        break;
    case T_ENUM: {
        int c = parse_choice(value, d->choices);
        if (c < 0) {
            autofree char *all = join_choices(d->choices);
            char hint[96];
            suggest(value, d->choices, hint, sizeof hint);
            add_error(L, at, "%s: '%s' is not valid: expected one of %s%s", d->name, value, all, hint);
            return false;
        }
        if (d->key == K_NET_MODE)
            p->net_mode = (enum net_mode)c;
        else if (d->key == K_FS_ROOT)
            p->root = (enum root_mode)c;
        else if (d->key == K_FS_DEV)
            p->dev = (enum dev_mode)c;
        else if (d->key == K_SEC_SECCOMP)
            p->seccomp = (enum seccomp_mode)c;
        break;
    }
    case T_ID: {
        struct id_setting id = {0};
        uint64_t v;
        if (!strcmp(value, "current")) {
            id.current = true;
        } else if (parse_u64(value, &v) && v < 4294967295ULL) {
            id.value = (uint32_t)v;
        } else {
            add_error(L, at, "%s: '%s' is not valid: expected 'current', 0 or another number below 4294967295",
                      d->name, value);
            return false;
        }
        if (d->aux == 0)
            p->uid = id;
        else
            p->gid = id;
        break;
    }
    case T_LIMIT_COUNT:
    case T_LIMIT_SIZE:
    case T_LIMIT_SECONDS:
        if (!parse_limit(L, at, d, value, &p->limits[d->aux]))
            return false;
        break;
    case T_TIMEOUT: {
        uint64_t ms;
        if (!strcmp(value, "none") || !strcmp(value, "0")) {
            ms = 0;
        } else if (!parse_duration_ms(value, &ms) || ms == 0 || ms > 365ULL * 86400 * 1000) {
            add_error(L, at, "timeout: '%s' is not valid: expected a duration such as 90s, 30m, 2h "
                      "(at most 365d) or 'none'", value);
            return false;
        }
        p->timeout_ms = ms;
        break;
    }
    case T_FS_RULE: {
        enum fs_kind kind = (enum fs_kind)d->aux;
        if (remove) {
            size_t w = 0, removed = 0;
            bool all = !strcmp(value, "*");
            if (!all && value[0] == '/')
                normalize_path(value);
            for (size_t i = 0; i < p->nfs; i++) {
                if (p->fs[i].kind == kind && (all || !strcmp(p->fs[i].path, value))) {
                    free(p->fs[i].path);
                    removed++;
                } else {
                    p->fs[w++] = p->fs[i];
                }
            }
            p->nfs = w;
            if (!removed) {
                add_error(L, at, "'-%s = %s' drops nothing: no earlier '%s' rule has that path",
                          d->name, value, d->name);
                return false;
            }
            return true;
        }
        if (value[0] != '/') {
            add_error(L, at, "%s: '%s' is not an absolute path%s", d->name, value,
                      value[0] ? " (use ${CWD}/... or ${HOME}/...)" : "");
            return false;
        }
        normalize_path(value);
        if (!strcmp(value, "/") && (kind == FS_HIDE || kind == FS_TMPFS)) {
            add_error(L, at, "%s: '/' cannot be %s (use root = tmpfs)", d->name,
                      kind == FS_HIDE ? "hidden" : "a tmpfs");
            return false;
        }
        xgrow((void **)&p->fs, &p->capfs, p->nfs + 1, sizeof *p->fs);
        p->fs[p->nfs].kind = kind;
        p->fs[p->nfs].path = xstrdup(value);
        p->fs[p->nfs].optional = optional;
        p->fs[p->nfs].at = *at;
        p->nfs++;
        break;
    }
    case T_PATHS: {
        /* One path a line: paths may hold spaces. */
        if (value[0] != '/') {
            add_error(L, at, "%s: '%s' is not an absolute path%s", d->name, value,
                      value[0] ? " (use ${HOME}/... or ${CWD}/...)" : "");
            return false;
        }
        normalize_path(value);
        if (remove) {
            if (!str_list_remove(&p->unprotect, value)) {
                add_error(L, at, "'-%s = %s' drops nothing: no earlier entry matches", d->name, value);
                return false;
            }
            return true;
        }
        str_list_push(&p->unprotect, value, at);
        break;
    }
    case T_ENV_NAMES: {
        struct word_ctx ctx = {L, at, d, remove, 0};
        if (!for_each_word(value, push_env_name, &ctx))
            return false;
        if (!*value) {
            add_error(L, at, "%s: empty value (expected variable names)", d->name);
            return false;
        }
        if (remove && !ctx.removed) {
            add_error(L, at, "'-%s = %s' drops nothing: no earlier entry matches", d->name, value);
            return false;
        }
        break;
    }
    case T_ASSIGN: {
        if (remove) {
            if (!str_list_remove(&p->env_set, value)) {
                add_error(L, at, "'-set = %s' drops nothing: no earlier 'set' of that variable", value);
                return false;
            }
            return true;
        }
        const char *eq = strchr(value, '=');
        char name[256];
        size_t nl = eq ? (size_t)(eq - value) : 0;
        if (!eq || nl == 0 || nl >= sizeof name) {
            add_error(L, at, "set: '%s' is not valid: expected NAME=VALUE", value);
            return false;
        }
        memcpy(name, value, nl);
        name[nl] = '\0';
        if (!valid_env_name(name)) {
            add_error(L, at, "set: '%s' is not a variable name (letters, digits and '_')", name);
            return false;
        }
        /* a later set of the same name replaces the earlier one */
        str_list_remove(&p->env_set, name);
        str_list_push(&p->env_set, value, at);
        break;
    }
    case T_PORTS: {
        struct word_ctx ctx = {L, at, d, remove, 0};
        if (!strcmp(value, "none")) {
            p->nforward = 0;
            break;
        }
        if (!*value) {
            add_error(L, at, "forward: empty value (expected port numbers or 'none')");
            return false;
        }
        if (!for_each_word(value, push_port, &ctx))
            return false;
        if (remove && !ctx.removed) {
            add_error(L, at, "'-forward = %s' drops nothing: no earlier entry matches", value);
            return false;
        }
        break;
    }
    case T_CAPS: {
        struct str_list next = {0};
        if (strcmp(value, "none") != 0) {
            if (!*value) {
                add_error(L, at, "capabilities: empty value (expected 'none' or capability names)");
                return false;
            }
            struct caps_ctx ctx = {L, at, &next, true};
            for_each_word(value, push_cap, &ctx);
            if (!ctx.ok) {
                str_list_free(&next);
                return false;
            }
        }
        str_list_free(&p->capabilities);
        p->capabilities = next;
        break;
    }
    case T_DENY: {
        if (remove && !strcmp(value, "*")) {
            for (size_t i = 0; i < p->ndeny; i++) {
                free(p->deny[i].syscall);
                free(p->deny[i].text);
            }
            if (!p->ndeny) {
                add_error(L, at, "'-deny = *' drops nothing: no earlier deny rule");
                return false;
            }
            p->ndeny = 0;
            return true;
        }
        struct deny_rule r = {0};
        if (!parse_deny(L, at, value, &r))
            return false;
        if (remove) {
            size_t w = 0, removed = 0;
            for (size_t i = 0; i < p->ndeny; i++) {
                if (!strcmp(p->deny[i].text, r.text)) {
                    free(p->deny[i].syscall);
                    free(p->deny[i].text);
                    removed++;
                } else {
                    p->deny[w++] = p->deny[i];
                }
            }
            p->ndeny = w;
            free(r.syscall);
            free(r.text);
            if (!removed) {
                add_error(L, at, "'-deny = %s' drops nothing: no earlier deny rule is written so", value);
                return false;
            }
            return true;
        }
        xgrow((void **)&p->deny, &p->capdeny, p->ndeny + 1, sizeof *p->deny);
        p->deny[p->ndeny++] = r;
        break;
    }
    case T_INCLUDE:
        /* handled by load_file before other keys */
        break;
    }
    if (!d->list)
        set_origin(p, d->key, at);
    return true;
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

static bool do_include(struct loader *L, const struct entry *e, const char *file,
                       const char *canon, const char *profile_dir)
{
    struct origin at = {file, e->line};
    bool remove = e->key[0] == '-';
    if (remove) {
        add_error(L, &at, "'-include' is not supported: an include cannot be undone");
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
    struct file_parse fp = {.L = L, .file = file, .data = data, .len = len};
    size_t before = L->nerrors;
    int r = ini_parse_stream(line_reader, &fp, entry_handler, &fp);
    if (r == -2)
        add_error(L, NULL, "%s: out of memory while parsing", label);
    /* r > 0 means inih saw a syntax error; the reader has reported every one */

    char profile_dir[PATH_MAX];
    dirname_of(canon, profile_dir, sizeof profile_dir);

    /* includes first, in order, so this file overrides them */
    for (size_t i = 0; i < fp.nentries; i++) {
        struct entry *e = &fp.entries[i];
        if (!strcmp(e->section, "profile") && (!strcmp(e->key, "include") || !strcmp(e->key, "include?") ||
                                              !strcmp(e->key, "-include")))
            do_include(L, e, file, canon, profile_dir);
    }
    for (size_t i = 0; i < fp.nentries; i++) {
        struct entry *e = &fp.entries[i];
        if (!strcmp(e->section, "profile") && (!strcmp(e->key, "include") || !strcmp(e->key, "include?") ||
                                              !strcmp(e->key, "-include")))
            continue;
        struct origin at = {file, e->line};
        apply_entry(L, e->section, e->key, e->value, &at, profile_dir);
    }
    for (size_t i = 0; i < fp.nentries; i++) {
        free(fp.entries[i].section);
        free(fp.entries[i].key);
        free(fp.entries[i].value);
    }
    free(fp.entries);
    L->depth--;
    return L->nerrors == before;
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
    char canon[PATH_MAX];
    if (realpath(path, canon)) {
        free(p->path);
        p->path = xstrdup(canon);
    }
    load_file(&L, path, NULL);
    free(path);
    if (!L.nerrors)
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
    if ((!strcmp(section, "filesystem") && strcmp(key, "root") && strcmp(key, "proc") &&
         strcmp(key, "dev")) && value[0] && value[0] != '/' && value[0] != '$')
        value = abs = xasprintf("%s/%s", dir, value);
    apply_entry(&L, section, key, value, &at, NULL);
    if (!L.nerrors)
        validate(&L);
    finish_errors(&L);
    return L.nerrors == 0;
}

/* ------------------------------------------------------------------ */
/* Printing                                                             */

static void print_line(FILE *out, const struct origin *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void print_line(FILE *out, const struct origin *at, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char where[PATH_MAX + 32];
    fprintf(out, "%-40s ; %s\n", line, origin_format(at, where, sizeof where));
}

static const char *yesno(bool b)
{
    return b ? "yes" : "no";
}

static void format_limit(const struct key_def *d, const struct limit_setting *l, char *buf, size_t len)
{
    if (l->max)
        snprintf(buf, len, "max");
    else if (l->unlimited)
        snprintf(buf, len, "unlimited");
    else if (d->type == T_LIMIT_SECONDS)
        snprintf(buf, len, "%llus", (unsigned long long)l->value);
    else
        snprintf(buf, len, "%llu", (unsigned long long)l->value);
}

static void format_duration(uint64_t ms, char *buf, size_t len)
{
    if (ms == 0)
        snprintf(buf, len, "none");
    else if (ms % 3600000 == 0)
        snprintf(buf, len, "%lluh", (unsigned long long)(ms / 3600000));
    else if (ms % 60000 == 0)
        snprintf(buf, len, "%llum", (unsigned long long)(ms / 60000));
    else if (ms % 1000 == 0)
        snprintf(buf, len, "%llus", (unsigned long long)(ms / 1000));
    else
        snprintf(buf, len, "%llums", (unsigned long long)ms);
}

void profile_print(const struct profile *p, FILE *out)
{
    fprintf(out, "; effective profile '%s'%s%s%s\n", p->name ? p->name : "",
            p->path ? " (" : "", p->path ? p->path : "", p->path ? ")" : "");
    for (size_t i = 0; i < p->nfiles; i++)
        fprintf(out, "; %s %s\n", i == 0 ? "read:" : "     ", p->files[i]);
    const char *section = NULL;
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key_def *d = &keys[i];
        const struct origin *at = &p->at[d->key];
        if (!section || strcmp(section, d->section)) {
            fprintf(out, "%s[%s]\n", section ? "\n" : "", d->section);
            section = d->section;
        }
        char buf[64];
        switch (d->key) {
        case K_DESCRIPTION:
            print_line(out, at, "description = %s", p->description ? p->description : "");
            break;
        case K_INCLUDE:
            break; /* already applied: the files are listed above */
        case K_NS_USER: case K_NS_MOUNT: case K_NS_NET: case K_NS_PID: case K_NS_IPC: case K_NS_UTS:
            print_line(out, at, "%s = %s", d->name, yesno(p->ns[d->aux]));
            break;
        case K_UID:
        case K_GID: {
            const struct id_setting *id = d->key == K_UID ? &p->uid : &p->gid;
            if (id->current)
                print_line(out, at, "%s = current", d->name);
            else
                print_line(out, at, "%s = %u", d->name, id->value);
            break;
        }
        case K_HOSTNAME:
            print_line(out, at, "hostname = %s", p->hostname ? p->hostname : "");
            break;
        case K_NESTED_USERNS:
            print_line(out, at, "nested_userns = %s", yesno(p->nested_userns));
            break;
        case K_NET_MODE:
            print_line(out, at, "mode = %s", net_mode_name(p->net_mode));
            break;
        case K_NET_OUTBOUND:
            print_line(out, at, "outbound = %s", yesno(p->outbound));
            break;
        case K_NET_FORWARD:
            for (size_t j = 0; j < p->nforward; j++)
                print_line(out, at, "forward = %u", p->forward[j]);
            break;
        case K_LIMIT_NOFILE: case K_LIMIT_NPROC: case K_LIMIT_CORE: case K_LIMIT_CPU:
        case K_LIMIT_FSIZE: case K_LIMIT_AS: case K_LIMIT_STACK: case K_LIMIT_MEMLOCK:
        case K_LIMIT_SIGPENDING: {
            const struct limit_setting *l = &p->limits[d->aux];
            if (!l->set) {
                char line[64];
                snprintf(line, sizeof line, "%s = inherit", d->name);
                fprintf(out, "%-40s ; default: the caller's limit\n", line);
            } else {
                format_limit(d, l, buf, sizeof buf);
                print_line(out, at, "%s = %s", d->name, buf);
            }
            break;
        }
        case K_TIMEOUT:
            format_duration(p->timeout_ms, buf, sizeof buf);
            print_line(out, at, "timeout = %s", buf);
            break;
        case K_FS_ROOT:
            print_line(out, at, "root = %s", root_modes[p->root]);
            break;
        case K_FS_RW: case K_FS_RO: case K_FS_TMPFS: case K_FS_HIDE:
            for (size_t j = 0; j < p->nfs; j++)
                if (p->fs[j].kind == (enum fs_kind)d->aux)
                    print_line(out, &p->fs[j].at, "%s%s = %s", d->name, p->fs[j].optional ? "?" : "",
                               p->fs[j].path);
            break;
        case K_FS_UNPROTECT:
            for (size_t j = 0; j < p->unprotect.n; j++)
                print_line(out, &p->unprotect.v[j].at, "unprotect = %s", p->unprotect.v[j].value);
            break;
        case K_FS_PROC:
            print_line(out, at, "proc = %s", yesno(p->proc));
            break;
        case K_FS_DEV:
            print_line(out, at, "dev = %s", dev_modes[p->dev]);
            break;
        case K_ENV_CLEAR:
            print_line(out, at, "clear = %s", yesno(p->env_clear));
            break;
        case K_ENV_KEEP: {
            /* keep and unset interleaved in the order read: the last one
             * matching a name decides, so the order is part of the meaning */
            size_t k = 0, u = 0;
            const struct str_list *kl = &p->env_keep, *ul = &p->env_unset;
            while (k < kl->n || u < ul->n) {
                bool take_keep = u == ul->n || (k < kl->n && kl->v[k].seq < ul->v[u].seq);
                const struct str_entry *e = take_keep ? &kl->v[k++] : &ul->v[u++];
                print_line(out, &e->at, "%s = %s", take_keep ? "keep" : "unset", e->value);
            }
            break;
        }
        case K_ENV_UNSET:
            break;
        case K_ENV_SET:
            for (size_t j = 0; j < p->env_set.n; j++)
                print_line(out, &p->env_set.v[j].at, "set = %s", p->env_set.v[j].value);
            break;
        case K_SEC_NO_NEW_PRIVS:
            print_line(out, at, "no_new_privs = %s", yesno(p->no_new_privs));
            break;
        case K_SEC_CAPABILITIES: {
            char caps[1024] = "";
            size_t len = 0;
            for (size_t j = 0; j < p->capabilities.n && len < sizeof caps - 40; j++)
                len += (size_t)snprintf(caps + len, sizeof caps - len, "%s%s", j ? " " : "",
                                        p->capabilities.v[j].value);
            print_line(out, at, "capabilities = %s", p->capabilities.n ? caps : "none");
            break;
        }
        case K_SEC_SECCOMP:
            print_line(out, at, "seccomp = %s", seccomp_modes[p->seccomp]);
            break;
        case K_SEC_IO_URING:
            print_line(out, at, "io_uring = %s", yesno(p->io_uring));
            break;
        case K_SEC_DENY:
            for (size_t j = 0; j < p->ndeny; j++)
                print_line(out, &p->deny[j].at, "deny = %s", p->deny[j].text);
            break;
        case K_COUNT:
            break;
        }
    }
}
