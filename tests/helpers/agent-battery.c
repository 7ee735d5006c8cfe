/* agent-battery: what a command observes of the sandbox it runs in, one
 * stable "key: value" line per behaviour, so that the output under Codex
 * CLI's or Claude Code's sandbox can be diffed with the output under an
 * sbx profile (tests/integration/agents-battery.sh).
 *
 * Values are reduced to what two sandboxes on one machine can share: the
 * outcome of a call ("ok" or the errno's name), a state, a class. Never a
 * port number, a pid or a count that moves from run to run. Each probe
 * runs on its own and cleans up after itself; the order of lines is
 * fixed.
 *
 * Writes go to a file the battery creates and removes at once; the
 * sibling of the working directory is ../<basename of cwd>.battery-sibling.
 * ~/.ssh is read through $HOME. $SBX_BATTERY_TMP_MARKER names a file the
 * caller made in its /tmp. Every descriptor the probes open is
 * closed again, so RLIMIT_NOFILE is never what makes a later probe fail. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *errname(int e)
{
    const char *n = strerrorname_np(e);
    return n ? n : "E?";
}

static void row(const char *key, const char *value)
{
    printf("%s: %s\n", key, value);
}

/* "ok" when rc >= 0, else the errno's name. */
static void row_rc(const char *key, long rc, int err)
{
    row(key, rc >= 0 ? "ok" : errname(err));
}

/* The row of one call: errno read after the call (in row_rc(k, call(),
 * errno) the order of the arguments' evaluation is unspecified, and GCC
 * reads errno first). */
#define ROW_CALL(key, call)                                                                        \
    do {                                                                                           \
        long rc_ = (call);                                                                         \
        int errno_ = errno;                                                                        \
        row_rc((key), rc_, errno_);                                                                \
    } while (0)

/* ------------------------------------------------------------------ */
/* Sockets                                                              */

static socklen_t loopback(int family, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        return sizeof *a;
    }
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_loopback;
    return sizeof *a;
}

/* socket, bind to loopback port 0, listen, connect to that listener, and
 * a UDP datagram to a socket of our own: each step's outcome, the later
 * ones "skipped" when an earlier one failed (which is itself the row that
 * differs). */
