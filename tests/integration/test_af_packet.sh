#!/usr/bin/env bash
# af_packet ports on veth pairs: Sluice as a two-port wire between two network
# namespaces, with ping from one to the other going through it.
#
#   ns A: vethA 198.18.0.1/24 ==veth== ethA ]                [ ethB ==veth== vethB 198.18.0.2/24 : ns B
#                                           ns E: sluice a <-> b
#
# The engine's veth ends live in a namespace of their own (E), so that no
# other traffic of this machine reaches them.  IPv6 is off everywhere, so the
# only frames are ARP and ICMP from the ping, and the counters must agree
# exactly: with Sluice's own (apps and links) and with the kernel's (veths).
# Variants: one worker; two workers with one port each (cross-worker links);
# a tee sending a copy of every A->B frame to a sink.  Then a port naming an
# interface that does not exist must fail the run, naming the app and device.
. "$(dirname "$0")/lib.sh"

PINGS=20

cleanup() {
  local rc=$?
  wire_cleanup
  return $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

wire_init afp 198.18.0.1 198.18.0.2

# ----------------------------------------------------------------- set-up
wire_up

# Small af_packet rings: 64 frames of 2 KiB per direction.
AFP="qpairs=1,blocksz=4096,framesz=2048,framecnt=64"

# config VARIANT: write $T/VARIANT.yaml.
config() {
  local head="dpdk: { args: $EAL_ARGS }
pool: { mbufs: 4095 }"
  case $1 in
    one) cat <<YAML
$head
apps:
  a: { type: port, device: "net_af_packet0,iface=ethA,$AFP" }
  b: { type: port, device: "net_af_packet1,iface=ethB,$AFP" }
links:
  - a.output -> b.input
  - b.output -> a.input
YAML
    ;;
    two) cat <<YAML
$head
workers: { wa: auto, wb: auto }
apps:
  a: { type: port, worker: wa, device: "net_af_packet0,iface=ethA,$AFP" }
  b: { type: port, worker: wb, device: "net_af_packet1,iface=ethB,$AFP" }
links:
  - a.output -> b.input
  - b.output -> a.input
YAML
    ;;
    tee) cat <<YAML
$head
workers: { wa: auto, wb: auto }
apps:
  a:    { type: port, worker: wa, device: "net_af_packet0,iface=ethA,$AFP" }
  b:    { type: port, worker: wa, device: "net_af_packet1,iface=ethB,$AFP" }
  copy: { type: tee, worker: wa }
  seen: { type: sink, worker: wb }
links:
  - a.output -> copy.input
  - copy.output0 -> b.input
  - copy.output1 -> seen.input
  - b.output -> a.input
YAML
    ;;
  esac >"$T/$1.yaml"
}

# num VALUE WHAT: fail unless VALUE is a number.
num() { [[ $1 =~ ^[0-9]+$ ]] || { cat "$LOG" >&2; fail "no number for $2 in the summary"; }; }

