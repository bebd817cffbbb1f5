#!/usr/bin/env bash
# Flow records to real IPFIX collectors (docs/flowcache.md, "IPFIX"):
#   1. a pcap of known flows (two IPv4 UDP flows, one more on VLAN 100, an
#      IPv6 TCP and an IPv6 UDP flow) through a flow cache exporting to
#      nfdump's nfcapd over UDP: `nfdump -r` prints exactly those flows,
#      their input interface (the DPDK port + 1), VLAN, packets and bytes
#      (IP octets);
#   2. the same messages captured as they arrive (socat) and read by
#      libfixbuf's ipfixDump: flowEndReason idle (1) for every flow, the
#      observation domain configured, ingressInterface and vlanId; flows of
#      a generator with an active timeout end with reason active (2), with
#      ingressInterface 0 (no port);
#   3. the collector killed mid-run: the records of the messages that then
#      fail are counted (ipfix_lost) and forwarding goes on;
#   4. over TCP (ipfix+tcp://) to a socat listener: the five flows read back
#      by ipfixDump; the listener killed and started again: records lost
#      meanwhile, the exporter connects again and sends on;
#   5. a bad URL and an unresolvable host: exit 2 with the place.
. "$(dirname "$0")/lib.sh"
for tool in nfcapd nfdump ipfixDump socat; do
  command -v $tool >/dev/null || skip "no '$tool' (scripts/setup installs nfdump, libfixbuf-tools and socat)"
done
NF_PID="" SO_PID=""
trap 'kill -KILL ${pid:-} 2>/dev/null; kill ${NF_PID:-} ${SO_PID:-} 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT

# free_udp_port: a UDP port on loopback that was free a moment ago
free_udp_port() {
  python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
start_nfcapd() {   # start_nfcapd PORT DIR
  mkdir -p "$2"
  nfcapd -b 127.0.0.1 -p "$1" -w "$2" -t 300 >"$T/nfcapd.log" 2>&1 &
  NF_PID=$!
  wait_event "nfcapd to start" "$NF_PID" "$T/nfcapd.log" grep -q "Startup" "$T/nfcapd.log"
}
stop_nfcapd() {
  kill -TERM "$NF_PID" && wait "$NF_PID"
  NF_PID=""
}

# --- 1 and 2: known flows to nfcapd and to a raw capture
python3 - "$T/flows.pcap" "$SRC/tests/tools" <<'PY' || fail "cannot write the pcap"
import struct, sys
sys.path.insert(0, sys.argv[2])
import pcaptool
def ip4(src, dst, proto, payload):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, 64, proto, 0, bytes(src), bytes(dst))
    return h[:10] + struct.pack("!H", pcaptool.csum(h)) + h[12:] + payload
def udp(sp, dp, n): return struct.pack("!HHHH", sp, dp, 8 + n, 0) + bytes(n)
def tcp(sp, dp, n): return struct.pack("!HHIIBBHHH", sp, dp, 1, 0, 0x50, 0x10, 1000, 0, 0) + bytes(n)
def ip6(src, dst, nh, payload):
    return struct.pack("!IHBB16s16s", 0x60000000, len(payload), nh, 64, src, dst) + payload
e4 = bytes.fromhex("020000000002" "020000000001" "0800")
e6 = bytes.fromhex("020000000002" "020000000001" "86dd")
a6, b6 = bytes.fromhex("20010db8" + "00" * 11 + "01"), bytes.fromhex("20010db8" + "00" * 11 + "02")
f = [e4 + ip4([198, 18, 0, 1], [198, 19, 0, 1], 17, udp(1000, 53, 18))] * 10
f += [e4 + ip4([198, 18, 0, 2], [198, 19, 0, 2], 17, udp(2000, 123, 100))] * 20
f += [e6 + ip6(a6, b6, 6, tcp(40000, 443, 50))] * 5
f += [e6 + ip6(b6, a6, 17, udp(5353, 5353, 30))] * 7
v4 = bytes.fromhex("020000000002" "020000000001" "8100" "a064" "0800")   # PCP 5, VLAN 100
f += [v4 + ip4([198, 18, 0, 3], [198, 19, 0, 3], 17, udp(3000, 53, 10))] * 3
pcaptool.write(sys.argv[1], f)
PY
port=$(free_udp_port)
start_nfcapd "$port" "$T/nf"
cat >"$T/fc.yaml" <<EOF
dpdk: { args: $EAL_ARGS }
apps:
  in:  { type: port, device: "net_pcap0,rx_pcap=$T/flows.pcap" }
  fc:  { type: flowcache, idle_timeout: 200ms, records: "ipfix://127.0.0.1:$port", ipfix_domain: 77 }
  snk: { type: sink }
