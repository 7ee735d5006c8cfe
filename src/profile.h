/* The profile model: what a sandbox should be, parsed from INI files.
 *
 * This module is pure in minijail's sense: it reads profile files and
 * nothing else touches the system, so it can be unit-tested and fuzzed.
 * The sandbox modules (ns.c, mount.c, net.c, ...) *apply* a struct profile.
 *
 * Every setting remembers where it was set (file and line) so that
 * `sbx profile show` can print it and errors can point at it.
 *
 * What each key is (section, type, default, how it parses, prints and
 * goes into the run record) is its row in src/profile_keys.c; that file
 * says how to add one. src/profile_keys.h lists the engine's files. */
#ifndef SBX_PROFILE_H
#define SBX_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROFILE_MAX_INCLUDE_DEPTH 16
/* Debian's libinih is built with INI_MAX_LINE 200: a line holds at most
 * 197 bytes before its "\r\n\0". Longer lines are errors, never cut. */
#define PROFILE_MAX_LINE 197
/* Bounds for untrusted input: a profile is small. */
#define PROFILE_MAX_FILE_SIZE (1024 * 1024)
#define PROFILE_MAX_ENTRIES 4096

/* Where a setting came from. file points into profile->files (never freed
 * before the profile); file == NULL means the built-in default. */
struct origin {
    const char *file;
    unsigned line;
};

enum ns_kind { NS_USER, NS_MOUNT, NS_NET, NS_PID, NS_IPC, NS_UTS, NS_COUNT };
enum net_mode { NET_LOOPBACK, NET_NONE, NET_HOST };
/* root = ro: the host / read-only; tmpfs: an empty root holding only what
 * the rules add; host: the host's tree as it is (the only choice with
 * [namespaces] mount = no). */
enum root_mode { ROOT_RO, ROOT_TMPFS, ROOT_HOST };
/* dev = minimal: a new /dev (see mount.c); none: /dev left as root gives it */
enum dev_mode { DEV_MINIMAL, DEV_NONE };
enum seccomp_mode { SECCOMP_DEFAULT, SECCOMP_NONE };
/* [sandbox] fallback: what runs when the kernel refuses a user namespace
 * (tier.h). none: nothing, exit 125 with the diagnosis. */
enum sandbox_fallback { FALLBACK_NONE, FALLBACK_LANDLOCK };

/* uid = / gid = : "current" or a number. */
struct id_setting {
    bool current;
    uint32_t value;
};

enum limit_kind {
    LIMIT_NOFILE,
    LIMIT_NPROC,
    LIMIT_CORE,
    LIMIT_CPU,
    LIMIT_FSIZE,
    LIMIT_AS,
    LIMIT_STACK,
    LIMIT_MEMLOCK,
    LIMIT_SIGPENDING,
    LIMIT_COUNT
};

struct limit_setting {
    bool set;          /* false: inherit the caller's limit */
    bool max;          /* "max": soft limit = hard limit */
    bool unlimited;    /* "unlimited": RLIM_INFINITY */
    uint64_t value;    /* otherwise; bytes for sizes, seconds for cpu */
};

/* FS_CACHE: writable for the sandbox, never for the host: a private
 * copy-on-write layer over the host's directory, kept across runs of the
 * profile (layers.h) */
enum fs_kind { FS_RW, FS_RO, FS_TMPFS, FS_HIDE, FS_CACHE };

struct fs_rule {
    enum fs_kind kind;
    char *path;        /* absolute, variables expanded, not yet resolved */
    char *written;     /* the value as written, when it holds a ${VAR}; else NULL */
    bool optional;     /* "?" suffix: a missing path is skipped */
    struct origin at;
};

struct str_entry {
    char *value;
    struct origin at;
    /* [environment] keep/unset: the order the rules were read in, across
     * both lists (the last rule matching a name decides; see env.h) */
    unsigned long seq;
};

struct str_list {
    struct str_entry *v;
    size_t n, cap;
};

