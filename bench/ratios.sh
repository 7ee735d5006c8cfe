#!/bin/bash
# The ratios of a `make bench` run against the recorded ones (issue 30).
#
#   bench/ratios.sh OUTPUT RECORDED [--record]
#
# OUTPUT is what bench.sh printed. Every figure it prints as a ratio of
# two things measured side by side is taken, never an absolute time
# (machines and their load differ; a ratio of interleaved runs mostly
# does not): "ratio X: V" lines, throughput, peak RSS sbx/bwrap, the
# run-time overheads and cache costs (as 1 + cost), the [network] allow
# throughput ratios and the proxy's latency and start-up against pasta's
# and outbound = no (bench/egress.sh), the terminal relay against a
# direct pty, sbx audit against one run under qa plus one under
# restrictive (the "audit" part, and bench/audit-runners.sh's
# "audit-runners:" rows, from their two times). Each is keyed by its
# section ("start-up, root") and name, and is either lower-is-better or
# higher-is-better. Printed: each against RECORDED, and which regressed
# by more than 10 % (a lower-is-better ratio above 1.1 x the recorded,
# a higher-is-better one below 0.9 x), named again at the end; --record
# writes the run's ratios into RECORDED (keeping those it did not
# measure). Exit 0, or 3 when one regressed.
set -u
export LC_ALL=C
out=$1 recorded=$2 record=${3:-}
now=$(mktemp)
trap 'rm -f "$now"' EXIT

# VALUE<TAB>lower|higher<TAB>KEY, one a line
awk '
function key(name) { return section " | " name }
function emit(v, better, name) { printf "%.4f\t%s\t%s\n", v, better, key(name) }
/^== / {
    h = substr($0, 4)
    gsub(/ \([^)]*\)/, "", h)
    if (h !~ /^(sbx audit|\[network\])/) sub(/:.*/, "", h)
    section = h; next }
/^  ratio [^:]+: [0-9.]+/ {
    name = $0; sub(/^  ratio /, "", name); sub(/:.*/, "", name)
    v = $0; sub(/^[^:]+: /, "", v); sub(/ .*/, "", v)
    better = (name ~ /relay\/direct/) ? "higher" : "lower"
    if ($0 ~ /%/ ) v = v / 100
    emit(v, better, name); next }
/^  throughput sbx\/bwrap: [0-9.]+/ { v = $0; sub(/.*: /, "", v); sub(/ .*/, "", v); emit(v, "higher", "throughput sbx/bwrap"); next }
/^  peak RSS \(median/ {
    if (match($0, /sbx [0-9]+ kB, bwrap [0-9]+ kB/)) {
        split(substr($0, RSTART, RLENGTH), a, " "); if (a[5] > 0) emit(a[2] / a[5], "lower", "peak RSS sbx/bwrap") }
    next }
/ overhead +-?[0-9.]+ %/ {
    name = $0; sub(/^ +/, "", name); sub(/ +inside sbx.*/, "", name)
    v = $0; sub(/.*overhead +/, "", v); sub(/ %.*/, "", v)
    emit(1 + v / 100, "lower", "overhead: " name); next }
/ cost [-+][0-9.]+ %/ {
    name = $0; sub(/^ +/, "", name); sub(/ +rw .*/, "", name)
    v = $0; sub(/.* cost /, "", v); sub(/ %.*/, "", v)
    emit(1 + v / 100, "lower", "cost: " name); next }
/^audit-runners: [a-z]+ [0-9]+ [0-9.]+ [0-9.]+ / {
    # bench/audit-runners.sh: "audit-runners: RUNNER DENIED BOTH_S AUDIT_S ...";
    # the ratio from the two times (the table rounds it to one decimal)
    if ($4 > 0) { section = "sbx audit on each runner family"
        emit($5 / $4, "lower", "audit/both: " $2 ", " $3 " of 200 denied") }
    next }
/^  (proxy|transparent) \/ pasta +[0-9]+ %/ {
    name = $1 " / pasta"; v = $0; sub(/.*pasta +/, "", v); sub(/ %.*/, "", v)
    emit(v / 100, "higher", name); next }
' "$out" >"$now"

if [ ! -s "$now" ]; then
    echo "== ratios against the recorded ones: none measured"
    exit 0
fi
echo "== ratios against the recorded ones ($recorded; lower or higher is better, as said)"
regressed=0 names=()
while IFS=$'\t' read -r v better k; do
    was=$( { grep -v '^#' "$recorded" 2>/dev/null || true; } | awk -F'\t' -v k="$k" '$3 == k { print $1 }' | tail -1)
    if [ -z "$was" ]; then
        printf '  %-62s %8.3f  (%s is better; none recorded)\n' "$k" "$v" "$better"
        continue
    fi
    verdict=$(awk -v v="$v" -v w="$was" -v b="$better" 'BEGIN {
        c = (w > 0) ? (v / w - 1) * 100 : 0
        # the change printed is the one judged: a higher-is-better ratio
        # regressed when it fell by more than 10 % of the recorded one
        bad = (b == "lower") ? (v > w * 1.10) : (v < w * 0.90)
        printf "%+6.1f %%%s", c, bad ? "  REGRESSED by more than 10 %" : "" }')
    case $verdict in *REGRESSED*) regressed=$((regressed + 1)); names+=("$k") ;; esac
    printf '  %-62s %8.3f  recorded %8.3f  %s (%s is better)\n' "$k" "$v" "$was" "$verdict" "$better"
done <"$now"
if [ "$regressed" -gt 0 ]; then
    echo "bench: $regressed ratio(s) regressed by more than 10 % against $recorded:"
    printf '  %s\n' "${names[@]}"
else
    echo "bench: no ratio regressed by more than 10 % against $recorded"
fi
if [ "$record" = --record ]; then
    tmp=$(mktemp)
    {
        echo "# make bench's ratios (bench/ratios.sh), VALUE<TAB>lower|higher<TAB>SECTION | NAME;"
        echo "# written by \`make bench BENCH_RECORD=1\` on $(date -u +%Y-%m-%d), $(uname -r), $(nproc) cores"
        # the notes written by hand (the load each set was recorded at) stay
        { grep '^#' "$recorded" 2>/dev/null || true; } | tail -n +3
        { grep -v '^#' "$recorded" 2>/dev/null || true; } |
            awk -F'\t' 'NR == FNR { have[$3] = 1; next } !($3 in have)' "$now" -
        cat "$now"
    } >"$tmp"
    mv "$tmp" "$recorded"
    echo "bench: recorded into $recorded"
fi
[ "$regressed" = 0 ] || exit 3
