#!/bin/bash
# sbx against bubblewrap, side by side (issue 8). Run through `make bench`.
#
# Prints, as root and as an unprivileged user (uid 65534, or only the
# calling user when not run as root):
#   - start-up medians (hyperfine -N) of sbx, bubblewrap with the same
#     isolation, `unshare -Urnm true` (the floor) and plain `true`,
#     interleaved: BENCH_ROUNDS rounds of every command, the order reversed
#     each round, so that load from elsewhere on the machine falls on all
#     of them alike; the ratio sbx/bwrap;
#   - the peak RSS of each (GNU time's %M: the largest process the launcher
#     reaped), median of BENCH_RSS_RUNS runs, and that of the init inside;
#   - throughput: BENCH_STREAMS concurrent streams x BENCH_PER_STREAM
#     sandboxes, wall time, sbx and bwrap alternated over two rounds;
# and once, as the calling user, the run-time overhead of two syscall-heavy
# workloads under --profile restrictive (seccomp filter and ledger) against
# the same workload without sbx: a stat-heavy build (a no-op `make` over
# BENCH_BUILD_FILES up-to-date objects, the issue's example) and, as the
# worst case, bench/stat-loop (a system call every ~250 ns and nothing
# else), in BENCH_OVERHEAD_PAIRS pairs of runs back to back (with other
# work on the machine, one command's runs all in a row can take twice as
# long as the other's for no reason of their own).
#
# and, as the calling user, the terminal relay (issue 17): `cat` of 100 MB
# to a pty that tests/helpers/pty-run drains, directly and through the pty
# `sbx run` gives a command whose stdin is a terminal, in
# BENCH_TERMINAL_PAIRS pairs; the target is >= 50 % of the direct rate.
#
# and the cost of a private write layer (cache = PATH) on a warm go build
# and cargo build against plain rw (bench/cache.sh; target <= 5 %).
#
# and the write observer's cost (observe_writes = yes against no) on a
# real compile, the no-op make and start-up (bench/writes.sh; <= 3 %).
#
# and sbx audit test by test on every runner family, 200 tests with 5 and
# with 200 denied (bench/audit-runners.sh; targets <= 2 x and <= 4 x one
# run under qa plus one under restrictive).
#
# BENCH_PARTS (default "startup steps overhead calls terminal cache writes"; also "audit",
# "audit-runners", "egress") picks what to measure. "egress" ([network] allow's proxy
# against pasta, bench/egress.sh) runs in network namespaces of its own:
# as root, or in a user namespace of the calling user.
#
# and (issue 30), in the start-up rounds, sbx run --profile qa against
# `unshare -Urnmpiuf --mount-proc true` (the floor of qa's namespaces)
# and --profile qa-session against qa, and each one's system calls
# (strace -f -c) against bubblewrap's; "steps": where the time of a run
# goes, from `sbx run -v`. At the end, every ratio against the recorded
# ones (bench/ratios.recorded, bench/ratios.sh): which regressed by more
# than 10 %; BENCH_RECORD=1 records this run's.
#
# Timings are noisy: this is not part of `make check`. docs/performance.md
# has the figures and what they mean.
set -u
export LC_ALL=C   # decimal points in $EPOCHREALTIME, printf and bc
here=$(cd "$(dirname "$0")" && pwd)   # the parts cd elsewhere
SBX=${SBX:?set SBX to the sbx binary} STATLOOP=${STATLOOP:?set STATLOOP to bench/stat-loop}
CALLCOST=${CALLCOST:-} PTYRUN=${PTYRUN:-}
RUNS=${BENCH_RUNS:-300}
ROUNDS=${BENCH_ROUNDS:-5}
RSS_RUNS=${BENCH_RSS_RUNS:-11}
STREAMS=${BENCH_STREAMS:-8} PER_STREAM=${BENCH_PER_STREAM:-100}
LOOP_ROUNDS=${BENCH_LOOP_ROUNDS:-300000}
BUILD_FILES=${BENCH_BUILD_FILES:-30000}
for t in hyperfine bwrap jq bc /usr/bin/time unshare setpriv xargs make; do
    command -v "$t" >/dev/null ||
        { echo "bench: $t is missing (apt-get install hyperfine bubblewrap jq bc time util-linux findutils make)"; exit 1; }
