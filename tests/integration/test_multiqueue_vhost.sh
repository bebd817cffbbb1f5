#!/usr/bin/env bash
# A vhost-user port with two queue pairs served by a worker group of two:
# docs/examples/vhost-multiqueue.yaml (its socket and file prefix made this
# test's own), against dpdk-testpmd as the virtio-user peer with two queue
# pairs (--txq=2 --rxq=2), driven command by command through a fifo.
#
# testpmd runs the txonly engine with --txonly-multi-flow (UDP source ports
# vary) for exactly BURSTS bursts of BURST packets on each of its two queues
# per round (`start tx_first BURSTS` in rxonly mode), then counts what comes
# back.  A vhost-user device has no RSS: testpmd's tx queue k is Sluice's rx
# queue k, which replica vh@k polls; vh@k returns what it got, its MACs
# swapped by swap@k, on its own tx queue k, which is testpmd's rx queue k.
# So the counts are exact on both sides and per queue:
#   testpmd sent N per queue (2N in all) = vh@k in_packets = vh@k out_packets
#   = testpmd's rx_qk_good_packets; vh@k's q_ipackets/q_opackets (the
#   device's per-queue statistics) agree; the JSON `replicated` totals are 2N;
#   no drops; every packet back with its addresses swapped; every mbuf back.
# Nothing depends on speed: the virtio rings (1024 slots) hold a whole round,
# and every wait is for a count, with a generous deadline.
#
# Both processes run on 2 MB hugepages (-m 256 each, --in-memory).  Needs
# root and dpdk-testpmd; the test reserves the pages that are missing and
# mounts hugetlbfs if needed, and undoes both on exit (lib.sh huge_reserve).
# serial: hugepages shared with dpdk-testpmd (huge_reserve); runs alone
. "$(dirname "$0")/lib.sh"

testpmd_need

EXAMPLE=$SRC/docs/examples/vhost-multiqueue.yaml
MEM_MB=256          # -m for each process
NEED_PAGES=288      # 2 x 256 MB of 2 MB pages, plus a margin
ROUNDS=2            # rounds of start tx_first / stop
BURSTS=16           # bursts per queue per round: 16 x 32 = 512, half a ring
BURST=32
QUEUES=2

SL_PID=""
L=$T/sluice.log
cleanup() {
  local rc=$?
  testpmd_cleanup "$rc" "$SL_PID" "$L" "$T/testpmd.log"
  return $rc
}
trap cleanup EXIT
trap '' PIPE     # a write to a dead testpmd must fail, not kill the test

# eq WHAT A B: fail unless A equals B.
eq() { [[ $2 == "$3" ]] || fail "$1: $2, expected $3"; }

# ---------------------------------------------------------------- the example
expect_exit 0 "$T/check.log" check "$EXAMPLE"
ok "docs/examples/vhost-multiqueue.yaml passes 'sluice check'"
expect_exit 0 "$T/plan.log" plan "$EXAMPLE"
for k in 0 1; do
  grep -qE "^fwd@$k +.* vh@$k, swap@$k$" "$T/plan.log" ||
    { cat "$T/plan.log" >&2; fail "the plan shows no member fwd@$k running vh@$k and swap@$k"; }
  grep -qE "^ +vh@$k +port +fwd@$k +rx queue $k, tx queue $k of 2 pairs(;|$)" "$T/plan.log" ||
    { cat "$T/plan.log" >&2; fail "the plan shows no replica vh@$k on fwd@$k with queue pair $k"; }
  grep -qE "^ +vh@$k\.output -> swap@$k\.input +local \(same worker\)$" "$T/plan.log" ||
    { cat "$T/plan.log" >&2; fail "the plan shows no local link vh@$k.output -> swap@$k.input"; }
  grep -qE "^ +swap@$k\.output -> vh@$k\.input +direct \(same worker\)$" "$T/plan.log" ||
    { cat "$T/plan.log" >&2; fail "the plan shows no direct link swap@$k.output -> vh@$k.input"; }
done
ok "'sluice plan' of the example shows both members, every replica with its queue pair, links on one worker (direct into the port)"

huge_reserve "$NEED_PAGES"

# testpmd's two lcores (its command line and its forwarding core) on the first
# CPU we may use; Sluice's members are placed by the engine.
read -r -a CPUS < <(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))')
CPU_TP=${CPUS[0]}

