#!/bin/bash
# sbx against bubblewrap, side by side (issue 8). Run through `make bench`.
# Prints medians (hyperfine -N), the ratio sbx/bwrap, peak RSS, throughput
# (8 streams x 100 sandboxes) and run-time overhead of a syscall-heavy
# workload under the restrictive profile. As root and as uid 65534.
set -u
SBX=${SBX:?} STATLOOP=${STATLOOP:?}
RUNS=${BENCH_RUNS:-300}
STREAMS=${BENCH_STREAMS:-8} PER_STREAM=${BENCH_PER_STREAM:-100}
for t in hyperfine bwrap jq /usr/bin/time unshare setpriv; do
    command -v "$t" >/dev/null || { echo "bench: $t is missing (apt-get install hyperfine bubblewrap jq time util-linux)"; exit 1; }
done
work=$(mktemp -d /tmp/sbx-bench.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
cd "$work"

# bubblewrap with the isolation of sbx's default profile: user, net (bwrap
# brings lo up), pid, ipc, uts, read-only root, private /tmp, minimal
# /dev, fresh /proc, the working directory writable.
BWRAP="bwrap --unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind $work $work --chdir $work"
SBXRUN="$SBX run --profile default --"

as_user() { # USER CMD...: run as root or as the given uid
    local u=$1; shift
    if [ "$u" = root ]; then "$@"; else setpriv --reuid="$u" --regid="$u" --clear-groups env HOME="$work" "$@"; fi
}

median_ms() { jq -r ".results[$2].median * 1000" "$1"; }
rss_kb() { # peak RSS of one run, in kB, as reported by GNU time
    as_user "$1" /usr/bin/time -f '%M' "${@:2}" 2>&1 >/dev/null | tail -1
}

for user in root 65534; do
    label=$([ $user = root ] && echo root || echo "unprivileged (uid $user)")
    echo "== startup, $label: medians of $RUNS runs, interleaved"
    as_user $user hyperfine -N --warmup 20 --runs "$RUNS" --style none --export-json "$work/start-$user.json" \
        "$SBXRUN /bin/true" "$BWRAP /bin/true" "unshare -Urnm /bin/true" "/bin/true" >/dev/null 2>&1 ||
        { echo "bench: hyperfine failed as $label"; as_user $user $SBXRUN /bin/true; exit 1; }
    s=$(median_ms "$work/start-$user.json" 0) b=$(median_ms "$work/start-$user.json" 1)
    u=$(median_ms "$work/start-$user.json" 2) t=$(median_ms "$work/start-$user.json" 3)
    printf '  %-40s %8.2f ms\n' "sbx run --profile default -- true" "$s" "bwrap (same isolation) true" "$b" \
        "unshare -Urnm true (floor)" "$u" "true" "$t"
    printf '  ratio sbx/bwrap: %.2f (target <= 0.80)\n' "$(echo "$s / $b" | bc -l)"
    rs=$(rss_kb $user $SBXRUN /bin/true) rb=$(rss_kb $user $BWRAP /bin/true)
    printf '  peak RSS: sbx %s kB, bwrap %s kB (target: sbx <= bwrap)\n' "$rs" "$rb"

    echo "== throughput, $label: $STREAMS streams x $PER_STREAM sandboxes"
    for tool in sbx bwrap; do
        cmd=$([ $tool = sbx ] && echo "$SBXRUN" || echo "$BWRAP")
        start=$(date +%s%N)
        seq $((STREAMS * PER_STREAM)) | as_user $user xargs -P "$STREAMS" -I{} $cmd /bin/true
        rc=$?
        end=$(date +%s%N)
        printf '  %-6s %8.0f ms wall%s\n' "$tool" "$(echo "($end - $start) / 1000000" | bc -l)" \
            "$([ $rc -eq 0 ] || echo " (some runs FAILED: xargs exit $rc)")"
    done
done

echo "== run-time overhead: stat/open/getppid loop under --profile restrictive (seccomp + ledger)"
cp "$STATLOOP" "$work/stat-loop"
hyperfine -N --warmup 2 --runs 15 --style none --export-json "$work/overhead.json" \
    "$SBX run --profile restrictive -- $work/stat-loop 300000" "$work/stat-loop 300000" >/dev/null 2>&1 ||
    { echo "bench: overhead run failed"; exit 1; }
a=$(median_ms "$work/overhead.json" 0) n=$(median_ms "$work/overhead.json" 1)
printf '  inside sbx %.1f ms, bare %.1f ms: overhead %.1f %% (target <= 3 %%, includes sbx start-up)\n' \
    "$a" "$n" "$(echo "($a - $n) * 100 / $n" | bc -l)"
