/* Unit tests of the profile engine: values, includes and overrides, list
 * removal, variables, lookup order, command-line overrides, and that every
 * row of the key table reads back what `sbx profile show` prints. */
#include "config.h"

#include "../tap.h"
#include "lookup.h"
#include "profile.h"
#include "profile_json.h"
#include "profile_keys.h"
#include "util.h"

#include <json-c/json.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[1024];

static const struct profile_vars vars = {
    .home = "/home/u", .cwd = "/work/proj", .user = "u", .uid = "1000", .gid = "1000", .tmpdir = "/tmp",
    .project = "/work",
};

static void write_file(const char *name, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        bail_out("cannot write a test file");
    fputs(text, f);
    fclose(f);
}

/* Loads NAME from `dir` (searching only there); returns the error count. */
static size_t load(struct profile *p, const char *name, struct profile_errors *errs)
{
    struct profile_search s = {0};
    profile_search_add(&s, dir);
    profile_init_defaults(p);
    memset(errs, 0, sizeof *errs);
    profile_load(p, name, &s, &vars, errs);
    profile_search_free(&s);
    for (size_t i = 0; i < errs->n; i++)
        diag("error: %s", errs->msg[i]);
    return errs->n;
}

static void test_defaults(void)
{
    struct profile p;
    profile_init_defaults(&p);
    ok(p.ns[NS_USER] && p.ns[NS_MOUNT] && p.ns[NS_NET] && p.ns[NS_PID] && p.ns[NS_IPC] && p.ns[NS_UTS],
       "defaults: every namespace on");
    ok(p.net_mode == NET_LOOPBACK && p.root == ROOT_RO && p.proc && p.dev == DEV_MINIMAL,
       "defaults: loopback, read-only root, proc, minimal dev");
    ok(p.no_new_privs && p.seccomp == SECCOMP_DEFAULT && p.capabilities.n == 0,
       "defaults: no_new_privs, seccomp default, no capabilities");
    ok(p.uid.current && p.gid.current, "defaults: uid and gid current");
    profile_free(&p);
}

static void test_values(void)
{
    struct profile p;
    struct profile_errors e;
    write_file("values.ini",
               "[namespaces]\nuid = 0\ngid = 100\nhostname = box.local\nipc = no\n"
               "[network]\nmode = none\nforward = 5432 6379\n"
               "[limits]\nnofile = max\nnproc = 512\nas = 2G\ncpu = 2m\nstack = unlimited\ntimeout = 90s\n"
               "[filesystem]\nroot = tmpfs\nrw = ${CWD}\nro? = ${HOME}/.config//x/\nhide = ${HOME}/.ssh\n"
               "[environment]\nclear = yes\nkeep = PATH  HOME\tLANG\nset = A=b=c\nunset = SECRET\n"
               "[security]\ncapabilities = CAP_NET_RAW cap_sys_ptrace\nseccomp = none\n"
               "deny = bind:inet,inet6 EPERM\ndeny = socket:unix EACCES\n");
    is_int(load(&p, "values", &e), 0, "values: no errors");
    ok(!p.uid.current && p.uid.value == 0 && p.gid.value == 100, "values: uid 0, gid 100");
    is_str(p.hostname, "box.local", "values: hostname");
    ok(!p.ns[NS_IPC], "values: ipc = no");
    is_int(p.net_mode, NET_NONE, "values: mode none");
    is_int(p.nforward, 2, "values: two forwarded ports");
    ok(p.nforward == 2 && p.forward[0] == 5432 && p.forward[1] == 6379, "values: ports in order");
    ok(p.limits[LIMIT_NOFILE].set && p.limits[LIMIT_NOFILE].max, "values: nofile max");
    is_int(p.limits[LIMIT_NPROC].value, 512, "values: nproc 512");
    ok(p.limits[LIMIT_AS].value == 2ULL << 30, "values: as 2G in bytes");
    is_int(p.limits[LIMIT_CPU].value, 120, "values: cpu 2m is 120 s");
    ok(p.limits[LIMIT_STACK].unlimited, "values: stack unlimited");
    ok(!p.limits[LIMIT_CORE].set, "values: core inherited");
    is_int(p.timeout_ms, 90000, "values: timeout 90 s");
    is_int(p.root, ROOT_TMPFS, "values: root tmpfs");
    is_int(p.nfs, 3, "values: three filesystem rules");
    if (p.nfs == 3) {
        is_str(p.fs[0].path, "/work/proj", "values: ${CWD} expanded");
        is_str(p.fs[1].path, "/home/u/.config/x", "values: path normalized, ${HOME} expanded");
        ok(p.fs[1].optional && p.fs[1].kind == FS_RO, "values: ro? is optional");
        ok(p.fs[2].kind == FS_HIDE && !p.fs[2].optional, "values: hide");
        is_int(p.fs[0].at.line, 18, "values: rule origin line");
    }
    ok(p.env_clear, "values: clear");
    is_int(p.env_keep.n, 3, "values: keep splits on blanks");
    is_str(p.env_set.n ? p.env_set.v[0].value : NULL, "A=b=c", "values: set keeps '=' in the value");
    is_int(p.capabilities.n, 2, "values: two capabilities");
    is_str(p.capabilities.n ? p.capabilities.v[0].value : NULL, "cap_net_raw", "values: capability canonical name");
    is_int(p.seccomp, SECCOMP_NONE, "values: seccomp none");
    is_int(p.ndeny, 2, "values: two deny rules");
    if (p.ndeny == 2) {
        is_str(p.deny[0].syscall, "bind", "values: deny syscall");
        ok(p.deny[0].families == ((1ULL << AF_INET) | (1ULL << AF_INET6)), "values: deny families");
        is_int(p.deny[0].errnum, EPERM, "values: deny errno");
        ok(p.deny[0].nr > 0, "values: deny syscall number resolved");
        is_int(p.deny[1].errnum, EACCES, "values: second deny errno");
        is_str(p.deny[1].text, "socket:unix EACCES", "values: deny text kept");
    }
    profile_errors_free(&e);
    profile_free(&p);
}

