/* Outbound network for a sandbox that keeps its own network namespace:
 * `[network] outbound = yes` starts pasta (Debian's passt package) in the
 * supervisor, attached to the sandbox's user and network namespaces. The
 * sandbox keeps its private lo; TCP, UDP and DNS to other hosts go through
 * pasta's tap device; the host's loopback stays unreachable except for the
 * ports of `forward =`. */
#ifndef SBX_OUTBOUND_H
#define SBX_OUTBOUND_H

#include "profile.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <sys/types.h>

struct outbound {
    bool wanted;        /* profile->outbound with a network namespace */
    char *pasta_path;   /* resolved before clone() */
    pid_t pasta_pid;    /* 0: not running */
    char *rundir;       /* private directory for pasta's pid file */
    int log_fd;         /* pasta's stderr (memfd), for the diagnosis */
    char *resolv_conf;  /* the sandbox's /etc/resolv.conf (resolv.h), NULL: DNS not forwarded */
    char dns_upstream[INET_ADDRSTRLEN]; /* the host's resolver pasta forwards DNS to ("" none) */
};

/* Before anything is created: finds pasta in $PATH, so that a missing
 * package is reported before any namespace exists. Dies (125) naming the
 * package when it is not installed. Reads the host's /etc/resolv.conf and
 * makes the sandbox's (ob->resolv_conf), whose queries pasta forwards to
 * the host's first IPv4 nameserver; dies (125) naming the file when it
 * cannot be read, warns when it names no IPv4 nameserver. Does nothing
 * unless wanted. */
void outbound_prepare(struct outbound *ob, const struct profile *p, int clone_flags);

/* The argv pasta gets for sandbox init `init_pid` (NULL-terminated, owned
 * by the caller: free each and the array). Exposed for unit tests: it
 * holds the isolation choices (no inbound ports, no host loopback, no
 * gateway mapping). */
char **outbound_pasta_argv(const struct outbound *ob, const struct profile *p, pid_t init_pid,
                           const char *pid_file, bool as_root);

/* In the supervisor, once init has written the id maps and brought lo up:
 * starts pasta and waits until it has configured the namespace (it writes
 * its pid file then). Dies (125) with pasta's own message when it fails;
 * never lets the command run without the network it asked for. */
void outbound_start(struct outbound *ob, const struct profile *p, pid_t init_pid);

/* Ends pasta (SIGTERM, then reaps it) and frees what ob holds. Safe to
 * call when nothing was started. */
void outbound_stop(struct outbound *ob);

#endif
