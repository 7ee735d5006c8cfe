/* seccomp-probe CHECK...: makes one system call per CHECK and prints
 * "CHECK=ok" or "CHECK=ERRNONAME", so a test can tell the seccomp filter's
 * EPERM from the kernel's own answer. Checks:
 *   tiocsti       TIOCSTI on a pty made our controlling terminal
 *   tiocsti-high  the same, with bit 32 set in the request (ioctl's request
 *                 is 32 bits in the kernel: the filter must ignore the rest)
 *   keyctl bpf perf_event_open userfaultfd open_by_handle_at
 *   unshare-user  unshare(CLONE_NEWUSER)
 *   clone-user    clone(CLONE_NEWUSER) (raw syscall)
 *   clone3        clone3 (any flags)
 *   socket-inet socket-unix   socket(AF_INET|AF_UNIX, SOCK_STREAM)
 *   listen-inet listen-unix   listen() on an unbound socket (no address
 *                 anywhere: the family must come from the socket itself)
 *   bind-badptr   bind() of an AF_INET socket to an unreadable address
 *   bind-badfd    bind() of fd 999 (not open) to an unreadable address
 *   listen-unix-thread   listen-unix from a second thread
 *   sendmsg-fds   sendmsg() to 127.0.0.1:9 on UDP sockets at fds 3..8 (the
 *                 numbers sbx's own channel had before exec): one result
 *                 per fd, comma-separated
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "helper-util.h"

static const char *result(long rc)
{
    return errno_result(rc, errno);
}

/* TIOCSTI is only meaningful on our controlling terminal: make a pty ours
 * in a child (setsid + open the slave), then push one character. */
static const char *tiocsti(unsigned long request)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0)
        return "setup-failed";
    int pipefd[2];
    if (pipe(pipefd) < 0)
        return "setup-failed";
    pid_t pid = fork();
    if (pid == 0) {
        int e = 0;
        if (setsid() < 0)
            e = -1;
        int slave = open(ptsname(master), O_RDWR);
        if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
            e = -1;
        char c = 'x';
        long rc = e < 0 ? -2 : syscall(SYS_ioctl, slave, request, &c);
        int err = rc == -2 ? -1 : (rc < 0 ? errno : 0);
        if (write(pipefd[1], &err, sizeof err) != sizeof err)
            _exit(1);
        _exit(0);
    }
    int err = -1;
    if (read(pipefd[0], &err, sizeof err) != sizeof err)
        err = -1;
    waitpid(pid, NULL, 0);
    if (err == -1)
        return "setup-failed";
    errno = err;
    return result(err ? -1 : 0);
}

static void *listen_unix_thread(void *arg)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    long rc = fd < 0 ? -1 : listen(fd, 1);
    *(int *)arg = rc < 0 ? errno : 0;
    return NULL;
}

static int child_fn(void *arg) { (void)arg; return 0; }

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *c = argv[i], *r = "unknown-check";
        long rc;
        if (strcmp(c, "tiocsti") == 0) {
            r = tiocsti(TIOCSTI);
        } else if (strcmp(c, "tiocsti-high") == 0) {
            r = tiocsti((1UL << 32) | TIOCSTI);
        } else if (strcmp(c, "keyctl") == 0) {
            rc = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
            r = result(rc);
        } else if (strcmp(c, "bpf") == 0) {
            rc = syscall(SYS_bpf, 0, NULL, 0);
            r = result(rc);
        } else if (strcmp(c, "perf_event_open") == 0) {
            rc = syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0);
            r = result(rc);
        } else if (strcmp(c, "userfaultfd") == 0) {
            /* UFFD_USER_MODE_ONLY (1): allowed without privilege even
             * when vm.unprivileged_userfaultfd = 0, so the kernel's own
             * answer is not EPERM for any uid. */
            rc = syscall(SYS_userfaultfd, O_CLOEXEC | 1);
            r = result(rc);
        } else if (strcmp(c, "open_by_handle_at") == 0) {
            rc = syscall(SYS_open_by_handle_at, -1, NULL, 0);
            r = result(rc);
        } else if (strcmp(c, "unshare-user") == 0) {
            pid_t pid = fork();
            if (pid == 0)
                _exit(unshare(CLONE_NEWUSER) < 0 ? errno : 0);
            int st;
            waitpid(pid, &st, 0);
            errno = WEXITSTATUS(st);
            r = result(errno ? -1 : 0);
        } else if (strcmp(c, "clone-user") == 0) {
            static char stack[64 * 1024];
            pid_t pid = clone(child_fn, stack + sizeof stack, CLONE_NEWUSER | SIGCHLD, NULL);
            if (pid > 0)
                waitpid(pid, NULL, 0);
            r = result(pid);
        } else if (strcmp(c, "clone3") == 0) {
            rc = syscall(SYS_clone3, NULL, 0);
            r = result(rc);
        } else if (strcmp(c, "socket-inet") == 0) {
            rc = socket(AF_INET, SOCK_STREAM, 0);
            r = result(rc);
        } else if (strcmp(c, "listen-inet") == 0 || strcmp(c, "listen-unix") == 0) {
            int fd = socket(c[7] == 'i' ? AF_INET : AF_UNIX, SOCK_STREAM, 0);
            rc = fd < 0 ? -1 : listen(fd, 1);
            r = result(rc);
        } else if (strcmp(c, "bind-badptr") == 0) {
            int fd = socket(AF_INET, SOCK_STREAM, 0);
            rc = syscall(SYS_bind, fd, (void *)1, 16);
            r = result(rc);
        } else if (strcmp(c, "bind-badfd") == 0) {
            rc = syscall(SYS_bind, 999, (void *)1, 16);
            r = result(rc);
        } else if (strcmp(c, "listen-unix-thread") == 0) {
            pthread_t th;
            int err = 0;
            if (pthread_create(&th, NULL, listen_unix_thread, &err) != 0) {
                r = "setup-failed";
            } else {
                pthread_join(th, NULL);
                errno = err;
                r = result(err ? -1 : 0);
            }
        } else if (strcmp(c, "sendmsg-fds") == 0) {
            static char list[256];
            list[0] = '\0';
            struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
            to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            for (int fd = 3; fd <= 8; fd++) {
                int s2 = socket(AF_INET, SOCK_DGRAM, 0);
                if (s2 >= 0 && s2 != fd) {
                    dup2(s2, fd);
                    close(s2);
                }
                char byte = 'x';
                struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
                struct msghdr mh = { .msg_name = &to, .msg_namelen = sizeof to,
                                     .msg_iov = &iov, .msg_iovlen = 1 };
                rc = s2 < 0 ? -1 : sendmsg(fd, &mh, MSG_NOSIGNAL);
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         fd > 3 ? "," : "", result(rc));
            }
            r = list;
        } else if (strcmp(c, "socket-unix") == 0) {
            rc = socket(AF_UNIX, SOCK_STREAM, 0);
            r = result(rc);
        }
        printf("%s=%s\n", c, r);
    }
    return 0;
}
