#!/bin/sh
# Filesystem isolation through mount_setup() alone on the new mount API
# without open_tree_attr (Linux < 6.15, or a seccomp filter that does not
# know it): each bind copied by open_tree and given its flags by
# mount_setattr, as before 6.15. See mount-body.sh; mount-helper.sh runs
# the same body with open_tree_attr where the kernel has it.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
runner=noattr
. "$SBX_TOP_SRCDIR/tests/integration/mount-body.sh"
# The fallback was really taken.
run_cmd "$tmpdir/runner" -v -- true
like "$err" "no open_tree_attr (Function not implemented): open_tree and mount_setattr" \
    "-v says open_tree_attr is missing and open_tree with mount_setattr are used"
done_testing
