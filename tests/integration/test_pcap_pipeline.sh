#!/usr/bin/env bash
# pcap in -> l2fwd (swap, then set) -> pcap out, compared packet by packet with
# the expected frames; every mbuf back in the pool afterwards.
. "$(dirname "$0")/lib.sh"

$PCAPTOOL gen "$T/in.pcap" 600 7
$PCAPTOOL l2swap "$T/in.pcap" "$T/want-swap.pcap"
$PCAPTOOL l2set "$T/in.pcap" "$T/want-set.pcap" 02:aa:00:00:00:01 02:bb:00:00:00:02

for mode in swap set; do
  cat >"$T/p.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  io:  { type: port, device: "net_pcap0,rx_pcap=$T/in.pcap,tx_pcap=$T/out-$mode.pcap" }
  fwd: { type: l2fwd, mode: $mode, src_mac: "02:aa:00:00:00:01", dst_mac: "02:bb:00:00:00:02" }
links:
  - io.output -> fwd.input
  - fwd.output -> io.input
YAML
  expect_exit 0 "$T/log" run "$T/p.yaml" --summary-json "$T/log.json" --duration 2
  pool_back "$T/log"
  [[ $(app_counter "$T/log" io in_packets) == 600 ]] || fail "io received $(app_counter "$T/log" io in_packets), expected 600"
  [[ $(app_counter "$T/log" io out_packets) == 600 ]] || fail "io sent $(app_counter "$T/log" io out_packets), expected 600"
  [[ $(link_counter "$T/log" "io.output -> fwd.input" packets) == 600 ]] || fail "link count"
  $PCAPTOOL cmp "$T/out-$mode.pcap" "$T/want-$mode.pcap" || fail "$mode output differs"
  ok "l2fwd $mode: 600 packets identical to the expected output"
done
