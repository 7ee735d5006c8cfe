#include "config.h"

#include "probe_profile.h"

#include "cli.h"
#include "log.h"
#include "profile.h"
#include "sandbox.h"
#include "util.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

/* The binary to run inside. /proc/self/exe is a magic link: execve()
 * resolves it to the running file even when its directory is hidden or not
 * mounted inside, so it is preferred whenever the sandbox has a /proc. */
static char *probe_executable(const struct profile *p)
{
    if (p->proc)
        return xstrdup("/proc/self/exe");
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n < 0)
        die_errno("probe --profile: readlink /proc/self/exe (the sandbox has no /proc, so "
                  "sbx needs its own path)");
    buf[n] = '\0';
    return xstrdup(buf);
}

int probe_in_profile(const char *name, const char *format_flag)
{
    struct profile p;
    cli_load_profile(&p, name, NULL);

    /* No need to pass the profile's name: sbx sets container=sbx and
     * SBX_PROFILE inside every sandbox (env.c), which inside_sbx reports. */
    char *exe = probe_executable(&p);
    /* The inner probe starts in / (below); its credentials check walks the
     * caller's directory, as the commands P sandboxes would see it. */
    char cwd[PATH_MAX];
    bool have_cwd = getcwd(cwd, sizeof cwd) != NULL;
    char *argv[6];
    size_t n = 0;
    argv[n++] = exe;
    argv[n++] = (char *)"probe";
    if (format_flag)
        argv[n++] = (char *)format_flag;
    if (have_cwd) {
        argv[n++] = (char *)"--scan-cwd";
        argv[n++] = cwd;
    }
    argv[n] = NULL;
    struct sandbox_request req = {
        .profile = &p,
        .argv = argv,
        /* the caller's directory may be hidden by P; / always exists */
        .cwd = "/",
    };
    struct sandbox_result res = {0};
    int status = sandbox_run(&req, &res);
    sandbox_result_free(&res);
    free(exe);
    profile_free(&p);
    return status;
}