static void probe_inet(int family, const char *name, const char *lo_text)
{
    char key[96];
    struct sockaddr_storage ss;
    socklen_t len = loopback(family, &ss);

    int s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    snprintf(key, sizeof key, "%s tcp socket", name);
    row_rc(key, s, errno);

    int rc = s < 0 ? -1 : bind(s, (struct sockaddr *)&ss, len);
    int e = errno;
    snprintf(key, sizeof key, "%s tcp bind %s:0", name, lo_text);
    row(key, s < 0 ? "skipped" : rc == 0 ? "ok" : errname(e));

    int lrc = s < 0 || rc < 0 ? -1 : listen(s, 4);
    e = errno;
    snprintf(key, sizeof key, "%s tcp listen", name);
    row(key, s < 0 || rc < 0 ? "skipped" : lrc == 0 ? "ok" : errname(e));

    snprintf(key, sizeof key, "%s tcp connect own listener", name);
    if (s >= 0 && rc == 0 && lrc == 0) {
        struct sockaddr_storage bound;
        socklen_t blen = sizeof bound;
        getsockname(s, (struct sockaddr *)&bound, &blen);
        int c = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int crc = c < 0 ? -1 : connect(c, (struct sockaddr *)&bound, blen);
        row_rc(key, crc, errno);
        if (c >= 0)
            close(c);
    } else {
        row(key, "skipped");
    }
    if (s >= 0)
        close(s);

    /* connect() to a loopback port that is bound but not listening (the
     * port of a second socket, bound and kept): ECONNREFUSED from a
     * working stack, something else from a sandbox that intercepts the
     * call. */
    snprintf(key, sizeof key, "%s tcp connect bound port, no listener", name);
    int b = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    len = loopback(family, &ss);
    if (b >= 0 && bind(b, (struct sockaddr *)&ss, len) == 0) {
        struct sockaddr_storage bound;
        socklen_t blen = sizeof bound;
        getsockname(b, (struct sockaddr *)&bound, &blen);
        int c = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ROW_CALL(key, c < 0 ? -1 : connect(c, (struct sockaddr *)&bound, blen));
        if (c >= 0)
            close(c);
    } else {
        row(key, "skipped");
    }
    if (b >= 0)
        close(b);

    len = loopback(family, &ss);
    int u = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    snprintf(key, sizeof key, "%s udp socket", name);
    row_rc(key, u, errno);
    snprintf(key, sizeof key, "%s udp bind %s:0", name, lo_text);
    rc = u < 0 ? -1 : bind(u, (struct sockaddr *)&ss, len);
    e = errno;
    row(key, u < 0 ? "skipped" : rc == 0 ? "ok" : errname(e));
    snprintf(key, sizeof key, "%s udp sendto own socket", name);
    if (u >= 0 && rc == 0) {
        struct sockaddr_storage bound;
        socklen_t blen = sizeof bound;
        getsockname(u, (struct sockaddr *)&bound, &blen);
        ssize_t n = sendto(u, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&bound, blen);
        e = errno;
        char buf[4];
        if (n == 1) {
            /* the datagram arrived, not only left */
            struct timeval tv = {.tv_sec = 1};
            setsockopt(u, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            n = recv(u, buf, sizeof buf, 0);
            e = errno;
            row(key, n == 1 ? "ok" : n < 0 ? errname(e) : "short");
        } else {
            row(key, errname(e));
        }
    } else {
        row(key, "skipped");
    }
    if (u >= 0)
        close(u);
}

/* A non-blocking connect to an address outside the machine (TEST-NET-1,
 * RFC 5737, never answered): EINPROGRESS where a route exists,
 * ENETUNREACH in a namespace without one, EPERM/EACCES where a filter
 * refuses. No packet needs an answer, so this never waits. */
static void probe_outside(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9)};
    inet_pton(AF_INET, "192.0.2.1", &a.sin_addr);
    int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0) {
        row("inet tcp connect 192.0.2.1 (outside)", "skipped");
    } else {
        ROW_CALL("inet tcp connect 192.0.2.1 (outside)", connect(s, (struct sockaddr *)&a, sizeof a));
        close(s);
    }
    s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        row("inet udp sendto 192.0.2.1 (outside)", "skipped");
    } else {
        ROW_CALL("inet udp sendto 192.0.2.1 (outside)",
                 sendto(s, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&a, sizeof a));
        close(s);
    }
}

static void probe_unix(void)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    row_rc("unix stream socket", s, errno);
    if (s >= 0) {
        /* Abstract names are per network namespace: a pid-derived name
         * cannot collide with another battery's. */
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "sbx-battery-%d", (int)getpid());
        socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
        int rc = bind(s, (struct sockaddr *)&a, len);
        row_rc("unix stream bind abstract", rc, errno);
        if (rc == 0 && listen(s, 4) < 0) {
            row("unix stream connect abstract", errname(errno));
        } else if (rc == 0) {
            int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            ROW_CALL("unix stream connect abstract", c < 0 ? -1 : connect(c, (struct sockaddr *)&a, len));
            if (c >= 0)
                close(c);
        } else {
            row("unix stream connect abstract", "skipped");
        }
        close(s);
    } else {
        row("unix stream bind abstract", "skipped");
        row("unix stream connect abstract", "skipped");
    }

    /* connect() alone, to an abstract name nobody bound: ECONNREFUSED
     * from the kernel, EPERM from a filter on connect */
    s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s >= 0) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "sbx-battery-absent-%d", (int)getpid());
        socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
        ROW_CALL("unix stream connect absent abstract name", connect(s, (struct sockaddr *)&a, len));
        close(s);
    } else {
        row("unix stream connect absent abstract name", "skipped");
    }

    /* a socket file in the working directory */
    s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s >= 0) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, ".battery-%d.sock", (int)getpid());
        int rc = bind(s, (struct sockaddr *)&a, sizeof a);
        row_rc("unix stream bind path in cwd", rc, errno);
        if (rc == 0)
            unlink(a.sun_path);
        close(s);
    } else {
        row("unix stream bind path in cwd", "skipped");
    }

    s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    row_rc("unix dgram socket", s, errno);
    if (s >= 0)
        close(s);
    int sv[2];
    int rc = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
    row_rc("unix socketpair", rc, errno);
    if (rc == 0) {
        close(sv[0]);
        close(sv[1]);
    }
}

