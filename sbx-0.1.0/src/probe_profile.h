/* `sbx probe --profile P`: the same checks, run inside a sandbox built
 * from P by re-executing this binary through sandbox_run(). */
#ifndef SBX_PROBE_PROFILE_H
#define SBX_PROBE_PROFILE_H

/* format_flag: "--json", "--tap" or NULL (table). Returns the inner
 * probe's exit status (0: network tests can be validated inside P). */
int probe_in_profile(const char *profile, const char *format_flag);

#endif
