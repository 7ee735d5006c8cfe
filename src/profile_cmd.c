/* `sbx profile list | show NAME | check FILE...` */
#include "config.h"

#include "cli.h"
#include "commands.h"
#include "exit.h"
#include "landlock.h"
#include "log.h"
#include "mount-plan.h"
#include "lookup.h"
#include "util.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct listed {
    char *name;
    char *path;
    char *description;
    const char *shadowed_by; /* directory of the profile that wins */
};

static int cmp_listed(const void *a, const void *b)
{
    const struct listed *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->shadowed_by != NULL) - (y->shadowed_by != NULL);
}

struct listing {
    struct listed *items;
    size_t n, cap;
    const struct profile_search *search;
};

static void list_one(const char *dir, const char *name, void *ctx)
{
    struct listing *L = ctx;
    char *path = xasprintf("%s/%s.ini", dir, name);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(path);
        return;
    }
    const char *winner = NULL;
    for (size_t i = 0; i < L->n; i++)
        if (!strcmp(L->items[i].name, name) && !L->items[i].shadowed_by)
            winner = L->items[i].path;
    xgrow((void **)&L->items, &L->cap, L->n + 1, sizeof *L->items);
    struct listed *it = &L->items[L->n];
    it->name = xstrdup(name);
    it->path = path;
    it->shadowed_by = winner;
    /* The description needs the profile loaded with its includes:
     * a broken profile still lists, with its first error. */
    struct profile p;
    struct profile_errors errs = {0};
    profile_init_defaults(&p);
    if (profile_load(&p, path, L->search, cli_profile_vars(), &errs))
        it->description = xstrdup(p.description ? p.description : "");
    else
        it->description = xasprintf("(broken: %s)", errs.n ? errs.msg[0] : "?");
    profile_errors_free(&errs);
    profile_free(&p);
    L->n++;
}

static int profile_list(void)
{
    struct profile_search search;
    profile_search_from_env(&search);
    struct listing L = { .search = &search };
    profile_search_each(&search, list_one, &L);
    struct listed *items = L.items;
    size_t n = L.n;
    qsort(items, n, sizeof *items, cmp_listed);
    size_t w = 4;
    for (size_t i = 0; i < n; i++)
        if (strlen(items[i].name) > w)
            w = strlen(items[i].name);
    printf("%-*s  %s\n", (int)w, "NAME", "DESCRIPTION / PATH");
    for (size_t i = 0; i < n; i++) {
        printf("%-*s  %s\n", (int)w, items[i].name, items[i].description);
        if (items[i].shadowed_by)
            printf("%-*s    %s (shadowed by %s)\n", (int)w, "", items[i].path, items[i].shadowed_by);
        else
            printf("%-*s    %s\n", (int)w, "", items[i].path);
    }
    autofree char *dirs = profile_search_describe(&search);
    if (n == 0)
        fprintf(stderr, "sbx: no profiles found in %s\n", dirs);
    else
        /* The directories this sbx really searches: a source build's
         * prefix (/usr/local) is not the FILES of sbx(1). Indented, as a
         * path line, so completion never takes it for a name. */
        printf("%-*s  searched, first match wins: %s\n", (int)w, "", dirs);
    for (size_t i = 0; i < n; i++) {
        free(items[i].name);
        free(items[i].path);
        free(items[i].description);
    }
    free(items);
    profile_search_free(&search);
    return 0;
}

/* --tier landlock: after the profile, what the Landlock tier does with
 * it here (sbx(1) TIERS), as comments: each rule it expresses otherwise,
 * each it refuses by file:line. 125 when it refuses one. */
static int profile_show(const char *name, const char *tier)
{
    struct profile p;
    cli_load_profile(&p, name, NULL);
    profile_print(&p, stdout);
    int status = 0;
    if (tier) {
        struct strv said = { 0 }, refused = { 0 };
        bool ok = landlock_plan_describe(&p, cli_profile_vars()->home, &said, &refused);
        printf("\n; in the Landlock tier (sbx(1) TIERS):\n");
        for (size_t i = 0; i < said.n; i++)
            printf("; %s\n", said.v[i]);
        for (size_t i = 0; i < refused.n; i++)
            printf("; refused: %s\n", refused.v[i]);
        if (!ok)
            status = SBX_EXIT_FAILURE;
        strv_free(&said);
        strv_free(&refused);
    }
    profile_free(&p);
    return status;
}

/* Every error of every file, then a summary; 125 when any file failed. */
static int profile_check(int argc, char **argv)
{
    struct profile_search search;
    profile_search_from_env(&search);
    int bad = 0;
    for (int i = 0; i < argc; i++) {
        struct profile p;
        struct profile_errors errs = {0};
        profile_init_defaults(&p);
        bool loaded = profile_load(&p, argv[i], &search, cli_profile_vars(), &errs);
        /* what run would refuse on this machine: a required path missing */
        for (size_t r = 0; r < p.nfs; r++) {
            struct stat st;
            const struct fs_rule *rule = &p.fs[r];
            if (rule->optional || !rule->path || rule->path[0] != '/' ||
                stat(rule->path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR))
                continue;
            loaded = false;
            xgrow((void **)&errs.msg, &errs.cap, errs.n + 1, sizeof *errs.msg);
            errs.msg[errs.n++] = mount_missing_rule_error(rule, errno);
        }
        if (loaded) {
            autofree char *unused = profile_unused_warning(&p);
            if (unused)
                fprintf(stderr, "sbx: warning: %s\n", unused);
            printf("%s: ok%s\n", argv[i], unused ? " (with a warning)" : "");
        } else {
            bad++;
            for (size_t e = 0; e < errs.n; e++)
                fprintf(stderr, "sbx: %s\n", errs.msg[e]);
        }
        profile_errors_free(&errs);
        profile_free(&p);
    }
    profile_search_free(&search);
    if (bad)
        fprintf(stderr, "sbx: %d of %d profile%s failed the check\n", bad, argc, argc == 1 ? "" : "s");
    return bad ? SBX_EXIT_FAILURE : 0;
}

int cmd_profile(int argc, char **argv)
{
    if (argc < 2)
        return cli_run_usage_error("profile", "'sbx profile' needs list, show NAME or check FILE...");
    const char *what = argv[1];
    if (!strcmp(what, "list")) {
        if (argc != 2)
            return cli_run_usage_error("profile", "'sbx profile list' takes no arguments");
        return profile_list();
    }
    if (!strcmp(what, "show")) {
        const char *tier = NULL;
        if (argc == 5 && !strcmp(argv[2], "--tier")) {
            if (strcmp(argv[3], "landlock") && strcmp(argv[3], "namespaces"))
                return cli_run_usage_error("profile", "--tier takes namespaces or landlock");
            tier = !strcmp(argv[3], "landlock") ? argv[3] : NULL;
            argv += 2;
            argc -= 2;
        }
        if (argc != 3)
            return cli_run_usage_error("profile", "'sbx profile show' takes [--tier namespaces|landlock] "
                                       "and one profile name or path");
        return profile_show(argv[2], tier);
    }
    if (!strcmp(what, "check")) {
        if (argc < 3)
            return cli_run_usage_error("profile", "'sbx profile check' needs at least one file");
        return profile_check(argc - 2, argv + 2);
    }
    if (!strcmp(what, "learn"))
        return cmd_profile_learn(argc - 1, argv + 1);  /* learn_cmd.c */
    char msg[256];
    snprintf(msg, sizeof msg, "unknown 'sbx profile' command '%s' (list, show, check, learn)", what);
    return cli_run_usage_error("profile", msg);
}
