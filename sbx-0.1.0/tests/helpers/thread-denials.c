/* thread-denials [--fork] NAME...: one thread per NAME, named NAME with
 * pthread_setname_np() the way libtest names each test's thread; all of
 * them wait on a barrier, then each calls bind(AF_INET 127.0.0.1:0) and
 * connect(AF_INET6 [::1]:9) at once. With --fork the first thread also
 * forks a child (which keeps that thread's name, as fork(2) copies comm)
 * that makes the same two calls.
 *
 * Each caller prints one line, in one write(2):
 *   NAME tid=T pid=P ppid=Q bind=EPERM connect=EPERM t0=NS t1=NS
 * ids as it sees them (gettid, getpid, getppid), t0/t1 CLOCK_MONOTONIC
 * before and after its calls, so a test can check the ledger's tid, comm
 * and event times against what the caller itself knew.
 *
 * thread-denials --families: connect() on an AF_INET6 UDP socket, first
 * with an AF_INET sockaddr (127.0.0.1:25), then with the v4-mapped
 * [::ffff:127.0.0.1]:25; prints v4addr=RESULT mapped=RESULT. Both work
 * without a deny rule: the kernel connects the socket over IPv4. */
#define _GNU_SOURCE
#include "helper-util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t start_together;
static bool fork_child;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void make_calls(const char *name)
{
    uint64_t t0 = now_ns();
    int fd4 = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = 0 };
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = bind(fd4, (struct sockaddr *)&sin, sizeof sin);
    char bind_result[32];
    snprintf(bind_result, sizeof bind_result, "%s", errno_result(rc, errno));
    int fd6 = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
    sin6.sin6_addr = in6addr_loopback;
    rc = connect(fd6, (struct sockaddr *)&sin6, sizeof sin6);
    char connect_result[32];
    snprintf(connect_result, sizeof connect_result, "%s", errno_result(rc, errno));
    uint64_t t1 = now_ns();
    close(fd4);
    close(fd6);
    char line[256];
    int n = snprintf(line, sizeof line, "%s tid=%d pid=%d ppid=%d bind=%s connect=%s t0=%llu t1=%llu\n",
                     name, (int)gettid(), (int)getpid(), (int)getppid(), bind_result,
                     connect_result, (unsigned long long)t0, (unsigned long long)t1);
    if (write(STDOUT_FILENO, line, (size_t)n) != n)
        _exit(1);
}

static void *test_thread(void *arg)
{
    const char *name = arg;
    /* the kernel keeps 15 bytes of it, as of every thread name */
    char comm[16];
    snprintf(comm, sizeof comm, "%s", name);
    pthread_setname_np(pthread_self(), comm);
    pthread_barrier_wait(&start_together);
    if (fork_child && strcmp(name, "thread-first") == 0) {
        pid_t child = fork();
        if (child == 0) {
            make_calls("child");
            _exit(0);
        }
        make_calls(comm);
        int st;
        waitpid(child, &st, 0);
        return NULL;
    }
    make_calls(comm);
    return NULL;
}

static int families(void)
{
    int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        perror("socket(AF_INET6)");
        return 1;
    }
    /* A sockaddr_in given to an AF_INET6 datagram socket: the kernel
     * connects it as IPv4 (ip6_datagram_connect), it is no IPv6 call. */
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(25) };
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connect(fd, (struct sockaddr *)&sin, sizeof sin);
    printf("v4addr=%s ", errno_result(rc, errno));
    close(fd);
    fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in6 mapped = { .sin6_family = AF_INET6, .sin6_port = htons(25) };
    inet_pton(AF_INET6, "::ffff:127.0.0.1", &mapped.sin6_addr);
    rc = connect(fd, (struct sockaddr *)&mapped, sizeof mapped);
    printf("mapped=%s\n", errno_result(rc, errno));
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--families") == 0)
        return families();
    if (argc > 1 && strcmp(argv[1], "--fork") == 0) {
        fork_child = true;
        first = 2;
    }
    int n = argc - first;
    if (n < 1) {
        fprintf(stderr, "usage: thread-denials [--fork] NAME... | --families\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    pthread_barrier_init(&start_together, NULL, (unsigned)n);
    pthread_t *threads = calloc((size_t)n, sizeof *threads);
    for (int i = 0; i < n; i++)
        if (pthread_create(&threads[i], NULL, test_thread, argv[first + i]) != 0) {
            perror("pthread_create");
            return 1;
        }
    for (int i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    return 0;
}