/* [environment] keep/unset: patterns accepted, junk refused, one order
 * across both lists, `sbx profile show` printing them in that order. */
static void test_env_rules(void)
{
    struct profile p;
    struct profile_errors e;
    write_file("envbase.ini", "[environment]\nunset = *_TOKEN AWS_* A?C\n");
    write_file("envtop.ini", "[profile]\ninclude = envbase\n[environment]\nkeep = GITHUB_TOKEN\n"
                             "unset = X\n");
    is_int(load(&p, "envtop", &e), 0, "env rules: patterns load");
    ok(p.env_unset.n == 4 && p.env_keep.n == 1, "env rules: four unset words, one keep");
    if (p.env_unset.n == 4 && p.env_keep.n == 1) {
        is_str(p.env_unset.v[0].value, "*_TOKEN", "env rules: a pattern is kept as written");
        ok(p.env_unset.v[0].seq < p.env_unset.v[2].seq && p.env_unset.v[2].seq < p.env_keep.v[0].seq &&
           p.env_keep.v[0].seq < p.env_unset.v[3].seq,
           "env rules: include first, then the file's lines, one order for keep and unset");
    }
    char *out = NULL;
    size_t outlen = 0;
    FILE *f = open_memstream(&out, &outlen);
    profile_print(&p, f);
    fclose(f);
    const char *u = strstr(out, "unset = A?C"), *k = strstr(out, "keep = GITHUB_TOKEN"),
               *x = strstr(out, "unset = X");
    ok(u && k && x && u < k && k < x, "env rules: show prints keep and unset in their order");
    free(out);
    profile_free(&p);
    profile_errors_free(&e);

    static const char *const bad[] = { "*[A]", "A-*", "*\\*", "A=*", NULL };
    for (size_t i = 0; bad[i]; i++) {
        char text[128];
        snprintf(text, sizeof text, "[environment]\nunset = %s\n", bad[i]);
        write_file("envbad.ini", text);
        ok(load(&p, "envbad", &e) == 1 && strstr(e.msg[0], "pattern"), "env rules: '%s' refused", bad[i]);
        profile_free(&p);
        profile_errors_free(&e);
    }
    write_file("envdrop.ini", "[profile]\ninclude = envbase\n[environment]\n-unset = AWS_*\n");
    is_int(load(&p, "envdrop", &e), 0, "env rules: -unset drops a pattern by its text");
    is_int(p.env_unset.n, 2, "env rules: two left");
    profile_free(&p);
    profile_errors_free(&e);
}

