/* The fix of a refusal: the profile line that would have let the refused
 * operation through, where it goes, and whether adding it is safe, for
 * the ledger's summary, the run record and `sbx explain` (an agent reads
 * the record; a person pastes the printed line). Pure. */
#ifndef SBX_FIX_H
#define SBX_FIX_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

struct fix {
    const char *section;   /* "security", "network", "filesystem"; NULL: no line can fix it */
    char line[320];        /* "-deny = bind:inet,inet6 EPERM", "allow = api.example.com" */
    bool safe;             /* the line lets nothing leave the sandbox */
    char why[400];         /* what the line opens, or why there is none */
};

/* A call a deny rule refused. RULE: the rule as written in the profile;
 * NULL for the connect rule sbx makes for [network] allow (NO_ROUTE; NAME
 * is then the name the DNS stub answered the address for, or NULL).
 * OWN_NETWORK: the sandbox has a network namespace of its own and no
 * outbound path (loopback or none, no pasta, no allow), so whatever the
 * call does stays inside. ADDRESS is as the ledger prints it. */
void fix_for_denial(const char *syscall, int family, const char *address, const char *rule,
                    bool no_route, const char *name, bool own_network, struct fix *f);

/* A destination [network] allow's proxy or DNS stub refused (egress.c):
 * NAME (a host name or an IPv4 address) and PORT (0: unknown). */
void fix_for_destination(const char *name, unsigned port, struct fix *f);

/* A write the kernel refused (EROFS: a read-only mount; EBUSY: a rename
 * or unlink onto a protected file's bind mount), at PATH as the command
 * named it (absolute, inside the sandbox, where the host's paths keep
 * their names). EXISTING: the deepest directory holding PATH that exists
 * on the host (what an rw rule can name). HOME, PROJECT: the caller's
 * $HOME and the project (either NULL). PROTECTED, WHY: the protected path
 * (protect.h) PATH is, or is below, and who reads it later; NULL when
 * none. The line names the path from ${HOME} or ${PROJECT} where it is
 * below them; a cache rule where the host runs code from the directory
 * (layers.h); never safe for a protected path. */
void fix_for_write(const char *path, const char *existing, int errnum, const char *home,
                   const char *project, const char *protected_path, const char *protected_why,
                   struct fix *f);

/* A test that failed at a descriptor limit (sbx audit's fails-at-limit:
 * it passes alone, and the run's output shows LIMIT, "EMFILE" or
 * "ENFILE"). PROFILE: the profile whose limit it was; VALUE: its nofile
 * (0: not set there). EMFILE is the process's RLIMIT_NOFILE, which
 * [limits] nofile raises; ENFILE is the system's file table, which no
 * profile line raises. sbx run cannot see either: seccomp shows a call,
 * never its result, and sbx does not read the command's output. */
void fix_for_limit(const char *limit, const char *profile, unsigned long long value, struct fix *f);

/* "[security] -deny = bind:inet,inet6 EPERM   (safe: ...)" */
void fix_format(const struct fix *f, char *buf, size_t len);

/* {"section", "line", "safe", "why"}; null when f has no line. */
struct json_object *fix_to_json(const struct fix *f);

#endif
