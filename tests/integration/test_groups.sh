#!/usr/bin/env bash
# Worker groups and replicated apps, end to end (config.md, `workers`):
#
#   1. sluice plan on a described machine lists every member and
#      replica with a port's queues, and the join and split inserted between
#      the group and single workers.
#   2. A counted source on a single worker -> (split) -> l2fwd on a group of
#      two -> (join) -> a sink on a single worker: every packet arrives, each
#      replica forwards some (the split hashes 64 flows), the replicas add up
#      to the `replicated` totals, all mbufs back.
#   2b. A source on a single worker sends to a port on a group: through the
#      inserted split, each replica on its own tx queue, none lost.
#   3. While a replicated net_null chain runs, `sluice stats --json` (from
#      telemetry, /sluice/replicated) shows the replicated totals as the sum
#      of the replicas' counters read in the same snapshot.
#   4. Configuration errors through the CLI: a bad rss field, two groups of
#      different sizes; each exit 2 with FILE:LINE:COL (the others are in
#      test_multiqueue_errors).
. "$(dirname "$0")/lib.sh"

# ---- 1: plan
cat >"$T/plan.yaml" <<EOF
workers:
  rx: auto
  fwd: { count: 3 }
  tx: auto
apps:
  src: { type: source, worker: rx }
  sw:  { type: l2fwd, worker: fwd }
  snk: { type: sink, worker: tx }
  nic: { type: port, worker: fwd, device: net_null0, rx_queues: 2, rss_symmetric: true }
  fw2: { type: l2fwd, worker: fwd }
links:
  - src.output -> sw.input
  - sw.output -> snk.input
  - nic.output -> fw2.input
  - fw2.output -> nic.input
EOF
HWLOC_SYNTHETIC="pack:1 l3:2 core:8 pu:1" expect_exit 0 "$T/plan.out" plan "$T/plan.yaml"
for w in fwd@0 fwd@1 fwd@2; do
  grep -qE "^$w +[0-9]+" "$T/plan.out" || { cat "$T/plan.out" >&2; fail "plan lists no member $w"; }
done
expect_in "$T/plan.out" "nic@1            port       fwd@1            rx queues 2-3 of 6, tx queue 1; rss ip,udp,tcp (symmetric)"
expect_in "$T/plan.out" "src@output       split      rx               inserted between a group and a single worker"
expect_in "$T/plan.out" "snk@input        join       tx               inserted between a group and a single worker"
expect_in "$T/plan.out" "src@output.output2 -> sw@2.input"
expect_in "$T/plan.out" "sw@1.output -> snk@input.input1"
grep -qE "^  nic@2.output -> fw2@2.input +local [(]same worker[)]$" "$T/plan.out" ||
  { cat "$T/plan.out" >&2; fail "plan: the replica's link is not local"; }
ok "plan: members, replicas with their queues, the inserted split and join"

# live NAME SUFFIX WHAT PY [RUN-ARGS...]: `sluice run $T/NAME.yaml` (its
# file prefix ${PREFIX}SUFFIX) in the background (pid), output in
# $T/NAME.log; once it runs, poll `sluice stats --json` every 0.2 s until PY
# (python3 code with the JSON in d) exits 0 (the event WHAT), then SIGINT:
# it must exit 0.  Sets f to its summary.
live() {
  local name=$1 sfx=$2 what=$3 py=$4 log=$T/$1.log; shift 4
  "$SLUICE" run "$T/$name.yaml" --summary-json "$log.json" "$@" >"$log" 2>&1 &
  pid=$!
  wait_event "the start line" "$pid" "$log" log_lines "$log" '^sluice: running'
  WAIT_EVENT_POLL=0.2 wait_event "$what" "$pid" "$log" live_stats "$sfx" "$py"
  signal_run INT "$pid" "$log" || fail "the run of $name.yaml exited $?"
  f=$(summary_of "$log") || exit 1
}
live_stats() {
  "$SLUICE" stats --json --prefix "$PREFIX$1" >"$T/stats.json" 2>"$T/stats.err" || return 1
  python3 -c "import json, sys; d = json.load(open(sys.argv[1]))
$2" "$T/stats.json"
}
pid=""
trap 'kill -KILL $pid 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"{c,t,l}' EXIT

