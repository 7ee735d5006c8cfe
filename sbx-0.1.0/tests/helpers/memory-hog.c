/* memory-hog MB: touches MB megabytes, says "ready", then waits to be
 * killed. A process that holds much memory takes a while to exit after
 * SIGKILL (the kernel frees every page), which makes "is it gone yet?"
 * observable (tests/integration/perf-teardown.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    char *p = mmap(NULL, mb << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("memory-hog: mmap");
        return 1;
    }
    /* Small pages: freeing them one by one is what takes the time. */
    madvise(p, mb << 20, MADV_NOHUGEPAGE);
    memset(p, 1, mb << 20);
    puts("ready");
    fflush(stdout);
    for (;;)
        pause();
}
