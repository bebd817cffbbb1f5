#!/usr/bin/env bash
# scripts/bench-flowcache-scale: bad options are refused with a message and
# exit status 2 (and bench_flowtable's, which it runs); a tiny run without OVS (--quick --no-ovs: 1 run of 1 s,
# 1024 flows from the pcap and from the source app, 1000 expiring flows from
# a pcap and 1024 from the source app)
# prints a row for each part with the flow cache's Mpps, its own cycles a
# packet and its floor, the expiry line (every flow ended, the epoch's
# backlog), both c2c lines (with one CPU: no source-app row and no c2c, each
# said), the flow table alone at 1024 flows (bench_flowtable's rows), and a
# summary whose OVS ratios are NA and whose
# small-flow floor ratio is a number.  Nothing here asserts a rate.
# serial: forwarding pinned to a CPU on hugepages; runs alone
. "$(dirname "$0")/lib.sh"
B="$SRC/scripts/bench-flowcache-scale"
export SLUICE SLUICE_BENCH_NO_BUILD=1 BENCH_PEERS_NO_INSTALL=1

expect_usage "bench-flowcache-scale: unknown argument '--bogus'" --bogus
expect_usage "bench-flowcache-scale: --runs must be a positive integer" --runs 0
expect_usage "bench-flowcache-scale: --flows must be a comma-separated list of flow counts" --flows 1,,2
expect_usage "bench-flowcache-scale: --gen-flows must be a comma-separated list of flow counts" --gen-flows x
expect_usage "bench-flowcache-scale: --expiry-flows must be a positive integer" --expiry-flows 0
expect_usage "bench-flowcache-scale: --expiry-gen-flows must be a positive integer" --expiry-gen-flows -1
expect_usage "bench-flowcache-scale: --duration needs a value" --duration
# a value only bench-peers knows to be out of range: its message, exit 2
# passed on as a failure of the run
"$B" --gen-flows 16777217 >"$T/big" 2>&1 && fail "--gen-flows 16777217 was accepted"
expect_in "$T/big" "bench-peers: --gen-flows values must be 1..16777216"
ok "bad options refused"
# the flow table bench it runs: bad arguments refused, named
bench_refused bench_flowtable "bad flow count 'x' (a list of at most 16 positive numbers)" --flows 1024,x
bench_refused bench_flowtable "bad batch '0' (a list of at most 16 positive numbers)" --batch 0
bench_refused bench_flowtable "batch 300 is above 256" --batch 32,300
bench_refused bench_flowtable "--lookups takes one number" --lookups 5,6
bench_refused bench_flowtable "4294967296 flows is more than a table takes" --flows 4294967296
bench_refused bench_flowtable "unknown argument '--bogus' (--help)" --bogus
"$SLUICE_BUILD/tests/bench_flowtable" --help | grep -q '^usage: bench_flowtable ' || fail "bench_flowtable --help"
ok "bench_flowtable: bad arguments refused, named"

free=$(awk '/^HugePages_Free:/{print $2}' /proc/meminfo)
((EUID == 0 || free >= 512)) || skip "no 1024 MB of free 2 MB hugepages and not root to reserve them"
"$B" --quick --no-ovs --out "$T/q" >"$T/run" 2>&1 || { cat "$T/run"; fail "a tiny run failed"; }
if grep -q "OVS part not run: Sluice's runs need hugepages" "$T/run"; then
  skip "$(sed -n "s/.*Sluice's runs need hugepages: //p" "$T/run")"
fi
num='[0-9]+\.[0-9]+'
row() { grep -E "^$1 +1024 +1 +$num \($num\.\.$num\) +$num +[0-9]+ +$num +$num +NA +NA +NA +NA +$2\$" "$T/run"; }
row pcap NA >/dev/null || { cat "$T/run"; fail "no well-formed pcap row at 1024 flows"; }
if (($(nproc) >= 2)); then
  row generator '[0-9]+' >/dev/null || { cat "$T/run"; fail "no well-formed generator row at 1024 flows"; }
  gen="rows for both sources"
else
  expect_in "$T/run" "bench-peers: flowgen part not run: it needs two CPUs (the source on one, the flow cache on the other)"
  gen="the pcap row (one CPU: no source-app row, as said)"
fi
grep -E "^expiry: 1000 flows stopping at once, run 1: 1000 flows' state gone, delay after the last packet ms p50 $num p99 $num max $num; backlog_hwm [0-9]+$" \
  "$T/run" >/dev/null || { cat "$T/run"; fail "no well-formed expiry line"; }
if (($(nproc) >= 2)); then
  grep -E "^expiry \(source app\): 1024 flows stopping at once, run 1: 1024 flows' state gone, delay after the last packet ms p50 $num p99 $num max $num; backlog_hwm [0-9]+$" \
    "$T/run" >/dev/null || { cat "$T/run"; fail "no well-formed expiry line of the source app's part"; }
else
  expect_in "$T/run" "bench-peers: expirygen part not run: it needs two CPUs"
fi
# the table's section repeats the pair's c2c (measured before and after;
# no pair on one CPU)
if (($(nproc) >= 2)); then
  (($(sed -n '/^== the flow cache at scale/,$p' "$T/run" | grep -c '^c2c of cpus [0-9]* and [0-9]* \(before\|after\) the runs: ') == 2)) ||
    { cat "$T/run"; fail "the c2c lines before and after the runs are missing from the table's section"; }
fi
# where the time goes: the flow table alone at 1024 flows (131072 entries),
# in batches of 32 and 128, three numbers each
for bt in 32 128; do
  sed -n '/^== the flow table alone/,$p' "$T/run" |
    grep -E "^ +1024 +131072 +[0-9]+ +$bt +$num +$num +$num\$" >/dev/null ||
    { cat "$T/run"; fail "no well-formed flow table row at 1024 flows, batch $bt"; }
done
line=$(tail -1 "$T/run")
[[ $line =~ ^summary:\ floor_ratio_min=NA\ floor_ratio_small_min=$num\ ovs_exact_ratio_min=NA\ ovs_ratio_min=NA\ mpps_16m=NA$ ]] ||
  fail "malformed summary (or not the last line): $line"
expect_in "$T/run" "bench-peers: OVS part: no OVS numbers: /nonexistent/ovs-vswitchd-not-wanted not found"
[[ -s $T/q/scale-pcap.dat && -e $T/q/scale-generator.dat ]] || fail "no plot data"
if command -v gnuplot >/dev/null; then
  [[ -s $T/q/flowcache-scale.png ]] || fail "no plot ($(cat "$T/q/gnuplot.log" 2>/dev/null))"
fi
ok "a tiny run: $gen, the expiry line, c2c, the flow table alone, summary: ${line#summary: }"
