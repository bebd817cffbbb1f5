#!/usr/bin/env bash
# Real pipelines with exact packet counts, each ending with every mbuf back in
# the pool:
#   1. source on one worker -> l2fwd + sink on another (a cross-worker interlink),
#      stopped by SIGINT;
#   2. source -> sink with count: N (unpaced and paced): exactly N packets;
#   3. split round-robin into two pcaps: even and odd packets;
#   4. split hash into two pcaps: one flow never spans two outputs;
#   5. tee into two pcaps: both equal the input;
#   6. join of two pcap inputs: every packet of both, each input's order kept;
#   7. malformed frames through split hash and l2fwd (and l2fwd -> sink):
#      no crash, l2fwd drops exactly the frames shorter than an Ethernet header.
# pcap rx stops at the end of its file, so a short --duration is enough; no
# assertion depends on how fast this machine is.
. "$(dirname "$0")/lib.sh"

# no_crash LOG: nothing in LOG looks like a crash or a DPDK panic.
no_crash() {
  if grep -qiE 'segmentation fault|core dumped|aborted|panic|backtrace|caught signal' "$1"; then
    cat "$1" >&2
    fail "the output shows a crash"
  fi
}

run_ok() {   # run_ok LOG CONFIG: run for 2 s, expect exit 0, no crash, pool back
  LOG=$1
  expect_exit 0 "$1" run "$2" --summary-json "$1.json" --duration 2
  no_crash "$1"
  pool_back "$1"
}

# ---------------------------------------------------------------- 1
# The cross-worker interlink and the same-worker link hold link_size = 16384
# packets, more than the 10000 sent, so no link can drop whatever the relative
# speed of the two workers; the pool (16383 mbufs) only paces the source.
cat >"$T/two.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
engine: { link_size: 16384 }
workers: { a: auto, b: auto }
apps:
  src: { type: source, worker: a, count: 10000, flows: 100, size: 64 }
  fwd: { type: l2fwd, worker: b, mode: swap }
  snk: { type: sink, worker: b }
links:
  - src.output -> fwd.input
  - fwd.output -> snk.input
YAML
LOG="$T/two.log"
"$SLUICE" run "$T/two.yaml" --summary-json "$LOG.json" --stats 0.2 >"$LOG" 2>&1 &
pid=$!
trap 'kill -KILL $pid 2>/dev/null; rm -rf "$T"' EXIT
# Wait until the source has sent all 10000 and the sink has taken them, as
# the engine's own counters say (an event: a stall of either worker only
# makes the wait longer).
all_through() {
  snap && [[ $(summary_get "$T/s.json" apps src counters in_packets) == 10000 &&
             $(summary_get "$T/s.json" apps snk counters out_packets) == 10000 ]]
}
wait_event "all 10000 packets at the sink" "$pid" "$LOG" all_through
interrupt "$pid" "$LOG"
rc=$?
trap 'rm -rf "$T"' EXIT
[[ $rc -eq 0 ]] || { cat "$LOG" >&2; fail "sluice exited $rc after SIGINT, expected 0"; }
expect_in "$LOG" "sluice: SIGINT received, stopping"
no_crash "$LOG"
pool_back "$LOG"
expect_eq "src in_packets" "$(app_counter "$LOG" src in_packets)" 10000
expect_eq "snk out_packets" "$(app_counter "$LOG" snk out_packets)" 10000
expect_eq "snk out_bytes" "$(app_counter "$LOG" snk out_bytes)" 640000
expect_eq "fwd drops" "$(app_counter "$LOG" fwd drops)" 0
expect_eq "kind of src.output -> fwd.input" "$(link_kind "$LOG" "src.output -> fwd.input")" interlink
expect_eq "kind of fwd.output -> snk.input" "$(link_kind "$LOG" "fwd.output -> snk.input")" local
expect_eq "interlink packets" "$(link_counter "$LOG" "src.output -> fwd.input" packets)" 10000
expect_eq "interlink drops" "$(link_counter "$LOG" "src.output -> fwd.input" drops)" 0
expect_eq "local link packets" "$(link_counter "$LOG" "fwd.output -> snk.input" packets)" 10000
expect_eq "local link drops" "$(link_counter "$LOG" "fwd.output -> snk.input" drops)" 0
ok "two workers: 10000 packets over an interlink, none dropped, stopped by SIGINT"

# ---------------------------------------------------------------- 2
# Unpaced, then paced (5000 at 50k pps take 0.1 s, well inside the 2 s run).
for rate in 0 50000; do
  n=$([[ $rate == 0 ]] && echo 12345 || echo 5000)
  cat >"$T/count.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, count: $n, rate: $rate, size: 128, flows: 7 }
  snk: { type: sink }
links:
  - src.output -> snk.input
