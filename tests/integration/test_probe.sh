#!/usr/bin/env bash
# Latency probes (probe_source -> probe_sink) and the sink's JSON report,
# each run ending with every mbuf back in the pool:
#   1. 20000 probes at 200 kpps, one worker, then two (an interlink), then
#      two with the source unpaced and the pool shuffled: every
#      probe measured, none lost or reordered, percentiles in order, the
#      report has exactly the documented keys (the link and the pool hold
#      every probe at once, so a consumer stalled for any time loses none);
#   2. two outputs (two streams) into two sink inputs, plus a plain source's
#      frames (foreign), plus warmup: sequences are per stream;
#   3. split round-robin with only output0 to the sink: every other probe
#      missing, lost = 9999 (numbers 1, 3, ..., 19997);
#   4. split round-robin joined again: each burst of 32 comes back evens
#      first, so 15 probes per burst arrive late: reordered = 625 x 15, lost 0;
#   5. refusals: a fake cpuinfo without constant_tsc/nonstop_tsc
#      (SLUICE_CPUINFO), and a report path that cannot be opened.
# The source is done within 0.2 s of a 2 s run, so nothing is left for the
# drain at stop unless a worker stalls for 1.8 s; no link can overflow, and no
# assertion depends on how fast this machine is.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed to read the JSON report"
case $(uname -m) in
  x86_64|i?86) ;;
  *) skip "the invariant TSC check (constant_tsc, nonstop_tsc) is x86's" ;;
esac
for f in constant_tsc nonstop_tsc; do
  grep -qw "$f" /proc/cpuinfo || skip "this machine's TSC is not invariant (no $f in /proc/cpuinfo): probes refuse to run"
done

run_ok() {   # run_ok LOG CONFIG: run for 2 s, expect exit 0, pool back
  LOG=$1
  expect_exit 0 "$1" run "$2" --summary-json "$1.json" --duration 2
  pool_back "$1"
}

