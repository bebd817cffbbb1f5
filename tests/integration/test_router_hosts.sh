#!/usr/bin/env bash
# The router as two Linux hosts' gateway (docs/router.md): each host has an
# address and a default route via the router, nothing else (no static
# neighbour, no offload change).
#
#   ns A: vethA 198.18.1.2/24 ==veth== ethA ]  router r  [ ethB ==veth== vethB 198.18.2.2/24 : ns B
#         default via 198.18.1.1                ns E      default via 198.18.2.1
#                                                          (B also has 198.18.100.1 on lo,
#                                                           routed by r via 198.18.2.2)
#
# The config is docs/examples/router-hosts.yaml.  Checked: ping both ways (10 of 10), the router's addresses answer ping,
# arping sees the interface's MAC (the port's), ICMP traceroute shows the
# router's hop, a route via a gateway the router resolves, net unreachable
# for a destination without a route, fragmentation needed (mtu 1400 on the
# way to B) for a ping with DF, neighbours that age out once the traffic
# stops, a UDP datagram intact (the ports fill the checksums the hosts'
# veths leave to offload), 100 MB of TCP intact, TCP to the router's own
# address delivered to the host's stack on a tap (local_output), every mbuf
# back at the end.
. "$(dirname "$0")/lib.sh"

# keepalive_start / keepalive_stop: A pings B (IPv4 and IPv6) five times a
# second in the background, so that both hosts' entries in the router's
# neighbour table stay in use (its timers here are 1 s + 1 s) while a check
# reads them, however slowly a loaded machine runs the check.
KA=()
keepalive_start() {
  ip netns exec "$NS_A" ping -n -q -i 0.2 198.18.2.2 >/dev/null 2>&1 &
  KA+=($!)
  ip netns exec "$NS_A" ping -6 -n -q -i 0.2 2001:db8:2::2 >/dev/null 2>&1 &
  KA+=($!)
}
keepalive_stop() {
  local p
  for p in "${KA[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  KA=()
}
# trace_hops OUT ARGS...: traceroute -I from A (ARGS: -6 or not, -m, the
# destination), three probes a hop, into OUT, with the keepalive pings
# running: the router's entries for A and B (2 s timers here) stay resolved,
# so no probe waits on a resolution, which a loaded machine has made longer
# than a probe's wait (the hop then showed '*').
trace_hops() {
  local out=$1 rc
  shift
  keepalive_start
  ip netns exec "$NS_A" traceroute -I -n -q 3 -w 3 "$@" >"$out" 2>&1
  rc=$?
  keepalive_stop
  return $rc
}

