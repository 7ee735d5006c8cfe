/* sbx profile learn: the smallest profile, over a restrictive base, under
 * which a command passes, learned from the refusals sbx records.
 *
 * First the command must pass under a permissive profile (qa): a command
 * that fails there has nothing to learn. Then rounds under the base plus
 * the lines learned so far: each refused run's record (sbx run --report)
 * gives the fix of each refusal (fix.h), added to the next round, until
 * the command passes. Last, each learned line is taken out in turn and the
 * command run again: a line without which it still passes is dropped. So
 * every line printed answers a refusal, and without any one of them the
 * command fails again (each such run was made).
 *
 * Only refusals sbx sees are learned: denied calls, destinations
 * [network] allow refused, and writes a read-only mount refused (the
 * write observer, refusals.h: rw, cache and unprotect lines). A command
 * refused by the kernel alone in a way sbx does not see (EMFILE at the
 * descriptor limit) fails a round with nothing new to learn: learn stops
 * there and says so, printing nothing it did not prove. Each run is a
 * separate `sbx run` of this same binary. */
#include "config.h"

#include "cli.h"
#include "commands.h"
#include "exit.h"
#include "explain.h"
#include "log.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct learned {
    struct record_fix *v;
    size_t n;
};

struct learn {
    const char *base, *permissive;
    char **cmd;
    char dir[4096];
    unsigned runs;
};

/* One `sbx run -q -p PROFILE --report REPORT -- CMD`: its exit status
 * (-1: it could not be started or was killed). Output goes to a log. */
