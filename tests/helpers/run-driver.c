/* Test driver for sandbox_run() until `sbx run` (src/cli.c) lands: builds a
 * profile from a few options shaped like sbx run's and runs the command.
 *
 *   run-driver [--network MODE] [--nofile N|max] [--timeout DUR]
 *              [--setenv N=V] [--unsetenv N] [--uid N] [--cap NAME]
 *              [--no-ns KIND] [--hostname H] [-v] [-q] [--] COMMAND ARG...
 */
#include "config.h"

#include "log.h"
#include "profile.h"
#include "sandbox.h"
#include "util.h"

#include <linux/limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* TEMPORARY: the profile helpers of src/profile.c, until it lands on main. */
const char *limit_kind_name(enum limit_kind k)
{
    static const char *const names[] = { "nofile", "nproc", "core", "cpu", "fsize",
                                         "as", "stack", "memlock", "sigpending" };
    return names[k];
}
int limit_kind_resource(enum limit_kind k)
{
    static const int res[] = { RLIMIT_NOFILE, RLIMIT_NPROC, RLIMIT_CORE, RLIMIT_CPU, RLIMIT_FSIZE,
                               RLIMIT_AS, RLIMIT_STACK, RLIMIT_MEMLOCK, RLIMIT_SIGPENDING };
    return res[k];
}
const char *net_mode_name(enum net_mode m)
{
    return m == NET_LOOPBACK ? "loopback" : m == NET_NONE ? "none" : "host";
}
const char *ns_kind_name(enum ns_kind k)
{
    static const char *const names[] = { "user", "mount", "net", "pid", "ipc", "uts" };
    return names[k];
}
void profile_init_defaults(struct profile *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < NS_COUNT; i++)
        p->ns[i] = true;
    p->uid.current = p->gid.current = true;
    p->hostname = xstrdup("sbx");
    p->nested_userns = true;
    p->net_mode = NET_LOOPBACK;
    p->proc = true;
    p->no_new_privs = true;
    p->name = xstrdup("default");
}

static void list_add(struct str_list *l, const char *v)
{
    xgrow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n++] = (struct str_entry){ .value = xstrdup(v) };
}

int main(int argc, char **argv)
{
    struct profile p;
    profile_init_defaults(&p);
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (a[0] != '-') {
            break;
        } else if (!strcmp(a, "-v")) {
            log_verbosity = LOG_VERBOSE;
            continue;
        } else if (!strcmp(a, "-q")) {
            log_verbosity = LOG_QUIET;
            continue;
        }
        if (!v)
            die("%s needs a value", a);
        i++;
        if (!strcmp(a, "--network")) {
            p.net_mode = !strcmp(v, "none") ? NET_NONE : !strcmp(v, "host") ? NET_HOST : NET_LOOPBACK;
        } else if (!strcmp(a, "--nofile") || !strcmp(a, "--nproc") || !strcmp(a, "--core")) {
            enum limit_kind k = !strcmp(a, "--nofile") ? LIMIT_NOFILE
                                : !strcmp(a, "--nproc") ? LIMIT_NPROC : LIMIT_CORE;
            p.limits[k].set = true;
            if (!strcmp(v, "max"))
                p.limits[k].max = true;
            else if (!strcmp(v, "unlimited"))
                p.limits[k].unlimited = true;
            else if (!parse_u64(v, &p.limits[k].value))
                die("bad limit '%s'", v);
        } else if (!strcmp(a, "--timeout")) {
            if (!parse_duration_ms(v, &p.timeout_ms))
                die("bad duration '%s'", v);
        } else if (!strcmp(a, "--setenv")) {
            list_add(&p.env_set, v);
        } else if (!strcmp(a, "--unsetenv")) {
            list_add(&p.env_unset, v);
        } else if (!strcmp(a, "--keepenv")) {
            p.env_clear = true;
            list_add(&p.env_keep, v);
        } else if (!strcmp(a, "--uid")) {
            p.uid.current = false;
            p.uid.value = (uint32_t)atoi(v);
        } else if (!strcmp(a, "--gid")) {
            p.gid.current = false;
            p.gid.value = (uint32_t)atoi(v);
        } else if (!strcmp(a, "--cap")) {
            list_add(&p.capabilities, v);
        } else if (!strcmp(a, "--no-ns")) {
            for (int k = 0; k < NS_COUNT; k++)
                if (!strcmp(v, ns_kind_name((enum ns_kind)k)))
                    p.ns[k] = false;
        } else if (!strcmp(a, "--hostname")) {
            free(p.hostname);
            p.hostname = xstrdup(v);
        } else if (!strcmp(a, "-C")) {
            /* handled below */
        } else {
            die("unknown option %s", a);
        }
    }
    if (i >= argc)
        die("no command");
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        die_errno("getcwd");
    struct sandbox_request req = { .profile = &p, .argv = argv + i, .cwd = cwd };
    struct sandbox_result res;
    int status = sandbox_run(&req, &res);
    sandbox_result_free(&res);
    return status;
}