NS_L=
cleanup() {
  local rc=$?
  [[ $rc -ne 0 && -f $T/run.log ]] && { echo "---- the engine's log ----"; tail -40 "$T/run.log"; } >&2
  keepalive_stop
  wire_cleanup
  [[ -n $NS_L ]] && ip netns del "$NS_L" 2>/dev/null
  return $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

wire_init rth 198.18.1.2 198.18.2.2
for tool in arping traceroute socat ss ndisc6; do
  command -v $tool >/dev/null || skip "no '$tool' (scripts/setup installs it)"
done
wire_up
ip -n "$NS_A" route add default via 198.18.1.1 || fail "cannot add A's default route"
ip -n "$NS_B" route add default via 198.18.2.1 || fail "cannot add B's default route"
ip -n "$NS_B" addr add 198.18.100.1/32 dev lo || fail "cannot add B's second address"
# IPv6 on the hosts (wire_up turned it off everywhere; the engine's
# namespace keeps it off, so that its kernel does not answer on ethA/ethB)
for nd in "$NS_A vethA" "$NS_B vethB"; do
  read -r ns dev <<<"$nd"
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0 \
    "net.ipv6.conf.$dev.disable_ipv6=0" || fail "cannot turn IPv6 on in $ns"
done
ip -n "$NS_A" addr add 2001:db8:1::2/64 dev vethA nodad &&
  ip -n "$NS_B" addr add 2001:db8:2::2/64 dev vethB nodad || fail "cannot give the hosts IPv6 addresses"
ip -n "$NS_B" addr add 2001:db8:100::1/128 dev lo || fail "cannot add B's second IPv6 address"
ip -n "$NS_A" -6 route add default via 2001:db8:1::1 &&
  ip -n "$NS_B" -6 route add default via 2001:db8:2::1 || fail "cannot add the hosts' IPv6 default routes"

# The documented example, as it is, with this test's EAL arguments, a
# smaller MTU towards B (for fragmentation needed) and short neighbour
# timeouts (for the aging).
# (-m 512: each route table, IPv4 and IPv6, takes 64 MiB, and a reload
# holds two of each for a moment)
python3 - "$SRC/docs/examples/router-hosts.yaml" "${EAL_ARGS/\"256\"/\"512\"}" >"$T/r.yaml" <<'PY' || fail "cannot adapt the example"
import re, sys
s = open(sys.argv[1]).read()
s, n1 = re.subn(r"  args: \[.*?\]\n", "  args: %s\n" % sys.argv[2], s, flags=re.S)
n2 = s.count("address: \"198.18.2.1/24, 2001:db8:2::1/64\" }")
s = s.replace("address: \"198.18.2.1/24, 2001:db8:2::1/64\" }", "address: \"198.18.2.1/24, 2001:db8:2::1/64\", mtu: 1400 }")
n3 = s.count("    routes:\n")
s = s.replace("    routes:\n", "    neigh_reachable: 1s\n    neigh_stale: 1s\n    routes:\n")
n4 = s.count("      - { name: west,")
s = s.replace("      - { name: west,", "      - { name: east10, output: 0, vlan: 10, address: 198.18.10.1/24 }\n      - { name: west,")
assert (n1, n2, n3, n4) == (1, 1, 1, 1), (n1, n2, n3, n4)
sys.stdout.write(s)
PY
"$SLUICE" check "$T/r.yaml" >"$T/check" 2>&1 || { cat "$T/check"; fail "the config does not check"; }
mac_a=$(ip -n "$NS_E" -br link show ethA | awk '{print $3}')

# --duration is a backstop only (the run ends by SIGINT in wire_stop): longer
# than the whole test may take under ASan on a loaded machine.
wire_start "$T/run.log" "$T/r.yaml" 900
# router_counters: the router's counters now (for a failure's report).
router_counters() { snap && python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["apps"]["r"]["counters"])' "$T/s.json"; }

# --- 1. ping both ways, through the router
wire_ping "ping A -> B" "$T/run.log" 10
ping_counted "$NS_B" "$T/ping" 10 198.18.1.2 || { cat "$T/ping" "$T/run.log"; fail "ping B -> A lost packets"; }
ok "ping B -> A: 10 of 10 answered"

# --- 2. the router's own addresses, and its MAC as the hosts see it
for addr in 198.18.1.1 198.18.2.1; do
  ping_counted "$NS_A" "$T/ping" 3 "$addr" || { cat "$T/ping" "$T/run.log"; fail "the router's $addr does not answer ping"; }
done
ok "the router answers ping on 198.18.1.1 and 198.18.2.1"
ip netns exec "$NS_A" arping -c 2 -w 5 -I vethA 198.18.1.1 >"$T/arping" 2>&1 ||
  { cat "$T/arping" "$T/run.log"; fail "arping got no reply from 198.18.1.1"; }
grep -qi "$mac_a" "$T/arping" || { cat "$T/arping"; fail "arping's reply is not from ethA's MAC $mac_a"; }
lladdr=$(ip -n "$NS_A" neigh show 198.18.1.1 | awk '{print $5}')
[[ ${lladdr,,} == "${mac_a,,}" ]] || fail "A's neighbour entry for its gateway is '$lladdr', expected $mac_a"
ok "arping and A's neighbour table see the router at ethA's MAC $mac_a"

# --- 1b. IPv6: ping -6 both ways, the router's own addresses, its MAC as
# neighbour discovery sees it (ndisc6, the hosts' neighbour tables),
# traceroute -6, no route and packet too big.
# (Each way waits first for one answer: the hosts' kernels resolve the
# router by ND, which a loaded machine has been seen to take longer than
# ping's waits for; the attempts it took are printed.)
v6tries=""
for way in "$NS_A 2001:db8:2::2" "$NS_B 2001:db8:1::2"; do
  read -r ns to <<<"$way"
  tries=1
  until ip netns exec "$ns" ping -6 -n -q -c 1 -W 2 "$to" >"$T/ping" 2>&1; do
    tries=$((tries + 1))
    kill -0 "$SL_PID" 2>/dev/null || { cat "$T/run.log"; fail "sluice ended during the IPv6 pings"; }
    ((tries <= 30)) || { cat "$T/ping"; router_counters; ip -n "$ns" -6 neigh; tail -20 "$T/run.log"; fail "no answer to ping -6 $to in 30 tries"; }
  done
  v6tries+=" $tries"
  ping_counted "$ns" "$T/ping" 10 -6 "$to" || { cat "$T/ping"; router_counters; snap; python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["apps"]["r"]["neighbours"])' "$T/s.json"; ip -n "$NS_A" -6 neigh; fail "ping -6 to $to lost packets"; }
done
ok "ping -6 A -> B and B -> A: 10 of 10 each (first answers at ping$v6tries)"
ping_counted "$NS_A" "$T/ping" 3 -6 2001:db8:100::1 || { cat "$T/ping"; fail "2001:db8:100::/48 via 2001:db8:2::2: ping -6 lost packets"; }
ok "2001:db8:100::/48 via 2001:db8:2::2: ping -6 answered"
for addr in 2001:db8:1::1 2001:db8:2::1; do
  ping_counted "$NS_A" "$T/ping" 3 -6 "$addr" || { cat "$T/ping"; fail "the router's $addr does not answer ping -6"; }
done
ll=$(ip netns exec "$NS_A" ndisc6 -1 -n 2001:db8:1::1 vethA 2>&1) ||
  { echo "$ll"; fail "ndisc6 got no advertisement for 2001:db8:1::1"; }
grep -qi "Target link-layer address: *$mac_a" <<<"$ll" || { echo "$ll"; fail "ndisc6: 2001:db8:1::1 is not at $mac_a"; }
lladdr=$(ip -n "$NS_A" -6 neigh show 2001:db8:1::1 | awk '{print $5}')
[[ ${lladdr,,} == "${mac_a,,}" ]] || fail "A's IPv6 neighbour entry for its gateway is '$lladdr', expected $mac_a"
ok "the router answers ping -6 on 2001:db8:1::1 and 2001:db8:2::1; ndisc6 and A's neighbour table see it at $mac_a"
trace_hops "$T/trace6" -6 -m 3 2001:db8:2::2 || true
grep -qE '^ *1 .*2001:db8:1::1 ' "$T/trace6" && grep -qE '^ *2 .*2001:db8:2::2 ' "$T/trace6" ||
  { cat "$T/trace6"; fail "traceroute -6 does not show the router's hop"; }
ok "traceroute -6 -I: hop 1 the router (2001:db8:1::1), hop 2 B"
ip netns exec "$NS_A" ping -6 -n -c 1 -W 2 2001:db8:99::1 >"$T/ping" 2>&1
grep -qE "From 2001:db8:1::1 .*(No route|Destination unreachable)" "$T/ping" ||
  { cat "$T/ping"; fail "no 'Destination unreachable: No route' from the router for 2001:db8:99::1"; }
ip netns exec "$NS_A" ping -6 -n -c 2 -i 0.2 -W 2 -M do -s 1450 2001:db8:2::2 >"$T/ping" 2>&1
grep -qE "From 2001:db8:1::1 .*[Pp]acket too big.*mtu=1400" "$T/ping" ||
  { cat "$T/ping"; fail "no 'Packet too big: mtu=1400' from the router"; }
ok "ICMPv6 from the router: no route for 2001:db8:99::1, packet too big (mtu 1400) towards B"

# --- 1c. a live reload without the IPv6 route via B: the route goes
# (no route, from the router), the neighbour table stays (B's entries, made
# before, are still there: a reload that does not touch the interfaces
# keeps it), and a second reload brings the route back.
grep -v '2001:db8:100::/48' "$T/r.yaml" >"$T/r-no6.yaml"
keepalive_start
b6_listed() { snap && python3 -c 'import json,sys; sys.exit("2001:db8:2::2" not in [e["address"] for e in json.load(open(sys.argv[1]))["apps"]["r"]["neighbours"]])' "$T/s.json"; }
WAIT_EVENT_POLL=0.1 wait_event "B's IPv6 neighbour entry" "$SL_PID" "$T/run.log" b6_listed
"$SLUICE" reload --prefix "$PREFIX" "$T/r-no6.yaml" >"$T/reload" 2>&1 ||
  { cat "$T/reload"; fail "the reload without the IPv6 route failed"; }
expect_in "$T/reload" "reconfigure app 'r': routes 2 rows -> 1 row"
snap
python3 -c 'import json,sys; sys.exit("2001:db8:2::2" not in [e["address"] for e in json.load(open(sys.argv[1]))["apps"]["r"]["neighbours"]])' "$T/s.json" ||
  fail "B's IPv6 neighbour entry did not survive a reload of the routes"
ip netns exec "$NS_A" ping -6 -n -c 1 -W 2 2001:db8:100::1 >"$T/ping" 2>&1
grep -qE "From 2001:db8:1::1 .*(No route|Destination unreachable)" "$T/ping" ||
  { cat "$T/ping"; fail "after the reload, 2001:db8:100::1 did not get 'no route' from the router"; }
"$SLUICE" reload --prefix "$PREFIX" "$T/r.yaml" >"$T/reload" 2>&1 ||
  { cat "$T/reload"; fail "the reload back failed"; }
# (B's entry may have aged out meanwhile: the first packet then waits for
# its resolution; a machine under load may take longer than one ping's
# wait, so the check is the first answered ping, with the counters shown
# when none comes.)
tries=0
until ip netns exec "$NS_A" ping -6 -n -q -c 1 -W 2 2001:db8:100::1 >"$T/ping" 2>&1; do
  tries=$((tries + 1))
  ((tries < 30)) || { cat "$T/ping"; router_counters; snap; cat "$T/s.json"; fail "the IPv6 route did not come back with the reload"; }
done
tries=$((tries + 1))
ping_counted "$NS_A" "$T/ping" 3 -6 2001:db8:100::1 || { cat "$T/ping"; router_counters; fail "ping -6 through the restored route lost packets"; }
keepalive_stop
ok "reload: the IPv6 route via B went (no route from the router) and came back (answered at ping $tries, then 3 of 3); B's neighbour entry stayed"

# --- 2a. the neighbour table as sluice stats (--json and text) and
# telemetry show it: A and B reachable, on their interfaces, with their MACs.
keepalive_start
mac_va=$(ip -n "$NS_A" -br link show vethA | awk '{print $3}')
mac_vb=$(ip -n "$NS_B" -br link show vethB | awk '{print $3}')
# (The entries age in 2 s here: a ping first refreshes both; a try that
# still misses one, after a stall of the machine, pings again.)
nb_check() {
  ip netns exec "$NS_A" ping -n -q -c 1 -W 2 198.18.2.2 >/dev/null
  snap || fail "sluice stats --json failed"
  python3 - "$T/s.json" "$mac_va" "$mac_vb" <<'PY'
import json, sys
nb = {e["address"]: e for e in json.load(open(sys.argv[1]))["apps"]["r"]["neighbours"]}
for addr, mac, iface in (("198.18.1.2", sys.argv[2], "east"), ("198.18.2.2", sys.argv[3], "west")):
    e = nb.get(addr)
    assert e is not None, "no entry for %s in %s" % (addr, sorted(nb))
    assert e["mac"] == mac.lower() and e["interface"] == iface, e
    assert e["state"] in ("reachable", "stale") and e["held"] == 0, e
    assert 0 <= e["age_ms"] < 60000, e
PY
}
good=
for try in 1 2 3 4 5; do nb_check 2>"$T/nb.err" && { good=1; break; }; done
[[ -n $good ]] || { cat "$T/nb.err" "$T/s.json"; fail "the neighbours in sluice stats --json"; }
"$SLUICE" stats --prefix "$PREFIX" >"$T/stats.txt" 2>&1 || fail "sluice stats failed"
grep -q "^  address 198.18.1.2 mac ${mac_va,,} state \(reachable\|stale\) interface east age_ms [0-9]* held 0$" "$T/stats.txt" ||
  { cat "$T/stats.txt"; fail "sluice stats does not show A's neighbour entry"; }
if command -v dpdk-telemetry.py >/dev/null; then
  printf '%s\n' /sluice/neighbours,r /sluice/neighbours,nosuch /sluice/neighbours,east_port /sluice/neighbours,r,x |
    ip netns exec "$NS_E" dpdk-telemetry.py -f "$PREFIX" >"$T/tel.out" 2>&1 || fail "dpdk-telemetry.py failed"
  python3 - "$T/tel.out" <<'PY' || { cat "$T/tel.out"; fail "the telemetry command /sluice/neighbours"; }
import json, sys
r = [json.loads(l)["/sluice/neighbours"] for l in open(sys.argv[1]) if l.startswith("{")]
assert len(r) == 4, r
assert r[0]["total"] >= 2 and "198.18.1.2" in r[0]["address"], r[0]
assert r[1] == {"error": "no app 'nosuch' in the pipeline"}, r[1]
assert r[2] == {"error": "app 'east_port' (port) keeps no neighbours"}, r[2]
assert r[3] == {"error": "bad parameter 'x': an offset (a row number) was expected"}, r[3]
PY
  ok "telemetry: /sluice/neighbours,r lists them; a missing app, an app without the table and a bad offset get errors"
fi
keepalive_stop
ok "sluice stats (--json and text) shows A ($mac_va, east) and B ($mac_vb, west) in the neighbour table"

# --- 2b. bad and spoofed ARP from A (raw frames on vethA): a reply for an
# address the router never asked about is not learnt (arp_ignored), a
# message of another hardware type is dropped as bad (arp_bad).
before_ign=$(snap && summary_get "$T/s.json" apps r counters arp_ignored)
before_bad=$(summary_get "$T/s.json" apps r counters arp_bad)
ip netns exec "$NS_A" python3 - "$mac_a" <<'PY' || fail "cannot send raw ARP frames from A"
import socket, struct, sys
router = bytes.fromhex(sys.argv[1].replace(":", ""))
me = bytes.fromhex("020000000077")
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("vethA", 0))
def frame(htype, op, spa, tpa):
    arp = struct.pack("!HHBBH", htype, 0x0800, 6, 4, op) + me + bytes(spa) + router + bytes(tpa)
    return (router + me + b"\x08\x06" + arp).ljust(60, b"\0")
