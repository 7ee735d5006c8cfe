#!/bin/sh
# README's first command builds without messages a new user takes for an
# error: automake's default ARFLAGS "cru" makes a binutils built with
# deterministic archives (Debian, Ubuntu) print "ar: `u' modifier ignored"
# for every library. The build's own AR and ARFLAGS, from its Makefile.
# The static link's warnings (glibc's, for libnl's NSS calls) cannot be
# silenced: README explains them, and names every function they name.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
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

# The link of src/sbx as make runs it (make -n: nothing is rebuilt), into
# the scratch directory.
link=$(cd "$SBX_TOP_BUILDDIR" && make -s -n -W src/main.o src/sbx 2>/dev/null |
    grep -- ' -o src/sbx ' | sed 's/^echo [^;]*;//')
[ -n "$link" ] || { echo "Bail out! no link command for src/sbx from make -n in $SBX_TOP_BUILDDIR"; exit 1; }
(cd "$SBX_TOP_BUILDDIR" && eval "$(printf '%s\n' "$link" | sed "s| -o src/sbx | -o $tmpdir/sbx |")") \
    >/dev/null 2>"$tmpdir/link.err"
named=$(sed -n "s/.*warning: Using '\([a-z_]*\)' in statically linked.*/\1/p" "$tmpdir/link.err" | sort -u)
case $link in
*-static*)
    [ -x "$tmpdir/sbx" ] && [ -n "$named" ]
    ok $? "the static link warns about glibc functions: $(echo $named)"
    quick=$(sed -n '/^## Quick start/,/^## /p' "$SBX_TOP_SRCDIR/README.md")
    missing=
    for f in $named; do case $quick in *"\`$f\`"*) ;; *) missing="$missing $f" ;; esac; done
    is "$missing" "" "README's quick start names each function the link warns about"
    ;;
*)
    # (the sanitizers' build links dynamically)
    [ -x "$tmpdir/sbx" ] && [ -z "$named" ]
    ok $? "a dynamic link warns about no glibc function: README's explanation is the static build's"
    ;;
esac
done_testing
