#!/bin/sh
# Filesystem isolation through `sbx run` (the plan resolved by the
# supervisor, applied by the sandbox's init): see mount-body.sh.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
runner=sbx
. "$SBX_TOP_SRCDIR/tests/integration/mount-body.sh"
done_testing
