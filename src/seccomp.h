/* The command's seccomp filter (libseccomp): the default deny-list and the
 * profile's `deny =` rules.
 *
 * Default deny-list (`seccomp = default`), each call failing with EPERM:
 *   ioctl(TIOCSTI), ioctl(TIOCLINUX)   push input into / drive the outer
 *                                      terminal (CVE-2016-7545, CVE-2017-5226)
 *   keyctl, add_key, request_key       the kernel keyring is not namespaced
 *   bpf, perf_event_open, userfaultfd  large kernel attack surface
 *   kexec_load, kexec_file_load,
 *   init_module, finit_module,
 *   delete_module                      kernel replacement and modules
 *   open_by_handle_at                  escapes bind mounts ("shocker")
 *   unshare/clone with CLONE_NEWUSER   only when nested_userns = no; clone3
 *                                      then fails with ENOSYS because BPF
 *                                      cannot read its flags (libc falls
 *                                      back to clone)
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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Installs the filter in the calling process, which must be the command's
 * own (single-threaded, after no_new_privs and the capability drop, just
 * before exec). Nothing is installed when seccomp = none and no deny rule
 * applies.
 *
 * When deny rules apply, the notification listener leaves at once: the
 * `len` bytes at `message` (the caller's protocol, e.g. a struct
 * channel_msg) are sent over `handoff_sock` with the listener attached
 * (SCM_RIGHTS), and the listener is closed here, so the command never
 * holds it (a command holding its own listener could answer its own
 * calls). The filter lets exactly that one sendmsg() through, because a
 * denied sendmsg would otherwise wait for a supervisor that has no
 * listener yet. Returns true when a listener was sent. handoff_sock may
 * be -1 (and message NULL) when the profile has no deny rule. Dies (125)
 * with the reason on any failure. */
bool seccomp_install(const struct profile *p, int handoff_sock, const void *message, size_t len);

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
