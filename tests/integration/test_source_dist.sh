#!/usr/bin/env bash
# The source app's flow distributions (param dist), checked on the frames it
# writes to a pcap file; every mbuf back in the pool after each run:
#   1. zipf over 1000 flows, s = 1: at most 1000 flows, all of them the
#      source's flows 0..999; flow 0 the most frequent with about
#      1/H(1000) = 0.1336 of the packets, flow 0 > flow 9 > flow 99; the same
#      seed gives the same frames, another seed other frames;
#   2. unique: 5000 frames, 5000 distinct 5-tuples;
#   3. cycle over 7 flows: exactly 10 packets per flow, flows in order;
#      over 5000 flows: the UDP source port steps after 4096 addresses;
#   4. bad zipf_s values: a clear error naming the app and the parameter;
#   5. frames larger than a buffer (9000 bytes: chains of five segments of
#      the default 2048-byte data room): every frame whole, in flow order.
# The seeds are fixed, so every count checked here is the same on each run.
. "$(dirname "$0")/lib.sh"


# source_to_pcap NAME SOURCE_PARAMS: run the source with SOURCE_PARAMS (YAML
# flow-mapping entries) into $T/NAME.pcap; expects exit 0, nothing dropped,
# every mbuf back.
source_to_pcap() {
  local name=$1 params=$2
  cat >"$T/$name.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, $params }
  out: { type: port, device: "net_pcap0,tx_pcap=$T/$name.pcap" }
links:
  - src.output -> out.input
YAML
  expect_exit 0 "$T/$name.log" run "$T/$name.yaml" --summary-json "$T/$name.log.json" --duration 2
  pool_back "$T/$name.log"
  [[ $(app_counter "$T/$name.log" out drops) == 0 ]] ||
    { cat "$T/$name.log" >&2; fail "$name: the pcap port dropped packets"; }
}

# check_tuples NAME PYTHON: run PYTHON with t = the 5-tuple counts of
# $T/NAME.pcap (a dict, most packets first) and n = the number of packets;
# it prints a reason and exits 1 to fail.
check_tuples() {
  $PCAPTOOL tuples "$T/$1.pcap" >"$T/$1.json" || fail "$1: pcaptool tuples failed"
  python3 - "$T/$1.json" <<PY || fail "$1: the frames do not have the expected flows"
import json, sys
t = json.load(open(sys.argv[1]))
n = sum(t.values())
def key(rank, dport=9):
    """The 5-tuple of the source's flow number rank (defaults: src_ip
    198.18.0.1, dst_ip 198.19.0.1)."""
    a = 0xC6120001 + rank % 4096
    return f"17 {a >> 24}.{a >> 16 & 255}.{a >> 8 & 255}.{a & 255}:{1024 + rank // 4096} 198.19.0.1:{dport}"
def no(why):
    print(why)
    sys.exit(1)
$2
PY
}

# ---------------------------------------------------------------- 1
source_to_pcap zipf "count: 20000, dist: zipf, flows: 1000, seed: 7"
check_tuples zipf '
if n != 20000:
    no(f"{n} packets, expected 20000")
known = {key(r): r for r in range(1000)}
stray = [k for k in t if k not in known]
if stray:
    no(f"{len(stray)} flows that are not flows 0..999 of the source, first {stray[0]!r}")
if len(t) > 1000:
    no(f"{len(t)} distinct flows, expected at most 1000")
h = sum(1 / k for k in range(1, 1001))
top = next(iter(t))
share = t[top] / n
print(f"{len(t)} flows; the most frequent is flow {known[top]} with {share:.4f} of the packets (Zipf: {1 / h:.4f})")
if known[top] != 0:
    no(f"the most frequent flow is flow {known[top]}, expected flow 0")
if not 0.11 <= share <= 0.16:
    no(f"flow 0 has {share:.4f} of the packets, expected 0.11..0.16")
c0, c9, c99 = (t.get(key(r), 0) for r in (0, 9, 99))
print(f"flow 0: {c0}, flow 9: {c9}, flow 99: {c99} packets (Zipf: {n / h:.0f}, {n / h / 10:.0f}, {n / h / 100:.0f})")
if not c0 > c9 > c99:
    no("the counts of flows 0, 9 and 99 do not decrease")
top10 = sum(t.get(key(r), 0) for r in range(10)) / n
want10 = sum(1 / k for k in range(1, 11)) / h
if abs(top10 - want10) > 0.03:
    no(f"flows 0..9 have {top10:.4f} of the packets, expected {want10:.4f} +- 0.03")
