#!/bin/sh
# A static sbx must never reach glibc's NSS: NSS loads its modules
# (systemd, sss, ldap) with dlopen(), and in a static program that crashed
# sbx (docs/performance.md, change 6). sbx's own objects use the password
# database only in caller_passwd() (src/cli.c): getpwuid() in a dynamic
# build, fgetpwent() on /etc/passwd in a static one.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

lib=$SBX_TOP_BUILDDIR/src/libsbx.a
command -v nm >/dev/null || { echo "Bail out! nm is missing (apt-get install binutils)"; exit 1; }
[ -f "$lib" ] || { echo "Bail out! $lib is missing: run make first"; exit 1; }
# glibc's entry points that go through NSS.
nss='(getpw(nam|uid|ent)(_r)?|getgr(nam|gid|ent)(_r)?|getspnam(_r)?|initgroups|getgrouplist|getlogin(_r)?|getaddrinfo|getnameinfo|gethostby(name|name2|addr)(_r)?|getservby(name|port)(_r)?|getprotoby(name|number)(_r)?|getnetby(name|addr)(_r)?)'
# "OBJECT SYMBOL" for every NSS call of each object of libsbx.a
refs=$(nm -A -u "$lib" | sed -n 's/^[^:]*:\([^:]*\): *U \([^ ]*\)$/\1 \2/p' |
    grep -E " $nss\$" | sort -u | tr '\n' ' ')

if "$SBX" --version | grep -q '^static PIE'; then
    is "$refs" "" "static sbx: none of its own objects calls into NSS"
    # The pattern finds what it should: libnl's utils.o (nl_addr_resolve(),
    # never called) brings getaddrinfo into the binary.
    nm "$SBX" | grep -qE " [Tt] getaddrinfo\$"
    ok $? "the pattern finds NSS entry points where they are (libnl's getaddrinfo in $SBX)"
else
    is "$refs" "cli.o getpwuid " "dynamic sbx: only caller_passwd() uses NSS (getpwuid)"
    nm -D "$SBX" | grep -qE " U getpwuid(@|\$)"
    ok $? "and the binary imports getpwuid from libc"
fi
done_testing