static void test_includes(void)
{
    struct profile p;
    struct profile_errors e;
    write_file("base.ini", "[profile]\ndescription = base\n[limits]\nnofile = 100\nnproc = 10\n"
                           "[filesystem]\nrw = /a\n[environment]\nset = X=1\n");
    write_file("mid.ini", "[profile]\ninclude = base\n[limits]\nnofile = 200\n[filesystem]\nrw = /b\n");
    /* the include line comes last, yet is applied first */
    write_file("top.ini", "[limits]\nnproc = 30\n[filesystem]\nrw = /c\n-rw = /a\n[profile]\ninclude = mid\n"
                          "description = top\n[environment]\nset = X=2\n");
    is_int(load(&p, "top", &e), 0, "includes: no errors");
    is_str(p.description, "top", "includes: the including file overrides a scalar");
    is_int(p.limits[LIMIT_NOFILE].value, 200, "includes: the nearer include overrides");
    is_int(p.limits[LIMIT_NPROC].value, 30, "includes: a key before the include line still overrides");
    is_int(p.nfs, 2, "includes: lists append; '-rw' dropped the inherited /a");
    if (p.nfs == 2) {
        is_str(p.fs[0].path, "/b", "includes: inherited entry first");
        is_str(p.fs[1].path, "/c", "includes: own entry after");
    }
    is_int(p.env_set.n, 1, "includes: set of the same variable replaces");
    is_str(p.env_set.n ? p.env_set.v[0].value : NULL, "X=2", "includes: the later set wins");
    is_int(p.nfiles, 3, "includes: three files read");
    like_str(p.at[K_LIMIT_NOFILE].file, "mid.ini", "includes: origin of nofile is mid.ini");
    is_int(p.at[K_LIMIT_NOFILE].line, 4, "includes: origin line of nofile");
    profile_errors_free(&e);
    profile_free(&p);

    /* a diamond applies the shared file once */
    write_file("left.ini", "[profile]\ninclude = base\n");
    write_file("right.ini", "[profile]\ninclude = base\n");
    write_file("diamond.ini", "[profile]\ninclude = left\ninclude = right\n");
    is_int(load(&p, "diamond", &e), 0, "diamond: no errors");
    is_int(p.nfs, 1, "diamond: base's rule applied once");
    profile_errors_free(&e);
    profile_free(&p);

    /* a profile may include the one it shadows */
    char sub[PATH_MAX + 8];
    snprintf(sub, sizeof sub, "%s/user", dir);
    mkdir(sub, 0755);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/base.ini", sub);
    FILE *f = fopen(path, "w");
    fputs("[profile]\ninclude = base\ndescription = mine\n", f);
    fclose(f);
    struct profile_search s = {0};
    profile_search_add(&s, sub);
    profile_search_add(&s, dir);
    profile_init_defaults(&p);
    memset(&e, 0, sizeof e);
    ok(profile_load(&p, "base", &s, &vars, &e), "shadow: a user's base.ini includes the shipped base");
    is_str(p.description, "mine", "shadow: the user's file wins");
    is_int(p.limits[LIMIT_NOFILE].value, 100, "shadow: the shadowed profile was applied");
    profile_search_free(&s);
    profile_errors_free(&e);
    profile_free(&p);

    /* ${PROJECT}: the work tree's top, or why it has none (project.h) */
    write_file("project.ini", "[filesystem]\nrw = ${PROJECT}\nro = ${CWD}/x\n");
    ok(load(&p, "project", &e) == 0 && p.nfs == 2 &&
       !strcmp(p.fs[0].path, "/work") && !strcmp(p.fs[1].path, "/work/proj/x"),
       "variables: ${PROJECT} is the project, ${CWD} the working directory below it");
    ok(p.fs[0].written && !strcmp(p.fs[0].written, "${PROJECT}"), "variables: the rule as written is kept");
    char *shown = NULL;
    size_t shown_len = 0;
    FILE *sf = open_memstream(&shown, &shown_len);
    profile_print(&p, sf);
    fclose(sf);
    like_str(shown, "rw = ${PROJECT}", "show: the rule as written");
    like_str(shown, "; (= /work) ", "show: and what it means here, before its origin");
    free(shown);
    profile_errors_free(&e);
    profile_free(&p);
    struct profile_vars noproject = vars;
    noproject.project = NULL;
    noproject.project_error = "/w/a/.git (gitdir: /): refused";
    struct profile_search ps = {0};
    profile_search_add(&ps, dir);
    profile_init_defaults(&p);
    memset(&e, 0, sizeof e);
    ok(!profile_load(&p, "project", &ps, &noproject, &e), "variables: ${PROJECT} without a value is an error");
    profile_search_free(&ps);
    like_str(e.n ? e.msg[0] : NULL, "project.ini:2: '${PROJECT}' has no value here: /w/a/.git (gitdir: /): refused",
             "variables: the error says why the walk found none");
    profile_errors_free(&e);
    profile_free(&p);
}