links:
  - in.output -> fc.input
  - fc.output -> snk.input
EOF
start_engine "$T/fc.yaml" "$T/fc.log" 3
five_sent() { snap && (($(summary_get "$T/s.json" apps fc counters ipfix_sent) == 5)); }
wait_event "the 5 records sent" "$pid" "$T/fc.log" five_sent
interrupt "$pid" "$T/fc.log" || { cat "$T/fc.log" >&2; fail "the run failed"; }
pid=""
pool_back "$T/fc.log"
stop_nfcapd
# in: ingressInterface, the DPDK port (0) + 1; svln: vlanId
nfdump -R "$T/nf" -q -o "fmt:%pr %sa %sp %da %dp %in %svln %pkt %byt" | sed 's/  */ /g; s/^ //' | sort >"$T/nfdump.out"
cat >"$T/want" <<EOF
TCP 2001:db8::1 40000 2001:db8::2 443 1 0 5 550
UDP 198.18.0.1 1000 198.19.0.1 53 1 0 10 460
UDP 198.18.0.2 2000 198.19.0.2 123 1 0 20 2560
UDP 198.18.0.3 3000 198.19.0.3 53 1 100 3 114
UDP 2001:db8::2 5353 2001:db8::1 5353 1 0 7 546
EOF
diff -u "$T/want" "$T/nfdump.out" || fail "nfdump does not print exactly the five flows"
c=$(summary_get "$T/fc.log.json" apps fc counters ipfix_lost)
[[ $c == 0 ]] || fail "ipfix_lost $c"
ok "nfcapd got the 5 flows (3 IPv4, one on VLAN 100, 2 IPv6): nfdump prints them with their input interface, VLAN, packets and IP octets"

# The same run, the messages captured raw and read by ipfixDump; then a
# generator's single flow with a 300 ms active timeout: reason active.
port2=$(free_udp_port)
socat -u "UDP-RECV:$port2,bind=127.0.0.1" "OPEN:$T/raw.ipfix,creat,append" &
SO_PID=$!
wait_event "socat to listen" "$SO_PID" "" bash -c "ss -uln | grep -q ':$port2 '"
sed -e "s/127.0.0.1:$port/127.0.0.1:$port2/" "$T/fc.yaml" >"$T/fc2.yaml"
cat >"$T/act.yaml" <<EOF
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, flows: 1, rate: 1000 }
  fc:  { type: flowcache, idle_timeout: 10s, active_timeout: 300ms, records: "ipfix://127.0.0.1:$port2", ipfix_domain: 78 }
  snk: { type: sink }
links:
  - src.output -> fc.input
  - fc.output -> snk.input
EOF
start_engine "$T/fc2.yaml" "$T/fc2.log" 3
wait_event "the 5 records sent" "$pid" "$T/fc2.log" bash -c \
  "'$SLUICE' stats --prefix '$PREFIX' --json >'$T/s.json' 2>/dev/null && python3 -c 'import json,sys; sys.exit(0 if json.load(open(\"$T/s.json\"))[\"apps\"][\"fc\"][\"counters\"][\"ipfix_sent\"] == 5 else 1)'"
interrupt "$pid" "$T/fc2.log" || fail "the second run failed"
start_engine "$T/act.yaml" "$T/act.log" 3
two_active() { snap && (($(summary_get "$T/s.json" apps fc counters active) >= 2)); }
wait_event "two active timeouts" "$pid" "$T/act.log" two_active
interrupt "$pid" "$T/act.log" || fail "the active-timeout run failed"
pid=""
pool_back "$T/act.log"
sent=$(summary_get "$T/act.log.json" apps fc counters ipfix_sent)
# every message sent is in the capture once socat has written it
captured() { (($(ipfixDump --in "$T/raw.ipfix" 2>/dev/null | grep -c 'flowEndReason') >= 5 + sent)); }
wait_event "socat to write the messages" "$SO_PID" "" captured
kill "$SO_PID"; SO_PID=""
ipfixDump --in "$T/raw.ipfix" >"$T/dump" 2>&1 || { head -50 "$T/dump"; fail "ipfixDump cannot read the messages"; }
python3 - "$T/dump" "$sent" <<'PY' || { head -80 "$T/dump" >&2; fail "ipfixDump's view"; }
import re, sys
text = open(sys.argv[1]).read()
msgs = re.split(r"\n(?=--- Message Header ---)", text)
dom = {77: [], 78: []}
ing = {77: set(), 78: set()}
vlans = {77: [], 78: []}
for m in msgs:
    d = re.search(r"observation domain id:\s*(\d+)", m, re.I)
    if d is None:
        continue
    k = int(d.group(1))
    dom.setdefault(k, []).extend(int(x) for x in re.findall(r"flowEndReason\s*:\s*(\d+)", m))
    ing.setdefault(k, set()).update(int(x) for x in re.findall(r"ingressInterface\s*:\s*(\d+)", m))
    vlans.setdefault(k, []).extend(int(x) for x in re.findall(r"vlanId\s*:\s*(\d+)", m))
