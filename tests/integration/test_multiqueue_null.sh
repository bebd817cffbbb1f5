#!/usr/bin/env bash
# A replicated chain on a worker group of two: net_null0 -> flowcache ->
# net_null1, each app once per member (nic@k -> fc@k -> out@k on fwd@k).
# net_null's rx makes packets without limit, so the run is stopped (SIGINT)
# once a live snapshot (`sluice stats --json`) shows both replicas forwarding;
# the checks are on the summary's sums, not on exact counts:
#   - both replicas forwarded (nic@k in_packets > 0, out@k out_packets > 0);
#   - each replica serves its own queues (rx_queue = k x rx_queues,
#     tx_queue = k) and the device's per-queue counts are its own;
#   - the JSON `replicated` object holds, for each app, its group, its
#     replicas and every counter summed over them (gauges left out);
#   - nothing is lost or made up in a replica (in = out + drops), and every
#     mbuf is back.
# Two variants: one rx queue per replica (2 on the device) and two (4).
. "$(dirname "$0")/lib.sh"
[[ $(id -u) -eq 0 ]] || skip "the telemetry socket is root's: run as root (the run is stopped once a live snapshot shows both replicas forwarding)"

MIN_FORWARDED=10000      # packets each replica forwards before the stop
SL_PID=""
cleanup() {
  local rc=$?
  [[ -n $SL_PID ]] && kill -KILL "$SL_PID" 2>/dev/null && wait "$SL_PID" 2>/dev/null
  rm -rf "$T" "/var/run/dpdk/$PREFIX"
  return $rc
}
trap cleanup EXIT

# gauges TYPE: the names of the gauges TYPE declares (`sluice apps TYPE`).
gauges() { "$SLUICE" apps "$1" | awk '$2 == "gauge" { print $1 }' | paste -sd, -; }
PORT_GAUGES=$(gauges port)
FC_GAUGES=$(gauges flowcache)
for g in rx_queue tx_queue; do
  [[ ,$PORT_GAUGES, == *,$g,* ]] || fail "'sluice apps port' declares no gauge '$g' (declares: $PORT_GAUGES)"
done

# config NAME RX_QUEUES: write $T/NAME.yaml.
config() {
  cat >"$T/$1.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
pool: { mbufs: 8191 }
workers:
  fwd: { count: 2 }
apps:
  nic: { type: port, worker: fwd, device: "net_null0", rx_queues: $2 }
  fc:  { type: flowcache, worker: fwd, entries: 1024 }
  out: { type: port, worker: fwd, device: "net_null1" }
links:
  - nic.output -> fc.input
  - fc.output -> out.input
YAML
}

stats_json() { "$SLUICE" stats --prefix "$PREFIX" --json >"$1" 2>"$1.err"; }
# forwarding: a live snapshot shows both replicas past MIN_FORWARDED.
forwarding() {
  local k n
  stats_json "$T/live.json" || return 1
  for k in 0 1; do
    n=$(summary_get "$T/live.json" apps "out@$k" counters out_packets 2>/dev/null)
    [[ $n =~ ^[0-9]+$ ]] && ((n >= MIN_FORWARDED)) || return 1
  done
}

for rxq in 1 2; do
  name=rxq$rxq
  LOG=$T/$name.log
  config "$name" "$rxq"
  expect_exit 0 "$T/$name.check" check "$T/$name.yaml"
  expect_exit 0 "$T/$name.plan" plan "$T/$name.yaml"
  # The plan lists every replica with its queues, and its links.
  for k in 0 1; do
    if ((rxq == 1)); then
      q="rx queue $k, tx queue $k of 2 pairs"
    else
      q="rx queues $((k * rxq))-$((k * rxq + rxq - 1)) of $((2 * rxq)), tx queue $k"
    fi
    grep -qE "^ +nic@$k +port +fwd@$k +$q(;|$)" "$T/$name.plan" ||
      { cat "$T/$name.plan" >&2; fail "$name: the plan shows no line 'nic@$k port fwd@$k $q'"; }
    grep -qE "^ +fc@$k +flowcache +fwd@$k( |$)" "$T/$name.plan" ||
      { cat "$T/$name.plan" >&2; fail "$name: the plan shows no replica fc@$k on fwd@$k"; }
    expect_in "$T/$name.plan" "nic@$k.output -> fc@$k.input"
  done

  rm -f "$LOG.json"
  # --duration is a backstop only: the run is ended by SIGINT below.
  "$SLUICE" run "$T/$name.yaml" --summary-json "$LOG.json" --duration 300 >"$LOG" 2>&1 &
  SL_PID=$!
  wait_event "the start line" "$SL_PID" "$LOG" log_lines "$LOG" '^sluice: running'
  WAIT_EVENT_POLL=0.2 wait_event "both replicas to forward $MIN_FORWARDED packets" "$SL_PID" "$LOG" forwarding
  signal_run INT "$SL_PID" "$LOG"
  rc=$?
  SL_PID=""
  [[ $rc -eq 0 ]] || { cat "$LOG" >&2; fail "$name: sluice exited $rc after SIGINT, expected 0"; }
  pool_back "$LOG"

  python3 - "$LOG.json" "$rxq" "$PORT_GAUGES" "$FC_GAUGES" <<'PY' || { cat "$LOG" >&2; fail "$name: the summary (above)"; }