static void test_removal(void)
{
    struct profile p;
    struct profile_errors e;
    write_file("lists.ini", "[environment]\nkeep = A B C\nset = X=1\nset = Y=2\n"
                            "[security]\ndeny = bind EPERM\ndeny = connect EPERM\n[network]\nforward = 1 2\n"
                            "[filesystem]\ntmpfs = /t1\ntmpfs = /t2\n");
    write_file("drop.ini", "[profile]\ninclude = lists\n[environment]\n-keep = B\n-set = X\n"
                           "[security]\n-deny = connect   EPERM\n[network]\n-forward = 2\n[filesystem]\n-tmpfs = *\n");
    is_int(load(&p, "drop", &e), 0, "removal: no errors");
    is_int(p.env_keep.n, 2, "removal: -keep dropped one name");
    is_int(p.env_set.n, 1, "removal: -set NAME dropped by name");
    is_str(p.env_set.n ? p.env_set.v[0].value : NULL, "Y=2", "removal: the other set stays");
    is_int(p.ndeny, 1, "removal: -deny matched despite spacing");
    is_str(p.ndeny ? p.deny[0].syscall : NULL, "bind", "removal: the other deny stays");
    is_int(p.nforward, 1, "removal: -forward dropped a port");
    is_int(p.nfs, 0, "removal: '-tmpfs = *' dropped all tmpfs rules");
    profile_errors_free(&e);
    profile_free(&p);
}

static void test_variables(void)
{
    struct profile p;
    struct profile_errors e;
    write_file("vars.ini", "[filesystem]\nrw = ${PROFILE_DIR}/data\nro = ${TMPDIR}/$${x}\n"
                           "[environment]\nset = WHO=${USER}:${UID}:${GID}\n");
    is_int(load(&p, "vars", &e), 0, "variables: no errors");
    char want[PATH_MAX + 8];
    char canon[PATH_MAX];
    if (!realpath(dir, canon))
        bail_out("realpath");
    snprintf(want, sizeof want, "%s/data", canon);
    is_str(p.nfs ? p.fs[0].path : NULL, want, "variables: ${PROFILE_DIR} is the profile's directory");
    is_str(p.nfs > 1 ? p.fs[1].path : NULL, "/tmp/${x}", "variables: $$ is a literal $");
    is_str(p.env_set.n ? p.env_set.v[0].value : NULL, "WHO=u:1000:1000", "variables: USER UID GID");
    profile_errors_free(&e);
    profile_free(&p);

    struct profile_vars nohome = vars;
    nohome.home = NULL;
    write_file("nohome.ini", "[filesystem]\nrw = ${HOME}/x\n");
    struct profile_search s = {0};
    profile_search_add(&s, dir);
    profile_init_defaults(&p);
    memset(&e, 0, sizeof e);
    ok(!profile_load(&p, "nohome", &s, &nohome, &e), "variables: an unset ${HOME} is an error");
    like_str(e.n ? e.msg[0] : NULL, "nohome.ini:2: '${HOME}' has no value here", "variables: the error names it");
    profile_search_free(&s);
    profile_errors_free(&e);
    profile_free(&p);
}

