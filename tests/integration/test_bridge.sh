#!/usr/bin/env bash
# The bridge app (docs/bridge.md):
#   1. docs/examples/bridge.yaml: two generators through a bridge, the
#      frames before the first answer flooded, then all forwarded; the
#      same on a worker group of two replicas sharing one table; both addresses in the MAC table; the same
#      with the generators on another worker (interlinks into the bridge);
#   2. three members from pcap files (two access ports on VLAN 10, a trunk of
#      VLANs 10 and 20), static entries: known unicast to one member, floods
#      to the rest of the VLAN, tags taken off and put on as each member
#      says, priority tags, frames of VLANs a member does not carry, runts,
#      frames to the member they came from; every output frame byte for
#      byte, every counter exact;
#   3. aging: a learned address goes once it has been idle for aging, and
#      the table says so (entries, aged, the listing); static ones stay.
# Order across members is not fixed (each pcap is read on its own), so the
# frames of part 2 are chosen so that no outcome depends on it.
. "$(dirname "$0")/lib.sh"
trap 'kill -KILL ${pid:-} 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT

# --- 1. the example
sed -e "s/--file-prefix, sluice-bridge/--file-prefix, $PREFIX/" \
  "$SRC/docs/examples/bridge.yaml" >"$T/ex.yaml"
grep -q "$PREFIX" "$T/ex.yaml" || fail "could not set the file prefix in the example"
expect_exit 0 "$T/ex.log" run "$T/ex.yaml" --summary-json "$T/ex.log.json" --duration 2
pool_back "$T/ex.log"
check_example() {
  python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
br = s["apps"]["br"]["counters"]
a, b = s["apps"]["wire_a"]["counters"]["out_packets"], s["apps"]["wire_b"]["counters"]["out_packets"]
sent = s["apps"]["host_a"]["counters"]["in_packets"] + s["apps"]["host_b"]["counters"]["in_packets"]
# what the links into the bridge dropped (an interlink full while the
# bridge's worker was off its CPU) never reached it
lost = sum(s["links"]["host_%s.output -> br.input%d" % (h, i)]["drops"] for i, h in enumerate("ab"))
got = sent - lost
assert a > 0 and b > 0, (a, b)
assert a + b == got, (a, b, sent, lost)
# the frames that reach the bridge before the other host's first one are
# flooded (one copy each: one other member), the rest forwarded
assert br["flooded"] >= 1 and br["flood_copies"] == br["flooded"], br
assert br["forwarded"] + br["flooded"] == got and br["learned"] == 2, br
assert br["entries"] == 2 and br["drops"] == 0 and br["moved"] == 0, br
rows = sorted((r["mac"], r["type"], r["vlan"], r["port"]) for r in s["apps"]["br"]["macs"])
assert rows == [("02:00:00:00:00:0a", "learned", 10, 0), ("02:00:00:00:00:0b", "learned", 10, 1)], rows
print("forwarded %d, flooded %d; wire_a %d, wire_b %d" % (br["forwarded"], br["flooded"], a, b))
PY
}
check_example "$T/ex.log.json" || fail "the example's counters or table"
ok "docs/examples/bridge.yaml: the frames before the first answer flooded, the rest forwarded, both hosts learned"

# The generators on a worker of their own: interlinks into the bridge.
sed -e 's/^apps:/workers:\n  gen: { core: auto }\n  fwd: { core: auto }\napps:/' \
    -e 's/\(host_[ab]: { type: source,\)/\1 worker: gen,/' \
    -e 's/\(wire_[ab]: { type: sink\)/\1, worker: fwd/' \
    -e 's/^  br:/  br:\n    worker: fwd/' "$T/ex.yaml" >"$T/ex2.yaml"
grep -q "worker: gen" "$T/ex2.yaml" || fail "could not place the generators"
expect_exit 0 "$T/ex2.log" run "$T/ex2.yaml" --summary-json "$T/ex2.log.json" --duration 2
pool_back "$T/ex2.log"
[[ $(link_kind "$T/ex2.log" "host_a.output -> br.input0") == interlink ]] || fail "host_a's link is not an interlink"
check_example "$T/ex2.log.json" || fail "the example on two workers"
ok "the same with the hosts on another worker, through interlinks"

