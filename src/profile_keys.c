/* The profile's keys: one row each, in sbx-profile(5) order.
 *
 * A row says everything the engine knows about a key: its section and
 * name, whether it is a list, where in struct profile its value lives,
 * its built-in default, and the functions that parse it
 * (profile_values.c), print it for `sbx profile show` (profile_print.c)
 * and write it into the run record's profile (profile_json.c). The INI
 * front end, the loader, the printer and the JSON writer walk this table;
 * none of them names a key.
 *
 * Adding a key:
 *  1. its value in struct profile (profile.h), and K_NAME in enum
 *     profile_key at the place the key prints (enum order = table order);
 *  2. one row below, at the same place;
 *  3. when no existing parse/print/json function fits its type, write the
 *     three beside their kin (same signatures, profile_keys.h). A list
 *     frees its entries in profile_free();
 *  4. what the key does: the module that applies it reads the field;
 *     checks against other keys go in validate() (profile.c);
 *  5. the key in docs/sbx-profile.5 and, when it is in the record, in
 *     docs/run-record.md; a line for it in roundtrip.ini in
 *     tests/unit/profile-test.c (the test fails until there is one).
 *
 * Row order is print order and the order of the record's keys: sections
 * stay contiguous. */
#include "config.h"

#include "profile_keys.h"

#include <stddef.h>
#include <string.h>
#include <sys/resource.h>

static const char *const net_modes[] = {"loopback", "none", "host", NULL};
static const char *const root_modes[] = {"ro", "tmpfs", "host", NULL};
static const char *const dev_modes[] = {"minimal", "none", NULL};
static const char *const seccomp_modes[] = {"default", "none", NULL};
static const char *const fallback_modes[] = {"none", "landlock", NULL};

#define FIELD(member) offsetof(struct profile, member)
#define LIST KEY_LIST
#define LIST_OF_PATHS (KEY_LIST | KEY_PATH)
#define RULES (KEY_LIST | KEY_OPTIONAL | KEY_PATH)

/* Columns: section, name, key, flags, field, aux, choices, default,
 * parse, print, then where the run record's profile holds the value
 * (object, name, function; a NULL name: not there). */
