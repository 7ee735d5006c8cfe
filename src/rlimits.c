#include "config.h"

#include "rlimits.h"

#include "caps.h"

#include "log.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

rlim_t limits_nr_open(void)
{
    char *text = read_file_text("/proc/sys/fs/nr_open", 64, NULL);
    if (!text)
        return 0;
    uint64_t v = 0;
    text[strcspn(text, "\n")] = '\0';
    bool good = parse_u64(text, &v);
    free(text);
    return good ? (rlim_t)v : 0;
}

/* Raising a hard limit takes CAP_SYS_RESOURCE, not uid 0: container
 * runtimes commonly run root without it. */
static bool can_raise_hard_limits(void)
{
    return capability_in_effective_set(CAP_SYS_RESOURCE);
}

static const char *rlim_text(rlim_t v, char *buf, size_t len)
{
    if (v == RLIM_INFINITY)
        snprintf(buf, len, "unlimited");
    else
        snprintf(buf, len, "%" PRIu64, (uint64_t)v);
    return buf;
}

/* Whether this process is in the initial user namespace, whose
 * capabilities alone raise hard limits: its uid_map maps every id. */
static bool in_initial_userns(void)
{
    char *map = read_file_text("/proc/self/uid_map", 256, NULL);
    unsigned long inside = 1, outside = 1, count = 0;
    bool initial = !map || (sscanf(map, "%lu %lu %lu", &inside, &outside, &count) == 3 &&
                            inside == 0 && outside == 0 && count == 4294967295UL);
    free(map);
    return initial;
}

/* How a user raises a hard limit; nofile is the one people hit. */
static const char *raise_hint(enum limit_kind k)
{
    if (geteuid() == 0 && !in_initial_userns())
        return "this root is root of a user namespace (inside another sandbox or a rootless "
               "container), whose CAP_SYS_RESOURCE cannot raise a hard limit: raise it where "
               "the outer sandbox is started (ulimit -Hn, systemd LimitNOFILE=)";
    if (geteuid() == 0)
        return k == LIMIT_NOFILE
                   ? "this root lacks CAP_SYS_RESOURCE (a container?): raise the hard limit "
                     "where sbx is started (docker run --ulimit nofile=N:N, systemd "
                     "LimitNOFILE=, /etc/security/limits.conf)"
                   : "this root lacks CAP_SYS_RESOURCE (a container?): raise the hard limit "
                     "where sbx is started (docker run --ulimit, systemd Limit*=)";
    return k == LIMIT_NOFILE
               ? "run sbx as root, or raise the hard limit first (`ulimit -Hn` as root, "
                 "/etc/security/limits.conf `nofile`, systemd LimitNOFILE=)"
               : "run sbx as root, or raise the hard limit first (ulimit -H as root, "
                 "/etc/security/limits.conf, systemd Limit*=)";
}

/* The hard limit can only go up with CAP_SYS_RESOURCE (root outside any
 * user namespace), and RLIMIT_NOFILE never above fs.nr_open. Returns 0,
 * or EPERM when the kernel refused and `may_refuse` (nofile = max: what
 * can be had is the hard limit); any other failure dies. */
static int raise_hard(enum limit_kind k, struct rlimit *cur, rlim_t need, bool may_refuse)
{
    const char *name = limit_kind_name(k);
    int res = limit_kind_resource(k);
    char want_s[32], hard_s[32];
    rlim_text(need, want_s, sizeof want_s);
    rlim_text(cur->rlim_max, hard_s, sizeof hard_s);

    if (k == LIMIT_NOFILE) {
        rlim_t nr_open = limits_nr_open();
        if (nr_open && need > nr_open)
            die("limit nofile = %s is above fs.nr_open = %" PRIu64
                " (the kernel's ceiling for open files; the hard limit is %s): "
                "raise it with `sysctl -w fs.nr_open=%s` as root, or ask for less",
                want_s, (uint64_t)nr_open, hard_s, want_s);
    }
    struct rlimit raised = { .rlim_cur = cur->rlim_cur, .rlim_max = need };
    if (setrlimit(res, &raised) < 0) {
        int e = errno;
        if (e == EPERM && may_refuse)
            return e;
        if (e == EPERM)
            die("limit %s = %s is above the hard limit %s, which only root with "
                "CAP_SYS_RESOURCE can raise: %s",
                name, want_s, hard_s, raise_hint(k));
        die_with_errno(e, "cannot raise the hard limit of %s from %s to %s", name, hard_s,
                       want_s);
    }
    verbose_step("raised the hard limit of %s from %s to %s", name, hard_s, want_s);
    cur->rlim_max = need;
    return 0;
}

/* "max" is what a profile asks for when its commands open many files
 * (qa: test suites that hold thousands of sockets and files). Under a hard
 * limit of 1024 or 512, common in containers and CI runners, "max" is that
 * low number and a 5000-file test dies with EMFILE far from any hint: say
 * so once, up front. 8192 is the smallest "max" that the suites
 * needed; it is a warning, not an error, since the profile asked for what
 * there is. */
#define NOFILE_MAX_WANTED 8192

