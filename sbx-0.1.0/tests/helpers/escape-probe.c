/* Test helper for the escape suite: tries one way out of a sandbox (or,
 * outside, proves the same way works, so that a test can fail) and prints
 * one line "OP TARGET: ok" or "OP TARGET: ERRNO-NAME". Exit status 0 when
 * the attempt was made, whatever its outcome; 2 on bad usage.
 *
 *   escape-probe connect-tcp ADDR PORT      connect(); IPv4 or IPv6 literal
 *   escape-probe connect-abstract NAME      AF_UNIX, abstract name
 *   escape-probe connect-unix PATH          AF_UNIX, a path
 *   escape-probe listen-unix PATH           (bound at PATH)
 *   escape-probe listen-tcp ADDR            bind ADDR:0, print "port N",
 *                                           then "accepted" per connection
 *   escape-probe listen-abstract NAME       the same, abstract Unix socket
 *   escape-probe kill PID SIG
 *   escape-probe ptrace PID                 PTRACE_ATTACH, then PTRACE_SEIZE
 *   escape-probe mknod PATH                 character device 1:3 (null)
 *   escape-probe remount PATH               bind remount read-write
 *   escape-probe open-write PATH
 *   escape-probe read PATH                  "read PATH: ok: BYTES" (first line)
 *   escape-probe fd N                       is descriptor N open? read it
 *   escape-probe tiocsti FD                 push "x" into the terminal on FD
 *   escape-probe ids                        "ids RUID EUID SUID nnp N"
 *
 * --nested first: the attempt is made from a new user + mount namespace,
 * where the probe holds every capability (it prints "nested: ok" or the
 * errno of unshare()).
 *
 * A listener exits when its stdin reaches end of file. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

static int report(const char *op, const char *target, int rc)
{
    printf("%s %s: %s\n", op, target, rc >= 0 ? "ok" : strerrorname_np(errno));
    fflush(stdout);
    return 0;
}

static socklen_t inet_address(const char *addr, unsigned port, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((uint16_t)port);
        return sizeof *in4;
    }
    if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((uint16_t)port);
        return sizeof *in6;
    }
    fprintf(stderr, "escape-probe: not an address: %s\n", addr);
    exit(2);
}

static socklen_t path_address(const char *path, struct sockaddr_un *un)
{
    memset(un, 0, sizeof *un);
    un->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof un->sun_path) {
        fprintf(stderr, "escape-probe: path too long\n");
        exit(2);
    }
    strcpy(un->sun_path, path);
    return sizeof *un;
}

static socklen_t abstract_address(const char *name, struct sockaddr_un *un)
{
    memset(un, 0, sizeof *un);
    un->sun_family = AF_UNIX;
    size_t len = strlen(name);
    if (len + 1 > sizeof un->sun_path) {
        fprintf(stderr, "escape-probe: name too long\n");
        exit(2);
    }
    memcpy(un->sun_path + 1, name, len); /* sun_path[0] = 0: abstract */
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

