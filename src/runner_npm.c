/* The script a package manager runs (npm test, npm run NAME, yarn NAME,
 * pnpm NAME): read from ./package.json, so that `npm test` is judged by
 * the runner its script starts (issue 25). The runners' one read of a
 * file (everything else in runner*.c is pure); the file is the
 * project's, untrusted: bounded, parsed by json-c, and a script that is
 * not plain words is not taken apart. */
#include "config.h"

#include "runner_impl.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#define PACKAGE_JSON_MAX (4u << 20)

static char *project_dir;

void runner_set_project_dir(const char *dir)
{
    free(project_dir);
    project_dir = dir ? xstrdup(dir) : NULL;
}

char *runner_npm_script(const char *name, char *why, size_t why_size)
{
    size_t len;
    char *path = project_dir ? xasprintf("%s/package.json", project_dir) : xstrdup("package.json");
    char *text = read_file_text(path, PACKAGE_JSON_MAX, &len);
    free(path);
    if (!text) {
        snprintf(why, why_size, "no package.json here to say what `%.64s` runs", name);
        return NULL;
    }
    struct json_tokener *tok = json_tokener_new_ex(64);
    struct json_object *root = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    if (tok)
        json_tokener_free(tok);
    free(text);
    struct json_object *scripts, *script;
    char *out = NULL;
    if (!root || !json_object_is_type(root, json_type_object))
        snprintf(why, why_size, "package.json is not a JSON object");
    else if (!json_object_object_get_ex(root, "scripts", &scripts) ||
             !json_object_object_get_ex(scripts, name, &script) || !json_object_is_type(script, json_type_string))
        snprintf(why, why_size, "package.json has no script \"%.64s\"", name);
    else
        out = xstrdup(json_object_get_string(script));
    json_object_put(root);
    return out;
}