static void warn_low_nofile_max(rlim_t got, bool root)
{
    if (got == RLIM_INFINITY || got >= NOFILE_MAX_WANTED)
        return;
    if (root)
        /* only fs.nr_open can hold root with CAP_SYS_RESOURCE down */
        warn("warning: nofile = max is only %" PRIu64 " here (fs.nr_open); commands that "
             "open more than that many files fail with EMFILE: raise it with "
             "`sysctl -w fs.nr_open=%d` as root",
             (uint64_t)got, NOFILE_MAX_WANTED * 128);
    else
        warn("warning: nofile = max is only %" PRIu64 " here (the hard limit, `ulimit -Hn`); "
             "commands that open more than that many files fail with EMFILE: %s",
             (uint64_t)got, raise_hint(LIMIT_NOFILE));
}

void limits_prepare(const struct profile *p, struct limits_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    bool root = can_raise_hard_limits();
    for (int k = 0; k < LIMIT_COUNT; k++) {
        const struct limit_setting *s = &p->limits[k];
        if (!s->set)
            continue;
        int res = limit_kind_resource((enum limit_kind)k);
        struct rlimit cur;
        if (getrlimit(res, &cur) < 0)
            die_errno("getrlimit(%s)", limit_kind_name((enum limit_kind)k));

        rlim_t want;
        bool most_here = false; /* nofile = max: the kernel's ceiling if it can be had */
        bool raised_ok = root;
        if (s->unlimited) {
            want = RLIM_INFINITY;
        } else if (s->max) {
            want = cur.rlim_max;
            /* sbx-profile(5) [limits]: as root, "max" for nofile means as high as the kernel
             * allows, not the hard limit root happened to inherit. Root
             * without CAP_SYS_RESOURCE gets the hard limit, as anyone. */
            if (k == LIMIT_NOFILE && root) {
                rlim_t nr_open = limits_nr_open();
                if (nr_open > want || want == RLIM_INFINITY) {
                    most_here = nr_open && nr_open != want;
                    want = nr_open ? nr_open : want;
                }
            }
        } else {
            if (s->value >= (uint64_t)RLIM_INFINITY)
                die("limit %s = %" PRIu64 " is out of range", limit_kind_name((enum limit_kind)k),
                    s->value);
            want = (rlim_t)s->value;
        }

        if (want > cur.rlim_max) {
            if (!root) {
                char want_s[32], hard_s[32];
                die("limit %s = %s is above the hard limit %s: %s",
                    limit_kind_name((enum limit_kind)k), rlim_text(want, want_s, sizeof want_s),
                    rlim_text(cur.rlim_max, hard_s, sizeof hard_s),
                    raise_hint((enum limit_kind)k));
            }
            /* CAP_SYS_RESOURCE in a user namespace (root inside another
             * sandbox: srt, bwrap) is not the initial namespace's: the
             * kernel refuses, and "max" is then the hard limit, the most
             * there is here. Said in -v and the record, not silently. */
            if (raise_hard((enum limit_kind)k, &cur, want, most_here) != 0) {
                char want_s[32], hard_s[32];
                rlim_text(want, want_s, sizeof want_s);
                rlim_text(cur.rlim_max, hard_s, sizeof hard_s);
                verbose("limit nofile = max: %s, the hard limit: the kernel refused to raise it "
                        "to fs.nr_open = %s (CAP_SYS_RESOURCE of the initial user namespace, "
                        "which this root lacks: inside another sandbox or a container?)",
                        hard_s, want_s);
                record_step("limit nofile = max is the hard limit %s: raising it to fs.nr_open = "
                            "%s was refused (EPERM)", hard_s, want_s);
                want = cur.rlim_max;
                raised_ok = false; /* for the warning's hint: the hard limit holds us */
            }
        }
        if (s->max && k == LIMIT_NOFILE)
            warn_low_nofile_max(want, raised_ok);
        /* A number is a limit in both senses, as `ulimit -n N` makes it:
         * the command cannot raise it back. "max" keeps the hard limit. */
        plan->target[k].set = true;
        plan->target[k].want.rlim_cur = want;
        plan->target[k].want.rlim_max = s->max ? cur.rlim_max : want;
        char soft_s[32], hard_s[32];
        verbose("limit %s: soft %s, hard %s", limit_kind_name((enum limit_kind)k),
                rlim_text(plan->target[k].want.rlim_cur, soft_s, sizeof soft_s),
                rlim_text(plan->target[k].want.rlim_max, hard_s, sizeof hard_s));
    }
}

void limits_apply(const struct limits_plan *plan, struct limits_applied *applied)
{
    memset(applied, 0, sizeof *applied);
    for (int k = 0; k < LIMIT_COUNT; k++) {
        const struct limit_target *t = &plan->target[k];
        if (!t->set)
            continue;
        int resource = limit_kind_resource((enum limit_kind)k);
        if (setrlimit(resource, &t->want) < 0) {
            char cur_s[32], max_s[32];
            die_errno("setrlimit(%s, soft %s, hard %s)", limit_kind_name((enum limit_kind)k),
                      rlim_text(t->want.rlim_cur, cur_s, sizeof cur_s),
                      rlim_text(t->want.rlim_max, max_s, sizeof max_s));
        }
        if (getrlimit(resource, &applied->limit[k].now) < 0)
            die_errno("getrlimit(%s)", limit_kind_name((enum limit_kind)k));
        applied->limit[k].set = true;
    }
}