# out_replicas: each replica out@k of the port out (in summary f) sent
# packets, all on its own tx queue k (its q_opackets); sets sent to their sum.
out_replicas() {
  local k o qo q
  sent=0
  for k in 0 1; do
    q=$(summary_get "$f" apps "out@$k" counters tx_queue)
    [[ $q -eq $k ]] || fail "out@$k transmitted on queue $q"
    o=$(summary_get "$f" apps "out@$k" counters out_packets)
    qo=$(summary_get "$f" apps "out@$k" counters q_opackets)
    [[ $o -gt 0 && $o -eq $qo ]] || fail "out@$k sent $o, its queue counted $qo"
    sent=$((sent + o))
  done
}

# ---- 2: a counted run through split and join (links that hold every
# packet: nothing can be dropped however the CPUs are shared)
N=8000
cat >"$T/count.yaml" <<EOF
dpdk: { args: [--no-huge, -m, "256", --no-pci, --file-prefix, ${PREFIX}c] }
engine: { link_size: 16384 }
workers:
  rx: auto
  fwd: { count: 2 }
  tx: auto
apps:
  src: { type: source, worker: rx, count: $N, flows: 64 }
  sw:  { type: l2fwd, worker: fwd }
  snk: { type: sink, worker: tx }
links:
  - src.output -> sw.input
  - sw.output -> snk.input
EOF
live count c "the sink to count $N packets" \
  "sys.exit(d['apps']['snk']['counters']['out_packets'] != $N)" --quiet
got=$(summary_get "$f" apps snk counters out_packets)
[[ $got -eq $N ]] || fail "sink consumed $got of $N packets"
a=$(summary_get "$f" links "sw@0.output -> snk@input.input0" packets)
b=$(summary_get "$f" links "sw@1.output -> snk@input.input1" packets)
[[ $a -gt 0 && $b -gt 0 && $((a + b)) -eq $N ]] || fail "replicas forwarded $a + $b, expected both > 0 and $N in all"
[[ $(link_kind "$T/count.log" "sw@1.output -> snk@input.input1") == interlink ]] || fail "a replica's link to the join is not an interlink"
tot=$(summary_get "$f" replicated sw counters out_packets)
r0=$(summary_get "$f" apps sw@0 counters out_packets)
r1=$(summary_get "$f" apps sw@1 counters out_packets)
[[ $tot -eq $((r0 + r1)) ]] || fail "replicated sw out_packets $tot, replicas $r0 + $r1"
[[ $(summary_get "$f" replicated sw group) == fwd ]] || fail "replicated sw's group is not fwd"
[[ $(summary_get "$f" replicated sw replicas) == '["sw@0", "sw@1"]' ]] || fail "replicated sw's replicas: $(summary_get "$f" replicated sw replicas)"
pool_back "$T/count.log"
ok "split -> group of two -> join: $a + $b = $N packets, totals add up"

# ---- 2b: a single worker's app sending to a port on a group reaches it
# through the inserted split; each replica sends on its own tx queue.
N2=4000
cat >"$T/tx.yaml" <<EOF
dpdk: { args: [--no-huge, -m, "256", --no-pci, --file-prefix, ${PREFIX}t, --vdev, net_null1] }
engine: { link_size: 8192 }
workers:
  rx: auto
  fwd: { count: 2 }
apps:
  src: { type: source, worker: rx, count: $N2, flows: 32 }
  out: { type: port, worker: fwd, device: net_null1 }
links:
  - src.output -> out.input
EOF
live tx t "the port to send $N2 packets" \
  "sys.exit(d['replicated']['out']['counters']['out_packets'] != $N2)" --quiet
out_replicas
[[ $sent -eq $N2 ]] || fail "the port's replicas sent $sent of $N2"
[[ $(link_kind "$T/tx.log" "src@output.output1 -> out@1.input") == interlink ]] || fail "no interlink to replica 1"
pool_back "$T/tx.log"
ok "a single worker reaches a group's port through the split: $N2 packets over both tx queues"

# ---- 3: telemetry's totals while a replicated port runs
cat >"$T/live.yaml" <<EOF
dpdk: { args: [--no-huge, -m, "256", --no-pci, --file-prefix, ${PREFIX}l, --vdev, net_null0, --vdev, net_null1] }
workers:
  fwd: { count: 2 }
