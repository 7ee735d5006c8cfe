/* Test commands in an agent's shell tool call (hook.h).
 *
 * The line is read as the shell would split it into simple commands (at
 * ; & && || | and newlines) and words (quotes, backslashes), enough to
 * find the command word of each simple command after its variable
 * assignments and wrappers (env, time, nice). Nothing here runs or
 * expands anything. Where the line uses syntax this reader does not follow
 * ($(...), backquotes, subshells, here-documents, compound commands), the
 * words it found still count, but the decision is at most ASK: the
 * person sees what runs. The rewritten line hands the agent's line as one
 * word to sh -c inside sbx, so what the shell does with it there is what it
 * would have done in the harness's sandbox; only the sandbox changes. */
#include "config.h"

#include "hook.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

struct simple {
    struct strv words;     /* assignments and redirections removed */
    bool writes;           /* a redirection to a file other than /dev/null */
    bool assigns;          /* NAME=VALUE words before the command */
};

struct parsed {
    struct simple *cmds;
    size_t n, cap;
    bool complex;          /* syntax not followed (see the file's comment) */
    char complex_what[48];
};

static void set_complex(struct parsed *p, const char *what)
{
    if (!p->complex)
        snprintf(p->complex_what, sizeof p->complex_what, "%s", what);
    p->complex = true;
}

static struct simple *new_simple(struct parsed *p)
{
    xgrow((void **)&p->cmds, &p->cap, p->n + 1, sizeof *p->cmds);
    memset(&p->cmds[p->n], 0, sizeof p->cmds[p->n]);
    return &p->cmds[p->n++];
}

struct word {
    char *s;
    size_t n, cap;
    bool any;              /* a word was started (even an empty '' one) */
};

static void wput(struct word *w, char c)
{
    xgrow((void **)&w->s, &w->cap, w->n + 2, 1);
    w->s[w->n++] = c;
    w->s[w->n] = '\0';
    w->any = true;
}

static char *wtake(struct word *w)
{
    char *s = w->s ? w->s : xstrdup("");
    *w = (struct word){ 0 };
    return s;
}

static bool is_assignment(const char *w)
{
    if (!((*w >= 'A' && *w <= 'Z') || (*w >= 'a' && *w <= 'z') || *w == '_'))
        return false;
    for (w++; *w && *w != '='; w++)
        if (!((*w >= 'A' && *w <= 'Z') || (*w >= 'a' && *w <= 'z') || (*w >= '0' && *w <= '9') ||
              *w == '_'))
            return false;
    return *w == '=';
}

/* Redirection state: the next word is its target. */
enum redir { R_NONE, R_WRITE, R_OTHER };

static void parse(const char *line, struct parsed *p)
{
    struct simple *cur = new_simple(p);
    struct word w = { 0 };
    enum redir pending = R_NONE;
    bool in_words = false;   /* past the assignments of this simple command */
    const char *s = line;

#define END_WORD()                                                                  \
    do {                                                                           \
        if (w.any) {                                                               \
            char *t = wtake(&w);                                                   \
            if (pending != R_NONE) {                                               \
                if (pending == R_WRITE && strcmp(t, "/dev/null"))                  \
                    cur->writes = true;                                            \
                pending = R_NONE;                                                  \
                free(t);                                                           \
            } else if (!in_words && is_assignment(t)) {                            \
                cur->assigns = true;                                               \
                free(t);                                                           \
            } else {                                                               \
                in_words = true;                                                   \
                strv_push(&cur->words, t);                                         \
            }                                                                      \
        }                                                                          \
    } while (0)
#define END_CMD()                                                                   \
    do {                                                                           \
        END_WORD();                                                                \
        if (cur->words.n || cur->writes || cur->assigns)                           \
            cur = new_simple(p);                                                   \
        in_words = false;                                                          \
        pending = R_NONE;                                                          \
    } while (0)

    while (*s) {
        char c = *s;
        if (c == ' ' || c == '\t') {
            END_WORD();
            s++;
        } else if (c == '\n' || c == ';' || c == '&' || c == '|') {
            /* ;; and ;& belong to case, which is compound. */
            if (c == ';' && (s[1] == ';' || s[1] == '&'))
                set_complex(p, "case");
            END_CMD();
            s++;
            if ((c == '&' || c == '|') && (*s == c || (c == '|' && *s == '&')))
                s++;
        } else if (c == '\'') {
            const char *e = strchr(s + 1, '\'');
            if (!e) {
                set_complex(p, "an unterminated quote");
                e = s + strlen(s);
            }
            if (!w.any)
                w.any = true;
            for (const char *q = s + 1; q < e; q++)
                wput(&w, *q);
            s = *e ? e + 1 : e;
        } else if (c == '"') {
            w.any = true;
            s++;
            while (*s && *s != '"') {
                if (*s == '\\' && s[1] && strchr("\"\\$`\n", s[1])) {
                    if (s[1] != '\n')
                        wput(&w, s[1]);
                    s += 2;
                    continue;
                }
                if (*s == '`' || (*s == '$' && s[1] == '('))
                    set_complex(p, "a command substitution");
                wput(&w, *s++);
            }
            if (!*s)
                set_complex(p, "an unterminated quote");
            else
                s++;
        } else if (c == '\\') {
            if (s[1] == '\n') {
                s += 2;          /* a line continuation */
            } else if (s[1]) {
                wput(&w, s[1]);
                s += 2;
            } else {
                s++;
            }
        } else if (c == '#' && !w.any) {
            while (*s && *s != '\n')
                s++;
        } else if (c == '>' || c == '<') {
            /* A number right before it is the descriptor, not a word. */
            bool fdnum = w.any && w.n && strspn(w.s, "0123456789") == w.n;
            if (fdnum)
                free(wtake(&w));
            else
                END_WORD();
            if (c == '<' && s[1] == '<') {
                set_complex(p, "a here-document");
                s += 2;
            } else if (c == '<' && s[1] == '(') {
                set_complex(p, "a process substitution");
                s++;
            } else if (c == '>' && s[1] == '(') {
                set_complex(p, "a process substitution");
                s++;
            } else if (s[1] == '&') {
                pending = R_OTHER;   /* 2>&1, <&0: duplicates, writes no file */
                s += 2;
            } else {
                pending = c == '>' ? R_WRITE : R_OTHER;
                s++;
                if (c == '>' && (*s == '>' || *s == '|'))
                    s++;
            }
            while (*s == ' ' || *s == '\t')
                s++;
        } else if (c == '`' || (c == '$' && s[1] == '(')) {
            set_complex(p, "a command substitution");
            wput(&w, c);
            s++;
        } else if (c == '(' || c == ')' || ((c == '{' || c == '}') && !w.any)) {
            set_complex(p, "a subshell or group");
            END_CMD();
            s++;
        } else {
            wput(&w, c);
            s++;
        }
    }
    END_CMD();
    if (!cur->words.n && !cur->writes && !cur->assigns)
        p->n--;
#undef END_WORD
#undef END_CMD
}

