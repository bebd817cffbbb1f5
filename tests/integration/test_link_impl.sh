#!/usr/bin/env bash
# engine.link_impl (docs/config.md, docs/benchmarks.md "Links in the engine"):
#   - ring: a cross-worker link is DPDK's rte_ring SP/SC (kind "ring" in the
#     summary, the text summary and stats), packets flow through it, a
#     same-worker link stays local, and at stop what the ring held is freed:
#     every mbuf back, source sent = sink consumed + link drops + freed;
#   - the default is interlink;
#   - a bad value is refused naming the key and the choices;
#   - a reload may not change it (exit 2, the engine untouched).
. "$(dirname "$0")/lib.sh"
as_root_engine

conf() { swap_pipeline "$2" "$1"; }   # conf ENGINE-LINE RATE
X="src.output -> swap.input" L="swap.output -> out.input"

# --- the default: interlink.
conf "" 100000 >"$T/default.yaml"
expect_exit 0 "$T/default" run "$T/default.yaml" --duration 0.3 --summary-json "$T/default.json"
[[ $(link_kind "$T/default" "$X") == interlink ]] || fail "the default cross-worker link is $(link_kind "$T/default" "$X")"
ok "the default cross-worker link is an interlink"

# --- a bad value.
conf "engine: { link_impl: bogus }" 1 >"$T/bad.yaml"
expect_exit 2 "$T/bad" check "$T/bad.yaml"
expect_in "$T/bad" "link_impl"
expect_in "$T/bad" "interlink|ring"
ok "a bad link_impl is refused naming the key and its choices"

# --- ring: a running engine, stats, a refused reload, then stop.
conf "engine: { link_impl: ring }" 1000000 >"$T/ring.yaml"
start_engine "$T/ring.yaml" "$T/ring.log" 3
sock=/var/run/dpdk/$PREFIX/sluice_control
wait_event "the control socket" "$pid" "$T/ring.log" test -S "$sock"
consumed() { snap && (( $(summary_get "$T/s.json" apps out counters out_packets) > 1000 )); }
wait_event "packets through the ring" "$pid" "$T/ring.log" consumed
[[ $(summary_get "$T/s.json" links "$X" kind) == ring ]] || fail "stats: the link is not a ring"
[[ $(summary_get "$T/s.json" links "$L" kind) == local ]] || fail "stats: the same-worker link is not local"
ok "stats show the cross-worker link as a ring, packets through it"

conf "engine: { link_impl: interlink }" 1000000 >"$T/back.yaml"
expect_exit 2 "$T/reload" reload --prefix "$PREFIX" "$T/back.yaml"
expect_in "$T/reload" "engine.link_impl cannot change while running (ring -> interlink); restart Sluice"
kill -0 "$pid" || fail "the engine stopped after a refused reload"
ok "a reload that changes link_impl is refused with exit 2"

interrupt "$pid" "$T/ring.log"
rc=$?
[[ $rc -eq 0 ]] || { cat "$T/ring.log" >&2; fail "sluice run exited $rc"; }
pool_back "$T/ring.log"
[[ $(link_kind "$T/ring.log" "$X") == ring ]] || fail "the summary's link is not a ring"
f=$T/ring.log.json
python3 - "$f" <<'PY' || fail "the packets do not add up"
import json, sys
d = json.load(open(sys.argv[1]))
a, l = d["apps"], d["links"]
sent = a["src"]["counters"]["in_packets"]   # what a source makes is its input
got = a["out"]["counters"]["out_packets"]
drops = sum(x["drops"] for x in l.values()) + a["swap"]["counters"]["drops"]
freed = d["drained_at_stop"]["freed"]
print("sent %d, consumed %d, drops %d, freed at stop %d" % (sent, got, drops, freed))
if sent != got + drops + freed:
    sys.exit("sent %d != consumed %d + drops %d + freed %d" % (sent, got, drops, freed))
PY
ok "sent = consumed + drops + freed at stop"
