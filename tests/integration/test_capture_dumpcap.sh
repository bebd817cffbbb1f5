#!/usr/bin/env bash
# dpdk-dumpcap against a running engine (docs/capture.md): on 2 MB
# hugepages, without --in-memory, the engine shares its configuration and
# calls rte_pdump_init (it says so); dpdk-dumpcap then attaches as a
# secondary process and captures 100 packets of the port's traffic (a
# net_null port looped through an l2fwd).  Afterwards the engine still
# forwards, stops cleanly, and every mbuf is back.  Skipped, with the
# reason, where hugepages cannot be had or dpdk-dumpcap is missing.  Run
# on one CPU this also checks the detach guard (engine/ops/pdump.h):
# without it a worker preempted inside pdump's callback wrote into the pool
# dpdk-dumpcap had just freed (5 of 6 AddressSanitizer runs died of it).
# serial: hugepages shared with dpdk-dumpcap (huge_reserve); runs alone
. "$(dirname "$0")/lib.sh"
[[ $(id -u) -eq 0 ]] || skip "hugepages and the engine's runtime directory need root"
command -v dpdk-dumpcap >/dev/null || skip "dpdk-dumpcap is not installed (Debian package dpdk)"
command -v tcpdump >/dev/null || skip "tcpdump is not installed (scripts/setup installs it)"
pid=
cleanup() {
  local rc=$?
  [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  # Without --in-memory the EAL leaves its hugepage files behind.
  [[ -n ${HUGE_DIR:-} ]] && rm -f "$HUGE_DIR/${PREFIX}map_"*
  huge_release
  rm -rf "$T" "/var/run/dpdk/$PREFIX"
  return $rc
}
trap cleanup EXIT
huge_reserve 160
WAIT_EVENT_POLL=0.2

# A secondary maps the primary's memory at the primary's addresses.  Left to
# itself the EAL of the AddressSanitizer build (whose shadow takes most of
# the low half of the address space) chose an address where dpdk-dumpcap
# had a library ("Cannot get a virtual area at requested address"; once in
# a one-CPU run): --base-virtaddr puts the memory at 32 TiB, above ASan's
# shadow and far from where either process maps its libraries.
cat >"$T/dc.yaml" <<EOF
dpdk:
  args: [-m, "256", --huge-dir, "$HUGE_DIR", --no-pci, --file-prefix, $PREFIX,
         --base-virtaddr, "0x200000000000",
         --vdev, net_null0, --log-level, "lib.eal:warning"]
pool: { mbufs: 8191 }
workers:
  w: { core: auto }
apps:
  io:   { type: port, worker: w, device: net_null0 }
  swap: { type: l2fwd, worker: w, mode: swap }
links:
  - io.output -> swap.input
  - swap.output -> io.input
EOF
start_engine "$T/dc.yaml" "$T/run.log" 2
expect_in "$T/run.log" "dpdk-dumpcap can attach to the ports (file prefix $PREFIX)"
timeout 60 dpdk-dumpcap --file-prefix="$PREFIX" -i net_null0 -c 100 -w "$T/d.pcapng" >"$T/dc.log" 2>&1 ||
  { cat "$T/dc.log" >&2; fail "dpdk-dumpcap failed (status $?)"; }
expect_in "$T/dc.log" "Capturing on 'net_null0'"
n=$(tcpdump -r "$T/d.pcapng" 2>/dev/null | wc -l)
((n >= 100)) || { cat "$T/dc.log" >&2; fail "dpdk-dumpcap wrote $n packets, not at least 100"; }
# Still forwarding after the secondary left.
before=$(summary_get <("$SLUICE" stats --prefix "$PREFIX" --json) apps io counters out_packets)
more() { local n; n=$(summary_get <("$SLUICE" stats --prefix "$PREFIX" --json) apps io counters out_packets) && ((n > before)); }
wait_event "packets after dpdk-dumpcap left" "$pid" "$T/run.log" more
interrupt "$pid" "$T/run.log" || { cat "$T/run.log" >&2; fail "the run failed"; }
pid=
pool_back "$T/run.log"
ok "dpdk-dumpcap captured $n packets of net_null0 from the running engine"