/* A netlink socket, and whether a route dump through it answers. */
static void probe_netlink(void)
{
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    row_rc("netlink route socket", s, errno);
    if (s < 0) {
        row("netlink route dump links", "skipped");
        return;
    }
    struct {
        struct nlmsghdr h;
        struct rtgenmsg g;
    } req = {
        .h = {.nlmsg_len = sizeof req, .nlmsg_type = RTM_GETLINK,
              .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1},
        .g = {.rtgen_family = AF_UNSPEC},
    };
    struct timeval tv = {.tv_sec = 2};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(s, &req, sizeof req, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
        row("netlink route dump links", errname(errno));
    } else {
        char buf[16384];
        ssize_t n = recv(s, buf, sizeof buf, 0);
        row("netlink route dump links", n > 0 ? "ok" : n == 0 ? "empty" : errname(errno));
    }
    close(s);
}

static void probe_packet(void)
{
    /* protocol 0: the socket receives nothing, so holding it is harmless */
    int s = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    row_rc("packet raw socket", s, errno);
    if (s >= 0)
        close(s);
    s = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
    row_rc("inet raw icmp socket", s, errno);
    if (s >= 0)
        close(s);
}

/* ------------------------------------------------------------------ */
/* Network state                                                        */

/* Any socket will do for SIOCGIF*: the request goes to the device layer
 * whatever the family; a sandbox that refuses one family may allow
 * another. */
static int any_socket(void)
{
    static const int families[] = {AF_INET, AF_UNIX, AF_NETLINK, AF_INET6};
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        int s = socket(families[i], (families[i] == AF_NETLINK ? SOCK_RAW : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
        if (s >= 0)
            return s;
    }
    return -1;
}

static void probe_interfaces(void)
{
    int s = any_socket();
    struct ifreq ifr = {0};
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    if (s < 0)
        row("lo", "no socket to ask");
    else if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
        row("lo", errno == ENODEV ? "absent" : errname(errno));
    else
        row("lo", ifr.ifr_flags & IFF_UP ? "up" : "down");

    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    ifr.ifr_addr.sa_family = AF_INET;
    if (s < 0) {
        row("lo ipv4 address", "no socket to ask");
    } else if (ioctl(s, SIOCGIFADDR, &ifr) < 0) {
        row("lo ipv4 address", errno == EADDRNOTAVAIL ? "none" : errname(errno));
    } else {
        char text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr, text, sizeof text);
        row("lo ipv4 address", text);
    }
    if (s >= 0)
        close(s);

    /* /proc/net is the reader's network namespace (/proc/self/net) */
    char line[512];
    FILE *f = fopen("/proc/net/if_inet6", "re");
    int v6lo = 0;
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strstr(line, " lo\n") && !strncmp(line, "00000000000000000000000000000001", 32))
                v6lo = 1;
        fclose(f);
        row("lo ipv6 address", v6lo ? "::1" : "none");
    } else {
        row("lo ipv6 address", errno == ENOENT ? "no ipv6" : errname(errno));
    }

    /* How many interfaces besides lo: a sandbox on the host's network
     * sees the host's, one of its own sees none or its tap device. */
    f = fopen("/proc/net/dev", "re");
    if (!f) {
        row("interfaces besides lo", errname(errno));
    } else {
        int n = 0, lineno = 0;
        while (fgets(line, sizeof line, f)) {
            if (++lineno <= 2)
                continue;
            char *p = line;
            while (*p == ' ')
                p++;
            if (strncmp(p, "lo:", 3))
                n++;
        }
        fclose(f);
        char v[16];
        snprintf(v, sizeof v, "%d", n);
        row("interfaces besides lo", v);
    }

    f = fopen("/proc/net/route", "re");
    int def = 0;
    if (f) {
        while (fgets(line, sizeof line, f)) {
            char ifname[64], dest[16];
            if (sscanf(line, "%63s %15s", ifname, dest) == 2 && !strcmp(dest, "00000000"))
                def = 1;
        }
        fclose(f);
    }
    row("ipv4 default route", def ? "yes" : "no");
}

