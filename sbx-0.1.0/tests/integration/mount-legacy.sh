#!/bin/sh
# Filesystem isolation through mount_setup() alone (the mount(2) path for kernels before 5.12):
# see mount-body.sh.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
runner=legacy
. "$SBX_TOP_SRCDIR/tests/integration/mount-body.sh"
done_testing
