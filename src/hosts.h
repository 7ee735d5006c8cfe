/* The sandbox's /etc/hosts (pure: no syscalls). The UTS namespace gives
 * the sandbox a hostname of its own (`hostname = sbx`), which the host's
 * /etc/hosts does not name: gethostbyname(gethostname()) would fail
 * inside, where on a host it resolves (Debian's installer writes
 * "127.0.1.1 HOSTNAME"), and test suites skip or fail on it (CPython's
 * test_socket testHostnameRes and testSockName). The sandbox's file is
 * the host's with a line for the sandbox's hostname in front. */
#ifndef SBX_HOSTS_H
#define SBX_HOSTS_H

#include <stddef.h>

/* Where the name resolves: on the sandbox's own lo (all of 127/8 is
 * local), and not 127.0.0.1, so that the reverse lookup of localhost
 * stays "localhost" (Debian's convention). */
#define HOSTS_SANDBOX_ADDRESS "127.0.1.1"

/* Longest host file read: large hosts files (block lists) run to a few
 * MiB; anything bigger is refused rather than cut. */
#define HOSTS_HOST_MAX (64u << 20)

/* The sandbox's /etc/hosts: a comment, "127.0.1.1<TAB>hostname", then
 * the host's bytes (len of them; host may be NULL when the host has no
 * file), ending in a newline. The first line naming an address wins for
 * the reverse lookup and the first naming a name for the forward one, so
 * the sandbox's line comes first. A NUL byte in the host's file ends it
 * there, as the result is a C string. Returns a malloc'd string. */
char *hosts_file_generate(const char *host, size_t len, const char *hostname);

#endif
