#!/usr/bin/env bash
# flowcache: packets pass unchanged; per-flow records (file and link) match
# the flows an independent parser finds in the output (also with the flow
# cache on another worker than its port, in batches from an interlink);
# idle expiry in a running engine; malformed frames dropped and counted by
# reason; a table shared by two workers; configuration errors with their
# messages.
. "$(dirname "$0")/lib.sh"

# check_records PCAP JSONL REASON [sum]: every flow of PCAP (IPv4/IPv6, keyed
# with the outer VLAN id as the flow cache keys them; ARP
# left out) has exactly one record with its packets and bytes, and that
# reason.  With "sum": a flow may have several records (evicted and seen
# again), whose packets and bytes add up to the flow's; REASON may then be
# a comma-separated list.
check_records() {
  python3 - "$1" "$2" "$3" "${4:-}" <<'PY' || fail "records of $2 do not match $1"
import ipaddress, json, struct, sys
pcap, jsonl, reason, mode = sys.argv[1:5]
data = open(pcap, "rb").read()
off, want = 24, {}
while off < len(data):
    _, _, caplen, _ = struct.unpack_from("<IIII", data, off)
    f = data[off + 16: off + 16 + caplen]
    off += 16 + caplen
    et, l3, vlan = struct.unpack_from("!H", f, 12)[0], 14, None
    while et in (0x8100, 0x88a8):
        if vlan is None:   # the outer tag's VLAN id is part of the flow
            vlan = struct.unpack_from("!H", f, l3)[0] & 0xfff
        et, l3 = struct.unpack_from("!H", f, l3 + 2)[0], l3 + 4
    if et == 0x0800:
        ihl = (f[l3] & 15) * 4
        proto = f[l3 + 9]
        src, dst = ipaddress.IPv4Address(f[l3 + 12:l3 + 16]), ipaddress.IPv4Address(f[l3 + 16:l3 + 20])
        frag = struct.unpack_from("!H", f, l3 + 6)[0] & 0x1fff
        fam, l4 = "ipv4", l3 + ihl
    elif et == 0x86dd:
        proto = f[l3 + 6]
        src, dst = ipaddress.IPv6Address(f[l3 + 8:l3 + 24]), ipaddress.IPv6Address(f[l3 + 24:l3 + 40])
        frag, fam, l4 = 0, "ipv6", l3 + 40
    else:
        continue
    sp, dp = struct.unpack_from("!HH", f, l4) if frag == 0 and proto in (6, 17, 132, 136) else (0, 0)
    k = (fam, proto, str(src), sp, str(dst), dp, vlan or 0)
    p, b = want.get(k, (0, 0))
    want[k] = (p + 1, b + len(f))
got = {}
for line in open(jsonl):
    r = json.loads(line)
    k = (r["family"], r["proto"], r["src"], r["sport"], r["dst"], r["dport"], r["vlan"])
    assert mode == "sum" or k not in got, "two records for %s" % (k,)
    assert r["reason"] in reason.split(","), "record %s has reason %s" % (k, r["reason"])
    assert r["start"] <= r["end"], "record %s ends before it starts" % (k,)
    p, b = got.get(k, (0, 0))
    got[k] = (p + r["packets"], b + r["bytes"])
if got != want:
    for k in sorted(set(got) | set(want)):
        if got.get(k) != want.get(k):
            print("flow %s: record %s, pcap %s" % (k, got.get(k), want.get(k)))
    sys.exit(1)
print("%d flows, %d packets" % (len(want), sum(p for p, _ in want.values())))
PY
}

# flowcache_field LOG APP COUNTER: one of the app's counters, from the run's
# JSON summary (`sluice apps flowcache` lists them).
flowcache_field() {
  app_counter "$1" "$2" "$3"
}

# --- 1. pcap through the flowcache: unchanged output, one record per flow.
$PCAPTOOL gen-flows "$T/in.pcap" 3000 48 11
cat >"$T/p.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  io: { type: port, device: "net_pcap0,rx_pcap=$T/in.pcap,tx_pcap=$T/out.pcap" }
  fc: { type: flowcache, entries: 1024, records: "$T/rec.jsonl" }
links:
  - io.output -> fc.input
  - fc.output -> io.input