/* deny = SYSCALL[:family,...] ERRNO */
struct deny_rule {
    char *syscall;     /* name as written, e.g. "bind" */
    int nr;            /* native syscall number (libseccomp), -1 if none here */
    uint64_t families; /* bit (1 << AF_x); 0 = every family */
    int errnum;        /* e.g. EPERM */
    char *text;        /* the rule as written, for show and removal */
    struct origin at;
    /* Made by sbx for [network] allow, never read from a profile: connect()
     * to an address other than loopback fails with no route (plan.c) */
    bool no_route;
    /* Made by sbx for the Landlock tier (plan.c): the supervisor makes the
     * call itself where it may be made, a loopback address
     * (landlock_net.h), a target in a writable path (landlock_meta.h) */
    bool supervisor_makes;
    /* sendto() only when it names an address (its fifth argument, which
     * BPF sees): send() is sendto(fd, buf, len, flags, NULL, 0), every
     * TCP write of many programs, and reaches the connected peer only */
    bool with_address;
};

/* Keys, used to index origins; one row each in the key table
 * (profile_keys.c), in this order, which is the print order. */
enum profile_key {
    K_DESCRIPTION,
    K_INCLUDE,
    K_SANDBOX_FALLBACK,
    K_NS_USER, K_NS_MOUNT, K_NS_NET, K_NS_PID, K_NS_IPC, K_NS_UTS,
    K_UID, K_GID, K_HOSTNAME, K_NESTED_USERNS,
    K_NET_MODE, K_NET_OUTBOUND, K_NET_FORWARD, K_NET_ALLOW,
    K_LIMIT_NOFILE, K_LIMIT_NPROC, K_LIMIT_CORE, K_LIMIT_CPU, K_LIMIT_FSIZE,
    K_LIMIT_AS, K_LIMIT_STACK, K_LIMIT_MEMLOCK, K_LIMIT_SIGPENDING,
    K_TIMEOUT,
    K_FS_ROOT, K_FS_RW, K_FS_RO, K_FS_TMPFS, K_FS_HIDE, K_FS_CACHE, K_FS_UNPROTECT, K_FS_CREATE, K_FS_PROC, K_FS_DEV, K_FS_OBSERVE_WRITES,
    K_ENV_CLEAR, K_ENV_KEEP, K_ENV_SET, K_ENV_UNSET, K_ENV_UNSET_SECRET_VALUES,
    K_SEC_NO_NEW_PRIVS, K_SEC_CAPABILITIES, K_SEC_NET_RAW, K_SEC_SECCOMP, K_SEC_IO_URING, K_SEC_DENY,
    K_COUNT
};

struct profile {
    char *name;             /* as asked for: "qa" or a path */
    char *path;             /* canonical path of the top file; NULL if none */
    char *description;

    enum sandbox_fallback fallback;

    /* Every file read, in the order read (top file first). Origins point
     * at these strings. */
    char **files;
    size_t nfiles, capfiles;

    bool ns[NS_COUNT];
    struct id_setting uid, gid;
    char *hostname;
    bool nested_userns;

    enum net_mode net_mode;
    bool outbound;
    uint16_t *forward;      /* ports */
    size_t nforward, capforward;
    /* [network] allow: canonical entries (allowlist.h); non-empty: the
     * egress proxy (egress.h) is the only way out */
    struct str_list allow;

    struct limit_setting limits[LIMIT_COUNT];
    uint64_t timeout_ms;    /* 0: none */

    enum root_mode root;
    struct fs_rule *fs;
    size_t nfs, capfs;
    struct str_list unprotect;  /* protected paths this profile opts out of (protect.h) */
    struct str_list create;     /* directories below $HOME made when missing (mount.c) */
    bool proc;
    enum dev_mode dev;
    /* the supervisor sees the writes that may be refused, to name them
     * at exit (seccomp_observe.h) */
    bool observe_writes;

    bool env_clear;
    struct str_list env_keep;   /* names or patterns */
    struct str_list env_set;    /* NAME=VALUE */
    struct str_list env_unset;  /* names or patterns */
    bool env_unset_secret_values; /* values that look like secrets (env.h) */
    unsigned long env_seq;      /* keep/unset rules read so far */

