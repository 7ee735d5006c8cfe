/* The command's seccomp filter (libseccomp): the default deny-list and the
 * profile's `deny =` rules.
 *
 * Default deny-list (`seccomp = default`), each call failing with EPERM
 * unless said otherwise:
 *   ioctl(TIOCSTI), ioctl(TIOCLINUX)   push input into / drive the outer
 *                                      terminal (CVE-2016-7545, CVE-2017-5226)
 *   keyctl, add_key, request_key       the kernel keyring is not namespaced
 *   bpf, perf_event_open, userfaultfd  large kernel attack surface
 *   kexec_load, kexec_file_load,
 *   init_module, finit_module,
 *   delete_module                      kernel replacement and modules
 *   open_by_handle_at                  escapes bind mounts ("shocker")
 *   unshare/clone with CLONE_NEWCGROUP  a cgroup namespace is what lets a
 *                                      command mount cgroupfs: cgroup2 and
 *                                      v1 mounts need CAP_SYS_ADMIN over
 *                                      the cgroup namespace's owner, which
 *                                      a command that made its own userns
 *                                      + cgroupns has. Its root is the
 *                                      cgroup sbx runs in, often the host's
 *                                      root cgroup, and a kuid-0 command
 *                                      (root caller) passes the files' owner
 *                                      check: cgroup.kill, cgroup.freeze
 *                                      and v1 freezer.state then kill or
 *                                      freeze host processes. For any other
 *                                      caller the files are its own only in
 *                                      a delegated subtree (systemd
 *                                      user@.service), where it could still
 *                                      kill processes outside its pid
 *                                      namespace: denied to every caller.
 *                                      setns(fd, CLONE_NEWCGROUP) needs
 *                                      CAP_SYS_ADMIN over the target's
 *                                      owner too, and every cgroupns a
 *                                      command can name is owned outside
 *                                      its own user namespaces (sbx makes
 *                                      none); setns also takes nstype 0 or
 *                                      a pidfd, so a flag rule would be no
 *                                      rule: the kernel's check is the one.
 *                                      Limit: nested `bwrap --unshare-all`
 *                                      or --unshare-cgroup-try fails
 *                                      (bwrap tries whenever
 *                                      /proc/self/ns/cgroup exists).
 *   clone3                             ENOSYS: BPF cannot read its flags
 *                                      (struct clone_args), and libc falls
 *                                      back to clone, which we can
 *   unshare/clone with CLONE_NEWUSER   only when nested_userns = no
 *   chmod, fchmod, fchmodat, fchmodat2 with S_ISUID or S_ISGID in the mode:
 *   open, openat, creat (O_CREAT or    a file a root caller's command makes
 *   O_TMPFILE), mknod, mknodat,        set-user-ID in a rw directory is
 *   mkdir, mkdirat                     set-user-ID root on the host (and
 *                                      no_new_privs ends with the
 *                                      sandbox). Only the two bits are
 *                                      compared, and open's mode only with
 *                                      O_CREAT/O_TMPFILE, which is when the
 *                                      kernel reads it. Linux strips both
 *                                      bits in mkdir already; the rule
 *                                      keeps the list free of exceptions,
 *                                      as systemd's RestrictSUIDSGID= does.
 *                                      fchmodat2 (452, Linux 6.6) is
 *                                      named by number if libseccomp does
 *                                      not know it. Limits: a setgid bit
 *                                      inherited from a directory, or
 *                                      copied by a tool running outside
 *                                      (tar -p, cp -a) is not a call here.
 *   openat2                            ENOSYS: its mode is in a struct
 *                                      open_how BPF cannot read; callers
 *                                      fall back to openat (sbx's own
 *                                      openat2 in mount.c runs before the
 *                                      filter exists)
 *   setxattr, lsetxattr, fsetxattr,    only when the command could write
 *   setxattrat                         file capabilities the host honours.
 *                                      BPF cannot read the attribute's
 *                                      name (security.capability): the
 *                                      calls go whole. The kernel stores
 *                                      the rootid of the writer's user
 *                                      namespace: for a root caller kuid 0,
 *                                      i.e. host capabilities (the setuid
 *                                      root of item 7 in another form); for
 *                                      anyone else its own uid, valid only
 *                                      in namespaces it owns, so its xattrs
 *                                      stay allowed. Writing one takes
 *                                      CAP_SETFCAP over the file's owner:
 *                                      `capabilities = cap_setfcap` gives
 *                                      it, and so did a nested userns
 *                                      mapping the command's uid 0 until
 *                                      Linux 5.12 made that map need
 *                                      CAP_SETFCAP in the parent (commit
 *                                      db2e718a4798). Denied when sbx was
 *                                      started as uid 0 and either holds:
 *                                      inside another sandbox that uid 0
 *                                      may not be the kernel's, and the
 *                                      denial errs on the safe side.
 *                                      setxattrat (463, Linux 6.13) is
 *                                      unknown to libseccomp 2.5.4: a
 *                                      second, hand-written filter denies
 *                                      it on x86_64, x32 and i386 (and
 *                                      fchmodat2 with a set-ID mode, for a
 *                                      libseccomp without that name).
 *   socket, socketpair with AF_PACKET, packet sockets, where CVE-2020-14386,
 *   AF_XDP, or AF_INET + SOCK_PACKET   CVE-2017-7308 and CVE-2016-8655 were
 *                                      reached from a namespace of the
 *                                      attacker's own, and AF_XDP: both
 *                                      need only CAP_NET_RAW over the
 *                                      network namespace's owner, which a
 *                                      command has in a nested namespace,
 *                                      and a root caller's in the sandbox's
 *                                      own (caps.h). A filter of its own
 *                                      (seccomp_packet.h); i386
 *                                      socketcall(SYS_SOCKET) goes whole
 *                                      when the command keeps CAP_NET_RAW
 *   io_uring_setup, io_uring_enter,    unless io_uring = yes: its
 *   io_uring_register                  operations are run by the kernel
 *                                      without passing the filter
 *                                      (IORING_OP_CONNECT past a deny
 *                                      rule, IORING_OP_OPENAT with a
 *                                      set-user-ID mode, _SETXATTR), and
 *                                      it is large attack surface (Google
 *                                      disabled it in ChromeOS, Android and
 *                                      its servers in 2023). EPERM, what
 *                                      kernel.io_uring_disabled = 2
 *                                      answers, so runtimes fall back as on
 *                                      such a host. Deny rules deny it
 *                                      under seccomp = none too, and
 *                                      io_uring = yes with deny rules is
 *                                      refused.
 * The filter covers every ABI the x86_64 kernel can enter: x86_64, i386
 * (including the multiplexed socketcall(2)) and x32. A call from any other
 * architecture kills the process.
 *
 * Deny rules are not decided in BPF: every call a rule names (narrowed to
 * the listed families for socket() and socketpair(), whose family BPF can
 * see) raises a seccomp user notification; the supervisor (ledger.c) reads
 * the family and address, counts the call, and answers with the rule's
 * errno, or lets a call of another family proceed
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE). The kernel then acts on what the fd
 * number and the memory hold by then, which another thread of the target
 * can change after the read (dup2, a rewritten address). Only the families
 * of socket() and socketpair(), compared by BPF in a register, cannot be
 * raced (not through i386 socketcall, whose arguments are in memory); every
 * other deny rule reproduces a restrictive sandbox and is not a security
 * boundary (docs/seccomp.md, "Limits"; the isolation comes from the
 * namespaces and the deny-list above). */