/* ------------------------------------------------------------------ */
/* Files                                                                */

static void probe_write(const char *key, const char *dir)
{
    if (!dir) {
        row(key, "no such directory");
        return;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/.sbx-battery-%d", dir, (int)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    row_rc(key, fd, errno);
    if (fd >= 0) {
        close(fd);
        unlink(path);
    }
}

static void probe_files(void)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    probe_write("write cwd", cwd);
    probe_write("write /tmp", "/tmp");
    /* whether /tmp is the caller's or a private one: the caller names a
     * file it made there in $SBX_BATTERY_TMP_MARKER */
    const char *marker = getenv("SBX_BATTERY_TMP_MARKER");
    if (!marker || strncmp(marker, "/tmp/", 5))
        row("/tmp", "no marker given");
    else
        row("/tmp", access(marker, F_OK) == 0 ? "the caller's" : "private");
    const char *home = getenv("HOME");
    probe_write("write $HOME", home);
    const char *tmpdir = getenv("TMPDIR");
    probe_write("write $TMPDIR", tmpdir && *tmpdir ? tmpdir : "/tmp");
    /* Codex keeps the repository's metadata read-only inside a writable
     * root; the test makes cwd/.git */
    char git[PATH_MAX + 8];
    snprintf(git, sizeof git, "%s/.git", cwd);
    probe_write("write cwd/.git", git);

    /* a new file beside the working directory, in its parent */
    char sibling[PATH_MAX + 32];
    const char *base = strrchr(cwd, '/');
    snprintf(sibling, sizeof sibling, "%.*s/%s.battery-sibling", (int)(base ? base - cwd : 0), cwd,
             base ? base + 1 : cwd);
    int fd = open(sibling, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    row_rc("write sibling of cwd", fd, errno);
    if (fd >= 0) {
        close(fd);
        unlink(sibling);
    }

    /* ~/.ssh: the directory's listing and a planted key's content */
    if (!home) {
        row("read ~/.ssh", "no $HOME");
        row("read ~/.ssh/id_battery", "no $HOME");
        return;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/.ssh", home);
    DIR *d = opendir(path);
    if (!d) {
        row("read ~/.ssh", errname(errno));
    } else {
        int n = 0;
        struct dirent *de;
        while ((de = readdir(d)))
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
                n++;
        closedir(d);
        row("read ~/.ssh", n ? "ok, has entries" : "ok, empty");
    }
    snprintf(path, sizeof path, "%s/.ssh/id_battery", home);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        row("read ~/.ssh/id_battery", errname(errno));
    } else {
        char buf[64];
        ssize_t n = read(fd, buf, sizeof buf);
        row("read ~/.ssh/id_battery", n > 0 ? "ok" : n == 0 ? "empty" : errname(errno));
        close(fd);
    }
}

/* ------------------------------------------------------------------ */
/* Process and identity                                                 */

static void print_limit(const char *key, int resource)
{
    struct rlimit r;
    char v[64], s[24], h[24];
    if (getrlimit(resource, &r) < 0) {
        row(key, errname(errno));
        return;
    }
    if (r.rlim_cur == RLIM_INFINITY)
        snprintf(s, sizeof s, "unlimited");
    else
        snprintf(s, sizeof s, "%llu", (unsigned long long)r.rlim_cur);
    if (r.rlim_max == RLIM_INFINITY)
        snprintf(h, sizeof h, "unlimited");
    else
        snprintf(h, sizeof h, "%llu", (unsigned long long)r.rlim_max);
    snprintf(v, sizeof v, "%s/%s", s, h);
    row(key, v);
}

/* The value of a "Name:\t..." line of /proc/self/status, or NULL. */
static const char *status_field(const char *name, char *buf, size_t len)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return NULL;
    char line[512];
    size_t nl = strlen(name);
    const char *found = NULL;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, name, nl) && line[nl] == ':') {
            char *v = line + nl + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            v[strcspn(v, "\n")] = 0;
            snprintf(buf, len, "%s", v);
            found = buf;
            break;
        }
    }
    fclose(f);
    return found;
}

