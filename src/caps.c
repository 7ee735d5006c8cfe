#include "config.h"

#include "caps.h"

#include "log.h"
#include "ns.h"
#include "seccomp_packet.h"
#include "util.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

/* The capabilities p keeps, as a bit mask (the kernel has fewer than 64).
 * A list entry may hold several names separated by spaces or commas. */
uint64_t privileges_kept_mask(const struct profile *p)
{
    uint64_t mask = 0;
    for (size_t i = 0; i < p->capabilities.n; i++) {
        const char *s = p->capabilities.v[i].value;
        while (*s) {
            s += strspn(s, " \t,");
            size_t n = strcspn(s, " \t,");
            if (!n)
                break;
            char *name = xstrndup(s, n);
            s += n;
            cap_value_t v;
            if (strcmp(name, "none") != 0) {
                if (cap_from_name(name, &v) < 0 || v < 0 || v >= 64)
                    die("capabilities: unknown capability '%s'", name);
                mask |= UINT64_C(1) << v;
            }
            free(name);
        }
    }
    return mask;
}

void privileges_drop(uint64_t kept, bool no_new_privs)
{
    /* The bounding set first: dropping from it needs CAP_SETPCAP, which
     * goes away with the effective set below. It is what keeps uid 0
     * inside from regaining every capability at execve(). */
    int last = (int)cap_max_bits();
    for (cap_value_t cap = 0; cap < last; cap++) {
        if (kept & (UINT64_C(1) << cap))
            continue;
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
            int e = errno;
            char *name = cap_to_name(cap);
            die_with_errno(e, "dropping %s from the bounding set", name ? name : "?");
        }
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
        die_errno("clearing the ambient capability set");

    cap_t caps = cap_init(); /* every flag clear */
    if (!caps)
        die_errno("cap_init");
    for (cap_value_t cap = 0; cap < last; cap++) {
        if (!(kept & (UINT64_C(1) << cap)))
            continue;
        cap_flag_t sets[] = { CAP_EFFECTIVE, CAP_PERMITTED, CAP_INHERITABLE };
        for (size_t s = 0; s < 3; s++)
            if (cap_set_flag(caps, sets[s], 1, &cap, CAP_SET) < 0)
                die_errno("cap_set_flag(%d)", cap);
    }
    if (cap_set_proc(caps) < 0) {
        int e = errno;
        char *text = cap_to_text(caps, NULL);
        die_with_errno(e, "setting the capability sets to '%s'", text ? text : "?");
    }
    cap_free(caps);

    /* Ambient capabilities are what a non-root uid keeps across execve(). */
    for (cap_value_t cap = 0; cap < last; cap++) {
        if (!(kept & (UINT64_C(1) << cap)))
            continue;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0) {
            int e = errno;
            char *name = cap_to_name(cap);
            die_with_errno(e, "raising %s in the ambient set (capabilities =)", name ? name : "?");
        }
    }

    if (no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        die_errno("prctl(PR_SET_NO_NEW_PRIVS)");
}

bool capability_in_effective_set(cap_value_t cap)
{
    cap_t caps = cap_get_proc();
    if (!caps)
        return false;
    cap_flag_value_t v = CAP_CLEAR;
    cap_get_flag(caps, cap, CAP_EFFECTIVE, &v);
    cap_free(caps);
    return v == CAP_SET;
}

bool privileges_keep(const struct profile *p, cap_value_t cap)
{
    return cap >= 0 && cap < 64 && (privileges_kept_mask(p) & (UINT64_C(1) << cap));
}

/* Raw IP sockets are checked against the user namespace that owns the
 * network namespace they are made in: inet_create() and inet6_create()
 * refuse SOCK_RAW unless ns_capable(net->user_ns, CAP_NET_RAW), with net
 * the creator's current network namespace (net/ipv4/af_inet.c,
 * net/ipv6/af_inet6.c). A command whose network namespace is the
 * sandbox's own, owned by the sandbox's user namespace, can therefore
 * send and read raw packets only on that namespace's lo (and pasta's tap
 * with outbound = yes, whose frames pasta turns into its own sockets):
 * what a root process has on a host, and nothing of the host's. setns()
 * into another network namespace needs CAP_SYS_ADMIN over its owner,
 * which the command never has. In the host's namespace (mode = host, or
 * net = no), the cap would be checked against the host's user
 * namespace: void for a command in its own user namespace, real without
 * one, so it is not granted there.
 *
 * The same capability opens AF_PACKET (packet_create(): CVE-2020-14386,
 * CVE-2017-7308, CVE-2016-8655 were all reached this way) and AF_XDP
 * (xsk_create()): the default seccomp deny-list refuses both (seccomp.h),
 * so the cap is granted only where that filter is installed and nothing
 * bypasses it (io_uring's IORING_OP_SOCKET would). Only for a command
 * that is uid 0 inside: on a host only root has raw sockets, and a test
 * suite's results depend on which one it is. */
enum net_raw_grant privileges_net_raw_grant(const struct profile *p, bool caller_is_root)
{
    bool root_inside = p->uid.current ? caller_is_root : p->uid.value == 0;
    if (!root_inside)
        return NET_RAW_NOT_ROOT;
    if (!p->net_raw)
        return NET_RAW_PROFILE_NO;
    int flags = ns_clone_flags(p);
    if (!(flags & CLONE_NEWUSER) || !(flags & CLONE_NEWNET))
        return NET_RAW_HOST_NETNS;
    if (p->seccomp != SECCOMP_DEFAULT || p->io_uring || !seccomp_packet_guard_available())
        return NET_RAW_UNGUARDED;
    return NET_RAW_GRANTED;
}

bool privileges_keep_net_raw(const struct profile *p, bool caller_is_root)
{
    return privileges_keep(p, CAP_NET_RAW) ||
           privileges_net_raw_grant(p, caller_is_root) == NET_RAW_GRANTED;
}