s.send(frame(1, 2, [198, 18, 1, 77], [198, 18, 1, 1]))   # a reply never asked for
s.send(frame(6, 1, [198, 18, 1, 77], [198, 18, 1, 1]))   # IEEE 802 hardware: not handled
PY
arp_seen() { snap && (($(summary_get "$T/s.json" apps r counters arp_ignored) > before_ign)) &&
             (($(summary_get "$T/s.json" apps r counters arp_bad) > before_bad)); }
WAIT_EVENT_POLL=0.1 wait_event "the router to count the spoofed and the bad ARP" "$SL_PID" "$T/run.log" arp_seen
# Had the spoofed reply been learnt, B's ping of 198.18.1.77 would leave for
# its MAC at once; not learnt, the router asks, nobody answers, and after
# its requests the held ping fails (neigh_failed).
ip netns exec "$NS_B" ping -n -c 1 -W 1 198.18.1.77 >/dev/null 2>&1
failed() { snap && (($(summary_get "$T/s.json" apps r counters neigh_failed) >= 1)); }
WAIT_EVENT_POLL=0.2 wait_event "the router to give up on 198.18.1.77" "$SL_PID" "$T/run.log" failed
ok "a spoofed ARP reply ignored (arp_ignored, 198.18.1.77 then resolved and failed), an ARP of another hardware type dropped (arp_bad)"

