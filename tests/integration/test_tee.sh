#!/usr/bin/env bash
# tee: every output gets every frame, zero-length frames included (copies of
# an empty mbuf used to fail and count as drops on every output but the
# first).  pcap in -> tee with three outputs -> three pcap outs, each compared
# frame by frame with the input; no drops; every mbuf back.  The run is ended
# by SIGINT once the outputs hold every frame (--duration is a backstop).
. "$(dirname "$0")/lib.sh"

N=300
$PCAPTOOL gen-empty "$T/in.pcap" $N 5
empty=$($PCAPTOOL empty "$T/in.pcap")
[[ $empty -eq 100 ]] || fail "the input holds $empty zero-length frames, expected 100"

cat >"$T/t.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  rx: { type: port, device: "net_pcap0,rx_pcap=$T/in.pcap" }
  t:  { type: tee }
  o0: { type: port, device: "net_pcap1,tx_pcap=$T/out0.pcap" }
  o1: { type: port, device: "net_pcap2,tx_pcap=$T/out1.pcap" }
  o2: { type: port, device: "net_pcap3,tx_pcap=$T/out2.pcap" }
links:
  - rx.output -> t.input
  - t.output0 -> o0.input
  - t.output1 -> o1.input
  - t.output2 -> o2.input
YAML
expect_exit 0 "$T/check.log" check "$T/t.yaml"

"$SLUICE" run "$T/t.yaml" --summary-json "$T/log.json" --duration 120 >"$T/log" 2>&1 &
pid=$!
count() { [[ -f "$1" ]] && $PCAPTOOL count "$1" 2>/dev/null || echo 0; }
for _ in $(seq 600); do
  kill -0 "$pid" 2>/dev/null || break
  [[ $(count "$T/out0.pcap") -ge $N && $(count "$T/out1.pcap") -ge $N &&
     $(count "$T/out2.pcap") -ge $N ]] && break
  sleep 0.1
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
[[ $rc -eq 0 ]] || { cat "$T/log" >&2; fail "sluice exited $rc, expected 0"; }
pool_back "$T/log"

[[ $(app_counter "$T/log" rx in_packets) == $N ]] ||
  { cat "$T/log" >&2; fail "rx received $(app_counter "$T/log" rx in_packets), expected $N"; }
[[ $(app_counter "$T/log" t drops) == 0 ]] ||
  { cat "$T/log" >&2; fail "tee dropped $(app_counter "$T/log" t drops) frames"; }
for o in 0 1 2; do
  [[ $(link_counter "$T/log" "t.output$o -> o$o.input" packets) == $N ]] ||
    { cat "$T/log" >&2; fail "t.output$o carried $(link_counter "$T/log" "t.output$o -> o$o.input" packets) frames, expected $N"; }
  [[ $(app_counter "$T/log" o$o out_packets) == $N ]] ||
    { cat "$T/log" >&2; fail "o$o sent $(app_counter "$T/log" o$o out_packets), expected $N"; }
  [[ $(app_counter "$T/log" o$o drops) == 0 ]] || fail "o$o dropped frames"
  $PCAPTOOL cmp "$T/out$o.pcap" "$T/in.pcap" || fail "output $o differs from the input"
  [[ $($PCAPTOOL empty "$T/out$o.pcap") -eq $empty ]] || fail "output $o lost zero-length frames"
done
ok "tee: each of 3 outputs got all $N frames, $empty of them zero-length"
