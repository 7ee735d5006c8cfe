/* What profile values mean: each key row's parse function, and the one
 * path every KEY = VALUE takes into the profile (profile_apply_entry).
 *
 * Values are untrusted bytes: each function either stores a value it
 * checked or reports an error naming the key and the value, never both,
 * never neither. */
#include "config.h"

#include "profile_keys.h"

#include "allowlist.h"
#include "credential_stores.h"

#include "net_families.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <sys/socket.h>

/* ------------------------------------------------------------------ */
/* Variables                                                            */

/* Expands ${VAR}; "$$" is a literal "$". NULL and an error on failure. */
char *expand_vars(struct loader *L, const struct origin *at, const char *in, const char *profile_dir)
{
    static const char *const names[] = {"HOME", "CWD", "PROJECT", "USER", "UID", "GID", "TMPDIR",
                                         "PROFILE_DIR", NULL};
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
                add_error(L, at, "unknown variable '${%.*s}' (known: ${HOME} ${CWD} ${PROJECT} "
                          "${USER} ${UID} ${GID} ${TMPDIR} ${PROFILE_DIR})", (int)(nl > 40 ? 40 : nl), p + 2);
                free(out);
                return NULL;
            }
            memcpy(name, p + 2, nl);
            name[nl] = '\0';
            const char *val = NULL;
            bool known = true;
            if (!strcmp(name, "HOME")) val = L->vars->home;
            else if (!strcmp(name, "CWD")) val = L->vars->cwd;
            else if (!strcmp(name, "PROJECT")) val = L->vars->project;
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
                add_error(L, at, "unknown variable '${%s}'%s (known: ${HOME} ${CWD} ${PROJECT} "
                          "${USER} ${UID} ${GID} ${TMPDIR} ${PROFILE_DIR})", name, hint);
                free(out);
                return NULL;
            }
            if (!val) {
                if (!strcmp(name, "HOME") || !strcmp(name, "USER"))
                    add_error(L, at, "'${%s}' has no value here (%s in the environment, and the "
                              "password database has no entry for uid %s; set %s)", name,
                              !strcmp(name, "HOME") ? "no absolute $HOME" : "no $USER",
                              L->vars->uid ? L->vars->uid : "?", name);
                else if (!strcmp(name, "PROJECT") && L->vars->project_error)
                    add_error(L, at, "'${PROJECT}' has no value here: %s", L->vars->project_error);
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

/* ------------------------------------------------------------------ */
/* Checks and helpers shared by the parsers                             */

static bool yes_no(const char *v, bool *out)
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

void str_list_free(struct str_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].value);
    free(l->v);
    memset(l, 0, sizeof *l);
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
    struct str_list *list;  /* keep or unset */
    bool remove;
    size_t removed;
};

