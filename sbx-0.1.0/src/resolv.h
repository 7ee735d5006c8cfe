/* The sandbox's /etc/resolv.conf when outbound network is on (pure: no
 * syscalls). pasta forwards DNS queries sent to one address inside the
 * sandbox to the host's resolver, read from the host's /etc/resolv.conf;
 * the sandbox's file names that address instead of the host's servers,
 * which may sit on the host's loopback (127.0.0.53 systemd-resolved,
 * 127.0.0.1 dnsmasq) where the sandbox cannot reach them. */
#ifndef SBX_RESOLV_H
#define SBX_RESOLV_H

#include <stddef.h>

/* Link-local, so never a real resolver on the network, and the address
 * Podman gives pasta's --dns-forward; passt 0.0~git20230309 documents no
 * default of its own ("don't forward DNS queries"). */
#define RESOLV_FORWARD_ADDRESS "169.254.1.1"

/* Longest host file read: resolv.conf is a few lines; anything bigger is
 * not one, and is refused rather than cut. */
#define RESOLV_HOST_MAX (1u << 20)

/* The sandbox's resolv.conf made from the host's bytes (len of them, NUL
 * bytes allowed): one "nameserver FORWARD" line, then the host's search,
 * domain and options lines as they are (glibc reads only lines whose
 * keyword starts the line). Nameserver lines are dropped, and so are
 * comments, sortlist and any line glibc would not understand. Returns a
 * malloc'd string. *upstream gets the first IPv4 nameserver of the host's
 * file, the one pasta forwards to, or "" when there is none (then DNS has
 * nowhere to go: the caller decides). */
char *resolv_conf_generate(const char *host, size_t len, const char *forward,
                           char *upstream, size_t upstream_len);

#endif
