/* Unit tests of the profile engine: values, includes and overrides, list
 * removal, variables, lookup order, command-line overrides. */
#include "config.h"

#include "../tap.h"
#include "lookup.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[1024];

static const struct profile_vars vars = {
    .home = "/home/u", .cwd = "/work/proj", .user = "u", .uid = "1000", .gid = "1000", .tmpdir = "/tmp",
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
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
