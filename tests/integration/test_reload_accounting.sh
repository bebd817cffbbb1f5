#!/usr/bin/env bash
# Every packet accounted for across reloads that rebuild a link
# (docs/control.md): a source at full speed (bursts of 256) into a link of
# 64 slots, which drops most of each burst, to a sink that six structural
# reloads move between the two workers (the link is rebuilt each time: an
# interlink, then a ring, and back).  Before each reload the link has
# dropped more packets than after the last one; right after it its drops
# are no fewer than before it (the rebuilt link goes on from the old one's
# counters).  At stop, from the JSON summary, exactly:
#   generated (src in_packets) = consumed (out out_packets)
#     + link drops + app drops + reload.freed + drained_at_stop.freed
. "$(dirname "$0")/lib.sh"
as_root_engine

# conf WORKER: the sink on WORKER (fwd: an interlink; gen: a ring).
conf() {
  cat <<EOF
dpdk:
  args: $EAL_ARGS
pool: { mbufs: 8191 }
engine: { burst: 256 }
workers:
  gen: { core: auto }
  fwd: { core: auto }
apps:
  src: { type: source, worker: gen, size: 64, flows: 16 }
  out: { type: sink, worker: $1 }
  idle: { type: source, worker: fwd, paused: true }
  idle_out: { type: sink, worker: fwd }
links:
  - { link: "src.output -> out.input", size: 64 }
  - idle.output -> idle_out.input
EOF
}
conf fwd >"$T/far.yaml"
conf gen >"$T/near.yaml"
for f in far near; do
  "$SLUICE" check "$T/$f.yaml" >"$T/$f.check" 2>&1 || { cat "$T/$f.check" >&2; fail "$f.yaml does not check"; }
done
L="src.output -> out.input"
start_engine "$T/far.yaml" "$T/run.log" 4
# link: "DROPS WORKER-OF-OUT" from $T/s.json (one python per look: python
# starts slowly on a busy machine).
link() {
  python3 - "$T/s.json" "$L" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(s["links"][sys.argv[2]]["drops"], s["apps"]["out"]["worker"])
PY
}
after=0
for i in $(seq 6); do
  more_drops() { snap && read -r d w < <(link) && ((d > after)); }
  wait_event "the link to drop more than $after packets" "$pid" "$T/run.log" more_drops
  before=$d
  f=$T/near.yaml want=gen
  ((i % 2 == 0)) && f=$T/far.yaml want=fwd
  "$SLUICE" reload --prefix "$PREFIX" "$f" >"$T/reload" 2>&1 || { cat "$T/reload" >&2; fail "reload $i"; }
  expect_in "$T/reload" "move app 'out'"
  expect_in "$T/reload" "remove link '$L'"
  snap || fail "no snapshot after reload $i"
  read -r after w < <(link)
  [[ $w == "$want" ]] || fail "out is on $w after reload $i, not $want"
  ((after >= before)) || fail "reload $i: the rebuilt link's drops went from $before back to $after"
done
ok "6 reloads moved the sink and rebuilt its link; its drops went on (now $after)"

interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "the run failed"; }
pid=
pool_back "$T/run.log"
python3 - "$T/run.log.json" "$L" <<'PY' || fail "packets unaccounted for"
import json, sys
s = json.load(open(sys.argv[1]))
gen = s["apps"]["src"]["counters"]["in_packets"]
consumed = s["apps"]["out"]["counters"]["out_packets"]
link_drops = sum(l["drops"] for l in s["links"].values())
app_drops = sum(a["counters"]["drops"] for a in s["apps"].values())
freed = s["reload"]["freed"] + s["drained_at_stop"]["freed"]
rhs = consumed + link_drops + app_drops + freed
print("generated %d; consumed %d + link drops %d + app drops %d + freed %d = %d"
      % (gen, consumed, link_drops, app_drops, freed, rhs))
assert s["reload"]["applied"] == 6, s["reload"]
assert link_drops > 0
assert gen == rhs, "%d packets unaccounted for" % (gen - rhs)
PY
ok "every packet accounted for at stop: generated = consumed + drops + freed"
