/* A fork bomb that stops by itself: fork-bomb SECONDS CAP TAG [exit|stay]
 *
 * Every process forks as fast as it can (each child forks too) for
 * SECONDS, or until CAP processes exist: CAP bounds it when nothing else
 * does, so a broken limit cannot take the machine down. Then the first
 * process prints "created N refused M" (N counts itself; M: forks that
 * failed with EAGAIN) and either kills the others and exits ("exit", for
 * runs outside a sandbox) or waits to be killed ("stay": the sandbox's
 * timeout ends it). TAG is only there to find its processes in /proc. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct counters {
    long created;
    long refused;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: fork-bomb SECONDS CAP TAG [exit|stay]\n");
        return 2;
    }
    double deadline = now() + atof(argv[1]);
    long cap = atol(argv[2]);
    bool stay = argc > 4 && !strcmp(argv[4], "stay");
    struct counters *c = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                              -1, 0);
    if (c == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    c->created = 1;
    setpgid(0, 0);
    pid_t first = getpid();
    signal(SIGCHLD, SIG_IGN); /* children that fail are reaped by the kernel */
    while (now() < deadline) {
        if (__atomic_fetch_add(&c->created, 1, __ATOMIC_RELAXED) >= cap) {
            __atomic_fetch_sub(&c->created, 1, __ATOMIC_RELAXED);
            break;
        }
        pid_t pid = fork();
        if (pid < 0) {
            __atomic_fetch_sub(&c->created, 1, __ATOMIC_RELAXED);
            if (errno == EAGAIN)
                __atomic_fetch_add(&c->refused, 1, __ATOMIC_RELAXED);
            usleep(1000);
        }
    }
    if (getpid() != first) {
        for (;;)
            pause();
    }
    /* the others may still be in their last fork */
    usleep(200 * 1000);
    printf("created %ld refused %ld\n", __atomic_load_n(&c->created, __ATOMIC_RELAXED),
           __atomic_load_n(&c->refused, __ATOMIC_RELAXED));
    fflush(stdout);
    if (stay) {
        for (;;)
            pause();
    }
    signal(SIGTERM, SIG_IGN);
    killpg(0, SIGTERM);
    return 0;
}
