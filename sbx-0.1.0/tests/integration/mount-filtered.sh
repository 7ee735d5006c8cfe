#!/bin/sh
# Filesystem isolation through mount_setup() alone, under a seccomp filter
# that refuses openat2, open_tree, mount_setattr and move_mount with EPERM
# (as older container runtimes do): see mount-body.sh.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
runner=filtered
. "$SBX_TOP_SRCDIR/tests/integration/mount-body.sh"
# The fallbacks were really taken.
run_cmd "$tmpdir/runner" -v -- true
like "$err" "mount(2) and remounts: a seccomp filter around sbx refuses the new mount API" \
    "-v says the new mount API was refused and mount(2) is used"
like "$err" "no openat2: component-wise O_NOFOLLOW walks" "and that openat2 was refused"
done_testing