done

if [ "$(id -u)" = 0 ]; then
    users="root ${BENCH_USER:-65534}"
else
    users=$(id -u)
    echo "bench: not root: measuring as uid $users only (run as root for the root and uid 65534 figures)"
fi

work=$(mktemp -d /tmp/sbx-bench.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
# Everything printed is kept, for the comparison with the recorded
# ratios at the end (bench/ratios.sh).
exec 3>&1 > >(tee "$work/output")
tee_pid=$!
cp "$STATLOOP" "$work/stat-loop"
chmod 755 "$work/stat-loop"
[ -z "$CALLCOST" ] || { cp "$CALLCOST" "$work/call-cost"; chmod 755 "$work/call-cost"; }

as_user() { # USER CMD...: run as root, the calling user, or the given uid
    local u=$1; shift
    if [ "$u" = root ] || [ "$u" = "$(id -u)" ]; then
        "$@"
    else
        # HOME beside the working directory: sbx refuses to make the whole
        # home directory writable as the working directory
        setpriv --reuid="$u" --regid="$u" --clear-groups env HOME="$work/$u.home" USER=bench "$@"
    fi
}

# bubblewrap with the isolation of sbx's default profile (profiles/default.ini):
# user, net (bwrap brings lo up), pid, ipc and uts namespaces, hostname sbx,
# the host's / read-only, private /tmp and /var/tmp, minimal /dev, a fresh
# /proc, the working directory writable, every path default.ini hides that
# exists here hidden (read from `sbx profile show default`), no capabilities (bwrap run by root keeps them all without
# --cap-drop ALL), no_new_privs (bwrap always sets it). Not
# --unshare-all: that adds a cgroup namespace sbx does not create.
# One thing sbx does that this command does not: the default seccomp
# deny-list (docs/performance.md says what it costs).
bwrap_cmd() { # USER DIR: prints the command line
    local hide="" p
    for p in $(as_user "$1" "$SBX" profile show default | sed -n 's/^hide?* = \([^ ]*\) .*/\1/p'); do
        if [ -d "$p" ]; then hide="$hide --tmpfs $p --remount-ro $p"
        elif [ -e "$p" ]; then hide="$hide --ro-bind /dev/null $p"; fi
    done
    echo "bwrap --unshare-user --unshare-net --unshare-pid --unshare-ipc --unshare-uts" \
        "--hostname sbx --cap-drop ALL --die-with-parent --ro-bind / / --dev /dev --proc /proc" \
        "--tmpfs /tmp --tmpfs /var/tmp --bind $2 $2$hide --chdir $2"
}

# The median of every sample each command got over all the rounds' JSON files.
medians_ms() { # FILE...: prints "median_ms<TAB>command" per command
    jq -rs '[.[].results[]] | group_by(.command)
        | map({c: .[0].command, t: ([.[].times[]] | sort)}) | .[]
        | "\(.t[(.t | length) / 2 | floor] * 1000)\t\(.c)"' "$@"
}
median_of() { # COMMAND FILE...
    local c=$1; shift
    medians_ms "$@" | awk -F'\t' -v c="$c" '$2 == c { print $1 }'
}

rss_kb() { # USER CMD...: median peak RSS of RSS_RUNS runs, in kB
    local u=$1; shift
    for _ in $(seq "$RSS_RUNS"); do
        as_user "$u" /usr/bin/time -f 'RSS %M' "$@" 2>&1 >/dev/null | sed -n 's/^RSS //p'
    done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# interleaved USER PREFIX ROUNDS RUNS WARMUP CMD...: hyperfine -N in ROUNDS
# rounds of RUNS runs of every command, the order reversed every other
# round; JSON in PREFIX-<round>.json. Returns hyperfine's status.
interleaved() {
    local user=$1 prefix=$2 rounds=$3 runs=$4 warmup=$5 r i
    shift 5
    local -a cmds=("$@") ordered
    for r in $(seq "$rounds"); do
        ordered=()
        if [ $((r % 2)) = 0 ]; then
            for ((i = ${#cmds[@]} - 1; i >= 0; i--)); do ordered+=("${cmds[i]}"); done
        else
            ordered=("${cmds[@]}")
        fi
        as_user "$user" hyperfine -N --warmup "$warmup" --runs "$runs" --style none \
            --export-json "$prefix-$r.json" "${ordered[@]}" >/dev/null 2>&1 || return 1
    done
}

# What each sandbox looks like from inside, so a reader can see the
# isolation is the same: / read-only, the working directory writable, /tmp
# private and empty, lo up (::1 is there only then) and alone, the hostname,
# the processes seen, uid, capabilities, no_new_privs and /dev.
parity_probe='w=no; touch .bench-w 2>/dev/null && w=yes && rm -f .bench-w
r=rw; touch /etc/.bench-ro 2>/dev/null && rm -f /etc/.bench-ro || r=ro
echo "root=$r cwd-writable=$w tmp-entries=$(ls -A /tmp | wc -l) lo=$(grep -q " lo$" /proc/net/if_inet6 && echo up || echo down)" \
 "links=$(($(wc -l < /proc/net/dev) - 2)) host=$(hostname) pids=$([ $(ls -d /proc/[0-9]* | wc -l) -lt 10 ] && echo own || echo host)" \
 "uid=$(id -u) capeff=$(sed -n "s/^CapEff:\t//p" /proc/self/status) nnp=$(sed -n "s/^NoNewPrivs:\t//p" /proc/self/status)" \
 "dev=$(ls /dev | tr "\n" " ")"'

PARTS=" ${BENCH_PARTS:-startup steps overhead calls terminal cache writes} "
part() { case "$PARTS" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

part startup && for user in $users; do
    if [ "$user" = root ]; then label=root; dir=$work/root; else label="unprivileged (uid $user)"; dir=$work/$user; fi
    mkdir -p "$dir" "$dir.home"
    [ "$user" = root ] || chown "$user:$user" "$dir" "$dir.home"
    cd "$dir" || exit 1
    BWRAP=$(bwrap_cmd "$user" "$dir")
    SBXRUN="$SBX run --profile default --"

    echo "== isolation, $label: what the command sees"
    for tool in sbx bwrap; do
        cmd=$([ $tool = sbx ] && echo "$SBXRUN" || echo "$BWRAP")
        printf '  %-6s %s\n' "$tool" "$(as_user "$user" $cmd /bin/sh -c "$parity_probe" 2>&1)"
    done

    echo "== start-up, $label: medians of $RUNS runs each, $ROUNDS interleaved rounds"
    per_round=$(( (RUNS + ROUNDS - 1) / ROUNDS ))
    # issue 30's three ratios side by side in the same rounds: default
    # against bwrap, qa against the floor of every namespace qa has (the
    # mount one with a fresh /proc), qa-session (the allowlist proxy)
    # against qa
    FLOOR="unshare -Urnmpiuf --mount-proc"
    cmds=("$SBXRUN /bin/true" "$BWRAP /bin/true" "unshare -Urnm /bin/true" "/bin/true"
          "$SBX run --profile qa -- /bin/true" "$FLOOR /bin/true"
          "$SBX run --profile qa-session -- /bin/true")
    interleaved "$user" "$dir/start" "$ROUNDS" "$per_round" 10 "${cmds[@]}" ||
        { echo "bench: hyperfine failed as $label; each run says:"
          for c in "${cmds[@]}"; do echo "  $c:"; as_user "$user" $c; done; exit 1; }
    s=$(median_of "${cmds[0]}" "$dir"/start-*.json) b=$(median_of "${cmds[1]}" "$dir"/start-*.json)
    u=$(median_of "${cmds[2]}" "$dir"/start-*.json) t=$(median_of "${cmds[3]}" "$dir"/start-*.json)
    q=$(median_of "${cmds[4]}" "$dir"/start-*.json) f=$(median_of "${cmds[5]}" "$dir"/start-*.json)
    qs=$(median_of "${cmds[6]}" "$dir"/start-*.json)
    printf '  %-40s %8.2f ms\n' "sbx run --profile default -- true" "$s" "bwrap (same isolation) true" "$b" \
        "unshare -Urnm true (floor)" "$u" "true" "$t" "sbx run --profile qa -- true" "$q" \
        "$FLOOR true" "$f" "sbx run --profile qa-session -- true" "$qs"
    printf '  ratio sbx/bwrap: %.2f (target <= 0.60)\n' "$(echo "$s / $b" | bc -l)"
    printf '  ratio qa/floor: %.2f (target <= 1.30)\n' "$(echo "$q / $f" | bc -l)"
    printf '  ratio qa-session/qa: %.2f (target <= 1.50)\n' "$(echo "$qs / $q" | bc -l)"
    # System calls of one run, every process (strace -f -c): the count is
    # exact where times are noise.
    if command -v strace >/dev/null; then
        calls() { # CMD...: system calls of one run
            as_user "$user" strace -f -c -o "$dir/strace.out" "$@" >/dev/null 2>&1
            awk '$NF == "total" { print $(NF - 2) }' "$dir/strace.out"
        }
        cs=$(calls $SBXRUN /bin/true) cq=$(calls $SBX run --profile qa -- /bin/true) cb=$(calls $BWRAP /bin/true)
        printf '  system calls per run: sbx default %s, sbx qa %s, bwrap %s\n' "$cs" "$cq" "$cb"
        printf '  ratio system calls sbx/bwrap: %.2f (target <= 1.00)\n' "$(echo "$cs / $cb" | bc -l)"
    else
        echo "  system calls per run: not counted (apt-get install strace)"
    fi
    rs=$(rss_kb "$user" $SBXRUN /bin/true) rb=$(rss_kb "$user" $BWRAP /bin/true)
    printf '  peak RSS (median of %d): sbx %s kB, bwrap %s kB (target: sbx <= bwrap)\n' "$RSS_RUNS" "$rs" "$rb"
    # GNU time sees the processes the launcher reaps; neither reaps its
    # init when the command's status is known, so ask init itself.
    is=$(as_user "$user" $SBXRUN /bin/sed -n 's/^VmHWM:[\t ]*//p' /proc/1/status)
    ib=$(as_user "$user" $BWRAP /bin/sed -n 's/^VmHWM:[\t ]*//p' /proc/1/status)
    printf '  peak RSS of the init inside (VmHWM of PID 1): sbx %s, bwrap %s\n' "$is" "$ib"

    echo "== throughput, $label: $STREAMS streams x $PER_STREAM sandboxes, wall time, best of 2"
    declare -A best=()
    for tool in sbx bwrap bwrap sbx; do
        cmd=$([ $tool = sbx ] && echo "$SBXRUN" || echo "$BWRAP")
        start=$(date +%s%N)
        seq $((STREAMS * PER_STREAM)) | as_user "$user" xargs -P "$STREAMS" -I{} $cmd /bin/true
        rc=$?
        end=$(date +%s%N)
        [ $rc = 0 ] || { echo "bench: some $tool runs FAILED (xargs exit $rc)"; exit 1; }
        ms=$(( (end - start) / 1000000 ))
        if [ -z "${best[$tool]:-}" ] || [ "$ms" -lt "${best[$tool]}" ]; then best[$tool]=$ms; fi
    done
    printf '  %-6s %6d ms wall\n' sbx "${best[sbx]}" bwrap "${best[bwrap]}"
    printf '  throughput sbx/bwrap: %.2f (target >= 1.00)\n' "$(echo "${best[bwrap]} / ${best[sbx]}" | bc -l)"
    unset best
done

# Where the time goes (issue 30): the steps `sbx run -v` times, each
# from the step before it in the same process (the first from main()),
# medians of BENCH_STEP_RUNS runs. -v prints as it goes, so the sum is a
# little above a quiet run's. A step of init or the command counts from
# the supervisor's last one before clone(). The seccomp compile runs in
# a thread beside the plan: its own time is in the step's text, its
# step the wait left at the join.
if part steps; then
    cd "$work" || exit 1
    for prof in default qa; do
        echo "== where the time goes: sbx run -v --profile $prof -- true, medians of ${BENCH_STEP_RUNS:-30} runs (us)"
        for i in $(seq "${BENCH_STEP_RUNS:-30}"); do
            "$SBX" run -v --profile "$prof" -- /bin/true 2>&1 >/dev/null |
                sed -n 's/^sbx[^:]*: \[ *\([0-9]*\) us\] \(.*\)/\1\t\2/p' | sed "s/^/$i\t/"
        done | awk -F'\t' '
            { name = $3; inner = ""
              if (match(name, /\(([0-9]+) us in its thread/)) { inner = substr(name, RSTART + 1, RLENGTH - 15) }
              gsub(/[0-9]+/, "N", name)
              if (!(name in seen)) { seen[name] = ++order; names[order] = name }
              v[name, ++n[name]] = $2; if (inner != "") { w[name, ++m[name]] = inner } }
            function med(a, name, k,   i, j, t, x) {
                for (i = 1; i <= k; i++) x[i] = a[name, i]
                for (i = 2; i <= k; i++) for (j = i; j > 1 && x[j - 1] + 0 > x[j] + 0; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
                return x[int((k + 1) / 2)] }
            END { for (o = 1; o <= order; o++) { name = names[o]
                      printf "  %7d  %s", med(v, name, n[name]), substr(name, 1, 90)
                      if (m[name]) printf " [compile itself: %d]", med(w, name, m[name])
                      printf "\n" } }'
    done
fi

if part overhead; then
cd "$work" || exit 1
filter=$("$SBX" run -q --profile restrictive -- /bin/sed -n 's/^Seccomp:\t//p' /proc/self/status)
case "$filter" in
    2) echo "== run-time overhead under --profile restrictive (seccomp filter active inside: Seccomp 2)" ;;
    *) echo "== run-time overhead under --profile restrictive: WARNING: no seccomp filter inside" \
            "(Seccomp: $filter), the figures below are without filter and ledger" ;;
esac
PAIRS=${BENCH_OVERHEAD_PAIRS:-20}
# timed_ms, pair_runs, pair_summary: bench/pairs.sh says why runs are paired.
. "$here/pairs.sh"
overhead() { # NAME LABEL CMD...
    local name=$1 label=$2
    shift 2
    local -a inside=("$SBX" run --profile restrictive -- "$@")
    timed_ms "${inside[@]}" >/dev/null && timed_ms "$@" >/dev/null ||   # warm-up, and a check
        { echo "bench: $name failed; inside sbx it says:"; "${inside[@]}"; exit 1; }
    pair_runs "$work/$name.pairs" "$PAIRS" "${inside[@]}" ::pair:: "$@" ||
        { echo "bench: a run of $name failed"; exit 1; }
    pair_summary "$work/$name.pairs" "$label" \
        "  %-40s inside sbx %7.1f ms, bare %7.1f ms: overhead %4.1f %%\n" 40
}
echo "  medians of $PAIRS pairs (inside, bare) run back to back, sbx start-up included; target <= 3 %"
# The build: every object up to date, so make stats each source, header
# and object (about two stat() calls per object) and runs nothing.
tree=$work/build-tree
mkdir -p "$tree/include" && touch -d '1 minute ago' "$tree/include/a.h" "$tree/include/b.h" "$tree/include/c.h"
for d in $(seq 0 99); do mkdir -p "$tree/src/d$d" "$tree/obj/d$d"; done
seq 0 $((BUILD_FILES - 1)) | awk '{ printf "src/d%d/f%d.c\n", $1 % 100, $1 }' | (cd "$tree" && xargs touch -d '1 minute ago')
seq 0 $((BUILD_FILES - 1)) | awk '{ printf "obj/d%d/f%d.o\n", $1 % 100, $1 }' | (cd "$tree" && xargs touch)
cat >"$tree/Makefile" <<'MAKEFILE'
SRCS := $(wildcard src/*/*.c)
OBJS := $(SRCS:src/%.c=obj/%.o)
all: $(OBJS)
obj/%.o: src/%.c include/a.h include/b.h include/c.h
	cp $< $@
MAKEFILE
make -s -C "$tree" -q all || { echo "bench: the build tree is not up to date"; exit 1; }
overhead build "no-op make, $BUILD_FILES objects (the target)" make -s -C "$tree"
overhead loop "stat-loop $LOOP_ROUNDS (worst case)" "$work/stat-loop" "$LOOP_ROUNDS"

fi

# Run from $work: the sandboxes' /tmp is private, so $work/call-cost is
# there only as part of the working directory. (From the start-up part's
# last directory, $work/65534, it was not: sbx could not execute it, -q
# kept that quiet and the rows came out empty.) A row that fails says so.
if [ -n "$CALLCOST" ] && part calls; then
    cd "$work" || exit 1
    echo "== what a sandbox adds to each call (ns per call, 200000 calls each; noisy: compare rows)"
    call_row() { # LABEL CMD...
        local label=$1 got rc
        shift
        got=$("$@" 2>"$work/call-cost.err"); rc=$?
        if [ "$rc" = 0 ] && [ -n "$got" ]; then
            printf '  %-18s %s\n' "$label" "$got"
        else
            printf '  %-18s FAILED (exit %s): %s\n' "$label" "$rc" "$(tr '\n' ' ' <"$work/call-cost.err")"
        fi
    }
    call_row bare "$work/call-cost"
    call_row "bwrap (no filter)" bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc "$work/call-cost"
    call_row "sbx default" "$SBX" run --profile default -- "$work/call-cost"
    call_row "sbx restrictive" "$SBX" run --profile restrictive -- "$work/call-cost"
fi

# The terminal relay: pty-run is the terminal emulator (a pty whose master
# it reads in 64 KiB reads and throws away). Direct: cat writes to that
# pty. Through sbx: cat writes to the sandbox's pty, sbx copies its master
# to pty-run's pty (in raw mode). Random bytes: the sandbox's pty has the
# caller's settings (ONLCR), as the direct one has, so both do the same
# output processing once. The median of the pairs' rates, and their ratio.
if [ -n "$PTYRUN" ] && part terminal; then
    echo "== the terminal relay: cat of 100 MB to a pty, direct and through sbx run's pty (target: >= 50 %)"
    tdir=$work/terminal
    mkdir -p "$tdir" && chmod 755 "$tdir" && cd "$tdir" || exit 1
    head -c 104857600 /dev/urandom >"$tdir/blob"
    chmod 644 "$tdir/blob"
    pty_seconds() { "$PTYRUN" -- "$@" 2>&1 >/dev/null | sed -n 's/^bytes=[0-9]* seconds=//p'; }
    direct="" relay=""
    for i in $(seq "${BENCH_TERMINAL_PAIRS:-5}"); do
        direct="$direct $(pty_seconds cat "$tdir/blob")"
        relay="$relay $(pty_seconds "$SBX" run -q --ro "$tdir" -- cat "$tdir/blob")"
    done
    median_of() { printf '%s\n' $1 | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
    d=$(median_of "$direct") r=$(median_of "$relay")
    awk -v d="$d" -v r="$r" 'BEGIN {
        printf "  direct pty          %6.0f MB/s (%.2f s)\n", 100 / d, d
        printf "  through sbx run     %6.0f MB/s (%.2f s)\n", 100 / r, r
        printf "  ratio relay/direct: %.0f %% (target >= 50 %%)\n", 100 * d / r }'
    cd "$work" || exit 1
fi

# sbx audit test by test (issue 16): a suite of 200 tests, 5 (then all)
# of which make a denied call, judged under qa against restrictive; the
# target is audit's wall time <= 2.5 x (one run under qa + one under
# restrictive). Not in the default parts: it takes a minute.
if part egress; then
    if [ "$(id -u)" = 0 ]; then
        SBX=$SBX unshare --net --mount --pid --fork --mount-proc bash "$here/egress.sh"
    else
        SBX=$SBX unshare --user --map-root-user --net --mount --pid --fork --mount-proc \
            bash "$here/egress.sh"
    fi
fi

# The write observer's cost on a compile and the no-op make: bench/writes.sh.
if part writes; then
    SBX=$SBX BENCH_WRITES_DIR=$work bash "$here/writes.sh"
fi

# sbx audit on each runner family (issue 25): bench/audit-runners.sh.
# Not in the default parts: about ten minutes.
if part audit-runners; then
    SBX=$SBX bash "$here/audit-runners.sh"
fi

# The private write layers' cost on warm builds (issue 27): bench/cache.sh.
if part cache; then
    SBX=$SBX bash "$here/cache.sh"
fi

if part audit; then
    adir=$work/audit
    mkdir -p "$adir" && cd "$adir" || exit 1
    ms() { echo $(($(date +%s%N) / 1000000)); }
    # audit_one RUNNER DENIED: 200 tests, every (200 / DENIED)th one denied
    audit_one() {
        runner=$1 denied=$2 every=$((200 / $2))
        echo "== sbx audit test by test: 200 $runner tests, $denied of them denied (target: <= 2.5 x both runs)"
        {
            echo 'import socket, unittest'
            echo 'class T(unittest.TestCase):'
            i=0
            while [ $i -lt 200 ]; do
                if [ $((i % every)) = 0 ]; then
                    echo "    def test_$i(self):"
                    echo '        try: socket.socket().bind(("127.0.0.1", 0))'
                    echo '        except PermissionError: pass'
                else
                    echo "    def test_$i(self): self.assertEqual($i + 1, $((i + 1)))"
                fi
                i=$((i + 1))
            done
        } >test_bench.py
        case $runner in
        unittest) cmd="python3 -m unittest test_bench" ;;
        pytest) cmd="$pytest_python -m pytest -q -p no:cacheprovider test_bench.py" ;;
        esac
        t0=$(ms); "$SBX" run -q --profile qa -- $cmd >/dev/null 2>&1; t1=$(ms)
        "$SBX" run -q --profile restrictive -- $cmd >/dev/null 2>&1; t2=$(ms)
        "$SBX" audit --report "$adir/audit.json" -- $cmd >/dev/null 2>"$adir/audit.err"; t3=$(ms)
        both=$((t2 - t0)) audit=$((t3 - t2))
        echo "  run under qa + under restrictive   $both ms"
        echo "  sbx audit                          $audit ms ($(jq -r .per_test.reruns "$adir/audit.json") re-runs)"
        echo "  ratio audit/(both runs): $(awk -v a=$audit -v b=$both 'BEGIN { printf "%.2f", a / b }') (target <= 2.5)"
        grep '^sbx: audit: [0-9]* tests:' "$adir/audit.err" | sed 's/^/  /'
    }
    # unittest: each denial placed from the output, no re-run; pytest:
    # the tests that reported right after a denial re-run alone
    audit_one unittest 5
    audit_one unittest 200
    pytest_python=
    for py in python3 /usr/bin/python3; do
        if [ -z "$pytest_python" ] && "$py" -c 'import pytest' 2>/dev/null; then
            pytest_python=$py
        fi
    done
    if [ -n "$pytest_python" ]; then
        audit_one pytest 5
        audit_one pytest 200
    else
        echo "== sbx audit with pytest: not measured (python3 -m pytest is missing: apt-get install python3-pytest)"
    fi
fi

# The ratios against the recorded ones (issue 30): which regressed by
# more than 10 %. BENCH_RECORD=1 records this run's instead.
exec 1>&3
wait "$tee_pid" 2>/dev/null
recorded=${BENCH_RECORDED:-$here/ratios.recorded}
bash "$here/ratios.sh" "$work/output" "$recorded" \
    $([ "${BENCH_RECORD:-}" = 1 ] && echo --record)