YAML
expect_exit 0 "$T/log" run "$T/p.yaml" --summary-json "$T/log.json" --duration 2
pool_back "$T/log"
$PCAPTOOL cmp "$T/out.pcap" "$T/in.pcap" || fail "the flowcache changed packets"
check_records "$T/out.pcap" "$T/rec.jsonl" stopped
n=$(wc -l <"$T/rec.jsonl")
arp=$(flowcache_field "$T/log" fc not_ip)
[[ $(flowcache_field "$T/log" fc inserted) == "$n" ]] || fail "inserted != $n records"
[[ $(flowcache_field "$T/log" fc stopped) == "$n" ]] || fail "stopped != $n"
[[ $(flowcache_field "$T/log" fc freed) == "$n" ]] || fail "freed != $n"
[[ $(flowcache_field "$T/log" fc malformed) == 0 ]] || fail "malformed frames in a clean capture"
# one worker: a flow new twice in one burst is found by the second lookup, not raced
[[ $(flowcache_field "$T/log" fc races) == 0 ]] || fail "races on one worker"
hits=$(flowcache_field "$T/log" fc hits) misses=$(flowcache_field "$T/log" fc misses)
[[ $((hits + misses)) -eq $((3000 - arp)) && $misses -eq $n ]] ||
  fail "lookups: $hits hits + $misses misses for $((3000 - arp)) IP frames and $n flows"
[[ $arp -gt 0 ]] || fail "ARP frames not counted as not_ip"
# batch 0 with a table whose lines fit in any L3 cache: the engine's burst
[[ $(flowcache_field "$T/log" fc batch) == 32 ]] ||
  fail "batch $(flowcache_field "$T/log" fc batch) for a table of 1024 entries (want the burst, 32)"
ok "3000 frames unchanged; $n flow records (reason stopped) match the capture; $arp ARP frames passed as not_ip"

# --- 1b. runs of one flow in a burst, and evictions between them: each
# frame of the capture four times in a row, into a table of 8 entries for
# 48 flows.  A burst counts a run on its entry at once; what a run counted
# must be in before an insert evicts that entry, so every flow's records
# (evicted, then stopped) add up to its packets and bytes.
python3 - "$T/in.pcap" "$T/runs.pcap" <<'PY' || fail "cannot write the capture of runs"
import struct, sys
data = open(sys.argv[1], "rb").read()
out, off = [data[:24]], 24
while off < len(data):
    caplen = struct.unpack_from("<IIII", data, off)[2]
    out += [data[off:off + 16 + caplen]] * 4
    off += 16 + caplen
open(sys.argv[2], "wb").write(b"".join(out))
PY
cat >"$T/runs.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  io: { type: port, device: "net_pcap0,rx_pcap=$T/runs.pcap,tx_pcap=$T/runs-out.pcap" }
  fc: { type: flowcache, entries: 8, records: "$T/runs.jsonl" }
links:
  - io.output -> fc.input
  - fc.output -> io.input
YAML
expect_exit 0 "$T/runs.log" run "$T/runs.yaml" --summary-json "$T/runs.log.json" --duration 2
pool_back "$T/runs.log"
$PCAPTOOL cmp "$T/runs-out.pcap" "$T/runs.pcap" || fail "the flowcache changed packets (runs)"
evicted=$(flowcache_field "$T/runs.log" fc evicted)
((evicted > 0)) || fail "no evictions with 8 entries for 48 flows"
check_records "$T/runs-out.pcap" "$T/runs.jsonl" evicted,stopped sum
ok "12000 frames in runs of 4 with $evicted evictions: every flow's records add up to its packets and bytes"

