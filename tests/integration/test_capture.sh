#!/usr/bin/env bash
# sluice capture (docs/capture.md) against running engines:
#  1. 1000 packets from a paused source (started by a reload once the capture
#     runs) through "src.output -> swap.input" (worker gen's) and swap.output
#     (worker fwd's) into a pcap port: the capture ends by -c 2000, tcpdump
#     and tshark read 2000 packets, tshark names both interfaces, and each
#     interface's packets are byte for byte the pcap port's output (swap's
#     side) and its MAC-swapped original (the source's side).
#  2. A filter (udp src port 1025) with -s 42 over 8192 packets of two source
#     ports: 4096 captured, all of port 1025, cut to 42 of 64 bytes, and 4096
#     reported dropped by the filter; ended by SIGINT of sluice capture.
#  3. Ends by -a duration:1, and by the engine stopping under a capture.
#  4. A slow reader: -w - into a pipe nobody reads while 150000 packets pass;
#     the link drops nothing, the sink gets every packet, and the capture
#     reports drops (the rings filled) once the reader catches up.
#  5. Bad input: unknown app, port, link, not a point, a point twice, a link
#     under capture already, a filter libpcap cannot compile, bad options, no
#     engine, an output that cannot be created, and malformed capture
#     requests sent to the control socket itself: exit status and message.
# Every run ends with every mbuf back in the pool.
. "$(dirname "$0")/lib.sh"
as_root_engine
trap 'kill -KILL ${pid:-} ${cap_pid:-} 2>/dev/null; rm -rf "$T" "/var/run/dpdk/$PREFIX"' EXIT
command -v tshark >/dev/null || skip "tshark is not installed (scripts/setup installs it)"
command -v tcpdump >/dev/null || skip "tcpdump is not installed (scripts/setup installs it)"
cap_pid=

# capture_bg LOG ARGS...: sluice capture in the background (pid in
# $cap_pid), waiting for its line saying it captures.
capture_bg() {
  local log=$1; shift
  "$SLUICE" capture --prefix "$PREFIX" "$@" 2>"$log" &
  cap_pid=$!
  wait_event "the capture to start" "$cap_pid" "$log" log_lines "$log" "^sluice: capture: capturing on"
}

# wait_capture LOG: the capture in $cap_pid ended with status 0.
wait_capture() {
  wait "$cap_pid"
  local rc=$?
  [[ $rc -eq 0 ]] || { cat "$1" >&2; fail "sluice capture exited $rc"; }
  cap_pid=
}

sink_out() { snap && summary_get "$T/s.json" apps "$1" counters out_packets; }
sink_has() { local n; n=$(sink_out "$1") && ((n >= $2)); }
n_packets() { tcpdump -r "$1" 2>/dev/null | wc -l; }

# --- 1. exactly what the sink got, byte for byte
python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<IHHiIII",0xA1B2C3D4,2,4,0,0,65535,1))' "$T/empty.pcap"
conf1() {
  cat <<EOF
$(two_workers_head)
apps:
  src:  { type: source, worker: gen, size: 100, flows: 16, count: 1000, paused: $1 }
  swap: { type: l2fwd, worker: fwd, mode: swap }
  io:   { type: port, worker: fwd, device: "net_pcap0,rx_pcap=$T/empty.pcap,tx_pcap=$T/out.pcap" }
links:
  - { link: "src.output -> swap.input", size: 4096 }
  - swap.output -> io.input
EOF
}
conf1 true >"$T/one.yaml"
conf1 false >"$T/one-go.yaml"
start_engine "$T/one.yaml" "$T/one.log" 3
grep -q "dpdk-dumpcap can attach" "$T/one.log" && fail "pdump announced on --no-huge (no secondary can attach)"
capture_bg "$T/c1.log" "src.output -> swap.input" swap.output -c 2000 -w "$T/one.pcapng"
expect_in "$T/c1.log" "capturing on 2 points (2 links), snaplen 65535"
expect_exit 0 "$T/r1" reload --prefix "$PREFIX" "$T/one-go.yaml"
expect_in "$T/r1" "reconfigure app 'src'"
wait_capture "$T/c1.log"
expect_in "$T/c1.log" "ended (count): 2000 packets captured, 0 dropped by the filter, 0 dropped"
wait_event "1000 packets out of io" "$pid" "$T/one.log" sink_has io 1000
interrupt "$pid" "$T/one.log" || { cat "$T/one.log" >&2; fail "run 1 failed"; }
pid=
pool_back "$T/one.log"
(($(n_packets "$T/one.pcapng") == 2000)) || fail "tcpdump reads $(n_packets "$T/one.pcapng") packets, not 2000"
tshark -r "$T/one.pcapng" -T fields -e frame.interface_name 2>/dev/null | sort | uniq -c >"$T/ifs"
grep -qxE ' *1000 src.output -> swap.input' "$T/ifs" && grep -qxE ' *1000 swap.output' "$T/ifs" ||
  { cat "$T/ifs" >&2; fail "tshark does not show 1000 packets on each named interface"; }