YAML
  run_ok "$T/count.log" "$T/count.yaml"
  expect_eq "src in_packets" "$(app_counter "$LOG" src in_packets)" $n
  expect_eq "snk out_packets" "$(app_counter "$LOG" snk out_packets)" $n
  expect_eq "snk out_bytes" "$(app_counter "$LOG" snk out_bytes)" $((n * 128))
  expect_eq "link drops" "$(link_counter "$LOG" "src.output -> snk.input" drops)" 0
  ok "source count $n at rate $rate: exactly $n packets at the sink"
done

# ---------------------------------------------------------------- 3
$PCAPTOOL gen "$T/in.pcap" 601 21
$PCAPTOOL pick "$T/in.pcap" "$T/want-even.pcap" 0 2
$PCAPTOOL pick "$T/in.pcap" "$T/want-odd.pcap" 1 2
cat >"$T/rr.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  in: { type: port, device: "net_pcap0,rx_pcap=$T/in.pcap" }
  sp: { type: split, mode: round-robin }
  o0: { type: port, device: "net_pcap1,tx_pcap=$T/rr0.pcap" }
  o1: { type: port, device: "net_pcap2,tx_pcap=$T/rr1.pcap" }
links:
  - in.output -> sp.input
  - sp.output0 -> o0.input
  - sp.output1 -> o1.input
YAML
run_ok "$T/rr.log" "$T/rr.yaml"
expect_eq "in in_packets" "$(app_counter "$LOG" in in_packets)" 601
expect_eq "o0 out_packets" "$(app_counter "$LOG" o0 out_packets)" 301
expect_eq "o1 out_packets" "$(app_counter "$LOG" o1 out_packets)" 300
$PCAPTOOL cmp "$T/rr0.pcap" "$T/want-even.pcap" || fail "output0 is not packets 0, 2, 4, ..."
$PCAPTOOL cmp "$T/rr1.pcap" "$T/want-odd.pcap" || fail "output1 is not packets 1, 3, 5, ..."
ok "split round-robin: output0 = even packets, output1 = odd packets"

# ---------------------------------------------------------------- 4
$PCAPTOOL gen-flows "$T/flows.pcap" 3000 64 5
cat >"$T/hash.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  in: { type: port, device: "net_pcap0,rx_pcap=$T/flows.pcap" }
  sp: { type: split, mode: hash }
  o0: { type: port, device: "net_pcap1,tx_pcap=$T/h0.pcap" }
  o1: { type: port, device: "net_pcap2,tx_pcap=$T/h1.pcap" }
links:
  - in.output -> sp.input
  - sp.output0 -> o0.input
  - sp.output1 -> o1.input
YAML
run_ok "$T/hash.log" "$T/hash.yaml"
expect_eq "in in_packets" "$(app_counter "$LOG" in in_packets)" 3000
h0=$(app_counter "$LOG" o0 out_packets)
h1=$(app_counter "$LOG" o1 out_packets)
expect_eq "o0 + o1 out_packets" $((h0 + h1)) 3000
expect_eq "packets in h0.pcap" "$($PCAPTOOL count "$T/h0.pcap")" "$h0"
expect_eq "packets in h1.pcap" "$($PCAPTOOL count "$T/h1.pcap")" "$h1"
[[ $h0 -gt 0 && $h1 -gt 0 ]] || fail "64 flows all went to one output ($h0 and $h1)"
$PCAPTOOL flows "$T/h0.pcap" "$T/h1.pcap" || fail "a flow was spread over both outputs"
# Every input packet is in exactly one output, in input order.
$PCAPTOOL interleave "$T/flows.pcap" "$T/h0.pcap" "$T/h1.pcap" || fail "split hash lost, changed or reordered packets"
ok "split hash: $h0 + $h1 packets, each flow on one output, order kept"

# ---------------------------------------------------------------- 5
cat >"$T/tee.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  in: { type: port, device: "net_pcap0,rx_pcap=$T/in.pcap" }
  t:  { type: tee }
  o0: { type: port, device: "net_pcap1,tx_pcap=$T/tee0.pcap" }
  o1: { type: port, device: "net_pcap2,tx_pcap=$T/tee1.pcap" }
links:
  - in.output -> t.input
  - t.output0 -> o0.input
  - t.output1 -> o1.input
YAML
run_ok "$T/tee.log" "$T/tee.yaml"
expect_eq "tee drops" "$(app_counter "$LOG" t drops)" 0
expect_eq "o0 out_packets" "$(app_counter "$LOG" o0 out_packets)" 601
expect_eq "o1 out_packets" "$(app_counter "$LOG" o1 out_packets)" 601
$PCAPTOOL cmp "$T/tee0.pcap" "$T/in.pcap" || fail "tee output0 differs from the input"
$PCAPTOOL cmp "$T/tee1.pcap" "$T/in.pcap" || fail "tee output1 differs from the input"
ok "tee: both outputs equal the input"