# fc_batch LOG: packets a push or take of fc handled on average, from the
# runtime accounting (a direct link's takes count as pushes).
fc_batch() {
  local f
  f=$(summary_of "$1") || exit 1
  python3 - "$f" <<'PY'
import json, sys
rt = json.load(open(sys.argv[1]))["apps"]["fc"]["runtime"]
print(rt["push_packets"] // max(rt["push_calls"], 1))
PY
}

# --- 1d. batches of 256: the same runs and evictions, the port handing the
# flow cache bursts of its batch (the direct link's batch); the records
# still add up.
sed "s#entries: 8,#entries: 8, batch: 256,#; s#runs-out.pcap#runs256-out.pcap#; s#runs.jsonl#runs256.jsonl#" \
  "$T/runs.yaml" >"$T/runs256.yaml"
expect_exit 0 "$T/runs256.log" run "$T/runs256.yaml" --summary-json "$T/runs256.log.json" --duration 2
pool_back "$T/runs256.log"
$PCAPTOOL cmp "$T/runs256-out.pcap" "$T/runs.pcap" || fail "the flowcache changed packets (batch 256)"
[[ $(flowcache_field "$T/runs256.log" fc batch) == 256 ]] || fail "batch gauge not 256"
per=$(fc_batch "$T/runs256.log")
((per > 128)) || fail "batch 256: $per packets a take on average (the port did not hand bursts of the batch)"
((evicted = $(flowcache_field "$T/runs256.log" fc evicted), evicted > 0)) || fail "no evictions (batch 256)"
check_records "$T/runs256-out.pcap" "$T/runs256.jsonl" evicted,stopped sum
ok "batch 256: $per packets a take, $evicted evictions, every flow's records add up"

# --- 1e. batches from an interlink: the port on one worker, the flow cache
# on another, batch 128 (taken with the filling dequeue); every frame comes
# back in order and every flow's records add up.  The links hold the whole
# capture (the port reads it at once, and a full link drops) and the ids
# outnumber the frames (an evicted entry's id comes back after a grace
# period of both workers: on one CPU the port's worker can sit out a whole
# time slice while the flow cache churns through the capture, and with
# the default ids, 8 + 1024, its inserts then found none), so nothing here
# depends on how fast either worker runs.
cat >"$T/runs-il.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
engine: { link_size: 16384 }
workers:
  a: { core: auto }
  b: { core: auto }
apps:
  io: { type: port, worker: a, device: "net_pcap0,rx_pcap=$T/runs.pcap,tx_pcap=$T/runs-il-out.pcap" }
  fc: { type: flowcache, worker: b, entries: 8, ids: 16384, batch: 128, records: "$T/runs-il.jsonl" }
links:
  - io.output -> fc.input
  - fc.output -> io.input
YAML
expect_exit 0 "$T/runs-il.log" run "$T/runs-il.yaml" --summary-json "$T/runs-il.log.json" --duration 2
pool_back "$T/runs-il.log"
$PCAPTOOL cmp "$T/runs-il-out.pcap" "$T/runs.pcap" || fail "the flowcache changed packets (interlink, batch 128)"
[[ $(flowcache_field "$T/runs-il.log" fc batch) == 128 ]] || fail "batch gauge not 128 (interlink)"
[[ $(flowcache_field "$T/runs-il.log" fc no_id) == 0 ]] || fail "inserts found no id (interlink)"
[[ $(link_kind "$T/runs-il.log" "io.output -> fc.input") == interlink ]] ||
  fail "io.output -> fc.input is not an interlink"
check_records "$T/runs-il-out.pcap" "$T/runs-il.jsonl" evicted,stopped sum
ok "batch 128 from an interlink: 12000 frames in order, every flow's records add up"

# --- 1c. bursts of one flow only: the first 60 frames of the capture 100
# times each in a row, so that most bursts are 32 frames of one flow the
# table already has (counted on its entry at once, with the lengths its
# check read): every flow's one record counts exactly its packets and
# bytes.  The copies of a frame differ in length (0 to 6 bytes of
# Ethernet padding after the IP packet), so a length counted twice,
# missed, or taken from another frame of the burst shows.
python3 - "$T/in.pcap" "$T/long.pcap" <<'PY' || fail "cannot write the capture of long runs"
import struct, sys
data = open(sys.argv[1], "rb").read()
out, off = [data[:24]], 24
for _ in range(60):
    ts, us, caplen, wirelen = struct.unpack_from("<IIII", data, off)
    frame = data[off + 16:off + 16 + caplen]
    for j in range(100):
        pad = j * 5 % 7
        out.append(struct.pack("<IIII", ts, us, caplen + pad, wirelen + pad) + frame + bytes(pad))
    off += 16 + caplen
open(sys.argv[2], "wb").write(b"".join(out))
PY
sed "s#runs#long#g; s#entries: 8,#entries: 1024,#" "$T/runs.yaml" >"$T/long.yaml"
expect_exit 0 "$T/long.log" run "$T/long.yaml" --summary-json "$T/long.log.json" --duration 2
pool_back "$T/long.log"
$PCAPTOOL cmp "$T/long-out.pcap" "$T/long.pcap" || fail "the flowcache changed packets (long runs)"
check_records "$T/long-out.pcap" "$T/long.jsonl" stopped
ok "6000 frames in runs of 100 (bursts of one flow): every flow's record counts its packets and bytes"

# --- 2. malformed frames: dropped, counted by reason, nothing leaks.
$PCAPTOOL gen-bad "$T/bad.pcap" 400 5
cat >"$T/b.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  io: { type: port, device: "net_pcap0,rx_pcap=$T/bad.pcap,tx_pcap=$T/bad-out.pcap" }
  fc: { type: flowcache }
links:
  - io.output -> fc.input
  - fc.output -> io.input
YAML
expect_exit 0 "$T/log" run "$T/b.yaml" --summary-json "$T/log.json" --duration 2
pool_back "$T/log"
mal=$(flowcache_field "$T/log" fc malformed)
passed=$($PCAPTOOL count "$T/bad-out.pcap")
[[ $mal -gt 0 && $((mal + passed)) -eq 400 ]] || fail "malformed $mal + passed $passed != 400"
[[ $(app_counter "$T/log" fc drops) == "$mal" ]] || fail "app drops != malformed"
for reason in short_l2 short_l3 bad_ihl bad_len; do
  (( $(flowcache_field "$T/log" fc "malformed_$reason") > 0 )) || { cat "$T/log"; fail "no '$reason' drops counted"; }
done
ok "400 malformed frames: $mal dropped by reason, $passed passed, all counted"

# --- 2b. malformed frames after frames of a known flow in one burst: a
# burst's leading frames of flows the table has are counted in light passes
# up to the first other frame (fc_fast_prefix), and must still leave when
# the rest of the burst has frames to drop.  Each malformed frame of 2.
# after three copies of one good UDP frame (simple: the light passes' kind).
python3 - "$T/in.pcap" "$T/bad.pcap" "$T/mixed.pcap" <<'PY' || fail "cannot write the mixed capture"
import struct, sys
def frames(path):
    data, off = open(path, "rb").read(), 24
    while off < len(data):
        caplen = struct.unpack_from("<IIII", data, off)[2]
        yield data[off:off + 16 + caplen]
        off += 16 + caplen
ip = 16 + 14                      # untagged, no options, not a fragment
good = next(f for f in frames(sys.argv[1])
            if f[16 + 12:ip] == b"\x08\x00" and f[ip] == 0x45 and f[ip + 9] == 17
            and struct.unpack_from("!H", f, ip + 6)[0] & 0x3fff == 0)
out = [open(sys.argv[1], "rb").read()[:24]]
for f in frames(sys.argv[2]):
    out += [good] * 3 + [f]
open(sys.argv[3], "wb").write(b"".join(out))
PY
sed "s#bad#mixed#g; s#type: flowcache }#type: flowcache, records: \"$T/mixed.jsonl\" }#" "$T/b.yaml" >"$T/mixed.yaml"
expect_exit 0 "$T/log" run "$T/mixed.yaml" --summary-json "$T/log.json" --duration 2
pool_back "$T/log"
mal2=$(flowcache_field "$T/log" fc malformed)
passed2=$($PCAPTOOL count "$T/mixed-out.pcap")
[[ $mal2 == "$mal" && $passed2 -eq $((1200 + passed)) ]] ||
  fail "mixed: malformed $mal2 (want $mal), passed $passed2 (want $((1200 + passed)))"
check_records "$T/mixed-out.pcap" "$T/mixed.jsonl" stopped
ok "1600 frames, each malformed one after 3 of a known flow: $mal2 dropped, $passed2 passed, records match"

# --- 2c. known flows beyond the table's cached size, a new flow among
# them: 9000 simple UDP flows, then each again with a new flow after every
# 50th, so that bursts of known flows take the light passes' staged form
# (more than 8192 flows live) and stop at a new flow, the rest of the burst
# (known flows again) counted after its insert.  Every flow's one record
# counts its packets and bytes; every packet a hit or a miss, the misses
# the flows.
python3 - "$T/many.pcap" <<'PY' || fail "cannot write the capture of many flows"
import struct, sys
def frame(i):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 46, 0, 0, 64, 17, 0,
                     bytes([198, 18, i >> 8 & 255, i & 255]), bytes([198, 19, i >> 16 & 255, 1]))
    udp = struct.pack("!HHHH", 1024 + i % 50000, 53, 26, 0)
    return b"\x02\0\0\0\0\x01\x02\0\0\0\0\x02\x08\x00" + ip + udp + bytes(18)
