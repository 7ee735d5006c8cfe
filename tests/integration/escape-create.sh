#!/bin/sh
# [filesystem] create makes a missing directory on the host, before the
# sandbox starts, following no symlink a sandbox could have made: one
# below a writable place (rw = ~/w) may have been planted by an earlier
# run, and following it would make sbx, as the caller and outside any
# sandbox, create what the link points at (~/w/link -> ~/outside:
# ~/outside/sub). The create walk once handed the symlink check a context
# of another type, so no link was ever refused (found for issue 30).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
. "$SBX_TOP_SRCDIR/tests/integration/run-common.sh"
plan 4
make_tmpdir
home=$tmpdir/home
mkdir -p "$home/w" "$home/outside" "$tmpdir/cwd"
ln -s ../outside "$home/w/link"
profile planted <<INI
[filesystem]
rw = $home/w
create = $home/w/link/sub
create = $home/w/made
INI
cd "$tmpdir/cwd" || exit 1
HOME=$home sbx_run -p "$prof" -- true
is "$status" 0 "the run itself goes on"
test -e "$home/outside/sub"
isnt "$?" 0 "nothing is made through a link below a writable place (~/w/link -> ~/outside)"
like "$err" "goes through the symlink $home/w/link" "the warning names the link"
test -d "$home/w/made"
ok $? "a missing directory with no link on the way is made"
done_testing
