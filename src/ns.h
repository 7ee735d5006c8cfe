/* Namespaces: which ones a profile asks for, creating them with clone(),
 * and what must be written from inside once they exist (uid/gid maps,
 * setgroups, hostname). Refusals are diagnosed: which step, the errno, the
 * likely cause (sysctl, AppArmor, an outer seccomp filter) and the fix. */
#ifndef SBX_NS_H
#define SBX_NS_H

#include "ns_diagnosis.h"
#include "profile.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* CLONE_NEW* flags for p. mode = host never gets a network namespace. */
int ns_clone_flags(const struct profile *p);

/* "CLONE_NEWUSER|CLONE_NEWNS|..." into buf, for messages. */
const char *ns_flags_text(int flags, char *buf, size_t len);

/* clone() with fork() semantics into the namespaces of `flags`: returns the
 * child's pid in the parent and 0 in the child. On failure dies (exit 125)
 * with a diagnosis; never falls back to fewer namespaces. */
pid_t ns_clone(int flags);

/* The same clone(), returning -1 with errno on failure: for a caller that
 * acts on the refusal (ns_classify_refusal(errno, flags)) instead of dying.
 * Never falls back either. */
pid_t ns_try_clone(int flags);

/* Reads the facts that can refuse namespaces `flags` (sysctls, the
 * seccomp mode, the uids, CAP_SETFCAP, RLIMIT_NPROC) for the pure
 * diagnosis of ns_diagnosis.h; err is the refused step's errno. Keeps
 * errno. */
void ns_read_facts(struct ns_facts *f, int err, int flags);

/* The sysctl /proc/sys/NAME (NAME "kernel/apparmor_restrict_unprivileged_userns"),
 * -1 when absent. A test hook: with SBX_TEST_PROC_SYS=DIR, DIR/NAME when
 * that file exists, so that tests can give sbx the sysctls of kernels they
 * do not run on (AppArmor's, Debian's). It changes what sbx says about a
 * refusal, never what sbx does. */
long long ns_read_sysctl(const char *name);

/* 1 when a seccomp filter refuses CLONE_NEWUSER before the kernel looks
 * (it answers, or kills, for clone/unshare flags the kernel alone rejects
 * with EINVAL), 0 when the kernel answered, -1 unknown. Forks a child that
 * tries; creates nothing. */
int ns_seccomp_refuses_userns(void);

/* The class of the refusal of clone()/unshare() with `flags` (errno err):
 * the cause `sbx run` names (ns_refusal_class(), ns_cause_name() for its
 * name). For callers that act on a refusal, e.g. a fallback tier. */
enum ns_cause ns_classify_refusal(int err, int flags);

/* Why mounting a fresh /proc in the sandbox failed with err (mount.c):
 * the sentence with its fix, or "" when nothing known explains err. */
const char *ns_explain_proc_mount_failure(int err, char *buf, size_t len);

/* Explains why clone()/unshare() with `flags` failed with errno err: the
 * most specific cause and its fix, into buf (`sbx run`'s wording; `sbx
 * probe` lists every cause from the same diagnosis). */
const char *ns_explain_failure(int err, int flags, char *buf, size_t len);

/* Before clone(), in the supervisor: dies with a diagnosis when the
 * kernel will refuse to map outer_uid into a new user namespace. Since
 * Linux 5.12 mapping uid 0 of the parent namespace takes CAP_SETFCAP at
 * creation (so that file capabilities cannot be forged from a namespace):
 * uid 0 inside another sandbox or a container without it cannot. */
void ns_check_uid_map_allowed(uid_t outer_uid);

/* True when the running kernel is at least major.minor (unknown: true). */
bool kernel_at_least(int major, int minor);

/* The uid and gid the command has inside, per p->uid / p->gid. */
uid_t ns_inside_uid(const struct profile *p, uid_t outer_uid);
gid_t ns_inside_gid(const struct profile *p, gid_t outer_gid);

/* One line of /proc/PID/uid_map or gid_map, as written. */
struct ns_id_map_line {
    uint32_t inside, outside, count;
};

struct ns_id_maps {
    struct ns_id_map_line uid, gid;
};

/* In the new user namespace's first process: denies setgroups (needed to
 * write gid_map without CAP_SETGID outside, and it keeps the command from
 * dropping supplementary groups that deny it access, CVE-2014-8989), then
 * maps one uid and one gid: inside per p, outside the caller's. Dies on
 * error; into written, the lines the kernel took (for the run record). */
void ns_write_id_maps(const struct profile *p, uid_t outer_uid, gid_t outer_gid,
                      struct ns_id_maps *written);

/* sethostname() in the new UTS namespace, when p sets a hostname. */
void ns_set_hostname(const struct profile *p);

#endif