/* Accepts until stdin closes, printing "accepted" for each connection. */
static int serve(int s)
{
    if (listen(s, 16) < 0)
        return report("listen", "", -1);
    struct pollfd pfd[2] = { { .fd = s, .events = POLLIN }, { .fd = 0, .events = POLLIN } };
    for (;;) {
        if (poll(pfd, 2, -1) < 0)
            return 1;
        if (pfd[1].revents) {
            char buf[64];
            if (read(0, buf, sizeof buf) <= 0)
                return 0;
        }
        if (pfd[0].revents & POLLIN) {
            int c = accept(s, NULL, NULL);
            if (c >= 0) {
                puts("accepted");
                fflush(stdout);
                close(c);
            }
        }
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--nested")) {
        int rc = unshare(CLONE_NEWUSER | CLONE_NEWNS);
        report("nested", "userns", rc);
        if (rc < 0)
            return 1;
        argv++;
        argc--;
    }
    if (argc < 2)
        goto usage;
    const char *op = argv[1];
    const char *arg = argc > 2 ? argv[2] : "";

    if (!strcmp(op, "connect-tcp") && argc == 4) {
        struct sockaddr_storage ss;
        socklen_t len = inet_address(arg, (unsigned)atoi(argv[3]), &ss);
        int s = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0)
            return report("socket", arg, -1);
        char target[128];
        snprintf(target, sizeof target, "%s:%s", arg, argv[3]);
        return report("connect", target, connect(s, (struct sockaddr *)&ss, len));
    }
    if (!strcmp(op, "connect-abstract") && argc == 3) {
        struct sockaddr_un un;
        socklen_t len = abstract_address(arg, &un);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0)
            return report("socket", arg, -1);
        return report("connect", arg, connect(s, (struct sockaddr *)&un, len));
    }
    if ((!strcmp(op, "connect-unix") || !strcmp(op, "listen-unix")) && argc == 3) {
        struct sockaddr_un un;
        socklen_t len = path_address(arg, &un);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0)
            return report("socket", arg, -1);
        if (op[0] == 'c')
            return report("connect", arg, connect(s, (struct sockaddr *)&un, len));
        if (bind(s, (struct sockaddr *)&un, len) < 0)
            return report("bind", arg, -1), 1;
        puts("listening");
        fflush(stdout);
        return serve(s);
    }
    if (!strcmp(op, "listen-tcp") && argc == 3) {
        struct sockaddr_storage ss;
        socklen_t len = inet_address(arg, 0, &ss);
        int s = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0 || bind(s, (struct sockaddr *)&ss, len) < 0 ||
            getsockname(s, (struct sockaddr *)&ss, &len) < 0)
            return report("bind", arg, -1), 1;
        unsigned port = ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                                : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        printf("port %u\n", port);
        fflush(stdout);
        return serve(s);
    }
    if (!strcmp(op, "listen-abstract") && argc == 3) {
        struct sockaddr_un un;
        socklen_t len = abstract_address(arg, &un);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0 || bind(s, (struct sockaddr *)&un, len) < 0)
            return report("bind", arg, -1), 1;
        puts("listening");
        fflush(stdout);
        return serve(s);
    }
    if (!strcmp(op, "kill") && argc == 4)
        return report("kill", arg, kill((pid_t)atoi(arg), atoi(argv[3])));
    if (!strcmp(op, "ptrace") && argc == 3) {
        pid_t pid = (pid_t)atoi(arg);
        report("ptrace-attach", arg, (int)ptrace(PTRACE_ATTACH, pid, NULL, NULL));
        return report("ptrace-seize", arg, (int)ptrace(PTRACE_SEIZE, pid, NULL, NULL));
    }
    if (!strcmp(op, "mknod") && argc == 3)
        return report("mknod", arg, mknod(arg, S_IFCHR | 0666, makedev(1, 3)));
    if (!strcmp(op, "remount") && argc == 3)
        return report("remount-rw", arg, mount(NULL, arg, NULL, MS_REMOUNT | MS_BIND, NULL));
    if (!strcmp(op, "open-write") && argc == 3)
        return report("open-write", arg, open(arg, O_WRONLY | O_CLOEXEC));
    if (!strcmp(op, "read") && argc == 3) {
        int fd = open(arg, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return report("read", arg, -1);
        char buf[256];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        if (n < 0)
            return report("read", arg, -1);
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        printf("read %s: ok: %s\n", arg, buf);
        return 0;
    }
    if (!strcmp(op, "fd") && argc == 3) {
        char buf[256];
        ssize_t n = read(atoi(arg), buf, sizeof buf - 1);
        if (n > 0) {
            buf[n] = '\0';
            printf("fd %s: ok: %s\n", arg, buf);
            return 0;
        }
        return report("fd", arg, n < 0 ? -1 : 0);
    }
    if (!strcmp(op, "tiocsti") && argc == 3) {
        char c = 'x';
        return report("tiocsti", arg, ioctl(atoi(arg), TIOCSTI, &c));
    }
    if (!strcmp(op, "ids") && argc == 2) {
        uid_t r, e, s;
        getresuid(&r, &e, &s);
        printf("ids %u %u %u nnp %d\n", (unsigned)r, (unsigned)e, (unsigned)s,
               prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
        return 0;
    }
usage:
    fprintf(stderr, "usage: escape-probe OP ARGS (see the source)\n");
    return 2;
}
