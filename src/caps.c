#include "config.h"

#include "caps.h"

#include "log.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Why not libcap: sbx needs a name table, capget, capset and a few
 * prctl() calls. Linking libcap cost every start of sbx its loading and
 * its constructor (six PR_CAPBSET_READ probes), about 40 us and 50 kB of
 * memory (docs/performance.md). The names are those of capabilities(7),
 * indexed by number; the kernel adds one every few years, and a kernel
 * newer than this table still has all of its capabilities dropped (the
 * bounding-set loop below runs until the kernel says EINVAL). */
static const char *const capability_names[] = {
    "cap_chown", "cap_dac_override", "cap_dac_read_search", "cap_fowner",
    "cap_fsetid", "cap_kill", "cap_setgid", "cap_setuid", "cap_setpcap",
    "cap_linux_immutable", "cap_net_bind_service", "cap_net_broadcast",
    "cap_net_admin", "cap_net_raw", "cap_ipc_lock", "cap_ipc_owner",
    "cap_sys_module", "cap_sys_rawio", "cap_sys_chroot", "cap_sys_ptrace",
    "cap_sys_pacct", "cap_sys_admin", "cap_sys_boot", "cap_sys_nice",
    "cap_sys_resource", "cap_sys_time", "cap_sys_tty_config", "cap_mknod",
    "cap_lease", "cap_audit_write", "cap_audit_control", "cap_setfcap",
    "cap_mac_override", "cap_mac_admin", "cap_syslog", "cap_wake_alarm",
    "cap_block_suspend", "cap_audit_read", "cap_perfmon", "cap_bpf",
    "cap_checkpoint_restore",
};
#define N_CAPABILITY_NAMES ((int)(sizeof capability_names / sizeof capability_names[0]))

int capability_from_name(const char *name)
{
    if (!name || !*name)
        return -1;
    if (isdigit((unsigned char)name[0])) {
        char *end;
        errno = 0;
        long v = strtol(name, &end, 10);
        return (!errno && !*end && v >= 0 && v < N_CAPABILITY_NAMES) ? (int)v : -1;
    }
    const char *bare = strncasecmp(name, "cap_", 4) == 0 ? name + 4 : name;
    for (int i = 0; i < N_CAPABILITY_NAMES; i++)
        if (strcasecmp(bare, capability_names[i] + 4) == 0)
            return i;
    return -1;
}

const char *capability_name(int cap)
{
    return cap >= 0 && cap < N_CAPABILITY_NAMES ? capability_names[cap] : NULL;
}

/* The three 64-bit sets, as capget/capset take them (version 3: two
 * 32-bit halves). */
struct capability_sets {
    uint64_t effective, permitted, inheritable;
};

static int capability_get(struct capability_sets *s)
{
    struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
    struct __user_cap_data_struct data[2] = { 0 };
    if (syscall(SYS_capget, &header, data) < 0)
        return -1;
    s->effective = data[0].effective | (uint64_t)data[1].effective << 32;
    s->permitted = data[0].permitted | (uint64_t)data[1].permitted << 32;
    s->inheritable = data[0].inheritable | (uint64_t)data[1].inheritable << 32;
    return 0;
}

static int capability_set(const struct capability_sets *s)
{
    struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
    struct __user_cap_data_struct data[2] = {
        { .effective = (uint32_t)s->effective, .permitted = (uint32_t)s->permitted,
          .inheritable = (uint32_t)s->inheritable },
        { .effective = (uint32_t)(s->effective >> 32), .permitted = (uint32_t)(s->permitted >> 32),
          .inheritable = (uint32_t)(s->inheritable >> 32) },
    };
    return (int)syscall(SYS_capset, &header, data);
}

bool capability_in_effective_set(int cap)
{
    struct capability_sets s;
    return cap >= 0 && cap < 64 && capability_get(&s) == 0 && (s.effective >> cap) & 1;
}

/* The capabilities p keeps, as a bit mask (the kernel has fewer than 64).
 * A list entry may hold several names separated by spaces or commas. */
static uint64_t kept_mask(const struct profile *p)
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
            if (strcmp(name, "none") != 0) {
                int v = capability_from_name(name);
                if (v < 0)
                    die("capabilities: unknown capability '%s'", name);
                mask |= UINT64_C(1) << v;
            }
            free(name);
        }
    }
    return mask;
}

static const char *capability_label(int cap, char *buf, size_t len)
{
    const char *name = capability_name(cap);
    if (name)
        return name;
    snprintf(buf, len, "capability %d", cap);
    return buf;
}

void privileges_drop(const struct profile *p)
{
    uint64_t kept = kept_mask(p);

    /* The bounding set first: dropping from it needs CAP_SETPCAP, which
     * goes away with the effective set below. It is what keeps uid 0
     * inside from regaining every capability at execve(). EINVAL marks
     * the first number past the kernel's last capability. */
    for (int cap = 0; cap < 64; cap++) {
        if (kept & (UINT64_C(1) << cap))
            continue;
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
            continue;
        if (errno == EINVAL)
            break;
        char b[32];
        die_errno("dropping %s from the bounding set", capability_label(cap, b, sizeof b));
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
        die_errno("clearing the ambient capability set");

    struct capability_sets sets = { .effective = kept, .permitted = kept, .inheritable = kept };
    if (capability_set(&sets) < 0)
        die_errno("setting the capability sets (capset: effective, permitted and inheritable "
                  "= %#llx)", (unsigned long long)kept);

    /* Ambient capabilities are what a non-root uid keeps across execve(). */
    for (int cap = 0; cap < 64; cap++) {
        if (!(kept & (UINT64_C(1) << cap)))
            continue;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
        {
            char b[32];
            die_errno("raising %s in the ambient set (capabilities =)", capability_label(cap, b, sizeof b));
        }
    }

    if (p->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        die_errno("prctl(PR_SET_NO_NEW_PRIVS)");
}