for variant in one two tee; do
  LOG=$T/$variant.log
  config "$variant"
  expect_exit 0 "$T/$variant.check" check "$T/$variant.yaml"

  read -r a_tx0 a_rx0 b_tx0 b_rx0 < <(wire_kstats)
  # --duration is a backstop only: the run is ended by SIGINT below.
  wire_start "$LOG" "$T/$variant.yaml" 600
  wire_ping "$variant" "$LOG" "$PINGS"
  wire_stop "$LOG" "$variant"
  read -r a_tx1 a_rx1 b_tx1 b_rx1 < <(wire_kstats)

  a_in=$(app_counter "$LOG" a in_packets);  num "$a_in" "a in_packets"
  a_out=$(app_counter "$LOG" a out_packets); num "$a_out" "a out_packets"
  a_drop=$(app_counter "$LOG" a drops);     num "$a_drop" "a drops"
  b_in=$(app_counter "$LOG" b in_packets);  num "$b_in" "b in_packets"
  b_out=$(app_counter "$LOG" b out_packets); num "$b_out" "b out_packets"
  b_drop=$(app_counter "$LOG" b drops);     num "$b_drop" "b drops"
  if [[ $variant == tee ]]; then
    ab="a.output -> copy.input"
  else
    ab="a.output -> b.input"
  fi
  ba="b.output -> a.input"
  ab_pk=$(link_counter "$LOG" "$ab" packets); num "$ab_pk" "$ab packets"
  ab_dr=$(link_counter "$LOG" "$ab" drops);   num "$ab_dr" "$ab drops"
  ba_pk=$(link_counter "$LOG" "$ba" packets); num "$ba_pk" "$ba packets"
  ba_dr=$(link_counter "$LOG" "$ba" drops);   num "$ba_dr" "$ba drops"
  freed=$(summary_get "$LOG.json" drained_at_stop freed)
  num "$freed" "packets freed from links at stop"

  # A->B: every echo request and A's ARP request; B->A: the replies.
  (( b_out >= PINGS + 1 )) || fail "$variant: b sent $b_out frames out of ethB, expected >= $((PINGS + 1))"
  (( a_out >= PINGS + 1 )) || fail "$variant: a sent $a_out frames out of ethA, expected >= $((PINGS + 1))"
  (( ab_pk >= PINGS + 1 && ba_pk >= PINGS + 1 )) ||
    fail "$variant: links carried $ab_pk (A->B) and $ba_pk (B->A) frames, expected >= $((PINGS + 1))"
  (( ab_dr == 0 && ba_dr == 0 && a_drop == 0 && b_drop == 0 && freed == 0 )) ||
    fail "$variant: drops: links $ab_dr/$ba_dr, ports $a_drop/$b_drop, freed at stop $freed"
  # Nothing is lost or made up inside Sluice...
  (( a_in == ab_pk && ab_pk == b_out && b_in == ba_pk && ba_pk == a_out )) ||
    fail "$variant: a in $a_in, $ab $ab_pk, b out $b_out; b in $b_in, $ba $ba_pk, a out $a_out"
  # ...nor between Sluice and the hosts' kernels: what a host received came
  # from Sluice alone, frame for frame.  What a host sent may exceed what
  # Sluice took in by a late ARP probe sent after Sluice closed its socket.
  (( b_rx1 - b_rx0 == b_out && a_rx1 - a_rx0 == a_out &&
     a_tx1 - a_tx0 >= a_in && b_tx1 - b_tx0 >= b_in )) ||
    fail "$variant: vethA sent $((a_tx1 - a_tx0)) (a in $a_in), vethB received $((b_rx1 - b_rx0)) (b out $b_out), vethB sent $((b_tx1 - b_tx0)) (b in $b_in), vethA received $((a_rx1 - a_rx0)) (a out $a_out)"
  if [[ $variant == tee ]]; then
    seen=$(app_counter "$LOG" seen out_packets); num "$seen" "seen out_packets"
    c0=$(link_counter "$LOG" "copy.output0 -> b.input" packets); num "$c0" "copy.output0 packets"
    c1=$(link_counter "$LOG" "copy.output1 -> seen.input" packets); num "$c1" "copy.output1 packets"
    (( seen == a_in && c0 == a_in && c1 == a_in )) ||
      fail "tee: a in $a_in, copy.output0 $c0, copy.output1 $c1, seen $seen"
    ok "tee: the sink saw a copy of all $seen A->B frames"
  fi
  ok "$variant: A->B $a_in frames, B->A $b_in frames, no drops, kernel counters agree"
done

# ------------------------------------------------ an interface that does not exist
ns_port_refused "$NS_E" ghost '{ type: port, device: "net_af_packet9,iface=nosuch0" }' \
  "app 'ghost': cannot probe device 'net_af_packet9,iface=nosuch0'"
ok "a port on a missing interface fails: $(grep "app 'ghost'" "$T/refused-ghost.log")"

# ------------------------------------------------------------ the example
expect_exit 0 "$T/example.log" check "$SRC/docs/examples/af-packet-bridge.yaml"
ok "docs/examples/af-packet-bridge.yaml passes 'sluice check'"

# ------------------------------------------------------------ nothing left
cleanup
trap - EXIT
wire_removed
exit 0