'
ok "zipf: flow 0 the most frequent, shares as Zipf(1.0, 1000)"

source_to_pcap zipf-again "count: 20000, dist: zipf, flows: 1000, seed: 7"
$PCAPTOOL cmp "$T/zipf.pcap" "$T/zipf-again.pcap" >/dev/null ||
  fail "two runs with seed 7 wrote different frames"
source_to_pcap zipf-other "count: 20000, dist: zipf, flows: 1000, seed: 8"
$PCAPTOOL cmp "$T/zipf.pcap" "$T/zipf-other.pcap" >/dev/null &&
  fail "seeds 7 and 8 wrote the same frames"
ok "zipf: the same seed gives the same frames, another seed other frames"

# s = 2 concentrates more on flow 0: 1/zeta_1000(2) = 0.6083.
source_to_pcap zipf2 "count: 20000, dist: zipf, flows: 1000, seed: 7, zipf_s: \"2\""
check_tuples zipf2 '
share = t.get(key(0), 0) / n
want = 1 / sum(k ** -2 for k in range(1, 1001))
print(f"zipf_s 2: flow 0 has {share:.4f} of the packets (Zipf: {want:.4f})")
if abs(share - want) > 0.02:
    no(f"flow 0 has {share:.4f} of the packets, expected {want:.4f} +- 0.02")
'
ok "zipf_s 2: flow 0 share as Zipf(2, 1000)"

# ---------------------------------------------------------------- 2
source_to_pcap unique "count: 5000, dist: unique, flows: 3"
check_tuples unique '
if n != 5000:
    no(f"{n} packets, expected 5000")
if len(t) != 5000:
    no(f"{len(t)} distinct 5-tuples in 5000 frames, expected 5000")
if "other" in t:
    no("frames that are not IPv4 UDP")
# Frame c: address 198.18.0.1 + c mod 4096, source port 1024 + c / 4096.
if any(key(c) not in t for c in range(5000)):
    no("frames other than the documented mapping of counters 0..4999")
'
ok "unique: 5000 frames, 5000 distinct 5-tuples"

# ---------------------------------------------------------------- 3
source_to_pcap cycle "count: 70, dist: cycle, flows: 7"
check_tuples cycle '
want = {key(r): 10 for r in range(7)}
if t != want or list(t) != list(want):
    no(f"got {t}, expected flows 0..6 in order with 10 packets each")
'
ok "cycle: 7 flows, 10 packets each, in order"

source_to_pcap cycle-wide "count: 10000, flows: 5000"
check_tuples cycle-wide '
want = {key(r): 2 for r in range(5000)}
if t != want or list(t) != list(want):
    no("expected flows 0..4999 in order with 2 packets each")
'
ok "cycle (the default): 5000 flows over two source ports, 2 packets each"

# ---------------------------------------------------------------- 4
for bad in 0 abc 9 -1 1.5x nan inf; do
  cat >"$T/bad.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, count: 10, dist: zipf, flows: 100, zipf_s: "$bad" }
  snk: { type: sink }
links:
  - src.output -> snk.input
YAML
  # found when the config is loaded: exit 2, from `sluice check` too
  for cmd in run check; do
    expect_exit 2 "$T/bad.log" $cmd "$T/bad.yaml"
    expect_in "$T/bad.log" "sluice: $T/bad.yaml:3:3: app 'src': parameter 'zipf_s' must be a number greater than 0 and at most 5, got '$bad'"
  done
done
ok "zipf_s 0, abc, 9, -1, 1.5x, nan and inf are refused with a clear error"

# The limits themselves are accepted.
for s in 5 0.001; do
  source_to_pcap edge "count: 1000, dist: zipf, flows: 16777216, zipf_s: \"$s\""
  [[ $($PCAPTOOL count "$T/edge.pcap") == 1000 ]] || fail "zipf_s $s: not 1000 frames"
done
ok "zipf_s 5 and 0.001 over 16777216 flows run"

# ---------------------------------------------------------------- 5
source_to_pcap chain "count: 300, size: 9000, flows: 7"
[[ $($PCAPTOOL count "$T/chain.pcap") == 300 ]] || fail "chain: not 300 frames"
[[ $($PCAPTOOL bytes "$T/chain.pcap") == 2700000 ]] || fail "chain: not 300 frames of 9000 bytes"
check_tuples chain '
want = {key(r): 43 if r < 6 else 42 for r in range(7)}
if t != want:
    no(f"expected flows 0..6 with 43, 43, 43, 43, 43, 43, 42 packets, got {t}")
'
ok "9000-byte frames (chains of five segments): 300 whole frames, over 7 flows in turn"