static void test_validation(void)
{
    struct profile p;
    struct profile_errors e;
    write_file("contra.ini", "[namespaces]\nnet = no\n[network]\nmode = loopback\n");
    ok(load(&p, "contra", &e) == 1, "validation: net = no with mode = loopback is an error");
    like_str(e.n ? e.msg[0] : NULL, "contra.ini:2: net = no contradicts mode = loopback (", "validation: both lines named");
    profile_errors_free(&e);
    profile_free(&p);
    write_file("nomnt.ini", "[namespaces]\nmount = no\n");
    ok(load(&p, "nomnt", &e) == 1, "validation: mount = no with a read-only root is an error");
    profile_errors_free(&e);
    profile_free(&p);
    write_file("nomnt-ok.ini", "[namespaces]\nmount = no\n[filesystem]\nroot = host\nproc = no\ndev = none\n");
    is_int(load(&p, "nomnt-ok", &e), 0, "validation: mount = no with root = host is fine");
    profile_errors_free(&e);
    profile_free(&p);
}

static void test_options(void)
{
    struct profile p;
    struct profile_errors e = {0};
    profile_init_defaults(&p);
    ok(profile_apply_option(&p, "filesystem", "rw", "sub/dir", "--rw", &vars, &e),
       "options: --rw with a relative path");
    is_str(p.nfs ? p.fs[0].path : NULL, "/work/proj/sub/dir", "options: relative to the caller's directory");
    is_str(p.nfs ? p.fs[0].at.file : NULL, "--rw", "options: origin is the option");
    ok(profile_apply_option(&p, "limits", "nofile", "64", "--nofile", &vars, &e), "options: --nofile 64");
    ok(profile_apply_option(&p, "limits", "nofile", "128", "--nofile", &vars, &e), "options: a repeated option overrides");
    is_int(p.limits[LIMIT_NOFILE].value, 128, "options: the last one wins");
    ok(!profile_apply_option(&p, "network", "mode", "lo", "--network", &vars, &e), "options: bad --network value");
    like_str(e.n ? e.msg[0] : NULL, "--network: mode: 'lo' is not valid", "options: the error names the option");
    profile_errors_free(&e);
    profile_free(&p);
}

static void test_parsers(void)
{
    uint64_t v;
    ok(parse_size("64K", &v) && v == 65536, "parse_size 64K");
    ok(!parse_size("", &v) && !parse_size("K", &v) && !parse_size("1.5G", &v), "parse_size rejects junk");
    ok(parse_duration_ms("2h", &v) && v == 7200000, "parse_duration 2h");
    ok(!parse_duration_ms("18446744073709551615d", &v), "parse_duration overflow");
    ok(parse_u64("18446744073709551615", &v) && v == UINT64_MAX, "parse_u64 max");
    ok(!parse_u64("18446744073709551616", &v), "parse_u64 overflow");
    ok(utf8_valid("caf\xc3\xa9", 5) && !utf8_valid("caf\xe9", 4) && !utf8_valid("\xc0\xaf", 2) &&
           !utf8_valid("\xed\xa0\x80", 3),
       "utf8_valid: accepts UTF-8, rejects Latin-1, overlongs, surrogates");
    is_int(errno_from_name("EPERM"), EPERM, "errno_from_name EPERM");
    is_int(errno_from_name("ENOTANERRNO"), 0, "errno_from_name unknown");
    is_int(edit_distance("nofle", "nofile"), 1, "edit_distance");
}