# A bridge on a worker group: its two replicas share one MAC table (split
# by flow into them, joined out of them).  Each address is learned once in
# all (the replica second to see it finds it), both count the table's 2
# entries, and the table is listed once (by replica 0).
cat >"$T/grp.yaml" <<EOF
dpdk: { args: $EAL_ARGS }
pool: { mbufs: 16383 }
workers:
  io: { core: auto }
  g: { count: 2 }
apps:
  host_a: { type: source, worker: io, src_mac: "02:00:00:00:00:0a", dst_mac: "02:00:00:00:00:0b", flows: 64, rate: 50k }
  host_b: { type: source, worker: io, src_mac: "02:00:00:00:00:0b", dst_mac: "02:00:00:00:00:0a", flows: 64, rate: 50k }
  wire_a: { type: sink, worker: io }
  wire_b: { type: sink, worker: io }
  br: { type: bridge, worker: g, members: [ { port: 0 }, { port: 1 } ] }
links:
  - host_a.output -> br.input0
  - br.output0 -> wire_a.input
  - host_b.output -> br.input1
  - br.output1 -> wire_b.input
EOF
expect_exit 0 "$T/grp.log" run "$T/grp.yaml" --summary-json "$T/grp.log.json" --duration 2
pool_back "$T/grp.log"
python3 - "$T/grp.log.json" <<'PY' || fail "the replicated bridge"
import json, sys
s = json.load(open(sys.argv[1]))
r = [s["apps"]["br@%d" % k] for k in (0, 1)]
c = [x["counters"] for x in r]
assert c[0]["learned"] + c[1]["learned"] == 2, c
assert c[0]["entries"] == 2 and c[1]["entries"] == 2, c
assert all(x["forwarded"] > 0 for x in c), c   # the split sent flows to both
assert len(r[0]["macs"]) == 2 and r[1].get("macs", []) == [], r
print("br@0 forwarded %d, br@1 %d; learned %d + %d" % (c[0]["forwarded"], c[1]["forwarded"],
                                                     c[0]["learned"], c[1]["learned"]))
PY
ok "a bridge on a worker group of two: one shared table, each address learned once"

# --- 2. VLANs, static entries, floods and drops, byte for byte
python3 - "$T" "$SRC/tests/tools" <<'PY' || fail "cannot write the pcaps"
import json, struct, sys
sys.path.insert(0, sys.argv[2])
import pcaptool
T = sys.argv[1]
def mac(n): return bytes([2, 0, 0, 0, 0, n])
BC, MC = b"\xff" * 6, bytes([1, 0, 0x5e, 0, 0, 1])
A, B, C, D, E, F, C2, Z = (mac(x) for x in (0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0xc2, 0x99))
def frame(dst, src, name, vid=None, pcp=0):
    tag = b"" if vid is None else struct.pack("!HH", 0x8100, pcp << 13 | vid)
    body = struct.pack("!H", 0x88B5) + name.encode().ljust(46, b".")
    return dst + src + tag + body
