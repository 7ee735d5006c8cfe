/* Runs a command on a new pty, as a terminal emulator would (a new session
 * whose controlling terminal is the pty; its stdin, stdout and stderr are
 * the slave), and copies everything the master gives to a file, or
 * nowhere, as fast as it can. Prints "bytes=N seconds=S" to stderr and
 * exits with the command's status (128+N for signal N).
 * Usage: pty-run [-o FILE] -- COMMAND [ARG...] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *out_path = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "+o:")) != -1) {
        if (opt != 'o') {
            fprintf(stderr, "usage: pty-run [-o FILE] -- COMMAND [ARG...]\n");
            return 2;
        }
        out_path = optarg;
    }
    if (optind >= argc) {
        fprintf(stderr, "usage: pty-run [-o FILE] -- COMMAND [ARG...]\n");
        return 2;
    }
    int out = -1;
    if (out_path && (out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        perror(out_path);
        return 2;
    }
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
        perror("posix_openpt");
        return 2;
    }
    struct winsize ws = { .ws_row = 24, .ws_col = 80 };
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int slave = open(ptsname(master), O_RDWR);
        if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) < 0) {
            perror("pty slave");
            _exit(2);
        }
        ioctl(slave, TIOCSWINSZ, &ws);
        dup2(slave, 0);
        dup2(slave, 1);
        dup2(slave, 2);
        if (slave > 2)
            close(slave);
        execvp(argv[optind], argv + optind);
        perror(argv[optind]);
        _exit(127);
    }
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    static char buf[1 << 16];
    unsigned long long total = 0;
    for (;;) {
        ssize_t n = read(master, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* EIO: every slave is closed */
        total += (unsigned long long)n;
        for (ssize_t done = 0; out >= 0 && done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w <= 0) {
                perror("write");
                return 2;
            }
            done += w;
        }
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(stderr, "bytes=%llu seconds=%.3f\n", total, s);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