# The example with this test's socket, file prefix and hugetlbfs mount.
SOCK=$T/vhost.sock
python3 - "$EXAMPLE" "$SOCK" "${PREFIX}vh" "$HUGE_DIR" >"$T/mq.yaml" <<'PY' || fail "cannot adapt the example"
import sys
lines = open(sys.argv[1]).read().split("\n")
# Only the configuration is rewritten, not the comments; each once.
for old, new in (("/tmp/sluice-vhost-mq.sock", sys.argv[2]),
                 ("--file-prefix, sluice-vhost-mq,", "--file-prefix, %s," % sys.argv[3]),
                 ("--in-memory,", '--in-memory, --huge-dir, "%s",' % sys.argv[4])):
    at = [i for i, l in enumerate(lines) if old in l and not l.lstrip().startswith("#")]
    if len(at) != 1:
        sys.exit("the example has %d configuration lines with %r, expected 1" % (len(at), old))
    lines[at[0]] = lines[at[0]].replace(old, new)
print("\n".join(lines))
PY
grep -qF "iface=$SOCK,queues=2" "$T/mq.yaml" || fail "the example's device was not adapted: $(grep device: "$T/mq.yaml")"
grep -qF -- "--file-prefix, ${PREFIX}vh," "$T/mq.yaml" || fail "the example's file prefix was not adapted"
expect_exit 0 "$T/check2.log" check "$T/mq.yaml"

# ---------------------------------------------------------------- the run
rm -f "$SOCK" "$L.json"
"$SLUICE" run "$T/mq.yaml" --summary-json "$L.json" >"$L" 2>&1 &
SL_PID=$!
TP_WATCH=$SL_PID TP_WATCH_LOG=$L
wait_event "the vhost-user socket $SOCK" "$SL_PID" "$L" test -S "$SOCK"

testpmd_start "$T/testpmd.log" --lcores "0@$CPU_TP,1@$CPU_TP" --no-pci \
  --in-memory --single-file-segments --huge-dir "$HUGE_DIR" -m "$MEM_MB" \
  --file-prefix "${PREFIX}tp" --log-level "lib.eal:warning" \
  --vdev "net_virtio_user0,path=$SOCK,queues=$QUEUES,queue_size=1024" \
  -- --txq=$QUEUES --rxq=$QUEUES --total-num-mbufs=8192 --rxd=1024 --txd=1024 \
  --burst=$BURST --forward-mode=rxonly --txonly-multi-flow
testpmd_wait "the vhost device ready in Sluice" grep -q 'virtio is now ready for processing' "$L"
testpmd_cmd "set verbose 1"          # dump every received packet's addresses

per_queue=$((BURSTS * BURST))        # per queue per round
per_round=$((QUEUES * per_queue))
sent=$((ROUNDS * per_round))
fwd_dropped=0 fwd_total=0
rx_at_least() { testpmd_port_stats 0; ((TP_RX >= $1)); }
for ((r = 1; r <= ROUNDS; r++)); do
  testpmd_cmd "start tx_first $BURSTS"
  testpmd_wait "$((r * per_round)) packets back at testpmd (round $r)" rx_at_least $((r * per_round))
  testpmd_stop
  fwd_dropped=$((fwd_dropped + TP_FWD_DROPPED)) fwd_total=$((fwd_total + TP_FWD_TOTAL))
done
testpmd_port_stats 0
eq "testpmd forward TX-total" "$fwd_total" "$sent"
eq "testpmd forward TX-dropped" "$fwd_dropped" 0
eq "testpmd TX-packets" "$TP_TX" "$sent"
eq "testpmd TX-errors" "$TP_ERR" 0
eq "testpmd RX-packets" "$TP_RX" "$sent"
eq "testpmd RX-missed" "$TP_MISSED" 0
tp_txb=$TP_TXB tp_rxb=$TP_RXB
declare -A TP_QTX TP_QRX
for ((q = 0; q < QUEUES; q++)); do
  testpmd_xstat 0 "tx_q${q}_good_packets"; TP_QTX[$q]=$TP_XSTAT
  testpmd_xstat 0 "rx_q${q}_good_packets"; TP_QRX[$q]=$TP_XSTAT
  eq "testpmd tx queue $q packets" "${TP_QTX[$q]}" $((ROUNDS * per_queue))
  eq "testpmd rx queue $q packets (what vh@$q returned)" "${TP_QRX[$q]}" $((ROUNDS * per_queue))
done