# --- 2c. spoofed and bad ND from A (scapy on vethA): an advertisement for
# an address the router never asked about is not learnt (nd_ignored), a
# solicitation with hop limit 64 (it crossed a router) is dropped (nd_bad).
snap
ig0=$(summary_get "$T/s.json" apps r counters nd_ignored) bad0=$(summary_get "$T/s.json" apps r counters nd_bad)
ip netns exec "$NS_A" python3 - "$mac_a" <<'PY' || fail "cannot send the ND frames"
import sys
from scapy.all import Ether, IPv6, ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr, sendp, get_if_hwaddr
me, router = get_if_hwaddr("vethA"), sys.argv[1]
sendp(Ether(src=me, dst=router) / IPv6(src="2001:db8:1::77", dst="2001:db8:1::1", hlim=255) /
      ICMPv6ND_NA(tgt="2001:db8:1::77", R=0, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=me), iface="vethA", verbose=False)
sendp(Ether(src=me, dst=router) / IPv6(src="2001:db8:1::2", dst="2001:db8:1::1", hlim=64) /
      ICMPv6ND_NS(tgt="2001:db8:1::1") / ICMPv6NDOptSrcLLAddr(lladdr=me), iface="vethA", verbose=False)
PY
nd_seen() { snap && (($(summary_get "$T/s.json" apps r counters nd_ignored) > ig0)) &&
            (($(summary_get "$T/s.json" apps r counters nd_bad) > bad0)); }