recs = [frame(i) for i in range(9000)]
for i in range(9000):
    recs.append(frame(i))
    if i % 50 == 49:
        recs.append(frame(100000 + i))
out = [struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)]
out += [struct.pack("<IIII", 0, 0, len(f), len(f)) + f for f in recs]
open(sys.argv[1], "wb").write(b"".join(out))
PY
# batch 0 first (32 where the worker's L3 cache holds 9180 flows' lines,
# 1.1 MiB; the gauge says which), then 128 (what batch 0 takes once the
# table outgrows the L3): the staged passes and the inserts over 4 bursts
# at once
for b in 0 128; do
  sed "s#runs.pcap#many.pcap#; s#runs#many$b#g; s#entries: 8,#entries: 16384, batch: $b,#" \
    "$T/runs.yaml" >"$T/many$b.yaml"
  expect_exit 0 "$T/log" run "$T/many$b.yaml" --summary-json "$T/log.json" --duration 2
  pool_back "$T/log"
  [[ $($PCAPTOOL count "$T/many$b-out.pcap") == 18180 ]] || fail "batch $b: not all 18180 frames passed"
  check_records "$T/many$b-out.pcap" "$T/many$b.jsonl" stopped
  hits=$(flowcache_field "$T/log" fc hits) misses=$(flowcache_field "$T/log" fc misses)
  [[ $misses == 9180 && $hits == 9000 ]] || fail "batch $b: $hits hits, $misses misses (want 9000, 9180)"
  per=$(fc_batch "$T/log") gauge=$(flowcache_field "$T/log" fc batch)
  [[ $gauge == "$((b ? b : gauge == 128 ? 128 : 32))" ]] || fail "batch $b: gauge $gauge"
  ((gauge == 32 ? per <= 32 : per > 64)) || fail "batch $b: $per packets a take on average (gauge $gauge)"
  ok "batch $b: 9180 flows, 18180 frames, known flows past 8192 with new ones among them ($per packets a take): records exact, 9000 hits"
