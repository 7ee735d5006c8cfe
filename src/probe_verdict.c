/* `sbx probe`'s verdicts: pure functions of the checks' results (no
 * system call here), so that every sentence a verdict can say is
 * unit-tested on results built by hand (tests/unit/probe-test.c). */
#include "config.h"

#include "probe_verdict.h"

#include "util.h"

#include <errno.h>
#include <string.h>

const char *probe_status_name(enum probe_status s)
{
    switch (s) {
    case PROBE_OK: return "ok";
    case PROBE_DENIED: return "denied";
    case PROBE_UNAVAILABLE: return "unavailable";
    case PROBE_LOW: return "low";
    case PROBE_INFO: return "info";
    case PROBE_EXPOSED: return "exposed";
    }
    return "?";
}

bool probe_check_passed(const struct probe_check *c)
{
    switch (c->status) {
    case PROBE_OK:
    case PROBE_INFO:
        return true;
    case PROBE_DENIED:
    case PROBE_LOW:
    case PROBE_EXPOSED:
        return false;
    case PROBE_UNAVAILABLE:
        return !c->required;
    }
    return false;
}

/* EPERM and EACCES are what seccomp filters and LSMs return; every other
 * errno means the thing is not there (no IPv6, lo down, no Landlock). */
enum probe_status probe_status_for_errno(int errnum)
{
    return errnum == EPERM || errnum == EACCES ? PROBE_DENIED : PROBE_UNAVAILABLE;
}

static char *describe_failure(const struct probe_check *c)
{
    if (c->errnum)
        return xasprintf("%s %s (%s)", c->name, probe_status_name(c->status),
                         errno_name(c->errnum) ? errno_name(c->errnum) : "?");
    return xasprintf("%s %s", c->name, probe_status_name(c->status));
}

static void verdict_network(struct probe_results *r)
{
    static const enum probe_check_id needed[] = {
        CHECK_LO4_BIND, CHECK_LO4_CONNECT, CHECK_UNIX_BIND, CHECK_UNIX_CONNECT,
        CHECK_LO6_BIND, CHECK_LO6_CONNECT,
    };
    char *why = NULL;
    bool denied = false;
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++) {
        const struct probe_check *c = &r->checks[needed[i]];
        if (probe_check_passed(c) && c->status != PROBE_DENIED)
            continue;
        denied |= c->status == PROBE_DENIED;
        char *d = describe_failure(c);
        char *n = xasprintf("%s%s%s", why ? why : "", why ? ", " : "", d);
        free(d);
        free(why);
        why = n;
    }
    if (why) {
        r->network.ok = false;
        r->network.reason = xasprintf(
            "network tests CANNOT be validated here: %s%s", why,
            denied ? "; a test that skips or passes on EPERM here proves nothing" : "");
        free(why);
        return;
    }
    r->network.ok = true;
    if (r->checks[CHECK_LO6_CONNECT].status == PROBE_OK)
        r->network.reason = xstrdup("network tests can be validated here: bind, connect and a "
                                    "byte through 127.0.0.1, ::1 and AF_UNIX");
    else
        r->network.reason = xstrdup("network tests can be validated here over 127.0.0.1 and "
                                    "AF_UNIX; ::1 is unavailable (no IPv6), so tests that need "
                                    "IPv6 cannot");
}

static void verdict_descriptors(struct probe_results *r)
{
    const struct probe_check *soft = &r->checks[CHECK_NOFILE_SOFT];
    const struct probe_check *hard = &r->checks[CHECK_NOFILE_HARD];
    if (soft->status == PROBE_OK) {
        r->descriptors.ok = true;
        r->descriptors.reason = soft->has_number
            ? xasprintf("an async runtime gets enough descriptors: RLIMIT_NOFILE soft limit %lld >= %d",
                        soft->number, PROBE_NOFILE_ENOUGH)
            : xstrdup("an async runtime gets enough descriptors: RLIMIT_NOFILE is unlimited");
        return;
    }
    r->descriptors.ok = false;
    if (!soft->has_number)
        r->descriptors.reason = xasprintf("RLIMIT_NOFILE could not be read: %s",
                                          soft->detail ? soft->detail : "?");
    else if (hard->status == PROBE_OK)
        r->descriptors.reason = xasprintf(
            "an async runtime may NOT get enough descriptors: soft limit %lld < %d "
            "(hard limit %s%lld: sbx run --nofile max, or ulimit -n, raises it)",
            soft->number, PROBE_NOFILE_ENOUGH, hard->has_number ? "" : "unlimited ",
            hard->has_number ? hard->number : 0LL);
    else
        r->descriptors.reason = xasprintf(
            "an async runtime will NOT get enough descriptors: soft limit %lld, hard limit "
            "%lld < %d (only root can raise the hard limit, up to fs.nr_open)",
            soft->number, hard->has_number ? hard->number : 0LL, PROBE_NOFILE_ENOUGH);
}

/* sbx(1) TIERS: the namespaces where they work; else, under fallback =
 * landlock, the Landlock tier where the kernel has Landlock. */
static void verdict_sandbox(struct probe_results *r)
{
    const struct probe_check *landlock = &r->checks[CHECK_LANDLOCK];
    bool have_landlock = landlock->status == PROBE_OK && landlock->has_number && landlock->number > 0;
    for (int i = CHECK_USER_NS; i <= CHECK_MOUNT_NS; i++) {
        const struct probe_check *c = &r->checks[i];
        if (c->status != PROBE_OK) {
            r->sandbox.ok = false;
            r->tier = have_landlock ? "landlock" : "none";
            char *fallback = have_landlock
                ? xasprintf("tier: landlock with --fallback landlock or [sandbox] fallback = "
                            "landlock (Landlock ABI %lld; sbx(1) TIERS), else none",
                            landlock->number)
                : xstrdup("tier: none, and no Landlock for --fallback landlock either");
            const char *inside = r->checks[CHECK_INSIDE_SBX].text;
            if (inside)
                /* `sbx probe --profile P` runs in P: the rows above are
                 * what P gives a command; this row is about nesting. */
                r->sandbox.reason = xasprintf(
                    "inside sbx's %s sandbox, which works: the rows above are what %s gives a "
                    "command here; what it cannot do is start a sandbox of its own (sbx, "
                    "bubblewrap, a browser's sandbox, nested in it): %s: %s",
                    inside, inside, c->name,
                    c->detail ? c->detail : probe_status_name(c->status));
            else
                r->sandbox.reason = xasprintf("sbx cannot create its sandbox here: %s: %s (%s)",
                                              c->name, c->detail ? c->detail
                                                                 : probe_status_name(c->status),
                                              fallback);
            free(fallback);
            return;
        }
    }
    /* Only profiles with proc = yes (the default) need it. */
    const struct probe_check *proc = &r->checks[CHECK_PROC_MOUNT];
    if (proc->status != PROBE_OK) {
        r->sandbox.ok = false;
        r->sandbox.reason = xasprintf("sbx cannot give its sandbox a fresh /proc here (profiles "
                                      "with proc = no still run): %s: %s", proc->name,
                                      proc->detail ? proc->detail : probe_status_name(proc->status));
        return;
    }
    r->sandbox.ok = true;
    r->tier = "namespaces";
    r->sandbox.reason = xstrdup("sbx can create its sandbox here: user, net and mount namespaces "
                                "and a fresh /proc work (tier: namespaces)");
}

void probe_verdicts(struct probe_results *r)
{
    free(r->network.reason);
    free(r->descriptors.reason);
    free(r->sandbox.reason);
    verdict_network(r);
    verdict_descriptors(r);
    verdict_sandbox(r);
}
