#!/usr/bin/env bash
# scripts/bench-peers: bad options are refused with a message and exit
# status 2; without OVS-DPDK the OVS part prints NA with its reason and the
# summary line is still well formed; with OVS-DPDK and hugepages (root), a
# tiny run of the OVS, bridge and expiry parts (1 run of 1 s, 1024 flows,
# 16 MAC addresses, 200 expiring flows) records both engines (OVS with the
# in_port rule and with one exact rule per 5-tuple; OVS's NORMAL action for
# the bridge) and the floors (Sluice port -> port, testpmd io) and ends with
# a well-formed summary.
# Nothing here asserts a rate.  Skipped (77) where OVS-DPDK or hugepages are
# unavailable.
# serial: OVS-DPDK and dpdk-testpmd on 1 GB of hugepages, CPUs pinned; runs alone
. "$(dirname "$0")/lib.sh"
B="$SRC/scripts/bench-peers"
export SLUICE SLUICE_BENCH_NO_BUILD=1

expect_refused "bench-peers: unknown argument '--bogus'" --bogus
expect_refused "bench-peers: --runs must be a positive integer" --runs 0
expect_refused "bench-peers: unknown part 'vpp' (testpmd, l3fwd, l3fwd6, ovs, bridge, expiry, flowgen, expirygen)" --parts ovs,vpp
expect_refused "bench-peers: --expiry-gen-flows must be 1..16777216" --expiry-gen-flows 0
expect_refused "bench-peers: --macs values must be 1..1048576" --macs 2,0
expect_refused "bench-peers: --expiry-flows must be 1..16777216" --expiry-flows 0
expect_refused "bench-peers: --gen-flows values must be 1..16777216" --gen-flows 16777217
expect_refused "bench-peers: --flows values must be 1..16777216" --flows 1,0
expect_refused "bench-peers: --duration needs a value" --duration
expect_refused "bench-peers: unknown OVS rule set 'megaflow' (port, exact)" --ovs-rules port,megaflow
expect_refused "bench-peers: --ovs-rules needs port, exact or both" --ovs-rules ""
expect_refused "bench-peers: unknown floor engine 'vpp-io' (sluice-io, testpmd-io, or none)" --floors sluice-io,vpp-io
expect_refused "bench-peers: --memory must be 4k or 2m" --memory 1g
ok "bad options refused with exit status 2"

# The largest default route table (262144 routes) as bench-peers writes it
# fits in a configuration (at most 16 MiB) with room for the rest, and the
# router takes it.
python3 "$SRC/scripts/peers/gen.py" routes 262144 "$T" >/dev/null || fail "gen.py routes 262144 failed"
size=$(stat -c %s "$T/routes.yaml")
((size < (16 << 20) - 16384)) || fail "262144 routes take $size bytes of YAML: no room left under 16 MiB"
{ printf 'apps:\n  in: { type: port, device: "net_null0" }\n  out: { type: port, device: "net_null1" }\n'
  printf '  r:\n    type: router\n    routes: '; cat "$T/routes.yaml"
  printf 'links:\n  - in.output -> r.input\n  - r.output0 -> out.input\n'; } >"$T/big.yaml"
"$SLUICE" check "$T/big.yaml" >"$T/big.out" 2>&1 || { cat "$T/big.out"; fail "sluice check refused the 262144-route configuration"; }
ok "262144 routes: $size bytes of YAML, accepted by sluice check"

SUMMARY_RE='^summary: testpmd_ratio=(NA|[0-9]+\.[0-9]+) l3fwd_ratio=(NA|[0-9]+\.[0-9]+) ovs_ratio_min=(NA|[0-9]+\.[0-9]+) testpmd_pool_ratio=(NA|[0-9]+\.[0-9]+) bridge_ovs_ratio_min=(NA|[0-9]+\.[0-9]+)$'

# No OVS: the part is skipped with its reason, the rest of the line stands.
# (The smoke test installs nothing: BENCH_PEERS_NO_INSTALL.)
export BENCH_PEERS_NO_INSTALL=1
BENCH_PEERS_VSWITCHD=/nonexistent/ovs-vswitchd "$B" --quick --parts ovs >"$T/na" 2>&1 ||
  { cat "$T/na"; fail "bench-peers without OVS exited $?"; }
line=$(grep '^summary: ' "$T/na") || { cat "$T/na"; fail "no summary line"; }
[[ $line =~ $SUMMARY_RE ]] || fail "malformed summary: $line"
[[ $line == "summary: testpmd_ratio=NA l3fwd_ratio=NA ovs_ratio_min=NA testpmd_pool_ratio=NA bridge_ovs_ratio_min=NA" ]] ||
  fail "expected every ratio NA without OVS, got: $line"
