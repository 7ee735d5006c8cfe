/* `sbx cache list | clear [PROFILE]`: the private write layers of the
 * profiles' cache rules (layers.h, layer_store.h). */
#include "config.h"

#include "cli.h"
#include "commands.h"
#include "exit.h"
#include "layer_store.h"
#include "layers.h"
#include "log.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char cache_usage[] =
    "Usage: sbx cache list [PROFILE]     the layers of the cache rules: profile, size, path, where\n"
    "       sbx cache clear [PROFILE]    remove them (every profile's without PROFILE): the next\n"
    "                                    run sees the host's directories as they are; a layer a\n"
    "                                    run holds now is left (exit status 125)\n"
    "       sbx cache clear --stale      remove the layers of profile files that are gone\n";

void cli_print_cache_help(FILE *out)
{
    fputs(cache_usage, out);
    fputs("\nA cache rule (cache = PATH) gives the sandbox a private write layer over PATH:\n"
          "it sees the host's files and its own earlier writes, the host never does.\n"
          "Layers live in ${XDG_STATE_HOME:-~/.local/state}/sbx/layers/PROFILE. See sbx(1), CACHE.\n",
          out);
}

/* The layers directory of PROFILE as `sbx run -p PROFILE` names it. */
static char *profile_dir_name(const char *asked)
{
    if (!strchr(asked, '/') && !strstr(asked, ".ini")) {
        struct profile p = { .name = (char *)asked };
        return layers_profile_name(&p);
    }
    autofree char *real = realpath(asked, NULL);
    if (!real)
        die_errno("sbx cache: profile file %s", asked);
    return layer_name(real);
}

int cmd_cache(int argc, char **argv)
{
    if (argc < 2)
        return cli_run_usage_error("cache", "cache: say list or clear");
    const char *what = argv[1];
    if (!strcmp(what, "--help") || !strcmp(what, "-h")) {
        cli_print_cache_help(stdout);
        return 0;
    }
    bool stale = argc >= 3 && !strcmp(what, "clear") && !strcmp(argv[2], "--stale");
    if (stale) {
        argv++;
        argc--;
    }
    if (argc > 3 || (strcmp(what, "list") && strcmp(what, "clear")) ||
        (argc == 3 && argv[2][0] == '-'))
        return cli_run_usage_error("cache", "cache: say list or clear (clear --stale), then at "
                                            "most one profile");
    const struct profile_vars *vars = cli_profile_vars();
    autofree char *root = layers_root(vars->home, getenv("XDG_STATE_HOME"));
    if (!root)
        die("sbx cache: neither $XDG_STATE_HOME nor $HOME is an absolute path: no layers root");
    autofree char *profile = argc == 3 ? profile_dir_name(argv[2]) : NULL;
    if (argc == 3 && !profile)
        die("sbx cache: %s: no layer directory can be named after it", argv[2]);
    return !strcmp(what, "list") ? layer_store_list(root, profile)
                                 : layer_store_clear(root, profile, stale);
}
