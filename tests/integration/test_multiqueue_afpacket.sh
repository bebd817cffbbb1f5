#!/usr/bin/env bash
# af_packet ports with two queue pairs (qpairs=2) served by a worker group of
# two: Sluice as a wire between two network namespaces, each port replicated
# (a@k <-> b@k on fwd@k), kernel traffic through it.
#
#   ns A: vethA 198.18.1.1/24 ==veth== ethA ]                    [ ethB ==veth== vethB 198.18.1.2/24 : ns B
#                                             ns E: sluice a@0 <-> b@0
#                                                          a@1 <-> b@1
#
# af_packet has no RSS: its qpairs sockets form a PACKET_FANOUT group that
# hashes each frame's flow (addresses and ports, the same for both directions)
# to one socket, i.e. one rx queue, i.e. one replica.  A ping is one flow, so
# it stays on one replica; FLOWS UDP flows (distinct source ports) land on
# both unless every one hashes to the same queue (probability 2 x 2^-FLOWS:
# never, in practice).  Each UDP flow sends DATAGRAMS datagrams, one at a
# time: host B echoes each back and host A waits for the echo before sending
# the next, without retries, so no ring ever holds more than one frame of the
# test and a frame lost anywhere fails the test, naming its flow.
#
# Checks: the ping loses nothing; every datagram reaches B and every echo
# reaches A; both replicas of each port received frames; per replica and in
# total, what one port received the other sent (no drops); the hosts' kernels
# received exactly what Sluice sent; the JSON `replicated` sums; every mbuf back.
# IPv6 is off everywhere, so the only frames are ARP, ICMP and the UDP flows.
#
# The UDP sockets send without a checksum (SO_NO_CHECK; a zero UDP checksum is
# valid in IPv4): a veth leaves the checksum of a local UDP sender to the
# "hardware" (CHECKSUM_PARTIAL), an af_packet socket hands such frames over
# with the checksum unfinished, and the receiving kernel would drop them.
# ICMP's checksum is computed in software, so the ping needs nothing.
. "$(dirname "$0")/lib.sh"

UDP_PORT=7000
PINGS=10
FLOWS=32
DATAGRAMS=4
SRV_PID=

cleanup() {
  local rc=$?
  wire_cleanup "$SRV_PID"
  SRV_PID=
  return $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

wire_init mqa 198.18.1.1 198.18.1.2
command -v python3 >/dev/null || skip "no python3 (the UDP flows are python3 sockets)"

# ----------------------------------------------------------------- set-up
wire_up

# Two queue pairs per port; small rings: 64 frames of 2 KiB per queue and direction.
AFP="qpairs=2,blocksz=4096,framesz=2048,framecnt=64"
LOG=$T/mq.log
cat >"$T/mq.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
pool: { mbufs: 4095 }
workers:
  fwd: { count: 2 }
apps:
  a: { type: port, worker: fwd, device: "net_af_packet0,iface=ethA,$AFP" }
  b: { type: port, worker: fwd, device: "net_af_packet1,iface=ethB,$AFP" }
links:
  - a.output -> b.input
  - b.output -> a.input
YAML
expect_exit 0 "$T/check.log" check "$T/mq.yaml"

# The UDP echo server in B: echoes every datagram, counts them per source
# port; writes "ready" once bound and its counts to DONE after WANT datagrams.
cat >"$T/server.py" <<'PY'
import socket, sys
port, want, ready, done = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 11, 1)     # SO_NO_CHECK (see the top)
s.bind(("0.0.0.0", port))
open(ready, "w").close()
seen = {}
for _ in range(want):
    data, peer = s.recvfrom(2048)
    seen[peer[1]] = seen.get(peer[1], 0) + 1
    s.sendto(data, peer)
with open(done + ".tmp", "w") as f:
    f.write("%d %d\n" % (sum(seen.values()), len(seen)))
import os
os.rename(done + ".tmp", done)
PY
# The client in A: FLOWS sockets (source ports BASE..BASE+FLOWS-1), each
# sending DATAGRAMS datagrams to B one at a time and waiting for its echo.
cat >"$T/client.py" <<'PY'
import socket, sys
dst, port, flows, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
base = 40000
socks = []
for i in range(flows):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, 11, 1)     # SO_NO_CHECK (see the top)
    s.bind(("0.0.0.0", base + i))
    s.settimeout(30)     # a backstop for a lost frame, not a speed requirement
    socks.append(s)
echoed = 0
for j in range(n):
    for i, s in enumerate(socks):
        msg = b"flow %d datagram %d" % (i, j)
        s.sendto(msg, (dst, port))
        try:
            data, _ = s.recvfrom(2048)
        except socket.timeout:
            sys.exit("no echo for flow %d (source port %d), datagram %d, after 30 s" % (i, base + i, j))
        if data != msg:
            sys.exit("flow %d: echo %r, expected %r" % (i, data, msg))
        echoed += 1
print("echoed %d" % echoed)
PY

# ----------------------------------------------------------------- the run
read -r a_tx0 a_rx0 b_tx0 b_rx0 < <(wire_kstats)
# --duration is a backstop only: the run is ended by SIGINT below.
wire_start "$LOG" "$T/mq.yaml" 300

want=$((FLOWS * DATAGRAMS))
ip netns exec "$NS_B" python3 "$T/server.py" "$UDP_PORT" "$want" "$T/srv.ready" "$T/srv.done" >"$T/srv.log" 2>&1 &
SRV_PID=$!
wait_event "the UDP echo server in $NS_B" "$SRV_PID" "$T/srv.log" test -f "$T/srv.ready"

