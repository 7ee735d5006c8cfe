/* Unit tests of cgroup.c's search for sbx's own pids cgroup, on the
 * /proc/self/mountinfo and /proc/self/cgroup of layouts this machine does
 * not have: pure cgroup v2, a cgroup namespace, escaped mount points,
 * no pids controller at all. (The hybrid layout is also run for real by
 * tests/integration/run-forkbomb.sh as root.) */
#include "config.h"

#include "../tap.h"

#include "cgroup.h"

#include <stdlib.h>
#include <string.h>

static const char hybrid_mounts[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char hybrid_self[] =
    "9:name=systemd:/\n8:pids:/ci/job-7\n1:cpu:/\n0::/ci/job-7\n";

static const char v2_mounts[] =
    "25 20 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n";
static const char v2_self[] = "0::/user.slice/user-0.slice/session-3.scope\n";

static void check(const char *what, const char *mounts, const char *self, const char *want,
                  bool want_v2)
{
    char why[256] = "";
    bool v2 = !want_v2;
    char *home = cgroup_pids_home(mounts, self, &v2, why, sizeof why);
    is_str(home, want, "%s: sbx's pids cgroup is %s", what, want ? want : "none");
    if (!home)
        diag("why: %s", why);
    if (want)
        ok(v2 == want_v2, "%s: %s", what, want_v2 ? "cgroup v2" : "cgroup v1");
    free(home);
}

int main(void)
{
    check("hybrid", hybrid_mounts, hybrid_self, "/sys/fs/cgroup/pids/ci/job-7", false);
    check("hybrid, root cgroup", hybrid_mounts, "8:pids:/\n0::/\n", "/sys/fs/cgroup/pids", false);
    check("pure v2", v2_mounts, v2_self,
          "/sys/fs/cgroup/user.slice/user-0.slice/session-3.scope", true);
    check("pure v2, root cgroup", v2_mounts, "0::/\n", "/sys/fs/cgroup", true);
    check("v1 pids shared with another controller", 
          "40 31 0:36 / /sys/fs/cgroup/pids,cpu rw - cgroup cgroup rw,cpu,pids\n",
          "4:cpu,pids:/a\n", "/sys/fs/cgroup/pids,cpu/a", false);
    check("an escaped mount point",
          "40 31 0:36 / /mnt/cg\\040pids rw - cgroup cgroup rw,pids\n", "3:pids:/x\n",
          "/mnt/cg pids/x", false);
    check("a mount of a subtree", "40 31 0:36 /ci /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n",
          "3:pids:/ci/job\n", "/sys/fs/cgroup/pids/job", false);

    char why[256] = "";
    bool v2;
    char *home = cgroup_pids_home("40 31 0:36 /other /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n",
                                  "3:pids:/ci/job\n", &v2, why, sizeof why);
    ok(home == NULL, "sbx's cgroup outside the mounted subtree: none");
    like_str(why, "outside the part /other", "and why");
    free(home);

    home = cgroup_pids_home("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n",
                            "1:cpu:/\n", &v2, why, sizeof why);
    ok(home == NULL, "no pids hierarchy, no v2: none");
    like_str(why, "no cgroup hierarchy with the pids controller", "and why");
    free(home);

    home = cgroup_pids_home(hybrid_mounts, "1:cpu:/\n", &v2, why, sizeof why);
    ok(home == NULL, "a pids mount but no pids line in /proc/self/cgroup: none");
    like_str(why, "names no pids cgroup", "and why");
    free(home);

    home = cgroup_pids_home("garbage\n - \n\n1 2 3\n", "::\n", &v2, why, sizeof why);
    ok(home == NULL, "garbage: none, no crash");
    free(home);
    return done_testing();
}
