#!/usr/bin/env bash
# vhost-user against a real peer.  Sluice is the vhost-user backend (net_vhost,
# server socket); dpdk-testpmd is the frontend (net_virtio_user), driven
# command by command through a fifo.  Two variants:
#
#   echo:    testpmd sends bursts (start tx_first) and counts what comes back;
#            Sluice swaps the MACs and returns every packet on the same port.
#   rx-only: testpmd sends, Sluice writes what it receives to a pcap file and
#            sends nothing back.
#
#   stop under load: testpmd bounces packets back (io mode) and Sluice is
#            stopped with SIGINT while they circulate, the peer connected.
#   bridge:  two vhost-user ports as the members of a bridge, testpmd's two
#            virtio-user ports forwarding in mac mode (docs/bridge.md).
#
# Every check is on counts: testpmd's TX-packets/bytes = Sluice's in_packets/
# bytes on the vhost port, Sluice's out_packets/bytes = testpmd's RX-packets/
# bytes, no drops anywhere, every mbuf back in Sluice's pool, and Sluice stops
# on SIGINT with exit status 0.  Nothing depends on speed: the virtio rings
# (1024 slots) hold a whole round, and every wait is for a count, with a
# generous deadline.
#
# Both processes run on 2 MB hugepages, as a deployment would (-m 256 each,
# --in-memory so that nothing is left in hugetlbfs).  Needs root: the test
# reserves the pages that are missing and mounts hugetlbfs if no 2 MB mount
# exists, and undoes both on exit; where that is impossible it is skipped.
# serial: hugepages shared with dpdk-testpmd (huge_reserve); runs alone
. "$(dirname "$0")/lib.sh"

testpmd_need

MEM_MB=256          # -m for each process
NEED_PAGES=288      # 2 x 256 MB of 2 MB pages, plus a margin
SESSIONS=2          # echo variant: testpmd sessions against one Sluice run
ROUNDS=2            # echo variant: rounds of start tx_first / stop per session
BURSTS=16           # bursts of 32 packets per round: 512, half a ring
BURST=32
RX_SIZE=300         # rx-only variant: frame size sent by testpmd

# Every wait polls at most five times a second: Sluice and testpmd busy-poll
# the CPUs the test shares with them.
WAIT_EVENT_POLL=0.2
SLUICE_PID=""
L=$T/sluice.log

cleanup() {
  local rc=$?
  testpmd_cleanup "$rc" "$SLUICE_PID" "$L" "$T/testpmd.log"
  return $rc
}
trap cleanup EXIT
trap '' PIPE     # a write to a dead testpmd must fail, not kill the test

huge_reserve "$NEED_PAGES"

