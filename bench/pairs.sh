# Paired timing, sourced by bench.sh (run-time overhead) and writes.sh (the
# write observer's cost): the two commands of a pair run one right after
# the other, the order swapped every pair, and the cost is the median of
# the pairs' own ratios. On this kind of machine a one-second run can take
# 20 % longer for no reason of its own, for seconds at a time: runs that
# close together see the same machine, so pairing cancels that drift, where
# medians of separate rounds did not (a no-op make read 0.3, 3.4 and 2.2 %
# in three runs that way).

# Wall time of one run in ms (bash's $EPOCHREALTIME: no fork to read it).
timed_ms() {
    local t0=$EPOCHREALTIME t1
    "$@" >/dev/null 2>&1 || return 1
    t1=$EPOCHREALTIME
    echo "$t0 $t1" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }'
}

# pair_runs FILE N A... ::pair:: B...: N pairs, "ms_of_A ms_of_B" a line in
# FILE; false when a run fails.
pair_runs() {
    local file=$1 n=$2 i a b
    shift 2
    local -a A=() B=()
    while [ $# -gt 0 ] && [ "$1" != ::pair:: ]; do A+=("$1"); shift; done
    shift
    B=("$@")
    : >"$file"
    for i in $(seq "$n"); do
        if [ $((i % 2)) = 1 ]; then a=$(timed_ms "${A[@]}") && b=$(timed_ms "${B[@]}")
        else b=$(timed_ms "${B[@]}") && a=$(timed_ms "${A[@]}"); fi || return 1
        echo "$a $b" >>"$file"
    done
}

# pair_summary FILE LABEL FORMAT WIDTH: the medians of each column and of
# the per-pair cost (FORMAT: printf's, taking the label, the two medians
# and the cost), then the cost's quartiles under a label WIDTH wide.
pair_summary() {
    awk '{ a[NR] = $1; b[NR] = $2; r[NR] = ($1 / $2 - 1) * 100 }
         function med(v, n,   i, j, t) {
             for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
             return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
         END { n = NR; ma = med(a, n); mb = med(b, n); mr = med(r, n)
               printf fmt, label, ma, mb, mr
               printf "  %-" width "s (per pair: quartiles %.1f to %.1f %%)\n", "", r[int((n + 3) / 4)], r[int((3 * n + 3) / 4)] }' \
        label="$2" fmt="$3" width="$4" "$1"
}