static void test_lookup(void)
{
    ok(!profile_name_is_path("qa") && profile_name_is_path("qa.ini") && profile_name_is_path("./qa"),
       "lookup: NAME vs path");
    char a[PATH_MAX + 8], b[PATH_MAX + 8];
    snprintf(a, sizeof a, "%s/first", dir);
    snprintf(b, sizeof b, "%s/second", dir);
    mkdir(a, 0755);
    mkdir(b, 0755);
    char f[PATH_MAX + 32];
    snprintf(f, sizeof f, "%s/same.ini", a);
    fclose(fopen(f, "w"));
    snprintf(f, sizeof f, "%s/same.ini", b);
    fclose(fopen(f, "w"));
    snprintf(f, sizeof f, "%s/only2.ini", b);
    fclose(fopen(f, "w"));
    setenv("SBX_PROFILE_PATH", a, 1);
    struct profile_search s;
    profile_search_from_env(&s);
    ok(s.n >= 3, "lookup: search path from the environment");
    is_str(s.n ? s.dirs[0] : NULL, a, "lookup: $SBX_PROFILE_PATH first");
    profile_search_free(&s);
    unsetenv("SBX_PROFILE_PATH");

    struct profile_search t = {0};
    profile_search_add(&t, a);
    profile_search_add(&t, b);
    char *hit = profile_search_find(&t, "same", NULL);
    like_str(hit, "/first/same.ini", "lookup: first match wins");
    free(hit);
    hit = profile_search_find(&t, "only2", NULL);
    like_str(hit, "/second/only2.ini", "lookup: later directories are searched");
    free(hit);
    ok(profile_search_find(&t, "missing", NULL) == NULL, "lookup: missing gives NULL");
    profile_search_free(&t);
}

/* The output of a row's print function with the origins cut off: what
 * the key says, not where it was said. */
static char *row_lines(const struct profile *p, const struct key_def *d)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        bail_out("open_memstream");
    if (d->print)
        d->print(p, d, f);
    fclose(f);
    char *w = out;
    for (char *line = out; *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        char *cut = memmem(line, n, " ; ", 3);
        size_t keep = cut ? (size_t)(cut - line) : n;
        while (keep && line[keep - 1] == ' ')
            keep--;
        memmove(w, line, keep);
        w += keep;
        *w++ = '\n';
        line += n + (nl ? 1 : 0);
    }
    *w = '\0';
    return out;
}

static char *row_json(const struct profile *p, const struct key_def *d)
{
    if (!d->json)
        return xstrdup("(not in the record)");
    struct json_object *j = d->json(p, d);
    char *s = xstrdup(j ? json_object_to_json_string(j) : "null");
    json_object_put(j);
    return s;
}

/* Every key of the table, set to something other than its default; the
 * values that contradict others (net = no needs mode = host, ...) are set
 * in roundtrip_host_ini. A new row fails the first check below until it
 * has a line here.
 * show prints the filesystem rules grouped by kind, so rules of different
 * kinds keep their order only when read in that order, as here. */
static const char roundtrip_ini[] =
    "[profile]\n"
    "description = every key once\n"
    "include = rt-base\n"
    "[sandbox]\n"
    "fallback = landlock\n"
    "[namespaces]\n"
    "user = yes\nmount = yes\nnet = yes\npid = no\nipc = no\nuts = no\n"
    "uid = 0\ngid = 4321\nhostname = rt.example\nnested_userns = no\n"
    "[network]\n"
    "mode = loopback\noutbound = yes\nforward = 8080 9090\nallow = none\n"
    "[limits]\n"
    "nofile = 256\nnproc = max\ncore = 0\ncpu = 2m\nfsize = 64M\nas = unlimited\n"
    "stack = 8M\nmemlock = 64K\nsigpending = 100\ntimeout = 90m\n"
    "[filesystem]\n"
    "root = tmpfs\nrw = /work/proj\nro? = /opt/tools\nro = /usr\nro = ${PROJECT}/vendor\ntmpfs = /scratch\nhide = /etc/shadow\n"
    "cache = /home/u/go/pkg/mod\n"
    "unprotect = /home/u/.bashrc\nunprotect = /srv/a path\ncreate = /home/u/.npm\nproc = no\ndev = none\nobserve_writes = no\n"
    "[environment]\n"
    "clear = yes\nunset_secret_values = yes\nunset = AWS_* GH_TOKEN\nkeep = PATH\nset = LANG=C.UTF-8\nunset = LC_?\n"
    "[security]\n"
    "no_new_privs = no\ncapabilities = cap_net_raw cap_chown\nnet_raw = no\nseccomp = none\nio_uring = no\n"
    "deny = bind EPERM\ndeny = socket:inet,inet6 ENETUNREACH\n";