# Sluice's worker on the last CPU we may use; testpmd's two lcores (its
# command line and its forwarding core) share the first one, where Sluice's
# control thread mostly sleeps.
read -r -a CPUS < <(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))')
CPU_TP=${CPUS[0]}
CPU_SL=${CPUS[${#CPUS[@]}-1]}

SOCK=$T/vhost.sock
SL_EAL="[-m, \"$MEM_MB\", --in-memory, --huge-dir, \"$HUGE_DIR\", --no-pci,
         --file-prefix, ${PREFIX}vh, --log-level, \"lib.eal:warning\"]"

# ---------------------------------------------------------------- helpers
# start_sluice CONFIG: run Sluice in the background (until SIGINT), wait for
# its vhost-user socket.  Until stop_sluice, every wait for testpmd also
# fails as soon as Sluice ends.
# Pages a process that ended a moment ago held may come back after its
# exit is reported; each start waits until its own are free.
pages_free() { (($(awk '/^HugePages_Free:/{print $2}' /proc/meminfo) >= MEM_MB / 2)); }
start_sluice() {
  rm -f "$SOCK" "$L.json"
  wait_event "$((MEM_MB / 2)) free hugepages for Sluice" "" "" pages_free
  "$SLUICE" run "$1" --summary-json "$L.json" >"$L" 2>&1 &
  SLUICE_PID=$!
  TP_WATCH=$SLUICE_PID TP_WATCH_LOG=$L
  wait_event "vhost-user socket $SOCK" "$SLUICE_PID" "$L" test -S "$SOCK"
}

# stop_sluice: SIGINT, then its exit status must be 0.
stop_sluice() {
  local rc
  signal_run INT "$SLUICE_PID" "$L"
  rc=$?
  SLUICE_PID="" TP_WATCH="" TP_WATCH_LOG=""
  [[ $rc -eq 0 ]] || fail "sluice exited $rc after SIGINT, expected 0"
  expect_in "$L" "SIGINT received, stopping"
  pool_back "$L"
}

# start_testpmd [TESTPMD-APP-ARGS...]: the virtio-user frontend (lib.sh
# testpmd_start), its output in testpmd.log.
start_testpmd() {
  wait_event "$((MEM_MB / 2)) free hugepages for testpmd" "" "" pages_free
  testpmd_start "$T/testpmd.log" --lcores "0@$CPU_TP,1@$CPU_TP" --no-pci \
    --in-memory --single-file-segments --huge-dir "$HUGE_DIR" -m "$MEM_MB" \
    --file-prefix "${PREFIX}tp" --log-level "lib.eal:warning" \
    --vdev "net_virtio_user0,path=$SOCK,queues=1,queue_size=1024" \
    -- --total-num-mbufs=4096 --rxd=1024 --txd=1024 --burst=$BURST \
    --forward-mode=rxonly "$@"
}

# more_in FILE TEXT N: FILE holds TEXT (fixed string) on more than N lines.
more_in() { (($(grep -cF -- "$2" "$1") > $3)); }

# tp_stop: 'stop'; adds this run's forward TX-dropped to FWD_DROPPED and its
# TX-total to FWD_TOTAL.
FWD_DROPPED=0 FWD_TOTAL=0
tp_stop() {
  testpmd_stop
  FWD_DROPPED=$((FWD_DROPPED + TP_FWD_DROPPED))
  FWD_TOTAL=$((FWD_TOTAL + TP_FWD_TOTAL))
}

rx_at_least() { testpmd_port_stats 0; ((TP_RX >= $1)); }
tx_at_least() { testpmd_port_stats 0; ((TP_TX >= $1)); }

# eq WHAT A B: fail unless A equals B.
eq() { [[ $2 == "$3" ]] || fail "$1: $2, expected $3"; }

# ================================================================ echo
cat >"$T/echo.yaml" <<YAML
dpdk: { args: $SL_EAL }
pool: { mbufs: 8191 }
workers: { main: { core: $CPU_SL } }
apps:
  vh:   { type: port, device: "net_vhost0,iface=$SOCK,queues=1,client=0" }
  swap: { type: l2fwd, mode: swap }
links:
  - vh.output -> swap.input
  - swap.output -> vh.input
YAML
expect_exit 0 "$T/check.log" check "$T/echo.yaml"
expect_exit 0 "$T/check.log" check "$SRC/docs/examples/vhost-echo.yaml"
ok "docs/examples/vhost-echo.yaml passes 'sluice check'"

# Two testpmd sessions, one after the other, against one Sluice run: the
# second connects to the socket the first left (a peer restart).
start_sluice "$T/echo.yaml"
per_round=$((BURSTS * BURST))
sent=$((ROUNDS * per_round))
tp_tx=0 tp_txb=0 tp_rx=0 tp_rxb=0
for ((s = 1; s <= SESSIONS; s++)); do
  FWD_DROPPED=0 FWD_TOTAL=0
  start_testpmd
  testpmd_wait "the vhost device ready in Sluice (session $s)" \
    more_in "$L" 'virtio is now ready for processing' $((s - 1))
  testpmd_cmd "set verbose 1"          # dump every received packet's addresses
  for ((r = 1; r <= ROUNDS; r++)); do
    testpmd_cmd "start tx_first $BURSTS"
    testpmd_wait "$((r * per_round)) packets back at testpmd" rx_at_least $((r * per_round))
    tp_stop
  done
  testpmd_port_stats 0
  eq "session $s: testpmd forward TX-total" "$FWD_TOTAL" "$sent"
  eq "session $s: testpmd forward TX-dropped" "$FWD_DROPPED" 0
  eq "session $s: testpmd TX-packets" "$TP_TX" "$sent"
  eq "session $s: testpmd TX-errors" "$TP_ERR" 0
  eq "session $s: testpmd RX-packets" "$TP_RX" "$sent"
  eq "session $s: testpmd RX-missed" "$TP_MISSED" 0

  # Every packet came back with its addresses swapped: txonly sends from the
  # port's MAC to the peer address 02:00:00:00:00:00.  (Counted as matches,
  # not lines: a dump may share a line with the prompt.)
  mac=$(sed -nE 's/^Port 0: ([0-9A-F:]{17})$/\1/p' "$T/testpmd.log" | head -n 1)
  [[ -n $mac ]] || fail "no MAC address for testpmd's port 0"
  dumped=$(grep -oE 'src=[0-9A-F:]{17} - dst=[0-9A-F:]{17} - ' "$T/testpmd.log" | wc -l)
  swapped=$(grep -oE "src=02:00:00:00:00:00 - dst=$mac - " "$T/testpmd.log" | wc -l)
  eq "session $s: packets dumped by testpmd" "$dumped" "$sent"
  eq "session $s: packets with swapped addresses" "$swapped" "$sent"

  tp_tx=$((tp_tx + TP_TX)) tp_txb=$((tp_txb + TP_TXB))
  tp_rx=$((tp_rx + TP_RX)) tp_rxb=$((tp_rxb + TP_RXB))
  testpmd_quit
  testpmd_wait "the vhost peer to close in Sluice (session $s)" \
    more_in "$L" 'vhost peer closed' $((s - 1))
  ok "echo session $s: testpmd sent $TP_TX packets and got all $TP_RX back, MACs swapped"
done
stop_sluice
total=$((SESSIONS * sent))
eq "sluice vh in_packets (= testpmd TX-packets)" "$(app_counter "$L" vh in_packets)" "$tp_tx"
eq "sluice vh in_bytes (= testpmd TX-bytes)" "$(app_counter "$L" vh in_bytes)" "$tp_txb"
eq "sluice vh out_packets (= testpmd RX-packets)" "$(app_counter "$L" vh out_packets)" "$tp_rx"
eq "sluice vh out_bytes (= testpmd RX-bytes)" "$(app_counter "$L" vh out_bytes)" "$tp_rxb"
eq "sluice vh in_packets" "$(app_counter "$L" vh in_packets)" "$total"
eq "sluice vh drops" "$(app_counter "$L" vh drops)" 0
eq "link vh.output -> swap.input" "$(link_counter "$L" "vh.output -> swap.input" packets)" "$total"
eq "link swap.output -> vh.input" "$(link_counter "$L" "swap.output -> vh.input" packets)" "$total"
eq "link drops" "$(link_counter "$L" "swap.output -> vh.input" drops)" 0
ok "echo: $SESSIONS testpmd sessions sent $tp_tx packets ($tp_txb bytes); Sluice received $tp_tx and returned $tp_rx ($tp_rxb bytes), no drops"

# ================================================================ rx-only
cat >"$T/rx.yaml" <<YAML
dpdk: { args: $SL_EAL }
pool: { mbufs: 8191 }
workers: { main: { core: $CPU_SL } }
apps:
  vh:  { type: port, device: "net_vhost0,iface=$SOCK,queues=1,client=0" }
  cap: { type: port, device: "net_pcap0,tx_pcap=$T/cap.pcap" }
links:
  - vh.output -> cap.input
YAML
FWD_DROPPED=0 FWD_TOTAL=0
start_sluice "$T/rx.yaml"
start_testpmd "--txpkts=$RX_SIZE"
testpmd_wait "the vhost device ready in Sluice" grep -q 'virtio is now ready for processing' "$L"
testpmd_cmd "start tx_first $BURSTS"
testpmd_wait "$per_round packets sent by testpmd" tx_at_least "$per_round"
# A pcap file of N frames of RX_SIZE bytes: a 24-byte header, then per frame a
# 16-byte record header and the frame.
cap_size=$((24 + per_round * (16 + RX_SIZE)))
captured() { [[ -f $T/cap.pcap ]] && (($(stat -c %s "$T/cap.pcap") >= cap_size)); }
testpmd_wait "$per_round packets in Sluice's capture" captured
tp_stop
testpmd_port_stats 0
eq "testpmd forward TX-total" "$FWD_TOTAL" "$per_round"
eq "testpmd forward TX-dropped" "$FWD_DROPPED" 0
eq "testpmd TX-packets" "$TP_TX" "$per_round"
eq "testpmd TX-bytes" "$TP_TXB" "$((per_round * RX_SIZE))"
eq "testpmd RX-packets (Sluice sends nothing back)" "$TP_RX" 0
testpmd_quit
stop_sluice
eq "sluice vh in_packets (= testpmd TX-packets)" "$(app_counter "$L" vh in_packets)" "$TP_TX"
eq "sluice vh in_bytes (= testpmd TX-bytes)" "$(app_counter "$L" vh in_bytes)" "$TP_TXB"
eq "sluice vh out_packets" "$(app_counter "$L" vh out_packets)" 0
eq "sluice cap out_packets" "$(app_counter "$L" cap out_packets)" "$TP_TX"
eq "sluice drops" "$(( $(app_counter "$L" vh drops) + $(app_counter "$L" cap drops) ))" 0
eq "packets in the capture" "$($PCAPTOOL count "$T/cap.pcap")" "$TP_TX"
eq "bytes in the capture" "$($PCAPTOOL bytes "$T/cap.pcap")" "$TP_TXB"
ok "rx-only: testpmd sent $TP_TX frames of $RX_SIZE bytes, Sluice captured all $TP_TX, no drops"

# ================================================================ stop under load
# testpmd in io mode bounces back what Sluice returns, so the 8 bursts of
# tx_first circulate until Sluice is stopped with SIGINT while they do.  The
# engine must stop cleanly with the peer still connected, return every packet
# it took in, and leave exactly the circulating packets (in testpmd's tx ring,
# never taken by Sluice) unaccounted on its side.
LOAD_BURSTS=8
circulating=$((LOAD_BURSTS * BURST))
FWD_DROPPED=0 FWD_TOTAL=0
start_sluice "$T/echo.yaml"
start_testpmd --forward-mode=io
testpmd_wait "the vhost device ready in Sluice" grep -q 'virtio is now ready for processing' "$L"
testpmd_cmd "start tx_first $LOAD_BURSTS"
testpmd_wait "20000 packets back at testpmd" rx_at_least 20000
stop_sluice
out=$(app_counter "$L" vh out_packets)
in=$(app_counter "$L" vh in_packets)
eq "sluice vh out_packets (echo of in_packets)" "$out" "$in"
eq "sluice vh drops" "$(app_counter "$L" vh drops)" 0
# testpmd goes on receiving what Sluice returned before it stopped.
testpmd_wait "testpmd to receive all $out packets Sluice returned" rx_at_least "$out"
tp_stop
testpmd_port_stats 0
eq "testpmd RX-packets (= Sluice out_packets)" "$TP_RX" "$out"
eq "testpmd forward TX-dropped" "$FWD_DROPPED" 0
eq "testpmd TX-packets - Sluice in_packets" "$((TP_TX - in))" "$circulating"
testpmd_quit
ok "stop under load: Sluice took $in packets and returned all $out; testpmd sent $TP_TX, the $circulating circulating ones left in its tx ring"

# ================================================================ bridge
# Two vhost-user ports as the members of a bridge (docs/bridge.md);
# testpmd's two virtio-user ports (MACs ...:a0 and ...:a1, each the
# other's peer) forward in mac mode, so that the frames of tx_first go
# round: testpmd port 0 -> bridge member 0 -> member 1 -> testpmd port 1 ->
# (mac: the source and destination rewritten) -> member 1 -> member 0 ...
# Then testpmd stops forwarding and, in rxonly, takes what is still on its
# way; every count is then exact on both sides.
BR_BURSTS=4
cat >"$T/bridge.yaml" <<YAML
dpdk: { args: $SL_EAL }
pool: { mbufs: 8191 }
workers: { main: { core: $CPU_SL } }
apps:
  vh0: { type: port, device: "net_vhost0,iface=$T/vh0.sock,queues=1,client=0" }
  vh1: { type: port, device: "net_vhost1,iface=$T/vh1.sock,queues=1,client=0" }
  br:
    type: bridge
    members: [ { port: 0 }, { port: 1 } ]
links:
  - vh0.output -> br.input0
  - br.output0 -> vh0.input
  - vh1.output -> br.input1
  - br.output1 -> vh1.input
YAML
SOCK=$T/vh0.sock
start_sluice "$T/bridge.yaml"
wait_event "vhost-user socket $T/vh1.sock" "$SLUICE_PID" "$L" test -S "$T/vh1.sock"
wait_event "$((MEM_MB / 2)) free hugepages for testpmd" "" "" pages_free
testpmd_start "$T/testpmd.log" --lcores "0@$CPU_TP,1@$CPU_TP" --no-pci \
  --in-memory --single-file-segments --huge-dir "$HUGE_DIR" -m "$MEM_MB" \
  --file-prefix "${PREFIX}tp" --log-level "lib.eal:warning" \
  --vdev "net_virtio_user0,path=$T/vh0.sock,queues=1,queue_size=1024,mac=02:00:00:00:00:a0" \
  --vdev "net_virtio_user1,path=$T/vh1.sock,queues=1,queue_size=1024,mac=02:00:00:00:00:a1" \
  -- --total-num-mbufs=8192 --rxd=1024 --txd=1024 --burst=$BURST --forward-mode=mac \
  --eth-peer=0,02:00:00:00:00:a1 --eth-peer=1,02:00:00:00:00:a0
testpmd_wait "both vhost devices ready in Sluice" more_in "$L" 'virtio is now ready for processing' 1
FWD_DROPPED=0 FWD_TOTAL=0
testpmd_cmd "start tx_first $BR_BURSTS"
testpmd_wait "10000 frames round the bridge" rx_at_least 10000
tp_stop
eq "testpmd forward TX-dropped (mac mode)" "$FWD_DROPPED" 0
# what Sluice has sent to testpmd, from a snapshot
sl_out() {
  "$SLUICE" stats --prefix "${PREFIX}vh" --json >"$T/s.json" 2>/dev/null &&
    echo $(( $(summary_get "$T/s.json" apps vh0 counters out_packets) +
             $(summary_get "$T/s.json" apps vh1 counters out_packets) ))
}
tp_rx_both() {
  testpmd_port_stats 0; local r0=$TP_RX
  testpmd_port_stats 1
  echo $((r0 + TP_RX))
}
drained() { local o; o=$(sl_out) && [[ $(tp_rx_both) == "$o" ]]; }
testpmd_cmd "set fwd rxonly"
testpmd_cmd "start"
testpmd_wait "testpmd to take every frame the bridge sent" drained
tp_stop
testpmd_port_stats 0; tx0=$TP_TX rx0=$TP_RX err0=$TP_ERR miss0=$TP_MISSED
testpmd_port_stats 1; tx1=$TP_TX rx1=$TP_RX err1=$TP_ERR miss1=$TP_MISSED
testpmd_quit
stop_sluice
eq "testpmd TX-errors" "$((err0 + err1))" 0
eq "testpmd RX-missed" "$((miss0 + miss1))" 0
eq "sluice vh0 in_packets (= testpmd port 0 TX)" "$(app_counter "$L" vh0 in_packets)" "$tx0"
eq "sluice vh1 in_packets (= testpmd port 1 TX)" "$(app_counter "$L" vh1 in_packets)" "$tx1"
eq "sluice vh0 out_packets (= testpmd port 0 RX)" "$(app_counter "$L" vh0 out_packets)" "$rx0"
eq "sluice vh1 out_packets (= testpmd port 1 RX)" "$(app_counter "$L" vh1 out_packets)" "$rx1"
eq "frames both ways" "$((rx0 + rx1))" "$((tx0 + tx1))"
python3 - "$L.json" "$((tx0 + tx1))" <<'PY' || fail "the bridge's counters and table"
import json, sys
s = json.load(open(sys.argv[1]))
br = s["apps"]["br"]
c, total = br["counters"], int(sys.argv[2])
assert c["forwarded"] + c["flooded"] == total and c["flood_copies"] == c["flooded"], (c, total)
assert c["learned"] == 2 and c["drops"] == 0 and c["moved"] == 0, c
assert c["flooded"] <= 2 * 4 * 32, c   # at most the tx_first frames, before both were learned
rows = sorted((r["mac"], r["port"]) for r in br["macs"])
assert rows == [("02:00:00:00:00:a0", 0), ("02:00:00:00:00:a1", 1)], rows
print("forwarded %d, flooded %d" % (c["forwarded"], c["flooded"]))
PY
ok "bridge: testpmd's two ports in mac mode sent $((tx0 + tx1)) frames through the bridge and received all $((rx0 + rx1)); both MACs learned on their members"
