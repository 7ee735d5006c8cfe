#!/bin/sh
# Issue 30: `make bench` compares its ratios with the recorded ones
# (bench/ratios.sh), the audit's, the proxy's and the terminal relay's
# too, and names each that regressed by more than 10 %. Fed a bench
# output of every kind of ratio line and a recorded file: no sandbox, no
# timing.
. "$SBX_TOP_SRCDIR/tests/integration/lib.sh"
plan 12

make_tmpdir
cat >"$tmpdir/out" <<'EOF'
== start-up, root: medians of 300 runs each, 3 interleaved rounds
  ratio sbx/bwrap: 1.00 (target <= 0.60)
== the terminal relay: cat of 100 MB to a pty, direct and through sbx run's pty (target: >= 50 %)
  ratio relay/direct: 40 % (target >= 50 %)
== [network] allow: throughput, one 64 MiB download (target: proxy >= 80 % of pasta)
  proxy / pasta      95 %
  transparent / pasta 80 %
== [network] allow: connection latency, median time to the first byte of 20 connections (target: proxy <= pasta + 1 ms)
  ratio proxy/pasta latency: 1.300
== [network] allow: start-up, sbx run -- true (target: allow <= outbound = no + 2 ms)
  ratio allow/outbound = no start-up: 1.05
== sbx audit test by test: 200 unittest tests, 5 of them denied (target: <= 2.5 x both runs)
  ratio audit/(both runs): 1.2 (target <= 2.5)
runner    denied  both (s) audit (s) re-runs  ratio  target  met    found
cargo          5      0.20      0.30       0    1.5    <= 2  met    5/5 flagged
audit-runners: cargo 5 0.20 0.30 0 1.5 2 met 5/5 flagged
audit-runners: go 200 1.00 2.00 2 2.0 4 met 200/200 flagged
EOF
tab=$(printf '\t')
cat >"$tmpdir/recorded" <<EOF
# recorded at a load of about 4
1.0000${tab}lower${tab}start-up, root | sbx/bwrap
0.5000${tab}higher${tab}the terminal relay | relay/direct
1.0000${tab}higher${tab}[network] allow: throughput, one 64 MiB download | proxy / pasta
0.8500${tab}higher${tab}[network] allow: throughput, one 64 MiB download | transparent / pasta
1.0000${tab}lower${tab}[network] allow: connection latency, median time to the first byte of 20 connections | proxy/pasta latency
1.0000${tab}lower${tab}[network] allow: start-up, sbx run -- true | allow/outbound = no start-up
1.0000${tab}lower${tab}sbx audit test by test: 200 unittest tests, 5 of them denied | audit/(both runs)
1.0000${tab}lower${tab}sbx audit on each runner family | audit/both: cargo, 5 of 200 denied
2.0000${tab}lower${tab}sbx audit on each runner family | audit/both: go, 200 of 200 denied
EOF

run_cmd bash "$SBX_TOP_SRCDIR/bench/ratios.sh" "$tmpdir/out" "$tmpdir/recorded"
is "$status" 3 "a regression: exit 3"
regressed() { printf '%s\n' "$out" | grep -F "$1" | grep -q 'REGRESSED'; }
regressed "relay/direct"; ok $? "the terminal relay (0.40 against 0.50, higher is better) regressed"
regressed "| proxy/pasta latency"; ok $? "the proxy's latency (1.3 against 1.0) regressed"
regressed "audit/(both runs)"; ok $? "the audit part (1.2 against 1.0) regressed"
regressed "audit/both: cargo, 5 of 200 denied"; ok $? "an audit-runners row, from its two times (1.5 against 1.0), regressed"
! regressed "audit/both: go"; ok $? "an audit-runners row as recorded (2.0) did not"
! regressed "| proxy / pasta"; ok $? "the proxy's throughput 5 % lower: not more than 10 %"
! regressed "transparent / pasta"; ok $? "transparent 5.9 % lower: not more than 10 %"
! regressed "allow/outbound = no start-up"; ok $? "the proxy's start-up 5 % higher: not more than 10 %"
! regressed "sbx/bwrap"; ok $? "an unchanged start-up ratio did not"
like "$out" "bench: 4 ratio(s) regressed by more than 10 %" "four counted"
tail=$(printf '%s\n' "$out" | sed -n '/regressed by more than 10 % against/,$p' | sed 1d)
is "$tail" "  the terminal relay | relay/direct
  [network] allow: connection latency, median time to the first byte of 20 connections | proxy/pasta latency
  sbx audit test by test: 200 unittest tests, 5 of them denied | audit/(both runs)
  sbx audit on each runner family | audit/both: cargo, 5 of 200 denied" "each named at the end"

done_testing