const struct key_def profile_keys[] = {
    {"profile", "description", K_DESCRIPTION, 0, FIELD(description), 0, NULL, NULL,
     parse_string, print_string, NULL, "description", json_of_string},
    /* Applied by the loader before the file's other keys; show lists the
     * files read in its header, the record under "files". */
    {"profile", "include", K_INCLUDE, KEY_LIST | KEY_OPTIONAL, 0, 0, NULL, NULL,
     parse_include, NULL, NULL, "files", json_of_files},

    {"sandbox", "fallback", K_SANDBOX_FALLBACK, 0, FIELD(fallback), 0, fallback_modes, "none",
     parse_enum, print_enum, "sandbox", "fallback", json_of_enum},

    {"namespaces", "user", K_NS_USER, 0, FIELD(ns[NS_USER]), 0, NULL, "yes",
     parse_bool, print_bool, "namespaces", "user", json_of_bool},
    {"namespaces", "mount", K_NS_MOUNT, 0, FIELD(ns[NS_MOUNT]), 0, NULL, "yes",
     parse_bool, print_bool, "namespaces", "mount", json_of_bool},
    {"namespaces", "net", K_NS_NET, 0, FIELD(ns[NS_NET]), 0, NULL, "yes",
     parse_bool, print_bool, "namespaces", "net", json_of_bool},
    {"namespaces", "pid", K_NS_PID, 0, FIELD(ns[NS_PID]), 0, NULL, "yes",
     parse_bool, print_bool, "namespaces", "pid", json_of_bool},
    {"namespaces", "ipc", K_NS_IPC, 0, FIELD(ns[NS_IPC]), 0, NULL, "yes",
     parse_bool, print_bool, "namespaces", "ipc", json_of_bool},
    {"namespaces", "uts", K_NS_UTS, 0, FIELD(ns[NS_UTS]), 0, NULL, "yes",
     parse_bool, print_bool, "namespaces", "uts", json_of_bool},
    {"namespaces", "uid", K_UID, 0, FIELD(uid), 0, NULL, "current",
     parse_id, print_id, NULL, "uid", json_of_id},
    {"namespaces", "gid", K_GID, 0, FIELD(gid), 0, NULL, "current",
     parse_id, print_id, NULL, "gid", json_of_id},
    {"namespaces", "hostname", K_HOSTNAME, 0, FIELD(hostname), 0, NULL, "sbx",
     parse_hostname, print_string, NULL, "hostname", json_of_string},
    {"namespaces", "nested_userns", K_NESTED_USERNS, 0, FIELD(nested_userns), 0, NULL, "yes",
     parse_bool, print_bool, NULL, "nested_userns", json_of_bool},

    {"network", "mode", K_NET_MODE, 0, FIELD(net_mode), 0, net_modes, "loopback",
     parse_enum, print_enum, "network", "mode", json_of_enum},
    {"network", "outbound", K_NET_OUTBOUND, 0, FIELD(outbound), 0, NULL, "no",
     parse_bool, print_bool, "network", "outbound", json_of_bool},
    {"network", "forward", K_NET_FORWARD, LIST, 0, 0, NULL, NULL,
     parse_ports, print_ports, "network", "forward", json_of_ports},
    {"network", "allow", K_NET_ALLOW, LIST, FIELD(allow), 0, NULL, NULL,
     parse_allow, print_strings, "network", "allow", json_of_strings},

    {"limits", "nofile", K_LIMIT_NOFILE, 0, FIELD(limits[LIMIT_NOFILE]), LIMIT_NOFILE, NULL, "inherit",
     parse_limit_count, print_limit, "limits", "nofile", json_of_limit},
    {"limits", "nproc", K_LIMIT_NPROC, 0, FIELD(limits[LIMIT_NPROC]), LIMIT_NPROC, NULL, "inherit",
     parse_limit_count, print_limit, "limits", "nproc", json_of_limit},
    {"limits", "core", K_LIMIT_CORE, 0, FIELD(limits[LIMIT_CORE]), LIMIT_CORE, NULL, "inherit",
     parse_limit_size, print_limit, "limits", "core", json_of_limit},
    {"limits", "cpu", K_LIMIT_CPU, 0, FIELD(limits[LIMIT_CPU]), LIMIT_CPU, NULL, "inherit",
     parse_limit_seconds, print_limit_seconds, "limits", "cpu", json_of_limit},
    {"limits", "fsize", K_LIMIT_FSIZE, 0, FIELD(limits[LIMIT_FSIZE]), LIMIT_FSIZE, NULL, "inherit",
     parse_limit_size, print_limit, "limits", "fsize", json_of_limit},
    {"limits", "as", K_LIMIT_AS, 0, FIELD(limits[LIMIT_AS]), LIMIT_AS, NULL, "inherit",
     parse_limit_size, print_limit, "limits", "as", json_of_limit},
    {"limits", "stack", K_LIMIT_STACK, 0, FIELD(limits[LIMIT_STACK]), LIMIT_STACK, NULL, "inherit",
     parse_limit_size, print_limit, "limits", "stack", json_of_limit},
    {"limits", "memlock", K_LIMIT_MEMLOCK, 0, FIELD(limits[LIMIT_MEMLOCK]), LIMIT_MEMLOCK, NULL, "inherit",
     parse_limit_size, print_limit, "limits", "memlock", json_of_limit},
    {"limits", "sigpending", K_LIMIT_SIGPENDING, 0, FIELD(limits[LIMIT_SIGPENDING]), LIMIT_SIGPENDING,
     NULL, "inherit", parse_limit_count, print_limit, "limits", "sigpending", json_of_limit},
    {"limits", "timeout", K_TIMEOUT, 0, FIELD(timeout_ms), 0, NULL, "none",
     parse_timeout, print_timeout, NULL, "timeout_ms", json_of_timeout},

    {"filesystem", "root", K_FS_ROOT, 0, FIELD(root), 0, root_modes, "ro",
     parse_enum, print_enum, "filesystem", "root", json_of_enum},
    /* the five kinds of rule share p->fs, in the order read, and on one
     * path the later rule wins: the rw row prints them all in that order,
     * and the record lists them together under "rules" */
    {"filesystem", "rw", K_FS_RW, RULES, 0, FS_RW, NULL, NULL,
     parse_fs_rule, print_fs_rules, "filesystem", "rules", json_of_fs_rules},
    {"filesystem", "ro", K_FS_RO, RULES, 0, FS_RO, NULL, NULL,
     parse_fs_rule, NULL, NULL, NULL, NULL},
    {"filesystem", "tmpfs", K_FS_TMPFS, RULES, 0, FS_TMPFS, NULL, NULL,
     parse_fs_rule, NULL, NULL, NULL, NULL},
    {"filesystem", "hide", K_FS_HIDE, RULES, 0, FS_HIDE, NULL, NULL,
     parse_fs_rule, NULL, NULL, NULL, NULL},
    {"filesystem", "cache", K_FS_CACHE, RULES, 0, FS_CACHE, NULL, NULL,
     parse_fs_rule, NULL, NULL, NULL, NULL},
    {"filesystem", "unprotect", K_FS_UNPROTECT, LIST_OF_PATHS, FIELD(unprotect), 0, NULL, NULL,
     parse_paths, print_strings, "filesystem", "unprotect", json_of_strings},
    {"filesystem", "create", K_FS_CREATE, LIST_OF_PATHS, FIELD(create), 0, NULL, NULL,
     parse_paths, print_strings, "filesystem", "create", json_of_strings},
    {"filesystem", "proc", K_FS_PROC, 0, FIELD(proc), 0, NULL, "yes",
     parse_bool, print_bool, "filesystem", "proc", json_of_bool},
    {"filesystem", "dev", K_FS_DEV, 0, FIELD(dev), 0, dev_modes, "minimal",
     parse_enum, print_enum, "filesystem", "dev", json_of_enum},
    {"filesystem", "observe_writes", K_FS_OBSERVE_WRITES, 0, FIELD(observe_writes), 0, NULL, "yes",
     parse_bool, print_bool, "filesystem", "observe_writes", json_of_bool},

    /* The record holds [environment] as what it changes, names only
     * (environment_changes() in report.c), not as these keys. keep and
     * unset print together, in the order read: the last rule matching a
     * name decides (env.h). */
    {"environment", "clear", K_ENV_CLEAR, 0, FIELD(env_clear), 0, NULL, "no",
     parse_bool, print_bool, NULL, NULL, NULL},
    {"environment", "keep", K_ENV_KEEP, LIST, FIELD(env_keep), 0, NULL, NULL,
     parse_env_names, print_env_rules, NULL, NULL, NULL},
    {"environment", "set", K_ENV_SET, LIST, FIELD(env_set), 0, NULL, NULL,
     parse_assign, print_strings, NULL, NULL, NULL},
    {"environment", "unset", K_ENV_UNSET, LIST, FIELD(env_unset), 0, NULL, NULL,
     parse_env_names, NULL, NULL, NULL, NULL},
    {"environment", "unset_secret_values", K_ENV_UNSET_SECRET_VALUES, 0,
     FIELD(env_unset_secret_values), 0, NULL, "no", parse_bool, print_bool, NULL, NULL, NULL},

    {"security", "no_new_privs", K_SEC_NO_NEW_PRIVS, 0, FIELD(no_new_privs), 0, NULL, "yes",
     parse_bool, print_bool, "security", "no_new_privs", json_of_bool},
    {"security", "capabilities", K_SEC_CAPABILITIES, KEY_SET, FIELD(capabilities), 0, NULL, "none",
     parse_caps, print_caps, "security", "capabilities", json_of_strings},
    {"security", "net_raw", K_SEC_NET_RAW, 0, FIELD(net_raw), 0, NULL, "yes",
     parse_bool, print_bool, "security", "net_raw", json_of_bool},
    {"security", "seccomp", K_SEC_SECCOMP, 0, FIELD(seccomp), 0, seccomp_modes, "default",
     parse_enum, print_enum, "security", "seccomp", json_of_enum},
    {"security", "io_uring", K_SEC_IO_URING, 0, FIELD(io_uring), 0, NULL, "no",
     parse_bool, print_bool, "security", "io_uring", json_of_bool},
    {"security", "deny", K_SEC_DENY, LIST, 0, 0, NULL, NULL,
     parse_deny, print_deny, "security", "deny", json_of_deny},
};
const size_t profile_nkeys = sizeof profile_keys / sizeof profile_keys[0];