wait_event "nd_ignored and nd_bad to count the spoofed and the bad message" "$SL_PID" "$T/run.log" nd_seen
python3 -c 'import json,sys; sys.exit("2001:db8:1::77" in [e["address"] for e in json.load(open(sys.argv[1]))["apps"]["r"]["neighbours"]])' "$T/s.json" ||
  fail "the spoofed advertisement for 2001:db8:1::77 was learnt"
ok "a spoofed neighbour advertisement ignored (nd_ignored), a solicitation with hop limit 64 dropped (nd_bad)"

# --- 3. traceroute (ICMP) shows the router's hop
trace_hops "$T/trace" -m 4 198.18.2.2 || { cat "$T/trace"; fail "traceroute failed"; }
grep -qE '^ *1 .*198\.18\.1\.1 ' "$T/trace" && grep -qE '^ *2 .*198\.18\.2\.2 ' "$T/trace" ||
  { cat "$T/trace" "$T/run.log"; router_counters; fail "traceroute does not show the router (198.18.1.1), then B"; }
ok "traceroute -I: hop 1 the router, hop 2 B"

# --- 4. a route via a gateway the router resolves
ping_counted "$NS_A" "$T/ping" 3 198.18.100.1 || { cat "$T/ping" "$T/run.log"; fail "198.18.100.1 (via 198.18.2.2) does not answer"; }
ok "198.18.100.0/24 via 198.18.2.2: ping answered"

