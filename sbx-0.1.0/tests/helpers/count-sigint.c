/* Counts the SIGINTs it receives: prints "ready", waits 1.5 s (resuming
 * the sleep after each signal), prints "SIGINT xN". Shows whether a
 * signal arrived twice, which a shell trap cannot (it runs once for
 * signals that arrive close together). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

static volatile sig_atomic_t count;

static void on_sigint(int sig)
{
    (void)sig;
    count++;
}

int main(void)
{
    struct sigaction sa = { .sa_handler = on_sigint };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    printf("ready\n");
    fflush(stdout);
    struct timespec left = { .tv_sec = 1, .tv_nsec = 500000000 };
    while (nanosleep(&left, &left) < 0 && errno == EINTR)
        ;
    printf("SIGINT x%d\n", (int)count);
    return 0;
}