# report FILE KEY: one value of the report (checks the whole report first:
# exactly the documented keys, integers where integers are due, percentiles
# in order, buckets well-formed and summing to packets).
report() {
  python3 - "$1" "$2" <<'PY' || { cat "$1" >&2; fail "bad report $1"; }
import json, sys
r = json.load(open(sys.argv[1]))
keys = ["packets", "lost", "reordered", "foreign", "duration_s", "mpps", "min_ns",
        "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "histogram"]
assert list(r) == keys, "keys %s" % list(r)
for k in keys:
    if k not in ("duration_s", "mpps", "histogram"):
        assert type(r[k]) is int and r[k] >= 0, "%s = %r" % (k, r[k])
assert r["duration_s"] >= 0 and r["mpps"] >= 0
p = [r[k] for k in ("min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")]
assert p == sorted(p), "percentiles out of order: %s" % p
n, last = 0, -1
for lo, hi, c in r["histogram"]:
    assert last <= lo < hi and c > 0, "bucket %s" % [lo, hi, c]
    last, n = hi, n + c
assert n == r["packets"], "buckets sum to %d, packets %d" % (n, r["packets"])
if r["packets"]:
    assert r["histogram"][0][0] <= r["min_ns"] and r["max_ns"] < r["histogram"][-1][1]
print(r[sys.argv[2]])
PY
}

# ---------------------------------------------------------------- 1
# "full": two workers, the source unpaced, so that the sink finds bursts
# queued behind the one it takes (it asks for the next one's stamps first),
# and the pool shuffled (pool.order).
for mode in one two full; do
  rate=200000 order=address
  if [[ $mode == one ]]; then
    workers="workers: { w: auto }"; ws="w"; wk="w"
  else
    workers="workers: { a: auto, b: auto }"; ws="a"; wk="b"
  fi
  [[ $mode == full ]] && rate=0 order=shuffled
  cat >"$T/p1.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
engine: { link_size: 32768 }
pool: { mbufs: 32767, order: $order }
$workers
apps:
  src: { type: probe_source, worker: $ws, count: 20000, rate: $rate, size: 128 }
  snk: { type: probe_sink, worker: $wk, report: "$T/p1-$mode.json" }
links:
  - src.output0 -> snk.input0
YAML
  run_ok "$T/p1-$mode.log" "$T/p1.yaml"
  R="$T/p1-$mode.json"
  expect_eq "packets" "$(report "$R" packets)" 20000
  expect_eq "lost" "$(report "$R" lost)" 0
  expect_eq "reordered" "$(report "$R" reordered)" 0
  expect_eq "foreign" "$(report "$R" foreign)" 0
  expect_eq "snk out_packets" "$(app_counter "$LOG" snk out_packets)" 20000
  expect_eq "snk out_bytes" "$(app_counter "$LOG" snk out_bytes)" 2560000
  [[ $(report "$R" max_ns) -gt 0 ]] || fail "max_ns is 0"
  p50=$(report "$R" p50_ns) p99=$(report "$R" p99_ns) p999=$(report "$R" p999_ns) max=$(report "$R" max_ns)
  # The summary's gauges and the report file agree.
  for k in packets lost reordered foreign min_ns p50_ns p90_ns p99_ns p999_ns max_ns; do
    expect_eq "summary's snk $k" "$(app_counter "$LOG" snk $k)" "$(report "$R" $k)"
  done
  if [[ $mode != one ]]; then
    expect_eq "kind of src.output0 -> snk.input0" "$(link_kind "$LOG" "src.output0 -> snk.input0")" interlink
  fi
  ok "$mode: 20000 probes at rate $rate, pool $order, none lost or reordered, p50 $p50 ns, p99 $p99 ns, max $max ns"
done

# ---------------------------------------------------------------- 2
cat >"$T/p2.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
engine: { link_size: 16384 }
apps:
  src: { type: probe_source, count: 20000, rate: 200000, size: 60 }
  gen: { type: source, count: 1000, rate: 10000 }
  snk: { type: probe_sink, warmup: 500, report: "$T/p2.json" }
links:
  - src.output0 -> snk.input0
  - src.output1 -> snk.input1
  - gen.output -> snk.input2
YAML
run_ok "$T/p2.log" "$T/p2.yaml"
R="$T/p2.json"
expect_eq "packets" "$(report "$R" packets)" 19500
expect_eq "lost" "$(report "$R" lost)" 0
expect_eq "reordered" "$(report "$R" reordered)" 0
expect_eq "foreign" "$(report "$R" foreign)" 1000
expect_eq "snk out_packets" "$(app_counter "$LOG" snk out_packets)" 21000
l0=$(link_counter "$LOG" "src.output0 -> snk.input0" packets)
l1=$(link_counter "$LOG" "src.output1 -> snk.input1" packets)
expect_eq "output0 + output1" $((l0 + l1)) 20000
[[ $l0 -gt 0 && $l1 -gt 0 ]] || fail "one output carried everything ($l0 and $l1)"
ok "two streams ($l0 + $l1), 1000 foreign frames, warmup 500: 19500 measured, none lost or reordered"

# ---------------------------------------------------------------- 3
cat >"$T/p3.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
engine: { link_size: 16384 }
apps:
  src: { type: probe_source, count: 20000, rate: 200000 }
  sp:  { type: split, mode: round-robin }
  snk: { type: probe_sink, report: "$T/p3.json" }
  bin: { type: sink }
links:
  - src.output0 -> sp.input
  - sp.output0 -> snk.input0
  - sp.output1 -> bin.input
YAML
run_ok "$T/p3.log" "$T/p3.yaml"
R="$T/p3.json"
expect_eq "packets" "$(report "$R" packets)" 10000
expect_eq "lost" "$(report "$R" lost)" 9999
expect_eq "reordered" "$(report "$R" reordered)" 0
expect_eq "bin out_packets" "$(app_counter "$LOG" bin out_packets)" 10000
ok "every other probe dropped: 10000 measured, lost 9999"

# ---------------------------------------------------------------- 4
# One worker, unpaced: every breath the source sends one burst of 32; split
# puts its 16 even-numbered probes on output0 and the 16 odd ones on output1;
# join forwards input0's burst, then input1's.  Of each burst's odd probes
# all but the last arrive after a higher number: 15 late per burst.
cat >"$T/p4.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
engine: { burst: 32, link_size: 16384 }
apps:
  src: { type: probe_source, count: 20000 }
  sp:  { type: split, mode: round-robin }
  j:   { type: join }
  snk: { type: probe_sink, report: "$T/p4.json" }
links:
  - src.output0 -> sp.input
  - sp.output0 -> j.input0
  - sp.output1 -> j.input1
  - j.output -> snk.input0
YAML
run_ok "$T/p4.log" "$T/p4.yaml"
R="$T/p4.json"
expect_eq "packets" "$(report "$R" packets)" 20000
expect_eq "lost" "$(report "$R" lost)" 0
expect_eq "reordered" "$(report "$R" reordered)" $((20000 / 32 * 15))
ok "two paths joined: 20000 measured, lost 0, reordered $((20000 / 32 * 15))"

# ---------------------------------------------------------------- 5
printf 'processor\t: 0\nflags\t\t: fpu tsc msr pae\n\nprocessor\t: 1\nflags\t\t: fpu tsc msr pae\n' >"$T/cpuinfo"
cat >"$T/p5.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: probe_source, count: 100 }
  snk: { type: probe_sink }
links:
  - src.output0 -> snk.input0
YAML
LOG="$T/p5.log"
SLUICE_CPUINFO="$T/cpuinfo" run_sluice "$LOG" run "$T/p5.yaml" --summary-json "$LOG.json" --duration 1
rc=$?
[[ $rc -eq 1 ]] || { cat "$LOG" >&2; fail "a TSC that is not invariant: exit $rc, expected 1"; }
expect_in "$LOG" "app 'src': the TSC is not invariant on this machine (no constant_tsc/nonstop_tsc in $T/cpuinfo); latency stamps would be wrong"
ok "a fake cpuinfo without constant_tsc/nonstop_tsc: refused, app named"

cat >"$T/p6.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: probe_source, count: 100 }
  snk: { type: probe_sink, report: "$T/no/such/dir/r.json" }
links:
  - src.output0 -> snk.input0
YAML
LOG="$T/p6.log"
expect_exit 1 "$LOG" run "$T/p6.yaml" --summary-json "$LOG.json" --duration 1
expect_in "$LOG" "app 'snk': parameter 'report': cannot open '$T/no/such/dir/r.json' for writing"
ok "a report that cannot be written: refused at start"