# --- 5. no route: net unreachable from the router
ip netns exec "$NS_A" ping -n -c 1 -W 2 198.18.200.1 >"$T/ping" 2>&1
grep -qE "From 198\.18\.1\.1 .*(Destination Net Unreachable)" "$T/ping" ||
  { cat "$T/ping" "$T/run.log"; fail "no 'Destination Net Unreachable' from the router"; }
ok "198.18.200.1 (no route): Destination Net Unreachable from 198.18.1.1"

# --- 6. fragmentation needed: 1478-byte packets with DF towards west (mtu 1400)
ip netns exec "$NS_A" ping -n -c 2 -i 0.2 -W 2 -M do -s 1450 198.18.2.2 >"$T/ping" 2>&1
grep -qE "From 198\.18\.1\.1 .*mtu = 1400" "$T/ping" ||
  { cat "$T/ping" "$T/run.log"; fail "no 'Frag needed ... mtu = 1400' from the router"; }
ok "ping -M do -s 1450: fragmentation needed, mtu = 1400, from the router"

# --- 6b. a VLAN sub-interface: a host on VLAN 10 of A's veth (198.18.10.2)
# pings B through the router's interface east10 (vlan: 10 on output 0),
# tagged both ways, the router resolving it by ARP on VLAN 10.  This
# kernel may have no VLAN devices (CONFIG_VLAN_8021Q), so the host is
# scapy on a raw socket of vethA (tests/tools/vlanhost.py); a tag the router
# has no interface for (20) is dropped and counted.
python3 -c 'import scapy' 2>/dev/null || fail "no python3-scapy (scripts/setup installs it)"
ip netns exec "$NS_A" python3 "$SRC/tests/tools/vlanhost.py" vethA 198.18.10.2 10 "$mac_a" 198.18.2.2 10 \
  >"$T/vlan.out" 2>&1 || { cat "$T/vlan.out"; router_counters; fail "ping from VLAN 10 to B lost packets"; }
grep -q '^sent 10 replies 10 arp_answered [1-9]' "$T/vlan.out" ||
  { cat "$T/vlan.out"; fail "VLAN 10: the router did not resolve the host by ARP on VLAN 10"; }
ip netns exec "$NS_A" python3 "$SRC/tests/tools/vlanhost.py" vethA 198.18.20.2 20 "$mac_a" 198.18.2.2 1 1 \
  >"$T/vlan20.out" 2>&1 && { cat "$T/vlan20.out"; fail "a ping on VLAN 20 was answered: the router has no interface there"; }
# (asked until counted: the frame may still be on its way through the port)
vlan_counted() { snap && (($(summary_get "$T/s.json" apps r counters vlan_unknown) >= 1)); }
wait_event "vlan_unknown to count the frame on VLAN 20" "$SL_PID" "$T/run.log" vlan_counted
ok "VLAN 10: $(cat "$T/vlan.out") (ping to B through interface east10); VLAN 20 dropped (vlan_unknown $(summary_get "$T/s.json" apps r counters vlan_unknown))"

