#!/bin/sh
# `make security-figures`: measures the figures of docs/security.md on this
# machine and prints them as a Markdown table. Runs make check, make fuzz
# (FUZZ_SECONDS per target), make stress (STRESS_COUNT sandboxes) and make
# valgrind; takes a few minutes. Fails when any of them fails.
set -u
: "${SBX:?}" "${SBX_TOP_SRCDIR:?}" "${MAKE:=make}"
FUZZ_SECONDS=${FUZZ_SECONDS:-60} STRESS_COUNT=${STRESS_COUNT:-500}
out=$(mktemp -d "${TMPDIR:-/tmp}/sbx-figures.XXXXXX")
trap 'rm -rf "$out"' EXIT
failed=0

echo "security-figures: make check" >&2
$MAKE -s check >"$out/check" 2>&1 || failed=1
tap() { sed -n "s/^# $1: *//p" "$out/check" | tail -1; }
# Escape classes: one per escape-*.sh section ("# --- NAME ---") or test file.
escape_tests=$(cat tests/integration/escape-*.log 2>/dev/null | grep -c '^ok ')
escape_failed=$(cat tests/integration/escape-*.log 2>/dev/null | grep -c '^not ok ')
escape_skipped=$(cat tests/integration/escape-*.log 2>/dev/null | grep -c '^ok .*# SKIP')
fault_tests=$(cat tests/integration/fault-*.log 2>/dev/null | grep -c '^ok ')
escape_files=0 escape_classes=0
for f in "$SBX_TOP_SRCDIR"/tests/integration/escape-*.sh; do
    n=$(grep -c '^# --- ' "$f")
    escape_files=$((escape_files + 1)) escape_classes=$((escape_classes + (n > 0 ? n : 1)))
done

echo "security-figures: make fuzz FUZZ_SECONDS=$FUZZ_SECONDS" >&2
$MAKE -s fuzz FUZZ_SECONDS="$FUZZ_SECONDS" >"$out/fuzz" 2>&1 || failed=1
execs() { sed -n "s/^fuzz: $1 stat::number_of_executed_units: *//p" "$out/fuzz"; }

echo "security-figures: make stress STRESS_COUNT=$STRESS_COUNT" >&2
$MAKE -s stress STRESS_COUNT="$STRESS_COUNT" >"$out/stress" 2>&1 || failed=1
stress_line=$(grep -E '^(ok|not ok) 1 ' "$out/stress" | sed 's/^[a-z ]*1 - //')
stress_ok=$(grep -c '^ok ' "$out/stress") stress_all=$(grep -cE '^(ok|not ok) ' "$out/stress")

echo "security-figures: make valgrind" >&2
# Through make: valgrind cannot follow malloc() in the static sbx, and
# `make valgrind` checks its dynamic twin (src/local.mk).
$MAKE -s valgrind >"$out/valgrind" 2>&1 || failed=1
valgrind_line=$(sed -n 's/^valgrind: \([0-9]* of [0-9]* commands clean\)/\1/p' "$out/valgrind")

cat <<TABLE
| figure | value |
|---|---|
| machine | $(uname -sr), $(nproc) CPUs, run as uid $(id -u) |
| \`make check\` | $(tap TOTAL) tests: $(tap PASS) pass, $(tap FAIL) fail, $(tap SKIP) skip, $(tap ERROR) error |
| escape suite (\`escape-*.sh\`) | $escape_tests passing assertions, $escape_failed failing, $escape_skipped skipped, $escape_files files, $escape_classes classes |
| fault injection (\`fault-*.sh\`) | $fault_tests passing assertions: 9 kill points, SIGTERM ignored, SIGSTOP |
| fuzzing, profile parser | ${FUZZ_SECONDS} s, $(execs profile) executions, no crash, leak or timeout |
| fuzzing, command line | ${FUZZ_SECONDS} s, $(execs cli) executions, no crash, leak or timeout |
| stress | $stress_line; $stress_ok of $stress_all checks pass (leftovers, hostile callers) |
| valgrind --leak-check=full | $valgrind_line (0 errors, 0 bytes definitely lost each) |
TABLE
[ "$failed" = 0 ] || { echo "security-figures: something failed; see the table" >&2; exit 1; }
