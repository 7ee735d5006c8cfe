#!/bin/sh
# The AppArmor profile the Debian package installs (apparmor/sbx): Debian's
# apparmor_parser compiles it without loading it (this kernel may have no
# AppArmor), and a lint checks what the profile is for: sbx gets `userns`,
# what it executes is stacked under sbx_command, which has no capability
# and cannot leave the stack. Each lint rule is shown to catch a profile
# that breaks it. apparmor_parser is required: without it this fails.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
make_tmpdir
PATH=$PATH:/usr/sbin:/sbin
src="$SBX_TOP_SRCDIR/apparmor/sbx"
sed_v3="$SBX_TOP_SRCDIR/apparmor/abi-3.0.sed"

if ! command -v apparmor_parser >/dev/null 2>&1; then
    fail "apparmor_parser is installed (Debian package apparmor, tests/debian-packages)"
    done_testing
    exit 1
fi
pass "apparmor_parser is installed ($(apparmor_parser --version | head -1))"

# What this machine's parser can compile: the profile as written when the
# parser knows ABI 4.0, else what debian/rules installs for older ones.
if [ -e /etc/apparmor.d/abi/4.0 ]; then
    cp "$src" "$tmpdir/installed"
    diag "the parser knows ABI 4.0: compiling apparmor/sbx as written"
else
    sed -f "$sed_v3" "$src" >"$tmpdir/installed"
    diag "the parser predates ABI 4.0: compiling apparmor/sbx through apparmor/abi-3.0.sed, as debian/rules does"
fi

# The ABI 3.0 form may differ from the source only by the abi line and the
# removed 4.0-only rules: then compiling it checks every other line.
sed -f "$sed_v3" "$src" >"$tmpdir/v3"
diff "$src" "$tmpdir/v3" | grep '^[<>]' | sort >"$tmpdir/delta"
cat >"$tmpdir/delta-want" <<'EOF'
<   allow io_uring,
<   allow io_uring,
<   allow mqueue,
<   allow mqueue,
<   allow userns,
<   allow userns,
< abi <abi/4.0>,
> abi <abi/3.0>,
EOF
cmp -s "$tmpdir/delta" "$tmpdir/delta-want"
status=$?
ok $status "abi-3.0.sed changes only the abi line and drops only userns, mqueue and io_uring rules"
[ $status = 0 ] || diag "$(cat "$tmpdir/delta")"

# Warnings that mean a mistake in the profile are errors. (Not
# rule-not-enforced or rule-downgraded: they describe the features of the
# kernel the parser compiles for, here Debian's pinned feature set.)
features=/usr/share/apparmor-features/features
compile() { # compile FILE: apparmor_parser's output in $tmpdir/parser.out
    set -- "$1" --skip-kernel-load --skip-cache --warn=all
    for w in dangerous deprecated format missing override unexpected abi; do
        set -- "$@" --Werror="$w"
    done
    [ -e "$features" ] && set -- "$@" --kernel-features "$features"
    apparmor_parser "$@" >"$tmpdir/parser.out" 2>&1
}

