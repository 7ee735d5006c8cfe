/* caps.c's own capability names (libcap is not linked any more): the
 * spellings profiles use, the canonical form `sbx profile show` prints,
 * and a table that covers every capability this kernel has. */
#include "config.h"

#include "../tap.h"

#include "caps.h"
#include "util.h"

#include <linux/capability.h>

int main(void)
{
    plan(12);
    is_int(capability_from_name("cap_net_raw"), CAP_NET_RAW, "cap_net_raw");
    is_int(capability_from_name("CAP_NET_RAW"), CAP_NET_RAW, "any case");
    is_int(capability_from_name("sys_admin"), CAP_SYS_ADMIN, "without the cap_ prefix");
    is_int(capability_from_name("13"), CAP_NET_RAW, "a number");
    is_int(capability_from_name("cap_fly"), -1, "an unknown name");
    is_int(capability_from_name("999"), -1, "an unknown number");
    is_int(capability_from_name("13x"), -1, "a number with trailing junk");
    is_int(capability_from_name(""), -1, "the empty string");
    is_str(capability_name(CAP_CHECKPOINT_RESTORE), "cap_checkpoint_restore", "the last one of Linux 5.9+");
    ok(capability_name(64) == NULL && capability_name(-1) == NULL, "out of range: NULL");

    int round_trips = 1;
    for (int c = 0; c <= CAP_LAST_CAP; c++)
        if (!capability_name(c) || capability_from_name(capability_name(c)) != c)
            round_trips = 0;
    ok(round_trips, "every capability up to CAP_LAST_CAP (%d) has a name that reads back", CAP_LAST_CAP);

    /* A kernel newer than the table still gets every capability dropped
     * (privileges_drop() runs until EINVAL), but its names would be
     * refused in profiles: this says when to extend the table. */
    char *last = read_file_text("/proc/sys/kernel/cap_last_cap", 64, NULL);
    if (!last) {
        skip("/proc/sys/kernel/cap_last_cap is not readable here");
    } else {
        int kernel_last = atoi(last);
        free(last);
        ok(capability_name(kernel_last) != NULL,
           "the table names the kernel's last capability (%d)", kernel_last);
    }
    return done_testing();
}
