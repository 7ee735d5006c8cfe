/* What AppArmor says about sbx, for the diagnosis of a refused user
 * namespace (ns_diagnosis.h) and `sbx probe`: whether sbx's profile
 * (apparmor/sbx, /etc/apparmor.d/sbx) is loaded, and what confines this
 * process. Reads only; never loads or changes policy.
 *
 * Test hooks, as SBX_TEST_PROC_SYS is for sysctls (ns.h): they change what
 * sbx says, or make it refuse (apparmor_refuse_kept_capabilities()); they
 * never grant anything.
 *  SBX_TEST_APPARMOR_FS=DIR      read DIR instead of /sys/kernel/security/apparmor
 *  SBX_TEST_APPARMOR_LABEL=TEXT  this process's confinement, instead of
 *                                /proc/self/attr/apparmor/current */
#ifndef SBX_APPARMOR_H
#define SBX_APPARMOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The securityfs directory AppArmor publishes, when it is the kernel's
 * (or a test's) LSM. */
const char *apparmor_fs_dir(void);

/* Whether the profile named `name` is loaded: 1, 0, or -1 when that cannot
 * be known (no AppArmor; the profile list is readable by root only).
 * Sets *mode to its mode ("enforce", "complain") when given and found. */
int apparmor_profile_loaded(const char *name, char *mode, size_t mode_len);

/* This process's confinement, e.g. "unconfined" or "sbx (enforce)", into
 * buf; "" when unknown (no AppArmor). */
void apparmor_current_label(char *buf, size_t len);

/* True when label (apparmor_current_label()) is sbx's own profile, "sbx"
 * or "sbx (MODE)", not another profile whose name starts with sbx. Pure. */
bool apparmor_label_is_sbx(const char *label);

/* Under sbx's profile every capability is denied to the command
 * (sbx_command in apparmor/sbx): dies when `capabilities =` keeps some
 * (kept, caps.h), rather than hand the command capabilities that fail. */
/* True when this sbx runs under AppArmor's sbx profile, whose sbx_command
 * denies whatever sbx runs every capability. */
bool apparmor_denies_command_capabilities(void);
void apparmor_refuse_kept_capabilities(uint64_t kept);

#endif
