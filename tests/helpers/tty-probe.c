/* Tries to take the terminal on stdin away from its job: forks a child
 * into a process group of its own and makes that group the terminal's
 * foreground (tcsetpgrp), as a command sharing the caller's session could
 * do to the caller's terminal. Prints "tcsetpgrp: ok child=PID" (PID as
 * this process sees it) or "tcsetpgrp: <strerror>", then holds until
 * SIGUSR1 or 30 s, gives the foreground back and exits.
 * Usage: tty-probe */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTTOU);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    pid_t child = fork();
    if (child == 0) {
        setpgid(0, 0);
        sleep(60);
        _exit(0);
    }
    setpgid(child, child);
    if (tcsetpgrp(STDIN_FILENO, child) < 0)
        printf("tcsetpgrp: %s\n", strerror(errno));
    else
        printf("tcsetpgrp: ok child=%d\n", (int)child);
    fflush(stdout);
    struct timespec limit = { .tv_sec = 30 };
    sigdelset(&set, SIGTTOU);
    sigtimedwait(&set, NULL, &limit);
    tcsetpgrp(STDIN_FILENO, getpgrp());
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    printf("tty-probe: done\n");
    return 0;
}