assert sorted(dom[77]) == [1, 1, 1, 1, 1], dom[77]                   # idle
assert ing[77] == {1} and sorted(vlans[77]) == [0, 0, 0, 0, 100], (ing[77], vlans[77])
assert ing[78] == {0}, ing[78]                # generated frames: no port
assert len(dom[78]) == int(sys.argv[2]) and 2 in dom[78], dom[78]      # active
assert set(dom[78]) <= {2, 4}, dom[78]        # active, or forced at stop
assert re.search(r"Template Set", text, re.I) or "Template Record" in text, "no template"
print("domain 77: %s; domain 78: %d records, reasons %s" % (dom[77], len(dom[78]), sorted(set(dom[78]))))
PY
ok "ipfixDump reads the messages: flowEndReason idle (1) in domain 77, active (2) in domain 78"

# --- 3. the collector killed mid-run
port3=$(free_udp_port)
start_nfcapd "$port3" "$T/nf3"
cat >"$T/kill.yaml" <<EOF
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, dist: unique, rate: 20000 }
  fc:  { type: flowcache, idle_timeout: 50ms, records: "ipfix://127.0.0.1:$port3" }
  snk: { type: sink }
links:
  - src.output -> fc.input
  - fc.output -> snk.input
EOF
start_engine "$T/kill.yaml" "$T/kill.log" 3
some_sent() { snap && (($(summary_get "$T/s.json" apps fc counters ipfix_sent) > 0)); }
wait_event "records sent to nfcapd" "$pid" "$T/kill.log" some_sent
stop_nfcapd
some_lost() { snap && (($(summary_get "$T/s.json" apps fc counters ipfix_lost) > 0)); }
wait_event "records lost once the collector is gone" "$pid" "$T/kill.log" some_lost
at=$(summary_get "$T/s.json" apps snk counters out_packets)
goes_on() { snap && (($(summary_get "$T/s.json" apps snk counters out_packets) > at + 1000)); }
wait_event "forwarding to go on" "$pid" "$T/kill.log" goes_on
interrupt "$pid" "$T/kill.log" || { cat "$T/kill.log" >&2; fail "the run without a collector failed"; }
pid=""
pool_back "$T/kill.log"
ok "collector gone: $(summary_get "$T/kill.log.json" apps fc counters ipfix_lost) records lost and counted, forwarding went on"

# --- 4. over TCP: the known flows, then a listener that goes and comes back
tport=$(free_port)
# socat is ready when it listens, or has already taken the exporter's
# connection (it then listens no more: one connection each)
ready() { ss -tan | awk -v p="127.0.0.1:$tport" '$4 == p && ($1 == "LISTEN" || $1 == "ESTAB") { f = 1 } END { exit !f }'; }
tcp_listen() {   # tcp_listen FILE: socat appending the stream to FILE
  socat -u "TCP-LISTEN:$tport,bind=127.0.0.1,reuseaddr" "OPEN:$1,creat,append" &
  SO_PID=$!
  wait_event "socat to listen on TCP $tport" "$SO_PID" "" ready
}
tcp_listen "$T/tcp.ipfix"
sed -e "s|ipfix://127.0.0.1:$port\"|ipfix+tcp://127.0.0.1:$tport\"|" "$T/fc.yaml" >"$T/fct.yaml"
grep -q "ipfix+tcp" "$T/fct.yaml" || fail "cannot write the TCP config"
start_engine "$T/fct.yaml" "$T/fct.log" 3
wait_event "the 5 records sent over TCP" "$pid" "$T/fct.log" five_sent
interrupt "$pid" "$T/fct.log" || { cat "$T/fct.log" >&2; fail "the TCP run failed"; }
pid=""
pool_back "$T/fct.log"
wait "$SO_PID"   # the exporter closed the stream: socat ends, the file written
SO_PID=""
ipfixDump --in "$T/tcp.ipfix" >"$T/tdump" 2>&1 || { head -40 "$T/tdump"; fail "ipfixDump cannot read the TCP stream"; }
[[ $(grep -cE 'flowEndReason\s*:\s*1' "$T/tdump") == 5 && $(grep -cE 'packetDeltaCount\s*:' "$T/tdump") == 5 ]] ||
  { head -60 "$T/tdump"; fail "the TCP stream does not hold the 5 idle flows"; }