import json, sys
s = json.load(open(sys.argv[1]))
rxq = int(sys.argv[2])
gauges = {"nic": set(sys.argv[3].split(",")), "out": set(sys.argv[3].split(",")),
          "fc": set(filter(None, sys.argv[4].split(",")))}
apps, errors = s["apps"], []
def check(cond, what):
    if not cond:
        errors.append(what)

want = ["%s@%d" % (a, k) for a in ("nic", "fc", "out") for k in (0, 1)]
links = ["%s@%d.output -> %s@%d.input" % (a, k, b, k) for a, b in (("nic", "fc"), ("fc", "out")) for k in (0, 1)]
check(sorted(s["links"]) == sorted(links), "links: %s, expected %s" % (sorted(s["links"]), sorted(links)))
check(sorted(apps) == sorted(want), "apps: %s, expected %s" % (sorted(apps), sorted(want)))
check(sorted(s["workers"]) == ["fwd@0", "fwd@1"], "workers: %s" % sorted(s["workers"]))
if errors:
    sys.exit("\n".join(errors))
c = {n: a["counters"] for n, a in apps.items()}

for k in (0, 1):
    nic, fc, out = c["nic@%d" % k], c["fc@%d" % k], c["out@%d" % k]
    check(nic["in_packets"] > 0, "nic@%d received nothing" % k)
    check(out["out_packets"] > 0, "out@%d sent nothing" % k)
    check(fc["not_ip"] > 0, "fc@%d saw no packet" % k)
    check(nic["rx_queue"] == k * rxq, "nic@%d rx_queue %s, expected %d" % (k, nic["rx_queue"], k * rxq))
    check(nic["tx_queue"] == k, "nic@%d tx_queue %s, expected %d" % (k, nic["tx_queue"], k))
    check(out["tx_queue"] == k, "out@%d tx_queue %s, expected %d" % (k, out["tx_queue"], k))
    # net_null keeps per-queue statistics: the device counted, on this
    # replica's queues, what the replica took and gave.
    check(nic["q_ipackets"] == nic["in_packets"],
          "nic@%d q_ipackets %s, in_packets %s" % (k, nic["q_ipackets"], nic["in_packets"]))
    check(out["q_opackets"] == out["out_packets"],
          "out@%d q_opackets %s, out_packets %s" % (k, out["q_opackets"], out["out_packets"]))
    # Links stay inside the replica (direct: the flowcache and the port
    # take bursts in hand), and nothing is lost or made up on the way:
    # nic@k -> fc@k -> out@k.
    l1 = s["links"].get("nic@%d.output -> fc@%d.input" % (k, k))
    l2 = s["links"].get("fc@%d.output -> out@%d.input" % (k, k))
    if l1 is None or l2 is None:
        errors.append("replica %d: links %s" % (k, sorted(s["links"])))
        continue
    check(l1["kind"] == "direct" and l2["kind"] == "direct", "replica %d: links %s, %s" % (k, l1["kind"], l2["kind"]))
    check(l1["drops"] == 0 and l2["drops"] == 0, "replica %d: link drops %d, %d" % (k, l1["drops"], l2["drops"]))
    check(l1["packets"] == nic["in_packets"], "nic@%d in %d, its link carried %d" % (k, nic["in_packets"], l1["packets"]))
    check(l2["packets"] + fc["drops"] == l1["packets"],
          "fc@%d took %d, dropped %d, passed on %d" % (k, l1["packets"], fc["drops"], l2["packets"]))
    check(out["out_packets"] + out["drops"] == l2["packets"],
          "out@%d took %d, sent %d, dropped %d" % (k, l2["packets"], out["out_packets"], out["drops"]))

rep = s.get("replicated")
check(isinstance(rep, dict) and sorted(rep) == ["fc", "nic", "out"], "replicated: %s" % (rep and sorted(rep)))
for a in ("nic", "fc", "out"):
    r = (rep or {}).get(a)
    if not r:
        continue
    names = ["%s@0" % a, "%s@1" % a]
    check(r["group"] == "fwd", "replicated.%s.group %r" % (a, r["group"]))
    check(r["replicas"] == names, "replicated.%s.replicas %r" % (a, r["replicas"]))
    summed = set(c[names[0]]) - gauges[a]
    check(set(r["counters"]) == summed,
          "replicated.%s.counters has %s, expected the replicas' counters less the gauges: %s"
          % (a, sorted(r["counters"]), sorted(summed)))
    for key in sorted(summed & set(r["counters"])):
        total = c[names[0]][key] + c[names[1]][key]
        check(r["counters"][key] == total,
              "replicated.%s.counters.%s = %s, the replicas sum to %s" % (a, key, r["counters"][key], total))
check(s["drained_at_stop"]["freed"] == 0, "drained_at_stop.freed %s" % s["drained_at_stop"]["freed"])
if errors:
    sys.exit("\n".join(errors))
print("ok: %s" % ", ".join("%s in %d / out %d" % (n, c[n]["in_packets"], c[n]["out_packets"])
                          for n in ("nic@0", "nic@1", "out@0", "out@1")))
PY
  ok "$name: both replicas forwarded; each serves its own queues; replicated sums agree; no packet lost"
done
exit 0