done

# --- 3. idle expiry while running (scan and wheel); records as frames on the records port too.
# The source is unpaced: its 3000 packets (10 per flow) leave within a few
# hundred breaths, so only a stall of more than the 1.5 s idle timeout between
# two of them could split a flow; the run is stopped once all 300 records
# are written.
for mode in scan wheel; do
rm -f "$T/idle.jsonl"
cat >"$T/i.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, flows: 300, count: 3000 }
  fc:  { type: flowcache, idle_timeout: 1500ms, expiry: $mode, records: "$T/idle.jsonl" }
  snk: { type: sink }
  rec: { type: port, device: "net_pcap0,tx_pcap=$T/rec.pcap" }
links:
  - src.output -> fc.input
  - fc.output -> snk.input
  - fc.records -> rec.input
YAML
# Stopped once the 300 records are in the file (an event: a slow machine
# only makes the wait longer); the record port's frames are delivered by
# the stop's drain.
start_engine "$T/i.yaml" "$T/log" 4
all_idle() { [[ -f $T/idle.jsonl && $(wc -l <"$T/idle.jsonl") -ge 300 ]]; }
wait_event "the 300 idle records" "$pid" "$T/log" all_idle
interrupt "$pid" "$T/log" || { cat "$T/log" >&2; fail "expiry $mode: the run failed"; }
pid=""
pool_back "$T/log"
python3 - "$T/idle.jsonl" "$T/rec.pcap" <<'PY' || fail "idle records"
import json, struct, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert len(recs) == 300, "%d records, want 300" % len(recs)
assert all(r["reason"] == "idle" for r in recs), "a record is not idle"
assert sum(r["packets"] for r in recs) == 3000, "packets %d" % sum(r["packets"] for r in recs)
assert all(r["packets"] == 10 and r["bytes"] == 640 for r in recs), "per-flow counts"
assert len({r["flow_id"] for r in recs}) <= 300
data = open(sys.argv[2], "rb").read()
off, frames = 24, []
while off < len(data):
    caplen = struct.unpack_from("<I", data, off + 8)[0]
    frames.append(data[off + 16: off + 16 + caplen])
    off += 16 + caplen
assert len(frames) == 300, "%d record frames" % len(frames)
for f in frames:
    assert f[12:14] == b"\x88\xb5", "ethertype %s" % f[12:14].hex()
    assert json.loads(f[14:]) in recs, "a record frame differs from the file"