static const char *base(const char *w)
{
    const char *b = strrchr(w, '/');
    return b ? b + 1 : w;
}

/* The index of the command word: past wrappers that run their arguments
 * (env with its assignments and options, time, nice -n N, command). */
static size_t command_word(const struct strv *w)
{
    size_t i = 0;
    while (i < w->n) {
        const char *b = base(w->v[i]);
        if (!strcmp(b, "env")) {
            for (i++; i < w->n && (is_assignment(w->v[i]) || w->v[i][0] == '-'); i++)
                ;
        } else if (!strcmp(b, "time") || !strcmp(b, "command")) {
            i++;
        } else if (!strcmp(b, "nice")) {
            i++;
            if (i < w->n && !strcmp(w->v[i], "-n"))
                i += 2;
            else if (i < w->n && w->v[i][0] == '-')
                i++;
        } else {
            break;
        }
    }
    return i;
}

/* The first argument that is not an option, from index i (cargo +nightly
 * test, go -C dir test are not handled: -C takes a value). */
static const char *subcommand(const struct strv *w, size_t i)
{
    for (; i < w->n; i++)
        if (w->v[i][0] != '-' && w->v[i][0] != '+')
            return w->v[i];
    return NULL;
}

static bool in(const char *s, const char *const *list)
{
    for (; s && *list; list++)
        if (!strcmp(s, *list))
            return true;
    return false;
}

/* The test runner WORDS start, written as "cargo test", or NULL. */
static bool test_runner(const struct strv *w, char *out, size_t len)
{
    size_t i = command_word(w);
    if (i >= w->n)
        return false;
    const char *cmd = base(w->v[i]);
    const char *sub = subcommand(w, i + 1);
    static const char *const direct[] = { "pytest", "py.test", "tox", "nox", "jest", "vitest",
                                          "mocha", "ctest", "prove", NULL };
    static const char *const js[] = { "npm", "yarn", "pnpm", "bun", NULL };
    static const char *const npx_tools[] = { "jest", "vitest", "mocha", "playwright", NULL };
    static const char *const make_targets[] = { "check", "test", "tests", "distcheck", NULL };
    if (in(cmd, direct)) {
        snprintf(out, len, "%s", cmd);
        return true;
    }
    if (!strcmp(cmd, "cargo") && in(sub, (const char *const[]){ "test", "t", "nextest", NULL })) {
        snprintf(out, len, "cargo %s", sub);
        return true;
    }
    if (!strcmp(cmd, "go") && in(sub, (const char *const[]){ "test", NULL })) {
        snprintf(out, len, "go test");
        return true;
    }
    if (in(cmd, js)) {
        if (in(sub, (const char *const[]){ "test", "t", "tst", NULL })) {
            snprintf(out, len, "%s test", cmd);
            return true;
        }
        /* npm run test, npm run test:unit */
        if (sub && !strcmp(sub, "run")) {
            size_t k = i + 1;
            while (k < w->n && strcmp(w->v[k], "run"))
                k++;
            const char *script = subcommand(w, k + 1);
            if (script && (!strcmp(script, "test") || !strncmp(script, "test:", 5))) {
                snprintf(out, len, "%s run %s", cmd, script);
                return true;
            }
        }
        return false;
    }
    if (!strcmp(cmd, "npx") && in(sub, npx_tools)) {
        snprintf(out, len, "npx %s", sub);
        return true;
    }
    if ((!strncmp(cmd, "python", 6)) && i + 2 < w->n && !strcmp(w->v[i + 1], "-m") &&
        in(w->v[i + 2], (const char *const[]){ "pytest", "unittest", NULL })) {
        snprintf(out, len, "python -m %s", w->v[i + 2]);
        return true;
    }
    if ((!strcmp(cmd, "make") || !strcmp(cmd, "gmake")) ) {
        for (size_t k = i + 1; k < w->n; k++)
            if (in(w->v[k], make_targets)) {
                snprintf(out, len, "make %s", w->v[k]);
                return true;
            }
        return false;
    }
    if (!strcmp(cmd, "meson") && sub && !strcmp(sub, "test")) {
        snprintf(out, len, "meson test");
        return true;
    }
    return false;
}