wire_ping ping "$LOG" "$PINGS"

ip netns exec "$NS_A" python3 "$T/client.py" "$IP_B" "$UDP_PORT" "$FLOWS" "$DATAGRAMS" >"$T/client.log" 2>&1 ||
  { cat "$T/client.log" "$LOG" >&2; fail "UDP flows through Sluice: a datagram or its echo was lost"; }
expect_in "$T/client.log" "echoed $want"
wait_event "the UDP echo server's counts" "$SRV_PID" "$T/srv.log" test -f "$T/srv.done"
wait "$SRV_PID"
SRV_PID=
read -r srv_got srv_flows <"$T/srv.done"
[[ $srv_got -eq $want && $srv_flows -eq $FLOWS ]] ||
  fail "the server in $NS_B received $srv_got datagrams on $srv_flows flows, expected $want on $FLOWS"
ok "UDP: $FLOWS flows x $DATAGRAMS datagrams, all $want received by $NS_B and echoed back to $NS_A"

wire_stop "$LOG" mq
read -r a_tx1 a_rx1 b_tx1 b_rx1 < <(wire_kstats)

# ----------------------------------------------------------------- the counts
python3 - "$LOG.json" "$((a_tx1 - a_tx0)) $((a_rx1 - a_rx0)) $((b_tx1 - b_tx0)) $((b_rx1 - b_rx0))" \
  "$((PINGS + want))" <<'PY' || { cat "$LOG" >&2; fail "the summary (above)"; }
import json, sys
s = json.load(open(sys.argv[1]))
a_tx, a_rx, b_tx, b_rx = map(int, sys.argv[2].split())
least = int(sys.argv[3])       # frames each way at least: the pings and the datagrams
c = {n: a["counters"] for n, a in s["apps"].items()}
errors = []
def check(cond, what):
    if not cond:
        errors.append(what)
want = ["a@0", "a@1", "b@0", "b@1"]
if sorted(c) != want:
    sys.exit("apps: %s, expected %s" % (sorted(c), want))
for k in (0, 1):
    a, b = c["a@%d" % k], c["b@%d" % k]
    # The fanout hash put flows on both queues of each port (see the top).
    check(a["in_packets"] > 0, "a@%d received nothing from ethA: the flows did not spread" % k)
    check(b["in_packets"] > 0, "b@%d received nothing from ethB: the flows did not spread" % k)
    check(a["rx_queue"] == k and a["tx_queue"] == k, "a@%d serves rx %s / tx %s" % (k, a["rx_queue"], a["tx_queue"]))
    check(b["rx_queue"] == k and b["tx_queue"] == k, "b@%d serves rx %s / tx %s" % (k, b["rx_queue"], b["tx_queue"]))
    # A replica forwards on its own queue pair of the other port: what a@k
    # received, b@k sent, and the other way.
    check(a["in_packets"] == b["out_packets"], "a@%d in %d, b@%d out %d" % (k, a["in_packets"], k, b["out_packets"]))
    check(b["in_packets"] == a["out_packets"], "b@%d in %d, a@%d out %d" % (k, b["in_packets"], k, a["out_packets"]))
    for n in ("a@%d" % k, "b@%d" % k):
        check(c[n]["drops"] == 0, "%s drops %d" % (n, c[n]["drops"]))
a_in = c["a@0"]["in_packets"] + c["a@1"]["in_packets"]
b_in = c["b@0"]["in_packets"] + c["b@1"]["in_packets"]
a_out = c["a@0"]["out_packets"] + c["a@1"]["out_packets"]
b_out = c["b@0"]["out_packets"] + c["b@1"]["out_packets"]
check(a_in >= least and b_in >= least, "A->B %d frames, B->A %d, expected >= %d each" % (a_in, b_in, least))
# The hosts received what Sluice sent, frame for frame; what a host sent may
# exceed what Sluice took by an ARP probe sent after Sluice closed its sockets.
check(b_rx == b_out and a_rx == a_out and a_tx >= a_in and b_tx >= b_in,
      "vethA sent %d (a in %d), vethB received %d (b out %d), vethB sent %d (b in %d), vethA received %d (a out %d)"
      % (a_tx, a_in, b_rx, b_out, b_tx, b_in, a_rx, a_out))
rep = s.get("replicated") or {}
for p, tot in (("a", {"in_packets": a_in, "out_packets": a_out}), ("b", {"in_packets": b_in, "out_packets": b_out})):
    r = rep.get(p)
    if r is None:
        errors.append("no replicated.%s" % p)
        continue
    check(r["group"] == "fwd" and r["replicas"] == [p + "@0", p + "@1"], "replicated.%s: %r" % (p, r))
    for key, v in tot.items():
        check(r["counters"][key] == v, "replicated.%s.counters.%s %s, the replicas sum to %d" % (p, key, r["counters"][key], v))
    check(r["counters"]["drops"] == 0, "replicated.%s.counters.drops %s" % (p, r["counters"]["drops"]))
check(s["drained_at_stop"]["freed"] == 0, "drained_at_stop.freed %s" % s["drained_at_stop"]["freed"])
if errors:
    sys.exit("\n".join(errors))
print("ok: A->B %d frames (a@0 %d, a@1 %d), B->A %d (b@0 %d, b@1 %d), no drops, the kernels' counters agree"
      % (a_in, c["a@0"]["in_packets"], c["a@1"]["in_packets"], b_in, c["b@0"]["in_packets"], c["b@1"]["in_packets"]))
PY

# ------------------------------------------------------------ nothing left
cleanup
trap - EXIT
wire_removed
exit 0
