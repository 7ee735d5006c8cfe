/* Refusals an agent can act on (fix.h).
 *
 * The line is the smallest change that answers the refusal, never a
 * weaker sandbox than that: a deny rule is dropped one rule at a time
 * (`-deny = RULE`, sbx-profile(5) REMOVING INHERITED ENTRIES), a
 * destination is allowed by name and port, not `outbound = yes`. Safety
 * is about the host: a line is safe when what it lets through stays in the
 * sandbox (its own loopback, its own network namespace); a destination
 * outside is never called safe, since the command could then send what it
 * reads there. */
#include "config.h"

#include "fix.h"
#include "json_bytes.h"
#include "layers.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static bool loopback_address(const char *a)
{
    return !strncmp(a, "127.", 4) || !strncmp(a, "[::1]", 5) || !strcmp(a, "::1");
}

/* A host name or IPv4 address allow accepts: letters, digits, '-', '.'. */
static bool allowable_name(const char *s)
{
    if (!*s || strlen(s) > 253)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '.'))
            return false;
    return true;
}

static void allow_line(const char *host, unsigned port, struct fix *f)
{
    /* A name or address opens 80 and 443; another port is written. */
    if (port == 0 || port == 80 || port == 443)
        snprintf(f->line, sizeof f->line, "allow = %s", host);
    else
        snprintf(f->line, sizeof f->line, "allow = %s:%u", host, port);
    f->section = "network";
    f->safe = false;
    snprintf(f->why, sizeof f->why,
             "opens %s to the command, outside the sandbox: add it only if the command "
             "should reach it", host);
}

void fix_for_destination(const char *name, unsigned port, struct fix *f)
{
    memset(f, 0, sizeof *f);
    if (!allowable_name(name)) {
        snprintf(f->why, sizeof f->why,
                 "no allow entry names it (allow takes host names and IPv4 addresses)");
        return;
    }
    allow_line(name, port, f);
}

void fix_for_limit(const char *limit, const char *profile, unsigned long long value, struct fix *f)
{
    memset(f, 0, sizeof *f);
    profile = profile ? profile : "the profile";
    if (!limit || strcmp(limit, "EMFILE")) {
        snprintf(f->why, sizeof f->why,
                 "the system's file table is full (fs.file-max, ENFILE): no profile line raises it");
        return;
    }
    f->section = "limits";
    /* max: the most the caller's hard limit allows, never a silent clamp
     * (sbx-profile(5) LIMITS) */
    snprintf(f->line, sizeof f->line, "nofile = max");
    f->safe = true;
    if (value)
        snprintf(f->why, sizeof f->why,
                 "raises the descriptor limit %s sets (nofile = %llu) to the hard limit: the "
                 "descriptors are the command's own, nothing is opened to the outside",
                 profile, value);
    else
        snprintf(f->why, sizeof f->why,
                 "raises the descriptor limit to the hard limit: the descriptors are the "
                 "command's own, nothing is opened to the outside");
}

void fix_for_denial(const char *syscall, int family, const char *address, const char *rule,
                    bool no_route, const char *name, bool own_network, struct fix *f)
{
    memset(f, 0, sizeof *f);
    address = address ? address : "";
    if (no_route) {
        /* connect() past [network] allow's proxy: allow the destination
         * (the tool must then go through the proxy: HTTPS_PROXY). */
        char host[256] = "";
        unsigned port = 0;
        const char *colon = strrchr(address, ':');
        if (name && allowable_name(name)) {
            snprintf(host, sizeof host, "%s", name);
        } else if (colon && address[0] != '[' && (size_t)(colon - address) < sizeof host) {
            memcpy(host, address, (size_t)(colon - address));
            host[colon - address] = '\0';
        }
        if (colon)
            port = (unsigned)strtoul(colon + 1, NULL, 10);
        if (!host[0] || !allowable_name(host)) {
            snprintf(f->why, sizeof f->why,
                     "no allow entry names %s (allow takes host names and IPv4 addresses)",
                     address[0] ? address : "this destination");
            return;
        }
        allow_line(host, port, f);
        size_t n = strlen(f->why);
        snprintf(f->why + n, sizeof f->why - n, "; the tool must use the proxy (HTTPS_PROXY)");
        return;
    }
    if (!rule) {
        snprintf(f->why, sizeof f->why, "refused by a rule sbx made, not one of the profile's");
        return;
    }
    f->section = "security";
    snprintf(f->line, sizeof f->line, "-deny = %s", rule);
    bool local = family == AF_UNIX || loopback_address(address) || !strcmp(syscall, "bind") ||
                 !strcmp(syscall, "listen") || !strcmp(syscall, "accept") ||
                 !strcmp(syscall, "accept4");
    f->safe = own_network || local;
    if (own_network)
        snprintf(f->why, sizeof f->why,
                 "lets %s through; the sandbox has a network of its own with no way out, so it "
                 "reaches only the sandbox's loopback", syscall);
    else if (local)
        snprintf(f->why, sizeof f->why, "lets %s through for %s, which stays in the sandbox",
                 syscall, address[0] ? address : "a local socket");
    else
        snprintf(f->why, sizeof f->why,
                 "lets every %s the rule names through, and this sandbox reaches outside: check "
                 "where %s goes", syscall, address[0] ? address : "it");
}