[[ $(summary_get "$T/fct.log.json" apps fc counters ipfix_connects) == 1 ]] || fail "ipfix_connects is not 1"
ok "over TCP: the 5 flows read back by ipfixDump, one connection"

cat >"$T/tk.yaml" <<EOF
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, dist: unique, rate: 20000 }
  fc:  { type: flowcache, idle_timeout: 50ms, records: "ipfix+tcp://127.0.0.1:$tport" }
  snk: { type: sink }
links:
  - src.output -> fc.input
  - fc.output -> snk.input
EOF
tcp_listen "$T/tcp2.ipfix"
start_engine "$T/tk.yaml" "$T/tk.log" 3
wait_event "records sent over TCP" "$pid" "$T/tk.log" some_sent
kill "$SO_PID"; wait "$SO_PID" 2>/dev/null; SO_PID=""
wait_event "records lost while the listener is gone" "$pid" "$T/tk.log" some_lost
tcp_listen "$T/tcp3.ipfix"
sent_at=$(summary_get "$T/s.json" apps fc counters ipfix_sent)
back() {
  snap && (($(summary_get "$T/s.json" apps fc counters ipfix_connects) >= 2 &&
            $(summary_get "$T/s.json" apps fc counters ipfix_sent) > sent_at))
}
wait_event "the exporter to connect again and send on" "$pid" "$T/tk.log" back
at=$(summary_get "$T/s.json" apps snk counters out_packets)
wait_event "forwarding to go on" "$pid" "$T/tk.log" goes_on
interrupt "$pid" "$T/tk.log" || { cat "$T/tk.log" >&2; fail "the TCP reconnection run failed"; }
pid=""
pool_back "$T/tk.log"
kill "$SO_PID" 2>/dev/null; wait "$SO_PID" 2>/dev/null; SO_PID=""
ok "over TCP, the listener gone and back: $(summary_get "$T/tk.log.json" apps fc counters ipfix_lost) records lost, $(summary_get "$T/tk.log.json" apps fc counters ipfix_connects) connections, forwarding went on"

# --- 5. bad collectors at load time
bad_url() {   # bad_url NAME RECORDS WANT
  cat >"$T/$1.yaml" <<EOF
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source }
  fc:  { type: flowcache, records: "$2" }
  snk: { type: sink }
links:
  - src.output -> fc.input
  - fc.output -> snk.input
EOF
  for cmd in check run; do
    "$SLUICE" $cmd "$T/$1.yaml" >"$T/$1.out" 2>&1
    rc=$?
    [[ $rc -eq 2 ]] || { cat "$T/$1.out"; fail "$1: sluice $cmd exited $rc, expected 2"; }
    expect_in "$T/$1.out" "sluice: $T/$1.yaml:4:3: app 'fc': $3"
  done
}
bad_url no-port "ipfix://127.0.0.1" "records: 'ipfix://127.0.0.1' is not ipfix://HOST:PORT, ipfix+udp://HOST:PORT or ipfix+tcp://HOST:PORT (an IPv6 HOST in brackets)"
bad_url port-range "ipfix://127.0.0.1:70000" "records: the collector's port must be 1..65535, in 'ipfix://127.0.0.1:70000'"
bad_url v6-brackets "ipfix+tcp://2001:db8::1:4739" "records: 'ipfix+tcp://2001:db8::1:4739' is not ipfix://HOST:PORT, ipfix+udp://HOST:PORT or ipfix+tcp://HOST:PORT (an IPv6 HOST in brackets)"
bad_url unresolvable "ipfix://no-such-host.invalid:4739" "records: cannot resolve the IPFIX collector 'no-such-host.invalid': "
sed 's|records: "ipfix://127.0.0.1"|records: "ipfix://127.0.0.1:4739", ipfix_refresh: 0|' "$T/no-port.yaml" >"$T/refresh.yaml"
"$SLUICE" check "$T/refresh.yaml" >"$T/refresh.out" 2>&1
[[ $? -eq 2 ]] || { cat "$T/refresh.out"; fail "ipfix_refresh 0 was not refused with exit 2"; }
expect_in "$T/refresh.out" "sluice: $T/refresh.yaml:4:"
expect_in "$T/refresh.out" ": app 'fc': parameter 'ipfix_refresh' must be >= 1ms, got '0'"
ok "bad collector URLs, an unresolvable host and a template refresh of 0: exit 2 with the place, from check and run"
