#!/bin/sh
# Filesystem isolation through mount_setup() alone (open_tree_attr, or open_tree
# and mount_setattr where the kernel has no open_tree_attr: mount-noattr.sh):
# see mount-body.sh.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
runner=helper
. "$SBX_TOP_SRCDIR/tests/integration/mount-body.sh"
done_testing