static bool push_env_name(void *c, const char *w)
{
    struct word_ctx *ctx = c;
    struct profile *p = ctx->L->p;
    struct str_list *l = ctx->list;
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
static bool deny_rule_parse(struct loader *L, const struct origin *at, const char *value,
                            struct deny_rule *out)
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
            int fam = net_family_from_rule_name(tok);
            if (fam < 0) {
                add_error(L, at, "deny: unknown address family '%s' (inet, inet6, unix, netlink, packet, vsock, ...)", tok);
                return false;
            }
            fams |= 1ULL << fam;
            tok = comma ? comma + 1 : NULL;
        }
        if (!net_call_takes_family(call) && !net_call_on_socket(call)) {
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

enum limit_unit { UNIT_COUNT, UNIT_SIZE, UNIT_SECONDS };

static bool limit_parse(struct loader *L, const struct origin *at, const struct key_def *d,
                        enum limit_unit unit, const char *v, struct limit_setting *out)
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
        if (unit == UNIT_SIZE) {
            ok = parse_size(v, &ls.value);
        } else if (unit == UNIT_SECONDS) {
            ok = parse_duration_ms(v, &ms) && ms % 1000 == 0;
            ls.value = ms / 1000;
        } else {
            ok = parse_u64(v, &ls.value);
        }
        /* RLIM_INFINITY is all ones: a number may not collide with it */
        if (!ok || ls.value >= (uint64_t)RLIM_INFINITY) {
            const char *form = unit == UNIT_SIZE ? "a size such as 4096, 64K, 8M, 2G"
                             : unit == UNIT_SECONDS ? "whole seconds such as 30, 90s, 5m"
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

/* ------------------------------------------------------------------ */
/* The rows' parse functions                                            */

bool parse_string(struct key_input *in, const struct key_def *d)
{
    char **field = KEY_FIELD(in->p, d, char *);
    free(*field);
    *field = xstrdup(in->value);
    return true;
}

bool parse_hostname(struct key_input *in, const struct key_def *d)
{
    if (!valid_hostname(in->value)) {
        add_error(in->L, in->at, "hostname: '%s' is not valid: 1-64 letters, digits, '-' and '.'", in->value);
        return false;
    }
    return parse_string(in, d);
}

/* The loader applies a file's includes before its other keys, and
 * refuses "-include" and "-include?" (profile.c): none reaches here. */
bool parse_include(struct key_input *in, const struct key_def *d)
{
    (void)in;
    (void)d;
    return true;
}

bool parse_bool(struct key_input *in, const struct key_def *d)
{
    bool b;
    if (!yes_no(in->value, &b)) {
        add_error(in->L, in->at, "%s: '%s' is not valid: expected yes or no", d->name, in->value);
        return false;
    }
    *KEY_FIELD(in->p, d, bool) = b;
    return true;
}

/* The enums of struct profile are stored as the index of their name in
 * the row's choices. */
_Static_assert(sizeof(enum net_mode) == sizeof(int) && sizeof(enum root_mode) == sizeof(int) &&
               sizeof(enum dev_mode) == sizeof(int) && sizeof(enum seccomp_mode) == sizeof(int),
               "parse_enum stores an int");

bool parse_enum(struct key_input *in, const struct key_def *d)
{
    int c = parse_choice(in->value, d->choices);
    if (c < 0) {
        autofree char *all = join_choices(d->choices);
        char hint[96];
        suggest(in->value, d->choices, hint, sizeof hint);
        add_error(in->L, in->at, "%s: '%s' is not valid: expected one of %s%s", d->name, in->value, all,
                  hint);
        return false;
    }
    *KEY_FIELD(in->p, d, int) = c;
    return true;
}

bool parse_id(struct key_input *in, const struct key_def *d)
{
    struct id_setting id = {0};
    uint64_t v;
    if (!strcmp(in->value, "current")) {
        id.current = true;
    } else if (parse_u64(in->value, &v) && v < 4294967295ULL) {
        id.value = (uint32_t)v;
    } else {
        add_error(in->L, in->at, "%s: '%s' is not valid: expected 'current', 0 or another number below "
                  "4294967295", d->name, in->value);
        return false;
    }
    *KEY_FIELD(in->p, d, struct id_setting) = id;
    return true;
}

bool parse_limit_count(struct key_input *in, const struct key_def *d)
{
    return limit_parse(in->L, in->at, d, UNIT_COUNT, in->value, KEY_FIELD(in->p, d, struct limit_setting));
}

bool parse_limit_size(struct key_input *in, const struct key_def *d)
{
    return limit_parse(in->L, in->at, d, UNIT_SIZE, in->value, KEY_FIELD(in->p, d, struct limit_setting));
}

bool parse_limit_seconds(struct key_input *in, const struct key_def *d)
{
    return limit_parse(in->L, in->at, d, UNIT_SECONDS, in->value, KEY_FIELD(in->p, d, struct limit_setting));
}

bool parse_timeout(struct key_input *in, const struct key_def *d)
{
    uint64_t ms;
    if (!strcmp(in->value, "none") || !strcmp(in->value, "0")) {
        ms = 0;
    } else if (!parse_duration_ms(in->value, &ms) || ms == 0 || ms > 365ULL * 86400 * 1000) {
        add_error(in->L, in->at, "timeout: '%s' is not valid: expected a duration such as 90s, 30m, 2h "
                  "(at most 365d) or 'none'", in->value);
        return false;
    }
    *KEY_FIELD(in->p, d, uint64_t) = ms;
    return true;
}

/* hide? = @credential-stores: one optional hide rule for each store of
 * credential_stores.h, as if each were written "${HOME}/PATH" (so that
 * `-hide? = ${HOME}/.npmrc` gives one back); "-hide? = @credential-stores"
 * drops them all. */
static bool parse_credential_stores(struct key_input *in, const struct key_def *d)
{
    if ((enum fs_kind)d->aux != FS_HIDE || (!in->optional && !in->remove)) {
        add_error(in->L, in->at, "%s: '%s' is a list of stores that may be absent: write "
                  "'hide? = %s'", d->name, in->value, CREDENTIAL_STORES_WORD);
        return false;
    }
    size_t dropped = 0;
    for (size_t i = 0; i < credential_stores_n; i++) {
        const char *path = credential_stores[i].path;
        autofree char *raw = path[0] == '/' ? xstrdup(path) : xasprintf("${HOME}/%s", path);
        autofree char *value = expand_vars(in->L, in->at, raw, NULL);
        if (!value)
            return false;
        struct key_input one = *in;
        one.value = value;
        one.raw = raw;
        if (in->remove) {
            /* a store an earlier "-hide?" gave back drops nothing: fine */
            size_t before = in->p->nfs;
            for (size_t k = 0; k < in->p->nfs; k++)
                if (in->p->fs[k].kind == FS_HIDE && !strcmp(in->p->fs[k].path, value)) {
                    if (!parse_fs_rule(&one, d))
                        return false;
                    break;
                }
            dropped += before - in->p->nfs;
        } else if (!parse_fs_rule(&one, d)) {
            return false;
        }
    }
    if (in->remove && !dropped) {
        add_error(in->L, in->at, "'-%s = %s' drops nothing: no earlier '%s' rule has those paths",
                  d->name, in->value, d->name);
        return false;
    }
    return true;
}

/* rw, ro, tmpfs, hide: one list, p->fs, in the order read */
bool parse_fs_rule(struct key_input *in, const struct key_def *d)
{
    struct profile *p = in->p;
    char *value = in->value;
    enum fs_kind kind = (enum fs_kind)d->aux;
    if (!strcmp(value, CREDENTIAL_STORES_WORD))
        return parse_credential_stores(in, d);
    if (in->remove) {
        size_t w = 0, removed = 0;
        bool all = !strcmp(value, "*");
        if (!all && value[0] == '/')
            normalize_path(value);
        for (size_t i = 0; i < p->nfs; i++) {
            if (p->fs[i].kind == kind && (all || !strcmp(p->fs[i].path, value))) {
                free(p->fs[i].path);
                free(p->fs[i].written);
                removed++;
            } else {
                p->fs[w++] = p->fs[i];
            }
        }
        p->nfs = w;
        if (!removed) {
            add_error(in->L, in->at, "'-%s = %s' drops nothing: no earlier '%s' rule has that path",
                      d->name, value, d->name);
            return false;
        }
        return true;
    }
    if (value[0] != '/') {
        add_error(in->L, in->at, "%s: '%s' is not an absolute path%s", d->name, value,
                  value[0] ? " (use ${CWD}/... or ${HOME}/...)" : "");
        return false;
    }
    normalize_path(value);
    if (!strcmp(value, "/") && (kind == FS_HIDE || kind == FS_TMPFS || kind == FS_CACHE)) {
        add_error(in->L, in->at, "%s: '/' cannot be %s (use root = tmpfs)", d->name,
                  kind == FS_HIDE ? "hidden" : kind == FS_CACHE ? "a cache" : "a tmpfs");
        return false;
    }
    xgrow((void **)&p->fs, &p->capfs, p->nfs + 1, sizeof *p->fs);
    p->fs[p->nfs].kind = kind;
    p->fs[p->nfs].path = xstrdup(value);
    p->fs[p->nfs].written = in->raw && strchr(in->raw, '$') ? xstrdup(in->raw) : NULL;
    p->fs[p->nfs].optional = in->optional;
    p->fs[p->nfs].at = *in->at;
    p->nfs++;
    return true;
}

/* One path a line: paths may hold spaces. */
bool parse_paths(struct key_input *in, const struct key_def *d)
{
    struct str_list *list = KEY_FIELD(in->p, d, struct str_list);
    char *value = in->value;
    if (value[0] != '/') {
        add_error(in->L, in->at, "%s: '%s' is not an absolute path%s", d->name, value,
                  value[0] ? " (use ${HOME}/... or ${CWD}/...)" : "");
        return false;
    }
    normalize_path(value);
    if (in->remove) {
        if (!str_list_remove(list, value)) {
            add_error(in->L, in->at, "'-%s = %s' drops nothing: no earlier entry matches", d->name, value);
            return false;
        }
        return true;
    }
    /* the same path from two included profiles (devbackend-session takes
     * create = ~/.npm from devbackend and from qa-session): listed once,
     * where it was first set */
    for (size_t i = 0; i < list->n; i++)
        if (!strcmp(list->v[i].value, value))
            return true;
    str_list_push(list, value, in->at);
    return true;
}

/* keep, unset: variable names or patterns, several a line */
bool parse_env_names(struct key_input *in, const struct key_def *d)
{
    struct word_ctx ctx = {in->L, in->at, KEY_FIELD(in->p, d, struct str_list), in->remove, 0};
    if (!for_each_word(in->value, push_env_name, &ctx))
        return false;
    if (!*in->value) {
        add_error(in->L, in->at, "%s: empty value (expected variable names)", d->name);
        return false;
    }
    if (in->remove && !ctx.removed) {
        add_error(in->L, in->at, "'-%s = %s' drops nothing: no earlier entry matches", d->name, in->value);
        return false;
    }
    return true;
}

/* set = NAME=VALUE */
bool parse_assign(struct key_input *in, const struct key_def *d)
{
    struct str_list *list = KEY_FIELD(in->p, d, struct str_list);
    const char *value = in->value;
    if (in->remove) {
        if (!str_list_remove(list, value)) {
            add_error(in->L, in->at, "'-set = %s' drops nothing: no earlier 'set' of that variable", value);
            return false;
        }
        return true;
    }
    const char *eq = strchr(value, '=');
    char name[256];
    size_t nl = eq ? (size_t)(eq - value) : 0;
    if (!eq || nl == 0 || nl >= sizeof name) {
        add_error(in->L, in->at, "set: '%s' is not valid: expected NAME=VALUE", value);
        return false;
    }
    memcpy(name, value, nl);
    name[nl] = '\0';
    if (!valid_env_name(name)) {
        add_error(in->L, in->at, "set: '%s' is not a variable name (letters, digits and '_')", name);
        return false;
    }
    /* a later set of the same name replaces the earlier one */
    str_list_remove(list, name);
    str_list_push(list, value, in->at);
    return true;
}

bool parse_ports(struct key_input *in, const struct key_def *d)
{
    (void)d;
    struct word_ctx ctx = {in->L, in->at, NULL, in->remove, 0};
    if (!strcmp(in->value, "none")) {
        in->p->nforward = 0;
        return true;
    }
    if (!*in->value) {
        add_error(in->L, in->at, "forward: empty value (expected port numbers or 'none')");
        return false;
    }
    if (!for_each_word(in->value, push_port, &ctx))
        return false;
    if (in->remove && !ctx.removed) {
        add_error(in->L, in->at, "'-forward = %s' drops nothing: no earlier entry matches", in->value);
        return false;
    }
    /* where the list was last added to, for messages about it */
    if (!in->remove)
        in->p->at[K_NET_FORWARD] = *in->at;
    return true;
}

static bool push_allow(void *c, const char *w)
{
    struct word_ctx *ctx = c;
    char *canon = NULL;
    const char *err = allow_entry_normalize(w, &canon);
    if (err) {
        add_error(ctx->L, ctx->at, "allow: '%s': %s", w, err);
        return false;
    }
    if (ctx->remove)
        ctx->removed += str_list_remove(ctx->list, canon);
    else {
        /* the same destination twice is one entry: the first one's origin */
        bool seen = false;
        for (size_t i = 0; i < ctx->list->n && !seen; i++)
            seen = !strcmp(ctx->list->v[i].value, canon);
        if (!seen)
            str_list_push(ctx->list, canon, ctx->at);
    }
    free(canon);
    return true;
}

/* allow = NAME... : destinations of the egress proxy (allowlist.h) */
bool parse_allow(struct key_input *in, const struct key_def *d)
{
    struct str_list *list = KEY_FIELD(in->p, d, struct str_list);
    if (!strcmp(in->value, "none")) {
        str_list_free(list);
        return true;
    }
    if (!*in->value) {
        add_error(in->L, in->at, "allow: empty value (expected host names, *.domain, addresses, "
                  "@presets or 'none')");
        return false;
    }
    struct word_ctx ctx = {in->L, in->at, list, in->remove, 0};
    if (!for_each_word(in->value, push_allow, &ctx))
        return false;
    if (in->remove && !ctx.removed) {
        add_error(in->L, in->at, "'-allow = %s' drops nothing: no earlier entry matches", in->value);
        return false;
    }
    return true;
}

/* capabilities = NAME...: the whole set, replacing the inherited one */
bool parse_caps(struct key_input *in, const struct key_def *d)
{
    struct str_list *field = KEY_FIELD(in->p, d, struct str_list);
    struct str_list next = {0};
    if (strcmp(in->value, "none") != 0) {
        if (!*in->value) {
            add_error(in->L, in->at, "capabilities: empty value (expected 'none' or capability names)");
            return false;
        }
        struct caps_ctx ctx = {in->L, in->at, &next, true};
        for_each_word(in->value, push_cap, &ctx);
        if (!ctx.ok) {
            str_list_free(&next);
            return false;
        }
    }
    str_list_free(field);
    *field = next;
    return true;
}

bool parse_deny(struct key_input *in, const struct key_def *d)
{
    (void)d;
    struct profile *p = in->p;
    if (in->remove && !strcmp(in->value, "*")) {
        for (size_t i = 0; i < p->ndeny; i++) {
            free(p->deny[i].syscall);
            free(p->deny[i].text);
        }
        if (!p->ndeny) {
            add_error(in->L, in->at, "'-deny = *' drops nothing: no earlier deny rule");
            return false;
        }
        p->ndeny = 0;
        return true;
    }
    struct deny_rule r = {0};
    if (!deny_rule_parse(in->L, in->at, in->value, &r))
        return false;
    if (in->remove) {
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
            add_error(in->L, in->at, "'-deny = %s' drops nothing: no earlier deny rule is written so",
                      in->value);
            return false;
        }
        return true;
    }
    xgrow((void **)&p->deny, &p->capdeny, p->ndeny + 1, sizeof *p->deny);
    p->deny[p->ndeny++] = r;
    return true;
}

/* ------------------------------------------------------------------ */
/* One KEY = VALUE                                                      */

/* Applies one entry: finds its row, checks the '-' and '?' forms the row
 * allows, expands variables, refuses a scalar set twice in one file, and
 * hands the value to the row's parse function. Returns false after
 * reporting an error. */
bool profile_apply_entry(struct loader *L, const char *section, const char *rawkey,
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

    const struct key_def *d = profile_key_find(section, kbuf);
    if (!d) {
        const char *cands[K_COUNT + 1];
        size_t nc = 0;
        const char *elsewhere = NULL;
        for (size_t i = 0; i < profile_nkeys; i++) {
            if (!strcmp(profile_keys[i].section, section))
                cands[nc++] = profile_keys[i].name;
            else if (!strcmp(profile_keys[i].name, kbuf))
                elsewhere = profile_keys[i].section;
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
    if (optional && !(d->flags & KEY_OPTIONAL)) {
        add_error(L, at, "'%s?': only filesystem rules and include take the '?' suffix", d->name);
        return false;
    }
    if (remove && !(d->flags & (KEY_LIST | KEY_SET))) {
        add_error(L, at, "'-%s': only list keys can drop inherited entries; set '%s' again to override it",
                  d->name, d->name);
        return false;
    }
    if (remove && (d->flags & KEY_SET)) {
        add_error(L, at, "'-%s': set '%s' again to override it", d->name, d->name);
        return false;
    }

    autofree char *value = expand_vars(L, at, rawvalue, profile_dir);
    if (!value)
        return false;
    bool list = d->flags & KEY_LIST;
    if (!list && !scalar_ok(L, d, at))
        return false;
    struct key_input in = {L, p, at, value, remove, optional, rawvalue};
    if (!d->parse(&in, d))
        return false;
    if (!list)
        p->at[d->key] = *at;
    return true;
}