PY
[[ $(flowcache_field "$T/log" fc idle) == 300 ]] || fail "idle count"
ok "expiry $mode: 300 flows ended idle while running: 300 records in the file and as 0x88b5 frames"
done

# --- 4. one table shared by flowcaches on two workers. (scan and wheel)
for mode in scan wheel; do
rm -f "$T/sa.jsonl" "$T/sb.jsonl"
cat >"$T/s.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
workers:
  a: { core: auto }
  b: { core: auto }
apps:
  src: { type: source, worker: a, flows: 500, rate: 50000, count: 5000 }
  sp:  { type: split, worker: a, mode: hash }
  fa:  { type: flowcache, worker: a, table: shared, entries: 4096, expiry: $mode, records: "$T/sa.jsonl" }
  fb:  { type: flowcache, worker: b, table: shared, entries: 4096, expiry: $mode, records: "$T/sb.jsonl" }
  sa:  { type: sink, worker: a }
  sb:  { type: sink, worker: b }
links:
  - src.output -> sp.input
  - sp.output0 -> fa.input
  - sp.output1 -> fb.input
  - fa.output -> sa.input
  - fb.output -> sb.input
YAML
expect_exit 0 "$T/log" run "$T/s.yaml" --summary-json "$T/log.json" --duration 2
pool_back "$T/log"
# (what the records count is what reached the two flowcaches: all 5000,
# unless a stall of a loaded machine filled a link, whose drops the
# summary counts, or kept the source from sending them all in 2 s)
python3 - "$T/sa.jsonl" "$T/sb.jsonl" "$T/log.json" <<'PY' || fail "shared table records"
import json, sys
recs = [json.loads(l) for f in sys.argv[1:3] for l in open(f)]
links = json.load(open(sys.argv[3]))["links"]
ends = ("sp.output0 -> fa.input", "sp.output1 -> fb.input")
reached = sum(links[l]["packets"] for l in ends)
dropped = sum(links[l]["drops"] for l in ends)
keys = [(r["src"], r["sport"]) for r in recs]
assert len(set(keys)) == len(recs), "a flow has two records: %d records, %d flows" % (len(recs), len(set(keys)))
assert reached < 5000 or len(recs) == 500, "all 5000 packets reached them, %d records" % len(recs)
assert all(r["table"] == "shared" for r in recs)
assert sum(r["packets"] for r in recs) == reached and reached + dropped <= 5000, \
    "records count %d packets, %d reached the flowcaches, %d dropped on the way" % (
        sum(r["packets"] for r in recs), reached, dropped)
ids = [r["flow_id"] for r in recs]
assert len(set(ids)) == len(recs), "flow ids repeat across the sharers"
PY
ins=$(( $(flowcache_field "$T/log" fa inserted) + $(flowcache_field "$T/log" fb inserted) ))
nrec=$(cat "$T/sa.jsonl" "$T/sb.jsonl" | wc -l)
[[ $ins == "$nrec" ]] || fail "inserted $ins across the two sharers, $nrec records"
ok "expiry $mode: two workers share table 'shared': 500 flows, one record and one id each"
done

# --- 4b. engine.epoch_ring: the retire ring bounds what waits for a grace
# period.  A table of 1024 entries under 100000 flows evicts at every
# insert, 256 a burst; with a ring of 64 the backlog never passes 64, an
# insert that finds no room for its victim is refused (no_room; with the
# default ring of 4096 there is none), and everything retired is freed by
# the stop.
cat >"$T/ring.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
engine: { burst: 256, epoch_ring: 64 }
apps:
  src: { type: source, flows: 100000, count: 200000 }
  fc:  { type: flowcache, entries: 1024 }
  snk: { type: sink }
links:
  - src.output -> fc.input
  - fc.output -> snk.input
YAML
expect_exit 0 "$T/log" run "$T/ring.yaml" --summary-json "$T/log.json" --duration 2
pool_back "$T/log"
hwm=$(summary_get "$T/log.json" epoch backlog_hwm) backlog=$(summary_get "$T/log.json" epoch backlog)
retired=$(summary_get "$T/log.json" epoch retired) freed=$(summary_get "$T/log.json" epoch freed)
((hwm >= 1 && hwm <= 64)) || fail "backlog high-water $hwm with a ring of 64"
(($(flowcache_field "$T/log" fc no_room) > 0)) ||
  fail "no insert refused for want of retire room (a burst of 256 evictions, a ring of 64)"
