#!/usr/bin/env bash
# Output that does not arrive is not reported as delivered.
#  1. A tx_pcap file that cannot take data fails the run at start, naming the
#     app and the file: /dev/full, a missing directory, a directory, a file in
#     a read-only directory (a read-only tmpfs in a mount namespace of its own
#     when running as root, whom directory permissions do not stop).
#  2. A tx_pcap file system that fills up during the run: a warning names the
#     app, the device and the file, and the frames missing from the file count
#     as drops, not as out_packets.
#  3. An af_packet port whose interface is deleted during the run: the frames
#     the device took but could not send (what it took less its opackets)
#     count as drops, with a warning.
# Runs that must stop are ended by SIGINT once the event they wait for has
# happened (a file system full, a drop counted); --duration is a backstop.
. "$(dirname "$0")/lib.sh"

SL_PID=
NS=
cleanup() {
  local rc=$?
  if [[ -n $SL_PID ]] && kill -0 "$SL_PID" 2>/dev/null; then
    kill -KILL "$SL_PID" 2>/dev/null
    wait "$SL_PID" 2>/dev/null
  fi
  [[ -n $NS ]] && { ip -n "$NS" link del ethA 2>/dev/null; ip netns del "$NS" 2>/dev/null; }
  rm -rf "$T" "/var/run/dpdk/$PREFIX"
  return $rc
}
trap cleanup EXIT

$PCAPTOOL gen "$T/in.pcap" 200 3

# pcap_out NAME TX_PATH: a config reading in.pcap and writing TX_PATH.
pcap_out() {
  cat >"$T/$1.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  rx: { type: port, device: "net_pcap0,rx_pcap=$T/in.pcap" }
  o:  { type: port, device: "net_pcap1,tx_pcap=$2" }
links:
  - rx.output -> o.input
YAML
}

# --- 1. files that cannot take data: an error at start, exit 1.
unwritable() {   # unwritable NAME TX_PATH REASON
  pcap_out "$1" "$2"
  expect_exit 1 "$T/$1.log" run "$T/$1.yaml" --duration 60
  expect_in "$T/$1.log" "sluice: error: app 'o': cannot write the tx_pcap file '$2': $3"
  ok "$1: app 'o': cannot write the tx_pcap file '$2': $3"
}
unwritable full /dev/full "No space left on device"
# The same device made by the EAL (--vdev after --): its devargs are checked.
pcap_out vdev-full /dev/full
sed -i 's|device: "net_pcap1,tx_pcap=/dev/full"|device: net_pcap1|' "$T/vdev-full.yaml"
expect_exit 1 "$T/vdev-full.log" run "$T/vdev-full.yaml" --duration 60 -- --vdev net_pcap1,tx_pcap=/dev/full
expect_in "$T/vdev-full.log" "sluice: error: app 'o': cannot write the tx_pcap file '/dev/full': No space left on device"
ok "vdev-full: a --vdev pcap device's tx_pcap is checked too"
unwritable nodir "$T/missing/out.pcap" "No such file or directory"
mkdir "$T/dir"
unwritable dir "$T/dir" "it is a directory"

mkdir "$T/ro"
if [[ $(id -u) -ne 0 ]]; then
  chmod 555 "$T/ro"
  unwritable ro-dir "$T/ro/out.pcap" "Permission denied"
elif unshare -m true 2>/dev/null; then
  pcap_out ro-dir "$T/ro/out.pcap"
  unshare -m bash -c 'mount -t tmpfs -o ro,size=64k sl-ro "$1" && shift && exec "$@"' _ \
    "$T/ro" "$SLUICE" run "$T/ro-dir.yaml" --duration 60 >"$T/ro-dir.log" 2>&1
  rc=$?
  [[ $rc -eq 1 ]] || { cat "$T/ro-dir.log" >&2; fail "ro-dir: exit $rc, expected 1"; }
  expect_in "$T/ro-dir.log" \
    "sluice: error: app 'o': cannot write the tx_pcap file '$T/ro/out.pcap': Read-only file system"
  ok "ro-dir: app 'o': cannot write the tx_pcap file in a read-only directory"
else
  echo "note: no read-only directory case (root, and no mount namespace to make one)"
fi

# --- 2. the file system fills up during the run.
if [[ $(id -u) -eq 0 ]] && unshare -m true 2>/dev/null; then
  mkdir "$T/small"
  cat >"$T/fill.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, size: 200, count: 2000 }
  o:   { type: port, device: "net_pcap1,tx_pcap=$T/small/out.pcap" }
links:
  - src.output -> o.input
YAML
  # In a mount namespace: a 16 KiB tmpfs; sluice runs until the file has
  # filled it, then gets SIGINT.
  cat >"$T/fill.sh" <<'SH'
mount -t tmpfs -o size=16k sl-small "$DIR" || exit 3
"$SLUICE" run "$CFG" --summary-json "$LOG.json" --duration 120 >"$LOG" 2>&1 &
pid=$!
for _ in $(seq 600); do
  kill -0 $pid 2>/dev/null || break
  [[ $(stat -c %s "$DIR/out.pcap" 2>/dev/null || echo 0) -ge 16384 ]] && break
  sleep 0.1
