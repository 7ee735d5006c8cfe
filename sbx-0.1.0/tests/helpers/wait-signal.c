/* Waits for one of the signals sbx forwards and names it: prints "ready"
 * once they are blocked (so a test knows when to send), then "got SIGxxx"
 * and exits 0. Exits 2 if nothing came within 20 s. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&set, sigs[i]);
    sigprocmask(SIG_BLOCK, &set, NULL);
    printf("ready\n");
    fflush(stdout);
    struct timespec limit = { .tv_sec = 20 };
    int sig = sigtimedwait(&set, NULL, &limit);
    if (sig < 0) {
        printf("no signal\n");
        return 2;
    }
    printf("got SIG%s\n", sigabbrev_np(sig));
    return 0;
}