/* Commands a test line commonly chains or pipes through that neither
 * write nor reach anything (their redirections are judged apart). */
static bool harmless(const struct strv *w)
{
    static const char *const ok[] = { "cd", "pushd", "popd", "echo", "printf", "true", "pwd",
                                      "tail", "head", "grep", "egrep", "fgrep", "sort", "uniq",
                                      "wc", "cat", "less", "more", "ls", NULL };
    return w->n && in(w->v[0], ok);
}

char *hook_shell_quote(const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                        "_-+=./:,@%") == strlen(s))
        return xstrdup(s);
    size_t n = 3;
    for (const char *q = s; *q; q++)
        n += *q == '\'' ? 4 : 1;
    char *out = xmalloc(n), *o = out;
    *o++ = '\'';
    for (const char *q = s; *q; q++) {
        if (*q == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *q;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return out;
}

void hook_decide(const char *line, const struct hook_options *o, struct hook_decision *d)
{
    *d = (struct hook_decision){ .verdict = HOOK_LEAVE };
    struct parsed p = { 0 };
    parse(line, &p);
    bool found = false, sbx = false, more = false;
    char runner[sizeof d->runner];
    for (size_t i = 0; i < p.n; i++) {
        const struct strv *w = &p.cmds[i].words;
        size_t c = command_word(w);
        if (c < w->n && !strcmp(base(w->v[c]), "sbx"))
            sbx = true;
        if (test_runner(w, runner, sizeof runner)) {
            if (!found)
                snprintf(d->runner, sizeof d->runner, "%s", runner);
            found = true;
        } else if (!harmless(w) && !more) {
            more = true;
            snprintf(d->why, sizeof d->why, "it also runs '%s'", w->n ? w->v[0] : "");
        }
        if (p.cmds[i].writes && !more) {
            more = true;
            snprintf(d->why, sizeof d->why, "it redirects output to a file");
        }
    }
    if (found && !sbx) {
        if (p.complex && !more) {
            more = true;
            snprintf(d->why, sizeof d->why, "it uses %s", p.complex_what);
        }
        d->verdict = more ? HOOK_ASK : HOOK_ALLOW;
        char *q = hook_shell_quote(line);
        char *prof = hook_shell_quote(o->profile && *o->profile ? o->profile : "qa");
        /* audit of a single simple command keeps the runner's argv, so it
         * is judged test by test; anything else is judged as a whole. */
        if (o->audit && p.n == 1 && !p.complex && !p.cmds[0].writes &&
            command_word(&p.cmds[0].words) == 0 && !p.cmds[0].assigns) {
            char *acc = xstrdup("sbx audit --profile ");
            char *t = xasprintf("%s%s --", acc, prof);
            free(acc);
            acc = t;
            for (size_t k = 0; k < p.cmds[0].words.n; k++) {
                char *wq = hook_shell_quote(p.cmds[0].words.v[k]);
                t = xasprintf("%s %s", acc, wq);
                free(acc);
                free(wq);
                acc = t;
            }
            d->command = acc;
        } else {
            d->command = xasprintf("sbx %s --profile %s -- sh -c %s", o->audit ? "audit" : "run",
                                   prof, q);
        }
        free(q);
        free(prof);
    } else {
        d->runner[0] = '\0';
        d->why[0] = '\0';
    }
    for (size_t i = 0; i < p.n; i++)
        strv_free(&p.cmds[i].words);
    free(p.cmds);
}

void hook_decision_free(struct hook_decision *d)
{
    free(d->command);
    d->command = NULL;
}
