#!/bin/sh
# docs/hacking.md matches the code: every source file of src/ is named
# there, every file it names exists, and the functions it points a reader
# at are defined where it says.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"

doc=$SBX_TOP_SRCDIR/docs/hacking.md
src=$SBX_TOP_SRCDIR/src

missing=
for f in "$src"/*.c "$src"/*.h; do
    b=$(basename "$f")
    case $b in config.h) continue ;; esac
    case $b in *.h) [ -e "$src/${b%.h}.c" ] && continue ;; esac # named with its .c
    grep -q "$b" "$doc" || missing="$missing $b"
done
is "$missing" "" "every file of src/ is named in docs/hacking.md"

gone=
for b in $(grep -o '`[a-z0-9_-]*\.[ch]`' "$doc" | tr -d '`' | sort -u); do
    [ -e "$src/$b" ] || [ -e "$SBX_TOP_SRCDIR/tests/unit/$b" ] || gone="$gone $b"
done
is "$gone" "" "every file docs/hacking.md names exists"

# file:function pairs the text sends a reader to
undefined=
for pair in plan.c:sandbox_plan_build sandbox.c:sandbox_run mount.c:mount_plan_prepare \
    mount.c:mount_apply mount.c:reopen_entry seccomp.c:seccomp_compile \
    seccomp.c:seccomp_program_install seccomp.c:add_default_deny_list profile.c:validate \
    report_document.c:run_document profile_json.c:profile_to_json ns.c:ns_write_id_maps \
    rlimits.c:limits_apply env.c:env_build cli.c:cli_parse_run; do
    f=${pair%%:*} fn=${pair#*:}
    grep -q "$fn" "$doc" || undefined="$undefined $fn(not-in-doc)"
    grep -Eq "^[a-z].*[ *]$fn\(" "$src/$f" || undefined="$undefined $f:$fn"
done
is "$undefined" "" "the functions docs/hacking.md points at are defined in the files it names"
done_testing