def untag(f): return f[:12] + f[16:] if f[12:14] == b"\x81\x00" else f
def tag(f, vid, pcp=0): return f[:12] + struct.pack("!HH", 0x8100, pcp << 13 | vid) + f[12:]
f = {
  "f1": frame(B, A, "f1"), "f2": frame(C, A, "f2"), "f3": frame(BC, A, "f3"),
  "f4": frame(E, A, "f4"), "f5": frame(B, A, "f5", vid=20), "f6": (B + A)[:10],
  "f7": frame(D, A, "f7"), "f8": frame(B, A, "f8", vid=0, pcp=5),
  "g1": frame(B, C2, "g1", vid=10), "g2": frame(BC, F, "g2", vid=20), "g3": frame(B, C2, "g3"),
  "g4": frame(B, C2, "g4", vid=30), "g5": frame(BC, C2, "g5", vid=10, pcp=3),
  "g6": frame(D, F, "g6", vid=20),
  "h1": frame(MC, B, "h1"), "h2": frame(Z, B, "h2"),
}
pcaptool.write(T + "/in0.pcap", [f[k] for k in ("f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8")])
pcaptool.write(T + "/in1.pcap", [f[k] for k in ("h1", "h2")])
pcaptool.write(T + "/in2.pcap", [f[k] for k in ("g1", "g2", "g3", "g4", "g5", "g6")])
want = {
  0: [untag(f["g5"]), f["h1"], f["h2"]],
  1: [f["f1"], f["f3"], f["f7"], untag(f["f8"]), untag(f["g1"]), untag(f["g5"])],
  2: [tag(f["f2"], 10), tag(f["f3"], 10), tag(f["f7"], 10), tag(f["h1"], 10), tag(f["h2"], 10)],
}
json.dump({str(k): [p.hex() for p in v] for k, v in want.items()}, open(T + "/want.json", "w"))
PY
cat >"$T/vlan.yaml" <<EOF
dpdk: { args: $EAL_ARGS }
apps:
  p0: { type: port, device: "net_pcap0,rx_pcap=$T/in0.pcap,tx_pcap=$T/out0.pcap" }
  p1: { type: port, device: "net_pcap1,rx_pcap=$T/in1.pcap,tx_pcap=$T/out1.pcap" }
  p2: { type: port, device: "net_pcap2,rx_pcap=$T/in2.pcap,tx_pcap=$T/out2.pcap" }
  br:
    type: bridge
    members:
      - { port: 0, vlan: 10 }
      - { port: 1, vlan: 10 }
      - { port: 2, mode: trunk, vlans: "10,20" }
    static:
      - { mac: "02:00:00:00:00:0b", vlan: 10, port: 1 }
      - { mac: "02:00:00:00:00:0c", vlan: 10, port: 2 }
      - { mac: "02:00:00:00:00:0d", vlan: 20, port: 2 }
      - { mac: "02:00:00:00:00:0e", vlan: 10, port: 0 }
links:
  - p0.output -> br.input0
  - br.output0 -> p0.input
  - p1.output -> br.input1
  - br.output1 -> p1.input
  - p2.output -> br.input2
  - br.output2 -> p2.input
EOF
expect_exit 0 "$T/vlan.log" run "$T/vlan.yaml" --summary-json "$T/vlan.log.json" --duration 2
pool_back "$T/vlan.log"
python3 - "$T" "$SRC/tests/tools" <<'PY' || { cat "$T/vlan.log" >&2; fail "the bridge's outputs or counters"; }
import json, sys
sys.path.insert(0, sys.argv[2])
import pcaptool
T = sys.argv[1]
want = json.load(open(T + "/want.json"))
for k in ("0", "1", "2"):
    got = sorted(p.hex() for p in pcaptool.read("%s/out%s.pcap" % (T, k)))
    assert got == sorted(want[k]), "output%s:\n got  %s\n want %s" % (k, got, sorted(want[k]))
s = json.load(open(T + "/vlan.log.json"))
c = s["apps"]["br"]["counters"]
exp = dict(forwarded=4, flooded=6, flood_copies=10, filtered=2, drop_vlan=3, drop_runt=1,
           learned=3, moved=0, not_learned=0, static_kept=0, drops=7, entries=7, entries_static=4,
           learn_limited=0, learn_full=0, drop_no_copy=0, drop_no_tag=0)
bad = {k: (c[k], v) for k, v in exp.items() if c[k] != v}
assert not bad, "counters (got, want): %s" % bad
rows = sorted((r["mac"], r["type"], r["vlan"], r["port"]) for r in s["apps"]["br"]["macs"])
assert rows == sorted([
    ("02:00:00:00:00:0a", "learned", 10, 0), ("02:00:00:00:00:c2", "learned", 10, 2),
    ("02:00:00:00:00:0f", "learned", 20, 2), ("02:00:00:00:00:0b", "static", 10, 1),
    ("02:00:00:00:00:0c", "static", 10, 2), ("02:00:00:00:00:0d", "static", 20, 2),
    ("02:00:00:00:00:0e", "static", 10, 0)]), rows
print("outputs: %s frames; counters as expected" % [len(want[k]) for k in ("0", "1", "2")])
PY
ok "three members, VLANs 10 and 20: every output frame byte for byte, every counter exact, the table listed"