#ifndef SBX_SECCOMP_H
#define SBX_SECCOMP_H

#include "profile.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>

/* The filter, compiled by the supervisor before clone() (the sandbox
 * plan, plan.h) and installed by the command with two system calls, so
 * that a bad rule is refused before anything is created and the command's
 * process does no compiling. */
struct handoff;
struct seccomp_program {
    bool active;              /* false: seccomp = none and no deny rule */
    bool notify;              /* deny rules: a listener goes to the supervisor */
    size_t ndeny;             /* for the messages of a failed load */
    struct sock_fprog filter; /* libseccomp's program, exported */
    struct sock_fprog listening; /* deny rules: their filter, with the listener; len 0: none */
    bool observing;           /* the write observer's rules are in `listening` */
    struct sock_fprog extra;  /* the hand-written one for calls libseccomp does not name; len 0: none */
    struct sock_fprog packet; /* AF_PACKET, AF_XDP (seccomp_packet.h); len 0: none */
    struct sock_fprog inet;   /* the Landlock tier's inet protocols (seccomp_packet.h); len 0: none */
    struct sock_fprog observe; /* the write observer (seccomp_observe.h); len 0: none */
    struct handoff *handoff;  /* the message the filter lets through (add_deny_rules) */
    char summary[160];        /* for -v */
    char origin[PATH_MAX + 96]; /* for -v: `filter` compiled or from the cache, and why */
};