static const char roundtrip_host_ini[] =
    "[namespaces]\nuser = no\nmount = no\nnet = no\n"
    "[network]\nmode = host\noutbound = no\n"
    "[filesystem]\nroot = host\nproc = no\ndev = none\n"
    "[security]\nio_uring = yes\n";
/* allow contradicts outbound = yes, so its value is set here */
static const char roundtrip_egress_ini[] =
    "[network]\nallow = Crates.IO. @npm *.example.com:8443 10.0.0.0/8 203.0.113.5:80\n";

/* Loads NAME (text written to NAME.ini), prints it as show does, and
 * loads what was printed. */
static void round_trip(const char *name, const char *text, struct profile *first,
                       struct profile *again)
{
    char file[64];
    struct profile_errors e;
    snprintf(file, sizeof file, "%s.ini", name);
    write_file(file, text);
    is_int(load(first, name, &e), 0, "round trip: %s loads", name);
    profile_errors_free(&e);
    char *shown = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&shown, &len);
    profile_print(first, f);
    fclose(f);
    snprintf(file, sizeof file, "%s-shown.ini", name);
    write_file(file, shown);
    free(shown);
    snprintf(file, sizeof file, "%s-shown", name);
    is_int(load(again, file, &e), 0, "round trip: what show prints of %s loads", name);
    profile_errors_free(&e);
}

static bool has_key_line(const char *text, const struct key_def *d)
{
    char head[64], line[96];
    snprintf(head, sizeof head, "[%s]\n", d->section);
    snprintf(line, sizeof line, "\n%s", d->name);
    const char *sec = strstr(text, head);
    if (!sec)
        return false;
    const char *end = strstr(sec + 1, "\n[");
    size_t n = strlen(line);
    for (const char *at = strstr(sec, line); at && (!end || at < end); at = strstr(at + 1, line))
        if (strchr(" ?=", at[n]))
            return true;
    return false;
}

