#!/bin/sh
# A static sbx must never reach glibc's NSS: NSS loads its modules
# (systemd, sss, ldap) with dlopen(), and in a static program that crashed
# sbx (docs/performance.md, change 6). So that every build gives the same
# answers, no build does: sbx's own objects read the password database
# only in caller_passwd() (src/cli.c), with fgetpwent() on /etc/passwd,
# static or dynamic (tests/integration/user-lookup.sh checks the answers).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

lib=$SBX_TOP_BUILDDIR/src/libsbx.a
command -v nm >/dev/null || { echo "Bail out! nm is missing (apt-get install binutils)"; exit 1; }
[ -f "$lib" ] || { echo "Bail out! $lib is missing: run make first"; exit 1; }
# glibc's entry points that go through NSS.
nss='(getpw(nam|uid|ent)(_r)?|getgr(nam|gid|ent)(_r)?|getspnam(_r)?|initgroups|getgrouplist|getlogin(_r)?|getaddrinfo|getnameinfo|gethostby(name|name2|addr)(_r)?|getservby(name|port)(_r)?|getprotoby(name|number)(_r)?|getnetby(name|addr)(_r)?)'
# "OBJECT SYMBOL" for every NSS call of each object of libsbx.a
refs=$(nm -A -u "$lib" | sed -n 's/^[^:]*:\([^:]*\): *U \([^ ]*\)$/\1 \2/p' |
    grep -E " $nss\$" | sort -u | tr '\n' ' ')

is "$refs" "" "none of sbx's own objects calls into NSS"
if "$SBX" --version | grep -q '^static PIE'; then
    # The pattern finds what it should: libnl's utils.o (nl_addr_resolve(),
    # never called) brings getaddrinfo into the binary.
    nm "$SBX" | grep -qE " [Tt] getaddrinfo\$"
    ok $? "the pattern finds NSS entry points where they are (libnl's getaddrinfo in $SBX)"
else
    imports=$(nm -D "$SBX" | sed -n 's/^ *U \([^@ ]*\).*/\1/p' | grep -xE "$nss" | tr '\n' ' ')
    is "$imports" "" "dynamic sbx: the binary imports no NSS function from libc"
    # The pattern finds what it should: libnl-3 (nl_addr_resolve(), never
    # called) imports getaddrinfo.
    libnl=$(ldd "$SBX" | awk '$1 ~ /^libnl-3\.so/ { print $3 }')
    nm -D "$libnl" | sed -n 's/^ *U \([^@ ]*\).*/\1/p' | grep -qxE "$nss"
    ok $? "the pattern finds NSS imports where they are (libnl-3's getaddrinfo, in ${libnl:-no libnl-3 linked})"
fi
done_testing