/* Programs are kept across runs in dir (seccomp_cache.h) from now on;
 * NULL: every one compiled (the default). */
void seccomp_use_cache(const char *dir);

/* What of p the filter cannot express, refused (exit 125) with the rule's
 * file:line: an errno out of range, families on a call without a socket,
 * io_uring = yes with deny rules. seccomp_compile() checks it too. */
void seccomp_check(const struct profile *p);

/* Compiles the filter for p. caller_is_root: sbx was started as uid 0, so
 * the command's kernel uid is 0 (the xattr denials above). When deny
 * rules apply, the notification listener will leave at once on install:
 * the `len` (at most 64) bytes at `message` (the caller's protocol, e.g.
 * a struct channel_msg) are sent over `handoff_sock` with the listener
 * attached (SCM_RIGHTS). The filter lets exactly that one sendmsg()
 * through, naming the socket and the message's address, because a denied
 * sendmsg would otherwise wait for a supervisor that has no listener yet.
 * handoff_sock may be -1 (and message NULL) when the profile has no deny
 * rule. Dies (125) with the reason on any failure. */
void seccomp_compile(const struct profile *p, bool caller_is_root, int handoff_sock,
                     const void *message, size_t len, struct seccomp_program *out);

/* Adds the write observer (seccomp_observe.h) to a compiled program
 * without deny rules: its filter carries the listener, sent over
 * handoff_sock with `message` as seccomp_compile() does for deny rules.
 * Nothing is added when the program has deny rules (their filter holds
 * the one listener a filter chain may have) or is inactive (seccomp =
 * none). Returns true when added. */
bool seccomp_program_observe(struct seccomp_program *prog, int handoff_sock, const void *message,
                             size_t len);

/* seccomp_compile(), and with OBSERVE the write observer's rules in the
 * deny rules' filter when there are deny rules (seccomp = default only);
 * out->observing says so. Without deny rules, seccomp_program_observe()
 * adds the observer's own filter instead. */
void seccomp_compile_observing(const struct profile *p, bool caller_is_root, int handoff_sock,
                               const void *message, size_t len, bool observe,
                               struct seccomp_program *out);

/* Installs the program in the calling process, which must be the
 * command's own (single-threaded, after the capability drop, just before
 * exec), sets no_new_privs first (the kernel requires it without
 * CAP_SYS_ADMIN), and sends the listener, closing it here so that the
 * command never holds it (a command holding its own listener could
 * answer its own calls). Returns true when a listener was sent. Dies
 * (125) with the reason on any failure, but for the write observer's:
 * a kernel that refuses its listener (EBUSY: an outer sandbox holds one;
 * EINVAL: before Linux 5.5) leaves the run unobserved, which the record
 * says (sbx(1) REFUSED WRITES), since it only ever reports. */
bool seccomp_program_install(const struct seccomp_program *prog, int handoff_sock);
void seccomp_program_free(struct seccomp_program *prog);

/* Tests only: the address of the message the filter lets through, the
 * secret that tells sbx's sendmsg() from the command's (seccomp.c); NULL
 * without deny rules. */
const void *seccomp_program_handoff(const struct seccomp_program *prog);

/* Compile, install and free in one go (test helpers). */
bool seccomp_install(const struct profile *p, bool caller_is_root, int handoff_sock,
                     const void *message, size_t len);

/* Supervisor side: receives one message of at most 64 bytes and the
 * listener sent with it by seccomp_install(). Returns the fd
 * (close-on-exec), or -1 with errno set (EOF: ECONNRESET). A caller with
 * its own protocol (channel.c) receives it its own way instead. */
int seccomp_listener_receive(int handoff_sock);

/* True when the profile has deny rules, i.e. when seccomp_install() will
 * send a listener and the supervisor must receive it. */
bool seccomp_needs_listener(const struct profile *p);

/* Resolves a syscall name on the native ABI: the number, or -1. */
int seccomp_syscall_number(const char *name);

/* True when `name` takes a socket family the supervisor can check: socket
 * and socketpair (the family argument) and the calls on a socket fd. */
bool seccomp_syscall_has_family(const char *name);

#endif