# --- 3. aging: 02:00:00:00:00:0a sends 50 frames, then nothing
cat >"$T/age.yaml" <<EOF
dpdk: { args: $EAL_ARGS }
apps:
  a:  { type: source, count: 50, src_mac: "02:00:00:00:00:0a", dst_mac: "02:00:00:00:00:0b" }
  b:  { type: source, paused: true, src_mac: "02:00:00:00:00:0b", dst_mac: "02:00:00:00:00:0a" }
  sa: { type: sink }
  sb: { type: sink }
  br:
    type: bridge
    aging: 300ms
    entries: 1024
    members: [ { port: 0 }, { port: 1 } ]
    static: [ { mac: "02:00:00:00:00:0c", port: 1 } ]
links:
  - a.output -> br.input0
  - br.output0 -> sa.input
  - b.output -> br.input1
  - br.output1 -> sb.input
EOF
start_engine "$T/age.yaml" "$T/age.log" 5
learned() { snap && (($(summary_get "$T/s.json" apps br counters learned) == 1)); }
wait_event "02:00:00:00:00:0a to be learned" "$pid" "$T/age.log" learned
t0=$(python3 -c 'import time; print(time.monotonic())')
aged() { snap && (($(summary_get "$T/s.json" apps br counters aged) == 1)); }
WAIT_EVENT_POLL=0.05 wait_event "the entry to age out" "$pid" "$T/age.log" aged
t1=$(python3 -c 'import time; print(time.monotonic())')
python3 - "$T/s.json" "$t0" "$t1" <<'PY' || fail "after aging"
import json, sys
s = json.load(open(sys.argv[1]))
br = s["apps"]["br"]
c = br["counters"]
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
assert c["aged"] == 1 and c["learned"] == 1 and c["entries"] == 1 and c["entries_static"] == 1, c
# within the documented bound: refresh step + sweep period, and the
# longest wait between two sweeps (a worker kept off its CPU), measured
assert 0 < c["aged_late_us"] <= c["aging_bound_us"] + c["tick_gap_us"] + 2, c
rows = [(r["mac"], r["type"]) for r in br["macs"]]
assert rows == [("02:00:00:00:00:0c", "static")], rows
print("aged after aging 300 ms: %.0f ms after it was seen learned; outlived aging by %d us "
      "(bound %d us + the longest gap between sweeps, %d us)"
      % ((t1 - t0) * 1000, c["aged_late_us"], c["aging_bound_us"], c["tick_gap_us"]))
PY
interrupt "$pid" "$T/age.log" || { cat "$T/age.log" >&2; fail "the aging run did not stop cleanly"; }
pid=""
pool_back "$T/age.log"
ok "aging: the learned address removed after 300 ms idle, the static one kept"