# --- 7. UDP through the router, the hosts' offloads untouched: A's veth
# leaves the checksum to offload and the packet socket hands the frame over
# with the field unfilled; the port (l4_checksum: fill) computes it, so B's
# kernel takes the datagram.
ip netns exec "$NS_B" timeout 60 socat -u UDP-RECVFROM:5002,bind=198.18.2.2 OPEN:"$T/udp.out",creat,trunc &
upid=$!
udp_bound() { ip netns exec "$NS_B" ss -Hlun "sport = :5002" | grep -q 5002; }
wait_event "B's UDP socket" "$upid" "" udp_bound
echo "one datagram through the router" | ip netns exec "$NS_A" socat -u STDIN UDP-SENDTO:198.18.2.2:5002
wait "$upid"
[[ $(cat "$T/udp.out") == "one datagram through the router" ]] ||
  { router_counters; fail "B did not get A's UDP datagram (got '$(cat "$T/udp.out")')"; }
ok "UDP: a datagram A -> B, its checksum filled by the port"

# --- 7b. TCP: 100 MB from A to B through the router, with the hosts' TSO
# and checksum offloads as they are (peer_tso: off makes the hosts' veths
# segment in software; the ports fill the checksums), and the bytes
# compared at both ends.
head -c 100000000 /dev/urandom >"$T/tcp.in" || fail "cannot make 100 MB of data"
ip netns exec "$NS_B" timeout 240 socat -u TCP-LISTEN:5003,bind=198.18.2.2,reuseaddr OPEN:"$T/tcp.out",creat,trunc &
tpid=$!
tcp_bound() { ip netns exec "$NS_B" ss -Hltn "sport = :5003" | grep -q 5003; }
wait_event "B's TCP listener" "$tpid" "" tcp_bound
ip netns exec "$NS_A" timeout 240 socat -u OPEN:"$T/tcp.in" TCP:198.18.2.2:5003 ||
  { router_counters; fail "A's TCP transfer to B failed (socat exited $?)"; }
wait "$tpid" || fail "B's TCP listener exited $?"
sum_in=$(sha256sum <"$T/tcp.in" | cut -c1-64)
sum_out=$(sha256sum <"$T/tcp.out" | cut -c1-64)
[[ $sum_in == "$sum_out" ]] ||
  { router_counters; fail "TCP: B got $(stat -c %s "$T/tcp.out") bytes, sha256 $sum_out; A sent 100000000, sha256 $sum_in"; }
ok "TCP: 100 MB A -> B, sha256 ${sum_in:0:16}... at both ends"
for dev in ethA ethB; do
  ip -n "$NS_E" -d link show "$dev" | grep -q 'prog/xdp.*name sluice_pass' ||
    { ip -n "$NS_E" -d link show "$dev"; fail "no sluice_pass XDP program on $dev (peer_tso: off)"; }
done
ok "peer_tso: off: the sluice_pass XDP program on ethA and ethB while the ports run"
# A second engine asking for the same on ethA is refused: the interface has
# an XDP program (the first engine's), and the message says so.
ns_port_refused "$NS_E" again '{ type: port, device: "net_af_packet9,iface=ethA,qpairs=1", peer_tso: off }' \
  "app 'again': cannot attach an XDP program to interface 'ethA': Device or resource busy (it has one already)"
ok "peer_tso: off on an interface that has an XDP program already: refused, named"
rm -f "$T/tcp.in" "$T/tcp.out"

# --- 7c. punt: TCP to the router's own address reaches a listener in the
# host's stack on the tap (local_output), moved to a namespace of its own
# that has the router's addresses; its replies come back through the router.
NS_L=sl-rth-l-$$
ip netns add "$NS_L" || fail "cannot create namespace $NS_L"
ip netns exec "$NS_L" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip -n "$NS_E" link set sl-host netns "$NS_L" || fail "cannot move the tap sl-host to $NS_L"
ip -n "$NS_L" link set sl-host up && ip -n "$NS_L" link set lo up &&
  ip -n "$NS_L" addr add 198.18.1.1/32 dev sl-host &&
  ip -n "$NS_L" addr add 198.18.2.1/32 dev sl-host &&
  ip -n "$NS_L" route add 198.18.0.0/15 dev sl-host || fail "cannot set up sl-host in $NS_L"