# Every packet came back with its addresses swapped: txonly sends from the
# port's MAC to the peer address 02:00:00:00:00:00.  (Counted as matches,
# not lines: a dump may share a line with the prompt.)
mac=$(sed -nE 's/^Port 0: ([0-9A-F:]{17})$/\1/p' "$T/testpmd.log" | head -n 1)
[[ -n $mac ]] || fail "no MAC address for testpmd's port 0"
dumped=$(grep -oE 'src=[0-9A-F:]{17} - dst=[0-9A-F:]{17} - ' "$T/testpmd.log" | wc -l)
swapped=$(grep -oE "src=02:00:00:00:00:00 - dst=$mac - " "$T/testpmd.log" | wc -l)
eq "packets dumped by testpmd" "$dumped" "$sent"
eq "packets with swapped addresses" "$swapped" "$sent"
for ((q = 0; q < QUEUES; q++)); do
  eq "packets dumped as received on testpmd's queue $q" \
    "$(grep -oE "Receive queue=0x$q\b" "$T/testpmd.log" | wc -l)" $((ROUNDS * per_queue))
done
ok "testpmd sent $sent packets ($((ROUNDS * per_queue)) per queue) and got all back, on the queue each left from, MACs swapped"

testpmd_quit
TP_WATCH=""
wait_event "the vhost peer to close in Sluice" "$SL_PID" "$L" grep -q 'vhost peer closed' "$L"
signal_run INT "$SL_PID" "$L"
rc=$?
SL_PID=""
[[ $rc -eq 0 ]] || fail "sluice exited $rc after SIGINT, expected 0"
expect_in "$L" "SIGINT received, stopping"
pool_back "$L"

# ---------------------------------------------------------------- Sluice's counts
f=$(summary_of "$L")
for ((k = 0; k < QUEUES; k++)); do
  want=$((ROUNDS * per_queue))
  eq "vh@$k in_packets (testpmd's tx queue $k)" "$(app_counter "$L" "vh@$k" in_packets)" "$want"
  eq "vh@$k out_packets (testpmd's rx queue $k)" "$(app_counter "$L" "vh@$k" out_packets)" "$want"
  eq "vh@$k drops" "$(app_counter "$L" "vh@$k" drops)" 0
  eq "vh@$k rx_queue" "$(app_counter "$L" "vh@$k" rx_queue)" "$k"
  eq "vh@$k tx_queue" "$(app_counter "$L" "vh@$k" tx_queue)" "$k"
  eq "vh@$k q_ipackets (the device's count for rx queue $k)" "$(app_counter "$L" "vh@$k" q_ipackets)" "$want"
  eq "vh@$k q_opackets (the device's count for tx queue $k)" "$(app_counter "$L" "vh@$k" q_opackets)" "$want"
  eq "swap@$k drops" "$(app_counter "$L" "swap@$k" drops)" 0
  for link in "vh@$k.output -> swap@$k.input" "swap@$k.output -> vh@$k.input"; do
    kind=local
    [[ $link == swap* ]] && kind=direct
    eq "link $link kind" "$(link_kind "$L" "$link")" $kind
    eq "link $link packets" "$(link_counter "$L" "$link" packets)" "$want"
    eq "link $link drops" "$(link_counter "$L" "$link" drops)" 0
  done
  [[ $(summary_get "$f" workers "fwd@$k" cpu) =~ ^[0-9]+$ ]] || fail "no worker fwd@$k in the summary"
done
eq "replicated vh group" "$(summary_get "$f" replicated vh group)" fwd
eq "replicated vh replicas" "$(summary_get "$f" replicated vh replicas)" '["vh@0", "vh@1"]'
eq "replicated vh in_packets (= testpmd TX-packets)" "$(summary_get "$f" replicated vh counters in_packets)" "$TP_TX"
eq "replicated vh in_bytes (= testpmd TX-bytes)" "$(summary_get "$f" replicated vh counters in_bytes)" "$tp_txb"
eq "replicated vh out_packets (= testpmd RX-packets)" "$(summary_get "$f" replicated vh counters out_packets)" "$TP_RX"
eq "replicated vh out_bytes (= testpmd RX-bytes)" "$(summary_get "$f" replicated vh counters out_bytes)" "$tp_rxb"
eq "replicated vh drops" "$(summary_get "$f" replicated vh counters drops)" 0
eq "drained_at_stop freed" "$(summary_get "$f" drained_at_stop freed)" 0
ok "vh@0 and vh@1 each received and returned $((ROUNDS * per_queue)) packets on their own queue pair; $sent in all, no drops"
exit 0
