#include "config.h"

#include "caps.h"

#include "log.h"
#include "util.h"

#include <errno.h>
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
