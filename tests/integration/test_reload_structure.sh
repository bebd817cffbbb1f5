#!/usr/bin/env bash
# Structural reloads (docs/control.md), with two chains running on two
# workers:  A: a_src (gen) -> a_out (fwd);  B: b_src (gen) -> b_swap -> b_out.
#   - start apps and links in chain A (a tee and a second sink): the new
#     sink receives; chain B goes on untouched (its counters keep growing,
#     its links drop nothing);
#   - restart b_swap (another mode) and move b_out to the other worker: b_out
#     keeps its counters (the same app) and goes on counting;
#   - back to the first config, then 20 reloads alternating the two
#     structures under traffic: the apps and links that go are stopped and
#     freed, the packets they held counted as freed by reload;
#   - a new port that cannot start: exit 1, nothing changed, the next
#     reload works;
#   - at stop: every mbuf back, reload.applied and reload.freed as the
#     replies said;
#   - a restarted port that cannot start: the engine stops cleanly (exit 1,
#     named), every mbuf back.
. "$(dirname "$0")/lib.sh"
as_root_engine

# s0 [EXTRA-APPS [EXTRA-LINKS]]: the two chains.  b_src sends 2000 packets/s
# into 16384 slots, more than the pool has mbufs: a worker held or off its
# CPU however long (at 20000/s into 4096 slots, one ASan run beside the
# sanitizer builds dropped 8276: a stall of 0.6 s) only pauses the source, so
# what chain B's links drop is what the reloads themselves lose.
s0() {
  two_workers_head
  cat <<EOF
apps:
  a_src:  { type: source, worker: gen, rate: 20000, flows: 4 }
  a_out:  { type: sink, worker: fwd }
  b_src:  { type: source, worker: gen, rate: 2000, flows: 4 }
  b_swap: { type: l2fwd, worker: fwd }
  b_out:  { type: sink, worker: fwd }
${1:-}
links:
  - { link: "a_src.output -> a_out.input", size: 4096 }
  - { link: "b_src.output -> b_swap.input", size: 16384 }
  - b_swap.output -> b_out.input
${2:-}
EOF
}
# s1: chain A through a tee into two sinks.
s1() {
  two_workers_head
  cat <<EOF
apps:
  a_src:  { type: source, worker: gen, rate: 20000, flows: 4 }
  a_tee:  { type: tee, worker: fwd }
  a_out:  { type: sink, worker: fwd }
  a_out2: { type: sink, worker: fwd }
  b_src:  { type: source, worker: gen, rate: 2000, flows: 4 }
  b_swap: { type: l2fwd, worker: fwd }
  b_out:  { type: sink, worker: fwd }
links:
  - { link: "a_src.output -> a_tee.input", size: 4096 }
  - a_tee.output0 -> a_out.input
  - a_tee.output1 -> a_out2.input
  - { link: "b_src.output -> b_swap.input", size: 16384 }
  - b_swap.output -> b_out.input
EOF
}
# s2: b_swap in mode set (a restart), b_out on worker gen (a move).
s2() { s0 | sed 's/  b_swap: { type: l2fwd, worker: fwd }/  b_swap: { type: l2fwd, worker: fwd, mode: set }/; s/  b_out:  { type: sink, worker: fwd }/  b_out:  { type: sink, worker: gen }/'; }

s0 >"$T/s0.yaml"; s1 >"$T/s1.yaml"; s2 >"$T/s2.yaml"
s0 "  p:      { type: port, worker: fwd, device: \"net_pcap9,rx_pcap=$T/missing.pcap\" }
  p_out:  { type: sink, worker: fwd }" "  - p.output -> p_out.input" >"$T/s3.yaml"
for f in s0 s1 s2 s3; do
  "$SLUICE" check "$T/$f.yaml" >"$T/$f.check" 2>&1 || { cat "$T/$f.check" >&2; fail "$f.yaml does not check"; }
done

start_engine "$T/s0.yaml" "$T/run.log" 5
ctr() { summary_get "$T/s.json" apps "$1" counters "$2"; }
lnk() { summary_get "$T/s.json" links "$1" "$2"; }
b_drops() { echo $(($(lnk "b_src.output -> b_swap.input" drops) + $(lnk "b_swap.output -> b_out.input" drops))); }
freed_total=0
# reload_ok FILE: apply FILE; adds the reply's freed count.
reload_ok() {
  "$SLUICE" reload --prefix "$PREFIX" "$1" >"$T/reload" 2>&1 || { cat "$T/reload" >&2; fail "reload $1"; }
}
b_flowing() { snap && (($(ctr b_out out_packets) > 0)); }
wait_event "chain B to deliver" "$pid" "$T/run.log" b_flowing

# --- 1. chain A grows a tee and a sink; chain B goes on.
b_before=$(ctr b_out out_packets) b_src_before=$(ctr b_src in_packets)
reload_ok "$T/s1.yaml"
for line in "remove link 'a_src.output -> a_out.input'" "start app 'a_out2': sink on worker fwd" \
            "start app 'a_tee': tee on worker fwd" "add link 'a_src.output -> a_tee.input'" \
            "add link 'a_tee.output0 -> a_out.input'" "add link 'a_tee.output1 -> a_out2.input'"; do
  expect_in "$T/reload" "$line"