for f in "src.output -> swap.input:src" "swap.output:swap"; do
  tshark -r "$T/one.pcapng" -Y "frame.interface_name == \"${f%:*}\"" -F pcap -w "$T/${f##*:}.pcap" 2>/dev/null ||
    fail "tshark cannot extract interface ${f%:*}"
done
$PCAPTOOL cmp "$T/swap.pcap" "$T/out.pcap" || fail "swap.output's capture differs from what the pcap port sent"
$PCAPTOOL l2swap "$T/out.pcap" "$T/want-src.pcap"
$PCAPTOOL cmp "$T/src.pcap" "$T/want-src.pcap" || fail "the source's capture differs from the unswapped output"
ok "2000 packets on two workers' links: byte for byte what the sink got, both interfaces named"

# --- 2. a filter, a snap length, SIGINT
conf2() {
  cat <<EOF
$(two_workers_head)
apps:
  src: { type: source, worker: gen, flows: 8192, count: 8192, rate: 50000, paused: $1 }
  out: { type: sink, worker: fwd }
links:
  # More slots than the pool has mbufs: the link cannot drop however long
  # the sink's worker waits for a CPU, so the sink gets all 8192.
  - { link: "src.output -> out.input", size: 16384 }
EOF
}
conf2 true >"$T/two.yaml"
conf2 false >"$T/two-go.yaml"
start_engine "$T/two.yaml" "$T/two.log" 2
capture_bg "$T/c2.log" src.output -f 'udp src port 1025' -s 42 -w "$T/two.pcapng"
expect_exit 0 "$T/r2" reload --prefix "$PREFIX" "$T/two-go.yaml"
wait_event "8192 packets at the sink" "$pid" "$T/two.log" sink_has out 8192
kill -INT "$cap_pid"
wait_capture "$T/c2.log"
expect_in "$T/c2.log" "ended (stopped): 4096 packets captured, 4096 dropped by the filter, 0 dropped"
tshark -r "$T/two.pcapng" -T fields -e udp.srcport -e frame.cap_len -e frame.len 2>/dev/null | sort | uniq -c >"$T/f2"
[[ $(cat "$T/f2") =~ ^\ *4096\ 1025[[:space:]]42[[:space:]]64$ ]] ||
  { cat "$T/f2" >&2; fail "the filtered capture is not 4096 packets of port 1025 cut to 42 of 64 bytes"; }
(($(tcpdump -r "$T/two.pcapng" 'udp src port 1024' 2>/dev/null | wc -l) == 0)) || fail "port 1024 packets in the capture"
interrupt "$pid" "$T/two.log" || { cat "$T/two.log" >&2; fail "run 2 failed"; }
pid=
expect_eq "link drops of run 2" "$(summary_get "$T/two.log.json" links "src.output -> out.input" drops)" 0
pool_back "$T/two.log"
ok "filter: 4096 of port 1025 kept (42 of 64 bytes), 4096 of port 1024 counted as filtered"

