/* Environment variables naming a directory the sandbox hides or replaces
 * (env_paths.c, issue 34). */
#include "config.h"

#include "../tap.h"

#include "env_paths.h"

#include <string.h>

int main(void)
{
    plan(10);
    struct mount_entry v[4] = {
        { .op = MOUNT_OP_ROOT_RO, .path = "/", .fd = -1, .at = { "p.ini", 1 } },
        { .op = MOUNT_OP_TMPFS, .path = "/tmp", .fd = -1, .at = { "p.ini", 7 } },
        { .op = MOUNT_OP_HIDE, .path = "/home/u/.cargo", .fd = -1, .at = { "p.ini", 9 } },
        { .op = MOUNT_OP_BIND_RW, .path = "/tmp/project", .fd = -1, .at = { "p.ini", 11 } },
    };
    struct mount_plan plan = { .v = v, .n = 4, .cap = 4 };
    char *env[] = {
        "PYTHONPATH=/tmp/lib:/usr/lib/python3",
        "PATH=/usr/bin:/tmp/bin/:relative/bin",
        "CARGO_HOME=/home/u/.cargo",
        "NODE_PATH=/tmp/project/node_modules",
        "HOME=/tmp/home",                       /* not a search path: not checked */
        "GOPATH=/tmp",
        "NOEQUALS",
        NULL,
    };
    struct strv out = { 0 };
    is_int(env_paths_hidden(env, 7, &plan, &out), 4, "four directories the sandbox empties");
    ok(out.n == 4 && strstr(out.v[0], "PYTHONPATH names /tmp/lib, which the sandbox replaces with an empty tmpfs (tmpfs /tmp, at p.ini:7)") == out.v[0],
       "PYTHONPATH under a private /tmp, with the rule that does it");
    ok(out.n > 0 && strstr(out.v[0], "--ro /tmp/lib") != NULL, "and the fix");
    ok(out.n > 1 && !strncmp(out.v[1], "PATH names /tmp/bin, ", 21), "an element of PATH, its trailing slash dropped");
    ok(out.n > 2 && strstr(out.v[2], "CARGO_HOME names /home/u/.cargo, which the sandbox hides (hide /home/u/.cargo") != NULL,
       "a hide rule on the directory itself");
    ok(out.n > 3 && !strncmp(out.v[3], "GOPATH names /tmp, ", 19), "the tmpfs's own top: empty too");
    bool any = false;
    for (size_t i = 0; i < out.n; i++)
        any = any || strstr(out.v[i], "/usr/") || strstr(out.v[i], "node_modules") ||
              strstr(out.v[i], "HOME=") || strstr(out.v[i], "relative");
    ok(!any, "a visible directory, one bound again inside the tmpfs, HOME and relative paths: no warning");
    strv_free(&out);
    is_int(env_paths_hidden(NULL, 0, &plan, &out), 0, "no environment: nothing");
    struct mount_plan none = { 0 };
    is_int(env_paths_hidden(env, 7, &none, &out), 0, "no mount plan entries: nothing");
    char *odd[] = { "PATH=::/tmp:", NULL };
    is_int(env_paths_hidden(odd, 1, &plan, &out), 1, "empty elements are skipped");
    strv_free(&out);
    return done_testing();
}
