/* Opens N descriptors (of /dev/null) and holds them all at once, as an
 * async runtime does at start. Prints "opened N" or where it failed.
 * Leaves with _exit(): in the sanitizer build LeakSanitizer would need a
 * descriptor at exit, and there is none left. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long want = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
    for (long i = 0; i < want; i++) {
        if (open("/dev/null", O_RDONLY) < 0) {
            printf("failed after %ld: %s\n", i, strerror(errno));
            fflush(stdout);
            _exit(1);
        }
    }
    printf("opened %ld\n", want);
    fflush(stdout);
    _exit(0);
}