    bool no_new_privs;
    struct str_list capabilities; /* names to keep ("cap_net_raw"); empty: none */
    enum seccomp_mode seccomp;
    bool io_uring;          /* io_uring_setup allowed (seccomp.h) */
    bool net_raw;           /* cap_net_raw for uid 0 in its own netns (caps.c) */
    struct deny_rule *deny;
    size_t ndeny, capdeny;

    /* scalars: where each was last set; lists keep per-entry origins */
    struct origin at[K_COUNT];

    /* origin labels that are not files ("--rw", "--nofile"); owned */
    char **labels;
    size_t nlabels, caplabels;
};

/* Values of ${VAR} in profiles, supplied by the caller so the parser stays
 * pure. A NULL value makes its use an error that says it is unset. */
struct profile_vars {
    const char *home, *cwd, *user, *uid, *gid, *tmpdir;
    /* ${PROJECT}: the top of the work tree holding cwd (project.h), or
     * NULL with project_error saying why it has none */
    const char *project, *project_error;
    /* Asked for ${USER} when user is NULL: the password database is then
     * read only by profiles that use ${USER} (docs/performance.md). */
    const char *(*lookup_user)(void);
};

/* Where NAMEs are looked up, in order (see lookup.c). */
struct profile_search {
    char **dirs;
    size_t n;
};

/* Errors, each "FILE:LINE: message" (or "FILE: message"). */
struct profile_errors {
    char **msg;
    size_t n, cap;
};

/* A profile with every built-in default (sbx-profile(5) SECTIONS AND KEYS, the defaults), used as
 * the base before any file is applied. */
void profile_init_defaults(struct profile *p);

/* A setting that loads but does nothing in a sandbox with namespaces, as
 * a warning (malloc'd, "FILE:LINE: ..."), or NULL: forward = PORT without
 * outbound = yes (pasta forwards ports; without it the sandbox's
 * 127.0.0.1:PORT is its own, and a connection is refused). The Landlock
 * tier reads forward alone (the ports it may connect to), so this is no
 * error. */
char *profile_unused_warning(const struct profile *p);

/* Loads NAME (looked up in `search`) or a path, with its includes, on top
 * of the defaults. Returns true when no error was found; every error found
 * (not only the first) is appended to errs. */
bool profile_load(struct profile *p, const char *name_or_path,
                  const struct profile_search *search,
                  const struct profile_vars *vars, struct profile_errors *errs);

/* Parses profile text held in memory, as if read from `filename`. Includes
 * are resolved through `search` and relative to the file. For the fuzzer
 * and unit tests. */
bool profile_load_buffer(struct profile *p, const char *filename,
                         const char *data, size_t len,
                         const struct profile_search *search,
                         const struct profile_vars *vars,
                         struct profile_errors *errs);

/* Applies one KEY = VALUE in SECTION as if it came from `origin_label`
 * (command-line options use this: "--rw" etc.). */
bool profile_apply_option(struct profile *p, const char *section,
                          const char *key, const char *value,
                          const char *origin_label,
                          const struct profile_vars *vars,
                          struct profile_errors *errs);

/* Writes the effective profile, each line with the file:line that set it. */
void profile_print(const struct profile *p, FILE *out);

void profile_free(struct profile *p);
void profile_errors_free(struct profile_errors *errs);

/* Helpers for the sandbox modules. */
const char *ns_kind_name(enum ns_kind k);        /* "user", "mount", ... */
const char *limit_kind_name(enum limit_kind k);  /* "nofile", ... */
int limit_kind_resource(enum limit_kind k);      /* RLIMIT_NOFILE, ... */
const char *net_mode_name(enum net_mode m);
const char *fs_kind_name(enum fs_kind k);
/* "file:line", "default" or the option label, into buf. */
const char *origin_format(const struct origin *o, char *buf, size_t len);

#endif