static void test_roundtrip(void)
{
    /* the table's shape the printer and the record rely on */
    bool ordered = true, known = true;
    for (size_t i = 0; i < profile_nkeys; i++) {
        const struct key_def *d = &profile_keys[i];
        if (!profile_section_known(d->section))
            known = false;
        for (size_t j = i + 2; j < profile_nkeys; j++)
            if (!strcmp(profile_keys[j].section, d->section) &&
                strcmp(profile_keys[j - 1].section, d->section))
                ordered = false;
        if ((size_t)d->key != i)
            ordered = false;
    }
    ok(known, "round trip: every row's section is a known section");
    ok(ordered, "round trip: rows in enum profile_key order, each section in one piece");

    bool named = true;
    for (size_t i = 0; i < profile_nkeys; i++) {
        if (!has_key_line(roundtrip_ini, &profile_keys[i])) {
            diag("roundtrip_ini has no line for [%s] %s", profile_keys[i].section, profile_keys[i].name);
            named = false;
        }
    }
    ok(named, "round trip: the test profile sets every key of the table");

    write_file("rt-base.ini", "[filesystem]\nrw = /base\n[environment]\nkeep = HOME\n");
    struct profile first, again, host, host_again, defaults, egress, egress_again;
    round_trip("roundtrip", roundtrip_ini, &first, &again);
    round_trip("roundtrip-host", roundtrip_host_ini, &host, &host_again);
    round_trip("roundtrip-egress", roundtrip_egress_ini, &egress, &egress_again);
    profile_init_defaults(&defaults);

    for (size_t i = 0; i < profile_nkeys; i++) {
        const struct key_def *d = &profile_keys[i];
        if (d->key == K_INCLUDE) {
            /* applied when read: show lists the files instead */
            ok(first.nfiles == 2 && first.nfs == 8, "round trip: [profile] include read rt-base");
            continue;
        }
        char *a = row_lines(&first, d), *b = row_lines(&again, d);
        char *h = row_lines(&host, d), *hb = row_lines(&host_again, d);
        char *z = row_lines(&defaults, d);
        char *g = row_lines(&egress, d), *gb = row_lines(&egress_again, d);
        if (d->print) {
            is_str(gb, g, "round trip: [%s] %s (allow profile) prints the same after the round trip",
                   d->section, d->name);
            ok(strcmp(a, z) != 0 || strcmp(h, z) != 0 || strcmp(g, z) != 0, "round trip: [%s] %s is set to a value "
               "other than its default", d->section, d->name);
            is_str(b, a, "round trip: [%s] %s prints the same after parse -> print -> parse",
                   d->section, d->name);
            is_str(hb, h, "round trip: [%s] %s (host profile) prints the same after the round trip",
                   d->section, d->name);
        } else {
            /* printed by another row, in one order: unset with keep, the
             * filesystem rules with rw */
            const char *by = !strcmp(d->section, "filesystem") ? "rw" : "keep";
            char *k = row_lines(&first, profile_key_find(d->section, by));
            char want[96];
            snprintf(want, sizeof want, "\n%s = ", d->name);
            ok(strstr(k, want) != NULL || !strncmp(k, want + 1, strlen(want + 1)),
               "round trip: [%s] %s is printed by the %s row", d->section, d->name, by);
            free(k);
        }
        char *ja = row_json(&first, d), *jb = row_json(&again, d);
        is_str(jb, ja, "round trip: [%s] %s has the same record JSON after the round trip",
               d->section, d->name);
        free(ja);
        free(jb);
        free(a);
        free(b);
        free(h);
        free(hb);
        free(z);
        free(g);
        free(gb);
    }

    /* rules of different kinds on one path: the later one wins, so show
     * prints them in the order read (grouped by kind, ro after rw read
     * back as ro) */
    struct profile mixed, mixed_again;
    round_trip("rt-mixed", "[filesystem]\nro = /srv/data\ntmpfs = /srv/t\nrw = /srv/data\n",
               &mixed, &mixed_again);
    ok(mixed_again.nfs == 3 && mixed_again.fs[0].kind == FS_RO &&
       mixed_again.fs[1].kind == FS_TMPFS && mixed_again.fs[2].kind == FS_RW,
       "round trip: ro, tmpfs, rw on one path read back in that order (rw wins)");
    profile_free(&mixed);
    profile_free(&mixed_again);

    /* the environment rules print in one order: the round trip keeps it */
    bool same_order = again.env_keep.n == first.env_keep.n && again.env_unset.n == first.env_unset.n;
    for (size_t i = 0; same_order && i < first.env_unset.n; i++)
        for (size_t j = 0; j < first.env_keep.n; j++)
            if ((first.env_unset.v[i].seq < first.env_keep.v[j].seq) !=
                (again.env_unset.v[i].seq < again.env_keep.v[j].seq))
                same_order = false;
    ok(same_order, "round trip: keep and unset keep their order");

    /* the record's profile as a whole: the same but for where it came from */
    struct json_object *ja = profile_to_json(&first), *jb = profile_to_json(&again);
    static const char *const where[] = {"name", "path", "files"};
    for (size_t i = 0; i < 3; i++) {
        json_object_object_del(ja, where[i]);
        json_object_object_del(jb, where[i]);
    }
    is_str(json_object_to_json_string(jb), json_object_to_json_string(ja),
           "round trip: the record's profile is the same");
    json_object_put(ja);
    json_object_put(jb);
    profile_free(&first);
    profile_free(&again);
    profile_free(&host);
    profile_free(&host_again);
    profile_free(&egress);
    profile_free(&egress_again);
    profile_free(&defaults);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/sbx-profile-test.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        bail_out("mkdtemp failed");
    test_defaults();
    test_values();
    test_env_rules();
    test_includes();
    test_removal();
    test_variables();
    test_validation();
    test_options();
    test_parsers();
    test_lookup();
    test_roundtrip();
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
