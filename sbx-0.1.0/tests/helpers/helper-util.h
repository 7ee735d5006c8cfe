/* Small pieces the test helpers share (header-only: each helper is one
 * program of its own, linked without libsbx). */
#ifndef SBX_TEST_HELPER_UTIL_H
#define SBX_TEST_HELPER_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* "ok" for rc >= 0, else the errno's name ("EPERM"): what the tests grep. */
static inline const char *errno_result(long rc, int err)
{
    static char buf[32];
    if (rc >= 0)
        return "ok";
    const char *name = strerrorname_np(err);
    snprintf(buf, sizeof buf, "%s", name ? name : "E?");
    return buf;
}

/* Writes text to an existing file (/proc, cgroupfs) in one write(2);
 * 0, or -1 with errno set. */
static inline int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

#endif
