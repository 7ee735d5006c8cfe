#!/bin/sh
# `sbx audit --against codex-workspace-write` judges a suite as
# `--against restrictive` does (issue 19): the C suites of the audit
# corpus, one that swallows EPERM (false green, exit 3), an honest one
# (trustworthy, 0) and one that never touches the network (0). The
# honest suite first passes without sbx, so the network code works here.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 10

work=$(mktemp -d "$SBX_TOP_BUILDDIR/tests/agents-audit.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cc=${CC:-cc}
for s in net_swallow net_honest pure; do
    $cc -O1 -o "$work/$s" "$SBX_TOP_SRCDIR/tests/corpus/c/$s.c" || diag "cannot build the C suite $s"
done
cd "$work" || exit 1


run_cmd ./net_honest
is "$status" 0 "without sbx the honest suite's echo over 127.0.0.1 works"

# judge SUITE WANT_STATUS WANT_TEXT
judge() {
    run_cmd "$SBX" audit --against codex-workspace-write -- "./$1"
    got=$status
    is "$status" "$2" "$1: sbx audit --against codex-workspace-write exits $2"
    like "$err" "$3" "$1: the verdict says '$3'"
    run_cmd "$SBX" audit --against restrictive -- "./$1"
    is "$got" "$status" "$1: the same exit status as --against restrictive"
}
judge net_swallow 3 "FALSE GREEN suspected: the command passed under codex-workspace-write"
judge net_honest 0 "trustworthy: the command exercises the network for real (it fails under codex-workspace-write"
judge pure 0 "the command does not touch the network"

done_testing