# ---------------------------------------------------------------- 6
$PCAPTOOL gen-flows "$T/j1.pcap" 450 30 8
cat >"$T/join.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  a:  { type: port, device: "net_pcap0,rx_pcap=$T/in.pcap" }
  b:  { type: port, device: "net_pcap1,rx_pcap=$T/j1.pcap" }
  j:  { type: join }
  o:  { type: port, device: "net_pcap2,tx_pcap=$T/joined.pcap" }
links:
  - a.output -> j.input0
  - b.output -> j.input1
  - j.output -> o.input
YAML
run_ok "$T/join.log" "$T/join.yaml"
expect_eq "a in_packets" "$(app_counter "$LOG" a in_packets)" 601
expect_eq "b in_packets" "$(app_counter "$LOG" b in_packets)" 450
expect_eq "o out_packets" "$(app_counter "$LOG" o out_packets)" 1051
expect_eq "packets in joined.pcap" "$($PCAPTOOL count "$T/joined.pcap")" 1051
$PCAPTOOL interleave "$T/joined.pcap" "$T/in.pcap" "$T/j1.pcap" || fail "join lost, changed or reordered packets"
ok "join: 601 + 450 = 1051 packets, each input's order kept"

# ---------------------------------------------------------------- 7
$PCAPTOOL gen-bad "$T/bad.pcap" 1000 9
$PCAPTOOL minlen "$T/bad.pcap" "$T/bad14.pcap" 14
$PCAPTOOL l2swap "$T/bad14.pcap" "$T/want-bad.pcap"
nbad=$($PCAPTOOL count "$T/bad.pcap")
n14=$($PCAPTOOL count "$T/bad14.pcap")
bytes=$($PCAPTOOL bytes "$T/bad.pcap")
runts=$((nbad - n14))
[[ $runts -gt 0 ]] || fail "gen-bad made no frame shorter than 14 bytes"
cat >"$T/bad.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  in: { type: port, device: "net_pcap0,rx_pcap=$T/bad.pcap" }
  sp: { type: split, mode: hash }
  fa: { type: l2fwd }
  fb: { type: l2fwd }
  oa: { type: port, device: "net_pcap1,tx_pcap=$T/bad-a.pcap" }
  ob: { type: port, device: "net_pcap2,tx_pcap=$T/bad-b.pcap" }
links:
  - in.output -> sp.input
  - sp.output0 -> fa.input
  - sp.output1 -> fb.input
  - fa.output -> oa.input
  - fb.output -> ob.input
YAML
run_ok "$T/bad.log" "$T/bad.yaml"
# net_pcap neither pads nor trims on receive: the frames arrive as written.
expect_eq "in in_packets" "$(app_counter "$LOG" in in_packets)" "$nbad"
expect_eq "in in_bytes" "$(app_counter "$LOG" in in_bytes)" "$bytes"
s0=$(link_counter "$LOG" "sp.output0 -> fa.input" packets)
s1=$(link_counter "$LOG" "sp.output1 -> fb.input" packets)
expect_eq "split output0 + output1" $((s0 + s1)) "$nbad"
for x in a b; do
  sx=$([[ $x == a ]] && echo "$s0" || echo "$s1")
  fo=$(link_counter "$LOG" "f$x.output -> o$x.input" packets)
  fd=$(app_counter "$LOG" "f$x" drops)
  expect_eq "f$x: forwarded + dropped" $((fo + fd)) "$sx"
  expect_eq "o$x out_packets" "$(app_counter "$LOG" "o$x" out_packets)" "$fo"
done
expect_eq "l2fwd drops (fa + fb)" $(( $(app_counter "$LOG" fa drops) + $(app_counter "$LOG" fb drops) )) "$runts"
$PCAPTOOL interleave "$T/want-bad.pcap" "$T/bad-a.pcap" "$T/bad-b.pcap" ||
  fail "the forwarded malformed frames are not the swapped frames of 14 bytes or more"

cat >"$T/bad2.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  in:  { type: port, device: "net_pcap3,rx_pcap=$T/bad.pcap" }
  fwd: { type: l2fwd, mode: set }
  snk: { type: sink }
links:
  - in.output -> fwd.input
  - fwd.output -> snk.input
YAML
run_ok "$T/bad2.log" "$T/bad2.yaml"
expect_eq "in in_packets" "$(app_counter "$LOG" in in_packets)" "$nbad"
expect_eq "fwd drops" "$(app_counter "$LOG" fwd drops)" "$runts"
expect_eq "snk out_packets" "$(app_counter "$LOG" snk out_packets)" "$n14"
expect_eq "snk out_bytes" "$(app_counter "$LOG" snk out_bytes)" "$($PCAPTOOL bytes "$T/bad14.pcap")"
ok "malformed: $nbad frames, $runts shorter than 14 bytes dropped by l2fwd, the rest forwarded intact"