# --- 3. ends by -a duration, and by the engine stopping
conf3() {
  cat <<EOF
$(two_workers_head)
apps:
  src: { type: source, worker: gen, flows: 8, rate: $1 }
  out: { type: sink, worker: fwd }
links:
  # 16384 slots: a third of a second at 50000 packets/s, for the CPU the
  # sink's worker shares with the control thread and this script.
  - { link: "src.output -> out.input", size: 16384 }
EOF
}
conf3 20000 >"$T/three.yaml"
start_engine "$T/three.yaml" "$T/three.log" 2
# A second in which the sink's worker never ran catches nothing: such a
# capture is taken again (each must still end as asked, exit 0).
dur_caught() {
  expect_exit 0 "$T/c3a" capture --prefix "$PREFIX" out.input -a duration:1 -w "$T/dur.pcapng"
  expect_in "$T/c3a" "ended (stopped): "
  n=$(n_packets "$T/dur.pcapng")
  ((n > 0))
}
wait_event "a 1 s capture with packets in it" "" "$T/three.log" dur_caught
capture_bg "$T/c3b.log" out.input -w "$T/stop.pcapng"
some_captured() { (($(stat -c %s "$T/stop.pcapng" 2>/dev/null || echo 0) > 4096)); }
wait_event "captured packets in the file" "$cap_pid" "$T/c3b.log" some_captured
interrupt "$pid" "$T/three.log" || { cat "$T/three.log" >&2; fail "run 3 failed"; }
pid=
wait_capture "$T/c3b.log"
expect_in "$T/c3b.log" "ended (the engine stopped): "
(($(n_packets "$T/stop.pcapng") > 0)) || fail "the capture ended by the engine's stop is empty or unreadable"
pool_back "$T/three.log"
ok "ends by -a duration:1 ($n packets) and by the engine stopping"

# --- 4. a slow reader
conf3 50000 >"$T/four.yaml"
start_engine "$T/four.yaml" "$T/four.log" 2
mkfifo "$T/fifo" "$T/gate"
# The reader takes nothing until a line arrives on the gate fifo.
{ read -r _ <"$T/gate"; cat >/dev/null; } <"$T/fifo" &
reader=$!
"$SLUICE" capture --prefix "$PREFIX" "src.output -> out.input" -w - >"$T/fifo" 2>"$T/c4.log" &
cap_pid=$!
wait_event "the capture to start" "$cap_pid" "$T/c4.log" log_lines "$T/c4.log" "^sluice: capture: capturing on"
base=$(sink_out out) || fail "no snapshot"
# The rings, the socket and the pipe hold about 60000 records of 64 bytes.
WAIT_EVENT_POLL=0.2 wait_event "150000 more packets at the sink" "$pid" "$T/four.log" sink_has out $((base + 150000))
echo go >"$T/gate"
kill -INT "$cap_pid"
wait_capture "$T/c4.log"
wait "$reader"
dropped=$(sed -nE 's/.* dropped by the filter, ([0-9]+) dropped \(the capture could not keep up\)/\1/p' "$T/c4.log")
[[ -n $dropped ]] && ((dropped > 0)) || { cat "$T/c4.log" >&2; fail "a reader stalled for 150000 packets, yet no drops reported"; }
interrupt "$pid" "$T/four.log" || { cat "$T/four.log" >&2; fail "run 4 failed"; }
pid=
link_drops=$(summary_get "$T/four.log.json" links "src.output -> out.input" drops)
((link_drops == 0)) || fail "the link dropped $link_drops packets while the capture's reader stalled"
src=$(summary_get "$T/four.log.json" apps src counters in_packets)
got=$(summary_get "$T/four.log.json" apps out counters out_packets)
((src == got)) || fail "the sink got $got of $src packets"
pool_back "$T/four.log"
ok "slow reader: the engine forwarded all $src packets, the capture dropped $dropped copies"

