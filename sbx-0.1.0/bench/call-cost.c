/* The cost of each system call stat-loop makes, in ns per call (200 000
 * calls each), to tell what a sandbox adds to a call: run it bare, inside
 * bwrap and inside sbx (`make bench` does; docs/performance.md). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void)
{
    static const char *const paths[] = { "/usr/bin", "/etc/hostname", "/proc/self/stat", "/dev/null" };
    const int n = 200000;
    struct stat st;
    for (int k = 0; k < 4; k++) {
        double t = now_ns();
        for (int i = 0; i < n; i++)
            stat(paths[k], &st);
        printf("stat %s=%.0f ", paths[k], (now_ns() - t) / n);
    }
    double t = now_ns();
    for (int i = 0; i < n; i++)
        close(open("/dev/null", O_RDONLY | O_CLOEXEC));
    printf("open+close=%.0f ", (now_ns() - t) / n);
    t = now_ns();
    for (int i = 0; i < n; i++)
        getppid();
    printf("getppid=%.0f\n", (now_ns() - t) / n);
    return 0;
}