done
expect_in "$T/reload" "reload: 6 actions applied"
out2_gets() { snap && (($(ctr a_out2 out_packets) > 0)); }
wait_event "the new sink a_out2 to receive" "$pid" "$T/run.log" out2_gets
b_grows() { snap && (($(ctr b_out out_packets) > b_before + 1000)); }
wait_event "chain B to go on" "$pid" "$T/run.log" b_grows
(($(ctr b_src in_packets) >= b_src_before)) || fail "b_src's counters started again"
(($(b_drops) == 0)) || fail "chain B's links dropped $(b_drops) packets across the reload"
ok "started a tee and a sink in chain A (a_out2 receives); chain B went on, no drops"

# --- 2. restart b_swap, move b_out: b_out keeps its count and goes on.
b_before=$(ctr b_out out_packets)
reload_ok "$T/s2.yaml"
expect_in "$T/reload" "restart app 'b_swap': mode swap -> set (l2fwd cannot change it live)"
expect_in "$T/reload" "move app 'b_out': worker fwd -> gen (its queued packets carried over)"
snap || fail "no snapshot after the restart"
(($(ctr b_out out_packets) >= b_before)) || fail "b_out's count went back from $b_before to $(ctr b_out out_packets): not the same app"
b_grows2() { snap && (($(ctr b_out out_packets) > b_before + 1000)); }
wait_event "b_out to go on counting after its move" "$pid" "$T/run.log" b_grows2
[[ $(summary_get "$T/s.json" apps b_out worker) == gen ]] || fail "b_out is not on worker gen"
[[ $(summary_get "$T/s.json" links "b_swap.output -> b_out.input" kind) == interlink ]] ||
  fail "the link to the moved b_out is not an interlink"
ok "restarted b_swap and moved b_out to gen: b_out kept its count ($b_before) and goes on"

# --- 3. back to the first config, then 20 alternations.
reload_ok "$T/s0.yaml"
expect_in "$T/reload" "move app 'b_out': worker gen -> fwd"
# A rebuilt link keeps its counters (docs/control.md): what chain B's links
# dropped while b_out moved (its worker held, b_swap's not) stays in them,
# so the alternations are measured from here.
snap || fail "no snapshot after the move back"
b_base=$(b_drops)
for i in $(seq 20); do
  reload_ok "$T/s$((i % 2)).yaml"
done
expect_in "$T/reload" "stop app 'a_tee': tee"
expect_in "$T/reload" "stop app 'a_out2': sink"
snap && (($(b_drops) == b_base)) ||
  fail "chain B dropped $(($(b_drops) - b_base)) packets over the alternations"
ok "back to the first structure, then 20 alternations; chain B dropped nothing"

# --- 4. a new port that cannot start: nothing changes.
expect_exit 1 "$T/bad" reload --prefix "$PREFIX" "$T/s3.yaml"
expect_in "$T/bad" "app 'p'"
snap && [[ $(summary_get "$T/s.json" apps p type 2>/dev/null) == "" ]] || fail "the failed port is in the pipeline"
reload_ok "$T/s1.yaml"
ok "a port that cannot start: exit 1 ($(head -c 160 "$T/bad")); the next reload applied"

# --- 5. stop: every mbuf back; the reload counts.
python3 - "$PREFIX" <<'PY' || fail "info"
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.settimeout(30)
s.connect("/var/run/dpdk/%s/sluice_control" % sys.argv[1])
s.send(b'{"verb": "info"}'); r = json.loads(s.recv(65536))
assert r["reloads"] == 24, r
open(sys.argv[1] + ".freed", "w").write(str(r["freed_by_reload"]))
PY
freed_info=$(cat "$PREFIX.freed"); rm -f "$PREFIX.freed"
interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "the run failed"; }
pid=
pool_back "$T/run.log"
[[ $(summary_get "$T/run.log.json" reload applied) == 24 ]] || fail "reload.applied is not 24"
[[ $(summary_get "$T/run.log.json" reload freed) == "$freed_info" ]] || fail "reload.freed differs from what info said ($freed_info)"
expect_in "$T/run.log" "reloads: 24 applied; $freed_info packets freed by reload"
ok "every mbuf back after 24 structural reloads; $freed_info packets freed by reload"

# --- 6. a restarted port that cannot start: the engine stops cleanly.
s0 "  p:      { type: port, worker: fwd, device: \"net_null0\" }
  p_out:  { type: sink, worker: fwd }" "  - p.output -> p_out.input" >"$T/p.yaml"
sed "s|device: \"net_null0\"|device: \"net_pcap9,rx_pcap=$T/missing.pcap\"|" "$T/p.yaml" >"$T/p-bad.yaml"
start_engine "$T/p.yaml" "$T/p.log" 7
expect_exit 1 "$T/p-reload" reload --prefix "$PREFIX" "$T/p-bad.yaml"
expect_in "$T/p-reload" "the engine stops"
wait "$pid"
rc=$?
pid=
((rc == 1)) || { cat "$T/p.log" >&2; fail "the engine exited $rc after the failed restart, not 1"; }
expect_in "$T/p.log" "a reload could not start an app it had restarted"
pool_back "$T/p.log"
ok "a restarted port that cannot start: the engine stopped (exit 1), every mbuf back"
