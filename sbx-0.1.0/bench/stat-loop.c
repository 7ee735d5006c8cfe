/* A syscall-heavy workload for the run-time overhead figure: N rounds of
 * stat(), open()+close() and getppid() over a few paths. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 300000;
    static const char *const paths[] = {"/usr/bin", "/etc/hostname", "/proc/self/stat", "/dev/null"};
    struct stat st;
    long sum = 0;
    for (long i = 0; i < rounds; i++) {
        const char *p = paths[i % 4];
        if (stat(p, &st) == 0)
            sum += (long)st.st_size & 1;
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd >= 0)
            close(fd);
        sum += getppid() & 1;
    }
    printf("%ld\n", sum);
    return 0;
}