static const char *below(const char *path, const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (!n || strncmp(path, dir, n) || (path[n] != '/' && path[n] != '\0'))
        return NULL;
    return path[n] == '/' ? path + n + 1 : path + n;
}

/* PATH as a profile names it: from ${PROJECT} or ${HOME} where below them. */
static void profile_path(const char *path, const char *home, const char *project, char *out,
                         size_t len)
{
    const char *rel;
    if ((rel = below(path, project)))
        snprintf(out, len, "${PROJECT}%s%s", *rel ? "/" : "", rel);
    else if ((rel = below(path, home)))
        snprintf(out, len, "${HOME}%s%s", *rel ? "/" : "", rel);
    else
        snprintf(out, len, "%s", path);
}

/* The first components of REL that are one tool's directory: ".npm",
 * ".config/git", ".local/share/foo". */
static size_t tool_dir_length(const char *rel)
{
    int want = !strncmp(rel, ".config/", 8) || !strncmp(rel, ".cache/", 7) ? 2
               : !strncmp(rel, ".local/", 7)                              ? 3
                                                                          : 1;
    size_t n = 0;
    for (int c = 0; c < want; c++) {
        const char *slash = strchr(rel + n, '/');
        if (!slash)
            return strlen(rel);
        n = (size_t)(slash - rel) + (c + 1 < want ? 1 : 0);
    }
    return n;
}

/* A path a profile line can hold, read back as the same path: printable
 * ASCII, and short enough for the line. The command names the path: a
 * newline in it would otherwise print a line of its own in the summary. */
static bool line_path(const char *s)
{
    if (!s || strlen(s) > 200)
        return false;
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e)
            return false;
    return true;
}

void fix_for_write(const char *path, const char *existing, int errnum, const char *home,
                   const char *project, const char *protected_path, const char *protected_why,
                   struct fix *f)
{
    memset(f, 0, sizeof *f);
    if (!line_path(path) || (existing && *existing && !line_path(existing)) ||
        (protected_path && !line_path(protected_path))) {
        snprintf(f->why, sizeof f->why,
                 "the path has bytes a profile line cannot hold (not printable ASCII, or over "
                 "200 bytes)");
        return;
    }
    char named[256];
    f->section = "filesystem";
    if (protected_path) {
        profile_path(protected_path, home, project, named, sizeof named);
        snprintf(f->line, sizeof f->line, "unprotect = %s", named);
        snprintf(f->why, sizeof f->why,
                 "a protected path (%s): writable, it holds what the command leaves there for the "
                 "host to read or run later", protected_why ? protected_why : "read by the host");
        return;
    }
    const char *rel_project = below(path, project), *rel_home = below(path, home);
    if (rel_project) {
        snprintf(f->line, sizeof f->line, "rw = ${PROJECT}");
        f->safe = true;
        snprintf(f->why, sizeof f->why, "the project's own files, writable as the command's work");
        return;
    }
    if (rel_home && *rel_home) {
        const char *dir, *runs;
        if (layers_host_runs(rel_home, &dir, &runs)) {
            snprintf(f->line, sizeof f->line, "cache = ${HOME}/%s", dir);
            f->safe = true;
            snprintf(f->why, sizeof f->why,
                     "the writes go to a private layer of this profile, not to the host's "
                     "(where %s)", runs);
            return;
        }
        size_t n = tool_dir_length(rel_home);
        snprintf(f->line, sizeof f->line, "rw = ${HOME}/%.*s", (int)n, rel_home);
        snprintf(f->why, sizeof f->why,
                 "makes ${HOME}/%.*s writable on the host: what the command leaves there is read "
                 "by the host's tools later%s", (int)n, rel_home,
                 existing && strlen(existing) < strlen(home) + 1 + n ? " (create it first: "
                                                                       "an rw path must exist)"
                                                                     : "");
        return;
    }
    const char *dir = existing && *existing ? existing : path;
    profile_path(dir, home, project, named, sizeof named);
    snprintf(f->line, sizeof f->line, "rw = %s", named);
    snprintf(f->why, sizeof f->why,
             "makes %.100s writable on the host%s: the host runs or reads what is there "
             "(install into the project or a prefix of its own instead)", named,
             errnum == EBUSY ? " (refused as a mount point: EBUSY)" : "");
}

void fix_format(const struct fix *f, char *buf, size_t len)
{
    if (!f->section)
        snprintf(buf, len, "no profile line: %s", f->why);
    else
        snprintf(buf, len, "[%s] %s   (%s: %s)", f->section, f->line, f->safe ? "safe" : "review",
                 f->why);
}

struct json_object *fix_to_json(const struct fix *f)
{
    if (!f->section)
        return NULL;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "section", json_object_new_string(f->section));
    json_object_object_add(o, "line", json_bytes_new(f->line, strlen(f->line)));
    json_object_object_add(o, "safe", json_object_new_boolean(f->safe));
    json_object_object_add(o, "why", json_bytes_new(f->why, strlen(f->why)));
    return o;
}