static void caps_row(const char *key, const char *field)
{
    char buf[64];
    const char *v = status_field(field, buf, sizeof buf);
    if (!v) {
        row(key, "unknown");
        return;
    }
    unsigned long long mask = strtoull(v, NULL, 16);
    /* "all" is every capability this kernel knows */
    unsigned long long all = 0;
    FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
    int last = 40;
    if (f) {
        if (fscanf(f, "%d", &last) != 1)
            last = 40;
        fclose(f);
    }
    all = last >= 63 ? ~0ULL : (1ULL << (last + 1)) - 1;
    if (mask == 0)
        row(key, "none");
    else if ((mask & all) == all)
        row(key, "all");
    else
        row(key, v);
}

static void probe_identity(void)
{
    char v[64];
    snprintf(v, sizeof v, "%u", (unsigned)getuid());
    row("uid", v);
    snprintf(v, sizeof v, "%u", (unsigned)getgid());
    row("gid", v);
    gid_t groups[64];
    int n = getgroups(64, groups);
    snprintf(v, sizeof v, "%d", n);
    row("supplementary groups", v);

    /* the initial user namespace maps the whole range onto itself */
    FILE *f = fopen("/proc/self/uid_map", "re");
    char line[256] = "";
    if (f) {
        unsigned a, b, c;
        int lines = 0, identity = 0;
        while (fgets(line, sizeof line, f)) {
            lines++;
            if (sscanf(line, "%u %u %u", &a, &b, &c) == 3 && a == 0 && b == 0 && c == 4294967295U)
                identity = 1;
        }
        fclose(f);
        row("user namespace", lines == 1 && identity ? "initial" : "own");
    } else {
        row("user namespace", errname(errno));
    }

    print_limit("rlimit nofile", RLIMIT_NOFILE);
    print_limit("rlimit nproc", RLIMIT_NPROC);

    struct utsname u;
    uname(&u);
    row("hostname", u.nodename);
}

/* PID 1 in the process's view: a sandbox's own init (its launcher) or
 * the machine's. */
static void probe_pid1(void)
{
    char comm[64] = "";
    FILE *f = fopen("/proc/1/comm", "re");
    if (!f) {
        row("pid 1", errname(errno));
    } else {
        if (!fgets(comm, sizeof comm, f))
            comm[0] = 0;
        fclose(f);
        comm[strcspn(comm, "\n")] = 0;
        static const char *const launchers[] = {"bwrap", "sbx", "sbx-init", "codex-linux-san", "codex",
                                                 "apply-seccomp", NULL};
        const char *cls = "machine init";
        for (const char *const *l = launchers; *l; l++)
            if (!strcmp(comm, *l))
                cls = "sandbox launcher";
        row("pid 1", cls);
    }

    /* NSpid lists the pid in every pid namespace from the one /proc was
     * mounted for down to the process's own: 0 below it when /proc is
     * the process's, 1 when a launcher made another pid namespace and
     * left the parent's /proc in place. */
    char buf[128];
    const char *ns = status_field("NSpid", buf, sizeof buf);
    int levels = 0;
    for (const char *p = ns; p && *p;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (*p)
            levels++;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
    snprintf(buf, sizeof buf, "%d", levels - 1);
    row("pid namespaces below /proc's", buf);

    /* /proc agrees with the process's pid namespace when /proc/self is
     * its own pid; a procfs of another namespace names another number. */
    char self[32];
    ssize_t n = readlink("/proc/self", self, sizeof self - 1);
    if (n < 0) {
        row("/proc", errname(errno));
    } else {
        self[n] = 0;
        row("/proc", atoi(self) == getpid() ? "of own pid namespace" : "of another pid namespace");
    }

    /* processes visible besides the battery itself and its ancestors'
     * namespace init: "few" in a sandbox of its own, "many" on a host */
    DIR *d = opendir("/proc");
    int count = 0;
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)))
            if (isdigit((unsigned char)de->d_name[0]))
                count++;
        closedir(d);
        row("/proc processes", count <= 8 ? "few (8 or less)" : "many");
    } else {
        row("/proc processes", errname(errno));
    }
}