# lint FILE: prints each broken rule, fails if any.
lint() {
    f=$1 bad=0
    compile "$f" || { echo "apparmor_parser: $(grep -v '^Cache' "$tmpdir/parser.out" | head -3)"; bad=1; }
    names=$(apparmor_parser --names "$f" 2>/dev/null | sort | tr '\n' ' ')
    [ "$names" = "sbx sbx_command " ] || { echo "profiles are '$names', not sbx and sbx_command"; bad=1; }
    # the two blocks, by the profile lines that open them
    awk '/^profile sbx /{p=1} p{print} p&&/^}/{exit}' "$f" >"$tmpdir/outer"
    awk '/^profile sbx_command /{p=1} p{print} p&&/^}/{exit}' "$f" >"$tmpdir/inner"
    grep -q '^profile sbx /usr/{local/,}bin/sbx ' "$tmpdir/outer" ||
        { echo "sbx does not attach to /usr/bin/sbx and /usr/local/bin/sbx"; bad=1; }
    # userns: as written (ABI 4.0); the 3.0 form has it unmediated
    grep -q '^  allow userns,$' "$src" || { echo "the source grants sbx no userns"; bad=1; }
    grep -q '^  audit deny capability,$' "$tmpdir/inner" ||
        { echo "sbx_command does not deny capabilities"; bad=1; }
    grep -Eq '^ *(allow +)?capability' "$tmpdir/inner" &&
        { echo "sbx_command allows a capability"; bad=1; }
    # exec rules: a word made of file modes only, one of them x (px, pux,
    # ix, Cx, rix, ...)
    x_rules() { awk '!/^ *#/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w);
        if (w ~ /^[rwaklmixpPcCuU]+$/ && w ~ /x/) { print; next } } }' "$1"; }
    x_rules "$tmpdir/outer" | grep -vxF '  allow px /** -> sbx//&sbx_command,' |
        grep -vxF '  allow /usr/bin/passt{,.avx2} pux,' >"$tmpdir/x" &&
        { echo "sbx has another exec rule: $(cat "$tmpdir/x")"; bad=1; }
    x_rules "$tmpdir/inner" | grep -vxF '  allow pix /** -> &sbx_command,' >"$tmpdir/x" &&
        { echo "sbx_command has another exec rule: $(cat "$tmpdir/x")"; bad=1; }
    grep -Eq 'unconfined|(^|[[:space:]])U?ux' "$tmpdir/inner" &&
        { echo "sbx_command runs something unconfined"; bad=1; }
    grep -Eq '^ *include if exists <local/sbx>$' "$tmpdir/outer" &&
        grep -Eq '^ *include if exists <local/sbx_command>$' "$tmpdir/inner" ||
        { echo "a block lacks its local/ include (dh_apparmor creates local/sbx)"; bad=1; }
    return $bad
}

out=$(lint "$tmpdir/installed")
ok $? "the profile compiles without a warning that means a mistake, and passes the lint"
[ -z "$out" ] || diag "$out"
diag "$(grep -v '^Cache' "$tmpdir/parser.out" | grep . | sort -u)"

# Each lint rule catches the profile that breaks it (a lint that cannot
# fail proves nothing).
mutant() { # mutant DESCRIPTION EXPECTED-MESSAGE SED-EXPRESSION
    sed -e "$3" "$tmpdir/installed" >"$tmpdir/mutant"
    if cmp -s "$tmpdir/mutant" "$tmpdir/installed"; then
        fail "mutant '$1': the edit changed nothing"
        return
    fi
    out=$(lint "$tmpdir/mutant")
    status=$?
    [ $status != 0 ] && case $out in *"$2"*) true ;; *) false ;; esac
    ok $? "lint refuses a profile where $1"
    [ $status != 0 ] || diag "lint accepted it"
}
mutant "a rule does not parse" "apparmor_parser" 's|^  allow network,|  allow network bogus,|'
mutant "an exec is unconfined (ux: the parser's dangerous warning)" "apparmor_parser" \
    's|^  allow /usr/bin/passt{,.avx2} pux,|  allow /usr/bin/passt{,.avx2} ux,|'
mutant "sbx_command keeps capabilities" "does not deny capabilities" '/^  audit deny capability,$/d'
mutant "sbx_command allows one" "allows a capability" 's|^  audit deny capability,|  allow capability net_raw,\n&|'
mutant "the command is not stacked under sbx_command" "another exec rule" \
    's|^  allow px /\*\* -> sbx//&sbx_command,|  allow px /** -> sbx,|'
mutant "the command's own children may leave the stack" "sbx_command has another exec rule" \
    's|^  allow pix /\*\* -> &sbx_command,|  allow pix /** -> sbx,|'
mutant "sbx runs something else unconfined" "another exec rule" \
    's|^  allow px /\*\* -> sbx//&sbx_command,|&\n  allow /opt/** Pux,|'
mutant "sbx attaches to another path" "does not attach" 's|^profile sbx /usr/{local/,}bin/sbx |profile sbx /tmp/sbx |'
mutant "the local include is gone" "local/ include" '/include if exists <local\/sbx>/d'

done_testing
