/* The system-reading helpers of util.c shared by run and probe: the one
 * PATH walker (execvp()'s reading for the command, executables only for
 * pasta) and the one /proc/sys integer reader. */
#include "config.h"

#include "util.h"

#include "../tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0 || !write_all(fd, text, strlen(text)) || close(fd) < 0)
        bail_out("cannot write a test file");
    chmod(path, mode);
}

static void test_path_search(const char *top)
{
    char *a = xasprintf("%s/a", top), *b = xasprintf("%s/b", top);
    mkdir(a, 0755);
    mkdir(b, 0755);
    char *a_tool = xasprintf("%s/tool", a), *b_tool = xasprintf("%s/tool", b);
    put(a_tool, "data\n", 0644);        /* exists, not executable */
    put(b_tool, "#!/bin/sh\n", 0755);
    char *list = xasprintf("%s:%s", a, b);

    char *found = path_search(list, "tool", PATH_SEARCH_EXISTING);
    is_str(found, a_tool, "existing: the first directory that has the name wins");
    free(found);
    found = path_search(list, "tool", PATH_SEARCH_EXECUTABLE);
    is_str(found, b_tool, "executable: a non-executable file earlier in the list is passed over");
    free(found);
    ok(!path_search(list, "missing", PATH_SEARCH_EXISTING), "a name in no directory: NULL");
    found = path_search(a, "", PATH_SEARCH_EXECUTABLE);
    ok(!found, "executable: a directory is not an executable");
    free(found);

    /* An empty entry is the working directory for execvp(), never for a
     * helper sbx starts. */
    if (chdir(b) < 0)
        bail_out("chdir to the test directory");
    found = path_search("/nonexistent-sbx::/nonexistent-sbx", "tool", PATH_SEARCH_EXISTING);
    is_str(found, "tool", "existing: an empty entry finds the name in the working directory");
    free(found);
    ok(!path_search("/nonexistent-sbx::/nonexistent-sbx", "tool", PATH_SEARCH_EXECUTABLE),
       "executable: an empty entry is skipped, the working directory never searched");
    ok(!path_search("", "tool", PATH_SEARCH_EXECUTABLE), "executable: an empty list finds nothing");
    if (chdir("/") < 0)
        bail_out("chdir /");

    unlink(a_tool);
    unlink(b_tool);
    rmdir(a);
    rmdir(b);
    free(a), free(b), free(a_tool), free(b_tool), free(list);
}

static void test_read_sysctl(const char *top)
{
    char *f = xasprintf("%s/value", top);
    put(f, "15000\n", 0644);
    is_int((int)read_sysctl(f), 15000, "a number and a newline, as /proc/sys has them");
    put(f, "0\n", 0644);
    is_int((int)read_sysctl(f), 0, "0 is a value, not an error");
    put(f, "yes\n", 0644);
    is_int((int)read_sysctl(f), -1, "no number: -1");
    put(f, "", 0644);
    is_int((int)read_sysctl(f), -1, "an empty file: -1");
    unlink(f);
    errno = 0;
    is_int((int)read_sysctl(f), -1, "a missing file: -1");
    is_int(errno, ENOENT, "... with errno ENOENT (probe's nr_open detail names it)");
    free(f);
}

int main(void)
{
    char top[] = "/tmp/sbx-util-test.XXXXXX";
    if (!mkdtemp(top))
        bail_out("mkdtemp in /tmp");
    test_path_search(top);
    test_read_sysctl(top);
    rmdir(top);
    return done_testing();
}