apps:
  nic: { type: port, worker: fwd, device: net_null0 }
  out: { type: port, worker: fwd, device: net_null1 }
links:
  - nic.output -> out.input
EOF
live live l "both replicas counted in sluice stats --json" "
r = d['replicated']['nic']
assert r['replicas'] == ['nic@0', 'nic@1'], r
parts = [d['apps'][n]['counters']['in_packets'] for n in r['replicas']]
assert all(p > 0 for p in parts), parts
assert r['counters']['in_packets'] == sum(parts), (r['counters'], parts)
assert 'rx_queue' not in r['counters'], 'a gauge was summed'
assert d['apps']['nic@1']['counters']['rx_queue'] == 1"
out_replicas
pool_back "$T/live.log"
ok "telemetry: replicated totals are the replicas' sum; each replica on its own tx queue"

# ---- 4: configuration errors
printf '%s\n' "workers:" "  fwd: { count: 2 }" "apps:" \
  "  nic: { type: port, worker: fwd, device: net_null0, rss: \"ip,udpp\" }" \
  "  sw: { type: l2fwd, worker: fwd }" "links: [nic.output -> sw.input, sw.output -> nic.input]" >"$T/rss.yaml"
expect_exit 2 "$T/rss.log" check "$T/rss.yaml"
expect_in "$T/rss.log" "sluice: $T/rss.yaml:4:3: app 'nic': parameter 'rss': 'udpp' is not a hash field (fields: ip, ipv4, ipv6, udp, tcp, sctp, l2, or none)"
printf '%s\n' "workers:" "  a: { count: 2 }" "  b: { count: 3 }" "apps:" \
  "  s: { type: source, worker: a }" "  k: { type: sink, worker: b }" "links: [s.output -> k.input]" >"$T/sizes.yaml"
expect_exit 2 "$T/sizes.log" run "$T/sizes.yaml"
expect_in "$T/sizes.log" "sluice: $T/sizes.yaml:7:9: link 's.output -> k.input' joins group 'a' (2 members) to group 'b' (3 members)"
ok "configuration errors: a bad rss field, groups of different sizes"

# rss_key: not hex; and given together with rss_symmetric.  (A port line
# with its key; the rest as in rss.yaml.)
rss_case() { # rss_case NAME PARAMS MESSAGE
  printf '%s\n' "workers:" "  fwd: { count: 2 }" "apps:" \
    "  nic: { type: port, worker: fwd, device: net_null0, $2 }" \
    "  sw: { type: l2fwd, worker: fwd }" "links: [nic.output -> sw.input, sw.output -> nic.input]" >"$T/$1.yaml"
  expect_exit 2 "$T/$1.log" check "$T/$1.yaml"
  expect_in "$T/$1.log" "sluice: $T/$1.yaml:4:3: app 'nic': $3"
}
rss_case key "rss_key: \"6d5z\"" "parameter 'rss_key' must be hex bytes (6d5a6d5a... or 6d:5a:...), got '6d5z'"
rss_case keysym "rss_key: \"6d5a\", rss_symmetric: true" "give rss_key or rss_symmetric, not both: rss_symmetric uses a key of its own"
# An app outside a group naming an app inside it (a flow cache's router).
printf '%s\n' "workers:" "  fwd: { count: 2 }" "  one: auto" "apps:" \
  "  r: { type: router, worker: fwd, routes: [{ prefix: 0.0.0.0/0, output: 0 }] }" \
  "  k: { type: sink, worker: fwd }" \
  "  fc: { type: flowcache, worker: one, route: r }" "  k2: { type: sink, worker: one }" \
  "  g: { type: source, worker: fwd }" "  g2: { type: source, worker: one }" \
  "links: [g.output -> r.input, r.output0 -> k.input, g2.output -> fc.input, fc.output -> k2.input]" >"$T/ref.yaml"
expect_exit 2 "$T/ref.log" check "$T/ref.yaml"
expect_in "$T/ref.log" "sluice: $T/ref.yaml:7:3: app 'fc': parameter 'route' names app 'r', which runs once per member of group 'fwd'; only an app on that group can refer to it"
ok "configuration errors: a bad rss_key, rss_key with rss_symmetric, a reference into a group"
