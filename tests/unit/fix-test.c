/* fix.c: the profile line that answers a refusal, and whether it is safe. */
#include "config.h"

#include "fix.h"

#include <errno.h>

#include "../tap.h"

#include <string.h>
#include <sys/socket.h>

int main(void)
{
    struct fix f;
    char buf[800];

    fix_for_denial("bind", AF_INET, "127.0.0.1:0", "bind:inet,inet6 EPERM", false, NULL, true, &f);
    is_str(f.section, "security", "a deny rule's fix goes in [security]");
    is_str(f.line, "-deny = bind:inet,inet6 EPERM", "and drops that rule, written as it was");
    ok(f.safe, "safe: the sandbox's own network");
    fix_format(&f, buf, sizeof buf);
    like_str(buf, "[security] -deny = bind:inet,inet6 EPERM   (safe: ", "one line to paste");

    fix_for_denial("connect", AF_INET, "198.51.100.7:443", "connect:inet EPERM", false, NULL, false, &f);
    ok(!f.safe, "connect to an outside address with a way out: review, not safe");
    fix_for_denial("connect", AF_INET, "127.0.0.1:8080", "connect:inet EPERM", false, NULL, false, &f);
    ok(f.safe, "connect to loopback: safe even with a way out");

    fix_for_denial("connect", AF_INET, "198.51.100.7:443", NULL, true, "api.example.com", true, &f);
    is_str(f.section, "network", "a no-route connect under [network] allow: [network]");
    is_str(f.line, "allow = api.example.com", "allow the name the DNS stub gave the address for");
    ok(!f.safe, "a destination outside is never called safe");
    fix_for_denial("connect", AF_INET, "198.51.100.7:8443", NULL, true, NULL, true, &f);
    is_str(f.line, "allow = 198.51.100.7:8443", "no name: the address, with a port other than 80/443");
    fix_for_denial("connect", AF_INET6, "[2001:db8::1]:443", NULL, true, NULL, true, &f);
    ok(f.section == NULL, "IPv6: allow takes none, so no line");
    ok(fix_to_json(&f) == NULL, "and the record's fix is null");
    fix_for_denial("connect", AF_INET, "198.51.100.7:443", NULL, true, "x.example\n[filesystem]", true, &f);
    is_str(f.line, "allow = 198.51.100.7", "a name with a newline (the command's) is not printed as a line");

    fix_for_destination("api.example.com", 443, &f);
    is_str(f.line, "allow = api.example.com", "a destination the proxy refused: allow it");
    fix_for_destination("pkg.example", 8080, &f);
    is_str(f.line, "allow = pkg.example:8080", "with its port when not 80 or 443");
    fix_for_destination("evil\nrw = /", 443, &f);
    ok(f.section == NULL, "a name that is not a host name gets no line");
    /* A descriptor limit (sbx audit's fails-at-limit) */
    fix_for_limit("EMFILE", "tight", 32, &f);
    ok(f.section && !strcmp(f.section, "limits") && !strcmp(f.line, "nofile = max") && f.safe,
       "EMFILE: [limits] nofile = max, safe");
    ok(strstr(f.why, "tight sets (nofile = 32)") != NULL, "  naming the profile and its value");
    fix_for_limit("ENFILE", "tight", 32, &f);
    ok(f.section == NULL && strstr(f.why, "fs.file-max"), "ENFILE: no profile line raises the system's table");
    fix_for_limit(NULL, NULL, 0, &f);
    ok(f.section == NULL, "no limit named: no line");
    /* Refused writes (sbx(1) REFUSED WRITES) */
    fix_for_write("/usr/lib/node_modules/x", "/usr/lib/node_modules", EROFS, "/home/u", "/home/u/p",
                  NULL, NULL, &f);
    is_str(f.section, "filesystem", "a refused write's fix goes in [filesystem]");
    is_str(f.line, "rw = /usr/lib/node_modules", "rw of the directory that exists");
    ok(!f.safe, "a system path: review");
    fix_for_write("/home/u/.npm/_cacache/x", "/home/u/.npm/_cacache", EROFS, "/home/u", "/home/u/p",
                  NULL, NULL, &f);
    is_str(f.line, "cache = ${HOME}/.npm", "below HOME where the host runs code: a cache line from ${HOME}");
    ok(f.safe, "a private layer: safe");
    fix_for_write("/home/u/.config/tool/x.conf", "/home/u/.config/tool", EROFS, "/home/u", NULL,
                  NULL, NULL, &f);
    is_str(f.line, "cache = ${HOME}/.config", ".config is a directory the host reads configuration from");
    fix_for_write("/home/u/.tool/state", "/home/u/.tool", EROFS, "/home/u", NULL, NULL, NULL, &f);
    is_str(f.line, "rw = ${HOME}/.tool", "another tool's directory below HOME: rw of it");
    ok(!f.safe, "review: the host reads it later");
    fix_for_write("/home/u/.tool", "/home/u", EROFS, "/home/u", NULL, NULL, NULL, &f);
    like_str(f.why, "create it first", "a missing directory: say to create it first");
    fix_for_write("/home/u/p/.git/config", "/home/u/p/.git", EBUSY, "/home/u", "/home/u/p",
                  "/home/u/p/.git/config", "git configuration", &f);
    is_str(f.line, "unprotect = ${PROJECT}/.git/config", "a protected file: unprotect, from ${PROJECT}");
    ok(!f.safe, "a protected path is never safe");
    like_str(f.why, "git configuration", "and says who reads it");
    fix_for_write("/home/u/p/build/x", "/home/u/p/build", EROFS, "/home/u", "/home/u/p", NULL, NULL, &f);
    is_str(f.line, "rw = ${PROJECT}", "the project: rw = ${PROJECT}");
    fix_for_write("/srv/x\nsbx: fix: [filesystem] rw = /", "/srv", EROFS, NULL, NULL, NULL, NULL, &f);
    ok(f.section == NULL, "a path with a newline (the command's bytes) gets no line");
    fix_for_write("/srv/y", "/srv/a\x01b", EROFS, NULL, NULL, NULL, NULL, &f);
    ok(f.section == NULL, "nor a directory with a control byte");
    fix_for_denial("ptrace", -1, "", NULL, false, NULL, true, &f);
    ok(f.section == NULL, "a rule sbx made (not the profile's) has no line");
    return done_testing();
}
