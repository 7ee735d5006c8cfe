#!/bin/sh
# README's first command builds without messages a new user takes for an
# error: automake's default ARFLAGS "cru" makes a binutils built with
# deterministic archives (Debian, Ubuntu) print "ar: `u' modifier ignored"
# for every library. The build's own AR and ARFLAGS, from its Makefile.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 3
make_tmpdir

mk=$SBX_TOP_BUILDDIR/Makefile
ar=$(sed -n 's/^AR = //p' "$mk")
arflags=$(sed -n 's/^ARFLAGS = //p' "$mk")
[ -n "$ar" ] && [ -n "$arflags" ] || { echo "Bail out! no AR or ARFLAGS in $mk"; exit 1; }
printf 'member\n' >"$tmpdir/member"

run_cmd $ar cru "$tmpdir/default.a" "$tmpdir/member"
if printf '%s' "$err" | grep -q "modifier ignored"; then
    pass "automake's default ARFLAGS cru makes this $ar warn: $err"
else
    skip "this $ar takes cru silently (no deterministic default): nothing to show"
fi
cd "$tmpdir" || exit 1
run_cmd $ar $arflags "$tmpdir/build.a" member
is "$status:$err" "0:" "the build's ARFLAGS ($arflags) make $ar quiet"
run_cmd $ar t "$tmpdir/build.a"
is "$out" "member" "and the archive holds the member"
done_testing