done
kill -INT $pid 2>/dev/null
wait $pid
SH
  DIR=$T/small CFG=$T/fill.yaml LOG=$T/fill.log SLUICE=$SLUICE unshare -m bash "$T/fill.sh"
  rc=$?
  [[ $rc -eq 0 ]] || { cat "$T/fill.log" >&2; fail "fill: exit $rc, expected 0"; }
  pool_back "$T/fill.log"
  expect_in "$T/fill.log" "sluice: warning: app 'o': device 'net_pcap1': the tx_pcap file '$T/small/out.pcap' holds 16384 of the "
  expect_in "$T/fill.log" "frames were lost (lost frames are counted as drops, not as delivered)"
  sent=$(link_counter "$T/fill.log" "src.output -> o.input" packets)
  out=$(app_counter "$T/fill.log" o out_packets)
  drops=$(app_counter "$T/fill.log" o drops)
  # 16384 bytes hold the 24-byte header and 75 whole records of 16 + 200 bytes.
  [[ $out -le 75 && $drops -gt 0 ]] ||
    { cat "$T/fill.log" >&2; fail "fill: out_packets $out, drops $drops: the lost frames are not drops"; }
  freed=$(summary_get "$T/fill.log.json" drained_at_stop freed)
  [[ $((out + drops + freed)) -eq $sent ]] ||
    fail "fill: out_packets $out + drops $drops + freed $freed != $sent frames sent to o"
  ok "fill: $out frames delivered, $drops counted as drops of $sent"
else
  echo "note: no file-system-full case (needs root and a mount namespace)"
fi

# --- 3. an af_packet port whose interface goes away.
afp_case() {
  command -v ip >/dev/null || { echo "note: no af_packet case (no 'ip' command)"; return; }
  [[ $(id -u) -eq 0 ]] || { echo "note: no af_packet case (needs root)"; return; }
  NS=sl-perr-$$
  ip netns add "$NS" 2>/dev/null || { NS=; echo "note: no af_packet case (no netns)"; return; }
  ip -n "$NS" link add ethA type veth peer name ethB 2>/dev/null ||
    { echo "note: no af_packet case (no veth)"; return; }
  ip -n "$NS" link set ethA up && ip -n "$NS" link set ethB up || fail "cannot set the veths up"
  cat >"$T/afp.yaml" <<YAML
dpdk: { args: $EAL_ARGS }
apps:
  src: { type: source, rate: 5000 }
  o:   { type: port, device: "net_af_packet0,iface=ethA,qpairs=1,blocksz=4096,framesz=2048,framecnt=64" }
links:
  - src.output -> o.input
YAML
  ip netns exec "$NS" "$SLUICE" run "$T/afp.yaml" --summary-json "$T/afp.log.json" --duration 120 --stats 0.2 >"$T/afp.log" 2>&1 &
  SL_PID=$!
  for _ in $(seq 600); do
    grep -q '^sluice: running' "$T/afp.log" && break
    kill -0 "$SL_PID" 2>/dev/null || break
    sleep 0.1
  done
  if ! grep -q '^sluice: running' "$T/afp.log"; then
    grep -q 'no bus or driver recognises' "$T/afp.log" &&
      { echo "note: no af_packet case (DPDK has no net_af_packet driver here)"; return; }
    cat "$T/afp.log" >&2
    fail "afp: sluice did not start"
  fi
  ip -n "$NS" link del ethA || fail "cannot delete ethA"
  # Once the interface is gone the frames in the ring cannot be sent and the
  # ring fills: wait for the first stats line with drops after the deletion.
  local mark
  mark=$(wc -l <"$T/afp.log")
  for _ in $(seq 600); do
    tail -n +$((mark + 1)) "$T/afp.log" | grep -qE '^\[.*drops [1-9]' && break
    kill -0 "$SL_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -INT "$SL_PID"
  wait "$SL_PID"
  rc=$?
  SL_PID=
  [[ $rc -eq 0 ]] || { cat "$T/afp.log" >&2; fail "afp: exit $rc, expected 0"; }
  pool_back "$T/afp.log"
  expect_in "$T/afp.log" "sluice: warning: app 'o': device 'net_af_packet0': "
  local unsent
  unsent=$(sed -nE "s/^sluice: warning: app 'o': device 'net_af_packet0': ([0-9]+) of the [0-9]+ frames it took for transmission were not sent \(opackets [0-9]+, oerrors [0-9]+\).*/\1/p" "$T/afp.log")
  [[ -n $unsent && $unsent -gt 0 ]] || { cat "$T/afp.log" >&2; fail "afp: no unsent frames in the warning"; }
  local sent out drops freed
  sent=$(link_counter "$T/afp.log" "src.output -> o.input" packets)
  out=$(app_counter "$T/afp.log" o out_packets)
  drops=$(app_counter "$T/afp.log" o drops)
  freed=$(summary_get "$T/afp.log.json" drained_at_stop freed)
  [[ $drops -ge $unsent ]] || fail "afp: drops $drops do not include the $unsent frames not sent"
  [[ $((out + drops + freed)) -eq $sent ]] ||
    fail "afp: out_packets $out + drops $drops + freed $freed != $sent frames sent to o"
  ok "afp: interface deleted: $unsent frames not sent counted as drops; $out delivered, $drops dropped of $sent"
}
afp_case
