#include "config.h"

#include "probe_profile.h"

#include "log.h"

int probe_in_profile(const char *profile, const char *format_flag)
{
    (void)format_flag;
    die("probe --profile %s: the sandbox run core is not built in yet", profile);
}