static int run_once(struct learn *L, const char *profile, const char *report)
{
    size_t n = 0;
    while (L->cmd[n])
        n++;
    char **argv = xcalloc(n + 9, sizeof *argv);
    size_t k = 0;
    argv[k++] = "sbx";
    argv[k++] = "run";
    argv[k++] = "-q";
    argv[k++] = "-p";
    argv[k++] = (char *)profile;
    argv[k++] = "--report";
    argv[k++] = (char *)report;
    argv[k++] = "--";
    for (size_t i = 0; i < n; i++)
        argv[k++] = L->cmd[i];
    char *log = xasprintf("%s/run%u.log", L->dir, ++L->runs);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || null < 0 || dup2(null, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(125);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    free(argv);
    free(log);
    if (pid < 0)
        return -1;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The profile: the base, then the learned lines but SKIP (-1: none). */
static bool write_profile(const struct learn *L, const struct learned *ls, size_t skip,
                          const char *path, FILE *also)
{
    FILE *f = also ? also : fopen(path, "we");
    if (!f)
        return false;
    fprintf(f, "[profile]\ninclude = %s\n", L->base);
    for (size_t s = 0; s < ls->n; s++) {
        bool first = true;
        for (size_t k = 0; k < s && first; k++)
            first = strcmp(ls->v[k].section, ls->v[s].section) != 0;
        if (!first)
            continue;   /* this section was written with an earlier line */
        bool header = false;
        for (size_t i = s; i < ls->n; i++) {
            if (i == skip || strcmp(ls->v[i].section, ls->v[s].section))
                continue;
            if (!header)
                fprintf(f, "[%s]\n", ls->v[s].section);
            header = true;
            if (also)
                fprintf(f, "; answers %s (%s)\n", ls->v[i].answers,
                        ls->v[i].safe ? "safe" : ls->v[i].why[0] ? ls->v[i].why
                                                 : "review: it reaches outside the sandbox");
            fprintf(f, "%s\n", ls->v[i].line);
        }
    }
    return also ? true : fclose(f) == 0;
}

/* The effective profile NAME as "section\tkey = value" lines (origins and
 * comments dropped), one string each. */
static struct strv effective_lines(const char *name)
{
    struct profile p;
    cli_load_profile(&p, name, NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        die_errno("profile learn: cannot print the profile %s", name);
    profile_print(&p, m);
    fclose(m);
    profile_free(&p);
    struct strv out = { 0 };
    char section[32] = "";
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '[') {
            snprintf(section, sizeof section, "%.*s", (int)strcspn(line + 1, "]"), line + 1);
            continue;
        }
        if (line[0] == ';' || !strchr(line, '='))
            continue;
        char *cut = NULL;
        for (char *q = strstr(line, " ; "); q; q = strstr(q + 1, " ; "))
            cut = q;
        if (cut)
            *cut = '\0';
        size_t n = strlen(line);
        while (n && line[n - 1] == ' ')
            line[--n] = '\0';
        strv_push(&out, xasprintf("%s\t%s", section, line));
    }
    free(buf);
    return out;
}

/* Lines of the permissive profile that the base lacks, outside [profile]
 * (its description and includes): what to try when a round fails with no
 * refusal sbx saw. Each is kept only if the command then needs it. */
static void permissive_candidates(const struct learn *L, struct learned *c)
{
    struct strv perm = effective_lines(L->permissive), base = effective_lines(L->base);
    for (size_t i = 0; i < perm.n; i++) {
        bool in_base = false;
        for (size_t j = 0; j < base.n && !in_base; j++)
            in_base = !strcmp(perm.v[i], base.v[j]);
        char *tab = strchr(perm.v[i], '\t');
        if (in_base || !tab || !strncmp(perm.v[i], "profile\t", 8) ||
            (size_t)(tab - perm.v[i]) >= sizeof c->v[0].section)
            continue;
        c->v = xrealloc(c->v, (c->n + 1) * sizeof *c->v);
        struct record_fix *f = &c->v[c->n++];
        memset(f, 0, sizeof *f);
        snprintf(f->section, sizeof f->section, "%.*s", (int)(tab - perm.v[i]), perm.v[i]);
        snprintf(f->line, sizeof f->line, "%s", tab + 1);
    }
    strv_free(&perm);
    strv_free(&base);
}

static int learn_usage(const char *msg)
{
    return cli_run_usage_error("profile", msg);
}

int cmd_profile_learn(int argc, char **argv)
{
    struct learn L = { .base = "deny-network", .permissive = "qa" };
    unsigned max_rounds = 8;
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (!strcmp(argv[i], "--base") && i + 1 < argc) {
            L.base = argv[++i];
        } else if (!strcmp(argv[i], "--permissive") && i + 1 < argc) {
            L.permissive = argv[++i];
        } else if (argv[i][0] == '-') {
            return learn_usage("'sbx profile learn' takes --base P, --permissive P, then -- COMMAND");
        } else {
            break;
        }
    }
    if (i >= argc)
        return learn_usage("'sbx profile learn' needs a command: sbx profile learn -- COMMAND");
    if (strchr(L.base, '\n'))
        return learn_usage("--base: a profile name or path on one line");
    L.cmd = argv + i;
    const char *tmp = getenv("TMPDIR");
    snprintf(L.dir, sizeof L.dir, "%s/sbx-learn.XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
    if (!mkdtemp(L.dir))
        die_errno("profile learn: cannot make a scratch directory %s", L.dir);

    struct learned ls = { 0 }, cands = { 0 };
    size_t next_candidate = 0;
    int rc = 1;
    char *report = xasprintf("%s/record.json", L.dir), *prof = xasprintf("%s/learning.ini", L.dir);
    int st = run_once(&L, L.permissive, report);
    if (st != 0) {
        fprintf(stderr, "sbx: profile learn: the command exits %d under %s, the permissive "
                "profile: there is nothing to learn until it passes there (its output: %s/run1.log)\n",
                st, L.permissive, L.dir);
        goto out;
    }
    bool passed = false;
    permissive_candidates(&L, &cands);
    max_rounds += (unsigned)cands.n;
    for (unsigned round = 0; round < max_rounds && !passed; round++) {
        if (!write_profile(&L, &ls, (size_t)-1, prof, NULL))
            die_errno("profile learn: cannot write %s", prof);
        st = run_once(&L, prof, report);
        if (st == 0) {
            passed = true;
            break;
        }
        struct record_fixes fx;
        char err[512];
        if (!record_fixes_read(report, &fx, err, sizeof err)) {
            fprintf(stderr, "sbx: profile learn: round %u (exit %d): %s\n", round + 1, st, err);
            goto out;
        }
        size_t added = 0;
        for (size_t k = 0; k < fx.n; k++) {
            bool have = false;
            for (size_t j = 0; j < ls.n && !have; j++)
                have = !strcmp(ls.v[j].line, fx.v[k].line) && !strcmp(ls.v[j].section, fx.v[k].section);
            if (have)
                continue;
            ls.v = xrealloc(ls.v, (ls.n + 1) * sizeof *ls.v);
            ls.v[ls.n++] = fx.v[k];
            added++;
        }
        record_fixes_free(&fx);
        if (!added && next_candidate < cands.n) {
            /* Refused by the kernel alone: try the permissive profile's
             * next line the base lacks. */
            struct record_fix *c = &cands.v[next_candidate++];
            snprintf(c->answers, sizeof c->answers,
                     "a failure with no refusal sbx saw (exit %d, round %u)", st, round + 1);
            snprintf(c->why, sizeof c->why, "review: from %s, the kernel's refusal", L.permissive);
            ls.v = xrealloc(ls.v, (ls.n + 1) * sizeof *ls.v);
            ls.v[ls.n++] = *c;
            added = 1;
        }
        if (!added) {
            fprintf(stderr, "sbx: profile learn: under %s and the %zu line(s) learned, the command "
                    "still exits %d, sbx saw no refusal to answer, and %s has no other line to "
                    "try: it fails on something the kernel refused alone that %s allows no more "
                    "than %s (a write to a read-only path, the descriptor limit); its output: "
                    "%s/run%u.log\n", L.base, ls.n, st, L.permissive, L.permissive, L.base,
                    L.dir, L.runs);
            goto out;
        }
    }
    if (!passed) {
        fprintf(stderr, "sbx: profile learn: still refused after %u rounds\n", max_rounds);
        goto out;
    }
    /* Each line without which the command still passes is not needed. */
    for (size_t k = ls.n; k-- > 0;) {
        if (!write_profile(&L, &ls, k, prof, NULL))
            die_errno("profile learn: cannot write %s", prof);
        if (run_once(&L, prof, report) == 0) {
            memmove(&ls.v[k], &ls.v[k + 1], (ls.n - k - 1) * sizeof *ls.v);
            ls.n--;
        }
    }
    printf("; sbx profile learn: the command passes under %s with these lines, and fails\n"
           "; without any one of them (%u runs). Each line says the refusal it answers.\n",
           L.base, L.runs);
    write_profile(&L, &ls, (size_t)-1, NULL, stdout);
    rc = 0;
out:
    free(ls.v);
    free(cands.v);
    /* The scratch directory is kept when the logs are named above. */
    if (rc == 0) {
        for (unsigned r = 1; r <= L.runs; r++) {
            char *p = xasprintf("%s/run%u.log", L.dir, r);
            unlink(p);
            free(p);
        }
        unlink(report);
        unlink(prof);
        rmdir(L.dir);
    }
    free(report);
    free(prof);
    return rc;
}