# --- 5. bad input
conf3 1000 >"$T/five.yaml"
start_engine "$T/five.yaml" "$T/five.log" 2
bad() {   # bad STATUS MESSAGE ARGS...
  local want=$1 msg=$2; shift 2
  expect_exit "$want" "$T/bad" capture "$@"
  expect_in "$T/bad" "$msg"
}
P=(--prefix "$PREFIX")
bad 2 "capture: no app 'nope' in the running configuration (point 'nope.output')" "${P[@]}" nope.output -w "$T/x"
bad 2 "capture: app 'src' has no link on port 'input'" "${P[@]}" src.input -w "$T/x"
bad 2 "capture: no link 'src.output -> nope.input' in the running configuration" "${P[@]}" "src.output -> nope.input" -w "$T/x"
bad 2 "capture: 'srcoutput' is not a capture point" "${P[@]}" srcoutput -w "$T/x"
bad 2 "which an earlier point of this capture names too" "${P[@]}" src.output out.input -w "$T/x"
bad 2 "sluice: capture: filter 'udp port': " "${P[@]}" src.output -f 'udp port' -w "$T/x"
bad 2 "no output given (-w FILE, or -w - for stdout)" "${P[@]}" src.output
bad 2 "no capture POINT given" "${P[@]}" -w "$T/x"
bad 2 "sluice: capture: -c needs a packet count from 1, got '0'" "${P[@]}" src.output -c 0 -w "$T/x"
bad 2 "sluice: capture: -a needs duration:SECONDS (a whole number from 1), got '5'" "${P[@]}" src.output -a 5 -w "$T/x"
bad 2 "sluice: capture: -s needs a snap length from 0 to 65535 bytes (0: 65535), got '70000'" "${P[@]}" src.output -s 70000 -w "$T/x"
bad 2 "unknown option '-x'" "${P[@]}" src.output -x -w "$T/x"
bad 2 "-w needs a value" "${P[@]}" src.output -w
bad 1 "no engine is running with file prefix 'nope$PREFIX'" --prefix "nope$PREFIX" src.output -w "$T/x"
bad 1 "cannot create '$T/no/such/dir': " "${P[@]}" src.output -c 1 -w "$T/no/such/dir"
[[ -e $T/x ]] && fail "a refused capture created its output file"
bad 2 "sluice: capture: -c needs a packet count from 1, got '1x'" "${P[@]}" src.output -c 1x -w "$T/x"
# Requests the CLI never sends, straight to the control socket.
python3 - "/var/run/dpdk/$PREFIX/sluice_control" <<'PY' || fail "the capture verb's answers to bad requests"
import json, socket, sys
def ask(data):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(30)
    s.connect(sys.argv[1])
    s.send(data)
    r = s.recv(65536)
    s.close()
    return json.loads(r)
for data, want in ((b'{"verb": "capture"}', '"points" must be a non-empty list of capture points'),
                   (b'{"verb": "capture", "points": []}', '"points" must be a non-empty list'),
                   (b'{"verb": "capture", "points": [3]}', '"points" must be a list of strings'),
                   (b'{"verb": "capture", "points": ["src.output"], "filter": 1}', '"filter" must be a string'),
                   (b'{"verb": "capture", "points": ["src.output"], "snaplen": 0}', '"snaplen" must be an integer from 1 to 65535'),
                   (b'{"verb": "capture", "points": ["src.output"], "count": -1}', '"count" must be an integer from 0'),
                   (b'{"verb": "capture", "points": ["src.output"], "filter": "udp port"}', "filter 'udp port': ")):
    r = ask(data)
    assert r["ok"] is False and r["status"] == 2 and want in r["error"], (data, r)
PY
capture_bg "$T/c5.log" src.output -w "$T/held.pcapng"
bad 1 "capture: link 'src.output -> out.input' (point 'out.input') is being captured already" "${P[@]}" out.input -w "$T/x"
kill -INT "$cap_pid"
wait_capture "$T/c5.log"
expect_exit 0 "$T/again" capture "${P[@]}" out.input -c 1 -w "$T/again.pcapng"
interrupt "$pid" "$T/five.log" || { cat "$T/five.log" >&2; fail "run 5 failed"; }
pid=
pool_back "$T/five.log"
ok "bad input: every refusal names what is wrong, with exit 2 or 1; a point is free again after its capture"