if [[ -x /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk ]]; then
  expect_in "$T/na" "bench-peers: OVS part: no OVS numbers: /nonexistent/ovs-vswitchd not found"
else
  expect_in "$T/na" "bench-peers: OVS part: no OVS numbers: OVS-DPDK not installed"
fi
expect_in "$T/na" "bench-peers: testpmd_ratio NA: part not run (--parts)"
expect_in "$T/na" "bench-peers: l3fwd_ratio NA: part not run (--parts)"
expect_in "$T/na" "bench-peers: testpmd_pool_ratio NA: part not run (--parts)"
ok "without OVS: NA with reasons, summary well formed"

# With OVS: needs the package and 1024 MB of 2 MB hugepages (reserved by
# the script as root, given back at its end).
[[ -x /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk ]] ||
  skip "OVS-DPDK is not installed (Debian package openvswitch-switch-dpdk)"
free=$(awk '/^HugePages_Free:/{print $2}' /proc/meminfo)
((EUID == 0 || free >= 512)) || skip "no 1024 MB of free 2 MB hugepages and not root to reserve them"
before=$(cat /proc/sys/vm/nr_hugepages)
"$B" --quick --parts ovs,bridge,expiry --expiry-flows 200 --macs 16 --out "$T/b" >"$T/out" 2>&1 ||
  { cat "$T/out"; fail "a tiny run failed"; }
if grep -q "no OVS numbers: OVS-DPDK needs hugepages" "$T/out"; then
  skip "$(sed -n 's/.*no OVS numbers: //p' "$T/out")"
fi
# Pages still held by a process that has just ended stay in the count until
# the kernel frees them: wait for the count, up to wait_event's minute.
pages_back() { [[ $(cat /proc/sys/vm/nr_hugepages) == "$before" ]]; }
WAIT_EVENT_POLL=0.2 wait_event "the hugepage count to come back to $before (now $(cat /proc/sys/vm/nr_hugepages))" "" "" pages_back
line=$(grep '^summary: ' "$T/out") || { cat "$T/out"; fail "no summary line"; }
[[ $line =~ $SUMMARY_RE ]] || fail "malformed summary: $line"
[[ $line =~ ovs_ratio_min=[0-9] ]] || { cat "$T/out"; fail "no OVS ratio: $line"; }
[[ $line =~ bridge_ovs_ratio_min=[0-9] ]] || { cat "$T/out"; fail "no bridge ratio: $line"; }
python3 - "$T/b/results.csv" <<'PY' || { cat "$T/out"; fail "result rows"; }
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
got = sorted((r["part"], r["config"], r["engine"]) for r in rows)
assert got == [("bridge", "macs=16", "ovs"), ("bridge", "macs=16", "sluice"),
               ("expiry", "flows=200", "ovs"), ("expiry", "flows=200", "sluice"),
               ("ovs", "flows=1024", "ovs"), ("ovs", "flows=1024", "ovs-exact"),
               ("ovs", "flows=1024", "sluice"), ("ovs", "flows=1024", "sluice-io"),
               ("ovs", "flows=1024", "testpmd-io")], got
for r in rows:
    if r["part"] == "bridge":
        # every destination learned before the window: all forwarded, none flooded
        assert int(r["packets"]) > 0 and r["hit_pct"] == "100.0", r
        if r["engine"] == "sluice":
            assert "bridge" in r["extra"] and "cycles/packet" in r["extra"], r
        else:
            assert "fdb 16/2048" in r["extra"], r
    elif r["part"] == "ovs":
        assert int(r["packets"]) > 0, r
        # the floors keep no flows: no hit rate
        assert (r["hit_pct"] == "-") == (r["engine"] in ("sluice-io", "testpmd-io")), r
        if r["engine"] == "ovs-exact":
            # one datapath flow per 5-tuple: EMC or megaflow hits, no simple match
            assert "simple match 0.0%" in r["extra"], r
    else:
        assert int(r["packets"]) == 200, r   # every flow's expiry measured
PY
grep -Eq '^bench-peers: floor_ratio_min: testpmd-io=[0-9]+\.[0-9]+ sluice-io=[0-9]+\.[0-9]+ ' "$T/out" ||
  { cat "$T/out"; fail "no floor_ratio_min line"; }
ok "OVS, bridge and expiry parts: both engines and the floors recorded, summary well formed"
# Only what the script started is gone: no ovs-vswitchd of its run directory.
pgrep -f "$T/b/ovs/" >/dev/null && fail "an OVS process of the run is still alive"
ok "no process of the run left"