# --- 4. reload: a member and static entries added, a static entry removed,
# then that member removed again (ports are numbered without gaps: the last
# one goes); the learned entries of the members left alone stay
br_conf() {   # br_conf WITH_C WITH_B STATIC... (with C, A sends to C, else to B)
  local with_c=$1 with_b=$2; shift 2
  cat <<YAML
dpdk: { args: $EAL_ARGS }
pool: { mbufs: 8191 }
apps:
  host_a: { type: source, src_mac: "02:00:00:00:00:0a", dst_mac: "02:00:00:00:00:0$( ((with_c)) && echo c || echo b)", rate: 20k }
  wire_a: { type: sink }
$( ((with_b)) && echo '  host_b: { type: source, src_mac: "02:00:00:00:00:0b", dst_mac: "02:00:00:00:00:0a", rate: 20k }
  wire_b: { type: sink }')
$( ((with_c)) && echo '  host_c: { type: source, src_mac: "02:00:00:00:00:0c", dst_mac: "02:00:00:00:00:0a", rate: 20k }
  wire_c: { type: sink }')
  br:
    type: bridge
    members:
      - { port: 0, vlan: 10 }
$( ((with_b)) && echo '      - { port: 1, vlan: 10 }')
$( ((with_c)) && echo '      - { port: 2, vlan: 10 }')
    static: [ $(IFS=,; echo "$*") ]
links:
  - host_a.output -> br.input0
  - br.output0 -> wire_a.input
$( ((with_b)) && echo '  - host_b.output -> br.input1
  - br.output1 -> wire_b.input')
$( ((with_c)) && echo '  - host_c.output -> br.input2
  - br.output2 -> wire_c.input')
YAML
}
br_conf 0 1 '{ mac: "02:00:00:00:00:e1", vlan: 10, port: 1 }' >"$T/r1.yaml"
br_conf 1 1 '{ mac: "02:00:00:00:00:e2", vlan: 10, port: 2 }' >"$T/r2.yaml"
br_conf 0 1 '{ mac: "02:00:00:00:00:e3", vlan: 10, port: 1 }' >"$T/r3.yaml"
for f in r1 r2 r3; do expect_exit 0 "$T/$f.check" check "$T/$f.yaml"; done
start_engine "$T/r1.yaml" "$T/r1.log" 5
# macs_are "A,B,..." : the table's rows as mac/type/vlan/port, sorted
macs_are() {
  snap && python3 - "$T/s.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
rows = sorted("%s/%s/%d/%d" % (r["mac"][-2:], r["type"][0], r["vlan"], r["port"]) for r in s["apps"]["br"]["macs"])
sys.exit(0 if ",".join(rows) == sys.argv[2] else 1)
PY
}
wait_event "A and B learned, the static e1" "$pid" "$T/r1.log" macs_are "0a/l/10/0,0b/l/10/1,e1/s/10/1"
# the table and the counters through DPDK's telemetry client
if command -v dpdk-telemetry.py >/dev/null && [[ $(id -u) -eq 0 ]]; then
  printf '%s\n' /sluice/macs,br /sluice/bridge,br /sluice/macs,wire_a |
    dpdk-telemetry.py -f "$PREFIX" >"$T/tel.out" || fail "dpdk-telemetry.py failed"
  python3 - "$T/tel.out" <<'PY' || { cat "$T/tel.out" >&2; fail "telemetry of the bridge"; }
import json, sys
r = [list(json.loads(l).values())[0] for l in open(sys.argv[1])]
assert r[0]["total"] == 3 and sorted(zip(r[0]["mac"], r[0]["type"], r[0]["port"])) == [
    ("02:00:00:00:00:0a", "learned", 0), ("02:00:00:00:00:0b", "learned", 1),
    ("02:00:00:00:00:e1", "static", 1)], r[0]
assert r[1]["name"] == "br" and r[1]["learned"] == 2 and r[1]["entries"] == 3, r[1]
assert r[2] == {"error": "app 'wire_a' (sink) keeps no macs"}, r[2]
PY
  ok "telemetry: /sluice/macs,br lists the table, /sluice/bridge,br the counters"
fi
expect_exit 0 "$T/reload2" reload --prefix "$PREFIX" "$T/r2.yaml"
wait_event "C learned on the new member, e1 gone, e2 on port 2, A and B kept" "$pid" "$T/r1.log" \
  macs_are "0a/l/10/0,0b/l/10/1,0c/l/10/2,e2/s/10/2"
snap
learned=$(summary_get "$T/s.json" apps br counters learned)
[[ $learned == 3 ]] || fail "learned $learned after the first reload: A and B were learned again?"
c_got() { snap && (($(summary_get "$T/s.json" apps wire_c counters out_packets) > 0)); }
wait_event "frames to the new member" "$pid" "$T/r1.log" c_got
expect_exit 0 "$T/reload3" reload --prefix "$PREFIX" "$T/r3.yaml"
# C's member is gone (its entry stays until it ages); A and B go on
fwd_at=$(summary_get "$T/s.json" apps br counters forwarded)
goes_on() {
  snap && python3 - "$T/s.json" "$fwd_at" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if s["apps"]["br"]["counters"]["forwarded"] > int(sys.argv[2]) + 1000 and "wire_c" not in s["apps"] else 1)
PY
}
wait_event "A and B forwarded to after member 2 went" "$pid" "$T/r1.log" goes_on
macs_are "0a/l/10/0,0b/l/10/1,0c/l/10/2,e3/s/10/1" ||
  fail "the table after removing member 2: A, B and C (aging 300 s) stay, e2 gone, e3 in"
interrupt "$pid" "$T/r1.log" || { cat "$T/r1.log" >&2; fail "the reloaded bridge did not stop cleanly"; }
pid=""
pool_back "$T/r1.log"
ok "reload: a member added (C learned there, A and B kept, learned 3 in all), static e1 out and e2 in; the member removed, A and B forwarded on"