[[ -n $retired && $retired == "$freed" && $backlog == 0 ]] || fail "retired $retired freed $freed backlog $backlog"
ins=$(flowcache_field "$T/log" fc inserted) ev=$(flowcache_field "$T/log" fc evicted)
st=$(flowcache_field "$T/log" fc stopped)
((ev > 0 && ev + st == ins)) || fail "inserted $ins evicted $ev stopped $st"
ok "engine.epoch_ring 64: backlog within 64 under 100000 flows in 1024 entries (inserts refused past it), everything freed"

# --- 5. configuration errors.
bad() {   # bad NAME YAML-APPS-AND-LINKS EXPECTED-MESSAGE
  printf 'dpdk: { args: %s }\n%s\n' "$EAL_ARGS" "$2" >"$T/$1.yaml"
  expect_exit "$4" "$T/log" run "$T/$1.yaml" --summary-json "$T/log.json" --duration 1
  expect_in "$T/log" "$3"
}
bad share "apps:
  src: { type: source, count: 10 }
  t:   { type: tee }
  f1:  { type: flowcache, table: x, entries: 1024 }
  f2:  { type: flowcache, table: x, entries: 2048 }
  s1:  { type: sink }
  s2:  { type: sink }
links: [src.output -> t.input, t.output0 -> f1.input, t.output1 -> f2.input, f1.output -> s1.input, f2.output -> s2.input]" \
  "app 'f2': table 'x' is shared with app 'f1', which sets a different 'entries'" 2
bad private "apps:
  src: { type: source, count: 10 }
  t:   { type: tee }
  f1:  { type: flowcache }
  f2:  { type: flowcache, table: f1 }
  s1:  { type: sink }
  s2:  { type: sink }
links: [src.output -> t.input, t.output0 -> f1.input, t.output1 -> f2.input, f1.output -> s1.input, f2.output -> s2.input]" \
  "app 'f2': table 'f1' is the private table of app 'f1'; to share a table, every app that uses it names it with 'table:'" 2
bad share-route "apps:
  src: { type: source, count: 10 }
  t:   { type: tee }
  f1:  { type: flowcache, table: x, route: r1 }
  f2:  { type: flowcache, table: x }
  r1:  { type: router, routes: [ { prefix: 0.0.0.0/0, output: 0 } ] }
  s1:  { type: sink }
  s2:  { type: sink }
links: [src.output -> t.input, t.output0 -> f1.input, t.output1 -> f2.input, f1.output -> r1.input, r1.output0 -> s1.input, f2.output -> s2.input]" \
  "app 'f2': table 'x' is shared with app 'f1', which sets a different 'route'" 2

# bad_fc NAME FLOWCACHE-PARAMS EXPECTED-MESSAGE STATUS: source -> f -> sink.
bad_fc() {
  bad "$1" "apps:
  src: { type: source, count: 10 }
  f:   { type: flowcache, $2 }
  s:   { type: sink }
links: [src.output -> f.input, f.output -> s.input]" "$3" "$4"
}
bad_fc ids "entries: 1024, ids: 100" "$T/ids.yaml:4:3: app 'f': parameter 'ids' (100) must be at least 'entries' (1024)" 2
expect_exit 2 "$T/log" check "$T/ids.yaml"
expect_in "$T/log" "app 'f': parameter 'ids' (100) must be at least 'entries' (1024)"
bad_fc recfile "records: /nonexistent/dir/r.jsonl" \
  "app 'f': cannot open the records file '/nonexistent/dir/r.jsonl': No such file or directory" 1
bad_fc route "route: nowhere" "app 'f': parameter 'route': no router app named 'nowhere'" 2
bad_fc idle "idle_timeout: soon" "app 'f': parameter 'idle_timeout'" 2
bad_fc expiry "expiry: lazy" "app 'f': parameter 'expiry'" 2
bad_fc batch "batch: 257" "$T/batch.yaml:4:34: app 'f': parameter 'batch' must be in 0..256, got 257" 2
long=$(printf 't%.0s' {1..70})
bad_fc table-name "table: $long" "app 'f': parameter 'table': name '$long' is too long" 2
bad_fc route-name "route: $long" "app 'f': parameter 'route': name '$long' is too long" 2
ok "configuration errors name the app, the parameter and the cause"