ip netns exec "$NS_L" timeout 60 socat -u TCP-LISTEN:5004,bind=198.18.1.1,reuseaddr OPEN:"$T/punt.out",creat,trunc &
lpid=$!
punt_bound() { ip netns exec "$NS_L" ss -Hltn "sport = :5004" | grep -q 5004; }
wait_event "the host stack's TCP listener" "$lpid" "" punt_bound
seq 1 20000 >"$T/punt.in"
ip netns exec "$NS_A" timeout 60 socat -u OPEN:"$T/punt.in" TCP:198.18.1.1:5004 ||
  { router_counters; fail "A's TCP connection to the router's 198.18.1.1:5004 failed"; }
wait "$lpid" || fail "the host stack's listener exited $?"
cmp -s "$T/punt.in" "$T/punt.out" ||
  { router_counters; fail "the listener behind 198.18.1.1 got $(stat -c %s "$T/punt.out") bytes of $(stat -c %s "$T/punt.in")"; }
snap
(($(summary_get "$T/s.json" apps r counters punted) > 0)) || fail "punted is 0"
ok "punt: A's TCP to 198.18.1.1:5004 reached the host stack's listener on the tap ($(stat -c %s "$T/punt.in") bytes, punted $(summary_get "$T/s.json" apps r counters punted))"

# --- 8. the neighbours age out once nothing uses them (reachable 1 s +
# stale 1 s, plus the aging pass); the counters say so.
aged() { snap && (($(summary_get "$T/s.json" apps r counters neigh_aged) >= 2)) &&
         (($(summary_get "$T/s.json" apps r counters neigh_entries) == 0)); }
WAIT_EVENT_POLL=0.2 wait_event "the router's neighbours to age out" "$SL_PID" "$T/run.log" aged
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["apps"]["r"]["neighbours"] != [])' "$T/s.json" ||
  fail "neighbours after aging: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["apps"]["r"]["neighbours"])' "$T/s.json")"
late=$(summary_get "$T/s.json" apps r counters neigh_aged_late_us)
[[ $late =~ ^[0-9]+$ ]] || fail "neigh_aged_late_us is '$late'"
ok "both neighbours aged out (neigh_aged $(summary_get "$T/s.json" apps r counters neigh_aged), neigh_entries 0), at most ${late} us after reachable 1 s + stale 1 s"

wire_stop "$T/run.log" "router"
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["apps"]["r"]["neighbours"] != [])' "$T/run.log.json" ||
  fail "the summary's neighbours at stop are not [] (all aged out)"
ok "the JSON summary at stop: apps.r.neighbours is []"
for dev in ethA ethB; do
  ! ip -n "$NS_E" -d link show "$dev" | grep -q 'prog/xdp' ||
    { ip -n "$NS_E" -d link show "$dev"; fail "an XDP program left on $dev after the stop"; }
done
ok "the XDP programs went with the ports"
c() { app_counter "$T/run.log" r "$1"; }
(($(c arp_replied) >= 2 && $(c echo_replied) >= 6 && $(c icmp_sent) >= 3)) ||
  fail "counters: arp_replied $(c arp_replied), echo_replied $(c echo_replied), icmp_sent $(c icmp_sent)"
(($(c too_big) >= 1 && $(c no_route) >= 1 && $(c forwarded) >= 23)) ||
  fail "counters: too_big $(c too_big), no_route $(c no_route), forwarded $(c forwarded)"
[[ $(c arp_bad) == 1 && $(c neigh_failed) == 1 ]] || fail "arp_bad $(c arp_bad) (1 sent), neigh_failed $(c neigh_failed) (1: the ping of 198.18.1.77)"
(($(app_counter "$T/run.log" east_port l4_filled) >= 1)) ||
  fail "east_port filled $(app_counter "$T/run.log" east_port l4_filled) checksums, expected the datagram's"
(($(c forwarded6) >= 40 && $(c nd_replied) >= 2 && $(c nd_requests) >= 2 && $(c nd_in) >= 4)) ||
  fail "IPv6 counters: forwarded6 $(c forwarded6), nd_replied $(c nd_replied), nd_requests $(c nd_requests), nd_in $(c nd_in)"
ok "counters: arp_replied $(c arp_replied), echo_replied $(c echo_replied), icmp_sent $(c icmp_sent), forwarded $(c forwarded), forwarded6 $(c forwarded6), nd_replied $(c nd_replied), nd_requests $(c nd_requests)"
wire_cleanup
wire_removed