static void probe_security(void)
{
    int nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
    row("no_new_privs", nnp < 0 ? errname(errno) : nnp ? "1" : "0");

    char buf[64];
    const char *sc = status_field("Seccomp", buf, sizeof buf);
    row("seccomp", !sc ? "unknown" : !strcmp(sc, "0") ? "disabled" : !strcmp(sc, "1") ? "strict" : "filter");

    caps_row("capabilities effective", "CapEff");
    caps_row("capabilities bounding", "CapBnd");
    caps_row("capabilities ambient", "CapAmb");
}

/* Runs fn in a child, so that what it changes (namespaces, tracing) stays
 * there; the child's exit code is an errno (0 for success). */
static void in_child(const char *key, int (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        row(key, errname(errno));
        return;
    }
    if (pid == 0)
        _exit(fn());
    int st;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st))
        row(key, WEXITSTATUS(st) ? errname(WEXITSTATUS(st)) : "ok");
    else
        row(key, "killed");
}

static int try_userns(void)
{
    return unshare(CLONE_NEWUSER) < 0 ? errno : 0;
}

static int try_userns_netns(void)
{
    return unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0 ? errno : 0;
}

static int try_io_uring(void)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    return syscall(SYS_io_uring_setup, 4, &p) < 0 ? errno : 0;
}

/* PTRACE_ATTACH to a child of our own: what a debugger or a test runner
 * that traces its workers does (Yama's scope 1 allows a parent). */
static int try_ptrace_child(void)
{
    pid_t child = fork();
    if (child < 0)
        return errno;
    if (child == 0) {
        pause();
        _exit(0);
    }
    int e = 0;
    if (ptrace(PTRACE_ATTACH, child, 0, 0) < 0)
        e = errno;
    else
        waitpid(child, NULL, __WALL);
    kill(child, SIGKILL);
    waitpid(child, NULL, __WALL);
    return e;
}

static int try_traceme(void)
{
    return ptrace(PTRACE_TRACEME, 0, 0, 0) < 0 ? errno : 0;
}

/* The variables a sandbox sets to say it is one, or to point tools at
 * its proxy: the value where it is a fixed word, "set" where it holds
 * credentials or ports. */
static void probe_environment(void)
{
    static const char *const markers[] = {"CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED", "IS_SANDBOX",
                                          "SANDBOX_RUNTIME", "TMPDIR", NULL};
    char key[64];
    for (const char *const *m = markers; *m; m++) {
        const char *v = getenv(*m);
        snprintf(key, sizeof key, "env %s", *m);
        row(key, v ? v : "unset");
    }
    static const char *const proxies[] = {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", NULL};
    for (const char *const *m = proxies; *m; m++) {
        snprintf(key, sizeof key, "env %s", *m);
        row(key, getenv(*m) ? "set" : "unset");
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    probe_inet(AF_INET, "inet", "127.0.0.1");
    probe_inet(AF_INET6, "inet6", "[::1]");
    probe_outside();
    probe_unix();
    probe_netlink();
    probe_packet();
    probe_interfaces();
    probe_files();
    probe_identity();
    probe_pid1();
    probe_security();
    probe_environment();
    in_child("unshare user namespace", try_userns);
    in_child("unshare user+net namespace", try_userns_netns);
    in_child("io_uring_setup", try_io_uring);
    in_child("ptrace attach own child", try_ptrace_child);
    in_child("ptrace traceme", try_traceme);
    return 0;
}
