/* Writes for the write observer's tests (run-refused-writes.sh), each an
 * attempt on the supervisor that reads the path the command names:
 *   unterminated     a path running into an unmapped page, no NUL
 *   long DIR         a path of 5000 bytes below DIR (ENAMETOOLONG)
 *   badptr           a path at an address that is not mapped (EFAULT)
 *   race RO RW N     one thread flips the path between RO/x and RW/x while
 *                    another creates it N times: the kernel decides each
 *                    create, the supervisor's answer (continue) never does
 *   many DIR N       N distinct refused creates below DIR
 * Each prints what the calls returned, as errno names. */
#define _GNU_SOURCE
#include "helper-util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *ename(int e)
{
    switch (e) {
    case 0: return "ok";
    case EROFS: return "EROFS";
    case EFAULT: return "EFAULT";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    default: return "other";
    }
}

static int try_create(const char *p)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}

static char flip[2][4096];
static char target[4096];
static volatile int stop;

static void *flipper(void *arg)
{
    (void)arg;
    for (unsigned i = 0; !stop; i++)
        memcpy(target, flip[i & 1], sizeof target);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    if (!strcmp(argv[1], "unterminated")) {
        long page = sysconf(_SC_PAGESIZE);
        char *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || munmap(m + page, (size_t)page) < 0)
            return 2;
        /* shorter than PATH_MAX, so that the kernel reads into the hole */
        memset(m + page - 100, 'a', 100);
        printf("unterminated=%s\n", ename(try_create(m + page - 100)));
    } else if (!strcmp(argv[1], "long") && argc == 3) {
        char *p = malloc(6000);
        int n = snprintf(p, 6000, "%s/", argv[2]);
        memset(p + n, 'b', 5000);
        p[n + 5000] = '\0';
        printf("long=%s\n", ename(try_create(p)));
        free(p);
    } else if (!strcmp(argv[1], "badptr")) {
        printf("badptr=%s\n", ename(try_create((const char *)8)));
    } else if (!strcmp(argv[1], "race") && argc == 5) {
        snprintf(flip[0], sizeof flip[0], "%s/x", argv[2]);
        snprintf(flip[1], sizeof flip[1], "%s/x", argv[3]);
        memcpy(target, flip[0], sizeof target);
        pthread_t t;
        pthread_create(&t, NULL, flipper, NULL);
        int n = atoi(argv[4]), rofs = 0, ok = 0, other = 0;
        for (int i = 0; i < n; i++) {
            int e = try_create(target);
            if (!e) {
                ok++;
                unlink(flip[1]);
            } else if (e == EROFS)
                rofs++;
            else
                other++;
        }
        stop = 1;
        pthread_join(t, NULL);
        printf("race ro_exists=%d\n", access(flip[0], F_OK) == 0);
        printf("race created=%s refused=%s\n", ok ? "yes" : "no", rofs ? "yes" : "no");
    } else if (!strcmp(argv[1], "many") && argc == 4) {
        int n = atoi(argv[3]), rofs = 0;
        for (int i = 0; i < n; i++) {
            char p[4200];
            snprintf(p, sizeof p, "%s/f%d", argv[2], i);
            rofs += try_create(p) == EROFS;
        }
        printf("many erofs=%d\n", rofs);
    } else {
        return 2;
    }
    return 0;
}
