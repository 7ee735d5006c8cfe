/* bind-storm PROCS THREADS CALLS: PROCS processes of THREADS threads each
 * call bind(127.0.0.1:0) CALLS times on an AF_INET socket. Prints how many
 * calls failed with EPERM, with another errno, or succeeded, so a test can
 * compare the ledger's count with what the command saw. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int calls;

struct tally { long eperm, other, success; };

static void *storm(void *arg)
{
    struct tally *t = arg;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        t->other += calls;
        return NULL;
    }
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = 0 };
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < calls; i++) {
        if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == 0) {
            t->success++;
            /* a bound socket cannot be bound again: start over */
            close(fd);
            fd = socket(AF_INET, SOCK_STREAM, 0);
        } else if (errno == EPERM) {
            t->eperm++;
        } else {
            t->other++;
        }
    }
    close(fd);
    return NULL;
}

static struct tally run_threads(int nthreads)
{
    pthread_t th[64];
    struct tally t[64], sum = { 0, 0, 0 };
    memset(t, 0, sizeof t);
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, storm, &t[i]) != 0)
            exit(99);
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        sum.eperm += t[i].eperm;
        sum.other += t[i].other;
        sum.success += t[i].success;
    }
    return sum;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int procs = atoi(argv[1]), nthreads = atoi(argv[2]);
    calls = atoi(argv[3]);
    if (procs < 1 || procs > 16 || nthreads < 1 || nthreads > 64 || calls < 0)
        return 2;
    int pipes[16][2];
    pid_t pids[16];
    for (int p = 1; p < procs; p++) {
        if (pipe(pipes[p]) < 0)
            return 99;
        pids[p] = fork();
        if (pids[p] < 0)
            return 99;
        if (pids[p] == 0) {
            struct tally t = run_threads(nthreads);
            if (write(pipes[p][1], &t, sizeof t) != sizeof t)
                _exit(99);
            _exit(0);
        }
        close(pipes[p][1]);
    }
    struct tally sum = run_threads(nthreads);
    for (int p = 1; p < procs; p++) {
        struct tally t;
        if (read(pipes[p][0], &t, sizeof t) != sizeof t)
            return 99;
        sum.eperm += t.eperm;
        sum.other += t.other;
        sum.success += t.success;
        waitpid(pids[p], NULL, 0);
    }
    printf("eperm=%ld other=%ld success=%ld\n", sum.eperm, sum.other, sum.success);
    return 0;
}
