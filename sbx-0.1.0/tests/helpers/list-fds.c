/* Prints the descriptors open in this process, space-separated, from
 * /proc/self/fd (minus the one used to read it). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        perror("opendir /proc/self/fd");
        return 2;
    }
    int self = dirfd(d);
    const char *sep = "";
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (atoi(e->d_name) == self)
            continue;
        printf("%s%s", sep, e->d_name);
        sep = " ";
    }
    printf("\n");
    closedir(d);
    return 0;
}
