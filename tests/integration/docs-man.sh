#!/bin/sh
# The man pages: they render without a groff warning, fit an 80-column
# terminal, and say what the code does: every long option of the help
# text is in sbx(1) and every long option there is in the help; every key
# of the profile key table (src/profile_keys.c), every shipped profile and
# every call of the default seccomp deny-list (src/seccomp.c) is in
# sbx-profile(5).
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
make_tmpdir

man1=$SBX_TOP_SRCDIR/docs/sbx.1
man5=$SBX_TOP_SRCDIR/docs/sbx-profile.5

# The page source with groff escapes for '-' undone, comments dropped.
plain() { sed -e '/^\.\\"/d' -e 's/\\-/-/g' -e 's/\\&//g' "$1"; }

if ! command -v groff >/dev/null 2>&1; then
    skip "groff is not installed (apt-get install groff-base)"
    skip "groff is not installed (apt-get install groff-base)"
    skip "groff is not installed (apt-get install groff-base)"
    skip "groff is not installed (apt-get install groff-base)"
else
    for page in "$man1" "$man5"; do
        name=${page##*/}
        run_cmd groff -man -ww -z "$page"
        is "$status:$err" "0:" "$name renders without warnings (groff -man -ww -z)"
        # man(1) on an 80-column terminal: line length 78n, as man-db sets it
        groff -man -Tascii -rLL=78n -P-cbou "$page" >"$tmpdir/$name.txt" 2>/dev/null
        wide=$(awk 'length > 80 { print FILENAME ":" FNR ": " $0 }' "$tmpdir/$name.txt")
        is "$wide" "" "$name fits 80 columns"
    done
fi

# The pages name the version they describe.
version=$("$SBX" --version | head -n 1)
for page in "$man1" "$man5"; do
    th=$(sed -n 's/^\.TH .*"\(sbx [^"]*\)".*/\1/p' "$page")
    is "$th" "$version" "${page##*/} is for $version (.TH)"
done
deb=$(sed -n '1s/^sbx (\([^)]*\)).*/sbx \1/p' "$SBX_TOP_SRCDIR/debian/changelog")
is "$deb" "$version" "debian/changelog's first entry is $version"

# --- sbx(1) and the help text agree on the long options -----------------
help_opts=$( { "$SBX" --help; for sub in run audit probe profile cache; do "$SBX" help $sub; done; } |
    grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
man_opts=$(plain "$man1" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
for opt in $help_opts; do
    case " $(echo $man_opts) " in
        *" $opt "*) pass "sbx(1) documents $opt" ;;
        *) fail "sbx(1) documents $opt (it is in 'sbx help')" ;;
    esac
done
for opt in $man_opts; do
    case " $(echo $help_opts) " in
        *" $opt "*) pass "$opt from sbx(1) is in 'sbx help'" ;;
        *) fail "$opt from sbx(1) is in 'sbx help' (a stale or invented option?)" ;;
    esac
done
# Each option of run/audit/probe has its own entry (a .TP tag) in sbx(1).
tags=$(plain "$man1" | awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
for sub in run audit probe; do
    for opt in $("$SBX" help $sub | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
        case " $(echo $tags) " in
            *" $opt "*) ;;
            *) fail "sbx(1) has an entry for $opt of sbx $sub"; continue 2 ;;
        esac
    done
    pass "sbx(1) has an entry for every option of sbx $sub"
done
# Every exit status of the contract is in EXIT STATUS.
exit_section=$(plain "$man1" | sed -n '/^\.SH EXIT STATUS/,/^\.SH /p')
for st in 124 125 126 127 3 128+; do
    like "$exit_section" "$st" "sbx(1) EXIT STATUS lists $st"
done
for var in SBX_PROFILE SBX_PROFILE_PATH XDG_CONFIG_HOME NO_COLOR SBX_SECCOMP_CACHE XDG_CACHE_HOME; do
    like "$(plain "$man1" | sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p')" ".B $var" "sbx(1) ENVIRONMENT has $var"
done

# --- sbx-profile(5) and src/profile_keys.c's key table -------------------
# Table rows look like: {"limits", "nofile", K_LIMIT_NOFILE, ...},
keys=$(sed -n 's/^ *{"\([a-z_]*\)", "\([a-z_]*\)", K_.*/\1.\2/p' "$SBX_TOP_SRCDIR/src/profile_keys.c")
nkeys=$(echo "$keys" | wc -w)
[ "$nkeys" -ge 40 ]
ok $? "read the key table of src/profile_keys.c ($nkeys keys)"
for sk in $keys; do
    section=${sk%%.*} key=${sk#*.}
    # the key must be a tag (the line after .TP) inside its .SS [section]
    found=$(plain "$man5" | awk -v sec="[$section]" -v key="$key" '
        /^\.SS / { in_sec = ($2 == sec); next }
        /^\.SH / { in_sec = 0 }
        in_sec && tp { n = split($0, w, /[^a-z_]+/); for (i = 1; i <= n; i++) if (w[i] == key) hit = 1 }
        { tp = /^\.TP/ }
        END { print hit ? "yes" : "no" }')
    is "$found" yes "sbx-profile(5) documents '$key' under [$section]"
done

shipped=$(plain "$man5" | sed -n '/^\.SH SHIPPED PROFILES/,/^\.SH /p' |
    awk 'tp { print } { tp = /^\.TP/ }' | sed 's/^\.B[IR]* //')
for f in "$SBX_TOP_SRCDIR"/profiles/*.ini; do
    name=$(basename "$f" .ini)
    case " $(echo $shipped) " in
        *" $name "*) pass "sbx-profile(5) describes the shipped profile $name" ;;
        *) fail "sbx-profile(5) describes the shipped profile $name" ;;
    esac
done

# The default deny-list as src/seccomp.c has it.
seccomp_c=$SBX_TOP_SRCDIR/src/seccomp.c
if [ -f "$seccomp_c" ]; then
    calls=$(sed -n '/default_denied_calls\[\] = {/,/};/p' "$seccomp_c" | grep -o '"[a-z_0-9]*"' | tr -d '"')
    ioctls=$(grep -o 'SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOC[A-Z]*' "$seccomp_c" | sed 's/.* //')
    denylist=$(plain "$man5" | sed -n '/^\.SH DEFAULT SECCOMP DENY-LIST/,/^\.SH /p')
    [ -n "$calls" ] && [ -n "$ioctls" ]
    ok $? "read the default deny-list of src/seccomp.c"
    for c in $calls $ioctls; do
        like "$denylist" "$c" "sbx-profile(5) lists $c in the default deny-list"
    done
else
    skip "src/seccomp.c is not in this tree yet: the default deny-list cannot be compared"
fi

done_testing
