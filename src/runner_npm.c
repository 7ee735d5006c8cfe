/* The script a package manager runs (npm test, npm run NAME, yarn NAME,
 * pnpm NAME): read from ./package.json, so that `npm test` is judged by
 * the runner its script starts (issue 25); and the interpreter of a
 * program found in PATH (pytest's #! line, so that sbx's reporter can run
 * in it); and what a program says its version is (node --version, so
 * that sbx's clock is given only to a node that takes it). The runners'
 * reads of files and their one run of a program (everything else in
 * runner*.c is pure); the files and the answer are untrusted: bounded,
 * parsed by json-c or taken only in the plainest form, and a script that
 * is not plain words is not taken apart. */
#include "config.h"

#include "runner_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* Only names that need no quoting in the reporter's Python literal. */
static bool plain_path(const char *s)
{
    if (s[0] != '/')
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("/._+-", *s)))
            return false;
    return true;
}

char *runner_program_interpreter(const char *program, const char *interp, char **script, char *why,
                                 size_t why_size)
{
    const char *path = getenv("PATH");
    *script = strchr(program, '/') ? xstrdup(program)
                                   : path_search(path ? path : "/usr/bin:/bin", program, PATH_SEARCH_EXECUTABLE);
    if (!*script) {
        snprintf(why, why_size, "%.64s is not in PATH", program);
        return NULL;
    }
    /* its #! line only: the kernel reads no more (mocha's program is a
     * whole JavaScript module, far over any small file's bound) */
    char head[512], *text = NULL;
    ssize_t len = -1;
    int fd = open(*script, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        do
            len = read(fd, head, sizeof head - 1);
        while (len < 0 && errno == EINTR);
        close(fd);
    }
    if (len >= 0) {
        head[len] = '\0';
        text = xstrdup(head);
    }
    char *out = NULL;
    if (text && len > 2 && !memcmp(text, "#!", 2)) {
        char *line = text + 2, *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        line += strspn(line, " \t");
        trim_right(line);
        /* "#!/usr/bin/env python3": the python3 of PATH */
        if (starts(line, "/usr/bin/env ") && !strchr(skip_spaces(line + 13), ' '))
            out = path_search(path ? path : "/usr/bin:/bin", skip_spaces(line + 13), PATH_SEARCH_EXECUTABLE);
        else if (!strchr(line, ' ') && !strchr(line, '\t'))
            out = xstrdup(line);
    }
    free(text);
    const char *base = out ? strrchr(out, '/') : NULL;
    if (!out || !base || strncmp(base + 1, interp, strlen(interp)) || !plain_path(out) || !plain_path(*script)) {
        snprintf(why, why_size, "%.200s is not a script whose #! line names %s plainly", *script, interp);
        free(out);
        free(*script);
        *script = NULL;
        return NULL;
    }
    return out;
}

/* The program's first line of output, run as `program flag` with
 * nothing on its stdin and its stderr dropped, within
 * VERSION_TIMEOUT_MS (then killed). */
#define VERSION_TIMEOUT_MS 5000

bool runner_program_version(const char *program, const char *flag, char *out, size_t out_size)
{
    int fds[2];
    if (!out_size || pipe2(fds, O_CLOEXEC) < 0)
        return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = { (char *)program, (char *)flag, NULL };
    pid_t pid;
    int rc = posix_spawnp(&pid, program, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        return false;
    }
    size_t got = 0;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = VERSION_TIMEOUT_MS - ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd pf = { fds[0], POLLIN, 0 };
        if (left <= 0 || got + 1 >= out_size)
            break;
        int n = poll(&pf, 1, (int)left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        ssize_t r = read(fds[0], out + got, out_size - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fds[0]);
    /* still running after the bound, or printing without end */
    kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    out[got] = '\0';
    out[strcspn(out, "\n")] = '\0';
    return got > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