_Static_assert(sizeof profile_keys / sizeof profile_keys[0] == K_COUNT,
               "one row for each enum profile_key");

const char *const profile_sections[] = {
    "profile", "sandbox", "namespaces", "network", "limits", "filesystem", "environment", "security", NULL,
};

const struct key_def *profile_key_find(const char *section, const char *name)
{
    for (size_t i = 0; i < profile_nkeys; i++)
        if (!strcmp(profile_keys[i].section, section) && !strcmp(profile_keys[i].name, name))
            return &profile_keys[i];
    return NULL;
}

bool profile_section_known(const char *name)
{
    for (const char *const *s = profile_sections; *s; s++)
        if (!strcmp(*s, name))
            return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* Names for the sandbox modules                                        */

const char *ns_kind_name(enum ns_kind k)
{
    static const char *const n[NS_COUNT] = {"user", "mount", "net", "pid", "ipc", "uts"};
    return (unsigned)k < NS_COUNT ? n[k] : "?";
}

const char *limit_kind_name(enum limit_kind k)
{
    static const char *const n[LIMIT_COUNT] = {
        "nofile", "nproc", "core", "cpu", "fsize", "as", "stack", "memlock", "sigpending"};
    return (unsigned)k < LIMIT_COUNT ? n[k] : "?";
}

int limit_kind_resource(enum limit_kind k)
{
    static const int r[LIMIT_COUNT] = {
        RLIMIT_NOFILE, RLIMIT_NPROC, RLIMIT_CORE, RLIMIT_CPU, RLIMIT_FSIZE,
        RLIMIT_AS, RLIMIT_STACK, RLIMIT_MEMLOCK, RLIMIT_SIGPENDING};
    return (unsigned)k < LIMIT_COUNT ? r[k] : -1;
}

const char *net_mode_name(enum net_mode m)
{
    return (unsigned)m < 3 ? net_modes[m] : "?";
}

const char *fs_kind_name(enum fs_kind k)
{
    static const char *const n[] = {"rw", "ro", "tmpfs", "hide", "cache"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

const char *origin_format(const struct origin *o, char *buf, size_t len)
{
    if (!o->file)
        snprintf(buf, len, "default");
    else if (o->line)
        snprintf(buf, len, "%s:%u", o->file, o->line);
    else
        snprintf(buf, len, "%s", o->file);
    return buf;
}
